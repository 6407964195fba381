"""Design diagnostics of a board (docs/rankings.md, *Plan*): where each
model's uncertainty comes from, how small a difference the board can
detect, what would resolve each adjacent pair, and how robust each pair's
order is to dropping questions (stats/robust.py).

**Variance within and between questions** (E. Miller, "Adding Error Bars
to Evals", arXiv 2411.00640, sections 3 and 5). A model's per-question
estimate ``x_i`` varies because questions differ (between) and because
its answers are samples (within). By the law of total variance,
``Var(x_i) = Var_i(theta_i) + E_i[Var(x_i | i)]``; the sample variance of
the ``x_i`` estimates the whole, and the mean over questions of an
unbiased estimate of ``Var(x_i | i)`` its within part, so the between part
is their difference (at least 0). ``Var(x_i | i)`` is estimated from the
question's category counts alone (stats/within.py): for the mean reward
(pass@1, avg@n) ``s^2 / n``, the unbiased estimate Miller uses (``s^2``:
the samples' variance, ``ddof=1``), and unbiased for Bayes@N and the
U-statistics (pass@k, maj@k, ...) where a question has at least ``2k``
samples; the jackknife otherwise. More samples per question divide the
within part (for pass@k to first order), more questions divide both.

**Power** (Miller section 5). For an adjacent pair, the paired difference
``d_i = x_Ai - x_Bi`` has the same split (the two models' answers are
independent, so within parts add). Its standard error ``se`` is the
board's (cluster-robust with clusters); the minimum detectable difference
at power ``1 - beta`` of the two-sided paired test at level ``alpha`` is
``(z_{1-alpha/2} + z_{1-beta}) se``. With ``n'`` questions and ``r`` times
the samples per question, ``se^2`` becomes ``se^2 (n / n') (B + W / r) /
(B + W)`` (``B``, ``W``: the between and within variances of ``d_i``; the
clustering's design effect is kept as it is), which gives the
questions, or the samples per question, that make the observed difference
detectable, and which of the two costs fewer samples per model."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from .._issues import LeaderboardError
from .._spec import Metric
from .estimates import bounds_of
from .rank import scored_models
from .ranked import Ranked
from .robust import fewest_flips
from .scores import Scores
from .small import model_groups, unreliable
from .states import distinct_states
from .within import within_variance


@dataclass
class ModelSpread:
    """One model's per-question spread on the plan's metric: ``se`` the
    standard error of its estimate over ``questions`` (one question per
    cluster), ``within`` and ``between`` the two parts of the variance of
    its per-question estimates (``within``: answer sampling, NaN where
    unknown), ``samples`` its mean samples per question and
    ``sampling_share`` the fraction of the variance that is sampling."""

    model: str
    questions: int
    samples: float
    estimate: float
    se: float
    within: float
    between: float
    sampling_share: float


@dataclass
class PairPlan:
    """An adjacent pair, ``upper`` ranked above ``lower``, on the
    ``questions`` both answered: the paired difference ``diff``, its
    standard error ``se``; ``detectable``, the smallest difference found at
    the plan's power; ``floor``, that smallest difference with unlimited
    samples on these questions; ``questions_needed`` (at the current
    samples) and ``samples_needed`` (per question, on these questions) that
    make ``diff`` detectable (None: impossible that way, or ``diff`` is 0);
    ``cheaper``: ``"questions"``, ``"samples"`` or None (already
    detectable); ``extra_samples``: the samples per model each way costs;
    ``flip``: the fewest questions whose removal puts ``lower`` strictly
    ahead (None: none does), ``influential``: the questions most in
    ``upper``'s favour with their ``d_i``."""

    upper: str
    lower: str
    questions: int
    samples: float
    diff: float
    se: float
    within: float
    between: float
    detectable: float
    floor: float
    questions_needed: int | None
    samples_needed: int | None
    cheaper: str | None
    extra_samples: dict[str, int | None]
    flip: int | None
    influential: list[tuple[str, float]]

    @property
    def resolved(self) -> bool:
        """The observed difference is at least the detectable one."""
        return bool(self.detectable > 0 and abs(self.diff) >= self.detectable)


@dataclass
class Plan:
    """The design diagnostics of a board on one ``metric`` (:func:`plan`):
    ``models`` (board order), ``pairs`` (each adjacent pair), at the
    board's ``confidence`` and the ``power`` asked for; ``fragile``: the
    questions that most often take part in flipping an adjacent pair,
    with how many pairs each."""

    metric: str
    confidence: float
    power: float
    cluster: str | None
    models: list[ModelSpread]
    pairs: list[PairPlan]
    fragile: list[tuple[str, int]] = field(default_factory=list)
    #: Why the normal interval over questions is unreliable on this board
    #: (few questions or clusters, an estimate near an end), or None.
    small_board: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (None for NaN)."""
        def num(x: float) -> float | None:
            return None if x != x else x

        return {
            "metric": self.metric, "confidence": self.confidence, "power": self.power, "cluster": self.cluster,
            "models": [{"model": m.model, "questions": m.questions, "samples_per_question": m.samples,
                        "estimate": num(m.estimate), "se": num(m.se), "variance_within": num(m.within),
                        "variance_between": num(m.between), "sampling_share": num(m.sampling_share)}
                       for m in self.models],
            "pairs": [{"upper": p.upper, "lower": p.lower, "questions": p.questions, "diff": num(p.diff),
                       "se": num(p.se), "variance_within": num(p.within), "variance_between": num(p.between),
                       "detectable": num(p.detectable), "detectable_unlimited_samples": num(p.floor),
                       "resolved": p.resolved, "questions_needed": p.questions_needed,
                       "samples_per_question_needed": p.samples_needed, "cheaper": p.cheaper,
                       "extra_samples_per_model": p.extra_samples, "flip_questions": p.flip,
                       "influential": [{"question": q, "diff": d} for q, d in p.influential],
                       "summary": pair_words(p, self)}
                      for p in self.pairs],
            "fragile_questions": [{"question": q, "pairs": c} for q, c in self.fragile],
            "small_board": self.small_board,
            "summary": summary_words(self),
        }

    def lines(self) -> list[str]:
        """The plan in words, one line per model and per pair."""
        return plan_lines(self)


def check_power(power: float) -> None:
    """Raise :class:`LeaderboardError` unless ``power`` lies in (0, 1)."""
    if not 0.0 < power < 1.0:
        raise LeaderboardError(f"power must lie in (0, 1); got {power}")


def plan(board: Ranked, m: Metric, power: float = 0.8) -> Plan:
    """The design diagnostics of ``board`` on the metric ``m`` (one it
    shows) at ``power`` (module docstring; :meth:`Leaderboard.plan
    <kscore.leaderboard.Leaderboard.plan>` checks ``power`` and names the
    metric).

    Examples:
        >>> import pandas as pd, kscore
        >>> rows = [(m, q, s, int((q + s) % 4 < t)) for m, t in (("a", 3), ("b", 2)) for q in range(8)
        ...         for s in range(4)]
        >>> board = kscore.leaderboard(pd.DataFrame(rows, columns=["model", "question", "sample", "correct"]),
        ...                            metrics="pass@1")
        >>> p = plan(board, board.sort)
        >>> p.pairs[0].upper, p.pairs[0].lower, p.pairs[0].diff
        ('a', 'b', 0.25)
    """
    check_power(power)
    sc = board.scores
    if sc is None:
        raise LeaderboardError("this leaderboard keeps no per-question scores")
    w = np.asarray(board.weights, np.float64)
    models = scored_models(board.rows, m)
    c = sc.counts
    st = sc.states if sc.states is not None else distinct_states(c.categories)
    x = sc.x[m.name]
    v = within_variance(st.cats, m, w)[st.of_row]
    pos = np.full(len(c.models), -1, np.int64)
    name_at = {name: i for i, name in enumerate(c.models)}
    for i, name in enumerate(models):
        pos[name_at[name]] = i
    r = pos[c.model]
    ok = (r >= 0) & ~np.isnan(x)
    L, Q = len(models), len(c.questions)
    X = np.full((L, Q), np.nan)
    V = np.full((L, Q), np.nan)
    N = np.zeros((L, Q), np.float32)  # samples per cell (exact in float32): half the memory of the others
    X[r[ok], c.question[ok]] = x[ok]
    V[r[ok], c.question[ok]] = v[ok]
    N[r[ok], c.question[ok]] = st.n[ok]  # (States.n: each row's samples)
    q_cluster = None
    if sc.cluster is not None:
        q_cluster = np.zeros(Q, np.int64)
        q_cluster[c.question] = sc.cluster
    spreads = _spreads(models, X, V, N)
    pairs = _pairs(models, X, V, N, q_cluster, c.questions, board.confidence, power)
    fragile = _fragile(pairs)
    return Plan(m.name, board.confidence, power, board.cluster, spreads, pairs, fragile,
                _small_board(board, m, w, sc))


def _small_board(board: Ranked, m: Metric, w: FloatArray, sc: Scores) -> str | None:
    """The first model whose normal interval over questions is unreliable
    (small.unreliable), in words; None where none is or the board already
    uses another interval."""
    if board.interval != "questions":
        return None
    _, groups, _ = model_groups(sc)
    at = {name: i for i, name in enumerate(sc.counts.models)}
    unit = "clusters" if sc.cluster is not None else "questions"
    for r in board.rows:
        v = r.values.get(m.name)
        if v is None:
            continue
        why = unreliable(v.estimate, v.sigma, int(groups[at[r.model]]), board.confidence, bounds_of(m, w), unit)
        if why is not None:
            return (f"the normal interval over questions is unreliable here ({r.model}: {why}); "
                    "--interval wilson (interval=\"wilson\") holds its level on small boards (docs/rankings.md)")
    return None


def _spreads(models: list[str], X: FloatArray, V: FloatArray, N: npt.NDArray[np.floating[Any]]) -> list[ModelSpread]:
    M = ~np.isnan(X)
    n = M.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(M, X, 0.0).sum(axis=1) / n
        dev = np.where(M, X - mean[:, None], 0.0)
        total = (dev * dev).sum(axis=1) / (n - 1)
        within = np.where(M, V, 0.0).sum(axis=1) / n
        within = np.where(np.any(M & np.isnan(V), axis=1), np.nan, within)
        between = np.maximum(total - within, 0.0)
        share = np.where(total > 0, np.minimum(within / total, 1.0), np.nan)
        se = np.sqrt(total / n)
        samples = np.where(M, N, 0.0).sum(axis=1, dtype=np.float64) / n
    return [ModelSpread(name, int(n[i]), float(samples[i]), float(mean[i]), float(se[i]), float(within[i]),
                        float(between[i]), float(share[i])) for i, name in enumerate(models)]


def _pairs(models: list[str], X: FloatArray, V: FloatArray, N: npt.NDArray[np.floating[Any]],
           q_cluster: IntArray | None, question_names: list[str], confidence: float, power: float) -> list[PairPlan]:
    """Every adjacent pair, a block of pairs at a time (no L x L work)."""
    L, Q = X.shape
    za, zb = z_value(confidence), z_value(2.0 * power - 1.0)
    zz = za + zb
    if q_cluster is not None:
        order = np.argsort(q_cluster, kind="stable")
        X, V, N, q_sorted = X[:, order], V[:, order], N[:, order], q_cluster[order]
        starts = np.flatnonzero(np.r_[True, q_sorted[1:] != q_sorted[:-1]])
        names = [question_names[int(i)] for i in order]
    else:
        names = list(question_names)
    out: list[PairPlan] = []
    step = max(1, (1 << 20) // max(Q, 1))
    for a in range(0, L - 1, step):
        b = min(a + step, L - 1)
        D = X[a:b] - X[a + 1:b + 1]
        M = ~np.isnan(D)
        VD = V[a:b] + V[a + 1:b + 1]
        n = M.sum(axis=1)
        nf = n.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            d = np.where(M, D, 0.0).sum(axis=1) / nf
            E = np.where(M, D - d[:, None], 0.0)
            total = (E * E).sum(axis=1) / (nf - 1.0)
            se_iid = np.sqrt(total / nf)
            if q_cluster is not None:
                S = np.add.reduceat(E, starts, axis=1)
                G = (np.add.reduceat(M.astype(np.int64), starts, axis=1) > 0).sum(axis=1).astype(np.float64)
                se = np.sqrt(np.where(G > 1, G / (G - 1.0) * (S * S).sum(axis=1) / (nf * nf), np.nan))
            else:
                se = se_iid
            within = np.where(np.any(M & np.isnan(VD), axis=1), np.nan, np.where(M, VD, 0.0).sum(axis=1) / nf)
            between = np.maximum(total - within, 0.0)
            samples = 0.5 * np.where(M, N[a:b] + N[a + 1:b + 1], 0.0).sum(axis=1, dtype=np.float64) / nf
        flips = fewest_flips(D, M)
        for p in range(b - a):
            out.append(_pair(models[a + p], models[a + p + 1], int(n[p]), float(samples[p]), float(d[p]),
                             float(se[p]), float(within[p]), float(between[p]), zz,
                             int(flips.k[p]), [(names[int(i)], float(t)) for i, t in
                                               zip(flips.top[p], flips.top_d[p]) if i >= 0 and t > 0]))
    return out


def _pair(upper: str, lower: str, n: int, K: float, d: float, se: float, within: float, between: float,
          zz: float, k: int, influential: list[tuple[str, float]]) -> PairPlan:
    detectable = zz * se
    total = between + within  # se^2(n', r) = se^2 (n / n') (B + W / r) / (B + W)
    floor = detectable * math.sqrt(between / total) if total > 0 else float("nan")
    q_need: int | None = None
    s_need: int | None = None
    cheaper: str | None = None
    extra: dict[str, int | None] = {"questions": None, "samples": None}
    if d != 0 and detectable == detectable and detectable > 0 and n > 1:
        if abs(d) >= detectable:
            q_need, s_need = n, int(round(K))
        else:
            q_need = int(math.ceil(n * (detectable / abs(d)) ** 2 - 1e-9))
            q_extra = int(round((q_need - n) * K))
            extra["questions"] = q_extra
            target = d * d / (zz * zz)  # the variance of the mean difference that detects d
            room = total * target / (se * se) - between
            if within == within and within > 0 and room > 0:
                s_need = int(math.ceil(K * within / room - 1e-9))
                extra["samples"] = int(round(n * (s_need - K)))
            s_extra = extra["samples"]
            cheaper = "questions" if s_extra is None or q_extra <= s_extra else "samples"
    return PairPlan(upper, lower, n, K, d, se, within, between, detectable, floor, q_need, s_need, cheaper, extra,
                    None if k < 0 else k, influential)


def _fragile(pairs: list[PairPlan], top: int = 5) -> list[tuple[str, int]]:
    """The questions named most often among the pairs' most influential
    ones, for the pairs that a few removals flip (at most 3 questions)."""
    count: dict[str, int] = {}
    for p in pairs:
        if p.flip is not None and p.flip <= 3:
            for q, _ in p.influential[:p.flip]:
                count[q] = count.get(q, 0) + 1
    return sorted(count.items(), key=lambda t: (-t[1], t[0]))[:top]


# ------------------------------------------------------------------ words


def _n(x: float) -> str:
    return f"{x:,.0f}" if x == x else "n/a"


def _g(x: float) -> str:
    return "n/a" if x != x else f"{x:.3g}" if abs(x) < 0.01 else f"{x:.3f}"


def model_words(m: ModelSpread) -> str:
    """One model's spread in words."""
    if m.questions < 2:
        part = "one question: no spread over questions to split"
    elif m.sampling_share != m.sampling_share:
        part = "the share of answer sampling is unknown (one sample per question, or too few for the metric)"
    else:
        pct = round(100 * m.sampling_share)
        part = (f"{pct}% of the spread of its per-question scores is answer sampling (more samples per question "
                f"shrink it), {100 - pct}% is questions differing (only more questions shrink it)")
    q = f"{m.questions:,} question{'' if m.questions == 1 else 's'}"
    return f"{m.model}: {_g(m.estimate)} ± {_g(m.se)} (standard error, {q}); {part}"


def pair_words(p: PairPlan, pl: Plan) -> str:
    """One adjacent pair's plan and robustness in words."""
    pct = f"{pl.power * 100:g}%"
    head = (f"{p.upper} over {p.lower}: ahead by {_g(p.diff)} on {p.questions:,} common questions; the smallest "
            f"difference this board detects {pct} of the time is {_g(p.detectable)}")
    if p.questions < 2 or p.diff != p.diff:
        return f"{p.upper} over {p.lower}: {p.questions} common question(s), too few to compare them"
    if p.diff <= 0:
        need = "the two are tied on their common questions"
    elif p.resolved:
        need = "this difference is detectable"
    else:
        ways = []
        if p.questions_needed is not None:
            each = f"{p.samples:.3g} sample{'' if p.samples == 1 else 's'} each"
            ways.append(f"{_n(p.questions_needed)} questions at {each} "
                        f"(+{_n(p.extra_samples['questions'] or 0)} samples per model)")
        if p.samples_needed is not None:
            ways.append(f"{p.samples_needed:,} samples per question on these {p.questions:,} questions "
                        f"(+{_n(p.extra_samples['samples'] or 0)} samples per model)")
        elif p.within != p.within:
            ways.append("more samples per question by an amount unknown here (one sample per question, or too "
                        "few for the metric, tells nothing of the answers' own spread)")
        else:
            ways.append(f"no number of samples per question on these questions (the questions alone leave "
                        f"{_g(p.floor)} undetectable)")
        buys = {"questions": "more questions buy more", "samples": "more samples per question buy more"}
        need = f"to detect {_g(p.diff)}: " + ", or ".join(ways) + (f"; {buys[p.cheaper]}" if p.cheaper else "")
    if p.flip is None:
        robust = f"no removal of questions puts {p.lower} ahead"
    else:
        share = f" ({100 * p.flip / p.questions:.2g}% of them)" if p.questions else ""
        qs = ", ".join(f"{q} ({d:+.3g})" for q, d in p.influential)
        robust = (f"dropping the {p.flip:,} question{'s' if p.flip != 1 else ''} most in its favour{share} puts "
                  f"{p.lower} ahead" + (f"; most influential: {qs}" if qs else ""))
    return f"{head}; {need}; {robust}"


def summary_words(pl: Plan) -> str:
    """The board's plan in one sentence."""
    if not pl.pairs:
        return "one model: no pair to plan"
    open_pairs = [p for p in pl.pairs if p.diff > 0 and not p.resolved and p.questions >= 2]
    resolved = sum(p.resolved for p in pl.pairs)
    q = sum(p.cheaper == "questions" for p in open_pairs)
    s = sum(p.cheaper == "samples" for p in open_pairs)
    fragile = sum(p.flip is not None and p.flip <= max(1, p.questions // 100) for p in pl.pairs)
    shares = [m.sampling_share for m in pl.models if m.sampling_share == m.sampling_share]
    share = f"answer sampling is {100 * float(np.median(shares)):.0f}% of a model's spread (median); " \
        if shares else ""
    return (f"{share}{resolved} of {len(pl.pairs)} adjacent pairs differ by at least what "
            f"the board detects at {pl.power * 100:g}% power; for the others more questions buy more for {q} and "
            f"more samples per question for {s}; {fragile} pair(s) flip when 1% of their questions (at least one) "
            "are dropped")


def plan_lines(pl: Plan) -> list[str]:
    """The plan as lines of text: a summary, the models, the pairs."""
    cl = f", clustered by {pl.cluster}" if pl.cluster else ""
    out = [f"plan on {pl.metric} at {pl.confidence * 100:g}% confidence and {pl.power * 100:g}% power{cl}",
           summary_words(pl), "", "where each model's uncertainty comes from:"]
    out += [f"  {model_words(m)}" for m in pl.models]
    out += ["", "adjacent pairs (what would tell them apart, and how robust their order is):"]
    out += [f"  {pair_words(p, pl)}" for p in pl.pairs]
    if pl.fragile:
        out += ["", "questions that flip the most pairs: " + ", ".join(f"{q} ({c})" for q, c in pl.fragile)]
    if pl.small_board:
        out += ["", f"note: {pl.small_board}"]
    return out
