"""The Markdown of a Board parses as GFM tables (markdown-it-py's table rule):
a row per model, a cell per column, each name and cell read back whole."""

from __future__ import annotations

from kscore.present.markdown import escape, render_markdown
from kscore.present.model import rank_text
from kscore.present.text import compact_cell

from .markdown_tables import tables
from .present_boards import board


def test_markdown_parses_as_a_table_with_whole_names_and_cells() -> None:
    b = board(40, 5, subsets=2)
    text = render_markdown(b)
    found = tables(text)
    assert len(found) == 3
    main = found[0]
    head = ["rank", "model", *(m.name for m in b.metrics), *(c.name for c in b.info)]
    assert main[0] == head
    assert len(main) == 1 + len(b.models)
    for i, row in enumerate(main[1:]):
        assert len(row) == len(head)
        assert row[0] == rank_text(b.ranks[i])
        assert row[1] == b.models[i]  # '|', '*', '_', '<', '&' in a name come back whole
        assert row[2:2 + len(b.metrics)] == [compact_cell(m.values[i], m.digits) for m in b.metrics]
    assert any("|" in name for name in b.models)
    assert b.footer in text
    for name, sub in b.subsets.items():
        assert f"### {escape(sub.title or name)}" in text


def test_escape_keeps_a_pipe_inside_its_cell() -> None:
    found = tables("| a | b |\n| --- | --- |\n| " + escape("x|y") + " | " + escape("*z*") + " |\n")
    assert found == [[["a", "b"], ["x|y", "*z*"]]]
