"""The output formats, one row each: its name (``--format``), the file
suffixes that pick it (``--output FILE``), what it renders for each
command's result, and what the board must carry for it (computed before
rendering: :func:`kscore.present.from_leaderboard.command_board`). The
command line takes its choices and its writer from here; a new format is
one row here and one file of renderers in ``present/`` (CONTRIBUTING.md,
*Output*).

The paired comparisons streamed by ``--pairwise-output`` have their own
row each (:data:`PAIR_FORMATS`); plots are picked by their extension in
:mod:`kscore.present.plot`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..leaderboard.api import Leaderboard
from .console import comparison_table, wide_table
from .from_leaderboard import command_board
from .html import render_html
from .markdown import comparison_markdown, markdown_document, plan_markdown
from .model import Board, ComparisonReport, PlanReport, Target
from .tabular import (
    comparison_csv,
    comparison_json,
    plan_json,
    render_csv,
    render_json,
    write_pairs_csv,
    write_pairs_jsonl,
)
from .text import plan_text, render_compact, terminal_width


def _table(board: Board, target: Target) -> str:
    """The terminal table: compact within the width, or whole (``--wide``)."""
    return wide_table(board, target) if target.wide else render_compact(board, max(target.width, 40))


@dataclass(frozen=True)
class Format:
    """One output format: ``name``, the ``suffixes`` of the files it is
    written to by default, its renderer of each command's result (None:
    the command does not write it) and what a board needs for it."""

    name: str
    suffixes: tuple[str, ...]
    board: Callable[[Board, Target], str] | None = None
    comparison: Callable[[ComparisonReport, Target], str] | None = None
    plan: Callable[[PlanReport, Target], str] | None = None
    needs: frozenset[str] = frozenset()


FORMATS: tuple[Format, ...] = (
    Format("table", (), board=_table, comparison=comparison_table, plan=lambda r, t: plan_text(r),
           needs=frozenset({"rows", "plan"})),
    Format("csv", (".csv",), board=lambda b, t: render_csv(b), comparison=lambda r, t: comparison_csv(r),
           needs=frozenset({"table"})),
    Format("json", (".json",), board=lambda b, t: render_json(b), comparison=lambda r, t: comparison_json(r),
           plan=lambda r, t: plan_json(r), needs=frozenset({"rows", "json", "plan"})),
    Format("markdown", (".md", ".markdown"), board=lambda b, t: markdown_document(b),
           comparison=lambda r, t: comparison_markdown(r), plan=lambda r, t: plan_markdown(r),
           needs=frozenset({"rows", "plan"})),
    Format("html", (".html", ".htm"), board=lambda b, t: render_html(b),
           needs=frozenset({"rows", "page", "plan"})),
)

#: The formats by name.
BY_NAME = {f.name: f for f in FORMATS}


def names(command: str) -> list[str]:
    """The formats ``command`` (``board``, ``comparison`` or ``plan``) writes."""
    return [f.name for f in FORMATS if getattr(f, command) is not None]


def from_suffix(path: str) -> str:
    """The format a file's suffix picks (``table`` for any other).

    >>> from_suffix("board.MD"), from_suffix("page.htm"), from_suffix("board.txt")
    ('markdown', 'html', 'table')
    """
    suffix = Path(path).suffix.lower()
    return next((f.name for f in FORMATS if suffix in f.suffixes), "table")


def target(output: str | None, wide: bool = False) -> Target:
    """Where an output goes: ``output`` (a file), else standard output."""
    import sys

    if output:
        return Target(file=True, wide=wide)
    stream: Any = sys.stdout
    tty = bool(stream.isatty())
    return Target(file=False, tty=tty, encoding=getattr(stream, "encoding", None) or "utf-8",
                  width=terminal_width(stream), wide=wide)


@dataclass(frozen=True)
class PairFormat:
    """How ``--pairwise-output`` streams the pairs to a file with one of ``suffixes``."""

    name: str
    suffixes: tuple[str, ...]
    write: Callable[[Iterable[dict[str, Any]], str, str | Path], int]


PAIR_FORMATS: tuple[PairFormat, ...] = (
    PairFormat("jsonl", (".jsonl", ".json", ".ndjson"), write_pairs_jsonl),
    PairFormat("csv", (), write_pairs_csv),
)


def pair_format(path: str) -> PairFormat:
    """The pairs' format a file's name picks (CSV for any other suffix)."""
    return next((f for f in PAIR_FORMATS if path.lower().endswith(f.suffixes)), PAIR_FORMATS[-1])


def render_leaderboard(lb: Leaderboard, fmt: str, top: int | None = None,
                       pairwise: tuple[str, int | None] = ("auto", None), plan: bool = False,
                       target: Target | None = None) -> str:
    """``lb`` as ``kscore leaderboard`` writes it in format ``fmt`` (its
    first ``top`` models; ``pairwise`` and ``plan`` as ``--pairwise`` and
    ``--plan``), to a file unless ``target`` says otherwise. (Below: a
    minus b is 0.75 on both questions, so significant; the intervals are
    0.875 and 0.125 +- 1.96 x 0.125, clipped to [0, 1].)

    >>> import kscore, pandas as pd
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "question": [1, 2, 1, 2], "n": 4, "c": [4, 3, 1, 0]})
    >>> print(render_leaderboard(kscore.leaderboard(df, metrics="pass@1"), "csv"), end="")
    rank,rank_lo,rank_hi,model,questions,samples_min,samples_max,accuracy,pass@1,pass@1_sigma,pass@1_lo,pass@1_hi
    1,1,1,a,2,4,4,0.875,0.875,0.125,0.6300045019324932,1.0
    2,2,2,b,2,4,4,0.125,0.125,0.125,0.0,0.36999549806750676
    """
    f = BY_NAME[fmt]
    if f.board is None:  # pragma: no cover - every format writes a board
        raise ValueError(f"no board in {fmt}")
    board = command_board(lb, f.needs, top=top, pairwise=pairwise, plan=plan)
    return f.board(board, target or Target())
