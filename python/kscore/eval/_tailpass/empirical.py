"""The finite-bank TailPass profile (scorio 0.2.3's ``tailpass_empirical``):
k of the observed N trials drawn without replacement."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import _kscore
from ..._arrays import FloatArray
from ..._inputs import validate_finite_k
from .._categorical import prepare_bank
from . import grid
from .shared import category_counts, check_rubric, group, grouping, readonly, thresholds_for


def tailpass_empirical(R: Any, k: int, w: Any = None, *, thresholds: Any = None) -> FloatArray:
    r"""Finite-bank TailPass profile: sample k of the observed N trials
    without replacement.

    For a question with grouped category counts :math:`\mathbf c`, the k-subset
    counts :math:`\mathbf n` are multivariate hypergeometric, and

    .. math::

        \mathrm{TP}_t = \frac1M \sum_\alpha P\big(b(\mathbf n_\alpha) \ge \tau_t\big),
        \qquad b(\mathbf n) = \frac1k \sum_c n_c s_c .

    Binary endpoints recover finite-bank Pass@k and unanimity. There is no
    posterior and no R0 or prior.

    Reference: Hariri, Hinczewski, Ayday, and Chaudhary (2026), *Success Has
    a Shape: TailPass@k for Repeated Sampling Evaluation*, Section 2.

    Args:
        R: Question-by-trial outcomes, or a 1D single-question bank.
        k: Integer satisfying 1 <= k <= N.
        w: Category scores in [0, 1]; defaults to binary [0, 1].
        thresholds: Increasing required bank scores, default 1/k, ..., 1.

    Returns:
        numpy.ndarray: read-only dataset profile, one entry per threshold.

    Examples:
        >>> tailpass_empirical([[0, 1, 1, 0], [1, 1, 1, 0]], k=2).round(4).tolist()
        [0.9167, 0.3333]
    """
    bank = prepare_bank(R, w)
    trials = bank.counts.trials
    k = validate_finite_k(trials, k)
    grid_ = thresholds_for(k, thresholds)
    check_rubric(bank)
    rows, categories = bank.counts.rows, int(bank.weights.size)
    scores, inverse = grouping(bank.weights)
    observed = group(category_counts(bank.counts, rows, categories), inverse, len(scores))
    if len(scores) == 2:
        grid.check_grid(k, 2)
        histogram = np.bincount(observed[:, 1], minlength=trials + 1)
        present = np.flatnonzero(histogram)
        cutoffs = np.searchsorted(grid.binary_scores(k, scores), grid_, side="left").astype(np.uint64)
        total = _kscore.tailpass_empirical(
            trials, present.astype(np.uint64), histogram[present].astype(np.uint64), k, cutoffs
        )
        return readonly(np.asarray(total) / rows)
    counts = grid.count_grid(k, len(scores))
    bank_scores = grid.bank_scores(counts, scores, k)
    order = np.argsort(bank_scores, kind="stable")
    cutoffs_ = np.searchsorted(bank_scores[order], grid_)
    states, frequencies = np.unique(observed, axis=0, return_counts=True)
    table = grid.log_factorials(trials)
    output = np.zeros(len(grid_))
    for state, frequency in zip(states, frequencies, strict=True):
        feasible = np.all(counts <= state, axis=1)
        logs = np.full(len(counts), -np.inf)
        c = counts[feasible]
        logs[feasible] = (table[state] - table[c] - table[state - c]).sum(axis=1)
        pmf = np.exp(logs - grid.logsumexp(logs[feasible]))
        pmf /= pmf.sum()
        tails = np.r_[np.cumsum(pmf[order][::-1])[::-1], 0.0]
        output += frequency * tails[cutoffs_]
    return readonly(output / rows)
