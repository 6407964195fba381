r"""Rankers by an evaluation metric: scorio.rank 0.2.3's ``avg``, ``bayes``,
``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau`` and ``mg_pass_at_k``.

Each model :math:`l` of an :math:`L \times M \times N` tensor gets the
:mod:`kscore.eval` metric of its :math:`M \times N` matrix as its score,
computed for all models at once in the Rust core (:func:`kscore.counts.model_scores`,
:func:`kscore.eval.bayes` per model), then ranked with scorio's tie rules.
A budget ``k`` or a ``tau`` that the metric refuses raises the
:mod:`kscore.eval` error of the first model, as scorio's loop over models does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .. import counts as _counts
from .. import eval as _eval
from .._inputs import normalize_weights
from ._ties import RankMethod, rank_scores
from ._validate import is_binary, prior_outcomes, quantile_value, response_tensor

#: ``ranking``, or ``(ranking, scores)`` with ``return_scores=True``.
RankResult = npt.NDArray[Any] | tuple[npt.NDArray[Any], npt.NDArray[np.float64]]

_BINARY = np.array([0.0, 1.0])
_BINARY.setflags(write=False)

_Budgeted = Literal["pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k"]


def _result(scores: npt.NDArray[np.float64], method: str, return_scores: bool) -> RankResult:
    ranking = rank_scores(scores, method)
    return (ranking, scores) if return_scores else ranking


def _budgeted_scores(
    R: npt.NDArray[Any], metric: _Budgeted, one: Callable[[npt.NDArray[Any]], float], k: Any, tau: Any = None
) -> npt.NDArray[np.float64]:
    """The metric of every model; the first model's kscore.eval call first,
    which raises scorio's error for a bad k or tau (all models share N)."""
    one(R[0])
    L = R.shape[0]
    try:
        scores = np.asarray(_counts.model_scores(R, metric, k, tau=tau), dtype=np.float64)
        if scores.shape == (L,):
            return scores
    except (TypeError, ValueError, OverflowError):
        pass
    # An argument kscore.eval takes in a form the batch does not: model by model.
    return np.array([one(R[model]) for model in range(L)], dtype=np.float64)


def avg(R: Any, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by mean accuracy over all questions and trials.

    .. math::

        s_l = \frac{1}{MN} \sum_{m=1}^{M} \sum_{n=1}^{N} R_{lmn}

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)`` (``N = 1``).
        method: tie rule: ``"competition"``, ``"competition_max"``, ``"dense"``
            or ``"avg"``.
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)`` (1 = best), or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]]])
        >>> ranks, scores = avg(R, return_scores=True)
        >>> ranks.tolist(), scores.round(3).tolist()
        ([1, 2], [0.75, 0.25])
    """
    tensor = response_tensor(R)
    scores = np.asarray(_counts.model_scores(tensor, "avg_at_n"), dtype=np.float64)
    return _result(scores, method, return_scores)


def bayes(
    R: Any,  # noqa: N803
    w: Any = None,
    R0: Any = None,  # noqa: N803
    quantile: float | None = None,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by their Bayes@N posterior mean, or a posterior quantile.

    Each model's :math:`(\mu_l, \sigma_l)` is :func:`kscore.eval.bayes` of its
    matrix (with the shared or its own prior outcomes ``R0``), and

    .. math::

        s_l = \mu_l \quad\text{or}\quad s_l = \mu_l + \Phi^{-1}(q)\,\sigma_l .

    Reference: Hariri, M., Samandar, A., Hinczewski, M., & Chaudhary, V.
    (2026). Don't Pass@k: A Bayesian Framework for Large Language Model
    Evaluation. ICLR 2026.

    Args:
        R: categorical ``(L, M, N)`` tensor (or ``(L, M)``) of integers ``0..C``.
        w: rewards of the ``C + 1`` categories (default ``[0, 1]`` for binary R).
        R0: prior outcomes, shared ``(M, D)`` or per model ``(L, M, D)``.
        quantile: rank by ``mu + ndtri(q) sigma`` for ``q`` in (0, 1) instead of ``mu``.
        method: tie rule (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 0], [1, 1], [0, 0]], [[0, 0], [1, 0], [1, 1]]])
        >>> R0 = np.array([[1, 1], [0, 1], [0, 0]])
        >>> ranks, scores = bayes(R, w=np.array([0.0, 1.0]), R0=R0, return_scores=True)
        >>> ranks.tolist(), scores.round(4).tolist()
        ([1, 1], [0.5, 0.5])
    """
    tensor = response_tensor(R, binary_only=False)
    L, M, _ = tensor.shape
    q = None if quantile is None else quantile_value(quantile)
    prior = None if R0 is None else prior_outcomes(R0, L, M)

    def prior_of(model: int) -> npt.NDArray[np.int_] | None:
        return prior if prior is None or prior.ndim == 2 else prior[model]

    # Rewards as one float64 vector for every model's call (its one-call
    # path); the user's own w if anything fails, so that the first failing
    # model raises scorio's error in scorio's order.
    weights: Any = w
    try:
        if w is not None:
            weights = normalize_weights(w)
        elif is_binary(tensor):
            weights = _BINARY
    except ValueError:
        weights = w
    try:
        pairs = [_eval.bayes(tensor[model], weights, prior_of(model)) for model in range(L)]
    except Exception:
        if weights is w:
            raise
        for model in range(L):
            _eval.bayes(tensor[model], w, prior_of(model))
        raise
    moments = np.array(pairs, dtype=np.float64)
    if q is None:
        scores = moments[:, 0].copy()
    else:
        scores = moments[:, 0] + _kscore.ndtri(q) * moments[:, 1]
    return _result(scores, method, return_scores)


def pass_at_k(R: Any, k: int, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by Pass@k, averaged over questions.

    .. math::

        s_l = \frac{1}{M} \sum_{m=1}^{M}
            \left(1 - \binom{N - \nu_{lm}}{k} \Big/ \binom{N}{k}\right),
        \qquad \nu_{lm} = \sum_n R_{lmn}

    Reference: Chen, M., et al. (2021). Evaluating Large Language Models
    Trained on Code. arXiv:2107.03374.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        k: budget, ``1 <= k <= N``.
        method: tie rule (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1, 0], [0, 1, 0]], [[1, 0, 0], [0, 0, 0]]])
        >>> pass_at_k(R, k=2).tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    scores = _budgeted_scores(tensor, "pass_at_k", lambda x: _eval.pass_at_k(x, k), k)
    return _result(scores, method, return_scores)


def pass_hat_k(R: Any, k: int, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by Pass^k (all k draws correct), averaged over questions.

    .. math::

        s_l = \frac{1}{M} \sum_{m=1}^{M} \binom{\nu_{lm}}{k} \Big/ \binom{N}{k}

    Reference: Yao, S., et al. (2024). tau-bench. arXiv:2406.12045.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        k: budget, ``1 <= k <= N``.
        method: tie rule (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1, 0], [0, 1, 0]], [[1, 0, 0], [0, 0, 0]]])
        >>> pass_hat_k(R, k=1).tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    scores = _budgeted_scores(tensor, "pass_hat_k", lambda x: _eval.pass_hat_k(x, k), k)
    return _result(scores, method, return_scores)


def g_pass_at_k_tau(
    R: Any,  # noqa: N803
    k: int,
    tau: float,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by G-Pass@k_tau: at least ``max(1, ceil(tau k))`` of k draws correct.

    .. math::

        s_l = \frac{1}{M} \sum_{m=1}^{M}
            \Pr\big(X_{lm} \ge \max(1, \lceil \tau k \rceil)\big),
        \qquad X_{lm} \sim \mathrm{Hypergeom}(N, \nu_{lm}, k)

    Reference: Liu, J., et al. (2025). Are Your LLMs Capable of Stable
    Reasoning? Findings of ACL 2025.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        k: budget, ``1 <= k <= N``.
        tau: threshold in [0, 1].
        method: tie rule (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1, 0], [0, 1, 0]], [[1, 0, 0], [0, 0, 0]]])
        >>> g_pass_at_k_tau(R, k=2, tau=1.0).tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    scores = _budgeted_scores(
        tensor, "g_pass_at_k_tau", lambda x: _eval.g_pass_at_k_tau(x, k, tau), k, tau
    )
    return _result(scores, method, return_scores)


def mg_pass_at_k(R: Any, k: int, method: RankMethod = "competition", return_scores: bool = False) -> RankResult:  # noqa: N803
    r"""Rank models by mG-Pass@k, G-Pass@k_tau summed over the thresholds of
    ``tau`` in (0.5, 1].

    With :math:`m_0 = \lceil k/2 \rceil` (scorio's discrete sum, the same
    value as :func:`kscore.eval.mg_pass_at_k`):

    .. math::

        s_l = \frac{1}{M} \sum_{m=1}^{M} \frac{2}{k}
            \sum_{i=m_0+1}^{k} \Pr(X_{lm} \ge i)
            = \frac{1}{M} \sum_{m=1}^{M} \frac{2}{k}\,
            \mathbb{E}\big[(X_{lm} - m_0)_+\big]

    Reference: Liu, J., et al. (2025). Are Your LLMs Capable of Stable
    Reasoning? Findings of ACL 2025.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        k: budget, ``1 <= k <= N``.
        method: tie rule (see :func:`avg`).
        return_scores: also return the scores.

    Returns:
        The ranks ``(L,)``, or ``(ranks, scores)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1, 0], [0, 1, 0]], [[1, 0, 0], [0, 0, 0]]])
        >>> ranks, scores = mg_pass_at_k(R, k=2, return_scores=True)
        >>> ranks.tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    scores = _budgeted_scores(tensor, "mg_pass_at_k", lambda x: _eval.mg_pass_at_k(x, k), k)
    return _result(scores, method, return_scores)
