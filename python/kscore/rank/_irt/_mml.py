"""``rasch_mml`` and ``rasch_mml_credible``: the Rasch model by marginal
maximum likelihood (Bock-Aitkin EM over a Gauss-Hermite grid, abilities
N(0, 1)) with expected-a-posteriori scores, drop-in for scorio.rank 0.2.3's.

scorio runs ``em_iter`` EM iterations (20 by default) and solves each
item's M-step with L-BFGS and finite differences, one item at a time; the
scores are defined by that fixed number of iterations, not by the MML
optimum. kscore runs the same iterations from the same start with the
same E-step (scorio's clipped probabilities), each M-step solved exactly
(Newton on all items at once: the M-step is one convex problem per item).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._arrays import FloatArray
from .._ties import RankMethod, rank_scores
from . import _board
from ._checks import positive_int, quantile_in_unit
from ._rasch import IrtResult, result

#: scorio's guards: the logistic's argument is clipped to [-30, 30] and the
#: probabilities to [1e-10, 1 - 1e-10] (``_base.sigmoid``, the E-step).
_ARG = 30.0
_PROB = 1e-10


def quadrature(n: int) -> tuple[FloatArray, FloatArray]:
    """Gauss-Hermite nodes and weights for N(0, 1)."""
    x, w = np.polynomial.hermite.hermgauss(n)
    return np.sqrt(2.0) * x, w / np.sqrt(np.pi)


def _prob(diff: FloatArray) -> FloatArray:
    """scorio's clipped logistic."""
    p = 1.0 / (1.0 + np.exp(-np.clip(diff, -_ARG, _ARG)))
    return np.clip(p, _PROB, 1 - _PROB)


def posterior(k: FloatArray, N: int, beta: FloatArray, nodes: FloatArray, weights: FloatArray) -> FloatArray:  # noqa: N803
    """Each model's posterior over the nodes given the difficulties."""
    p = _prob(nodes[None, :] - beta[:, None])  # (M, Q)
    log_lik = k @ np.log(p) + (N - k) @ np.log(1 - p)  # (L, Q)
    log_lik -= log_lik.max(axis=1, keepdims=True)
    lik = np.exp(log_lik) * weights[None, :]
    return np.asarray(lik / lik.sum(axis=1, keepdims=True), dtype=np.float64)


def m_step(r: FloatArray, f: FloatArray, nodes: FloatArray, beta: FloatArray) -> FloatArray:
    """Each item's exact minimiser of
    ``-sum_q [r_qm log p_qm + (f_q - r_qm) log(1 - p_qm)]``,
    ``p_qm = sigmoid(theta_q - b_m)``, by Newton from the current ``beta``
    (convex in each ``b_m``; nodes where scorio's clips bind contribute
    nothing, as they contribute a constant to its objective)."""
    b = beta.copy()
    for _ in range(100):
        diff = nodes[None, :] - b[:, None]  # (M, Q)
        raw = 1.0 / (1.0 + np.exp(-np.clip(diff, -_ARG, _ARG)))
        live = (np.abs(diff) < _ARG) & (raw > _PROB) & (raw < 1 - _PROB)
        rq = r.T  # (M, Q)
        grad = np.where(live, rq - f[None, :] * raw, 0.0).sum(axis=1)
        curv = np.where(live, f[None, :] * raw * (1 - raw), 0.0).sum(axis=1)
        step = np.where(curv > 0, grad / np.where(curv > 0, curv, 1.0), 0.0)
        step = np.clip(step, -2.0, 2.0)
        b -= step
        if np.max(np.abs(step), initial=0.0) <= 1e-13 * (1.0 + np.max(np.abs(b), initial=0.0)):
            break
    return b


def estimate(
    k: FloatArray, N: int, max_iter: int, em_iter: int, n_quadrature: int  # noqa: N803
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """EAP abilities, difficulties, posteriors and nodes (scorio's
    ``_estimate_rasch_mml``): items all correct or all wrong get -inf/+inf
    and are left out of the fit."""
    L, M = k.shape
    totals = k.sum(axis=0)
    all_wrong = totals == 0.0
    all_correct = totals == float(L * N)
    informative = ~(all_wrong | all_correct)
    nodes, weights = quadrature(n_quadrature)
    if not np.all(informative):
        beta = np.empty(M, dtype=float)
        beta[all_wrong] = np.inf
        beta[all_correct] = -np.inf
        if np.any(informative):
            abilities, sub, post, nodes = estimate(k[:, informative], N, max_iter, em_iter, n_quadrature)
            beta[informative] = sub
            return abilities, beta, post, nodes
        post = np.repeat(weights[None, :], L, axis=0)
        return post @ nodes, beta, post, nodes
    # scorio's start: logits of the smoothed proportions, shifted by 0.01.
    p_lm = np.clip((k + 0.5) / (N + 1.0), 1e-6, 1 - 1e-6)
    q = p_lm.mean(axis=0)
    beta = -np.log((q + 0.01) / (1 - q + 0.01))
    for _ in range(em_iter):
        post = posterior(k, N, beta, nodes, weights)
        r = post.T @ k  # (Q, M): expected correct per node and item
        f = N * post.sum(axis=0)  # (Q,): expected trials per node
        beta = m_step(r, f, nodes, beta)
    post = posterior(k, N, beta, nodes, weights)
    return post @ nodes, beta, post, nodes


def posterior_sd(post: FloatArray, nodes: FloatArray) -> FloatArray:
    mean = post @ nodes
    return np.sqrt(np.maximum(post @ (nodes**2) - mean**2, 0.0))


def posterior_quantile(post: FloatArray, nodes: FloatArray, q: float) -> FloatArray:
    """The smallest node whose posterior CDF reaches ``q``."""
    order = np.argsort(nodes)
    cdf = np.cumsum(post[:, order], axis=1)
    at = np.minimum((cdf < q).sum(axis=1), nodes.size - 1)
    return np.asarray(nodes[order][at], dtype=np.float64)


def _counts(R: Any) -> tuple[FloatArray, int]:  # noqa: N803
    k, N = _board.counts(R)
    return k.astype(float), N


def rasch_mml(
    R: Any,  # noqa: N803
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 100,
    em_iter: int = 20,
    n_quadrature: int = 21,
    return_item_params: bool = False,
) -> IrtResult:
    r"""Rank models by Rasch EAP abilities after marginal maximum likelihood (EM).

    Abilities are integrated over N(0, 1) on ``n_quadrature`` Gauss-Hermite
    nodes; ``em_iter`` Bock-Aitkin EM iterations estimate the difficulties
    (each M-step solved exactly), and each model scores

    .. math::

        \hat\theta_l^{\mathrm{EAP}} = \sum_q w_{lq}\,\theta_q, \qquad
        w_{lq} \propto p(k_l \mid \theta_q, b)\, w_q .

    References:
        Bock, R. D., & Aitkin, M. (1981). Marginal maximum likelihood
        estimation of item parameters: Application of an EM algorithm.
        Psychometrika, 46(4), 443-459.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        method: tie rule.
        return_scores: also return the EAP abilities.
        max_iter: scorio's M-step iteration limit (validated; kscore's
            M-steps are exact Newton solves).
        em_iter: EM iterations.
        n_quadrature: Gauss-Hermite nodes (``>= 2``).
        return_item_params: also return ``{"difficulty": b, "ability_sd": sd}``.

    Returns:
        ranks, ``(ranks, eap)`` or ``(ranks, eap, params)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> rasch_mml(R).tolist()
        [1, 2]
    """
    positive_int("max_iter", max_iter)
    em_iter = positive_int("em_iter", em_iter)
    n_quadrature = positive_int("n_quadrature", n_quadrature, min_value=2)
    k, N = _counts(R)
    theta, beta, post, nodes = estimate(k, N, 0, em_iter, n_quadrature)
    scores = _board.average_by(theta, k.sum(axis=1, keepdims=True))
    params = {"difficulty": beta, "ability_sd": posterior_sd(post, nodes)} if return_item_params else None
    return result(scores, method, return_scores, params)


def rasch_mml_credible(
    R: Any,  # noqa: N803
    quantile: float = 0.05,
    method: RankMethod = "competition",
    return_scores: bool = False,
    max_iter: int = 100,
    em_iter: int = 20,
    n_quadrature: int = 21,
) -> Any:
    r"""Rank models by a quantile of their Rasch MML posterior.

    .. math::

        s_l = Q_q(\theta_l \mid R)

    on the discrete posterior of :func:`rasch_mml` (the smallest node whose
    posterior CDF reaches ``q``).

    References:
        Bock, R. D., & Aitkin, M. (1981), as :func:`rasch_mml`.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        quantile: ``q`` in ``(0, 1)``.
        method: tie rule.
        return_scores: also return the quantiles.
        max_iter: validated as scorio's M-step limit.
        em_iter: EM iterations.
        n_quadrature: Gauss-Hermite nodes.

    Returns:
        ranks, or ``(ranks, quantiles)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 0]], [[0, 0], [0, 1]], [[0, 0], [0, 0]]])
        >>> rasch_mml_credible(R, quantile=0.5).tolist()
        [1, 2, 3]
    """
    quantile_in_unit(quantile)
    positive_int("max_iter", max_iter)
    em_iter = positive_int("em_iter", em_iter)
    n_quadrature = positive_int("n_quadrature", n_quadrature, min_value=2)
    k, N = _counts(R)
    _, _, post, nodes = estimate(k, N, 0, em_iter, n_quadrature)
    scores = _board.average_by(posterior_quantile(post, nodes, quantile), k.sum(axis=1, keepdims=True))
    ranking = rank_scores(scores, method)
    return (ranking, scores) if return_scores else ranking
