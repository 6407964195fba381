"""``kscore count FILE... -o counts.parquet``: the counts table, stored.

The reading half of ``kscore leaderboard``: every FILE (raw results, or
counts tables written earlier) to one table of per-(model, question)
counts, the counts of all added (docs/leaderboard.md, *Recomputation*).
The output follows the command line's rules for files (_write.py: written
to a temporary file beside it and renamed into place when complete,
refused before any reading when it cannot be written), with one
exception: it may be one of the inputs when that input is itself a counts
table, so that ``kscore count board.parquet new.parquet -o board.parquet``
updates a stored board in place (the old table is read whole before the
new one replaces it). A Parquet table records in its footer the raw files
it holds, so that adding one of them again is refused.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ._errors import CliError, one_line
from ._write import check_outputs, refuse_inputs, write_atomic


def add_count_parser(sub: Any) -> None:
    """The ``count`` subcommand's flags."""
    from ..formats import FORMATS as TOOL_FORMATS

    p = sub.add_parser(
        "count", help="write the counts table (per model and question) of results files, to rank later",
        description="Count long-format results (or add up counts tables written earlier) into one counts table: "
                    "columns model, question, n, c (and c_0..c_C with --weights), one row per (model, "
                    "question). The table is itself a source of kscore leaderboard and kscore count, so a new "
                    "model's results are added to a stored board by reading only them.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore count 'results/*.parquet' -o board.parquet\n"
               "  kscore count board.parquet new_model.parquet -o board.parquet\n"
               "  kscore leaderboard board.parquet\n"
               "\nexit status: 0 ok, 1 error (or data warnings with --strict), 2 bad usage")
    p.add_argument("file", nargs="+", help="results files, directories or globs (as for kscore leaderboard) and "
                                           "counts tables, mixed; their counts are added")
    p.add_argument("--output", "-o", metavar="FILE", required=True,
                   help="the counts table to write: Parquet (.parquet, or any other name) or CSV (.csv)")
    p.add_argument("--input-format", choices=["csv", "tsv", "jsonl", "parquet", "npy", "npz", *TOOL_FORMATS],
                   help="file format (default: by extension)")
    p.add_argument("--memory-limit", metavar="SIZE",
                   help="most memory DuckDB may use while reading, e.g. 512MB, 2GB (as for kscore leaderboard)")
    cols = p.add_argument_group("columns (default: auto-detected from common spellings)")
    cols.add_argument("--model-col", metavar="NAME", help="model column")
    cols.add_argument("--question-col", metavar="NAME", help="question id column")
    cols.add_argument("--outcome-col", metavar="NAME", help="outcome column")
    cols.add_argument("--sample-col", metavar="NAME", help="sample index column, optional")
    p.add_argument("--weights", metavar="LIST",
                   help="rewards of outcome categories 0..C (only their number matters here: graded outcomes "
                        "get columns c_0..c_C); give the leaderboard the same")
    p.add_argument("--cluster", metavar="COLUMN", help="a question column to keep beside the counts")
    p.add_argument("--by", metavar="COLUMN", help="another question column to keep beside the counts")
    p.add_argument("--strict", action="store_true", help="treat data warnings as errors (nothing is written)")
    p.add_argument("--quiet", "-q", action="store_true", help="do not print warnings, notes or progress")
    p.add_argument("--progress", action="store_true", help="show the reading progress even when stderr is not a "
                                                           "terminal")


def count_command(args: argparse.Namespace, err: Any) -> int:
    """Read every FILE, add the counts, write the table atomically."""
    from ..leaderboard.api import (
        Issues,
        LeaderboardError,
        Progress,
        count,
        counted,
        input_files,
        is_counts_file,
        read_keywords,
        write_counts,
    )

    output = str(args.output)
    check_outputs([output])
    for f in args.file:
        files = input_files(f)
        if any(_same(output, x) for x in files) and not (len(files) == 1 and is_counts_file(str(files[0]),
                                                                                             args.input_format)):
            refuse_inputs([("--output", output)], files)  # raises: an input of raw results
    show = not args.quiet and (args.progress or err.is_terminal)
    progress = Progress(err if show else None, delay=0.0 if args.progress else 1.0)
    issues = Issues()
    source: Any = args.file[0] if len(args.file) == 1 else list(args.file)
    try:
        record = counted(list(args.file))  # (refuses a raw file a stored table already holds)
        counts = count(source, weights=args.weights, strict=args.strict, issues=issues, progress=progress,
                       **read_keywords(args))
    except LeaderboardError as exc:
        raise CliError(str(exc)) from exc
    if not args.quiet:
        for note in issues.notes:
            err.print(f"kscore: note: {one_line(note)}", markup=False, soft_wrap=True)
        for warning in issues.warnings:
            err.print(f"kscore: warning: {one_line(warning)}", markup=False, soft_wrap=True, style="yellow")
    write_atomic(Path(output), lambda tmp: write_counts(counts, tmp, _format(output), record))
    return 0


def _format(output: str) -> str:
    from ..leaderboard.api import output_format

    return output_format(output)


def _same(a: str, b: Path) -> bool:
    import os

    try:
        return os.path.realpath(a) == os.path.realpath(b) or os.path.samefile(a, b)
    except OSError:
        return False
