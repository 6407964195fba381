"""A :class:`~kscore.present.model.Board` from a
:class:`kscore.leaderboard.Leaderboard`: its rows and metrics, its ``--by``
subsets for the tables (:func:`table_board`: Markdown), for the shared page
(:func:`page_board`) the curves and pairwise comparisons too, and for the
command (:func:`command_board`) what each format it writes needs (the plan,
the pairs, the typed columns, the sentences); ``kscore compare``'s and
``kscore plan``'s reports (:func:`comparison_report`, :func:`plan_report`).

The statistics shown beyond the rows (plan, pairs, matrix, curves,
comparisons) are the board's own ``shown``: computed by the run when the
command asks for them (``kscore.leaderboard(..., show=show_for(...))``),
else here, by the same function, before any rendering; the renderers only
format what the Board holds."""

from __future__ import annotations

from collections.abc import Collection
from operator import attrgetter
from typing import Any

from .._gc import paused_collection
from .._kscore import __version__
from ..leaderboard.api import CURVE_MODELS, MATRIX_MODELS, Leaderboard, Show, Shown, Value, prepare
from .model import (
    Board,
    ComparisonReport,
    Estimate,
    Estimates,
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

__all__ = ["CURVE_MODELS", "MATRIX_MODELS", "board_from_leaderboard", "command_board", "comparison_report",
           "comparison_show", "estimate", "footer", "page_board", "plan_report", "plan_show", "show_for", "table_board",
           "uncertainty"]


_MODEL, _RANK, _ACCURACY, _QUESTIONS, _N_MIN, _N_MAX = map(
    attrgetter, ("model", "rank", "accuracy", "questions", "n_min", "n_max"))


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


def show_for(needs: Collection[str] = ("rows",), top: int | None = None,
             pairwise: tuple[str, int | None] = ("auto", None), plan: bool = False) -> Show:
    """What the board must carry for outputs with ``needs``
    (:data:`kscore.present.formats.FORMATS` says a format's: ``json`` the
    pairs of ``pairwise`` and the groups' plans, ``page`` the page's matrix
    and curves, ``curves`` the curves, ``plan`` the plan when ``plan``)."""
    json = "json" in needs
    return Show(top=top, plan=plan and "plan" in needs, plan_groups=plan and json,
                pairs=pairwise[0] if json else None, pairs_top=pairwise[1] if json else None,
                page="page" in needs, curves="curves" in needs)


def shown(lb: Leaderboard, show: Show) -> Shown:
    """The board's ``shown`` when the run computed it for ``show``, else
    computed now (and kept); an error of it raised."""
    out = lb.shown if lb.shown is not None and lb.shown.show == show else prepare(lb, show)
    if out.error is not None:
        raise out.error
    return out


def board_from_leaderboard(lb: Leaderboard, curves: bool = False, top: int | None = None,
                           title: str | None = None) -> Board:
    """The board of ``lb``: its first ``top`` models (all by default), with
    each one's pass@k curve when ``curves``
    (:mod:`kscore.leaderboard.api.leaderboard_curves`); ``title``: by
    default the source's name."""
    board = _rows(lb, top, title)
    if curves:
        _curves(board, lb, shown(lb, Show(top=top, curves=True)))
    return board


def _rows(lb: Leaderboard, top: int | None, title: str | None = None) -> Board:
    with paused_collection():
        return _made_rows(lb, top, title)


def _made_rows(lb: Leaderboard, top: int | None, title: str | None) -> Board:
    u = uncertainty(lb)
    rows = lb.rows if top is None else lb.rows[:top]
    fields = ("estimate", "sigma", "lo", "hi", "posterior_mean") if lb.interval == "posterior" else \
        ("estimate", "sigma", "lo", "hi")
    names = [m.name for m in lb.metrics]  # (a property: computed at each use)
    sort = lb.sort.name

    values = lb.value_columns(("estimate", "lo", "hi", "sigma", "posterior_mean"), top)  # (no object per model)
    metrics = [MetricColumn(name, Estimates(*values[name]), importance=j + 1, fields=fields)
               for j, name in enumerate(names)]
    metrics.append(MetricColumn("accuracy", Estimates(list(map(_ACCURACY, rows))), importance=40,
                                fields=("estimate",), short="acc"))
    questions, n_min, n_max = (list(map(get, rows)) for get in (_QUESTIONS, _N_MIN, _N_MAX))
    info = [InfoColumn("questions", list(map("{:,}".format, questions)), importance=60, values=questions),
            InfoColumn("samples", [str(a) if a == b else f"{a}-{b}" for a, b in zip(n_min, n_max)],
                       importance=61, values=list(map(list, zip(n_min, n_max))))]
    best = best_note(u)
    notes = [page_summary(len(rows), len(lb.rows), lb.n_questions, lb.n_samples, sort),
             *([best] if best else []), *lb.warnings]
    return Board(f"kscore leaderboard: {lb.source}" if title is None else title, list(map(_MODEL, rows)),
                 list(map(_RANK, rows)), metrics, footer=page_footer(u), info=info, sort=sort, notes=notes,
                 interval_note=interval_note(u), group=lb.group, warnings=lb.warnings)


def _curves(board: Board, lb: Leaderboard, s: Shown) -> None:
    board.curves = s.curves
    board.curve_label = "pass@k"
    board.curve_note = curve_note(uncertainty(lb))


def table_board(lb: Leaderboard, top: int | None = None, curves: bool = False) -> Board:
    """The board and a board per ``--by`` subset (titled ``column = value``;
    the overall board's footer says what the cells are for all)."""
    board = board_from_leaderboard(lb, curves=curves, top=top)
    _subsets(board, lb, top)
    return board


def _subsets(board: Board, lb: Leaderboard, top: int | None) -> None:
    board.by = lb.by
    for g in lb.groups:
        name = f"{lb.by} = {g.group}"
        board.subsets[name] = _rows(g, top, title=name)
        board.subsets[name].footer = ""


def page_board(lb: Leaderboard, top: int | None = None) -> Board:
    """Everything the shared page shows: the board with its curves, the
    pairwise comparisons on the ranking metric and a board per ``--by``
    subset (docs/leaderboard.md); the first ``top`` models of each."""
    board = _rows(lb, top)
    s = shown(lb, Show(top=top, page=True))
    _curves(board, lb, s)
    _subsets(board, lb, top)
    _page(board, s)
    return board


def _page(board: Board, s: Shown) -> None:
    """The page's matrix of the first models and each model against the next."""
    n = min(len(board.models), MATRIX_MODELS)
    board.pairwise = _pairwise(board.models[:n], s)
    board.matrix_models = n
    if s.adjacent is not None:
        board.info.append(InfoColumn("vs next", _vs_next(s.adjacent, board.models), importance=70))


def _pairwise(models: list[str], s: Shown) -> Pairwise | None:
    """The matrix of the first models, significance by the board's rule."""
    pw = s.matrix
    if pw is None:
        return None
    order = [pw.models.index(m) for m in models if m in pw.models]
    if len(order) < len(models):
        return None
    sig = s.significant | s.significant.T

    def grid(a: Any) -> list[list[float | None]]:
        return [[None if i == j or a[i, j] != a[i, j] else float(a[i, j]) for j in order] for i in order]

    return Pairwise(pw.metric, grid(pw.diff), grid(pw.lo), grid(pw.hi), grid(pw.p),
                    [[bool(sig[i, j]) and i != j for j in order] for i in order],
                    note=f"row minus column on {pw.metric}, paired on the questions both answered",
                    on_demand=s.compare_data)


def _vs_next(adjacent: list[dict[str, Any]], models: list[str]) -> list[str]:
    """Each model minus the next one shown: ``+0.012 [-0.004, 0.028]``, a
    ``*`` where significant by the board's rule."""
    by_pair = {(r["a"], r["b"]): r for r in adjacent}
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
    with paused_collection():  # (the page's pairs, curves and cells: 100 000s of objects, none garbage)
        return _command_board(lb, needs, top, pairwise, plan)


def _command_board(lb: Leaderboard, needs: Collection[str], top: int | None, pairwise: tuple[str, int | None],
                   plan: bool) -> Board:
    s = shown(lb, show_for(needs, top, pairwise, plan))
    if not {"rows", "page", "curves"} & set(needs):  # (the typed columns alone: no cells to make)
        rows = lb.rows if top is None else lb.rows[:top]
        board = Board(f"kscore leaderboard: {lb.source}", list(map(_MODEL, rows)), list(map(_RANK, rows)), [],
                      warnings=lb.warnings)
    else:
        board = _rows(lb, top)
        _subsets(board, lb, top)
    board.by = lb.by
    if s.curves is not None:
        _curves(board, lb, s)
    u = uncertainty(lb)
    n, total, sort = len(board.models), len(lb.rows), lb.sort.name
    board.words = Words(meaning=meaning(u), caption=caption(u, n, total, lb.n_questions, lb.n_samples, sort),
                        summary=summary(n, total, lb.n_questions, lb.n_samples, sort,
                                        0 if u.simultaneous else len(u.could_be_best)), footers=footers(u),
                        best=best_line(u, 5) if u.simultaneous else "")
    for sub, g in zip(board.subsets.values(), lb.groups):
        sub.words = Words(caption=subset_caption(g.n_questions, g.n_samples))
    if s.plan is not None:
        board.plan = s.plan.lines()
    if "page" in needs:
        _page(board, s)
    if "table" in needs:
        board.table = lb.columns(groups=lb.by is not None, top=top, arrays=True)  # (metrics: float64 arrays)
    if "json" in needs:
        board.about = {"kscore": __version__, "source": lb.source, "weights": lb.weights,
                       "confidence": lb.confidence, "interval": lb.interval, "interval_meaning": board.words.meaning,
                       "cluster": lb.cluster, "adjust": lb.adjust, "adjust_used": u.adjust, "sort": sort,
                       "metrics": [m.name for m in lb.metrics]}
        for b, g in [(board, lb), *zip(board.subsets.values(), lb.groups)]:
            gs = s if g is lb or g.shown is None else g.shown  # (prepare() made every group's)
            if gs.error is not None:
                raise gs.error
            b.totals = {"questions": g.n_questions, "samples": g.n_samples}
            b.extras = _json_extras(g, gs)
    return board


def _json_extras(lb: Leaderboard, s: Shown) -> dict[str, Any]:
    """What the JSON writes after a board's rows: its plan (``--plan``), the
    models that could be #1, and its pairs (``--pairwise``: the matrices of
    every pair, or rows of pairs)."""
    out: dict[str, Any] = {}
    if s.plan is not None:
        out["plan"] = s.plan.to_dict()
    out["could_be_best"] = lb.ranks.could_be_best if lb.ranks is not None else None
    kind, n = s.pairs_kind, s.show.pairs_top
    if s.too_many_pairs:
        raise OutputError(f"--pairwise all with json holds {len(lb.rows):,} x {len(lb.rows):,} pairs in memory: "
                          "stream them with --pairwise-output FILE instead (or --pairwise top N)")
    if kind == "all":
        out["pairwise"] = s.pairwise
    else:
        out["pairwise"] = None
        out["pairs"] = {"which": "top" if kind == "top" else kind, "top": n,
                        "rows": s.pair_rows} if kind != "none" else None
    return out


# ------------------------------------------------------------------ kscore compare, kscore plan


def comparison_show(a: str, b: str) -> Show:
    """What ``kscore compare A B`` shows: A minus B on every metric."""
    return Show(compare=(a, b))


def plan_show(power: float) -> Show:
    """What ``kscore plan`` shows: the board's plan and each group's at ``power``."""
    return Show(plan=True, plan_groups=True, power=power)


def comparison_report(lb: Leaderboard, a: str, b: str) -> ComparisonReport:
    """Model ``a`` minus model ``b`` on every metric, over the whole board
    and each subset holding both (each a paired comparison on the questions
    both answered): the board's ``shown`` comparisons (:func:`comparison_show`)."""
    show = comparison_show(a, b)
    found = [(lb.group, shown(lb, show).comparisons or [])]
    found += [(g.group, g.shown.comparisons) for g in lb.groups
              if g.shown is not None and g.shown.comparisons is not None]
    return ComparisonReport(title=f"kscore compare: {a} vs {b} ({lb.source})",
                            meaning=comparison_meaning(lb.confidence, lb.cluster, a, b),
                            about={"source": lb.source, "confidence": lb.confidence, "cluster": lb.cluster,
                                   "by": lb.by},
                            by=lb.by, groups=found)


def plan_report(lb: Leaderboard, power: float) -> PlanReport:
    """The design diagnostics of the board and of each ``--by`` subset, at
    ``power`` (the board's ``shown`` plans: :func:`plan_show`)."""
    show = plan_show(power)
    plans = []
    for g in [lb, *lb.groups]:
        s = shown(lb, show) if g is lb else g.shown
        if s is not None and s.error is not None:
            raise s.error
        assert s is not None and s.plan is not None  # (prepare() made every group's)
        title = f"kscore plan: {lb.source}" if g is lb else f"{lb.by} = {g.group}"
        plans.append(PlanShown(title, g.group, s.plan.lines(), s.plan.to_dict()))
    return PlanReport(about={"kscore": __version__, "source": lb.source}, by=lb.by, plans=plans, warnings=lb.warnings)
