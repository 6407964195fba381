"""The ``kscore`` command line: ``kscore leaderboard [FILE]``.

Needs the ``cli`` extra (``pip install 'kscore[cli]'``: pyarrow, rich,
matplotlib); the package itself depends on numpy only, so these are
imported lazily, inside the command.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from importlib import resources
from pathlib import Path
from typing import Any

from ._errors import CliError
from ._write import refuse_inputs, write_atomic

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
SAMPLE = "sample_results.csv.gz"


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__
    from ..formats import FORMATS as TOOL_FORMATS

    parser = argparse.ArgumentParser(
        prog="kscore", description="Fast, exact metrics with credible intervals for sampled LLM outputs.")
    parser.add_argument("--version", action="version", version=f"kscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    lb = sub.add_parser(
        "leaderboard", help="rank models from a results file",
        description="Rank models from long-format results (one row per graded sample: model, question, outcome"
                    "[, sample]) in CSV, JSON Lines or Parquet, or from wide outcome arrays (.npy/.npz). "
                    "With no FILE, runs on the sample results shipped with kscore.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore leaderboard\n"
               "  kscore leaderboard results.parquet --k 1,8,64 --sort pass@8\n"
               "  kscore leaderboard graded.csv --weights 0,0.5,1 --metric bayes@N\n"
               "  kscore leaderboard results.jsonl --format markdown --output board.md --plot curves.png\n"
               "\nexit status: 0 ok, 1 error (or data warnings with --strict), 2 bad usage")
    lb.add_argument("file", nargs="?", help="results file (.csv[.gz|.zst], .tsv, .jsonl, .parquet, .npy, .npz), a "
                                            "directory or a glob of them (quote it: 'results/*.parquet'), or an "
                                            "evaluation tool's own files: inspect_ai logs, human-eval/evalplus "
                                            "results, lm-eval --log_samples, lighteval details (docs/formats.md)")
    lb.add_argument("--input-format", choices=["csv", "tsv", "jsonl", "parquet", "npy", "npz", *TOOL_FORMATS],
                    help="file format (default: an evaluation tool's files are recognised, others go by extension)")
    cols = lb.add_argument_group("columns (default: auto-detected from common spellings)")
    cols.add_argument("--model-col", metavar="NAME", help="model column (model, model_name, system, ...)")
    cols.add_argument("--question-col", metavar="NAME",
                      help="question id column (question, question_id, problem, task_id, id, prompt_id, ...)")
    cols.add_argument("--outcome-col", metavar="NAME",
                      help="outcome column (outcome, correct, is_correct, passed, score, label, reward, ...)")
    cols.add_argument("--sample-col", metavar="NAME",
                      help="sample index column, optional (sample, sample_idx, attempt, trial, seed, ...)")
    met = lb.add_argument_group("metrics")
    met.add_argument("--metric", action="append", metavar="LIST",
                     help="metrics to show, comma-separated or repeated: pass@K, pass^K, maj@K (K a number, or k "
                          "for each --k), bayes@N (default: pass@1, pass@k, maj@<largest k>, bayes@N)")
    met.add_argument("--k", metavar="LIST", help="budgets for pass@k/maj@k (default: 1,4,16 bounded by the "
                                                  "fewest samples per question)")
    met.add_argument("--sort", metavar="METRIC", help="rank by this metric (default: bayes@N if shown, else the first)")
    met.add_argument("--weights", metavar="LIST",
                     help="rewards of outcome categories 0..C, e.g. 0,0.5,1 (default 0,1: binary outcomes); "
                          "pass/maj metrics then count the top category as correct")
    met.add_argument("--confidence", type=float, default=0.95, help="credible level of the intervals (default 0.95)")
    out = lb.add_argument_group("output")
    out.add_argument("--format", choices=["table", "csv", "json", "markdown"],
                     help="output format (default: table, or from the --output extension)")
    out.add_argument("--output", "-o", metavar="FILE", help="write the leaderboard to FILE instead of stdout")
    out.add_argument("--top", type=int, metavar="N", help="show only the first N models")
    out.add_argument("--plot", metavar="FILE.png", help="draw pass@k curves (k = 1..N) with credible bands")
    out.add_argument("--strict", action="store_true",
                     help="treat data warnings (bad rows, duplicates, missing questions, ...) as errors")
    out.add_argument("--quiet", "-q", action="store_true", help="do not print warnings, notes or progress")
    out.add_argument("--progress", action="store_true",
                     help="show the reading progress even when stderr is not a terminal (default: on a terminal, "
                          "for inputs taking over a second)")
    return parser


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output:
        suffix = Path(args.output).suffix.lower()
        return {".csv": "csv", ".json": "json", ".md": "markdown", ".markdown": "markdown"}.get(suffix, "table")
    return "table"


def _size(path: Path) -> str:
    n = float(path.stat().st_size)
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f" ({n:.0f} {unit})" if unit == "B" else f" ({n:.1f} {unit})"
        n /= 1000
    return ""  # pragma: no cover


def leaderboard(args: argparse.Namespace) -> int:
    """The command: kscore.leaderboard() does the work; this prints it."""
    try:
        from rich.console import Console
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise CliError("kscore leaderboard needs the cli extra: pip install 'kscore[cli]'") from exc
    from ..leaderboard import Leaderboard, LeaderboardError, Progress, input_files
    from ..leaderboard import leaderboard as run
    from ._output import Board

    err = Console(stderr=True, highlight=False)
    if args.top is not None and args.top < 1:
        raise CliError("--top must be at least 1")
    fmt = _format(args)
    if args.file is not None:
        refuse_inputs([("--output", args.output), ("--plot", args.plot)], input_files(args.file))
    show = not args.quiet and (args.progress or err.is_terminal)
    bar = Console(stderr=True, force_terminal=True, width=max(err.width, 120)) if args.progress else err
    progress = Progress(bar if show else None, delay=0.0 if args.progress else 1.0)
    t0 = time.perf_counter()
    with ExitStack() as stack:
        if args.file is None:
            source: Any = stack.enter_context(resources.as_file(resources.files("kscore.data").joinpath(SAMPLE)))
        else:
            source = args.file
        try:
            board: Leaderboard = run(
                source, metrics=args.metric, k=args.k, sort=args.sort, weights=args.weights,
                confidence=args.confidence, model_col=args.model_col, question_col=args.question_col,
                outcome_col=args.outcome_col, sample_col=args.sample_col, input_format=args.input_format,
                progress=progress)
        except LeaderboardError as exc:
            raise CliError(str(exc)) from exc
    if args.file is None:
        board.source = f"kscore sample ({SAMPLE})"
    if args.strict and board.warnings:
        return _strict_fail(err, board.warnings)
    t_total = time.perf_counter() - t0
    if not args.quiet:
        for note in board.notes:
            err.print(f"kscore: note: {note}", markup=False, soft_wrap=True)
        for warning in board.warnings:
            err.print(f"kscore: warning: {warning}", markup=False, soft_wrap=True, style="yellow")
    rows = board.rows if args.top is None else board.rows[: args.top]
    shown = Board(rows, board.metrics, board.sort, board.confidence, board.source, board.n_questions,
                  board.n_samples, board.weights, board.warnings, len(board.rows))
    _write_board(shown, fmt, args.output, Console)
    if args.plot:
        from ._plot import plot

        plot(Path(args.plot), board, board.confidence)
    if not args.quiet and os.environ.get("KSCORE_TIMING"):
        err.print(f"kscore: total {t_total:.3f} s", markup=False)
    return EXIT_OK


def _write_board(board: Any, fmt: str, output: str | None, console: Any) -> None:
    from ._output import print_table, render

    if fmt == "table":
        if output:
            def write_table(tmp: Path) -> None:
                with open(tmp, "w", encoding="utf-8") as fh:
                    print_table(board, console(file=fh, width=400, color_system=None, highlight=False))

            write_atomic(Path(output), write_table)
        else:
            out = console(highlight=False) if sys.stdout.isatty() else console(width=400, highlight=False)
            print_table(board, out)
        return
    text = render(board, fmt)
    if output:
        write_atomic(Path(output), lambda tmp: tmp.write_text(text, encoding="utf-8"))
    else:
        sys.stdout.write(text)
        sys.stdout.flush()


def _strict_fail(err: Any, warnings: list[str]) -> int:
    for warning in warnings:
        err.print(f"kscore: error: {warning.replace(' (skipped)', '')}", markup=False, soft_wrap=True)
    err.print(f"kscore: error: {len(warnings)} data problem(s) and --strict given", markup=False)
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        return leaderboard(args)
    except CliError as exc:
        print(f"kscore: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("kscore: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # Output piped into a command that stopped reading (e.g. head).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except MemoryError:
        print("kscore: error: out of memory", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a tool ends with one line, not a traceback
        if os.environ.get("KSCORE_DEBUG"):
            raise
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"kscore: error: {type(exc).__name__}: {first} (set KSCORE_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_ERROR


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())
