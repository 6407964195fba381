"""kscore.aggregate's stopping rules, CGES and KDE vote against scorio.aggregate 0.2.3.

Random answer streams (str with None, "" and NaN; ints; mixed types), every option,
one question and batches (the ``*_batch`` forms equal the one-question rule on every
row), edge cases and every error message. The Dirichlet stop's probability is also
checked against an independent mpmath integral (scorio's own number comes from
``scipy.integrate.quad`` to 1e-10: kscore's is checked to 1e-12 against mpmath, and
its decisions equal scorio's away from that tolerance).
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Callable
from typing import Any

import mpmath
import numpy as np
import pytest

from kscore import aggregate as K

S = pytest.importorskip("scorio.aggregate")

PICK: list[Any] = [None, "", float("nan"), "A", "B", "C", "D", 1, 1.0, True, "E"]


def streams(seed: int, count: int = 60, longest: int = 30, kinds: int = 11) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(0, longest + 1))
        style = int(rng.integers(0, 3))
        if style == 0:
            yield [PICK[int(v)] for v in rng.integers(0, kinds, size=n)]
        elif style == 1:  # a dominant answer: the rules stop
            yield [("A" if rng.random() < 0.8 else PICK[int(v)]) for v in rng.integers(0, kinds, size=n)]
        else:
            yield [int(v) for v in rng.integers(0, 4, size=n)]


def same_prob(got: Any, want: Any, tol: float = 1e-12) -> None:
    assert isinstance(got, tuple) and isinstance(want, tuple)
    assert type(got[0]) is type(want[0]) and got[0] == want[0], (got, want)
    assert isinstance(got[1], float)
    assert abs(got[1] - want[1]) <= tol, (got, want)


@pytest.mark.parametrize("seed", range(4))
def test_adaptive_consistency_stop(seed: int) -> None:
    for answers in streams(seed):
        for threshold in (0.95, 0.5, 0.99):
            want = S.adaptive_consistency_stop(answers, threshold=threshold, return_prob=True)
            same_prob(K.adaptive_consistency_stop(answers, threshold=threshold, return_prob=True), want)
            assert K.adaptive_consistency_stop(answers, threshold=threshold) == want[0]


def test_top_two_past_the_exact_range() -> None:
    """Large counts (n up to 16384 summed exactly): scipy's number to 1e-12."""
    for v1, v2 in ((3000, 2000), (2100, 2050), (5000, 4990), (60, 0), (1, 0), (0, 0)):
        answers = ["A"] * v1 + ["B"] * v2
        same_prob(
            K.adaptive_consistency_stop(answers, return_prob=True),
            S.adaptive_consistency_stop(answers, return_prob=True),
        )


def mp_leader(counts: list[int]) -> float:
    """P(leader largest | Dirichlet(counts + 1)) by mpmath (40 digits, adaptive quadrature)."""
    mpmath.mp.dps = 40
    lead = counts.index(max(counts))
    a = [c + 1 for c in counts]
    al = a[lead]
    others = a[:lead] + a[lead + 1 :]

    def f(x: Any) -> Any:
        if x <= 0:
            return mpmath.mpf(0)
        dens = mpmath.exp(-x + (al - 1) * mpmath.log(x) - mpmath.loggamma(al))
        return dens * mpmath.fprod([mpmath.gammainc(b, 0, x, regularized=True) for b in others])

    s = mpmath.sqrt(al)
    points = sorted({mpmath.mpf(0), max(al - 3 * s, mpmath.mpf("0.5")), mpmath.mpf(al), al + 3 * s, al + 10 * s + 30})
    return float(mpmath.quad(f, [*points, mpmath.inf]))


LEADER_CASES = [
    [5, 2, 1],
    [3, 3, 1],
    [2, 1, 1],
    [64, 1, 1],
    [40, 39, 38],
    [10, 10, 9, 1],
    [1, 1, 2],
    [20, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [12, 27, 6, 15, 8],
    [200, 150, 3],
]


@pytest.mark.parametrize("counts", LEADER_CASES)
def test_dirichlet_probability_against_mpmath(counts: list[int]) -> None:
    answers = [a for i, c in enumerate(counts) for a in [f"x{i}"] * c]
    _, prob = K.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
    assert abs(prob - mp_leader(counts)) <= 1e-12
    # scorio's quadrature targets 1e-10: within it, and the same decision away from it
    stop, theirs = S.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
    assert abs(prob - theirs) <= 1e-9
    for threshold in (0.3, 0.5, 0.8, 0.95, 0.99):
        if abs(theirs - threshold) > 1e-9:
            assert K.adaptive_consistency_dirichlet_stop(answers, threshold=threshold) == (
                S.adaptive_consistency_dirichlet_stop(answers, threshold=threshold)
            )


@pytest.mark.parametrize("seed", range(2))
def test_dirichlet_stop_random(seed: int) -> None:
    """Random streams (scorio integrates each: 12 a seed): decisions equal, prob to 1e-9."""
    for answers in streams(100 + seed, count=12, longest=40, kinds=9):
        want = S.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
        got = K.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
        same_prob(got, want, tol=1e-9)


def test_dirichlet_exchangeable_and_small() -> None:
    for answers in (
        ["A", "B", "C"],
        ["A", "B", "C", "C", "B", "A"],
        ["A"],
        ["A", "B"],
        [],
        [None, ""],
        ["A", "A", "B"],
    ):
        want = S.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
        got = K.adaptive_consistency_dirichlet_stop(answers, return_prob=True)
        assert got[0] == want[0] and got[1] == want[1], (answers, got, want)


@pytest.mark.parametrize("seed", range(3))
def test_crp_same_draws(seed: int) -> None:
    for answers in streams(200 + seed, count=8, longest=14, kinds=9):
        for options in (
            {"horizon": 16, "n_alpha": 5, "n_simulations": 40, "seed": seed},
            {"horizon": 12, "n_alpha": 3, "n_simulations": 7, "seed": 12345, "threshold": 0.5},
        ):
            want = S.adaptive_consistency_crp_stop(answers, return_prob=True, **options)
            got = K.adaptive_consistency_crp_stop(answers, return_prob=True, **options)
            assert got == want and type(got[0]) is type(want[0]), (answers, options, got, want)


def test_crp_default_size_and_no_seed() -> None:
    answers = ["A"] * 6 + ["B", "C"]
    assert K.adaptive_consistency_crp_stop(answers, return_prob=True) == S.adaptive_consistency_crp_stop(
        answers, return_prob=True
    )
    stop, prob = K.adaptive_consistency_crp_stop(answers, seed=None, n_alpha=4, n_simulations=50, return_prob=True)
    assert isinstance(stop, bool) and 0.0 <= prob <= 1.0


@pytest.mark.parametrize("seed", range(3))
def test_esc_stop(seed: int) -> None:
    for answers in streams(300 + seed, count=80, longest=5, kinds=5):
        assert K.esc_stop(answers) == S.esc_stop(answers)
        assert K.esc_stop(iter(answers)) == S.esc_stop(iter(answers))


def batch_rows(seed: int, m: int, n: int, kinds: int) -> tuple[Any, list[list[Any]]]:
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, kinds, size=(m, n))
    ids[: m // 3] = np.where(rng.random((m // 3, n)) < 0.8, 1, ids[: m // 3])
    table = np.array(["", "A", "B", "C", "D", "E", "F", "G"])
    answers = table[ids]
    rows = [[None if a == "" else str(a) for a in row] for row in answers]
    return answers, rows


@pytest.mark.parametrize("kinds", [2, 4, 8])
def test_batches_equal_the_rule_row_by_row(kinds: int) -> None:
    answers, rows = batch_rows(kinds, 60, 12, kinds)
    for threshold in (0.95, 0.6):
        stop, prob = K.adaptive_consistency_stop_batch(answers, threshold=threshold, return_prob=True)
        for r, row in enumerate(rows):
            want = S.adaptive_consistency_stop(row, threshold=threshold, return_prob=True)
            assert bool(stop[r]) == want[0] and abs(prob[r] - want[1]) <= 1e-12
        stop, prob = K.adaptive_consistency_dirichlet_stop_batch(answers, threshold=threshold, return_prob=True)
        for r, row in enumerate(rows):
            got = K.adaptive_consistency_dirichlet_stop(row, threshold=threshold, return_prob=True)
            assert (bool(stop[r]), float(prob[r])) == got
    # a list of lists and an int batch
    assert K.adaptive_consistency_stop_batch(rows).tolist() == [K.adaptive_consistency_stop(r) for r in rows]
    esc = K.esc_stop_batch(answers[:, :3])
    assert esc.tolist() == [S.esc_stop(r[:3]) for r in rows]


def test_dirichlet_batch_against_scorio_sample() -> None:
    """Eight rows of a batch against scorio's own integral."""
    answers, rows = batch_rows(11, 8, 20, 6)
    stop, prob = K.adaptive_consistency_dirichlet_stop_batch(answers, return_prob=True)
    for r, row in enumerate(rows):
        want = S.adaptive_consistency_dirichlet_stop(row, return_prob=True)
        assert bool(stop[r]) == want[0] and abs(prob[r] - want[1]) <= 1e-9


STOP_ERRORS = [
    ("adaptive_consistency_stop", (["A"],), {"threshold": 1.0}),
    ("adaptive_consistency_stop", (["A"],), {"threshold": 0.0}),
    ("adaptive_consistency_dirichlet_stop", (["A"],), {"threshold": 1.5}),
    ("adaptive_consistency_crp_stop", (["A"],), {"threshold": -0.1}),
    ("adaptive_consistency_crp_stop", (["A"],), {"horizon": 0}),
    ("adaptive_consistency_crp_stop", (["A"],), {"horizon": 2.0}),
    ("adaptive_consistency_crp_stop", (["A"],), {"n_alpha": True}),
    ("adaptive_consistency_crp_stop", (["A"],), {"n_simulations": -3}),
    ("adaptive_consistency_crp_stop", (["A"],), {"seed": -1}),
    ("adaptive_consistency_crp_stop", (["A"],), {"seed": 1.5}),
    ("adaptive_consistency_crp_stop", (["A"],), {"seed": False}),
    ("adaptive_consistency_stop", ([["A"]],), {}),
    ("cges_vote", (["A"], [0.5]), {"allow_other": 1}),
    ("cges_vote", (["A"], None), {}),
    ("cges_vote", (["A", "B"], [0.5]), {}),
    ("cges_vote", (["A", "B"], [0.5, 1.0]), {}),
    ("cges_vote", ([["A", None], ["B", "C"]], [[0.5, 3.0], [0.2, np.nan]]), {}),
    ("cges_stop", (["A"], [0.5]), {"threshold": 1.0}),
    ("cges_stop", (["A"], [0.5]), {"include_other": "yes"}),
    ("cges_stop", (["A"], [0.5]), {"min_samples": 0}),
    ("cges_stop", (["A"], [0.5]), {"min_samples": 1.0}),
    ("cges_stop", ([["A"]], [[0.5]]), {}),
    ("cges_stop", (["A", "B"], [0.5, 0.0]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"n_bins": 0}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"n_bins": 2.0}),
    ("fit_kde_vote_calibration", ([0.2, 1.0], [0, 1]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1, 1]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 2]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], ["a", "b"]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [1, 1]), {}),
    ("fit_kde_vote_calibration", ([], []), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.3, 0.8, 0.8], [0, 0, 1, 1]), {}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"bandwidth": "silverman"}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"bandwidth": (1.0, 2.0, 3.0)}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"bandwidth": -1.0}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"bandwidth": None}),
    ("fit_kde_vote_calibration", ([0.2, 0.8], [0, 1]), {"bandwidth": [0.5, float("inf")]}),
]


@pytest.mark.parametrize(("rule", "args", "kwargs"), STOP_ERRORS)
def test_errors_are_scorios(rule: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(Exception) as theirs:
        getattr(S, rule)(*args, **kwargs)
    with pytest.raises(type(theirs.value)) as mine:
        getattr(K, rule)(*args, **kwargs)
    assert str(mine.value) == str(theirs.value)


def test_cges_other_sentinel() -> None:
    assert repr(K.CGES_OTHER) == "CGES_OTHER"
    assert pickle.loads(pickle.dumps(K.CGES_OTHER)) is K.CGES_OTHER
    for lib in (S, K):
        with pytest.raises(ValueError) as err:
            lib.cges_vote(["A", lib.CGES_OTHER], [0.5, 0.5])
        assert str(err.value) == "CGES_OTHER is reserved and cannot be an observed answer."


def swap_other(value: Any) -> Any:
    """scorio's sentinel as kscore's, inside results."""
    if value is S.CGES_OTHER:
        return K.CGES_OTHER
    if isinstance(value, tuple):
        return tuple(swap_other(v) for v in value)
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([swap_other(v) for v in value.tolist()] + [None], dtype=object)[:-1]
    return value


def same(a: Any, b: Any, tol: float = 0.0) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and all(same(x, y, tol) for x, y in zip(a.tolist(), b.tolist()))
        )
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return abs(a - b) <= tol
    return type(a) is type(b) and a == b


def score_boards(seed: int, count: int = 40) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(count):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 10))
        kinds = int(rng.integers(1, 5))
        ids = rng.integers(0, kinds + 1, size=(m, n))
        style = int(rng.integers(0, 3))
        answers: Any
        if style == 0:
            answers = ids
        elif style == 1:
            answers = np.array(["", "A", "B", "C", "D", "E"])[ids]
        else:
            answers = [[PICK[int(v) * 2 % len(PICK)] for v in row] for row in ids]
        scores = np.clip(np.round(rng.random((m, n)), int(rng.integers(1, 4))), 0.001, 0.999)
        if rng.random() < 0.3:  # invalid answers' scores are never read
            mask = np.array(
                [[not (a is not None and a != "" and a == a) for a in row] for row in np.asarray(answers, dtype=object)]
            )
            scores = np.where(mask, np.nan, scores)
        if rng.random() < 0.3:
            yield (answers[0] if isinstance(answers, np.ndarray) else answers[0]), scores[0]
        else:
            yield answers, scores


@pytest.mark.parametrize("seed", range(4))
def test_cges_vote(seed: int) -> None:
    for answers, scores in score_boards(seed):
        for options in ({}, {"allow_other": True}):
            for extra in ({}, {"return_index": True, "return_score": True}, {"return_score": True}):
                want = swap_other(S.cges_vote(answers, scores, **options, **extra))
                got = K.cges_vote(answers, scores, **options, **extra)
                assert same(got, want), (answers, scores, options, got, want)


@pytest.mark.parametrize("seed", range(4))
def test_cges_stop(seed: int) -> None:
    for answers, scores in score_boards(400 + seed):
        if not isinstance(scores, np.ndarray) or scores.ndim != 1:
            continue
        for options in ({}, {"include_other": True}, {"min_samples": 3, "threshold": 0.5}):
            want = S.cges_stop(answers, scores, return_prob=True, **options)
            got = K.cges_stop(answers, scores, return_prob=True, **options)
            same_prob(got, want)
            assert K.cges_stop(answers, scores, **options) == want[0]


def test_cges_stop_batch_row_by_row() -> None:
    rng = np.random.default_rng(5)
    ids = rng.integers(0, 4, size=(50, 10))
    scores = np.round(rng.uniform(0.05, 0.95, size=(50, 10)), 2)
    for options in ({}, {"include_other": True}, {"min_samples": 4, "threshold": 0.6}):
        stop, prob = K.cges_stop_batch(ids, scores, return_prob=True, **options)
        for r in range(50):
            want = S.cges_stop(ids[r], scores[r], return_prob=True, **options)
            assert bool(stop[r]) == want[0] and abs(prob[r] - want[1]) <= 1e-12


def calibration_data(seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 200))
    correct = rng.random(n) < 0.5
    correct[:2] = [True, False]
    scores = np.where(correct, rng.beta(4, 2, n), rng.beta(2, 4, n))
    scores = np.clip(np.round(scores, int(rng.integers(1, 4))), 0.01, 0.99)
    return scores, correct


FIELDS = (
    "correct_logits",
    "incorrect_logits",
    "correct_bandwidth",
    "incorrect_bandwidth",
    "bin_edges",
    "bin_probability",
    "kernel",
    "binning",
    "n_bins",
)


@pytest.mark.parametrize("seed", range(6))
def test_fit_kde_vote_calibration(seed: int) -> None:
    scores, correct = calibration_data(seed)
    for options in (
        {},
        {"n_bins": 3},
        {"n_bins": 1, "bandwidth": 0.4},
        {"bandwidth": (0.3, "scott")},
        {"bandwidth": np.array(0.7)},
    ):
        mine = K.fit_kde_vote_calibration(scores, correct.astype(int), **options)
        theirs = S.fit_kde_vote_calibration(scores, correct, **options)
        for field in FIELDS:
            got, want = getattr(mine, field), getattr(theirs, field)
            if isinstance(want, np.ndarray):
                assert np.array_equal(got, want) and not got.flags.writeable, field
            else:
                assert type(got) is type(want) and got == want, field
        queries = np.linspace(0.01, 0.99, 37)
        assert np.array_equal(mine.calibrated_probability(queries), theirs.calibrated_probability(queries))
        np.testing.assert_allclose(
            mine.log_density_ratio(queries), theirs.log_density_ratio(queries), rtol=0, atol=1e-12
        )
        np.testing.assert_allclose(
            mine.weights(queries, n_answers=3), theirs.weights(queries, n_answers=3), rtol=0, atol=1e-12
        )


def test_kde_state_checks_are_scorios() -> None:
    good: dict[str, Any] = {
        "correct_logits": [0.1, 0.2],
        "incorrect_logits": [-0.3],
        "correct_bandwidth": 0.5,
        "incorrect_bandwidth": 0.5,
        "bin_edges": [-np.inf, 0.5, np.inf],
        "bin_probability": [0.2, 0.8],
    }
    bad: list[dict[str, Any]] = [
        {"correct_logits": [[0.1]]},
        {"incorrect_logits": []},
        {"correct_logits": [np.nan]},
        {"correct_bandwidth": 0.0},
        {"incorrect_bandwidth": np.inf},
        {"bin_edges": [-np.inf, np.inf]},
        {"bin_edges": [0.0, 0.5, np.inf]},
        {"bin_edges": [-np.inf, 0.5, 1.0]},
        {"bin_edges": [-np.inf, 0.5, 0.5, np.inf], "bin_probability": [0.1, 0.2, 0.3]},
        {"bin_probability": [0.2, 1.5]},
        {"kernel": "epanechnikov"},
        {"binning": "uniform"},
    ]
    for change in bad:
        with pytest.raises(Exception) as theirs:
            S.KDEVoteCalibration(**{**good, **change})
        with pytest.raises(type(theirs.value)) as mine:
            K.KDEVoteCalibration(**{**good, **change})
        assert str(mine.value) == str(theirs.value)
    state = K.KDEVoteCalibration(**good)
    calls: list[Callable[[Any], Any]] = [
        lambda c: c.weights([0.5], n_answers=1),
        lambda c: c.weights([0.5], n_answers=2.0),
        lambda c: c.weights([], n_answers=2),
        lambda c: c.calibrated_probability([1.0]),
    ]
    for call in calls:
        with pytest.raises(Exception) as theirs:
            call(S.KDEVoteCalibration(**good))
        with pytest.raises(type(theirs.value)) as mine:
            call(state)
        assert str(mine.value) == str(theirs.value)
    with pytest.raises(TypeError, match="calibration must be a KDEVoteCalibration."):
        K.kde_weighted_vote(["A"], [0.5], S.KDEVoteCalibration(**good))
    with pytest.raises(ValueError) as theirs_err:
        S.kde_weighted_vote(["A", "B"], [0.5, 1.0], S.KDEVoteCalibration(**good))
    with pytest.raises(ValueError) as mine_err:
        K.kde_weighted_vote(["A", "B"], [0.5, 1.0], state)
    assert str(mine_err.value) == str(theirs_err.value)


@pytest.mark.parametrize("seed", range(4))
def test_kde_weighted_vote(seed: int) -> None:
    scores, correct = calibration_data(50 + seed)
    mine = K.fit_kde_vote_calibration(scores, correct, n_bins=4)
    theirs = S.fit_kde_vote_calibration(scores, correct, n_bins=4)
    # pure bins: q_hat of exactly 0 or 1 (scorio's limit rules)
    pure: dict[str, Any] = {
        "correct_logits": [0.1, 1.2],
        "incorrect_logits": [-0.3, 0.2],
        "correct_bandwidth": 0.5,
        "incorrect_bandwidth": 0.7,
    }
    for edges, probs in (([-np.inf, np.inf], [1.0]), ([-np.inf, np.inf], [0.0]), ([-np.inf, 0.5, np.inf], [0.0, 1.0])):
        pair = (
            K.KDEVoteCalibration(**pure, bin_edges=np.array(edges), bin_probability=np.array(probs)),
            S.KDEVoteCalibration(**pure, bin_edges=np.array(edges), bin_probability=np.array(probs)),
        )
        for answers, sc in score_boards(60 + seed, count=15):
            for extra in ({}, {"return_index": True, "return_score": True}):
                assert same(
                    K.kde_weighted_vote(answers, sc, pair[0], **extra),
                    S.kde_weighted_vote(answers, sc, pair[1], **extra),
                )
    for answers, sc in score_boards(70 + seed):
        for extra in ({}, {"return_index": True, "return_score": True}, {"return_score": True}):
            got = K.kde_weighted_vote(answers, sc, mine, **extra)
            want = S.kde_weighted_vote(answers, sc, theirs, **extra)
            assert same(got, want), (answers, sc, got, want)


def test_large_batches_equal_scorio() -> None:
    rng = np.random.default_rng(9)
    ids = rng.integers(0, 5, size=(500, 32))
    scores = np.round(rng.uniform(0.02, 0.98, size=(500, 32)), 3)
    for options in ({}, {"allow_other": True}):
        got = K.cges_vote(ids, scores, return_index=True, **options)
        assert same(got, swap_other(S.cges_vote(ids, scores, return_index=True, **options)))
    cal_scores, cal_correct = calibration_data(3)
    got = K.kde_weighted_vote(ids, scores, K.fit_kde_vote_calibration(cal_scores, cal_correct), return_index=True)
    want = S.kde_weighted_vote(ids, scores, S.fit_kde_vote_calibration(cal_scores, cal_correct), return_index=True)
    assert same(got, want)


def replay(rule: Any, row: list[Any], threshold: float) -> tuple[int, bool]:
    """The online loop: call the rule after each sample; stop at the first True."""
    for t in range(1, len(row) + 1):
        if rule(row[:t], threshold=threshold):
            return t, True
    return len(row), False


@pytest.mark.parametrize("kinds", [2, 3, 6])
def test_stop_points_replay_the_online_loop(kinds: int) -> None:
    answers, rows = batch_rows(20 + kinds, 40, 16, kinds)
    for threshold in (0.95, 0.7):
        used, stopped = K.adaptive_consistency_stop_points(answers, threshold=threshold)
        assert [(int(u), bool(s)) for u, s in zip(used, stopped)] == [
            replay(S.adaptive_consistency_stop, row, threshold) for row in rows
        ]
        used, stopped = K.adaptive_consistency_stop_points(answers, threshold=threshold, dirichlet=True)
        assert [(int(u), bool(s)) for u, s in zip(used, stopped)] == [
            replay(K.adaptive_consistency_dirichlet_stop, row, threshold) for row in rows
        ]
    # scorio's own Dirichlet loop on a few rows (each call integrates: slow)
    used, stopped = K.adaptive_consistency_stop_points(answers[:3], dirichlet=True)
    assert [(int(u), bool(s)) for u, s in zip(used, stopped)] == [
        replay(S.adaptive_consistency_dirichlet_stop, row, 0.95) for row in rows[:3]
    ]


@pytest.mark.parametrize("spread", [1, 3, 1000])
def test_int_batches_counted_directly(spread: int) -> None:
    """Integer ids (counted by one bincount when their range is small, else grouped):
    negative ids, one value, a wide range; the same as scorio row by row."""
    rng = np.random.default_rng(spread)
    ids = rng.integers(-2, 3, size=(40, 10)) * spread
    ids[:5] = 7
    for threshold in (0.95, 0.6):
        stop, prob = K.adaptive_consistency_stop_batch(ids, threshold=threshold, return_prob=True)
        dstop, dprob = K.adaptive_consistency_dirichlet_stop_batch(ids, threshold=threshold, return_prob=True)
        for r in range(len(ids)):
            want = S.adaptive_consistency_stop(ids[r].tolist(), threshold=threshold, return_prob=True)
            assert bool(stop[r]) == want[0] and abs(prob[r] - want[1]) <= 1e-12
            got = K.adaptive_consistency_dirichlet_stop(ids[r].tolist(), threshold=threshold, return_prob=True)
            assert (bool(dstop[r]), float(dprob[r])) == got


def test_batch_edges() -> None:
    """An all-unparsable row, one sample per question, one question."""
    rows: list[list[Any]] = [[None, "", None], ["A", None, "A"], ["B", "C", "D"], ["A", "A", "A"]]
    stop, prob = K.adaptive_consistency_stop_batch(rows, return_prob=True)
    assert [(bool(s), float(p)) for s, p in zip(stop, prob)] == [
        S.adaptive_consistency_stop(r, return_prob=True) for r in rows
    ]
    stop, prob = K.adaptive_consistency_dirichlet_stop_batch(rows, return_prob=True)
    for r, row in enumerate(rows):
        want = S.adaptive_consistency_dirichlet_stop(row, return_prob=True)
        assert bool(stop[r]) == want[0] and abs(prob[r] - want[1]) <= 1e-12
    assert K.esc_stop_batch(rows).tolist() == [S.esc_stop(r) for r in rows]
    for dirichlet in (False, True):
        used, stopped = K.adaptive_consistency_stop_points(rows, threshold=0.8, dirichlet=dirichlet)
        # by hand: "A" once 3/4, twice 7/8 (>= 0.8); B, C, D: 3/4, 1/2, then 1/3 (all tied)
        assert used.tolist() == [3, 3, 3, 2] and stopped.tolist() == [False, True, False, True]
    one = [["A"], [None], ["B"]]
    assert K.adaptive_consistency_stop_batch(one, return_prob=True)[1].tolist() == [0.75, 0.0, 0.75]
    assert K.esc_stop_batch(one).tolist() == [True, False, True]
    with pytest.raises(ValueError, match="one row per question"):
        K.adaptive_consistency_stop_batch(["A", "B"])


@pytest.mark.parametrize("kind", ["int64", "uint8", "bool", "float64", "str"])
def test_esc_batch_typed_arrays(kind: str) -> None:
    """Typed windows (the fast path without groups) against scorio's rule on each row,
    with unanimous rows, NaN, -0.0 beside 0.0 and the empty string."""
    rng = np.random.default_rng(sum(map(ord, kind)))
    for n in (1, 2, 5):
        ids = rng.integers(0, 3, size=(200, n))
        ids[:80] = ids[:80, :1]  # unanimous
        if kind == "float64":
            values = np.array([0.0, -0.0, np.nan, 1.5])
            arr: Any = values[rng.integers(0, 4, size=(200, n))]
            arr[:60] = arr[:60, :1]
        elif kind == "str":
            arr = np.array(["", "A", "B"])[ids]
        elif kind == "bool":
            arr = ids.astype(bool)
        else:
            arr = ids.astype(kind)
        got = K.esc_stop_batch(arr)
        assert got.dtype == bool and got.shape == (200,)
        assert got.tolist() == [S.esc_stop(list(r)) for r in arr]
        assert got.tolist() == [S.esc_stop(r) for r in arr.tolist()]
        assert got.tolist() == K.esc_stop_batch(arr.astype(object)).tolist()


def test_core_top_two_probability_is_pythons_to_the_bit() -> None:
    """The core's integer sum in 128 bits (every pair with v1 + v2 + 1 <= 127) gives
    the same f64 as the Python integer sum divided once (top_two_probability), and
    the pairs past that range come back from Python (large counts: scorio's to 1e-12)."""
    from kscore.aggregate._leader import top_two_probabilities, top_two_probability

    v1, v2 = np.meshgrid(np.arange(128), np.arange(128), indexing="ij")
    keep = v1 >= v2
    a, b = v1[keep].astype(np.int64), v2[keep].astype(np.int64)
    got = top_two_probabilities(a, b)
    want = [top_two_probability.__wrapped__(int(x), int(y)) for x, y in zip(a, b)]
    assert got.tolist() == want  # bit for bit, including the pairs past 127 (Python's)
    big = np.array([[3000, 2000], [60, 0], [63, 63], [64, 63]])
    got = top_two_probabilities(big[:, 0], big[:, 1])
    for (x, y), g in zip(big.tolist(), got.tolist()):
        want_s = S.adaptive_consistency_stop(["A"] * x + ["B"] * y, return_prob=True)[1]
        assert abs(g - want_s) <= 1e-12


@pytest.mark.parametrize("n", [1, 7, 64, 124, 125, 130])
def test_stop_points_in_the_core_and_past_it(n: int) -> None:
    """The online replay in the core (N <= 124) and past its range (N = 125, 130: the
    numpy path): per row the first prefix whose top-two probability reaches the
    threshold, against the one-question rule called on every prefix (scorio's on
    the first rows), on ids, str arrays and lists with unparsable answers."""
    rng = np.random.default_rng(n)
    m = 12
    top = rng.uniform(0.2, 1.0, size=m)
    ids = np.where(rng.random((m, n)) < top[:, None], 1, rng.integers(0, 5, size=(m, n)))
    strings = np.array(["", "A", "B", "C", "D"])[ids]
    rows = [[None if a == "" else str(a) for a in row] for row in strings]
    for threshold in (0.95, 0.6, 0.999):
        want = [replay(K.adaptive_consistency_stop, row, threshold) for row in rows]
        for answers in (strings, rows, ids + 7):
            used, stopped = K.adaptive_consistency_stop_points(answers, threshold=threshold)
            assert used.dtype == np.int64 and stopped.dtype == bool
            if answers is not strings and answers is not rows:  # ids: every answer valid
                want_ids = [replay(K.adaptive_consistency_stop, row.tolist(), threshold) for row in ids]
                assert [(int(u), bool(s)) for u, s in zip(used, stopped)] == want_ids
            else:
                assert [(int(u), bool(s)) for u, s in zip(used, stopped)] == want
        assert want[:2] == [replay(S.adaptive_consistency_stop, row, threshold) for row in rows[:2]]
