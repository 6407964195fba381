"""kscore.rank: scorio.rank 0.2.3's rankers by an evaluation metric, drop-in.

``avg``, ``bayes``, ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau``,
``mg_pass_at_k`` and ``thompson`` with scorio's signatures, defaults, tie
rules (``method``: ``"competition"``, ``"competition_max"``, ``"dense"``,
``"avg"``), ``return_scores``, exception types and messages. The scores are
the :mod:`kscore.eval` metrics of each model, computed in the Rust core;
``thompson`` makes scorio's draws for the same seed.

scorio.rank's other methods (Bradley-Terry and Luce families, Elo, Glicko,
TrueSkill, IRT, voting rules, graph and spectral methods, MCMC) are out of
scope (docs/rank.md).

Examples:
    >>> import numpy as np
    >>> from kscore import rank
    >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    >>> rank.avg(R).tolist(), rank.avg(R, method="dense").tolist()
    ([1, 2, 2], [1, 2, 2])
"""

from ._metrics import avg, bayes, g_pass_at_k_tau, mg_pass_at_k, pass_at_k, pass_hat_k
from ._priors import CauchyPrior, CustomPrior, EmpiricalPrior, GaussianPrior, LaplacePrior, Prior, UniformPrior
from ._thompson import thompson

__all__ = ["avg", "bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k", "thompson"]
# rank-fit: the priors of the MAP rankers.
__all__ += ["Prior", "GaussianPrior", "LaplacePrior", "CauchyPrior", "UniformPrior", "CustomPrior", "EmpiricalPrior"]
