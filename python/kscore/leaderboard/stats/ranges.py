"""Rank ranges from paired tests without the L x L matrices
(docs/leaderboard.md, *Rank ranges*).

A model's rank range is ``1 + (models significantly better)`` to ``L -
(models significantly worse)``: it needs, per model, two counts over the
``L (L - 1) / 2`` paired tests, not the tests themselves. The pairs are
visited a block of rows at a time (rows ``a..b`` against columns ``a..L``:
the upper triangle), each block's differences, standard errors and t
statistics computed from the same products and in the same order of
operations as the all-pairs matrices of :func:`kscore.leaderboard.stats.intervals.paired`
(so that every decision is the same: tests/test_rank_ranges.py compares
them with that code, kept in tests/rank_oracle.py), counted and dropped.
Memory: a few blocks of ``rows x L`` (8 MB each), whatever ``L``.

Decisions, for ``alpha = 1 - confidence``:

- ``none``: ``erfc(|t| / sqrt 2) < alpha``. erfc is decreasing, so this is
  ``u = |t| / sqrt 2 >= u*`` for the smallest double ``u*`` with
  ``erfc(u*) < alpha`` (found once by bisection); values within 1e-9 of
  ``u*`` are decided by ``math.erfc`` itself, as the matrices did.
- ``holm``: Holm's adjusted p-value ``< alpha``. The adjusted values are the
  running maximum of ``(m - l) p_(l)`` in increasing order of ``p``, so the
  rejected pairs are those before the first ``l`` with ``(m - l) p_(l) >=
  alpha``; tied p-values share an adjusted value, so that set is ``p <=
  p_crit``. Only pairs with ``p < alpha`` can be rejected: their ``u`` are
  kept (one float each), sorted, and scanned; ``math.erfc`` is called only
  where the bound ``erfc(x) <= 2/sqrt(pi) exp(-x^2) / (x + sqrt(x^2 + 4/pi))``
  (Abramowitz and Stegun 7.1.13) cannot already tell that a position passes.
- ``simultaneous``: the step-down max-t procedure (Romano and Wolf 2005)
  over every pairwise difference: the critical value of a step is the
  ``1 - alpha`` quantile of ``max |T*_ij|`` over the pairs not yet rejected,
  ``T*_ij = (Z*_i - Z*_j) / se_ij`` with ``Z* = scale * E g``, ``E`` the
  per-question estimates centred on each model's mean and ``g`` standard
  normal multipliers per question (per cluster with ``--cluster``; fixed
  seed). ``scale`` makes ``Var(T*_ij) = 1`` exactly (``sqrt(n/(n-1))/n``,
  or ``sqrt(G/(G-1))/n`` with ``G`` clusters): ``T*`` is the Gaussian
  max-t over the joint covariance of all the differences, so the ranges of
  all models hold together at ``confidence`` (Mogstad, Romano, Shaikh and
  Wilhelm, "Inference for Ranks", Review of Economic Studies). Each step's
  critical value is at most Bonferroni's for the pairs left (which bounds
  the max-t quantile), and Holm's rejections are added: never wider than
  Holm's ranges. Made in a few sweeps of the blocks by
  :mod:`kscore.leaderboard.stats.simultaneous`, also with missing questions
  (each pair on the questions both have); where that module refuses a
  board (:func:`kscore.leaderboard.stats.simultaneous.refusal`: its size,
  or missing questions with clusters), Holm's ranges (same guarantee,
  possibly wider), said in a note.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from .._issues import LeaderboardError
from . import folded as _folded
from .folded import folded, holm_folded, lattice
from .pair_tests import count_block, erfc_lower, erfc_upper, holm_crit, u_of, u_threshold, unadjusted
from .pairs import Pairs
from .simultaneous import count_ranks, refusal, simultaneous

#: Holm's ranges keep one float per pair significant at alpha: past this
#: many (0.5 GB), a clear error instead of running out of memory.
HOLM_MAX_KEPT = 60_000_000


@dataclass
class RankSets:
    """Each model's rank range (``lo``, ``hi``: board order) and how pairs
    were decided: ``adjust`` (``none``, ``holm``, ``simultaneous``; the
    one used, which is ``holm`` where simultaneous sets could not be made,
    ``note`` says why), ``u_star`` (unadjusted: significant when ``|t| /
    sqrt 2 >= u_star``), ``p_crit`` (Holm: significant when ``p <=
    p_crit``, None: no pair), ``t_crit`` (simultaneous: ``|t| > t_crit``,
    or Holm's rule). ``could_be_best``: the models whose range starts at 1
    (none significantly better: under ``simultaneous``, a confidence set for
    the best model)."""

    models: list[str]
    lo: IntArray
    hi: IntArray
    adjust: str
    confidence: float
    u_star: float
    p_crit: float | None = None
    t_crit: float | None = None
    note: str = ""
    could_be_best: list[str] = field(default_factory=list)

    def significant(self, t: FloatArray, p: FloatArray) -> npt.NDArray[np.bool_]:
        """Where a pair (its t statistic ``t``, row minus column, and
        two-sided ``p``) is significant in the row's favour, by this board's
        rule (the pairs of any sub-matrix are decided as on the board)."""
        with np.errstate(invalid="ignore"):
            if self.adjust == "none":
                out: npt.NDArray[np.bool_] = p < 1.0 - self.confidence
            else:
                out = p <= self.p_crit if self.p_crit is not None else np.zeros(np.shape(p), bool)
                out &= p < 1.0 - self.confidence
                if self.t_crit is not None:
                    out |= np.abs(t) > self.t_crit
            return out & (t > 0)


    def cuts(self) -> tuple[float, float | None]:
        """The rule as thresholds of ``|t|``: significant where ``|t| /
        sqrt 2 >= u_cut`` or ``|t| > t_crit`` (for a script that has no
        exact erfc: the HTML page's comparison of any model)."""
        if self.adjust == "none":
            return self.u_star, None
        u_cut = math.inf if self.p_crit is None else max(
            self.u_star, u_threshold(float(np.nextafter(self.p_crit, math.inf))))  # (p <= p_crit and p < alpha)
        return u_cut, self.t_crit


def rank_sets(X: FloatArray, W: npt.NDArray[np.bool_], cluster: IntArray | None, models: list[str],
              confidence: float, adjust: str = "none", overwrite: bool = False) -> RankSets:
    """Every model's rank range from the paired tests of the rows of ``X``
    (board order; ``W``: the questions each has; ``cluster``: per question),
    ``adjust`` ``"none"``, ``"holm"`` or ``"simultaneous"``, without
    matrices of all pairs (module docstring). ``overwrite``: ``X`` may be
    centred in place (the caller's own, not used after).

    >>> X = np.array([[1.0, 1, 1, 1, 0, 1], [0, 1, 0, 0, 1, 0], [0, 0, 1, 0, 0, 0]])
    >>> r = rank_sets(X, np.ones_like(X, bool), None, ["a", "b", "c"], 0.95)
    >>> r.lo.tolist(), r.hi.tolist(), r.could_be_best
    ([1, 1, 2], [2, 3, 3], ['a', 'b'])
    """
    L = len(models)
    alpha = 1.0 - confidence
    u_star = u_threshold(alpha)
    better = np.zeros(L, np.int64)
    worse = np.zeros(L, np.int64)
    # (a lattice board's counts, read before X is centred: the unadjusted and Holm counts run on them in the core)
    lat = (lattice(X) if _folded.USE_LATTICE and cluster is None and L >= _folded.LATTICE_MODELS and W.all()
           else None)
    pairs = Pairs(X, W, cluster, overwrite)
    note = ""
    used = adjust
    if adjust == "simultaneous":
        why = refusal(pairs)
        if why:
            used = "holm"
            note = f"simultaneous rank sets need {why}: Holm's ranges shown (the same guarantee, possibly wider)"
    p_crit: float | None = None
    t_crit: float | None = None
    if used == "none" and pairs.full and cluster is None and pairs.Q > 1:
        folded(pairs, better, worse, u_star, alpha, lat)
    elif used == "holm" and pairs.full and cluster is None and pairs.Q > 1:
        p_crit = holm_folded(pairs, better, worse, alpha, lat)
    elif used == "simultaneous":
        sets = simultaneous(pairs, alpha, u_star)
        p_crit = count_ranks(pairs, sets, u_star, alpha, better, worse)
        t_crit = sets.t_crit
        note = sets.note  # (past simultaneous.STEP_DOWN_MAX models: where the step-down ends)
    elif used == "none":
        for a, b, diff, _, t in pairs.blocks():
            count_block(better, worse, a, b, unadjusted(u_of(t), u_star, alpha), diff)
    else:
        m = 0
        kept: list[FloatArray] = []
        count = 0
        for _, _, _, _, t in pairs.blocks():
            u = u_of(t)
            m += int(np.count_nonzero(~np.isnan(u)))
            kept.append(u[unadjusted(u, u_star, alpha)])
            count += len(kept[-1])
            if count > HOLM_MAX_KEPT:
                raise LeaderboardError(
                    f"--adjust {adjust} on {L:,} models keeps the t statistic of every pair significant at "
                    f"{alpha:g} (over {HOLM_MAX_KEPT:,}, {8 * HOLM_MAX_KEPT / 1e9:.1f} GB): use --adjust none, "
                    "or rank fewer models (a subset, or --top after a first run)")
        u_sig = np.concatenate(kept) if kept else np.zeros(0)
        del kept
        u_sig.sort()  # (in place, then read backwards: no copy of what can be 8 bytes per pair)
        u_sig = u_sig[::-1]
        p_crit = holm_crit(u_sig, m, alpha)
        rule = RankSets(models, better, worse, used, confidence, u_star, p_crit, t_crit)
        for a, b, diff, _, t in pairs.blocks():
            with np.errstate(invalid="ignore"):
                p = _holm_p(u_of(t), p_crit)
            count_block(better, worse, a, b, rule.significant(np.abs(t), p) & ~np.isnan(t), diff)
    lo = better + 1
    hi = L - worse
    best = [models[i] for i in np.flatnonzero(lo == 1).tolist()]  # (the few models ranked first: no pass over all)
    return RankSets(models, lo, hi, used, confidence, u_star, p_crit, t_crit, note, best)


def _holm_p(u: FloatArray, p_crit: float | None) -> FloatArray:
    """p-values where they can be Holm-rejected (``erfc(u) <= p_crit``),
    +inf elsewhere: erfc is called only near or below the threshold."""
    out = np.full(u.shape, np.inf)
    if p_crit is None:
        return out
    x = np.nan_to_num(u, nan=0.0)
    with np.errstate(invalid="ignore"):
        cand = np.flatnonzero((erfc_lower(x) <= p_crit) & ~np.isnan(u))
        sure = (erfc_upper(x) < p_crit) & ~np.isnan(u)
    out[sure] = 0.0
    for k in np.setdiff1d(cand, np.flatnonzero(sure)).tolist():
        out.flat[k] = math.erfc(float(u.flat[k]))
    return out
