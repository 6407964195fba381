"""scorio.rank 0.2.3's item response theory rankers, drop-in: Rasch, 2PL and
3PL by joint likelihood and MAP, Rasch by marginal likelihood (EAP and
credible quantiles), dynamic IRT and multidimensional IRT (docs/rank.md)."""

from ._dynamic import dynamic_irt
from ._logistic import rasch_2pl, rasch_2pl_map, rasch_3pl, rasch_3pl_map
from ._mirt import mirt
from ._mml import rasch_mml, rasch_mml_credible
from ._rasch import rasch, rasch_map

__all__ = [
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
