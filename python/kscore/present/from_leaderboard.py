"""A :class:`~kscore.present.model.Board` from a
:class:`kscore.leaderboard.Leaderboard`, with everything its outputs show
computed here, before any rendering: its rows and metrics, its ``--by``
subsets for the tables (:func:`table_board`: Markdown), for the shared page
(:func:`page_board`) the curves (:mod:`kscore.present.curves`) and pairwise
comparisons too, and for the command (:func:`command_board`) what each
format it writes needs (the plan, the pairs, the typed columns, the
sentences); ``kscore compare``'s and ``kscore plan``'s reports
(:func:`comparison_report`, :func:`plan_report`)."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

from .._kscore import __version__
from ..leaderboard.api import Leaderboard, Value, compare_data, pair_rows
from .curves import leaderboard_curves
from .model import (
    Board,
    ComparisonReport,
    Estimate,
    InfoColumn,
    MetricColumn,
    OutputError,
    Pairwise,
    PlanReport,
    PlanShown,
    Words,
)
from .wording import (
    Uncertainty,
    best_line,
    best_note,
    caption,
    comparison_meaning,
    curve_note,
    footers,
    interval_note,
    meaning,
    page_footer,
    page_summary,
    subset_caption,
    summary,
)

#: The page's pairwise matrix: every pair of the first this many models
#: (more would be a matrix nobody reads and a page growing as L^2); the
#: table's "vs next" column gives each model against the next.
MATRIX_MODELS = 40
#: The curves drawn on the page: those of the first this many models.
CURVE_MODELS = 200
#: ``--pairwise auto``: every pair up to this many models, else adjacent ones.
AUTO_ALL_PAIRS = 200
#: The most models whose every pair the JSON holds in memory.
JSON_ALL_PAIRS = 2000


def uncertainty(lb: Leaderboard) -> Uncertainty:
    """What the board's intervals and rank ranges are (the adjustment the
    ranges were made with: Holm's where simultaneous sets were asked for
    but could not be made)."""
    used = lb.ranks.adjust if lb.ranks is not None else lb.adjust
    best = tuple(lb.ranks.could_be_best) if lb.ranks is not None else ()
    return Uncertainty(lb.confidence, lb.interval, lb.cluster, used, best)


def footer(lb: Leaderboard) -> str:
    """What the cells and ranks are, for the interval the board was made with."""
    return page_footer(uncertainty(lb))


def estimate(v: Value | None) -> Estimate | None:
    """A leaderboard value as the renderers show it (its classic estimate
    and the interval of the board's ``interval``; None: not computed)."""
    return None if v is None else Estimate(v.estimate, v.lo, v.hi, v.sigma, v.posterior_mean)


def board_from_leaderboard(lb: Leaderboard, curves: bool = False, top: int | None = None,
                           title: str | None = None) -> Board:
    """The board of ``lb``: its first ``top`` models (all by default), with
    each one's pass@k curve when ``curves`` (:mod:`kscore.present.curves`);
    ``title``: by default the source's name."""
    u = uncertainty(lb)
    rows = lb.rows if top is None else lb.rows[:top]
    fields = ("estimate", "sigma", "lo", "hi", "posterior_mean") if lb.interval == "posterior" else \
        ("estimate", "sigma", "lo", "hi")
    names = [m.name for m in lb.metrics]  # (a property: computed at each use)
    metrics = [MetricColumn(name, [estimate(r.values.get(name)) for r in rows], importance=j + 1, fields=fields)
               for j, name in enumerate(names)]
    metrics.append(MetricColumn("accuracy", [Estimate(r.accuracy) for r in rows], importance=40, fields=("estimate",),
                                short="acc"))
    info = [InfoColumn("questions", [f"{r.questions:,}" for r in rows], importance=60,
                       values=[r.questions for r in rows]),
            InfoColumn("samples", [str(r.n_min) if r.n_min == r.n_max else f"{r.n_min}-{r.n_max}" for r in rows],
                       importance=61, values=[[r.n_min, r.n_max] for r in rows])]
    best = best_note(u)
    notes = [page_summary(len(rows), len(lb.rows), lb.n_questions, lb.n_samples, lb.sort.name),
             *([best] if best else []), *lb.warnings]
    board = Board(f"kscore leaderboard: {lb.source}" if title is None else title, [r.model for r in rows],
                  [r.rank for r in rows], metrics, footer=page_footer(u), info=info, sort=lb.sort.name, notes=notes,
                  interval_note=interval_note(u), group=lb.group, warnings=lb.warnings)
    if curves:
        drawn = board.models[:CURVE_MODELS]  # (a panel per model: past a few hundred, nobody reads them)
        board.curves = leaderboard_curves(lb, drawn) + [None] * (len(board.models) - len(drawn))
        board.curve_label = "pass@k"
        board.curve_note = curve_note(u)
    return board


def table_board(lb: Leaderboard, top: int | None = None, curves: bool = False) -> Board:
    """The board and a board per ``--by`` subset (titled ``column = value``;
    the overall board's footer says what the cells are for all)."""
    board = board_from_leaderboard(lb, curves=curves, top=top)
    board.by = lb.by
    for g in lb.groups:
        name = f"{lb.by} = {g.group}"
        board.subsets[name] = board_from_leaderboard(g, top=top, title=name)
        board.subsets[name].footer = ""
    return board


def page_board(lb: Leaderboard, top: int | None = None) -> Board:
    """Everything the shared page shows: the board with its curves, the
    pairwise comparisons on the ranking metric and a board per ``--by``
    subset (docs/leaderboard.md); the first ``top`` models of each."""
    board = table_board(lb, top, curves=True)
    _add_page(board, lb)
    return board


def _add_page(board: Board, lb: Leaderboard) -> None:
    """The page's matrix of the first models and each model against the next."""
    n = min(len(board.models), MATRIX_MODELS)
    board.pairwise = _pairwise(lb, n)
    board.matrix_models = n
    if len(board.models) > 1 and lb.scores is not None:
        board.info.append(InfoColumn("vs next", _vs_next(lb, board.models), importance=70))


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
    return Pairwise(pw.metric, grid(pw.diff), grid(pw.lo), grid(pw.hi), grid(pw.p),
                    [[bool(sig[i, j]) and i != j for j in order] for i in order],
                    note=f"row minus column on {pw.metric}, paired on the questions both answered",
                    on_demand=compare_data(lb))


def _vs_next(lb: Leaderboard, models: list[str]) -> list[str]:
    """Each model minus the next one shown: ``+0.012 [-0.004, 0.028]``, a
    ``*`` where significant by the board's rule."""
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


# ------------------------------------------------------------------ the command's board


def pairs_kind(lb: Leaderboard, kind: str) -> str:
    """``--pairwise``'s kind for this board: ``auto`` is every pair up to
    :data:`AUTO_ALL_PAIRS` models, else the adjacent ones."""
    if kind == "auto":
        return "all" if len(lb.rows) <= AUTO_ALL_PAIRS else "adjacent"
    return kind


def pairs(lb: Leaderboard, kind: str, top: int | None = None) -> Iterator[dict[str, Any]]:
    """The pairs ``--pairwise-output`` streams: a row per pair, made a block
    at a time as they are written (never all in memory)."""
    return pair_rows(lb, pairs_kind(lb, kind), top)


def command_board(lb: Leaderboard, needs: Collection[str] = ("rows",), top: int | None = None,
                  pairwise: tuple[str, int | None] = ("auto", None), plan: bool = False) -> Board:
    """The board ``kscore leaderboard`` writes, its first ``top`` rows (and
    each subset's), with what ``needs`` asks (``kscore.present.formats``
    says it per format): ``rows`` the cells of every metric and column
    (without it, only the names and ranks), ``table`` the typed columns
    (CSV), ``json`` the JSON's facts, plans and pairs (``pairwise``: kind and
    N of ``--pairwise``), ``page`` the page's curves, matrix and "vs next",
    ``curves`` the curves (``--plot``), ``plan`` a format that shows the
    design diagnostics when ``plan`` (``--plan``). Raises
    :class:`OutputError` for pairs too many to hold."""
    if not {"rows", "page", "curves"} & set(needs):  # (the typed columns alone: no cells to make)
        rows = lb.rows if top is None else lb.rows[:top]
        board = Board(f"kscore leaderboard: {lb.source}", [r.model for r in rows], [r.rank for r in rows], [],
                      by=lb.by, warnings=lb.warnings)
    else:
        board = table_board(lb, top, curves="curves" in needs or "page" in needs)
    u = uncertainty(lb)
    n = len(board.models)
    board.words = Words(meaning=meaning(u), caption=caption(u, n, len(lb.rows), lb.n_questions, lb.n_samples,
                                                            lb.sort.name),
                        summary=summary(n, len(lb.rows), lb.n_questions, lb.n_samples, lb.sort.name),
                        footers=footers(u), best=best_line(u, 5) if u.simultaneous else "")
    for sub, g in zip(board.subsets.values(), lb.groups):
        sub.words = Words(caption=subset_caption(g.n_questions, g.n_samples))
    plans = [lb.plan()] if plan and "plan" in needs else []
    if plans:
        board.plan = plans[0].lines()
    if "page" in needs:
        _add_page(board, lb)
    if "table" in needs:
        board.table = lb.columns(groups=lb.by is not None, top=top)
    if "json" in needs:
        board.about = {"kscore": __version__, "source": lb.source, "weights": lb.weights,
                       "confidence": lb.confidence, "interval": lb.interval, "interval_meaning": board.words.meaning,
                       "cluster": lb.cluster, "adjust": lb.adjust, "adjust_used": u.adjust, "sort": lb.sort.name,
                       "metrics": [m.name for m in lb.metrics]}
        for b, g in [(board, lb), *zip(board.subsets.values(), lb.groups)]:
            b.totals = {"questions": g.n_questions, "samples": g.n_samples}
            b.extras = _json_extras(g, pairwise, None if not plans else plans[0] if g is lb else g.plan())
    return board


def _json_extras(lb: Leaderboard, pairwise: tuple[str, int | None], plan: Any) -> dict[str, Any]:
    """What the JSON writes after a board's rows: its plan (``--plan``), the
    models that could be #1, and its pairs (``--pairwise``: the matrices of
    every pair up to :data:`JSON_ALL_PAIRS` models, else rows of pairs)."""
    out: dict[str, Any] = {}
    if plan is not None:
        out["plan"] = plan.to_dict()
    out["could_be_best"] = lb.ranks.could_be_best if lb.ranks is not None else None
    kind, n = pairwise
    kind = pairs_kind(lb, kind)
    if kind == "all" and len(lb.rows) <= JSON_ALL_PAIRS:
        out["pairwise"] = lb.pairs.to_dict() if lb.pairs is not None else None
    elif kind == "all":
        raise OutputError(f"--pairwise all with json holds {len(lb.rows):,} x {len(lb.rows):,} pairs in memory: "
                          "stream them with --pairwise-output FILE instead (or --pairwise top N)")
    else:
        out["pairwise"] = None
        out["pairs"] = {"which": "top" if kind == "top" else kind, "top": n,
                        "rows": list(pair_rows(lb, kind, n))} if kind != "none" else None
    return out


# ------------------------------------------------------------------ kscore compare, kscore plan


def comparison_report(lb: Leaderboard, a: str, b: str) -> ComparisonReport:
    """Model ``a`` minus model ``b`` on every metric, over the whole board
    and each subset holding both (each a paired comparison on the questions
    both answered)."""
    found = [(g.group, [g.compare(a, b, m) for m in lb.metrics]) for g in [lb, *lb.groups]
             if g is lb or {a, b} <= {r.model for r in g.rows}]
    return ComparisonReport(title=f"kscore compare: {a} vs {b} ({lb.source})",
                            meaning=comparison_meaning(lb.confidence, lb.cluster, a, b),
                            about={"source": lb.source, "confidence": lb.confidence, "cluster": lb.cluster,
                                   "by": lb.by},
                            by=lb.by, groups=found)


def plan_report(lb: Leaderboard, power: float) -> PlanReport:
    """The design diagnostics of the board and of each ``--by`` subset, at ``power``."""
    shown = []
    for g in [lb, *lb.groups]:
        p = g.plan(power=power)
        title = f"kscore plan: {lb.source}" if g is lb else f"{lb.by} = {g.group}"
        shown.append(PlanShown(title, g.group, p.lines(), p.to_dict()))
    return PlanReport(about={"kscore": __version__, "source": lb.source}, by=lb.by, plans=shown, warnings=lb.warnings)
