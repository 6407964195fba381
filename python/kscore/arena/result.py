"""What ``kscore.arena`` returns: a rated board per view (overall, each
category, with and without style control), in rank order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._arrays import FloatArray, IntArray


@dataclass(frozen=True)
class Fragility:
    """How many battles must be removed to change #1: ``removed`` battles
    (greedy: an upper bound; ``exact``: the fewest, by exhaustive search on
    a small board), after which ``challenger`` leads ``top``; ``battles``:
    the removed ones as (model_a, model_b, result of model_a, count)."""

    top: str
    challenger: str | None
    removed: int | None
    exact: bool
    battles: list[tuple[str, str, float, int]] = field(default_factory=list)
    note: str = ""


@dataclass(frozen=True)
class ArenaBoard:
    """One rated board, best first. ``rating`` on the Elo scale (full
    precision), ``lo``/``hi`` its interval at ``confidence``, ``se`` its
    standard error; ``rank`` LMArena's (1 + models whose lower bound is
    above this upper bound); ``rank_lo``/``rank_hi`` kscore's simultaneous
    rank sets (all models' hold together at ``confidence``);
    ``could_be_best`` the models whose set holds 1; ``win_prob[i][j]`` the
    probability that model ``i`` beats ``j`` (ties as half); ``covariance``
    the ratings' (Elo^2; None for bootstrap intervals, which keep
    ``rounds``)."""

    title: str
    models: list[str]
    rating: FloatArray
    lo: FloatArray
    hi: FloatArray
    se: FloatArray
    rank: IntArray
    rank_lo: IntArray
    rank_hi: IntArray
    could_be_best: list[str]
    battles: IntArray
    win_prob: FloatArray
    covariance: FloatArray | None
    intervals: str
    confidence: float
    rounds: int = 0
    style: dict[str, tuple[float, float, float]] | None = None
    fragility: Fragility | None = None
    notes: list[str] = field(default_factory=list)
    bootstrap: FloatArray | None = None

    def records(self) -> list[dict[str, Any]]:
        """One record per model: model, rating, lo, hi, rank, rank_lo,
        rank_hi, se, battles, could_be_best (full precision)."""
        best = set(self.could_be_best)
        return [{"model": m, "rating": float(self.rating[i]), "lo": float(self.lo[i]), "hi": float(self.hi[i]),
                 "rank": int(self.rank[i]), "rank_lo": int(self.rank_lo[i]), "rank_hi": int(self.rank_hi[i]),
                 "se": float(self.se[i]), "battles": int(self.battles[i]), "could_be_best": m in best}
                for i, m in enumerate(self.models)]


@dataclass(frozen=True)
class ArenaResult:
    """``board``: the ratings asked for (style-controlled when style
    features were given); ``without_style``: the same battles without style
    control, to show beside it; ``categories``: a board per value of the
    ``by`` column; ``warnings``: rows skipped and other data problems."""

    board: ArenaBoard
    without_style: ArenaBoard | None = None
    categories: dict[str, ArenaBoard] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    options: dict[str, Any] = field(default_factory=dict)

    def records(self) -> list[dict[str, Any]]:
        """The main board's records (:meth:`ArenaBoard.records`)."""
        return self.board.records()
