"""Design diagnostics (kscore.leaderboard.stats.plan, docs/rankings.md *Plan*):
the within-question variance against its definition and Miller's unbiased
estimate, the plan's numbers against a direct computation, the split of
variance and the power claim checked by simulation."""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import numpy as np
import pytest
from scipy import stats

import kscore
from kscore import counts as kc
from kscore.leaderboard import Counts, LeaderboardError
from kscore.leaderboard._spec import Metric
from kscore.leaderboard.stats.estimates import question_estimates
from kscore.leaderboard.stats.within import jackknife, within_variance

BINARY = np.array([0.0, 1.0])


def board_of(p: np.ndarray, K: int, rng: np.random.Generator, clusters: np.ndarray | None = None) -> Counts:
    """Models (rows of ``p``: each question's chance of a right answer)
    with ``K`` samples per question."""
    L, Q = p.shape
    c = rng.binomial(K, np.clip(p, 0.0, 1.0)).ravel()
    cats = np.stack([K - c, c], axis=1).astype(np.int64)
    attrs: dict[str, list[str | None]] = {}
    if clusters is not None:
        attrs["passage"] = [f"g{int(x)}" for x in clusters]
    return Counts([f"m{i}" for i in range(L)], [f"q{i:03d}" for i in range(Q)], np.repeat(np.arange(L), Q),
                  np.tile(np.arange(Q), L), cats, attrs)


def test_within_variance_of_the_mean_is_millers_unbiased_estimate() -> None:
    # pass@1 / avg@n: s^2 / n with s^2 the samples' variance (ddof 1).
    for n in range(2, 9):
        for c in range(n + 1):
            x = np.r_[np.zeros(n - c), np.ones(c)]
            v = within_variance(np.array([[n - c, c]]), Metric("pass_at_k", 1), BINARY)
            assert math.isclose(float(v[0]), float(np.var(x, ddof=1)) / n, rel_tol=1e-12, abs_tol=1e-15)
    # Rewards: three categories, avg@n.
    w = np.array([0.0, 0.5, 1.0])
    cats = np.array([[2, 1, 3], [0, 4, 1], [1, 0, 0], [0, 2, 0]])
    v = within_variance(cats, Metric("avg_at_n", 0), w)
    for row, got in zip(cats, v):
        x = np.repeat(w, row)
        want = float(np.var(x, ddof=1)) / len(x) if len(x) > 1 else float("nan")
        assert (math.isnan(want) and math.isnan(got)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15)


def test_jackknife_is_its_definition_over_samples() -> None:
    # pass@3 and maj@3: the leave-one-sample-out definition, by brute force over the samples.
    for metric, fn in ((Metric("pass_at_k", 3), kc.pass_at_k), (Metric("maj_at_k", 3), kc.maj_at_k)):
        for n in range(4, 9):
            for c in range(n + 1):
                x = np.r_[np.zeros(n - c, np.int64), np.ones(c, np.int64)]
                loo = np.array([float(fn(np.array([n - 1]), np.array([int(np.delete(x, i).sum())]), 3)[0])
                                for i in range(n)])
                want = (n - 1) / n * float(np.sum((loo - loo.mean()) ** 2))
                got = float(jackknife(np.array([[n - c, c]]), metric, BINARY)[0])
                assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-15), (metric, n, c)
                if n < 6:  # fewer than 2k samples: no unbiased estimate; the jackknife is used
                    assert within_variance(np.array([[n - c, c]]), metric, BINARY)[0] == got
    # Too few samples for the metric with one left out: unknown, not a number.
    assert np.isnan(within_variance(np.array([[1, 2]]), Metric("pass_at_k", 3), BINARY)[0])
    assert np.isnan(within_variance(np.array([[0, 1]]), Metric("pass_at_k", 1), BINARY)[0])


U_METRICS = [Metric("pass_at_k", 1), Metric("pass_at_k", 3), Metric("pass_hat_k", 2), Metric("maj_at_k", 3),
             Metric("g_pass_at_k_tau", 3, 0.5), Metric("mg_pass_at_k", 4), Metric("auc_at_k", 3)]


@pytest.mark.parametrize("metric", U_METRICS, ids=lambda m: m.name)
def test_within_variance_is_unbiased_by_exact_enumeration(metric: Metric) -> None:
    # For c ~ Binomial(n, p): E[estimate] = Var(f(n, c)), summed over every c.
    k = metric.k
    for n in range(2 * k, 2 * k + 5):
        cats = np.stack([n - np.arange(n + 1), np.arange(n + 1)], axis=1)
        f = question_estimates(cats, metric, BINARY)
        est = within_variance(cats, metric, BINARY)
        for p in (0.07, 0.37, 0.5, 0.81):
            pmf = stats.binom.pmf(np.arange(n + 1), n, p)
            true = float(pmf @ (f - pmf @ f) ** 2)
            assert math.isclose(float(pmf @ est), true, rel_tol=1e-9, abs_tol=1e-14), (n, p)


def test_mean_reward_and_bayes_are_unbiased_by_exact_enumeration() -> None:
    # Three categories with rewards: every outcome of n samples enumerated.
    w = np.array([0.0, 0.3, 1.0])
    probs = np.array([0.5, 0.2, 0.3])
    for n in (2, 3, 5):
        cats = np.array([(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)])
        pmf = stats.multinomial.pmf(cats, n, probs)
        for metric in (Metric("avg_at_n", 0), Metric("bayes")):
            f = question_estimates(cats, metric, w)
            true = float(pmf @ (f - pmf @ f) ** 2)
            assert math.isclose(float(pmf @ within_variance(cats, metric, w)), true, rel_tol=1e-12)
        for row in cats:  # avg@n: s^2 / n, as Miller writes it
            x = np.repeat(w, row)
            got = float(within_variance(row[None], Metric("avg_at_n", 0), w)[0])
            assert math.isclose(got, float(np.var(x, ddof=1)) / n, rel_tol=1e-12, abs_tol=1e-15)


def test_plan_numbers_equal_a_direct_computation() -> None:
    rng = np.random.default_rng(3)
    L, Q, K = 5, 80, 4
    base = rng.uniform(0.1, 0.9, Q)
    p = np.clip(base[None, :] + np.linspace(0.1, -0.1, L)[:, None] + rng.normal(0, 0.1, (L, Q)), 0, 1)
    clusters = np.arange(Q) // 4
    counts = board_of(p, K, rng, clusters)
    for cluster in (None, "passage"):
        board = kscore.leaderboard(counts, metrics="pass@1", cluster=cluster)
        pl = board.plan(power=0.8)
        order = [r.model for r in board.rows]
        x = (counts.categories[:, 1] / K).reshape(L, Q)
        za, zb = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
        for m in pl.models:
            xi = x[int(m.model[1:])]
            within = float(np.mean(xi * (1 - xi) * K / (K - 1) / K))
            assert math.isclose(m.within, within, rel_tol=1e-9)
            assert math.isclose(m.between, max(float(np.var(xi, ddof=1)) - within, 0.0), rel_tol=1e-9, abs_tol=1e-15)
            assert math.isclose(m.se, float(np.std(xi, ddof=1)) / math.sqrt(Q), rel_tol=1e-9)
        for pp, (a, b) in zip(pl.pairs, zip(order, order[1:])):
            assert (pp.upper, pp.lower) == (a, b)
            d = x[int(a[1:])] - x[int(b[1:])]
            cmp = board.compare(a, b)  # the board's paired standard error (clustered with clusters)
            assert math.isclose(pp.diff, float(d.mean()), rel_tol=1e-9, abs_tol=1e-15)
            assert math.isclose(pp.se, cmp.sigma, rel_tol=1e-9)
            assert math.isclose(pp.detectable, (za + zb) * cmp.sigma, rel_tol=1e-9)
            xa, xb = x[int(a[1:])], x[int(b[1:])]
            W = float(np.mean((xa * (1 - xa) + xb * (1 - xb)) / (K - 1)))
            B = max(float(np.var(d, ddof=1)) - W, 0.0)
            assert math.isclose(pp.within, W, rel_tol=1e-9) and math.isclose(pp.between, B, abs_tol=1e-12)
            if pp.diff > 0 and not pp.resolved:
                # The fewest questions, and samples per question, whose projected
                # standard error detects the observed difference.
                def mde(n: float, r: float, z: float = za + zb, se: float = cmp.sigma, B: float = B,
                        W: float = W) -> float:
                    return float(z * se * math.sqrt(Q / n * (B + W / r) / (B + W)))
                assert pp.questions_needed is not None
                assert mde(pp.questions_needed, 1.0) <= pp.diff * (1 + 1e-9) < mde(pp.questions_needed - 1, 1.0)
                if pp.samples_needed is not None:
                    r = pp.samples_needed / K
                    assert mde(Q, r) <= pp.diff * (1 + 1e-9) < mde(Q, (pp.samples_needed - 1) / K)
                    extra = {"questions": (pp.questions_needed - Q) * K, "samples": Q * (pp.samples_needed - K)}
                    assert pp.extra_samples == extra
                    assert pp.cheaper == min(extra, key=lambda k: (extra[k], k != "questions"))
                else:
                    assert mde(Q, 1e12) > pp.diff


def test_variance_split_is_unbiased_over_simulated_boards() -> None:
    # Var(theta) and E[p (1 - p) / K] known: the estimates average to them.
    rng = np.random.default_rng(11)
    S, Q, K = 400, 50, 4
    theta = rng.beta(2, 2, (S, Q))
    counts = board_of(theta, K, rng)
    # Each "model" is its own board (its own questions), as in test_leaderboard_stats.
    counts = Counts(counts.models, [f"q{i}" for i in range(S * Q)], counts.model,
                    counts.question + Q * counts.model, counts.categories)
    pl = kscore.leaderboard(counts, metrics="pass@1").plan()
    within = np.array([m.within for m in pl.models])
    total = np.array([m.between + m.within for m in pl.models])
    true_between = 1 / 20  # Beta(2, 2): a b / ((a + b)^2 (a + b + 1))
    true_within = (0.5 - (true_between + 0.25)) / K  # E[p (1 - p)] / K
    assert abs(within.mean() - true_within) < 4 * within.std() / math.sqrt(S)
    assert abs(total.mean() - (true_between + true_within)) < 4 * total.std() / math.sqrt(S)


@pytest.mark.parametrize("clustered", [False, True])
def test_the_detectable_difference_is_found_80_percent_of_the_time(clustered: bool) -> None:
    # A near-tie: the reported detectable difference (median over pilot boards)
    # made the true difference, the paired test at 95% finds it in about 80%
    # of fresh boards.
    rng = np.random.default_rng(7 + clustered)
    Q, K = 200, 4
    clusters = np.arange(Q) // 5 if clustered else None

    def simulate(delta: float) -> Any:
        if clustered:
            g = rng.uniform(0.25, 0.75, Q // 5).repeat(5)
            shared = rng.normal(0, 0.06, Q // 5).repeat(5)  # the pair's difference varies by passage too
            theta = np.clip(g + rng.uniform(-0.1, 0.1, Q), 0.2, 0.8)
            p = np.stack([theta + delta / 2 + shared / 2, theta - delta / 2 - shared / 2])
        else:
            theta = rng.uniform(0.25, 0.75, Q)
            p = np.stack([theta + delta / 2 + rng.uniform(-0.1, 0.1, Q), theta - delta / 2 + rng.uniform(-0.1, 0.1, Q)])
        return kscore.leaderboard(board_of(p, K, rng, clusters), metrics="pass@1",
                                  cluster="passage" if clustered else None)

    pilots = [simulate(0.02) for _ in range(200)]
    mde = float(np.median([b.plan().pairs[0].detectable for b in pilots]))
    found = []
    for _ in range(400):
        b = simulate(mde)
        a = "m0" if b.rows[0].model == "m0" else b.rows[1].model
        c = b.compare("m0", "m1")
        found.append(c.p < 0.05 and c.diff > 0 and a == "m0")
    power = float(np.mean(found))
    # 400 boards: the binomial sd of 0.8 is 0.02.
    assert 0.73 <= power <= 0.87, (power, mde)


def test_plan_to_dict_is_json_and_words_name_the_choice() -> None:
    import json

    rng = np.random.default_rng(1)
    theta = rng.uniform(0.3, 0.7, 60)
    p = np.stack([theta + 0.02, theta, theta - 0.2])
    board = kscore.leaderboard(board_of(p, 2, rng), metrics="pass@1")
    pl = board.plan()
    doc = json.loads(json.dumps(pl.to_dict()))
    assert [x["model"] for x in doc["models"]] == [r.model for r in board.rows]
    assert len(doc["pairs"]) == 2
    text = "\n".join(pl.lines())
    assert "answer sampling" in text and "80% power" in text
    with pytest.raises(LeaderboardError, match="power"):
        board.plan(power=1.0)


def test_one_model_and_identical_models() -> None:
    rng = np.random.default_rng(2)
    p = np.full((2, 10), 0.5)
    counts = board_of(p, 3, rng)
    same = Counts(counts.models, counts.questions, counts.model, counts.question,
                  np.tile(counts.categories[:10], (2, 1)))
    pl = kscore.leaderboard(same, metrics="pass@1").plan()
    pair = pl.pairs[0]
    assert pair.diff == 0 and pair.flip is None and pair.questions_needed is None and pair.cheaper is None
    one = Counts(["a"], counts.questions, np.zeros(10, np.int64), np.arange(10), counts.categories[:10])
    assert kscore.leaderboard(one, metrics="pass@1").plan().pairs == []
    for words in kscore.leaderboard(same, metrics="pass@1").plan().lines():
        assert "nan" not in words


def test_brute_force_flip_agrees_on_a_board() -> None:
    # The plan's flip counts, on a small board, against every subset.
    rng = np.random.default_rng(4)
    Q, K = 9, 2
    theta = rng.uniform(0.2, 0.8, Q)
    p = np.stack([theta + 0.1, theta, theta - 0.05])
    counts = board_of(p, K, rng)
    board = kscore.leaderboard(counts, metrics="pass@1")
    x = (counts.categories[:, 1] / K).reshape(3, Q)
    for pp in board.plan().pairs:
        d = x[int(pp.upper[1:])] - x[int(pp.lower[1:])]
        best = None
        for k in range(Q):
            if any(np.delete(d, list(s)).sum() < -1e-12 for s in combinations(range(Q), k)):
                best = k
                break
        assert pp.flip == best


def test_small_board_note_and_groups() -> None:
    rng = np.random.default_rng(6)
    theta = rng.uniform(0.3, 0.7, 40)
    counts = board_of(np.stack([theta + 0.05, theta]), 2, rng, np.arange(40) % 2)
    # (the note is about the normal interval; the default holds its level there and says nothing)
    assert kscore.leaderboard(counts, metrics="pass@1").plan().small_board is None
    small = kscore.leaderboard(counts, metrics="pass@1", interval="normal").plan()
    assert small.small_board is not None and "40 questions" in small.small_board
    assert kscore.leaderboard(counts, metrics="pass@1", interval="wilson").plan().small_board is None
    grouped = kscore.leaderboard(counts, metrics="pass@1", by="passage")
    for g in grouped.groups:
        pl = g.plan()
        assert pl.pairs[0].questions == 20
        x = (counts.categories[:, 1] / 2).reshape(2, 40)[:, np.arange(40) % 2 == int(str(g.group)[1:])]
        order = [int(r.model[1:]) for r in g.rows]
        assert math.isclose(pl.pairs[0].diff, float((x[order[0]] - x[order[1]]).mean()), abs_tol=1e-15)


@pytest.mark.parametrize(("metric", "K"), [("pass@1", 2), ("pass@2", 4)])
def test_more_samples_shrink_the_standard_error_as_projected(metric: str, K: int) -> None:
    # The plan's projection se^2 (B + W / r) / (B + W), from boards with K
    # samples, against the standard errors of boards drawn with r K samples
    # (medians over simulated boards; pass@2 is a U-statistic: to first order).
    rng = np.random.default_rng(21)
    Q, r = 150, 4
    theta = rng.uniform(0.3, 0.7, Q)  # fixed questions: only the answers are drawn again

    def pair(samples: int) -> Any:
        p = np.stack([theta + 0.03 + rng.normal(0, 0.12, Q), theta + rng.normal(0, 0.12, Q)])
        return kscore.leaderboard(board_of(p, samples, rng), metrics=metric).plan().pairs[0]

    few = [pair(K) for _ in range(150)]
    many = [pair(r * K) for _ in range(150)]
    projected = np.median([p.se * math.sqrt((p.between + p.within / r) / (p.between + p.within)) for p in few])
    seen = float(np.median([p.se for p in many]))
    assert abs(projected / seen - 1) < 0.08, (projected, seen)


def test_ragged_board_and_one_sample_per_question() -> None:
    rng = np.random.default_rng(8)
    theta = rng.uniform(0.2, 0.8, 30)
    counts = board_of(np.stack([theta + 0.1, theta, theta - 0.01]), 1, rng)
    keep = ~((counts.model == 1) & (counts.question < 10))  # m1 lacks 10 questions
    ragged = Counts(counts.models, counts.questions, counts.model[keep], counts.question[keep],
                    counts.categories[keep])
    board = kscore.leaderboard(ragged, metrics="pass@1")
    pl = board.plan()
    x = counts.categories[:, 1].reshape(3, 30).astype(float)
    for pp in pl.pairs:
        a, b = int(pp.upper[1:]), int(pp.lower[1:])
        common = np.arange(30) >= (10 if 1 in (a, b) else 0)
        assert pp.questions == int(common.sum())
        assert math.isclose(pp.diff, float((x[a] - x[b])[common].mean()), abs_tol=1e-15)
        assert math.isnan(pp.within) and pp.samples_needed is None  # one sample: no within-question spread
    text = "\n".join(pl.lines())
    assert "nan" not in text and "unknown" in text
