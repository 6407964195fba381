"""kscore.aggregate: scorio.aggregate 0.2.3's answer selection, drop-in, fast for many
questions at once.

Each rule takes one question's candidates (``(N,)``) or many questions' (``(M, N)``)
and returns scorio's selection, index and score: same names, keywords, defaults, tie
rules (earliest appearance) and messages. Answers given as an array of ids, numbers
or strings are grouped in the core, one hash table per question; lists and object
arrays by a dict per question (Python's equality: ``1``, ``1.0`` and ``True`` are one
answer). The votes of all questions are counted in one pass of the core
(docs/aggregate.md). The online stopping rules (stopping.py), CGES (cges.py) and the
KDE-calibrated vote (kde.py) are scorio's too; the stopping rules, one question at a
time in scorio, also come as ``*_batch`` forms (a decision per row of an ``(M, N)``
batch) and as an offline replay of the online loop (``adaptive_consistency_stop_points``).
"""

from .best_of import best_of_majority, best_of_n, majority_of_the_bests, mob
from .cges import CGES_OTHER, cges_stop, cges_stop_batch, cges_vote
from .confidence import (
    deepconf_confidence,
    logprob_margin,
    max_softmax_probability,
    mean_logprob,
    perplexity,
    picsar,
    self_certainty,
    sequence_logprob,
    token_confidence,
    token_entropy,
    varentropy,
)
from .deepconf import deepconf_online_stop, deepconf_stop_threshold
from .kde import KDEVoteCalibration, fit_kde_vote_calibration, kde_weighted_vote
from .prm import prm_aggregate
from .stopping import (
    adaptive_consistency_crp_stop,
    adaptive_consistency_dirichlet_stop,
    adaptive_consistency_dirichlet_stop_batch,
    adaptive_consistency_stop,
    adaptive_consistency_stop_batch,
    adaptive_consistency_stop_points,
    esc_stop,
    esc_stop_batch,
)
from .vote import (
    filtered_vote,
    logit_weighted_vote,
    majority_vote,
    rank_weighted_vote,
    softmax_weighted_vote,
    weighted_majority_vote,
)

__all__ = [
    "best_of_n",
    "majority_of_the_bests",
    "mob",
    "best_of_majority",
    "majority_vote",
    "weighted_majority_vote",
    "softmax_weighted_vote",
    "rank_weighted_vote",
    "logit_weighted_vote",
    "filtered_vote",
    # agg-signals: confidence signals, PRM reduction, DeepConf online (token-level;
    # batch=True or lengths= for many traces at once)
    "mean_logprob",
    "sequence_logprob",
    "perplexity",
    "self_certainty",
    "token_confidence",
    "deepconf_confidence",
    "token_entropy",
    "varentropy",
    "max_softmax_probability",
    "logprob_margin",
    "picsar",
    "prm_aggregate",
    "deepconf_stop_threshold",
    "deepconf_online_stop",
    # online stopping, CGES and the KDE-calibrated vote (stopping.py, cges.py, kde.py);
    # the *_batch names: one decision per row of an (M, N) batch (kscore only)
    "adaptive_consistency_stop",
    "adaptive_consistency_dirichlet_stop",
    "adaptive_consistency_crp_stop",
    "esc_stop",
    "adaptive_consistency_stop_batch",
    "adaptive_consistency_dirichlet_stop_batch",
    "esc_stop_batch",
    "adaptive_consistency_stop_points",
    "CGES_OTHER",
    "cges_vote",
    "cges_stop",
    "cges_stop_batch",
    "KDEVoteCalibration",
    "fit_kde_vote_calibration",
    "kde_weighted_vote",
]
