"""Maj@k: majority vote over k selected trials."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from .._inputs import binary_bank, validate_finite_k


def maj_at_k(R: Any, k: int) -> float:
    r"""Maj@k: the probability that a strict majority of ``k`` trials drawn
    without replacement is correct, averaged over questions.

    .. math::

        \mathrm{Maj@k} = \frac{1}{M}\sum_\alpha \sum_{j=\lfloor k/2\rfloor+1}^{k}
            \frac{\binom{\nu_\alpha}{j}\binom{N-\nu_\alpha}{k-j}}{\binom{N}{k}}

    This differs from the harness cons@k (``1 if c > k/2``): see
    ``kscore.counts.cons_at_k``.

    Reference: Wang, X., Wei, J., Schuurmans, D., et al. (2023).
    Self-Consistency Improves Chain of Thought Reasoning in Language Models.
    ICLR 2023, arXiv:2203.11171 (majority voting over sampled answers).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(maj_at_k(R, 1), 6)
        0.7
        >>> round(maj_at_k(R, 3), 6)
        0.85
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("maj_at_k", k))
