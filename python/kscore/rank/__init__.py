"""kscore.rank: scorio.rank 0.2.3's rankers by an evaluation metric, drop-in.

``avg``, ``bayes``, ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau``,
``mg_pass_at_k`` and ``thompson`` with scorio's signatures, defaults, tie
rules (``method``: ``"competition"``, ``"competition_max"``, ``"dense"``,
``"avg"``), ``return_scores``, exception types and messages. The scores are
the :mod:`kscore.eval` metrics of each model, computed in the Rust core;
``thompson`` makes scorio's draws for the same seed.

The item response theory rankers (``rasch``, ``rasch_map``, ``rasch_2pl``,
``rasch_2pl_map``, ``rasch_3pl``, ``rasch_3pl_map``, ``rasch_mml``,
``rasch_mml_credible``, ``dynamic_irt``, ``mirt``) fit scorio's models to
their exact optimum (docs/rank.md, "Item response theory").

scorio.rank's other methods (Bradley-Terry and Luce families, Elo, Glicko,
TrueSkill, voting rules, graph and spectral methods, MCMC) are out of
scope (docs/rank.md).

Examples:
    >>> import numpy as np
    >>> from kscore import rank
    >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    >>> rank.avg(R).tolist(), rank.avg(R, method="dense").tolist()
    ([1, 2, 2], [1, 2, 2])
"""

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
from ._metrics import avg, bayes, g_pass_at_k_tau, mg_pass_at_k, pass_at_k, pass_hat_k
from ._thompson import thompson

__all__ = ["avg", "bayes", "pass_at_k", "pass_hat_k", "g_pass_at_k_tau", "mg_pass_at_k", "thompson"]
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
