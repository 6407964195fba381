"""The ``kscore`` command line: ``kscore leaderboard [FILE...]``,
``kscore compare A B [FILE...]``, ``kscore plan [FILE]`` and ``kscore count
FILE... -o OUT`` (_count.py).

Needs the ``cli`` extra (``pip install 'kscore[cli]'``: pyarrow, rich,
matplotlib); the package itself depends on numpy only, so these are
imported lazily, inside the command.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from collections.abc import Sequence
from contextlib import ExitStack
from importlib import resources
from pathlib import Path
from typing import Any

from .. import _interrupt
from .._gc import ending_with_command, frozen, keep_to_exit, leave_at_exit
from ..leaderboard.api import Show
from ..present.console import Stderr as _Stderr
from ..present.console import progress_console
from ..present.formats import BY_NAME, Format, from_suffix, names, pair_format, target
from ..present.from_leaderboard import (
    command_board,
    comparison_report,
    comparison_show,
    plan_report,
    plan_show,
    show_for,
)
from ..present.model import OutputError
from ._arena import add_arena_parser, arena_command
from ._count import add_count_parser, count_command
from ._errors import EXIT_INTERRUPTED, CliError, exit_with, one_line
from ._run_flags import add_run_flags, running
from ._write import check_outputs, refuse_inputs, refuse_same, write_atomic, write_text

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
SAMPLE = "sample_results.csv.gz"


def build_parser() -> argparse.ArgumentParser:
    from .._kscore import __version__

    parser = argparse.ArgumentParser(
        prog="kscore", description="Fast, exact metrics with credible intervals for sampled LLM outputs.")
    parser.add_argument("--version", action="version", version=f"kscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    lb = sub.add_parser(
        "leaderboard", help="rank models from a results file, with intervals over questions",
        description="Rank models from long-format results (one row per graded sample: model, question, outcome"
                    "[, sample]) in CSV, JSON Lines or Parquet, or from wide outcome arrays (.npy/.npz). "
                    "With no FILE, runs on the sample results shipped with kscore.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore leaderboard\n"
               "  kscore leaderboard results.parquet --k 1,8,64 --sort pass@8\n"
               "  kscore leaderboard graded.csv --weights 0,0.5,1 --metric bayes@N\n"
               "  kscore leaderboard results.jsonl --format markdown --output board.md --plot curves.png\n"
               "  kscore leaderboard results.csv --plot-intervals intervals.svg --top 30\n"
               "  kscore leaderboard results.parquet --by subject --cluster passage --format json\n"
               "\ncells: the classic estimate ±half its interval, e.g. 0.769 ±0.031 (--wide: the whole\n"
               "interval, 0.7692 [0.7370, 0.7985]); --interval questions (default) covers what another\n"
               "question set like this one would give, --interval answers these questions' value (answer\n"
               "sampling alone). Rank ranges come from paired tests, each pair alone (marginal) unless\n"
               "--adjust holm or simultaneous.\n"
               "\nexit status: 0 ok, 1 error (or data warnings with --strict), 2 bad usage")
    lb.add_argument("file", nargs="*", help="results file (.csv[.gz|.zst], .tsv, .jsonl, .parquet, .npy, .npz), a "
                                            "directory or a glob of them (quote it: 'results/*.parquet'), or an "
                                            "evaluation tool's own files: inspect_ai logs, human-eval/evalplus "
                                            "results, lm-eval --log_samples, lighteval details (docs/formats.md); "
                                            "several (counts tables of kscore count and new results mixed) are "
                                            "added up")
    add_common(lb)
    out = lb.add_argument_group("output")
    out.add_argument("--format", choices=names("board"),
                     help="output format (default: table, or from the --output extension); json adds the pairwise "
                          "comparisons of every two models")
    out.add_argument("--output", "-o", metavar="FILE", help="write the leaderboard to FILE instead of stdout")
    out.add_argument("--top", type=int, metavar="N", help="show only the first N models")
    out.add_argument("--pairwise", nargs="+", metavar="WHICH",
                     help="the paired comparisons json and --pairwise-output give: all, adjacent (each model and the "
                          "next), top N (every pair of the first N), none (default: all up to 200 models, else "
                          "adjacent)")
    out.add_argument("--pairwise-output", metavar="FILE",
                     help="stream those pairs to FILE, a row per pair (CSV, or JSON Lines for .jsonl): never held "
                          "in memory, so --pairwise all works on any board")
    out.add_argument("--wide", action="store_true",
                     help="the table with every column and full intervals, however wide (default: compact cells "
                          "that fit the terminal, 80 columns when piped)")
    out.add_argument("--plot", metavar="FILE",
                     help="draw each model's pass@k curve (k = 1..N) with the band of --interval: one chart up to "
                          "10 models, a small panel per model beyond; PNG, SVG or PDF by FILE's extension (.png, "
                          ".svg, .pdf; PNG without one)")
    out.add_argument("--plan", action="store_true",
                     help="add the design diagnostics of kscore plan (variance within and between questions, "
                          "detectable differences, robustness of each adjacent pair) to the output")
    out.add_argument("--plot-intervals", metavar="FILE",
                     help="draw each model's estimate and interval for every metric, the table's numbers (a forest "
                          "plot: a row per model in rank order, a panel per metric, the sorting metric first; the "
                          "figure grows with the models); PNG, SVG or PDF as for --plot")
    add_flags(out)
    pl = sub.add_parser(
        "plan", help="design diagnostics: where the uncertainty comes from, what would tell models apart, and how "
                     "robust the order is",
        description="For the ranking metric: each model's variance within questions (answer sampling: more samples "
                    "per question reduce it) and between questions (only more questions reduce it); for each "
                    "adjacent pair the smallest difference the board detects at --power (two-sided paired test at "
                    "--confidence), how many questions or samples per question would detect the observed "
                    "difference and which costs fewer samples, and the fewest questions whose removal flips the "
                    "pair's order, with the most influential questions (docs/rankings.md). With no FILE, runs on "
                    "the sample results shipped with kscore.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore plan results.parquet\n"
               "  kscore plan results.csv --sort pass@1 --power 0.9 --format json -o plan.json\n"
               "\nexit status: 0 ok, 1 error, 2 bad usage")
    pl.add_argument("file", nargs="?", help="results file, directory or glob (as for kscore leaderboard)")
    add_common(pl)
    pout = pl.add_argument_group("output")
    pout.add_argument("--power", type=float, default=0.8, help="power of the detectable differences (default 0.8)")
    pout.add_argument("--format", choices=names("plan"),
                      help="output format (default: text lines, or from the --output extension)")
    pout.add_argument("--output", "-o", metavar="FILE", help="write the plan to FILE instead of stdout")
    add_flags(pout)
    cmp = sub.add_parser(
        "compare", help="compare two models, paired on the questions both answered",
        description="Model A minus model B on every metric: the mean difference of their per-question estimates "
                    "over the questions both answered, its paired interval (the spread of the differences "
                    "over questions, clustered with --cluster) and a two-sided p-value (normal approximation of "
                    "the paired t statistic). With no FILE, runs on the sample results shipped with kscore.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
               "  kscore compare cobalt-34b cobalt-34b-preview\n"
               "  kscore compare gpt-a gpt-b results.parquet --metric pass@1,maj@8 --cluster subject\n"
               "\nexit status: 0 ok, 1 error, 2 bad usage")
    cmp.add_argument("model_a", metavar="A", help="a model name")
    cmp.add_argument("model_b", metavar="B", help="the model to subtract")
    cmp.add_argument("file", nargs="*", help="results file, directory or glob (as for kscore leaderboard); several "
                                             "are added up")
    add_common(cmp)
    cout = cmp.add_argument_group("output")
    cout.add_argument("--format", choices=names("comparison"),
                      help="output format (default: table, or from the --output extension)")
    cout.add_argument("--output", "-o", metavar="FILE", help="write the comparison to FILE instead of stdout")
    add_flags(cout)
    add_count_parser(sub)  # kscore count (_count.py)
    add_arena_parser(sub)  # kscore arena (_arena.py)
    return parser


INTERVAL_HELP = ("questions (default): what another set of questions like these would give, clustered with "
                 "--cluster: a continuity-corrected Wilson interval on the effective number of questions, monotone, "
                 "that holds its level near 0 or 1, with few questions or clusters (docs/rankings.md); answers: the "
                 "value on these questions, answer sampling alone; normal: estimate +- z standard errors over "
                 "questions (the default before issue 36); posterior: a Bayesian credible interval for the same "
                 "target, the expected value over the population of questions (the mid-p Beta posterior on the "
                 "effective number of outcomes, mixed over the dispersion; centred on the posterior mean); wilson: "
                 "Wilson on the effective df")


def add_common(p: argparse.ArgumentParser) -> None:
    """Input, column and metric flags shared by leaderboard and compare."""
    from ..formats import FORMATS as TOOL_FORMATS

    p.add_argument("--input-format", choices=["csv", "tsv", "jsonl", "parquet", "npy", "npz", *TOOL_FORMATS],
                   help="file format (default: an evaluation tool's files are recognised, others go by extension)")
    p.add_argument("--memory-limit", metavar="SIZE",
                   help="most memory DuckDB may use while reading, e.g. 512MB, 2GB (default: 80%% of the machine's); "
                        "beyond it the read spills to a temporary folder (under TMPDIR) that kscore removes")
    cols = p.add_argument_group("columns (default: auto-detected from common spellings)")
    cols.add_argument("--model-col", metavar="NAME", help="model column (model, model_name, system, ...)")
    cols.add_argument("--question-col", metavar="NAME",
                      help="question id column (question, question_id, problem, task_id, id, prompt_id, ...)")
    cols.add_argument("--outcome-col", metavar="NAME",
                      help="outcome column (outcome, correct, is_correct, passed, score, label, reward, ...)")
    cols.add_argument("--sample-col", metavar="NAME",
                      help="sample index column, optional (sample, sample_idx, attempt, trial, seed, ...)")
    met = p.add_argument_group("metrics and intervals")
    met.add_argument("--metric", action="append", metavar="LIST",
                     help="metrics, comma-separated or repeated: pass@K, pass^K, g-pass@K_TAU, mg-pass@K, maj@K, "
                          "cons@K, cons@n, avg@n, auc@K, max@K, bayes@N (K a number, or k for each --k; default: "
                          "pass@1, pass@k, maj@<largest k>, bayes@N)")
    met.add_argument("--k", metavar="LIST", help="budgets for K = k (default: 1,4,16 bounded by the "
                                                  "fewest samples per question)")
    met.add_argument("--sort", metavar="METRIC", help="rank by this metric (default: bayes@N if shown, else the first)")
    met.add_argument("--weights", metavar="LIST",
                     help="rewards of outcome categories 0..C, e.g. 0,0.5,1 (default 0,1: binary outcomes); "
                          "bayes@N, avg@n and max@K use them, the other metrics count the top category as correct")
    met.add_argument("--interval", choices=["questions", "answers", "normal", "posterior", "wilson"],
                     default="questions", help=INTERVAL_HELP)
    met.add_argument("--cluster", metavar="COLUMN",
                     help="a question column grouping related questions (e.g. passage, source): clustered "
                          "standard errors for the questions interval and the paired comparisons")
    met.add_argument("--by", metavar="COLUMN",
                     help="a question column (subject, difficulty, dataset): one leaderboard per value plus the "
                          "overall one")
    met.add_argument("--adjust", choices=["none", "holm", "simultaneous"], default="none",
                     help="paired tests behind the rank ranges: none (default, each pair tested at 1 - confidence), "
                          "holm (Holm's correction over all pairs) or simultaneous (step-down max-t over all pairs: "
                          "every model's range holds at once at --confidence, no wider than Holm's; the footer "
                          "names the models that could be #1)")
    met.add_argument("--confidence", type=float, default=0.95, help="level of the intervals and tests (default 0.95)")


def add_flags(out: Any) -> None:
    out.add_argument("--strict", action="store_true",
                     help="treat data warnings (bad rows, duplicates, missing questions, ...) as errors")
    out.add_argument("--quiet", "-q", action="store_true", help="do not print warnings, notes or progress")
    out.add_argument("--progress", action="store_true",
                     help="show the reading progress even when stderr is not a terminal (default: on a terminal, "
                          "for inputs taking over a second)")
    add_run_flags(out)


def _format(args: argparse.Namespace) -> str:
    """``--format``, else the one the output's suffix picks (the table without one)."""
    if args.format:
        return str(args.format)
    return from_suffix(args.output) if args.output else "table"


def _size(path: Path) -> str:
    n = float(path.stat().st_size)
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f" ({n:.0f} {unit})" if unit == "B" else f" ({n:.1f} {unit})"
        n /= 1000
    return ""  # pragma: no cover


def _run(args: argparse.Namespace, err: Any, show: Show) -> Any:
    """kscore.leaderboard() on the command's input (the shipped sample
    without FILE), computing what its outputs will ``show``."""
    from ..leaderboard.api import LeaderboardError, Progress, read_keywords
    from ..leaderboard.api import leaderboard as run

    drawn = not args.quiet and (args.progress or err.is_terminal)
    bar = progress_console(err.width) if args.progress else err
    progress = Progress(bar if drawn else None, delay=0.0 if args.progress else 1.0)
    args.file = _files(args.file)
    with ExitStack() as stack:
        if args.file is None:
            source: Any = stack.enter_context(resources.as_file(resources.files("kscore.data").joinpath(SAMPLE)))
        else:
            source = args.file
        try:
            board = run(source, metrics=args.metric, k=args.k, sort=args.sort, weights=args.weights,
                        confidence=args.confidence, interval=args.interval, adjust=args.adjust, progress=progress,
                        show=show, **read_keywords(args))
        except LeaderboardError as exc:
            raise CliError(str(exc)) from exc
    if args.file is None:
        board.source = f"kscore sample ({SAMPLE})"
    return board


def _files(file: Any) -> Any:
    """FILE arguments: None (the sample), one, or a list of several (added up)."""
    if isinstance(file, list):
        return None if not file else file[0] if len(file) == 1 else file
    return file


def _inputs(file: Any) -> list[Path]:
    from ..leaderboard.api import input_files

    return [p for f in (file if isinstance(file, list) else [file]) for p in input_files(f)]


def _report(args: argparse.Namespace, err: Any, board: Any) -> None:
    if not args.quiet:
        for note in board.notes:
            err.print(f"kscore: note: {one_line(note)}", markup=False, soft_wrap=True)
        for warning in board.warnings:
            err.print(f"kscore: warning: {one_line(warning)}", markup=False, soft_wrap=True, style="yellow")


def leaderboard(args: argparse.Namespace) -> int:
    """The command: kscore.leaderboard() does the work, kscore.present
    renders it (everything shown computed first), this writes it."""
    err = _Stderr()
    if args.top is not None and args.top < 1:
        raise CliError("--top must be at least 1")
    fmt = BY_NAME[_format(args)]
    pairwise = _pairwise_kind(args)
    outputs = [("--output", args.output), ("--plot", args.plot), ("--plot-intervals", args.plot_intervals),
               ("--pairwise-output", args.pairwise_output)]
    check_outputs([path for _, path in outputs])
    refuse_same(outputs)
    if _files(args.file) is not None:
        refuse_inputs(outputs, _inputs(args.file))
    plots = {flag: _plot_format(flag, path) for flag, path in outputs[1:3] if path}
    needs = fmt.needs | ({"curves"} if args.plot else set()) | ({"rows"} if args.plot_intervals else set())
    t0 = time.perf_counter()
    lb = _run(args, err, show_for(needs, args.top, pairwise, args.plan))
    if args.strict and lb.warnings:
        return _strict_fail(err, lb.warnings)
    t_total = time.perf_counter() - t0
    _report(args, err, lb)
    keep_to_exit(lb)  # (where the process ends with the command: not freed row by row as this returns)
    with frozen():  # (the board out of the cyclic collector's walks while it is written: kscore/_gc.py)
        return _write_board(args, err, lb, fmt, needs, pairwise, plots, t_total)


def _write_board(args: argparse.Namespace, err: Any, lb: Any, fmt: Format, needs: frozenset[str],
                 pairwise: tuple[str, int | None], plots: dict[str, str], t_total: float) -> int:
    """The command's outputs of the board ``lb``."""
    from ..leaderboard.api import pair_rows, pairs_kind, phase

    phase("writing")
    try:
        board = command_board(lb, needs, top=args.top, pairwise=pairwise, plan=args.plan)
    except OutputError as exc:
        raise CliError(str(exc)) from exc
    assert fmt.board is not None
    keep_to_exit(board)
    write_text(args.output, fmt.board(board, target(args.output, args.wide)))
    if args.pairwise_output:
        kind, n = pairwise
        write = pair_format(args.pairwise_output).write
        write_atomic(Path(args.pairwise_output),  # (streamed: a block of pairs at a time, as written)
                     lambda tmp: write(pair_rows(lb, pairs_kind(lb, kind), n), lb.sort.name, tmp))
    if plots:
        phase("plotting")
        _plot(args, plots, board)
    if not args.quiet and os.environ.get("KSCORE_TIMING"):
        err.print(f"kscore: total {t_total:.3f} s", markup=False)
    return EXIT_OK


def _pairwise_kind(args: argparse.Namespace) -> tuple[str, int | None]:
    """``--pairwise``'s choice; a FILE it swallowed (``--pairwise top 5
    FILE``) given back to ``file``."""
    from ..leaderboard.api import LeaderboardError, parse_pairwise

    words = args.pairwise
    if words and args.file is None and len(words) in (2, 3) and words[-1] not in ("all", "adjacent", "none", "top") \
            and not (len(words) == 2 and words[0] == "top" and words[1].isdigit()):
        args.file, words = words[-1], words[:-1]
    try:
        return parse_pairwise(words)
    except LeaderboardError as exc:
        raise CliError(str(exc)) from exc


def _plot_format(flag: str, path: str) -> str:
    """The format a plot is written in, from its extension (checked before
    any reading, as matplotlib is)."""
    try:
        from ..present.plot import plot_format
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise CliError(f"{flag} needs matplotlib: pip install 'kscore[cli]'") from exc
    try:
        return plot_format(path)
    except ValueError:
        raise CliError(f"{flag} {path}: plots are written as .png, .svg or .pdf (PNG without an extension)") from None


def _plot(args: argparse.Namespace, formats: dict[str, str], board: Any) -> None:
    """``--plot``: the shown models' pass@k curves (one chart up to 10 models,
    a small panel per model beyond); ``--plot-intervals``: their estimates and
    intervals, the table's numbers; both drawn by kscore.present.plot."""
    from ..present.plot import plot_curves, plot_intervals

    if args.plot:
        write_atomic(Path(args.plot), lambda tmp: plot_curves(board, tmp, format=formats["--plot"]))
    if args.plot_intervals:
        write_atomic(Path(args.plot_intervals),
                     lambda tmp: plot_intervals(board, tmp, format=formats["--plot-intervals"]))


def plan(args: argparse.Namespace) -> int:
    """``kscore plan [FILE]``: the design diagnostics of the board (and of
    each ``--by`` group)."""
    from ..leaderboard.api import LeaderboardError

    err = _Stderr()
    if not 0.0 < args.power < 1.0:
        raise CliError(f"--power must lie in (0, 1); got {args.power}")
    fmt = BY_NAME[_format(args)]
    if fmt.plan is None:
        choices = names("plan")
        raise CliError(f"kscore plan writes {', '.join(choices[:-1])} or {choices[-1]}; got {fmt.name}")
    lb = _one_output_board(args, err, plan_show(args.power))
    if isinstance(lb, int):
        return lb
    try:
        report = plan_report(lb, args.power)
    except LeaderboardError as exc:
        raise CliError(str(exc)) from exc
    write_text(args.output, fmt.plan(report, target(args.output)))
    return EXIT_OK


def _one_output_board(args: argparse.Namespace, err: Any, show: Show) -> Any:
    """The board of ``kscore plan`` and ``kscore compare`` (one --output each):
    the output checked against the inputs, the run, --strict's exit status
    (an int) when the data had warnings, the report on stderr."""

    check_outputs([args.output])
    if _files(args.file) is not None:
        refuse_inputs([("--output", args.output)], _inputs(args.file))
    board = _run(args, err, show)
    if args.strict and board.warnings:
        return _strict_fail(err, board.warnings)
    _report(args, err, board)
    return board


#: ``kscore compare -o FILE`` with a suffix that picks a format it does not
#: write: the Markdown tables (as it always wrote them).
COMPARE_ELSE = "markdown"


def compare(args: argparse.Namespace) -> int:
    """``kscore compare A B [FILE]``: one pair, every metric, paired."""
    from ..leaderboard.api import LeaderboardError

    err = _Stderr()
    fmt = BY_NAME[_format(args)]
    lb = _one_output_board(args, err, comparison_show(args.model_a, args.model_b))
    if isinstance(lb, int):
        return lb
    try:
        report = comparison_report(lb, args.model_a, args.model_b)
    except LeaderboardError as exc:
        raise CliError(str(exc)) from exc
    render = fmt.comparison or BY_NAME[COMPARE_ELSE].comparison
    assert render is not None
    write_text(args.output, render(report, target(args.output)))
    return EXIT_OK


def _strict_fail(err: Any, warnings: list[str]) -> int:
    for warning in warnings:
        err.print(f"kscore: error: {one_line(warning.replace(' (skipped)', ''))}", markup=False, soft_wrap=True)
    err.print(f"kscore: error: {len(warnings)} data problem(s) and --strict given", markup=False)
    return EXIT_ERROR


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    with warnings.catch_warnings():
        # A Python warning (from a library) as one line, not two with a line
        # of source; --quiet silences it like the data warnings.
        warnings.showwarning = lambda message, *_, **__: None if args.quiet else print(
            f"kscore: warning: {one_line(str(message))}", file=sys.stderr)
        return _main(args)


def _main(args: argparse.Namespace) -> int:
    try:
        return _command(args)
    except Exception as exc:
        # Ctrl-C inside a library's try/finally (matplotlib restoring a figure
        # it was drawing) can come out as that block's own error ("Invalid
        # bounding box"), the KeyboardInterrupt as its context.
        if _after_interrupt(exc):
            print("kscore: interrupted", file=sys.stderr)
            return EXIT_INTERRUPTED
        raise


def _after_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` was raised while a KeyboardInterrupt was being handled."""
    seen: set[int] = set()
    at: BaseException | None = exc
    while at is not None and id(at) not in seen:
        if isinstance(at, KeyboardInterrupt):
            return True
        seen.add(id(at))
        at = at.__context__ or at.__cause__
    return False


def _command(args: argparse.Namespace) -> int:
    try:
        with running(args):
            if args.command in ("count", "arena"):
                return (count_command if args.command == "count" else arena_command)(args, _Stderr())
            return {"compare": compare, "plan": plan}.get(args.command, leaderboard)(args)
    except CliError as exc:
        if _after_interrupt(exc):
            raise
        print(f"kscore: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        # Every output's temporary file and the spill folder are gone by now
        # (their finally blocks ran on the way up); exit_with() ends the
        # process without the interpreter's shutdown.
        print("kscore: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Output piped into a command that stopped reading (e.g. head).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except OSError as exc:
        if _after_interrupt(exc):
            raise
        # Output files fail as "cannot write FILE" (_write.py); what is left is
        # standard output on a full disk or /dev/full.
        where = str(exc.filename) if exc.filename else "cannot write standard output"
        print(f"kscore: error: {one_line(where)}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERROR
    except MemoryError:
        print("kscore: error: out of memory", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - a tool ends with one line, not a traceback
        if os.environ.get("KSCORE_DEBUG") or _after_interrupt(exc):
            raise
        first = one_line(str(exc).splitlines()[0]) if str(exc) else ""
        print(f"kscore: error: {type(exc).__name__}: {first} (set KSCORE_DEBUG=1 for a traceback)", file=sys.stderr)
        return EXIT_ERROR


def entry(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point (and ``python -m kscore``'s)."""
    _interrupt.started()  # Ctrl-C from here: KeyboardInterrupt, handled by the command
    ending_with_command()  # (the board is left to the process's end: kscore/_gc.py)
    try:
        rc = main(argv)
    except KeyboardInterrupt:  # in argparse, before the command's own handler
        print("kscore: interrupted", file=sys.stderr)
        rc = EXIT_INTERRUPTED
    leave_at_exit()
    exit_with(rc)
