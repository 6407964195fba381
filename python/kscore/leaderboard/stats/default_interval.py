"""The default interval over questions (issue 36; docs/rankings.md,
*The default interval*): one rule for every metric and board that holds its
level on the boards users have, near the ends of the range, with few
questions or few clusters, and is no wider than the t-interval by more than
a few percent where that one holds.

For one model and metric, with ``x_i`` its per-question estimates rescaled
into [0, 1] by the metric's range, ``p`` their mean, ``se`` its
cluster-robust standard error over ``G`` units (clusters, or questions) and
``m_g`` the questions of unit ``g``:

* ``n_w = n^2 / sum m_g^2``: the number of independent 0/1 outcomes the mean
  would rest on if every unit were all right or all wrong (``n`` without
  clusters): the most dispersed a mean of values in [0, 1] can be;
* ``phi = se^2 n_w / (p (1 - p))``, at most 1 (the variance as a share of
  that worst case; 1 where ``p`` is 0 or 1, where nothing is seen of it);
* the effective number of outcomes ``n* = min(n_w / phi, samples)`` (Kish's
  effective sample size, never more than the outcomes the answers behind
  it are worth: their count, for Bayes@N the information they carry,
  :func:`bayes_answers`) and successes ``p n*``;
* the Wilson score interval with continuity correction (Newcombe 1998,
  method 4) for ``p n*`` successes of ``n*``: where every unit is 0/1 it is
  the binomial interval with Clopper-Pearson's level near the ends (no dip
  of coverage at one or two minority outcomes), and where answers are
  sampled more than once per question it narrows as the data show;
* made monotone: the lower end is the least over the boards that raise the
  ``k`` best units to the top of the range (``k = 0..G``: boards with fewer
  failures), the upper the greatest over those lowering the ``k`` worst to
  the bottom. A board every answer of which is right therefore gets the
  binomial interval on ``n_w`` all-right units (the rule of three: a
  non-zero width that holds its level whatever the failures would have
  been), and no board a lower end above it.

Chosen by measured coverage over 25 families of simulated boards against a
plain t-interval, the bootstrap-t, BCa, the normal interval and earlier
forms (scripts/coverage.py, tests/coverage_families.py; the table is in
docs/rankings.md). Pure numpy: closed forms, vectorised over all models.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._interval import z_value


@dataclass
class Units:
    """The units (questions, or clusters) of every model of a board, each
    with how many there are alike: ``model`` (its model), ``total`` (the sum
    of its questions' estimates), ``size`` (its questions) and ``mult`` (how
    many units of the model have this total and size)."""

    model: IntArray
    total: FloatArray
    size: FloatArray
    mult: FloatArray
    models: int


def units_from_table(values: FloatArray, table: npt.NDArray[np.integer], keep: npt.NDArray[np.bool_] | None = None
                     ) -> Units:
    """:class:`Units` of a board without clusters from its (model, state)
    table (``table[i, s]``: model i's questions in state s, whose estimate
    is ``values[s]``); states with a NaN estimate are left out."""
    L = table.shape[0]
    ok = (table > 0) & ~np.isnan(values)[None, :]
    if keep is not None:
        ok &= keep[:, None]
    model, state = np.nonzero(ok)
    return Units(model.astype(np.int64), values[state].astype(np.float64), np.ones(len(model)),
                 table[model, state].astype(np.float64), L)


def units_from_rows(x: FloatArray, model: IntArray, cluster: IntArray | None, models: int) -> Units:
    """:class:`Units` from per-row estimates ``x`` (NaN rows left out), the
    rows' models and clusters (None: each question its own unit; equal
    estimates of a model are one unit with a count)."""
    ok = ~np.isnan(x)
    x, model = x[ok], model[ok]
    if cluster is None:
        keys, inv = np.unique(np.stack([model, x]), axis=1, return_inverse=True)
        mult = np.bincount(inv.ravel(), minlength=keys.shape[1]).astype(np.float64)
        return Units(keys[0].astype(np.int64), keys[1].astype(np.float64), np.ones(keys.shape[1]), mult, models)
    cl = cluster[ok]
    width = int(cl.max()) + 1 if len(cl) else 1
    keys, inv = np.unique(model.astype(np.int64) * width + cl, return_inverse=True)
    inv = inv.ravel()
    total: FloatArray = np.bincount(inv, weights=x, minlength=len(keys)).astype(np.float64)
    size = np.bincount(inv, minlength=len(keys)).astype(np.float64)
    return Units((keys // width).astype(np.int64), total, size, np.ones(len(keys)), models)


def wilson_cc(p: FloatArray, n: FloatArray, z: float, upper: bool) -> FloatArray:
    """The Wilson score bound with continuity correction (Newcombe 1998,
    method 4) of a proportion ``p`` of ``n`` (both may be fractional): 0 (1)
    at ``p = 0`` (1) for the lower (upper) bound.

    Examples:
        >>> [round(float(b), 4) for b in wilson_cc(np.array([0.0, 0.5, 1.0]), np.array([20.0] * 3), 1.96, False)]
        [0.0, 0.2785, 0.7995]
    """
    z2 = z * z
    with np.errstate(invalid="ignore", divide="ignore"):
        if upper:
            r = z2 + 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) - 1.0)
            b = (2.0 * n * p + z2 + 1.0 + z * np.sqrt(np.maximum(r, 0.0))) / (2.0 * (n + z2))
            out: FloatArray = np.where(p >= 1.0, 1.0, np.clip(b, 0.0, 1.0))
        else:
            r = z2 - 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) + 1.0)
            b = (2.0 * n * p + z2 - 1.0 - z * np.sqrt(np.maximum(r, 0.0))) / (2.0 * (n + z2))
            out = np.where(p <= 0.0, 0.0, np.clip(b, 0.0, 1.0))
    return out


def _bound(p: FloatArray, ss: FloatArray, G: FloatArray, n: FloatArray, n_w: FloatArray, samples: FloatArray,
           z: float, upper: bool) -> FloatArray:
    """The bound (module docstring) of boards with mean ``p`` and sum of
    squared unit residuals ``ss`` (rescaled)."""
    # A board moved all the way to an end: its sums, made as running sums over
    # the models, may miss the end by a rounding (1e-13); it is at the end.
    p = np.where(p > 1.0 - 1e-9, 1.0, np.where(p < 1e-9, 0.0, p))
    v = p * (1.0 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        se2 = G / (G - 1.0) * ss / (n * n)
        phi = np.where(v > 0, se2 * n_w / v, 1.0)
        phi = np.clip(phi, 1e-12, 1.0)
        n_eff = np.minimum(n_w / phi, np.maximum(samples, n_w))  # (samples >= questions >= n_w)
    return wilson_cc(p, n_eff, z, upper)


#: Every ``j`` of a run up to this many units; beyond, ``j`` grows by a
#: sixteenth at a step (kscore-core's ``interval::envelope::DENSE``).
DENSE = 64


def _steps(count: int) -> list[int]:
    """The ``j`` of a run of ``count`` units (as the compiled kernel's)."""
    out, j = [], 0
    while j < count:
        j = j + 1 if j < DENSE else min(max(j + j // 16, j + 1), count)
        out.append(j)
    return out


def _moves(c: FloatArray) -> tuple[IntArray, FloatArray]:
    """For runs of ``c`` equal units: each candidate's run and its ``j``."""
    ci = c.astype(np.int64)
    steps = {int(k): _steps(int(k)) for k in np.unique(ci)}
    per = np.array([len(steps[int(k)]) for k in ci], np.int64)
    run = np.repeat(np.arange(len(c)), per)
    j = np.concatenate([np.asarray(steps[int(k)], np.float64) for k in ci]) if len(ci) else np.zeros(0)
    return run, j


def _before(v: FloatArray, head: IntArray) -> FloatArray:
    """The sum of ``v`` over the entries before each within its model
    (``head``: the first entry of each entry's model)."""
    cs = np.cumsum(v) - v
    out: FloatArray = cs - cs[head]
    return out


def bounds(units: Units, samples: FloatArray, confidence: float, lo_b: FloatArray, hi_b: FloatArray) -> tuple[
        FloatArray, FloatArray]:
    """The default interval (module docstring) of every model: ``samples``
    its answers, ``lo_b``/``hi_b`` the range of its per-question estimates;
    NaN for a model with fewer than two units."""
    z = z_value(confidence)
    L = units.models
    span = np.where(hi_b > lo_b, hi_b - lo_b, 1.0)
    mdl = units.model
    core = getattr(_kscore, "interval_bounds", None)
    if core is not None and (len(mdl) < 2 or bool((mdl[1:] >= mdl[:-1]).all())):
        # The compiled kernel (kscore-core's interval::envelope::bounds): the rescaling, the sums, each
        # model's order of its units and both envelopes in one call on the pool, the same floats as below.
        offsets = np.searchsorted(mdl, np.arange(L + 1)).astype(np.int64)
        lo, hi, G = core(offsets, *(np.ascontiguousarray(a, np.float64) for a in (
            units.total, units.size, units.mult, np.broadcast_to(lo_b, (L,)), np.broadcast_to(span, (L,)),
            np.broadcast_to(samples, (L,)))), z)
    else:
        lo, hi, G = _envelopes(units, samples, z, lo_b, span)
    bad = ~(G >= 2)
    lo = np.where(bad, np.nan, lo_b + span * np.clip(lo, 0.0, 1.0))
    hi = np.where(bad, np.nan, lo_b + span * np.clip(hi, 0.0, 1.0))
    return lo, hi


def _envelopes(units: Units, samples: FloatArray, z: float, lo_b: FloatArray, span: FloatArray) -> tuple[
        FloatArray, FloatArray, FloatArray]:
    """:func:`bounds`' envelopes (rescaled, unclipped) and each model's
    units, in numpy (the per-direction kernel where at hand): the reference
    of the compiled ``interval_bounds``."""
    L = units.models
    mdl = units.model
    S = (units.total - units.size * lo_b[mdl]) / span[mdl]  # rescaled unit totals
    m, c = units.size, units.mult
    n: FloatArray = np.bincount(mdl, weights=c * m, minlength=L).astype(np.float64)
    G: FloatArray = np.bincount(mdl, weights=c, minlength=L).astype(np.float64)
    T1 = np.bincount(mdl, weights=c * S, minlength=L)
    T2 = np.bincount(mdl, weights=c * S * S, minlength=L)
    T3 = np.bincount(mdl, weights=c * S * m, minlength=L)
    T4 = np.bincount(mdl, weights=c * m * m, minlength=L)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_w = n * n / T4
    core = getattr(_kscore, "interval_envelope", None)
    out = []
    y = S / m
    offsets, sums = None, None
    for upper in (False, True):
        order = np.lexsort((y if upper else -y, mdl))  # by model, best (worst) unit first
        om, oS, osz, oc = mdl[order], S[order], m[order], c[order]
        if core is not None:  # the compiled kernel (kscore-core's interval::envelope): the same bounds
            if offsets is None:  # (the same for both orders: each model's units are one run in either)
                offsets = np.searchsorted(om, np.arange(L + 1)).astype(np.int64)
                sums = [np.ascontiguousarray(a, np.float64) for a in (n, G, T1, T2, T3, T4, n_w, samples)]
            out.append(core(offsets, sums, np.ascontiguousarray(oS), np.ascontiguousarray(osz),
                            np.ascontiguousarray(oc), z, upper))
            continue
        top = 0.0 * osz if upper else osz  # moved to the bottom (top) of the range
        d1, d2, d3 = top - oS, top * top - oS * oS, (top - oS) * osz  # one unit moved
        # Sums of the runs before each, within its model.
        first = np.r_[True, om[1:] != om[:-1]]
        head = np.maximum.accumulate(np.where(first, np.arange(len(om)), 0))  # each run's model's first run
        b1, b2, b3 = (_before(oc * d, head) for d in (d1, d2, d3))
        moving = np.flatnonzero(d1 != 0)  # (units already at the end: moving them changes nothing)
        run, j = _moves(oc[moving])
        run = moving[run]
        cm = om[run]
        t1 = T1[cm] + b1[run] + j * d1[run]
        t2 = T2[cm] + b2[run] + j * d2[run]
        t3 = T3[cm] + b3[run] + j * d3[run]
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = np.clip(t1 / n[cm], 0.0, 1.0)
            ss = np.maximum(t2 - 2.0 * mu * t3 + mu * mu * T4[cm], 0.0)
            mu0 = np.clip(T1 / n, 0.0, 1.0)
            ss0 = np.maximum(T2 - 2.0 * mu0 * T3 + mu0 * mu0 * T4, 0.0)
        base = _bound(mu0, ss0, G, n, n_w, samples, z, upper)
        cand = _bound(mu, ss, G[cm], n[cm], n_w[cm], samples[cm], z, upper)
        res = base.copy()
        if len(cm):  # (the candidates come in model order: a reduction per model's run of them)
            starts = np.flatnonzero(np.r_[True, cm[1:] != cm[:-1]])
            which = cm[starts]
            best = (np.maximum if upper else np.minimum).reduceat(cand, starts)
            res[which] = (np.maximum if upper else np.minimum)(res[which], best)
        out.append(res)
    return out[0], out[1], G


def board_bounds(x: FloatArray | None, model: IntArray, cluster: IntArray | None, models: int, samples: FloatArray,
                 confidence: float, lo_b: FloatArray, hi_b: FloatArray, f_state: FloatArray | None = None,
                 table: npt.NDArray[np.integer] | None = None) -> tuple[FloatArray, FloatArray]:
    """:func:`bounds` of a board's models for one metric: from its (model,
    state) ``table`` and per-state estimates ``f_state`` where the board has
    no clusters and the table is at hand, else from the per-row estimates
    ``x`` (NaN rows left out), the rows' ``model`` and ``cluster``."""
    return bounds(board_units(x, model, cluster, models, f_state, table), samples, confidence, lo_b, hi_b)


def board_units(x: FloatArray | None, model: IntArray, cluster: IntArray | None, models: int,
                f_state: FloatArray | None = None, table: npt.NDArray[np.integer] | None = None) -> Units:
    """The :class:`Units` of a board's models for one metric (as
    :func:`board_bounds` takes them; stats/posterior.py too)."""
    if cluster is None and f_state is not None and table is not None:
        return units_from_table(f_state, table)
    assert x is not None
    return units_from_rows(x, model, cluster, models)


def metric_range(kind: str, w: FloatArray, n_max: IntArray, bounds: tuple[float, float]) -> tuple[
        FloatArray, FloatArray]:
    """Each model's range of a metric's per-question estimates: the metric's
    ``bounds``, but for Bayes@N the posterior means of all-worst and all-best
    answers of its most-answered question (``w_0 + (n r + sum_j (w_j - w_0)) /
    (n + C + 1)``, ``r`` the least or greatest ``w_j - w_0``), the widest a
    question of the model can reach."""
    L = len(n_max)
    if kind != "bayes":
        return np.full(L, float(bounds[0])), np.full(L, float(bounds[1]))
    shift = np.asarray(w, np.float64) - float(w[0])
    T = n_max.astype(np.float64) + len(w)
    lo = float(w[0]) + (n_max * shift.min() + shift.sum()) / T
    hi = float(w[0]) + (n_max * shift.max() + shift.sum()) / T
    return lo, hi


def bayes_cost(n: FloatArray, categories: int) -> FloatArray:
    """Per question of ``n`` answers, its share of :func:`bayes_answers`'
    denominator: ``n / (n + C + 1)^2`` (``C + 1`` = ``categories``), the
    variance its Bayes@N estimate would have if every answer were a fair
    coin between the lowest and highest categories, times 4, in units of the
    per-answer step ``1 / (n + C + 1)``."""
    T = np.asarray(n, np.float64) + float(categories)
    out: FloatArray = np.asarray(n, np.float64) / (T * T)
    return out


def bayes_answers(questions: FloatArray, cost: FloatArray, n_max: FloatArray, categories: int) -> FloatArray:
    """The cap on the effective number of outcomes (module docstring) of
    Bayes@N: not the count of answers but the information they carry.

    On the metric's rescaled range (:func:`metric_range`: ``N / (N + C +
    1)`` wide, ``N`` the model's most answers on a question), an answer of a
    question of ``n`` answers moves its estimate by at most ``s = (N + C +
    1) / (N (n + C + 1))`` (the posterior mean shrinks it towards the
    prior's): ``1 / N`` where ``n = N``, 2.4 times that for ``n = 1, N =
    8``. The answers of ``Q`` questions at chance ``p`` make the mean vary by
    at least ``p (1 - p) sum_i n_i s_i^2 / Q^2`` (the binomial part alone);
    the effective number of outcomes that allows, ``P (1 - P) / Var`` with
    ``P`` the rescaled mean, is least at ``p = 1/2``, where it is ``Q^2 /
    sum_i n_i s_i^2`` (elsewhere the prior's pseudo-counts keep ``P`` off
    the ends: ``P (1 - P)`` falls less than ``p (1 - p)``), so that is the
    cap whatever ``p``:
    ``(Q N / (N + C + 1))^2 / sum_i n_i / (n_i + C + 1)^2``
    (``cost``: the sum of :func:`bayes_cost` over the questions). It is
    the count of answers where every question has ``N`` of them, 5.76 times
    it where every question has one of ``N = 8`` (the count capped those as
    if each answer moved the mean by the full ``1 / n``: 1.42 times the
    t-interval's width on ragged boards of 1-8 answers near 0, where the
    t-interval holds).

    Examples:
        >>> float(bayes_answers(np.array([10.0]), 10 * bayes_cost(np.array([4.0]), 2), np.array([4.0]), 2)[0])
        40.0
        >>> round(float(bayes_answers(np.array([10.0]), 10 * bayes_cost(np.array([1.0]), 2), np.array([8.0]), 2)[0]), 2)
        57.6
    """
    N = np.asarray(n_max, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        top = np.asarray(questions, np.float64) * N / (N + float(categories))
        out: FloatArray = top * top / cost
    return out


def bayes_samples(n_state: IntArray, of_row: npt.NDArray[np.integer], model: IntArray, models: int,
                  table: npt.NDArray[np.integer] | None, n_max: IntArray, categories: int,
                  answers: FloatArray | None = None) -> FloatArray:
    """Each model's :func:`bayes_answers` from the answers of each state
    ``n_state`` and its (model, state) ``table`` where at hand, else each
    row's state ``of_row`` and ``model``. Where every question of a model has
    its ``N`` answers the value is the count of its answers (``answers``,
    counted here if not given), exactly: the formula's value there, which
    its rounding can miss by an ulp."""
    n_s = n_state.astype(np.float64)
    cost_s = bayes_cost(n_s, categories)
    q: FloatArray
    cost: FloatArray
    if table is not None:
        q = table.sum(axis=1).astype(np.float64)
        cost = np.asarray(table @ cost_s, np.float64)
        if answers is None:
            answers = np.asarray(table @ n_s, np.float64)
    else:
        q = np.bincount(model, minlength=models).astype(np.float64)
        cost = np.bincount(model, weights=cost_s[of_row], minlength=models).astype(np.float64)
        if answers is None:
            answers = np.bincount(model, weights=n_s[of_row], minlength=models).astype(np.float64)
    N = n_max.astype(np.float64)
    out: FloatArray = np.where(answers == q * N, answers, bayes_answers(q, cost, N, categories))
    return out


def answers_cap(kind: str, samples: FloatArray, n_state: IntArray, of_row: npt.NDArray[np.integer], model: IntArray,
                models: int, table: npt.NDArray[np.integer] | None, n_max: IntArray, categories: int) -> FloatArray:
    """The cap on each model's effective number of outcomes, the one of every
    interval that has one (the default, ``interval="posterior"`` and
    ``interval="answers"``): the count of its answers ``samples``, and for
    Bayes@N (``kind == "bayes"``) the information they carry,
    :func:`bayes_samples` (its arguments: the answers of each state
    ``n_state``, each row's state ``of_row`` and ``model``, the (model,
    state) ``table`` where at hand, each model's most answers on a question
    ``n_max``, and the metric's ``categories``)."""
    if kind != "bayes":
        return samples
    return bayes_samples(n_state, of_row, model, models, table, n_max, categories, samples)


def interval_of(x: FloatArray, samples: float, confidence: float = 0.95,
                limits: tuple[float, float] = (0.0, 1.0), cluster: IntArray | None = None) -> tuple[float, float]:
    """The default interval of one model from its per-question estimates
    ``x`` (NaN left out), its ``samples`` and the estimates' range
    ``limits``: what the integrations (kscore.rl's prompts, kscore.lm_eval's
    documents) show. The range's ends where fewer than two questions.

    Examples:
        >>> [round(b, 4) for b in interval_of(np.array([1.0] * 30), 120)]  # every answer right: the rule of three
        [0.8587, 1.0]
        >>> [round(b, 4) for b in interval_of(np.array([0.0, 1.0, 1.0, 0.0, 0.5, 0.5]), 12)]
        [0.1666, 0.8334]
    """
    x = np.asarray(x, np.float64)
    model = np.zeros(len(x), np.int64)
    units = units_from_rows(x, model, cluster, 1)
    lo, hi = bounds(units, np.array([float(samples)]), confidence, np.array([float(limits[0])]),
                    np.array([float(limits[1])]))
    if np.isnan(lo[0]):
        return float(limits[0]), float(limits[1])
    mean = float(np.nanmean(x))
    return min(float(lo[0]), mean), max(float(hi[0]), mean)
