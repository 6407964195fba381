"""G-Pass@k, G-Pass@k_tau and mG-Pass@k (Liu et al., 2024, arXiv:2412.13147)."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from .._inputs import binary_bank, tau_double, validate_finite_k, validate_tau
from ._pass import pass_hat_k


def g_pass_at_k(R: Any, k: int) -> float:
    r"""G-Pass@k: all ``k`` selected trials correct; equal to :func:`pass_hat_k`.

    .. math::

        \mathrm{G\text{-}Pass@}k = \frac{1}{M}\sum_\alpha
            \frac{\binom{\nu_\alpha}{k}}{\binom{N}{k}}

    Reference: Liu, J., Liu, H., Xiao, L., et al. (2024). Are Your LLMs
    Capable of Stable Reasoning? arXiv:2412.13147 (Findings of ACL 2025).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(g_pass_at_k(R, 2), 6)
        0.45
    """
    return pass_hat_k(R, k)


def g_pass_at_k_tau(R: Any, k: int, tau: float) -> float:
    r"""G-Pass@k_tau: at least :math:`j_0` of the ``k`` selected trials correct.

    :math:`j_0 = \max(1, \lceil \tau k \rceil)`, evaluated as the smallest
    ``j`` whose double ``j/k`` is at least ``tau`` (so ``tau = 0.3, k = 10``
    needs 3). ``tau = 0`` is Pass@k and ``tau = 1`` is Pass^k.

    .. math::

        \mathrm{G\text{-}Pass@}k_\tau = \frac{1}{M}\sum_\alpha \sum_{j=j_0}^{k}
            \frac{\binom{\nu_\alpha}{j}\binom{N-\nu_\alpha}{k-j}}{\binom{N}{k}}

    Reference: Liu, J., et al. (2024). Are Your LLMs Capable of Stable
    Reasoning? arXiv:2412.13147 (see :func:`g_pass_at_k`).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(g_pass_at_k_tau(R, 2, 0.5), 6)
        0.95
        >>> round(g_pass_at_k_tau(R, 2, 1.0), 6)
        0.45
    """
    bank = binary_bank(R)
    validate_tau(tau)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("g_pass_at_k_tau", k, tau_double(tau, k)))


def mg_pass_at_k(R: Any, k: int) -> float:
    r"""mG-Pass@k: the mean of G-Pass@k_tau over :math:`\tau \in [1/2, 1]`.

    With :math:`m = \lceil k/2 \rceil` and X the successes among the ``k``
    selected trials (hypergeometric):

    .. math::

        \mathrm{mG\text{-}Pass@}k = \frac{1}{M}\sum_\alpha
            \frac{2}{k}\,\mathbb{E}[\max(X - m, 0)]

    mG-Pass@1 is identically 0.

    Reference: Liu, J., et al. (2024). Are Your LLMs Capable of Stable
    Reasoning? arXiv:2412.13147 (see :func:`g_pass_at_k`).

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(mg_pass_at_k(R, 2), 6)
        0.45
        >>> round(mg_pass_at_k(R, 3), 6)
        0.166667
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("mg_pass_at_k", k))
