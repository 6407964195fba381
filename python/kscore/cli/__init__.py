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
from contextlib import AbstractContextManager, ExitStack, nullcontext
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ._errors import CliError, Issues
from ._write import refuse_inputs, write_atomic

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
SAMPLE = "sample_results.csv.gz"


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

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
    lb.add_argument("file", nargs="?", help="results file (.csv[.gz], .tsv, .jsonl, .parquet, .npy, .npz)")
    lb.add_argument("--input-format", choices=["csv", "tsv", "jsonl", "parquet", "npy", "npz"],
                    help="file format (default: from the extension)")
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
    out.add_argument("--quiet", "-q", action="store_true", help="do not print warnings and notes")
    return parser


def _weights(text: str | None) -> np.ndarray:
    if text is None:
        return np.array([0.0, 1.0])
    try:
        w = np.array([float(t) for t in text.replace(" ", "").split(",") if t])
    except ValueError as exc:
        raise CliError(f"--weights takes numbers separated by commas, e.g. 0,0.5,1; got {text!r}") from exc
    if len(w) < 2 or not np.all(np.isfinite(w)):
        raise CliError(f"--weights needs at least two finite numbers (one per category 0..C); got {text!r}")
    return w


def _format(args: argparse.Namespace) -> str:
    if args.format:
        return str(args.format)
    if args.output:
        suffix = Path(args.output).suffix.lower()
        return {".csv": "csv", ".json": "json", ".md": "markdown", ".markdown": "markdown"}.get(suffix, "table")
    return "table"


def leaderboard(args: argparse.Namespace) -> int:
    try:
        from rich.console import Console
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise CliError("kscore leaderboard needs the cli extra: pip install 'kscore[cli]'") from exc
    from ._metrics import compute, default_ks, parse_ks, parse_metrics, rank, resolve_sort
    from ._output import Board, print_table, render
    from ._read import ColumnNames, Results, read_results, size_label

    err = Console(stderr=True, highlight=False)
    issues = Issues()
    if not 0.0 < args.confidence < 1.0:
        raise CliError(f"--confidence must lie in (0, 1); got {args.confidence}")
    if args.top is not None and args.top < 1:
        raise CliError("--top must be at least 1")
    w = _weights(args.weights)
    ks_given = parse_ks(args.k)
    names = ColumnNames(args.model_col, args.question_col, args.outcome_col, args.sample_col)
    fmt = _format(args)
    if args.file is not None:
        refuse_inputs([("--output", args.output), ("--plot", args.plot)], [Path(args.file)])
    t0 = time.perf_counter()

    def status(text: str) -> AbstractContextManager[Any]:
        return err.status(text) if err.is_terminal else nullcontext()

    with ExitStack() as stack:
        if args.file is None:
            path = stack.enter_context(resources.as_file(resources.files("kscore.data").joinpath(SAMPLE)))
            shown_source = f"kscore sample ({SAMPLE})"
        else:
            path = Path(args.file)
            shown_source = args.file
        size = size_label(path) if path.is_file() else ""
        with status(f"Reading {shown_source} ({size})"):
            results: Results = read_results(path, args.input_format, names, len(w), issues)
        if args.file is None:
            results.source = shown_source
    t_read = time.perf_counter() - t0

    n = results.counts.sum(axis=2)
    have = n > 0
    n_min = int(n[have].min())
    ks = ks_given if ks_given is not None else default_ks(n_min)
    metrics = parse_metrics(args.metric, ks)
    sort = resolve_sort(args.sort, metrics)
    _coverage(results, n, have, issues)
    if args.strict and issues.warnings:
        return _strict_fail(err, issues)

    done = [0]
    with status(f"Computing {len(metrics)} metrics for {len(results.models)} models") as st:
        def progress(i: int) -> None:
            done[0] = i
            if st is not None and hasattr(st, "update"):
                st.update(f"Computing {len(metrics)} metrics: model {i}/{len(results.models)}")
        rows = compute(results, metrics, w, args.confidence, issues, progress)
    if args.strict and issues.warnings:
        return _strict_fail(err, issues)
    if not rows:
        raise CliError(f"no model in {results.source} has valid results")
    rows = rank(rows, sort)
    n_ranked = len(rows)
    if args.top is not None:
        rows = rows[: args.top]
    t_total = time.perf_counter() - t0

    if not args.quiet:
        for note in issues.notes:
            err.print(f"kscore: note: {note}", markup=False, soft_wrap=True)
        for warning in issues.warnings:
            err.print(f"kscore: warning: {warning}", markup=False, soft_wrap=True, style="yellow")

    board = Board(rows, metrics, sort, args.confidence, results.source, results.n_questions, results.rows,
                  [float(x) for x in w], list(issues.warnings), n_ranked)
    if fmt == "table":
        if args.output:
            def write_table(tmp: Path) -> None:
                with open(tmp, "w", encoding="utf-8") as fh:
                    print_table(board, Console(file=fh, width=400, color_system=None, highlight=False))

            write_atomic(Path(args.output), write_table)
        else:
            out = Console(highlight=False) if sys.stdout.isatty() else Console(width=400, highlight=False)
            print_table(board, out)
    else:
        text = render(board, fmt)
        if args.output:
            write_atomic(Path(args.output), lambda tmp: tmp.write_text(text, encoding="utf-8"))
        else:
            sys.stdout.write(text)
            sys.stdout.flush()
    if args.plot:
        from ._plot import plot

        with status(f"Plotting {args.plot}"):
            plot(Path(args.plot), results, rows, args.confidence)
    if not args.quiet and os.environ.get("KSCORE_TIMING"):
        err.print(f"kscore: read {t_read:.3f} s, total {t_total:.3f} s", markup=False)
    return EXIT_OK


def _coverage(results: Any, n: np.ndarray, have: np.ndarray, issues: Issues) -> None:
    """Warn about models missing questions; note ragged sample counts."""
    n_q = results.n_questions
    missing: list[str] = []
    for m, name in enumerate(results.models):
        lacking = np.flatnonzero(~have[m])
        if 0 < len(lacking) < n_q:
            eg = ", ".join(f"'{results.questions(int(q))}'" for q in lacking[:3])
            missing.append(f"model '{name}' has no results for {len(lacking)} of {n_q} questions (e.g. {eg}); "
                           f"its metrics use the {n_q - len(lacking)} it has")
        if have[m].any():
            lo, hi = int(n[m][have[m]].min()), int(n[m][have[m]].max())
            if lo != hi:
                issues.note(f"model '{name}' has {lo} to {hi} samples per question; its metrics pool "
                            "the questions by sample count (exact)")
    for line in missing[:10]:
        issues.warn(line)
    if len(missing) > 10:
        issues.warn(f"... and {len(missing) - 10} more models with missing questions")


def _strict_fail(err: Any, issues: Issues) -> int:
    for warning in issues.warnings:
        err.print(f"kscore: error: {warning.replace(' (skipped)', '')}", markup=False, soft_wrap=True)
    err.print(f"kscore: error: {len(issues.warnings)} data problem(s) and --strict given", markup=False)
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
