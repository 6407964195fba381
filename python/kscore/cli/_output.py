"""Rendering the leaderboard and comparisons: a rich table, CSV, JSON or Markdown."""

from __future__ import annotations

import io
import json
import math
from typing import Any

from ..leaderboard.api import ALL, Comparison, Leaderboard, ModelRow, rank_label
from ._errors import CliError, one_line


class Board:
    """A leaderboard as shown: its first ``top`` rows (all without ``top``)."""

    def __init__(self, lb: Leaderboard, top: int | None = None,
                 pairwise: tuple[str, int | None] = ("auto", None), plan: bool = False) -> None:
        self.lb = lb
        self.top = top
        self.pairwise = pairwise
        self.plan = plan  # add the design diagnostics (kscore plan) to the output
        self.rows: list[ModelRow] = lb.rows if top is None else lb.rows[:top]
        self.n_models = len(lb.rows)

    @property
    def groups(self) -> list[Board]:
        return [Board(g, self.top, self.pairwise, self.plan) for g in self.lb.groups]


class CsvWriter:
    """``csv.writer(buf, lineterminator="\\n")`` that also quotes a field
    holding a bare ``"\\r"``: csv.writer quotes only the characters of its
    line terminator, so a model name with a carriage return was written
    unquoted, a line break to every reader."""

    def __init__(self, buf: io.StringIO) -> None:
        self.buf = buf

    def writerow(self, row: list[Any]) -> None:
        self.buf.write(",".join(_csv_field(x) for x in row) + "\n")


def _csv_field(x: Any) -> str:
    text = "" if x is None else str(x)
    # (four tests, not a generator: 100 000 model names spent 1 s in any() under profile)
    quote = "," in text or '"' in text or "\r" in text or "\n" in text
    return '"' + text.replace('"', '""') + '"' if quote else text


def _md(name: str) -> str:
    """A name (model, group) in a Markdown cell or heading: one line, pipes escaped."""
    return one_line(name).replace("|", "\\|")


def _rich(text: str) -> str:
    """A name or caption in a rich table: one line, its brackets not taken as
    markup (a model named ``[/]`` made rich raise)."""
    from rich.markup import escape

    return escape(one_line(text))


def _samples(r: ModelRow) -> str:
    return str(r.n_min) if r.n_min == r.n_max else f"{r.n_min}-{r.n_max}"


def _f(x: float) -> str:
    return "n/a" if x != x else f"{x:.4f}"


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


def interval_line(lb: Leaderboard) -> str:
    """One line: which interval the cells show and what it means."""
    pct = f"{lb.confidence * 100:g}%"
    if lb.interval == "posterior":
        what = (f"metrics: estimate [{pct} Bayesian credible interval given these questions: sampling noise "
                "only]")
    else:
        clustered = f", clustered by {lb.cluster}" if lb.cluster else ""
        clustered += ", Wilson score for small boards" if lb.interval == "wilson" else ""
        what = (f"metrics: estimate [{pct} interval over questions{clustered}: what another question set like "
                "this one could give]")
    return (f"{what}; rank: {rank_words(lb)} (a model's rank is shared with every model not significantly "
            "different)")


def adjust_used(lb: Leaderboard) -> str:
    """The adjustment the rank ranges were made with (Holm's where
    simultaneous sets were asked for but could not be made)."""
    return lb.ranks.adjust if lb.ranks is not None else lb.adjust


def rank_words(lb: Leaderboard) -> str:
    """What the rank ranges are, in words."""
    level = f"{100 - lb.confidence * 100:g}%"
    used = adjust_used(lb)
    if used == "simultaneous":
        return (f"simultaneous {lb.confidence * 100:g}% rank sets (step-down max-t over all paired tests: all "
                "ranges hold at once)")
    return f"range from paired tests at {level}" + (", Holm-adjusted" if used == "holm" else "")


def best_line(lb: Leaderboard, limit: int = 10) -> str:
    """``could be #1: a, b (2 models; ...)``: the models no model is
    significantly better than, under the board's guarantee."""
    if lb.ranks is None or not lb.ranks.could_be_best:
        return ""
    best = lb.ranks.could_be_best
    names = ", ".join(one_line(m) for m in best[:limit]) + (f", ... ({len(best)} models)" if len(best) > limit else "")
    used = adjust_used(lb)
    why = {"simultaneous": f"a {lb.confidence * 100:g}% confidence set for the best model",
           "holm": "no model significantly better, Holm-adjusted",
           "none": "no model significantly better, each pair tested alone"}[used]
    return f"could be #1: {names} ({why})"


def _caption(board: Board) -> str:
    lb = board.lb
    shown = (f"{len(board.rows)} models" if len(board.rows) >= board.n_models
             else f"top {len(board.rows)} of {board.n_models} models")
    best = f"; {best_line(lb)}" if adjust_used(lb) == "simultaneous" else ""
    return (f"{lb.n_samples:,} samples, {shown}, {lb.n_questions:,} questions; {interval_line(lb)}; "
            f"accuracy: mean reward per sample; sorted by {lb.sort.name}{best}")


def _csv_head(lb: Leaderboard) -> list[str]:
    head = ["rank", "rank_lo", "rank_hi", "model", "questions", "samples_min", "samples_max", "accuracy"]
    for m in lb.metrics:
        head += [m.name, f"{m.name}_sigma", f"{m.name}_lo", f"{m.name}_hi"]
        if lb.interval == "posterior":
            head.append(f"{m.name}_posterior_mean")
    return head


def _csv_rows(board: Board) -> list[list[str]]:
    """The rows' CSV fields, each already as written (the model's name
    quoted where it must be; numbers and rank labels never need it)."""
    lb = board.lb
    out: list[list[str]] = []
    for r in board.rows:
        line: list[str] = [rank_label(r), str(r.rank[0]) if r.rank else "", str(r.rank[1]) if r.rank else "",
                           _csv_field(r.model), str(r.questions), str(r.n_min), str(r.n_max), repr(r.accuracy)]
        for m in lb.metrics:
            v = r.values.get(m.name)
            width = 5 if lb.interval == "posterior" else 4
            if v is None:
                line += [""] * width
                continue
            line += ["" if x != x else repr(x) for x in (v.estimate, v.sigma, v.lo, v.hi)]
            if lb.interval == "posterior":
                line.append("" if v.posterior_mean is None else repr(v.posterior_mean))
        out.append(line)
    return out


def to_csv(board: Board) -> str:
    buf = io.StringIO()
    w = CsvWriter(buf)
    by = board.lb.by is not None
    w.writerow((["group"] if by else []) + _csv_head(board.lb))
    for b in [board, *board.groups] if by else [board]:
        label = [_csv_field(ALL if b.lb.group is None else b.lb.group)] if by else []
        buf.write("".join(",".join(label + line) + "\n" for line in _csv_rows(b)))
    return buf.getvalue()


def _json_board(board: Board) -> dict[str, Any]:
    lb = board.lb
    doc: dict[str, Any] = {
        "questions": lb.n_questions,
        "samples": lb.n_samples,
        "models": [
            {
                "rank": rank_label(r),
                "rank_range": list(r.rank) if r.rank else None,
                "model": r.model,
                "questions": r.questions,
                "samples": [r.n_min, r.n_max],
                "accuracy": r.accuracy,
                "metrics": {
                    m.name: (None if (v := r.values.get(m.name)) is None else
                             {"estimate": _num(v.estimate), "sigma": _num(v.sigma), "lo": _num(v.lo),
                              "hi": _num(v.hi)} | ({"posterior_mean": _num(v.posterior_mean)}
                                                   if lb.interval == "posterior" else {}))
                    for m in lb.metrics
                },
            }
            for r in board.rows
        ],
    }
    if board.plan:
        doc["plan"] = lb.plan().to_dict()
    doc["could_be_best"] = lb.ranks.could_be_best if lb.ranks is not None else None
    kind, n = board.pairwise
    if kind == "auto":
        kind = "all" if len(lb.rows) <= 200 else "adjacent"
    if kind == "all" and len(lb.rows) <= 2000:
        doc["pairwise"] = lb.pairs.to_dict() if lb.pairs is not None else None
    elif kind == "all":
        raise CliError(f"--pairwise all with json holds {len(lb.rows):,} x {len(lb.rows):,} pairs in memory: stream "
                       "them with --pairwise-output FILE instead (or --pairwise top N)")
    else:
        from ..leaderboard.api import pair_rows

        doc["pairwise"] = None
        doc["pairs"] = {"which": "top" if kind == "top" else kind, "top": n,
                        "rows": list(pair_rows(lb, kind, n))} if kind != "none" else None
    return doc


def to_json(board: Board) -> str:
    from .._kscore import __version__

    lb = board.lb
    doc: dict[str, Any] = {
        "kscore": __version__,
        "source": lb.source,
        "weights": lb.weights,
        "confidence": lb.confidence,
        "interval": lb.interval,
        "interval_meaning": interval_line(lb),
        "cluster": lb.cluster,
        "adjust": lb.adjust,
        "adjust_used": adjust_used(lb),
        "sort": lb.sort.name,
        "metrics": [m.name for m in lb.metrics],
    }
    doc |= _json_board(board)
    if lb.by is not None:
        doc["by"] = lb.by
        doc["groups"] = [{"group": g.lb.group} | _json_board(g) for g in board.groups]
    doc["warnings"] = lb.warnings
    return json.dumps(doc, indent=2) + "\n"


def _rich_table(board: Board, title: str, caption: str) -> Any:
    from rich.table import Table

    lb = board.lb
    table = Table(title=_rich(title), caption=_rich(caption), title_justify="left", caption_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("model", style="bold")
    table.add_column("questions", justify="right")
    table.add_column("samples", justify="right")
    table.add_column("accuracy", justify="right")
    for m in lb.metrics:
        table.add_column(m.name + (" *" if m == lb.sort else ""), justify="right")
    for r in board.rows:
        cells = [rank_label(r), _rich(r.model), f"{r.questions:,}", _samples(r), f"{r.accuracy:.4f}"]
        for m in lb.metrics:
            v = r.values.get(m.name)
            cells.append("n/a" if v is None else f"{v.estimate:.4f} [dim]\\[{_f(v.lo)}, {_f(v.hi)}][/dim]")
        table.add_row(*cells)
    return table


def print_table(board: Board, console: Any) -> None:
    console.print(_rich_table(board, f"kscore leaderboard: {board.lb.source}", _caption(board)))
    for g in board.groups:
        console.print(_rich_table(g, f"{board.lb.by} = {g.lb.group}",
                                  f"{g.lb.n_questions:,} questions, {g.lb.n_samples:,} samples"))
    if board.plan:
        console.print("\n".join(one_line(x) for x in board.lb.plan().lines()), markup=False, highlight=False,
                      soft_wrap=True)


def footer(lb: Leaderboard, width: int = 80) -> str:
    """One line of at most ``width`` characters (where the words allow):
    what the cells and the rank ranges are; the longest wording that fits."""
    pct = f"{lb.confidence * 100:g}%"
    if lb.interval == "posterior":
        what = [f"the {pct} credible interval given these questions", f"{pct} credible interval (fixed questions)"]
    else:
        cl = f" clustered by {lb.cluster}" if lb.cluster else ""
        cl += " (Wilson)" if lb.interval == "wilson" else ""
        what = [f"the {pct} interval over questions{cl}", f"{pct} interval over questions{cl}"]
    adj = {"holm": " (Holm)", "simultaneous": " (simultaneous)"}.get(adjust_used(lb), "")
    options = [f"cells: estimate ±half-width of {what[0]}; rank: range from paired tests{adj}",
               f"cells: estimate ±half of {what[0]}; ranks: paired tests{adj}",
               f"±half: {what[0][4:]}; ranks: paired tests{adj}",
               f"estimate ±half {what[1]}; ranks: paired tests{adj}"]
    return next((o for o in options if len(o) <= width), options[-1])


def compact_table(board: Board, width: int) -> str:
    """The default terminal table: compact cells (``0.769 ±0.021``), names
    shortened in the middle without ambiguity, within ``width`` columns
    (kscore.present); columns that do not fit are left out and named."""
    from ..present import Column, fit
    from ..present.from_leaderboard import estimate
    from ..present.text import compact_cell

    def table(b: Board) -> list[str]:
        lb = b.lb
        cols = [Column("rank", [rank_label(r) for r in b.rows]),
                Column("model", [one_line(r.model) for r in b.rows], right=False, names=True)]
        for j, m in enumerate(lb.metrics):
            # the cells of the Markdown too (kscore.present): one format in both
            cells = [compact_cell(estimate(r.values.get(m.name))) for r in b.rows]
            cols.append(Column(m.name + (" *" if m == lb.sort else ""), cells,
                               importance=0 if m == lb.sort else 2 + j))
        cols += [Column("acc", [f"{r.accuracy:.3f}" for r in b.rows], importance=50),
                 Column("questions", [f"{r.questions:,}" for r in b.rows], importance=60),
                 Column("samples", [_samples(r) for r in b.rows], importance=61)]
        fitted = fit(cols, width)
        lines = fitted.lines
        if fitted.hidden:
            lines.append(f"not shown at {width} columns: {', '.join(fitted.hidden)} (--wide shows all)")
        return lines

    lb = board.lb
    shown = (f"{len(board.rows)} models" if len(board.rows) >= board.n_models
             else f"top {len(board.rows)} of {board.n_models}")
    lines = [one_line(f"kscore leaderboard: {lb.source}")[:width]] + table(board)
    lines += [f"{shown}, {lb.n_questions:,} questions, {lb.n_samples:,} samples; sorted by {lb.sort.name} *"[:width],
              footer(lb, width)]
    best = best_line(lb, 5)
    if best and adjust_used(lb) == "simultaneous":
        lines.append(best)
    for g in board.groups:
        lines += ["", one_line(f"{lb.by} = {g.lb.group}")[:width]] + table(g)
    return "\n".join(lines) + "\n"


def render(board: Board, fmt: str) -> str:
    text = _render(board, fmt)
    if board.plan and fmt == "markdown":
        lines = board.lb.plan().lines()
        return text + "\n" + "\n".join([f"## Plan: {_md(lines[0])}", "", *(_md_line(x) for x in lines[1:])]) + "\n"
    return text


def _render(board: Board, fmt: str) -> str:
    if fmt == "csv":
        return to_csv(board)
    if fmt == "json":
        return to_json(board)
    if fmt == "markdown":  # GFM tables with the terminal table's compact cells and the footer (kscore.present)
        from ..present import render_markdown
        from ..present.from_leaderboard import table_board

        # A control character in a name (a terminal escape) as an escape, as in the table.
        return "\n".join(one_line(line) for line in render_markdown(table_board(board.lb, board.top)).split("\n"))
    if fmt == "html":  # one self-contained page: table, curves, pairwise matrix, subsets (kscore.present)
        from ..present import render_html
        from ..present.from_leaderboard import page_board

        page = page_board(board.lb, board.top)
        if board.plan:
            page.plan = board.lb.plan().lines()
        return render_html(page)
    raise ValueError(fmt)


# ------------------------------------------------------------------ kscore compare

def _cmp_line(lb: Leaderboard, c: Comparison) -> str:
    pct = f"{lb.confidence * 100:g}%"
    clustered = f", clustered by {lb.cluster}" if lb.cluster else ""
    return (f"{c.a} minus {c.b} on the questions both answered: mean paired difference [{pct} interval over "
            f"questions{clustered}], two-sided p-value (normal approximation of the paired t statistic; "
            "unadjusted)")


def _cmp_cells(c: Comparison) -> list[str]:
    return [c.metric, str(c.questions), _f(c.a_estimate), _f(c.b_estimate), f"{c.diff:+.4f}", _f(c.lo), _f(c.hi),
            "n/a" if c.p != c.p else f"{c.p:.3g}"]


def print_comparison(lb: Leaderboard, found: list[tuple[str | None, list[Comparison]]], console: Any) -> None:
    from rich.table import Table

    for group, comps in found:
        if not comps:
            continue
        title = f"kscore compare: {comps[0].a} vs {comps[0].b} ({lb.source})"
        if group is not None:
            title = f"{lb.by} = {group}"
        table = Table(title=_rich(title), caption=_rich(_cmp_line(lb, comps[0])) if group is None else None,
                      title_justify="left", caption_justify="left")
        for h in ["metric", "questions", comps[0].a, comps[0].b, "diff", "lo", "hi", "p"]:
            table.add_column(_rich(h), justify="left" if h == "metric" else "right")
        for c in comps:
            table.add_row(*_cmp_cells(c))
        console.print(table)


def render_comparison(lb: Leaderboard, found: list[tuple[str | None, list[Comparison]]], fmt: str) -> str:
    by = lb.by is not None
    if fmt == "json":
        comparisons: list[dict[str, Any]] = []
        for g, comps in found:
            for c in comps:
                item: dict[str, Any] = {"group": ALL if g is None else g} if by else {}
                item |= {"metric": c.metric, "a": c.a, "b": c.b, "questions": c.questions,
                         "a_estimate": _num(c.a_estimate), "b_estimate": _num(c.b_estimate), "diff": _num(c.diff),
                         "sigma": _num(c.sigma), "lo": _num(c.lo), "hi": _num(c.hi), "p": _num(c.p)}
                comparisons.append(item)
        doc = {"source": lb.source, "confidence": lb.confidence, "cluster": lb.cluster, "by": lb.by,
               "meaning": _cmp_line(lb, found[0][1][0]), "comparisons": comparisons}
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        w = CsvWriter(buf)
        w.writerow((["group"] if by else []) + ["metric", "a", "b", "questions", "a_estimate", "b_estimate", "diff",
                                                "sigma", "lo", "hi", "p"])
        for g, comps in found:
            for c in comps:
                w.writerow(([ALL if g is None else g] if by else []) +
                           [c.metric, c.a, c.b, c.questions] +
                           ["" if x != x else repr(x) for x in (c.a_estimate, c.b_estimate, c.diff, c.sigma, c.lo,
                                                                c.hi, c.p)])
        return buf.getvalue()
    lines: list[str] = []
    for g, comps in found:
        if g is not None:
            lines += ["", f"### {_md(str(lb.by))} = {_md(g)}", ""]
        a, b = _md(comps[0].a), _md(comps[0].b)
        lines += ["| " + " | ".join(["metric", "questions", a, b, "diff", "lo", "hi", "p"]) + " |",
                  "|:---|" + "---:|" * 7]
        lines += ["| " + " | ".join(_cmp_cells(c)) + " |" for c in comps]
    lines += ["", one_line(_cmp_line(lb, found[0][1][0])) + "."]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ kscore plan

def render_plan(lb: Leaderboard, power: float, fmt: str) -> str:
    """The design diagnostics of a board (and its ``--by`` groups) as text
    lines, JSON or Markdown (docs/rankings.md)."""
    from .._kscore import __version__

    boards = [lb, *lb.groups]
    plans = [b.plan(power=power) for b in boards]
    if fmt == "json":
        doc: dict[str, Any] = {"kscore": __version__, "source": lb.source, "plan": plans[0].to_dict()}
        if lb.by is not None:
            doc["by"] = lb.by
            doc["groups"] = [{"group": b.group, "plan": p.to_dict()} for b, p in zip(boards[1:], plans[1:])]
        doc["warnings"] = lb.warnings
        return json.dumps(doc, indent=2) + "\n"
    lines: list[str] = []
    for b, p in zip(boards, plans):
        title = f"kscore plan: {lb.source}" if b is lb else f"{lb.by} = {b.group}"
        if fmt == "markdown":
            lines += [f"{'##' if b is lb else '###'} {_md(title)}", ""] + [_md_line(x) for x in p.lines()] + [""]
        else:
            lines += [one_line(title), *(one_line(x) for x in p.lines()), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _md_line(line: str) -> str:
    """A plan line in Markdown: indented items as list items."""
    text = one_line(line.strip())
    return f"- {text}" if line.startswith("  ") else text
