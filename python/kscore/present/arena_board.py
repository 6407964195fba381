"""An arena result (:class:`kscore.arena.ArenaResult`) as the renderers'
:class:`~kscore.present.model.Board`: the rating with its interval, the
simultaneous rank sets as the rank column, LMArena's rank and the battles
as columns, the win-probability matrix as the pairwise view (cell ``[i][j]``:
the probability that ``i`` beats ``j``), the style-controlled board with the
plain one (and each category) as subsets. The terminal table, Markdown and
the HTML page then come from the same renderers as the leaderboard's."""

from __future__ import annotations

from typing import Any

from .model import Board, Estimate, InfoColumn, MetricColumn, Pairwise

#: The win-probability matrix covers the first this many models on the page.
MATRIX_MODELS = 60


def _footer(b: Any, result: Any) -> str:
    o = result.options
    how = ("sandwich (robust) intervals" + (", clustered by prompt" if o.get("clustered") else "")
           if b.intervals == "sandwich" else
           f"percentile intervals of {b.rounds} bootstrap rounds by {o.get('bootstrap_by', 'battle')}")
    best = ", ".join(b.could_be_best[:8]) + (", ..." if len(b.could_be_best) > 8 else "")
    return (f"Bradley-Terry ratings (scale {o.get('scale', 400):g}, base {o.get('base', 10):g}, ties as "
            f"{'half a win' if o.get('ties') == 'half' else 'dropped'}), {b.confidence:.0%} {how}. rank: "
            f"simultaneous rank sets (all hold together); lmarena: 1 + models whose lower bound is above this "
            f"upper bound. Could be #1: {best}.")


def _notes(b: Any) -> list[str]:
    out = list(b.notes)
    f = b.fragility
    if f is not None:
        if f.removed is None:
            out.append(f"fragility of #1 ({f.top}): {f.note}")
        else:
            kind = "exactly" if f.exact else "at most (greedy)"
            out.append(f"fragility: removing {kind} {f.removed:,} battle(s) makes {f.challenger} #1 instead of "
                       f"{f.top}")
    if b.style:
        out.append("style coefficients (log-odds per sd of the feature): " + "; ".join(
            f"{k} {v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]" for k, v in b.style.items()))
    return out


def arena_board(b: Any, result: Any, matrix: bool = True) -> Board:
    """One rated board (:class:`kscore.arena.ArenaBoard`) as a Board."""
    n = len(b.models)
    rating = MetricColumn("rating", [Estimate(float(b.rating[i]), float(b.lo[i]), float(b.hi[i]))
                                     for i in range(n)], importance=0, digits=1)
    info = [InfoColumn("lmarena rank", [str(int(r)) for r in b.rank], importance=5),
            InfoColumn("battles", [f"{int(x):,}" for x in b.battles], importance=10)]
    pair = None
    k = min(n, MATRIX_MODELS)
    if matrix and n > 1:
        P = b.win_prob
        pair = Pairwise(
            "P(row beats column)",
            [[None if i == j else float(P[i, j]) for j in range(k)] for i in range(k)],
            [[None] * k for _ in range(k)], [[None] * k for _ in range(k)], [[None] * k for _ in range(k)],
            [[bool(i != j and (b.rank_hi[i] < b.rank_lo[j])) for j in range(k)] for i in range(k)],
            note="the Bradley-Terry probability that the row's model beats the column's (a tie as half); marked "
                 "where the rank sets separate them")
    return Board(b.title, list(b.models), [(int(lo), int(hi)) for lo, hi in zip(b.rank_lo, b.rank_hi)], [rating],
                 footer=_footer(b, result), info=info, sort="rating", pairwise=pair, notes=_notes(b),
                 matrix_models=k if pair is not None and k < n else None)


def result_board(result: Any, matrix: bool = True) -> Board:
    """The whole result: the main board, with the plain board (under style
    control) and each category as subsets; data warnings as notes."""
    main = arena_board(result.board, result, matrix)
    if result.without_style is not None:
        main.subsets["without style control"] = arena_board(result.without_style, result, False)
    for name, sub in result.categories.items():
        main.subsets[name] = arena_board(sub, result, False)
    main.notes = [*main.notes, *result.warnings]
    return main
