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

The voting rules (``borda``, ``copeland``, ``win_rate``, ``minimax``,
``schulze``, ``ranked_pairs``, ``kemeny_young``, ``nanson``, ``baldwin``,
``majority_judgment``), the graph and spectral rankers (``pagerank``,
``spectral``, ``alpharank``, ``nash``, ``rank_centrality``, ``serial_rank``,
``hodge_rank``) and ``inverse_difficulty`` start from counts made in one
pass of the Rust core (:mod:`kscore.rank._board`), and return their exact
fixed points where scorio iterates to a tolerance (docs/rank.md).

The item response theory rankers (``rasch``, ``rasch_map``, ``rasch_2pl``,
``rasch_2pl_map``, ``rasch_3pl``, ``rasch_3pl_map``, ``rasch_mml``,
``rasch_mml_credible``, ``dynamic_irt``, ``mirt``) fit scorio's models to
their exact optimum (docs/rank.md, "Item response theory").

Examples:
    >>> import numpy as np
    >>> from kscore import rank
    >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    >>> rank.avg(R).tolist(), rank.avg(R, method="dense").tolist()
    ([1, 2, 2], [1, 2, 2])
"""

from ._graph import alpharank, nash, pagerank, spectral
from ._hodge_rank import hodge_rank
from ._irt import (
    dynamic_irt,
    mirt,
    rasch,
    rasch_2pl,
    rasch_2pl_map,
    rasch_3pl,
    rasch_3pl_map,
    rasch_map,
    rasch_mml,
    rasch_mml_credible,
)
from ._kemeny import kemeny_young
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
from ._pointwise import inverse_difficulty
from ._priors import CauchyPrior, CustomPrior, EmpiricalPrior, GaussianPrior, LaplacePrior, Prior, UniformPrior
from ._rank_centrality import rank_centrality
from ._ratings import elo, glicko, trueskill
from ._serial_rank import serial_rank
from ._thompson import thompson
from ._voting import baldwin, borda, copeland, majority_judgment, minimax, nanson, ranked_pairs, schulze, win_rate

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
    # rank-rest: pointwise, voting, graph
    "inverse_difficulty",
    "borda",
    "copeland",
    "win_rate",
    "minimax",
    "schulze",
    "ranked_pairs",
    "kemeny_young",
    "nanson",
    "baldwin",
    "majority_judgment",
    "pagerank",
    "spectral",
    "alpharank",
    "nash",
    "rank_centrality",
    "serial_rank",
    "hodge_rank",
]
# Item response theory (python/kscore/rank/_irt/).
__all__ += [
    "rasch",
    "rasch_map",
    "rasch_mml",
    "rasch_mml_credible",
    "rasch_2pl",
    "rasch_2pl_map",
    "rasch_3pl",
    "rasch_3pl_map",
    "dynamic_irt",
    "mirt",
]
