"""Rendering the leaderboard: a rich table, CSV, JSON or Markdown."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass
from typing import Any

from ..leaderboard import Metric, ModelRow
from ..leaderboard._rank import rank_label


@dataclass
class Board:
    rows: list[ModelRow]
    metrics: list[Metric]
    sort: Metric
    confidence: float
    source: str
    n_questions: int
    n_samples: int
    weights: list[float]
    warnings: list[str]
    n_models: int = 0


def _samples(r: ModelRow) -> str:
    return str(r.n_min) if r.n_min == r.n_max else f"{r.n_min}-{r.n_max}"


def _cell(r: ModelRow, m: Metric) -> str:
    v = r.values.get(m.name)
    if v is None:
        return "n/a"
    return f"{v.mean:.4f} [{v.lo:.4f}, {v.hi:.4f}]"


def _num(x: float) -> float | None:
    return None if math.isnan(x) else x


def to_csv(board: Board) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    head = ["rank", "rank_lo", "rank_hi", "model", "questions", "samples_min", "samples_max", "accuracy"]
    for m in board.metrics:
        head += [m.name, f"{m.name}_sigma", f"{m.name}_lo", f"{m.name}_hi", f"{m.name}_estimate"]
    w.writerow(head)
    for r in board.rows:
        line: list[Any] = [rank_label(r), r.rank[0] if r.rank else "", r.rank[1] if r.rank else "", r.model,
                           r.questions, r.n_min, r.n_max, repr(r.accuracy)]
        for m in board.metrics:
            v = r.values.get(m.name)
            line += ["", "", "", "", ""] if v is None else [repr(v.mean), repr(v.sigma), repr(v.lo),
                                                             repr(v.hi), repr(v.estimate)]
        w.writerow(line)
    return buf.getvalue()


def to_json(board: Board) -> str:
    from .. import __version__

    doc = {
        "kscore": __version__,
        "source": board.source,
        "questions": board.n_questions,
        "samples": board.n_samples,
        "weights": board.weights,
        "confidence": board.confidence,
        "sort": board.sort.name,
        "metrics": [m.name for m in board.metrics],
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
                             {"mean": _num(v.mean), "sigma": _num(v.sigma), "lo": _num(v.lo),
                              "hi": _num(v.hi), "estimate": _num(v.estimate)})
                    for m in board.metrics
                },
            }
            for r in board.rows
        ],
        "warnings": board.warnings,
    }
    return json.dumps(doc, indent=2) + "\n"


def _caption(board: Board) -> str:
    pct = f"{board.confidence * 100:g}%"
    shown = (
        f"{len(board.rows)} models"
        if len(board.rows) >= board.n_models
        else f"top {len(board.rows)} of {board.n_models} models"
    )
    return (f"{board.n_samples:,} samples, {shown}, {board.n_questions:,} questions; "
            f"metrics: posterior mean [{pct} credible interval]; accuracy: mean reward per sample; "
            f"sorted by {board.sort.name}; models whose intervals overlap share a rank range")


def to_markdown(board: Board) -> str:
    head = ["rank", "model", "questions", "samples", "accuracy"] + [m.name for m in board.metrics]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(["---:", ":---", "---:", "---:", "---:"] +
                                                             ["---:"] * len(board.metrics)) + "|"]
    for r in board.rows:
        cells = [rank_label(r), r.model.replace("|", "\\|"), str(r.questions), _samples(r), f"{r.accuracy:.4f}"]
        cells += [_cell(r, m) for m in board.metrics]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + f"\n\n{_caption(board)}.\n"


def print_table(board: Board, console: Any) -> None:
    from rich.table import Table

    table = Table(title=f"kscore leaderboard: {board.source}", caption=_caption(board), title_justify="left",
                  caption_justify="left")
    table.add_column("rank", justify="right")
    table.add_column("model", style="bold")
    table.add_column("questions", justify="right")
    table.add_column("samples", justify="right")
    table.add_column("accuracy", justify="right")
    for m in board.metrics:
        table.add_column(m.name + (" *" if m == board.sort else ""), justify="right")
    for r in board.rows:
        cells = [rank_label(r), r.model, f"{r.questions:,}", _samples(r), f"{r.accuracy:.4f}"]
        for m in board.metrics:
            v = r.values.get(m.name)
            cells.append("n/a" if v is None else f"{v.mean:.4f} [dim]\\[{v.lo:.4f}, {v.hi:.4f}][/dim]")
        table.add_row(*cells)
    console.print(table)


def render(board: Board, fmt: str) -> str:
    if fmt == "csv":
        return to_csv(board)
    if fmt == "json":
        return to_json(board)
    if fmt == "markdown":
        return to_markdown(board)
    raise ValueError(fmt)
