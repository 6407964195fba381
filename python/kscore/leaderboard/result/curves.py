"""Each model's pass@k curve (k = 1..its fewest samples per question) from a
:class:`kscore.leaderboard.Leaderboard`, the line and the band describing
one and the same estimate, with the leaderboard's own interval
(docs/leaderboard.md, *Output*):

* ``questions`` (the default): the line is the classic estimate (the mean
  over questions of the unbiased per-question pass@k, as the table's pass@k
  cells), the band the table's default interval over questions (or
  clusters with ``--cluster``): at a k the table shows, the same numbers as
  the cell. ``normal``: ``estimate +- z se``, as its cells.
* ``posterior``: the line is the posterior mean of pass@k, the band its
  credible interval given these questions (Beta(1, 1) prior per question).

A band around another estimate than the line's would mislead: the posterior
band need not contain the classic estimate (at large k it often does not).
"""

from __future__ import annotations

import numpy as np

from ... import counts as kc
from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from ..stats.default_interval import board_bounds
from ..stats.intervals import grid_se, group_se
from ..stats.posterior import curve
from ..stats.scores import by_model
from ..stats.small import model_groups
from ..stats.states import row_sums
from .board import Leaderboard
from .show import Curve

#: Curves are drawn at about this many values of k at most.
CURVE_POINTS = 64


def curve_ks(n: int) -> list[int]:
    """k = 1..n, thinned to about :data:`CURVE_POINTS` on a log scale.

    >>> curve_ks(4), len(curve_ks(1000)) <= 64, curve_ks(1000)[-1]
    ([1, 2, 3, 4], True, 1000)
    """
    if n <= CURVE_POINTS:
        return list(range(1, n + 1))
    ratio = n ** (1 / (CURVE_POINTS - 1))
    return sorted({min(n, round(ratio**i)) for i in range(CURVE_POINTS)})


def leaderboard_curves(lb: Leaderboard, models: list[str]) -> list[Curve | None]:
    """The curve of each of ``models`` (None for a model without results)."""
    counts = lb.counts
    n_min = {r.model: r.n_min for r in lb.rows}
    if lb.interval == "questions" and lb.scores is not None and lb.scores.counts is lb.counts:
        return _default_bands(lb, models, n_min)
    if lb.interval != "posterior":
        fast = _over_questions_grid(lb, models, n_min)
        if fast is not None:
            return fast
    index = {counts.models[m]: idx for m, idx in by_model(counts)}
    one = _posterior if lb.interval == "posterior" else _over_questions
    return [one(lb, index[m], curve_ks(n_min[m])) if m in index else None for m in models]


def _default_bands(lb: Leaderboard, models: list[str], n_min: dict[str, int]) -> list[Curve | None]:
    """The default interval (stats/default_interval.py) at every k, as the table's
    cells have it: each k's per-question pass@k of every row (NaN where its model
    has fewer samples than k), bounded by ``board_bounds`` over all models at once."""
    sc = lb.scores
    assert sc is not None
    counts = lb.counts
    L = len(counts.models)
    cats = counts.categories
    n_row, c_row = cats.sum(axis=1), cats[:, -1]
    least = np.zeros(L, np.int64)
    first = {name: i for i, name in reversed(list(enumerate(counts.models)))}  # (list.index's: no scan per model)
    for m, k in n_min.items():
        if m in first:
            least[first[m]] = k
    code = {name: i for i, name in enumerate(counts.models)}
    wanted = {m: curve_ks(n_min[m]) for m in models if m in code and m in n_min}
    samples = model_groups(sc)[2].astype(np.float64)
    zeros, ones = np.zeros(L), np.ones(L)
    band: dict[int, tuple[FloatArray, FloatArray, FloatArray]] = {}
    # (every row of every model counted at a k, no clusters: the units from the (model, state) table,
    # as the table's cells are made (stats/metrics.py), not a sort of every row per k)
    pm = sc.per_model() if sc.cluster is None and sc.counts is counts else None
    st = sc.states
    by_state = pm is not None and pm.table is not None and st is not None
    for k in sorted({k for ks in wanted.values() for k in ks}):
        ok = least[counts.model] >= k
        if by_state and bool(ok.all()):
            assert pm is not None and st is not None
            f = kc.curve(row_sums(st.cats), st.cats[:, -1], "pass_at_k", [k], mean=False)[:, 0]
            x = f[st.of_row]
            lo, hi = board_bounds(None, counts.model, None, L, samples, lb.confidence, zeros, ones, f, pm.table)
        else:
            x = np.full(len(n_row), np.nan)
            x[ok] = kc.curve(n_row[ok], c_row[ok], "pass_at_k", [k], mean=False)[:, 0]
            lo, hi = board_bounds(x, counts.model, sc.cluster, L, samples, lb.confidence, zeros, ones)
        mean = np.bincount(counts.model[ok], weights=x[ok], minlength=L) / np.maximum(
            np.bincount(counts.model[ok], minlength=L), 1)
        band[k] = (mean, np.minimum(lo, mean), np.maximum(hi, mean))
    out: list[Curve | None] = []
    for m in models:
        if m not in wanted:
            out.append(None)
            continue
        i, ks = code[m], wanted[m]
        out.append(Curve(ks, [float(band[k][0][i]) for k in ks], [float(band[k][1][i]) for k in ks],
                         [float(band[k][2][i]) for k in ks]))
    return out


def _over_questions_grid(lb: Leaderboard, models: list[str], n_min: dict[str, int]) -> list[Curve | None] | None:
    """:func:`_over_questions` of every model at once where every model has
    every question and no clusters (None otherwise): each k's per-question
    pass@k is a function of the question's state, so the models' means and
    standard errors are ``grid_se`` of the states' values, the same sums in
    the same order as ``group_se`` over each model's rows (tests: equal)."""
    sc = lb.scores
    if sc is None or sc.cluster is not None or sc.states is None or sc.counts is not lb.counts:
        return None
    pm = sc.per_model()
    if pm.grid_t is None or pm.table is None:
        return None
    code = {name: i for i, name in enumerate(lb.counts.models)}
    st = sc.states
    n_s, c_s = row_sums(st.cats), st.cats[:, -1]
    z = z_value(lb.confidence)
    out: list[Curve | None] = [None] * len(models)
    by_ks: dict[tuple[int, ...], list[int]] = {}
    for j, m in enumerate(models):
        if m in code and m in n_min:
            by_ks.setdefault(tuple(curve_ks(n_min[m])), []).append(j)
    for ks, which in by_ks.items():
        cols = np.array([code[models[j]] for j in which], np.int64)
        present = pm.table[cols].sum(axis=0) > 0  # (the states of these models: n >= every k)
        values = np.zeros((len(st.cats), len(ks)))
        values[present] = kc.curve(n_s[present], c_s[present], "pass_at_k", list(ks), mean=False)
        every = len(cols) == pm.grid_t.shape[1] and bool(np.all(cols == np.arange(len(cols))))
        states_t = pm.grid_t if every else np.ascontiguousarray(pm.grid_t[:, cols])
        mean, se = grid_se(values, states_t, pm.count[cols], None if pm.grid is None else pm.grid if every else
                           pm.grid[cols])
        lo, hi = np.clip(mean - z * se, 0.0, 1.0), np.clip(mean + z * se, 0.0, 1.0)
        for r, j in enumerate(which):
            out[j] = Curve(list(ks), [float(v) for v in mean[r]], [float(v) for v in lo[r]], [float(v) for v in hi[r]])
    return out


def _posterior(lb: Leaderboard, idx: IntArray, ks: list[int]) -> Curve:
    c = curve(lb.counts.categories[idx], ks, lb.confidence)  # rows: posterior mean, lo, hi, classic
    return Curve(ks, [float(x) for x in c[:, 0]], [float(x) for x in c[:, 1]], [float(x) for x in c[:, 2]])


def _over_questions(lb: Leaderboard, idx: IntArray, ks: list[int]) -> Curve:
    """The table's ``questions`` interval (``_metrics.compute``) at every k at
    once: the per-question estimates of all k stacked as one group per k."""
    cats = lb.counts.categories[idx]
    x = kc.curve(cats.sum(axis=1), cats[:, -1], "pass_at_k", ks, mean=False)  # questions x ks
    m, k = x.shape
    cluster = None if lb.scores is None or lb.scores.cluster is None else np.tile(lb.scores.cluster[idx], k)
    mean, se, _ = group_se(np.ascontiguousarray(x.T).ravel(), np.repeat(np.arange(k), m), k, cluster)
    z = z_value(lb.confidence)
    lo, hi = np.clip(mean - z * se, 0.0, 1.0), np.clip(mean + z * se, 0.0, 1.0)  # NaN (one question) stays NaN
    return Curve(ks, [float(v) for v in mean], [float(v) for v in lo], [float(v) for v in hi])
