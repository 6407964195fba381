"""``kscore arena``'s formats: an arena result (:class:`kscore.arena.ArenaResult`)
as the terminal table, CSV, JSON, Markdown or the HTML page. The command
line only picks the format and writes the text (cli/_arena.py); the tables
and the page come from the leaderboard's renderers through the arena's
:class:`~kscore.present.model.Board` (present/arena_board.py), the records
from present/arena_tabular.py."""

from __future__ import annotations

from typing import Any

from .arena_board import result_board
from .arena_tabular import arena_csv, arena_json
from .html import render_html
from .markdown import render_markdown
from .text import render_text

#: The formats ``kscore arena`` writes (``--format``'s choices), the first the default.
ARENA_FORMATS = ("table", "csv", "json", "markdown", "html")


def render_arena(result: Any, fmt: str) -> str:
    """The result in ``fmt`` (one of :data:`ARENA_FORMATS`): the main
    board, then each subset's table (without style control, each category)."""
    if fmt == "csv":
        return arena_csv(result)
    if fmt == "json":
        return arena_json(result)
    board = result_board(result, matrix=fmt == "html")
    if fmt == "markdown":
        return render_markdown(board)
    if fmt == "html":
        return render_html(board)
    parts = [render_text(board)]
    parts += [render_text(sub) for sub in board.subsets.values()]
    return "\n".join(parts)
