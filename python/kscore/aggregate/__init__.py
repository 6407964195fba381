"""kscore.aggregate: scorio.aggregate 0.2.3's answer selection, drop-in, for many questions at once."""

from .vote import (
    filtered_vote,
    logit_weighted_vote,
    majority_vote,
    rank_weighted_vote,
    softmax_weighted_vote,
    weighted_majority_vote,
)

__all__ = [
    "majority_vote",
    "weighted_majority_vote",
    "softmax_weighted_vote",
    "rank_weighted_vote",
    "logit_weighted_vote",
    "filtered_vote",
]
