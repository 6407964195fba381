"""A :class:`~kscore.present.model.Board` from a
:class:`kscore.leaderboard.Leaderboard`: its rows and metrics, its ``--by``
subsets for the tables (:func:`table_board`: Markdown), and for the shared
page (:func:`page_board`) the curves (:mod:`kscore.present.curves`) and
pairwise comparisons too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .curves import curve_note, leaderboard_curves
from .model import Board, Estimate, InfoColumn, MetricColumn, Pairwise

if TYPE_CHECKING:
    from ..leaderboard.api import Leaderboard, Value


def _interval(lb: Leaderboard) -> str:
    """The board's interval in words."""
    pct = f"{lb.confidence * 100:g}%"
    if lb.interval == "posterior":
        return f"{pct} Bayesian credible interval given these questions (sampling noise only)"
    cl = f", clustered by {lb.cluster}" if lb.cluster else ""
    if lb.interval == "wilson":
        cl += " (Wilson score on the effective number of questions, for small boards)"
    return f"{pct} interval over questions{cl} (what another question set like this one could give)"


#: The page's pairwise matrix: every pair of the first this many models
#: (more would be a matrix nobody reads and a page growing as L^2); the
#: table's "vs next" column gives each model against the next.
MATRIX_MODELS = 40
#: The curves drawn on the page: those of the first this many models.
CURVE_MODELS = 200


def _ranks(lb: Leaderboard) -> str:
    used = lb.ranks.adjust if lb.ranks is not None else lb.adjust
    if used == "simultaneous":
        return (f"rank: simultaneous {lb.confidence * 100:g}% rank sets (step-down max-t over all paired tests: "
                "all ranges hold at once)")
    return "rank: range from paired tests" + (" with Holm's correction" if used == "holm" else "")


def best_note(lb: Leaderboard) -> str:
    """The models that could be #1 (no model significantly better), under
    the board's guarantee ('' when the ranks were not simultaneous)."""
    used = lb.ranks.adjust if lb.ranks is not None else lb.adjust
    if lb.ranks is None or used != "simultaneous" or not lb.ranks.could_be_best:
        return ""
    best = lb.ranks.could_be_best
    shown = ", ".join(best[:20]) + (f", ... ({len(best)} models)" if len(best) > 20 else "")
    return f"could be #1 ({lb.confidence * 100:g}% confidence set for the best model): {shown}"


def footer(lb: Leaderboard) -> str:
    """What the cells and ranks are, for the interval the board was made with."""
    return f"cells: the classic estimate ±half the {_interval(lb)}; {_ranks(lb)}"


def interval_note(lb: Leaderboard) -> str:
    """What a plot of the values and intervals draws (the table's numbers)."""
    if lb.interval == "posterior":
        what = f"the {_interval(lb)}, centred on the posterior mean, which can differ from the dot"
    else:
        what = f"its {_interval(lb)}"
    return f"dot: the classic estimate (the table's value); line: {what}; {_ranks(lb)}"


def estimate(v: Value | None) -> Estimate | None:
    """A leaderboard value as the renderers show it (its classic estimate
    and the interval of the board's ``interval``; None: not computed)."""
    return None if v is None else Estimate(v.estimate, v.lo, v.hi)


def page_board(lb: Leaderboard, top: int | None = None) -> Board:
    """Everything the shared page shows: the board with its curves, the
    pairwise comparisons on the ranking metric and a board per ``--by``
    subset (docs/leaderboard.md); the first ``top`` models of each."""
    board = table_board(lb, top, curves=True)
    n = min(len(board.models), MATRIX_MODELS)
    board.pairwise = _pairwise(lb, n)
    board.matrix_models = n
    if len(board.models) > 1 and lb.scores is not None:
        board.info.append(InfoColumn("vs next", _vs_next(lb, board.models), importance=70))
    return board


def table_board(lb: Leaderboard, top: int | None = None, curves: bool = False) -> Board:
    """The board and a board per ``--by`` subset (titled ``column = value``;
    the overall board's footer says what the cells are for all)."""
    board = board_from_leaderboard(lb, curves=curves, top=top)
    for g in lb.groups:
        name = f"{lb.by} = {g.group}"
        board.subsets[name] = board_from_leaderboard(g, top=top, title=name)
        board.subsets[name].footer = ""
    return board


def _pairwise(lb: Leaderboard, n: int) -> Pairwise | None:
    """The matrix of the first ``n`` models, significance by the board's rule."""
    rows = lb.rows[:n]
    if len(rows) < 2 or lb.scores is None:
        return None
    pw = lb.pairwise(models=[r.model for r in rows])
    order = [pw.models.index(r.model) for r in rows if r.model in pw.models]
    better = pw.significant()
    sig = better | better.T

    def grid(a: Any) -> list[list[float | None]]:
        return [[None if i == j or a[i, j] != a[i, j] else float(a[i, j]) for j in order] for i in order]

    if len(order) < len(rows):
        return None
    from ..leaderboard.api import compare_data

    return Pairwise(pw.metric, grid(pw.diff), grid(pw.lo), grid(pw.hi), grid(pw.p),
                    [[bool(sig[i, j]) and i != j for j in order] for i in order],
                    note=f"row minus column on {pw.metric}, paired on the questions both answered",
                    on_demand=compare_data(lb))


def _vs_next(lb: Leaderboard, models: list[str]) -> list[str]:
    """Each model minus the next one shown: ``+0.012 [-0.004, 0.028]``, a
    ``*`` where significant by the board's rule."""
    from ..leaderboard.api import pair_rows

    by_pair = {(r["a"], r["b"]): r for r in pair_rows(lb, "adjacent")}
    out = []
    for a, b in zip(models, models[1:]):
        r = by_pair.get((a, b))
        if r is None or r["diff"] is None or r["lo"] is None:
            out.append("")
            continue
        star = " *" if r["significant"] else ""
        out.append(f"{r['diff']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}]{star}")
    return out + [""]


def board_from_leaderboard(lb: Leaderboard, curves: bool = False, top: int | None = None,
                           title: str | None = None) -> Board:
    """The board of ``lb``: its first ``top`` models (all by default), with
    each one's pass@k curve when ``curves`` (:mod:`kscore.present.curves`);
    ``title``: by default the source's name."""
    rows = lb.rows if top is None else lb.rows[:top]
    metrics = [MetricColumn(m.name, [estimate(r.values.get(m.name)) for r in rows], importance=j + 1)
               for j, m in enumerate(lb.metrics)]
    metrics.append(MetricColumn("accuracy", [Estimate(r.accuracy) for r in rows], importance=40))
    info = [InfoColumn("questions", [f"{r.questions:,}" for r in rows], importance=60),
            InfoColumn("samples", [str(r.n_min) if r.n_min == r.n_max else f"{r.n_min}-{r.n_max}" for r in rows],
                       importance=61)]
    shown = f"{len(rows)} models" if len(rows) == len(lb.rows) else f"top {len(rows)} of {len(lb.rows)} models"
    notes = [f"{lb.n_samples:,} samples, {lb.n_questions:,} questions, {shown}; sorted by {lb.sort.name}; "
             "accuracy: mean reward per sample", *([best_note(lb)] if best_note(lb) else []), *lb.warnings]
    board = Board(f"kscore leaderboard: {lb.source}" if title is None else title, [r.model for r in rows],
                  [r.rank for r in rows], metrics, footer=footer(lb), info=info, sort=lb.sort.name, notes=notes,
                  interval_note=interval_note(lb))
    if curves:
        drawn = board.models[:CURVE_MODELS]  # (a panel per model: past a few hundred, nobody reads them)
        board.curves = leaderboard_curves(lb, drawn) + [None] * (len(board.models) - len(drawn))
        board.curve_label = "pass@k"
        board.curve_note = curve_note(lb)
    return board
