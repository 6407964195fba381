"""AUC@k: the trapezoid area under the Pass@j curve, j = 1..k."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from .._inputs import binary_bank, validate_finite_k


def auc_at_k(R: Any, k: int) -> float:
    r"""AUC@k: trapezoid mean of Pass@1, ..., Pass@k.

    .. math::

        \mathrm{AUC@k} = \sum_{j=1}^{k} c_j\,\mathrm{Pass@}j,\qquad
        c_1 = c_k = \frac{1}{2(k-1)},\ c_j = \frac{1}{k-1}\ (1<j<k),

    and AUC@1 = Pass@1. kscore evaluates it as one credit vector in closed
    form, :math:`A_s = 1 - \frac{(k-s)(2k-s-1)}{2k(s+1)(k-1)}` for s successes
    among k draws (s >= 1, :math:`A_0 = 0`), in O(k) instead of scorio's
    O(k^2) hypergeometric grid, and to 1e-16 rather than 4e-15
    (docs/kernels.md, K1).

    Reference: Hu, Z., et al. (2026). Rewarding the Rare: Uniqueness-Aware
    RL for Creative Problem Solving in LLMs. arXiv:2601.08763 (Eq. 7, the
    trapezoid weights).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(auc_at_k(R, 1), 6)
        0.7
        >>> round(auc_at_k(R, 3), 6)
        0.9
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("auc_at_k", k))
