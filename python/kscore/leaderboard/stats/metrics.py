"""Each model's values: the estimate and interval of every metric, all
models at once (docs/leaderboard.md, *Metrics* and *Intervals*).

The per-question estimates of a metric (stats/estimates.py) are computed once
per distinct state of the board's rows (stats/states.py, stats/scores.py) in
one core call per metric (max@k: one per reward level), not one per model,
and gathered back to the rows. A model's value is the mean of its
per-question estimates (the classic estimate, ``mean=True``). Its interval is
either

* ``questions`` (default): over the sampling of questions, the interval of
  stats/default_interval.py (a continuity-corrected Wilson interval on the
  effective number of questions or clusters, made monotone), or
* ``normal``: the estimate +- z times the standard error of that mean over
  questions (cluster-robust with clusters; stats/intervals.py), the default
  before issue 36, or
* ``posterior``: the central credible interval of a Bayesian posterior for
  the same target, the expected metric over the population of questions
  (stats/posterior.py: the mid-p Beta posterior on the effective number of
  outcomes, mixed over the dispersion), all models at once, or
* ``wilson``: the small-board interval over questions (stats/small.py)."""

from __future__ import annotations

from itertools import repeat

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray
from ..._gc import paused_collection
from ..._interval import z_value
from .._issues import Issues
from .._spec import Metric
from .default_interval import answers_cap, board_bounds, board_units, metric_range
from .estimates import bounds_of
from .intervals import grid_se, group_se, group_se_tabled, segment_se
from .posterior import population_posterior
from .scores import Scores
from .small import model_groups, small_board_bounds
from .states import row_sums
from .values import MetricColumns, ModelRow, ModelTable, RowValues


def _over_questions(sc: Scores, name: str, bad: npt.NDArray[np.bool_] | None) -> tuple[FloatArray, FloatArray]:
    """Each model's mean of its per-question estimates and the standard error
    of that mean over questions (stats/intervals.py), the same numbers by the
    cheapest way the board allows: column sums of the questions x models
    grid, a (model, state) table, or every row (``bad``: models with rows
    short of the budget, left out; the first two give them NaN, which is not
    shown)."""
    pm, f, m = sc.per_model(), sc.per_state.get(name), sc.counts.model
    if f is not None and sc.cluster is None and pm.grid is not None:
        return grid_se(f, pm.grid.T, pm.count, pm.grid)
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


def _clamp(x: FloatArray, lo: float, hi: float) -> FloatArray:
    """``min(max(x, lo), hi)`` per entry, as Python's ``max`` and ``min``
    choose (the first argument unless the second is strictly beyond it)."""
    y = np.where(lo > x, lo, x)
    out: FloatArray = np.where(hi < y, hi, y)
    return out


def compute(sc: Scores, metrics: list[Metric], w: FloatArray, confidence: float, interval: str,
            issues: Issues | None = None) -> list[ModelRow]:
    """Every model's row: estimates and intervals of every metric, all models
    at once."""
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
    if pm.grid is not None:
        # Every model on every question: the accuracy and every metric's mean
        # and interval over questions from one pass of column sums (intervals.grid_se).
        names = [x.name for x in metrics if x.name in sc.per_state] if interval != "posterior" and \
            sc.cluster is None else []
        mean, se = grid_se(np.stack([reward, *(sc.per_state[x] for x in names)], axis=1), pm.grid.T, q_count,
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
    # (every model's row made by maps in C, its values a view of the columns: no Value made here)
    at = models.tolist()
    table = ModelTable({})
    with paused_collection():
        rows = list(map(ModelRow, map(counts.models.__getitem__, at),
                        *(v[models].astype(np.int64).tolist() for v in (q_count, n_min, n_max)),
                        np.asarray(acc, np.float64)[models].tolist(), map(RowValues, repeat(table), at)))
    z = z_value(confidence)
    samples = model_groups(sc)[2].astype(np.float64) if interval in ("questions", "posterior") else None
    na: dict[str, list[str]] = {}
    for metric in metrics:
        f = sc.per_state.get(metric.name)
        # NaN: rows with fewer samples than the metric's budget.
        some_nan = bool(np.isnan(f).any()) if f is not None else bool(np.isnan(sc.x[metric.name]).any())
        bad = np.zeros(L, bool)
        if some_nan:
            bad[m[np.isnan(sc.x[metric.name])]] = True
        lo_b, hi_b = bounds_of(metric, w)
        col = MetricColumns(np.full(L, np.nan), np.full(L, np.nan), np.full(L, np.nan), np.full(L, np.nan),
                            missing=~present | bad)
        table.columns[metric.name] = col
        for j in np.flatnonzero(bad & present):
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
                cap = answers_cap(metric.kind, samples, row_sums(st.cats), st.of_row, m, L, pm.table, n_max,
                                  len(w))  # (for Bayes@N the information of its answers)
                w_lo, w_hi = board_bounds(None if grid else sc.x[metric.name], m, sc.cluster, L, cap, confidence,
                                          r_lo, r_hi, f, pm.table)
            # (every model at once, into the columns: the same floats as Python's min/max per model,
            # np.where written as they choose, NaN included)
            js = np.flatnonzero(~bad & present)
            est_a, s_a = mean[js].astype(np.float64), se[js].astype(np.float64)
            if interval in ("wilson", "questions"):
                wl, wh = w_lo[js].astype(np.float64), w_hi[js].astype(np.float64)
                lo_a = np.where(est_a < wl, est_a, wl)  # min(w_lo, est): rounding of the range's ends
                hi_a = np.where(est_a > wh, est_a, wh)  # max(w_hi, est)
            else:
                with np.errstate(invalid="ignore"):
                    lo_a, hi_a = _clamp(est_a - z * s_a, lo_b, hi_b), _clamp(est_a + z * s_a, lo_b, hi_b)
                lo_a[np.isnan(s_a)] = np.nan
                hi_a[np.isnan(s_a)] = np.nan
            col.estimate[js], col.sigma[js], col.lo[js], col.hi[js] = est_a, s_a, lo_a, hi_a
        else:  # the posterior of the population's mean, on the default interval's units (stats/posterior.py)
            assert samples is not None
            mean, _ = spread.get(metric.name) or _over_questions(sc, metric.name, bad if some_nan else None)
            r_lo, r_hi = metric_range(metric.kind, w, n_max, (lo_b, hi_b))
            grid = f is not None and sc.cluster is None and pm.table is not None
            units = board_units(None if grid else sc.x[metric.name], m, sc.cluster, L, f, pm.table)
            cap = answers_cap(metric.kind, samples, row_sums(st.cats), st.of_row, m, L, pm.table, n_max,
                              len(w))  # (for Bayes@N the information of its answers)
            mu, sd, p_lo, p_hi = population_posterior(units, cap, confidence, r_lo, r_hi)
            js = np.flatnonzero(~bad & present)
            col.posterior_mean = pm_col = np.full(L, np.nan)
            for a, b in ((col.estimate, mean), (col.sigma, sd), (col.lo, p_lo), (col.hi, p_hi), (pm_col, mu)):
                a[js] = np.asarray(b)[js]
    if issues is not None:
        for what, names in na.items():
            shown = ", ".join(f"'{x}'" for x in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
            issues.warn(f"{what}: not computed for {shown}")
    return rows
