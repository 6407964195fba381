"""An arena result as CSV and JSON: one record per model (model, rating
with full precision, lo, hi, rank, rank_lo, rank_hi, se, battles,
could_be_best), so that other tools can read it. JSON holds every board
(main, without style control, each category) with its notes, the style
coefficients and the fragility of #1."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

FIELDS = ["model", "rating", "lo", "hi", "rank", "rank_lo", "rank_hi", "se", "battles", "could_be_best"]


def arena_csv(result: Any) -> str:
    """The main board's records as CSV (a ``board`` column names each board
    when there are several)."""
    boards = _boards(result)
    out = io.StringIO()
    several = len(boards) > 1
    w = csv.DictWriter(out, (["board"] if several else []) + FIELDS, lineterminator="\n")
    w.writeheader()
    for name, b in boards.items():
        for rec in b.records():
            w.writerow({"board": name, **rec} if several else rec)
    return out.getvalue()


def _boards(result: Any) -> dict[str, Any]:
    boards = {result.board.title: result.board}
    if result.without_style is not None:
        boards[result.without_style.title] = result.without_style
    boards.update({f"category: {k}": v for k, v in result.categories.items()})
    return boards


def _board_json(b: Any) -> dict[str, Any]:
    return {"title": b.title, "intervals": b.intervals, "confidence": b.confidence, "rounds": b.rounds,
            "models": b.records(), "could_be_best": b.could_be_best, "notes": b.notes,
            "style": None if b.style is None else {k: {"coefficient": v[0], "lo": v[1], "hi": v[2]}
                                                   for k, v in b.style.items()},
            "fragility": None if b.fragility is None else asdict(b.fragility),
            "win_probability": [[float(x) for x in row] for row in b.win_prob]}


def arena_json(result: Any) -> str:
    """``{"models": [...records of the main board...], "boards": {...}, ...}``."""
    doc = {"models": result.board.records(), "options": {k: v for k, v in result.options.items()},
           "warnings": result.warnings, "boards": {name: _board_json(b) for name, b in _boards(result).items()}}
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"
