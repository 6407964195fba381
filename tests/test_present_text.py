"""The terminal table of a Board: 80 columns, no cut value, no duplicate name;
--wide shows everything; the adapter from a real Leaderboard."""

from __future__ import annotations

import io
import re

import numpy as np
import pyarrow as pa
import pytest

import kscore
from kscore.present.from_leaderboard import board_from_leaderboard
from kscore.present.model import Board, Estimate, MetricColumn, rank_text
from kscore.present.text import compact_cell, compact_cells, render_text, terminal_width, wide_cell

from .present_boards import board


def _table(text: str, b: Board) -> tuple[str, list[str]]:
    """The header line and a line per model."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if re.match(r"\s*rank\s+model", line))
    return lines[start], lines[start + 1:start + 1 + len(b.models)]


@pytest.mark.parametrize("n", [3, 40, 200])
def test_80_columns_no_cut_value_no_duplicate_name(n: int) -> None:
    b = board(n, 8)
    text = render_text(b, 80)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    header, rows = _table(text, b)
    shown = [m for m in b.metrics if re.search(rf"(^|\s){re.escape(m.name)}(\s|$)", header)]
    hidden = [m for m in b.metrics if m not in shown]
    assert shown and shown[0].name == b.sort
    assert hidden, "eight metrics do not fit in 80 columns beside the names"
    assert "not shown: " + ", ".join(m.name for m in hidden) in " ".join(text.splitlines())
    name_start = header.index("model")
    names = []
    for i, row in enumerate(rows):
        for m in shown:  # each value whole, right-aligned under its header
            e = compact_cell(m.values[i], m.digits)
            found = re.search(rf"(^|\s){re.escape(m.name)}(\s|$)", header)
            assert found is not None
            end = found.end(0) - header[found.end(0) - 1:found.end(0)].isspace()
            assert row[end - len(e):end] == e and row[end - len(e) - 1] == " ", (row, e)
        assert row[:name_start].strip() == rank_text(b.ranks[i])
        names.append(row[name_start:].split("  ")[0])
    assert len(set(names)) == len(names), names
    for full, short in zip(b.models, names):
        if short != full:
            assert "…" in short and len(short) < len(full)
    assert b.footer in " ".join(text.splitlines()[-3:])


def test_wide_shows_every_column_whole_names_and_interval_ends() -> None:
    b = board(30, 8)
    text = render_text(b, 80, wide=True)
    header, rows = _table(text, b)
    for m in b.metrics:
        assert m.name in header
    for i, name in enumerate(b.models):
        assert name in rows[i]
        v = b.metrics[0].values[i]
        assert wide_cell(v) in rows[i] and "[" in wide_cell(v)
    assert "not shown" not in text


def test_cells() -> None:
    assert compact_cell(Estimate(0.76894, 0.748, 0.7906)) == "0.769 ±0.021"
    assert compact_cell(Estimate(0.5)) == "0.500" and compact_cell(None) == "-"
    assert wide_cell(Estimate(0.76894, 0.748, 0.7906)) == "0.769 [0.748, 0.791]"


def test_compact_cells_are_each_compact_cell() -> None:
    """The column-wise cells (100 000 models) are the per-cell ones, on every
    kind of value: none, no interval, an end missing or infinite, NaN, a
    half-width that overflows, negative zero, rounding ties."""
    inf, nan = float("inf"), float("nan")
    rng = np.random.default_rng(7)
    values: list[Estimate | None] = [None, Estimate(0.5), Estimate(nan), Estimate(inf, 0.0, 1.0),
                                     Estimate(-0.0, -0.0, 0.0), Estimate(0.5, None, 0.7), Estimate(0.5, 0.3, inf),
                                     Estimate(0.5, nan, 0.6),
                                     Estimate(1.0, -1.7e308, 1.7e308), Estimate(0.0625, 0.0005, 0.0015),
                                     Estimate(12.5, 11.25, 13.75), Estimate(-0.0004, -0.0006, -0.0002)]
    values += [Estimate(float(x), float(x - w), float(x + w)) for x, w in zip(rng.random(500), rng.random(500) / 20)]
    for digits in (1, 3, 4):
        assert compact_cells(values, digits) == [compact_cell(v, digits) for v in values]


def test_piped_output_is_80_columns() -> None:
    assert terminal_width(io.StringIO()) == 80


def test_board_lengths_are_checked() -> None:
    with pytest.raises(ValueError, match="metric 'pass@1' has 1"):
        Board("t", ["a", "b"], [None, None], [MetricColumn("pass@1", [None])])


def test_from_leaderboard() -> None:
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    rng = np.random.default_rng(1)
    rows = [(f"lab/a-long-model-name-{m}-instruct", q, bool(rng.random() < 0.3 + m / 10))
            for m in range(5) for q in range(40) for _ in range(8)]
    lb = kscore.leaderboard(pa.table({"model": [r[0] for r in rows], "question": [r[1] for r in rows],
                                      "correct": [r[2] for r in rows]}))
    b = board_from_leaderboard(lb, curves=True)
    assert b.models == [r.model for r in lb.rows]
    cols = lb.columns()
    first = lb.metrics[0].name
    assert [v.value if v else None for v in b.metrics[0].values] == cols[first]
    assert [v.lo if v else None for v in b.metrics[0].values] == cols[f"{first}_lo"]
    assert [rank_text(r) for r in b.ranks] == cols["rank"]
    assert b.curves is not None and all(c is not None and c.k == list(range(1, 9)) for c in b.curves)
    c0 = b.curves[0]
    assert c0 is not None and b.metrics[0].name == "pass@1"
    v0 = b.metrics[0].values[0]
    assert v0 is not None and c0.value[0] == pytest.approx(v0.value)
    text = render_text(b, 80)
    assert all(len(line) <= 80 for line in text.splitlines()), text
