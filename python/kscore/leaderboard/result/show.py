"""What a board's outputs show beyond its rows, asked for before the run
(:class:`Show`) and computed with the board (:class:`Shown`, in
``Leaderboard.shown``): the design diagnostics, the pairs the JSON holds,
the page's matrix, comparisons on demand and each model against the next,
the pass@k curves, one pair compared on every metric. Showing a finished
board then computes nothing (kscore.present renders what is here; issue
34). The sizes that decide what is computed are here too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._issues import LeaderboardError
from ..stats.compare import Comparison, Pairwise
from ..stats.plan import Plan

#: ``--pairwise auto``: every pair up to this many models, else adjacent ones.
AUTO_ALL_PAIRS = 200
#: The most models whose every pair the JSON holds in memory.
JSON_ALL_PAIRS = 2000
#: The page's pairwise matrix: every pair of the first this many models
#: (more would be a matrix nobody reads and a page growing as L^2); the
#: table's "vs next" column gives each model against the next.
MATRIX_MODELS = 40
#: The curves drawn: those of the first this many models shown.
CURVE_MODELS = 200


@dataclass
class Curve:
    """One model's curve (pass@k against k): a point per k, with a band."""

    k: list[int]
    value: list[float]
    lo: list[float]
    hi: list[float]


@dataclass(frozen=True)
class Show:
    """What the outputs will show beyond the rows of the first ``top``
    models: the design diagnostics (``plan``, at ``power``) of the board and
    of each group (``plan_groups``); the pairs of the JSON (``pairs``: the
    kind of ``--pairwise``, ``auto``, ``all``, ``adjacent``, ``top`` with
    ``pairs_top``, ``none``; None: no pairs); the page's matrix, comparisons
    on demand and "vs next" (``page``); the pass@k curves (``curves``);
    model ``compare[0]`` minus ``compare[1]`` on every metric, in the board
    and each group holding both."""

    top: int | None = None
    plan: bool = False
    plan_groups: bool = False
    power: float = 0.8
    pairs: str | None = None
    pairs_top: int | None = None
    page: bool = False
    curves: bool = False
    compare: tuple[str, str] | None = None


@dataclass
class Shown:
    """What :class:`Show` asked for, computed (None where not asked).

    ``plan``: the board's design diagnostics; ``pairs_kind``: the JSON's
    kind of pairs for this board (``auto`` resolved), ``pairwise`` the
    matrices of every pair (kind ``all``, as JSON-ready lists),
    ``pair_rows`` the rows of the others, ``too_many_pairs`` where every
    pair was asked of more models than :data:`JSON_ALL_PAIRS`; the page's
    ``matrix`` of the first models with ``significant`` (by the board's
    rule), ``compare_data`` (every model against any other, in the page's
    script) and ``adjacent`` (each model against the next shown); each shown
    model's ``curves``; ``comparisons``: one per metric; ``error``: what
    the board could not answer (raised when shown)."""

    show: Show
    plan: Plan | None = None
    pairs_kind: str | None = None
    pairwise: dict[str, Any] | None = None
    pair_rows: list[dict[str, Any]] | None = None
    too_many_pairs: bool = False
    matrix: Pairwise | None = None
    significant: Any = None
    compare_data: dict[str, Any] | None = None
    adjacent: list[dict[str, Any]] | None = None
    curves: list[Curve | None] | None = None
    comparisons: list[Comparison] | None = None
    error: LeaderboardError | None = None
