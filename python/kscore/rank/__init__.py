"""kscore.rank: scorio.rank 0.2.3's rankers by an evaluation metric, drop-in.

``avg``, ``bayes``, ``pass_at_k``, ``pass_hat_k``, ``g_pass_at_k_tau``,
``mg_pass_at_k`` and ``thompson`` with scorio's signatures, defaults, tie
rules (``method``: ``"competition"``, ``"competition_max"``, ``"dense"``,
``"avg"``), ``return_scores``, exception types and messages. The scores are
the :mod:`kscore.eval` metrics of each model, computed in the Rust core;
``thompson`` makes scorio's draws for the same seed.

The voting rules (``borda``, ``copeland``, ``win_rate``, ``minimax``,
``schulze``, ``ranked_pairs``, ``kemeny_young``, ``nanson``, ``baldwin``,
``majority_judgment``), the graph and spectral rankers (``pagerank``,
``spectral``, ``alpharank``, ``nash``, ``rank_centrality``, ``serial_rank``,
``hodge_rank``) and ``inverse_difficulty`` start from counts made in one
pass of the Rust core (:mod:`kscore.rank._board`), and return their exact
fixed points where scorio iterates to a tolerance (docs/rank.md).

Examples:
    >>> import numpy as np
    >>> from kscore import rank
    >>> R = np.array([[[1, 1], [0, 1]], [[1, 0], [0, 0]], [[1, 0], [0, 0]]])
    >>> rank.avg(R).tolist(), rank.avg(R, method="dense").tolist()
    ([1, 2, 2], [1, 2, 2])
"""

from ._graph import alpharank, nash, pagerank, spectral
from ._hodge_rank import hodge_rank
from ._kemeny import kemeny_young
from ._metrics import avg, bayes, g_pass_at_k_tau, mg_pass_at_k, pass_at_k, pass_hat_k
from ._pointwise import inverse_difficulty
from ._rank_centrality import rank_centrality
from ._serial_rank import serial_rank
from ._thompson import thompson
from ._voting import baldwin, borda, copeland, majority_judgment, minimax, nanson, ranked_pairs, schulze, win_rate

__all__ = [
    "avg",
    "bayes",
    "pass_at_k",
    "pass_hat_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "thompson",
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
