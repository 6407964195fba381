"""Pass@k and Pass^k on the observed finite bank."""

from __future__ import annotations

from typing import Any

from .. import _kscore
from .._inputs import binary_bank, validate_finite_k


def pass_at_k(R: Any, k: int) -> float:
    r"""Unbiased Pass@k estimator (Chen et al., 2021).

    The probability that at least one of ``k`` trials drawn without
    replacement from the ``N`` observed ones is correct, averaged over the
    ``M`` questions. With :math:`\nu_\alpha = \sum_i R_{\alpha i}`:

    .. math::

        \mathrm{Pass@k} = \frac{1}{M}\sum_{\alpha=1}^{M}
            \left(1 - \frac{\binom{N-\nu_\alpha}{k}}{\binom{N}{k}}\right)

    Reference: Chen, M., Tworek, J., Jun, H., et al. (2021). Evaluating Large
    Language Models Trained on Code. arXiv:2107.03374.

    Args:
        R: :math:`M \times N` binary matrix (1-D is one question).
        k: Number of samples to select, :math:`1 \le k \le N`.

    Returns:
        float: the average Pass@k.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(pass_at_k(R, 1), 6)
        0.7
        >>> round(pass_at_k(R, 2), 6)
        0.95
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("pass_at_k", k))


def pass_hat_k(R: Any, k: int) -> float:
    r"""Pass^k (Pass-hat@k): the probability that all ``k`` selected trials
    are correct, also called G-Pass@k with :math:`\tau = 1` and Unanimous@k.

    .. math::

        \mathrm{Pass\hat{}k} = \frac{1}{M}\sum_{\alpha=1}^{M}
            \frac{\binom{\nu_\alpha}{k}}{\binom{N}{k}}

    Reference: Yao, S., Shinn, N., Razavi, P., & Narasimhan, K. (2024).
    tau-bench: A Benchmark for Tool-Agent-User Interaction in Real-World
    Domains. arXiv:2406.12045.

    Args:
        R: :math:`M \times N` binary matrix.
        k: Number of samples to select, :math:`1 \le k \le N`.

    Returns:
        float: the average Pass^k.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[0, 1, 1, 0, 1],
        ...               [1, 1, 0, 1, 1]])
        >>> round(pass_hat_k(R, 1), 6)
        0.7
        >>> round(pass_hat_k(R, 2), 6)
        0.45
    """
    bank = binary_bank(R)
    k = validate_finite_k(bank.n, k)
    return bank.mean(_kscore.Credit.of("pass_hat_k", k))


#: Unanimous@k is the same function as :func:`pass_hat_k`.
unanimous_at_k = pass_hat_k
