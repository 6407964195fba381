"""Each model's metrics from the per-(model, question) counts, through
kscore.counts (docs/leaderboard.md, *Metrics* and *Intervals*).

The per-question estimates of a metric (the unbiased estimator of each
question, ``kscore.counts`` with ``mean=False``; Bayes@N's per-question
posterior mean) are computed once per distinct state of the board's rows
(stats/states.py) in one core call per metric (max@k: one per reward level), not
one per model, and gathered back to the rows. A model's value is the mean of its per-question estimates (the
classic estimate, ``mean=True``). Its interval is either

* ``questions`` (default): over the sampling of questions, the interval of
  stats/default_interval.py (a continuity-corrected Wilson interval on the
  effective number of questions or clusters, made monotone), or
* ``normal``: the estimate +- z times the standard error of that mean over
  questions (cluster-robust with clusters; stats/intervals.py), the default
  before issue 36, or
* ``posterior``: ``kscore.counts``' / ``kscore.eval``'s Bayesian credible
  interval, conditional on the question set (one call per model), or
* ``wilson``: the small-board interval over questions (stats/small.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import counts as kc
from ..._interval import normal_ci, z_value
from .._counts import Counts
from .._issues import Issues
from .._spec import Metric
from .._types import FloatArray, IntArray
from .bayes_states import bayes_ci_states
from .default_interval import board_bounds, metric_range
from .intervals import grid_se, group_se, group_se_tabled, segment_se
from .small import model_groups, small_board_bounds
from .states import PerModel, StateArray, States, distinct_states, per_model, row_sums


@dataclass
class Value:
    """One metric of one model.

    ``estimate``: the classic value people report (the mean over questions of
    the unbiased per-question estimator; Bayes@N's posterior mean), which the
    board shows and ranks by. ``sigma``, ``lo``, ``hi``: the standard error
    and interval of the board's ``interval`` (``questions``: over the
    sampling of questions; ``posterior``: the Bayesian posterior sd and
    credible interval, conditional on the questions; NaN where the metric
    has no posterior, cons@k). ``posterior_mean``: the centre of the
    posterior interval (``posterior`` only), which need not equal the
    estimate."""

    estimate: float
    sigma: float
    lo: float
    hi: float
    posterior_mean: float | None = None


@dataclass
class ModelRow:
    """One model: its questions, samples per question (min, max), mean
    reward per sample (``accuracy``), its metrics (None where not computed)
    and its rank range (best, worst) by the sorted metric."""

    model: str
    questions: int
    n_min: int
    n_max: int
    accuracy: float
    values: dict[str, Value | None]
    rank: tuple[int, int] | None = None


def bounds_of(metric: Metric, w: FloatArray) -> tuple[float, float]:
    """The range of a metric: the rewards' for Bayes@N, avg@n and max@k."""
    if metric.kind in ("bayes", "avg_at_n", "max_at_k"):
        return float(w.min()), float(w.max())
    return 0.0, 1.0


# --------------------------------------------------------------- per question


def _max_per_question(cats: IntArray, w: FloatArray, k: int) -> FloatArray:
    """max@k per question in the level form ``r_1 + sum_l (r_{l+1} - r_l)
    pass@k(n, n - F_l)`` (F_l: samples rewarded at most r_l): one
    ``kscore.counts.pass_at_k`` call per reward level."""
    n = cats.sum(axis=1)
    levels = np.unique(w)
    out = np.full(len(n), float(levels[0]))
    for lo, hi in zip(levels[:-1], levels[1:]):
        F = cats[:, w <= lo].sum(axis=1)
        out += (hi - lo) * kc.pass_at_k(n, n - F, k)
    return out


def _bayes_per_question(cats: IntArray, w: FloatArray) -> FloatArray:
    """Each question's Bayes@N posterior mean reward (Dirichlet(+1)); their
    mean is :func:`kscore.counts.bayes_ci`'s ``mu``."""
    T = (cats.shape[1] + cats.sum(axis=1)).astype(np.float64)
    shift = w - w[0]
    out: FloatArray = w[0] + ((cats + 1.0) @ shift) / T
    return out


def question_estimates(cats: IntArray, metric: Metric, w: FloatArray, n: IntArray | None = None) -> FloatArray:
    """The metric's estimate on every row of ``cats`` (a row per (model,
    question), categories 0..C; ``n``: its row sums, if known): one core
    call for all rows; NaN on rows with fewer samples than the metric's
    budget."""
    n = cats.sum(axis=1) if n is None else n
    c = cats[:, -1]
    out = np.full(len(n), np.nan)
    ok = n >= metric.budget
    if not ok.any():
        return out
    nk, ck = n[ok], c[ok]
    kind = metric.kind
    if kind == "bayes":
        out[ok] = _bayes_per_question(cats[ok], w)
    elif kind == "avg_at_n":
        binary = len(w) == 2 and w[0] == 0.0 and w[1] == 1.0
        out[ok] = kc.avg_at_n(nk, ck) if binary else (cats[ok] @ w) / nk
    elif kind == "cons_at_k":
        out[ok] = kc.cons_at_k(nk, ck, metric.k or None)
    elif kind == "max_at_k":
        out[ok] = _max_per_question(cats[ok], w, metric.k)
    elif kind == "g_pass_at_k_tau":
        out[ok] = kc.g_pass_at_k_tau(nk, ck, metric.k, float(metric.tau or 0.0))
    else:
        out[ok] = getattr(kc, kind)(nk, ck, metric.k)
    return out


# --------------------------------------------------------------- posterior


def _matrix(cats: IntArray) -> IntArray:
    """An outcome matrix with these category counts (rows of equal n)."""
    C1 = cats.shape[1]
    n = int(cats[0].sum())
    out: IntArray = np.repeat(np.tile(np.arange(C1), len(cats)), cats.ravel()).reshape(len(cats), n)
    return out


def _pooled(cats: IntArray, one: Callable[[IntArray], tuple[float, float]]) -> tuple[float, float]:
    """``(mu, sigma)`` of a per-question-independent posterior summary, from
    groups of equal n: ``mu`` weighted by questions, variances added."""
    n = cats.sum(axis=1)
    M = len(n)
    mu_sum, var_sum = 0.0, 0.0
    for value in np.unique(n):
        g = cats[n == value]
        mu, sigma = one(g)
        mu_sum += len(g) * mu
        var_sum += (len(g) * sigma) ** 2
    return mu_sum / M, float(np.sqrt(var_sum)) / M


def posterior(cats: IntArray, metric: Metric, w: FloatArray, confidence: float) -> tuple[float, float, float, float]:
    """One model's Bayesian ``(mu, sigma, lo, hi)`` from its category counts
    (a row per question; every question has at least the metric's budget):
    ``kscore.counts``' ``*_ci`` for the table metrics, ``bayes_ci`` for
    Bayes@N, ``kscore.eval.avg_ci`` / ``max_at_k_ci`` for avg@n / max@k
    (equal-n groups pooled exactly); NaN for cons@k (no posterior)."""
    from ... import eval as ke

    n = row_sums(cats)
    c = cats[:, -1]
    bounds = bounds_of(metric, w)
    kind = metric.kind
    if kind == "bayes":
        return kc.bayes_ci(cats, w, confidence, bounds)
    if kind == "cons_at_k":
        return np.nan, np.nan, np.nan, np.nan
    if kind == "avg_at_n":
        mu, sigma = _pooled(cats, lambda g: ke.avg_ci(_matrix(g), w)[:2])
        return normal_ci(mu, sigma, confidence, bounds)
    if kind == "max_at_k":
        mu, sigma = _pooled(cats, lambda g: ke.max_at_k_ci(_matrix(g), metric.k, w, bounds=bounds)[:2])
        return normal_ci(mu, sigma, confidence, bounds)
    ci: Any = getattr(kc, kind + "_ci")
    if kind == "g_pass_at_k_tau":
        return ci(n, c, metric.k, float(metric.tau or 0.0), confidence)  # type: ignore[no-any-return]
    return ci(n, c, metric.k, confidence)  # type: ignore[no-any-return]


# --------------------------------------------------------------- models


def by_model(counts: Counts) -> list[tuple[int, IntArray]]:
    """(model index, its rows of ``counts``) for every model with results."""
    m = counts.model
    if bool(np.all(m[1:] >= m[:-1])):  # ordered by model, as the engine keeps them: no sort
        cuts = np.flatnonzero(m[1:] != m[:-1]) + 1
        bounds = [0, *cuts.tolist(), len(m)] if len(m) else []
        return [(int(m[a]), np.arange(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]
    order = np.argsort(counts.model, kind="stable")
    m_sorted = counts.model[order]
    cuts = np.flatnonzero(np.diff(m_sorted)) + 1
    return [(int(counts.model[g[0]]), g) for g in np.split(order, cuts) if len(g)]


@dataclass
class Scores:
    """Per-question estimates of each metric (``x[name]``, one per row of
    ``counts``), each row's cluster id (None: a cluster per question) and
    the rows' distinct states (None: found when needed)."""

    counts: Counts
    x: Mapping[str, FloatArray]
    cluster: IntArray | None
    states: States | None = None
    #: Each metric's estimate per distinct state (``x[name]`` is it gathered to the rows).
    per_state: dict[str, FloatArray] = field(default_factory=dict)
    _models: PerModel | None = field(default=None, repr=False)

    def per_model(self) -> PerModel:
        """The models' rows summed up (states.per_model), once."""
        if self._models is None:
            st = self.states if self.states is not None else distinct_states(self.counts.categories)
            self.states = st
            c = self.counts
            self._models = per_model(st, c.model, c.question, len(c.models), len(c.questions))
        return self._models

    def subset(self, rows: npt.NDArray[np.bool_]) -> Scores:
        """The same scores restricted to some rows (a ``--by`` group)."""
        c = self.counts
        sub = Counts(c.models, c.questions, c.model[rows], c.question[rows], c.categories[rows], c.attributes)
        cl = None if self.cluster is None else self.cluster[rows]
        st = None if self.states is None else self.states.subset(rows)
        return Scores(sub, {k: v[rows] for k, v in self.x.items()}, cl, st, self.per_state if st is not None else {})


def scores(counts: Counts, metrics: list[Metric], w: FloatArray, cluster: IntArray | None,
           states: States | None = None) -> Scores:
    """Per-question estimates of every metric on every row: one core call
    per metric for the whole board, on its distinct states (``states``: those
    of ``counts.categories``, if known)."""
    st = states if states is not None else distinct_states(counts.categories)
    per_state = {m.name: question_estimates(st.cats, m, w) for m in metrics}
    return Scores(counts, Gathered(per_state, st.of_row), cluster, st, per_state)


class Gathered(Mapping[str, FloatArray]):
    """Each metric's estimate on every row, gathered from its per-state
    values on first use (the board's intervals need none of them; the
    pairwise comparisons the sorted metric's)."""

    def __init__(self, per_state: dict[str, FloatArray], of_row: StateArray) -> None:
        self._per_state = per_state
        self._of_row = of_row
        self._done: dict[str, FloatArray] = {}

    def __getitem__(self, name: str) -> FloatArray:
        if name not in self._done:
            self._done[name] = self._per_state[name][self._of_row]
        return self._done[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._per_state)

    def __len__(self) -> int:
        return len(self._per_state)


def _as_slice(idx: IntArray) -> IntArray | slice:
    """Row indices as a slice where they are a run (indexing copies nothing)."""
    if len(idx) and int(idx[-1]) - int(idx[0]) + 1 == len(idx):
        return slice(int(idx[0]), int(idx[-1]) + 1)
    return idx


def _over_questions(sc: Scores, name: str, bad: npt.NDArray[np.bool_] | None) -> tuple[FloatArray, FloatArray]:
    """Each model's mean of its per-question estimates and the standard error
    of that mean over questions (stats/intervals.py), the same numbers by the
    cheapest way the board allows: column sums of the questions x models
    grid, a (model, state) table, or every row (``bad``: models with rows
    short of the budget, left out; the first two give them NaN, which is not
    shown)."""
    pm, f, m = sc.per_model(), sc.per_state.get(name), sc.counts.model
    if f is not None and sc.cluster is None and pm.grid_t is not None:
        return grid_se(f, pm.grid_t, pm.count, pm.grid)
    if f is not None and sc.cluster is None and pm.starts is not None and sc.states is not None:
        fast = segment_se(f, sc.states.of_row, pm.starts, pm.count)
        if fast is not None:
            return fast
    if f is not None and sc.cluster is None and pm.cell is not None:
        return group_se_tabled(sc.x[name], f, pm.cell, m, pm.count)
    x, L = sc.x[name], len(sc.counts.models)
    if bad is not None:
        ok = ~bad[m]
        mean, se, _ = group_se(x[ok], m[ok], L, None if sc.cluster is None else sc.cluster[ok])
    else:
        mean, se, _ = group_se(x, m, L, sc.cluster)
    return mean, se


def compute(sc: Scores, metrics: list[Metric], w: FloatArray, confidence: float, interval: str,
            issues: Issues | None = None) -> list[ModelRow]:
    """Every model's row: estimates and intervals of every metric, all models
    at once for the ``questions`` interval (per model for ``posterior``)."""
    counts = sc.counts
    pm = sc.per_model()
    st = sc.states
    assert st is not None
    L = len(counts.models)
    m = counts.model
    q_count, n_min, n_max = pm.count, pm.n_min, pm.n_max
    present = q_count > 0
    models = np.flatnonzero(present)
    reward = (st.cats @ w) / row_sums(st.cats)  # each state's mean reward per sample
    spread: dict[str, tuple[FloatArray, FloatArray]] = {}
    if pm.grid_t is not None:
        # Every model on every question: the accuracy and every metric's mean
        # and interval over questions from one pass of column sums (intervals.grid_se).
        names = [x.name for x in metrics if x.name in sc.per_state] if interval != "posterior" and \
            sc.cluster is None else []
        mean, se = grid_se(np.stack([reward, *(sc.per_state[x] for x in names)], axis=1), pm.grid_t, q_count,
                           pm.grid)
        acc = np.where(present, mean[:, 0], 0.0)
        spread = {x: (mean[:, k], se[:, k]) for k, x in enumerate(names, 1)}
    else:
        both = None
        if pm.starts is not None:
            # Rows ordered by model: the accuracy and every metric's mean and interval from one pass of
            # sums over each model's rows (intervals.segment_se: bincount's sums, in the same order).
            names = [x.name for x in metrics if x.name in sc.per_state] if interval != "posterior" and \
                sc.cluster is None else []
            both = segment_se(np.stack([reward, *(sc.per_state[x] for x in names)], axis=1), st.of_row, pm.starts,
                              q_count)
        if both is not None:
            mean, se = both
            acc = np.where(present, mean[:, 0], 0.0)
            spread = {x: (mean[:, k], se[:, k]) for k, x in enumerate(names, 1)}
        else:
            acc = np.bincount(m, weights=reward[st.of_row], minlength=L) / np.maximum(q_count, 1)
    rows = {int(i): ModelRow(counts.models[i], int(q_count[i]), int(n_min[i]), int(n_max[i]), float(acc[i]), {})
            for i in models}
    # Each model's rows (a slice where they are contiguous, as the engine keeps them: no copy).
    groups = [(i, _as_slice(idx)) for i, idx in by_model(counts)] if interval == "posterior" else []
    z = z_value(confidence)
    samples = model_groups(sc)[2].astype(np.float64) if interval == "questions" else None
    na: dict[str, list[str]] = {}
    for metric in metrics:
        f = sc.per_state.get(metric.name)
        # NaN: rows with fewer samples than the metric's budget.
        some_nan = bool(np.isnan(f).any()) if f is not None else bool(np.isnan(sc.x[metric.name]).any())
        bad = np.zeros(L, bool)
        if some_nan:
            bad[m[np.isnan(sc.x[metric.name])]] = True
        lo_b, hi_b = bounds_of(metric, w)
        for j in np.flatnonzero(bad & present):
            rows[int(j)].values[metric.name] = None
            short = int(n_min[j])
            na.setdefault(f"{metric.name} needs at least {metric.budget} samples per question; some have {short}",
                          []).append(counts.models[j])
        if interval != "posterior":
            mean, se = spread.get(metric.name) or _over_questions(sc, metric.name, bad if some_nan else None)
            if interval == "wilson":  # the small-board interval (stats/small.py)
                w_lo, w_hi = small_board_bounds(sc, metric.name, mean, se, confidence, (lo_b, hi_b))
            elif interval == "questions":  # the default interval (stats/default_interval.py)
                assert samples is not None
                r_lo, r_hi = metric_range(metric.kind, w, n_max, (lo_b, hi_b))
                grid = f is not None and sc.cluster is None and pm.table is not None
                w_lo, w_hi = board_bounds(None if grid else sc.x[metric.name], m, sc.cluster, L, samples, confidence,
                                          r_lo, r_hi, f, pm.table)
            for j in np.flatnonzero(~bad & present):
                est, s = float(mean[j]), float(se[j])
                if interval in ("wilson", "questions"):
                    lo, hi = min(float(w_lo[j]), est), max(float(w_hi[j]), est)  # (rounding of the range's ends)
                else:
                    lo = min(max(est - z * s, lo_b), hi_b) if s == s else np.nan
                    hi = min(max(est + z * s, lo_b), hi_b) if s == s else np.nan
                rows[int(j)].values[metric.name] = Value(est, s, float(lo), float(hi))
        else:
            for i, idx in groups:
                if bad[i]:
                    continue
                if metric.kind == "bayes" and pm.table is not None:  # from the model's states (stats/bayes_states.py)
                    has = pm.table[i] > 0
                    mu, sigma, lo, hi = bayes_ci_states(st.cats[has], pm.table[i][has], w, confidence,
                                                        bounds_of(metric, w))
                else:
                    mu, sigma, lo, hi = posterior(counts.categories[idx], metric, w, confidence)
                est = float(np.mean(sc.x[metric.name][idx])) if metric.kind != "bayes" else mu
                rows[i].values[metric.name] = Value(est, sigma, lo, hi, mu)
    if issues is not None:
        for what, names in na.items():
            shown = ", ".join(f"'{x}'" for x in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            issues.warn(f"{what}: not computed for {shown}")
    return [rows[int(i)] for i in models]


def curve(cats: IntArray, ks: list[int], confidence: float) -> FloatArray:
    """pass@k of one model for each k: rows (posterior mean, lo, hi, classic
    estimate); NaN where k exceeds a question's samples."""
    binary = np.stack([cats[:, :-1].sum(axis=1), cats[:, -1]], axis=1)
    n, c = binary.sum(axis=1), binary[:, 1]
    out = np.full((len(ks), 4), np.nan)
    for i, k in enumerate(ks):
        if k <= int(n.min()):
            mu, _, lo, hi = kc.pass_at_k_ci(n, c, k, confidence)
            out[i] = (mu, lo, hi, kc.pass_at_k(n, c, k, mean=True))
    return out
