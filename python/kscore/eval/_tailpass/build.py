"""The TailPass builder (scorio 0.2.3's ``tailpass``): the questions'
Dirichlet posteriors from the outcomes, made once and reused by every
utility of the returned :class:`TailPassProfile`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._arrays import FloatArray, IntArray
from ..._inputs import real_vector, validate_latent_k
from .._categorical import prepare_bank
from .profile import TailPassProfile, profile_of
from .shared import Posterior, category_counts, check_rubric, group, grouping, readonly, thresholds_for, unit_interval


def tailpass(
    R: Any,
    k: int,
    w: Any = None,
    R0: Any = None,
    *,
    eta: float = 1.0,
    prior: Any = 1.0,
    thresholds: Any = None,
) -> TailPassProfile:
    r"""Prepare a reusable posterior TailPass profile.

    Each question :math:`\alpha` has a Dirichlet posterior over its distinct
    rubric scores :math:`s_1 < \dots < s_L`, with concentrations
    :math:`\theta_{\alpha c} = \mathrm{prior}_{\alpha c} + n_{\alpha c} +
    \eta\, n^0_{\alpha c}` (equal scores merged). For a fresh bank of k
    attempts with category counts :math:`\mathbf n` and bank score
    :math:`b(\mathbf n) = \frac1k \sum_c n_c s_c`, the profile is

    .. math::

        \mathrm{TP}_t = \frac1M \sum_\alpha
            P\big(b(\mathbf n_\alpha) \ge \tau_t \mid \mathrm{data}\big),
        \qquad \tau_t = t/k \text{ by default},

    with exact posterior moments, scalar utilities and shared posterior
    draws on the returned :class:`TailPassProfile`. ``b`` is the exact
    rational rounded once to float64 (for the default grid: "at least t
    successes").

    Reference: Hariri, Hinczewski, Ayday, and Chaudhary (2026), *Success Has
    a Shape: TailPass@k for Repeated Sampling Evaluation*, Sections 2-3.

    Args:
        R: Question-by-trial categorical outcomes; 1D means one question.
        k: Positive reporting budget, independent of the observed trial count.
        w: Category scores in [0, 1]. Defaults to [0, 1] for binary R.
        R0: Optional auxiliary outcomes for the same questions, as in ``bayes``.
        eta: Auxiliary-count transfer weight in [0, 1].
        prior: Positive Dirichlet concentrations: a scalar, a length-(C+1)
            vector, or an M-by-(C+1) matrix for categories 0, ..., C.
        thresholds: Required average rubric scores in [0, 1], increasing.
            Defaults to 1/k, ..., 1. Threshold zero is always met.

    Returns:
        TailPassProfile: exact moments, utilities and posterior sampling.

    Examples:
        >>> profile = tailpass([[0, 1, 1], [1, 1, 1]], k=4)
        >>> profile.mean.shape
        (4,)
        >>> mu, sigma = profile.moment(lam=1)
        >>> round(mu, 3)
        0.7
        >>> [round(float(x), 4) for x in profile.mean]
        [0.9571, 0.8429, 0.6429, 0.3571]
    """
    k = validate_latent_k(k)
    thresholds_ = thresholds_for(k, thresholds)
    bank = prepare_bank(R, w, R0)
    check_rubric(bank)
    eta = unit_interval(eta, "eta")
    base = real_vector(prior, name="prior")
    if base.ndim > 2 or np.any(base <= 0):
        raise ValueError("prior must contain positive Dirichlet concentrations")
    rows, categories = bank.counts.rows, int(bank.weights.size)
    try:
        np.broadcast_shapes(base.shape, (rows, categories))
    except ValueError as exc:
        raise ValueError("prior must be a scalar, category vector, or question-by-category matrix") from exc
    scores, inverse = grouping(bank.weights)
    counts = group(category_counts(bank.counts, rows, categories), inverse, len(scores))
    hint: tuple[FloatArray, IntArray, IntArray] | None = None
    if base.ndim <= 1 and (bank.prior is None or eta == 0.0):
        # One prior row for every question: states are the distinct count rows.
        row = np.broadcast_to(base, (categories,)).astype(float)
        prior_row = group(row[None, :], inverse, len(scores))[0]
        if len(scores) == 2:
            successes = counts[:, 1]
            histogram = np.bincount(successes, minlength=bank.counts.trials + 1)
            present = np.flatnonzero(histogram)
            keys = np.column_stack((bank.counts.trials - present, present))
            lookup = np.zeros(len(histogram), dtype=np.int64)
            lookup[present] = np.arange(len(present))
            state_inverse, frequencies = lookup[successes], histogram[present]
        else:
            keys, state_inverse, frequencies = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
            state_inverse = state_inverse.ravel()
        with np.errstate(over="ignore"):
            states = prior_row + keys
        if not np.all(np.isfinite(states.sum(axis=1))):
            raise ValueError("Posterior concentration totals must be finite")
        parameters = states[state_inverse]
        hint = (readonly(states), state_inverse, frequencies.astype(np.int64))
    else:
        full = np.broadcast_to(base, (rows, categories))
        with np.errstate(over="ignore"):
            raw = (full + category_counts(bank.counts, rows, categories)
                   + eta * category_counts(bank.prior, rows, categories))
            totals = raw.sum(axis=1)
        if not np.all(np.isfinite(totals)):
            raise ValueError("Posterior concentration totals must be finite")
        parameters = group(raw, inverse, len(scores))
    return profile_of(Posterior(k, thresholds_, readonly(parameters), readonly(scores), hint))
