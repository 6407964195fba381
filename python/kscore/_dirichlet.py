"""Bayes@N's posterior per question (Dirichlet(+1) over the outcome
categories): the moments of :func:`kscore.counts.bayes_ci`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def question_moments(cat: npt.NDArray[np.integer], weights: npt.NDArray[np.float64]) -> tuple[
        npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per row of category counts, the posterior mean reward above ``w_0``
    and the variance term ``Var / (T + 1)`` (the summands of ``bayes_ci``;
    also used per distinct state by the leaderboard)."""
    C = cat.shape[1] - 1
    T = (1 + C + cat.sum(axis=1)).astype(np.float64)
    p = (cat + 1.0) / T[:, None]
    shift = weights - weights[0]
    row_mean = p @ shift
    row_var = np.maximum(p @ (shift**2) - row_mean**2, 0.0)
    return row_mean, row_var / (T + 1)
