"""``kscore arena FILE...``: ratings from pairwise battles (docs/arena.md).
Parses flags, calls :func:`kscore.arena`, has ``present/`` render the result
(present/arena_formats.py) and writes (atomically, as every output of the command line)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..present.arena_formats import ARENA_FORMATS, render_arena
from ._errors import CliError, one_line
from ._write import check_outputs, write_atomic

FORMATS = {".csv": "csv", ".json": "json", ".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}


def add_arena_parser(sub: Any) -> None:
    """The ``arena`` subcommand's flags."""
    p = sub.add_parser(
        "arena", help="rate models from pairwise battles or judge verdicts (Bradley-Terry, LMArena's scale)",
        description="Bradley-Terry ratings from battles (model_a, model_b, winner: model_a, model_b, tie, tie "
                    "(bothbad); A/B/tie; 1/0/0.5), with sandwich or bootstrap intervals, rank ranges, the "
                    "win-probability matrix, style control and the fragility of #1. Reads LMArena's battle dumps, "
                    "arena-hard-auto's judgments, CSV, JSON Lines, Parquet, folders and globs.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore arena battles.parquet\n"
               "  kscore arena battles.parquet --format json -o board.json\n"
               "  kscore arena battles.jsonl --intervals bootstrap --rounds 1000 --prompt-col question_id\n"
               "  kscore arena clean_battle.json --style conv_metadata --by category\n"
               "  kscore arena 'model_judgment/gpt-4.1/*.jsonl' --anchor o3-mini-2025-01-31=1000\n"
               "\nexit status: 0 ok, 1 error (or data warnings with --strict), 2 bad usage")
    p.add_argument("file", nargs="+", help="battle files, folders or globs (quote globs)")
    p.add_argument("--input-format", choices=["csv", "tsv", "jsonl", "json", "parquet"],
                   help="file format (default: by extension)")
    cols = p.add_argument_group("columns (default: auto-detected from common spellings)")
    for role, what in [("model-a", "first model"), ("model-b", "second model"),
                       ("winner", "winner (model_a, model_b, tie, tie (bothbad); A/B/tie; 1/0/0.5)"),
                       ("weight", "battle weight, optional"),
                       ("prompt", "prompt id, optional: sandwich clustered by prompt, bootstrap by prompt")]:
        cols.add_argument(f"--{role}-col", metavar="NAME", help=f"the {what} column")
    cols.add_argument("--by", metavar="COLUMN", help="a category column: a board per value beside the overall one")
    cols.add_argument("--style", metavar="LIST",
                      help="style control: conv_metadata (LMArena's token/header/list/bold counts) or feature "
                           "columns, comma-separated (NAME, or NAME_a and NAME_b); the plain board is shown beside")
    r = p.add_argument_group("ratings and intervals")
    r.add_argument("--intervals", choices=["sandwich", "bootstrap"], default="sandwich",
                   help="sandwich (default: robust, clustered by prompt with --prompt-col) or bootstrap")
    r.add_argument("--rounds", type=int, default=1000, help="bootstrap rounds (default 1000)")
    r.add_argument("--bootstrap-by", choices=["battle", "prompt"],
                   help="what the bootstrap resamples (default: prompt with --prompt-col, else battle)")
    r.add_argument("--ties", choices=["half", "drop"], default="half", help="ties as half a win (default) or dropped")
    r.add_argument("--anchor", metavar="MODEL=RATING", help="put MODEL at RATING (default: the mean at --offset)")
    r.add_argument("--scale", type=float, default=400.0, help="rating points per factor --base of odds (400)")
    r.add_argument("--base", type=float, default=10.0, help="odds base (10)")
    r.add_argument("--offset", type=float, default=1000.0, help="the mean rating (1000)")
    r.add_argument("--reweight", action="store_true", help="arena-rank's 1/max(pair battles, 50) weights")
    r.add_argument("--confidence", type=float, default=0.95, help="level of intervals and rank sets (0.95)")
    r.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    r.add_argument("--no-fragility", action="store_true", help="skip the drop-k fragility check of #1")
    out = p.add_argument_group("output")
    out.add_argument("--format", choices=ARENA_FORMATS,
                     help="output format (default: table, or from the --output extension)")
    out.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    out.add_argument("--strict", action="store_true", help="a bad row is an error, not a skipped row")
    out.add_argument("--quiet", "-q", action="store_true", help="do not print warnings or notes")


def arena_command(args: argparse.Namespace, err: Any) -> int:
    """Run ``kscore arena``."""
    from ..arena import ArenaError, arena

    if args.output:
        check_outputs([str(args.output)])
    fmt = args.format or (FORMATS.get(Path(args.output).suffix.lower(), "table") if args.output else "table")
    anchor = None
    if args.anchor:
        name, _, value = args.anchor.rpartition("=")
        try:
            anchor = (name, float(value))
        except ValueError:
            raise CliError(f"--anchor {args.anchor!r}: expected MODEL=RATING") from None
    style: Any = None
    if args.style:
        style = [s.strip() for s in args.style.split(",") if s.strip()]
    source: Any = args.file[0] if len(args.file) == 1 else list(args.file)
    try:
        result = arena(source, model_a=args.model_a_col, model_b=args.model_b_col, winner=args.winner_col,
                       weight=args.weight_col, prompt=args.prompt_col, by=args.by, style=style, ties=args.ties,
                       scale=args.scale, base=args.base, offset=args.offset, anchor=anchor, reweight=args.reweight,
                       intervals=args.intervals, rounds=args.rounds, bootstrap_by=args.bootstrap_by,
                       confidence=args.confidence, seed=args.seed, fragility=not args.no_fragility,
                       input_format=args.input_format, strict=args.strict)
    except (ArenaError, ValueError) as exc:
        raise CliError(str(exc)) from exc
    if not args.quiet:
        for w in result.warnings:
            err.print(f"kscore: warning: {one_line(w)}", markup=False, soft_wrap=True, style="yellow")
    text = render_arena(result, fmt)
    if args.output:
        write_atomic(Path(args.output), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    else:
        import sys

        sys.stdout.write(text)
        sys.stdout.flush()
    return 0
