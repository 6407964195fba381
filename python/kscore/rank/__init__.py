"""kscore.rank: scorio.rank 0.2.3's rankers by an evaluation metric, drop-in.

``avg``, ``bayes``, ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau``,
``mg_pass_at_k`` and ``thompson`` with scorio's signatures, defaults, tie
rules (``method``: ``"competition"``, ``"competition_max"``, ``"dense"``,
``"avg"``), ``return_scores``, exception types and messages. The scores are
the :mod:`kscore.eval` metrics of each model, computed in the Rust core;
``thompson`` makes scorio's draws for the same seed.

The paired-comparison and Luce-family models (Bradley-Terry, Davidson,
Rao-Kupper, Plackett-Luce, Davidson-Luce, Bradley-Terry-Luce, with priors)
are fitted to their exact optimum by Newton's method in the Rust core; Elo,
Glicko and TrueSkill run scorio's event order in the core; ``bayesian_mcmc``
makes scorio's chain for the same seed (docs/rank.md).

Examples:
    >>> import numpy as np
    >>> from kscore import rank
    >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    >>> rank.avg(R).tolist(), rank.avg(R, method="dense").tolist()
    ([1, 2, 2], [1, 2, 2])
"""

from ._luce import (
    bradley_terry_luce,
    bradley_terry_luce_map,
    davidson_luce,
    davidson_luce_map,
    plackett_luce,
    plackett_luce_map,
)
from ._mcmc import bayesian_mcmc
from ._metrics import avg, bayes, g_pass_at_k_tau, mg_pass_at_k, pass_at_k, pass_hat_k
from ._paired import (
    bradley_terry,
    bradley_terry_davidson,
    bradley_terry_davidson_map,
    bradley_terry_map,
    rao_kupper,
    rao_kupper_map,
)
from ._priors import CauchyPrior, CustomPrior, EmpiricalPrior, GaussianPrior, LaplacePrior, Prior, UniformPrior
from ._ratings import elo, glicko, trueskill
from ._thompson import thompson

__all__ = ["avg", "bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k", "thompson"]
# rank-fit: the fitted rankers, their priors, the rating systems and the sampler.
__all__ += ["Prior", "GaussianPrior", "LaplacePrior", "CauchyPrior", "UniformPrior", "CustomPrior", "EmpiricalPrior"]
__all__ += [
    "bradley_terry",
    "bradley_terry_map",
    "bradley_terry_davidson",
    "bradley_terry_davidson_map",
    "rao_kupper",
    "rao_kupper_map",
    "plackett_luce",
    "plackett_luce_map",
    "davidson_luce",
    "davidson_luce_map",
    "bradley_terry_luce",
    "bradley_terry_luce_map",
    "elo",
    "glicko",
    "trueskill",
    "bayesian_mcmc",
]
