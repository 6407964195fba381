"""Computing what a board's outputs show (:class:`~.show.Show`) into the
board (``Leaderboard.shown``): run by :func:`kscore.leaderboard` when asked,
or by the renderers' builder for a board made without it."""

from __future__ import annotations

from .._issues import LeaderboardError
from ..stats.pair_rows import compare_data, pair_rows
from .board import Leaderboard
from .curves import leaderboard_curves
from .show import AUTO_ALL_PAIRS, CURVE_MODELS, JSON_ALL_PAIRS, MATRIX_MODELS, Show, Shown


def pairs_kind(lb: Leaderboard, kind: str) -> str:
    """``--pairwise``'s kind for this board: ``auto`` is every pair up to
    :data:`AUTO_ALL_PAIRS` models, else the adjacent ones."""
    if kind == "auto":
        return "all" if len(lb.rows) <= AUTO_ALL_PAIRS else "adjacent"
    return kind


def prepare(lb: Leaderboard, show: Show) -> Shown:
    """What ``show`` asks of ``lb`` (its groups: their plans, pairs and
    comparisons, into each group's ``shown``); kept in ``lb.shown``."""
    shown = _shown(lb, show, whole=True)
    for g in lb.groups:
        g.shown = _shown(g, show, whole=False)
    lb.shown = shown
    return shown


def _shown(lb: Leaderboard, show: Show, whole: bool) -> Shown:
    """What ``show`` asks of one board (``whole``: the whole board, else a
    group's). A question the board cannot answer (no such model to compare)
    is kept in ``error``, raised when it is shown: after the data's own
    warnings, as every error of an output."""
    out = Shown(show)
    try:
        _compute(lb, show, whole, out)
    except LeaderboardError as exc:
        out.error = exc
    return out


def _compute(lb: Leaderboard, show: Show, whole: bool, out: Shown) -> None:
    if show.plan and (whole or show.plan_groups):
        out.plan = lb.plan(power=show.power)
    if show.pairs is not None:
        kind = out.pairs_kind = pairs_kind(lb, show.pairs)
        if kind == "all" and len(lb.rows) > JSON_ALL_PAIRS:
            out.too_many_pairs = True
        elif kind == "all":
            out.pairwise = lb.pairs.to_dict() if lb.pairs is not None else None
        elif kind != "none":
            out.pair_rows = list(pair_rows(lb, kind, show.pairs_top))
    rows = lb.rows if show.top is None else lb.rows[:show.top]
    if whole and show.page:
        first = [r.model for r in rows[:MATRIX_MODELS]]
        if len(first) >= 2 and lb.scores is not None:
            out.matrix = lb.pairwise(models=first)
            out.significant = out.matrix.significant()
            out.compare_data = compare_data(lb)
        if len(rows) > 1 and lb.scores is not None:
            out.adjacent = list(pair_rows(lb, "adjacent"))
    if whole and (show.page or show.curves):
        drawn = [r.model for r in rows[:CURVE_MODELS]]  # (a panel per model: past a few hundred, nobody reads them)
        out.curves = leaderboard_curves(lb, drawn) + [None] * (len(rows) - len(drawn))
    if show.compare is not None:
        a, b = show.compare
        if whole or {a, b} <= {r.model for r in lb.rows}:
            out.comparisons = [lb.compare(a, b, m) for m in lb.metrics]

