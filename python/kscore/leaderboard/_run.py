"""``kscore.leaderboard(source, ...)``: read, count, check, compute, rank;
and ``count(source, ...)``, its reading half.

The engine reads and counts (one DuckDB aggregation, read/aggregate.py), the
diagnostics name bad rows (read/diagnose.py), kscore.counts computes every
metric from the counts (stats/metrics.py). The read's options travel as one
object (_options.ReadOptions). See docs/leaderboard.md."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._gc import paused_collection
from ._counts import Counts
from ._issues import Issues, LeaderboardError
from ._options import check, read_options
from ._options import weights as parse_weights
from ._spec import Metric, default_ks, parse_ks, parse_metrics, resolve_sort
from .read.reader import read_columns
from .result.board import Leaderboard
from .result.prepare import prepare
from .result.show import Show
from .runtime import profile
from .runtime.pages import on_small_pages
from .runtime.progress import Progress, phase
from .stats.answers import given_questions
from .stats.cluster_check import grouping_warnings
from .stats.compare import dense
from .stats.metrics import compute
from .stats.ranges import rank_sets
from .stats.rank import rank, scored_models, sort_rows
from .stats.scores import Scores, scores
from .stats.states import PerModel, distinct_states, row_sums


def _coverage(counts: Counts, pm: PerModel, issues: Issues) -> None:
    """Warn about models missing questions; note ragged sample counts
    (``pm``: the models' rows summed up)."""
    per_model, lo, hi = pm.count, pm.n_min, pm.n_max
    q_seen = _questions_seen(counts, pm)
    n_q = int(q_seen.sum())
    missing: list[str] = []
    # (the models short of questions and the ragged ones found over arrays: a board of 100 000 models
    # spent 0.1-0.15 s in a loop over every model; only the first 10 short ones are described)
    present = np.flatnonzero(per_model)
    lacks = present[per_model[present] < n_q]
    short = len(lacks)
    ordered: bool | None = None
    for m in lacks[:10]:
        name = counts.models[int(m)]
        if ordered is None:  # (rows ordered by model, as the engine keeps them: a model's rows by bisection)
            ordered = pm.starts is not None or bool(np.all(counts.model[1:] >= counts.model[:-1]))
        if ordered:
            a, b = (pm.starts[m], pm.starts[m + 1]) if pm.starts is not None else \
                np.searchsorted(counts.model, [m, m + 1])
            its = counts.question[a:b]
        else:
            its = counts.question[counts.model == m]
        has = np.zeros(len(counts.questions), bool)
        has[its] = True
        lacking = sorted(counts.questions[int(q)] for q in np.flatnonzero(q_seen & ~has))
        eg = ", ".join(f"'{q}'" for q in lacking[:3])
        missing.append(f"model '{name}' has no results for {len(lacking)} of {n_q} questions (e.g. {eg}); "
                       f"its metrics use the {per_model[m]} it has")
    for m in present[lo[present] != hi[present]]:
        issues.note(f"model '{counts.models[int(m)]}' has {lo[m]} to {hi[m]} samples per question; its metrics use "
                    "each question's own count (exact)")
    for line in missing:
        issues.warn(line)
    if short > 10:
        issues.warn(f"... and {short - 10} more models with missing questions")


def _questions_seen(counts: Counts, pm: PerModel) -> npt.NDArray[np.bool_]:
    """Which questions have rows (on a grid: all, without a pass over them)."""
    if pm.grid is not None:
        return np.ones(len(counts.questions), bool)
    out: npt.NDArray[np.bool_] = np.bincount(counts.question, minlength=len(counts.questions)) > 0
    return out


@on_small_pages
@profile.profiled
def leaderboard(
    source: object,
    *,
    metrics: Iterable[str] | str | None = None,
    k: Iterable[int] | str | None = None,
    sort: str | None = None,
    weights: Sequence[float] | str | None = None,
    confidence: float = 0.95,
    interval: str = "questions",
    cluster: str | None = None,
    by: str | None = None,
    adjust: str = "none",
    model_col: str | None = None,
    question_col: str | None = None,
    outcome_col: str | None = None,
    sample_col: str | None = None,
    input_format: str | None = None,
    strict: bool = False,
    progress: bool | Progress = False,
    memory_limit: str | int | None = None,
    show: Show | None = None,
) -> Leaderboard:
    """Rank models from graded samples, with intervals and paired comparisons.

    ``source``: a results file (CSV/TSV, optionally gzip or zstd; JSON
    Lines; Parquet; ``.npy``/``.npz``), a directory or glob of them
    (hive-partitioned folders too), a pandas, polars or pyarrow table, a
    DuckDB relation, a counts table (columns model, question, n, c, or a
    :class:`Counts`), or a list of these (a stored counts table and new
    results: their counts are added, docs/leaderboard.md, *Recomputation*). ``metrics``: ``pass@K``, ``pass^K``,
    ``g-pass@K_TAU``, ``mg-pass@K``, ``maj@K``, ``cons@K``, ``avg@n``,
    ``auc@K``, ``max@K``, ``bayes@N`` (``K`` a number or ``k`` for each of
    ``k``); ``weights``: rewards of outcome categories 0..C.
    ``interval``: ``"questions"`` (default: over the sampling of the
    questions, a continuity-corrected Wilson interval on the effective
    number of questions that holds its level near 0 and 1 and with few
    questions, docs/rankings.md; ``cluster`` names a column of question
    clusters for clustered standard errors), ``"answers"`` (given these
    questions: answer sampling alone), ``"normal"`` (estimate +- z standard
    errors over questions, the former default), ``"posterior"`` (the
    Bayesian credible interval under a uniform prior per question) or
    ``"wilson"``. ``by``: a column of question groups;
    ``groups`` of the result holds one board per group. ``adjust``: the
    paired tests behind the rank ranges: ``"none"`` (default; each pair at
    1 - confidence), ``"holm"`` (Holm's correction over all pairs) or
    ``"simultaneous"`` (step-down max-t: every model's range holds at once
    at ``confidence``; ``could_be_best`` of the result's ``ranks``).
    ``strict``: raise :class:`LeaderboardError` on any data warning.
    ``memory_limit``: DuckDB's memory limit for the read (``"1GB"``, or
    bytes), spilling to a temporary folder removed afterwards. ``show``:
    what the outputs will show beyond the rows (the plan, pairs, the page's
    matrix, curves: :class:`kscore.leaderboard.api.Show`), computed into
    the result's ``shown`` (the command line asks for its outputs'). See
    docs/leaderboard.md.

    Examples:
        >>> import pandas as pd
        >>> rows = [("a", q, s, int(s < 3)) for q in range(4) for s in range(4)]
        >>> rows += [("b", q, s, int(s < 1)) for q in range(4) for s in range(4)]
        >>> df = pd.DataFrame(rows, columns=["model", "question", "sample", "correct"])
        >>> board = leaderboard(df, metrics="pass@1,bayes@N")
        >>> [(r.model, r.values["pass@1"].estimate) for r in board.rows]
        [('a', 0.75), ('b', 0.25)]
    """
    check(confidence, interval, adjust)
    w = parse_weights(weights)
    ks_given = parse_ks(k)
    issues = Issues()
    shown = progress if isinstance(progress, Progress) else Progress(_stderr_console() if progress else None)
    read = read_options(len(w), cluster, by, model_col, question_col, outcome_col, sample_col, input_format,
                        memory_limit, groupings=cluster is None)
    counts, label = read_columns(source, read, issues, shown)
    if isinstance(source, (str, os.PathLike)) and Path(os.fspath(source)).is_file():
        label = os.fspath(source)
    phase("metrics")
    states = distinct_states(counts.categories)
    n_state = row_sums(states.cats)  # (the fewest samples of a row: over the few distinct states)
    ks = ks_given if ks_given is not None else default_ks(int(n_state[n_state > 0].min()))
    specs = [metrics] if isinstance(metrics, str) else metrics
    chosen = parse_metrics(specs, ks)
    sort_by = resolve_sort(sort, chosen)
    row_cluster = None if cluster is None else _codes(counts.attributes[cluster], counts.question)
    sc = scores(counts, chosen, w, row_cluster, states)
    if cluster is None and counts.attributes:  # questions in groups no interval knows of: stats/cluster_check.py
        for message in grouping_warnings(counts.attributes, tuple(counts.attributes), sc.x[sort_by.name],
                                         counts.model, counts.question, len(counts.models), sort_by.name):
            issues.warn(message)
        if not isinstance(source, Counts):  # columns read only for the check (a Counts table given keeps its own)
            for a in [a for a in counts.attributes if a != by]:
                del counts.attributes[a]
    _coverage(counts, sc.per_model(), issues)
    board = _board(sc, chosen, sort_by, w, confidence, interval, adjust, issues, label)
    if not board.rows:
        raise LeaderboardError(f"no model in {label} has valid results")
    if strict and issues.warnings:
        raise LeaderboardError(f"{len(issues.warnings)} data problem(s): {issues.warnings[0]}")
    board.warnings, board.notes, board.cluster = issues.warnings, issues.notes, cluster
    if by is not None:
        board.by = by
        values = [v if v is not None else "(none)" for v in counts.attributes[by]]
        q_group = _codes(values, np.arange(len(values)))
        labels = [values[int(np.flatnonzero(q_group == g)[0])] for g in range(int(q_group.max()) + 1)]
        row_group = q_group[counts.question]
        for g in sorted(range(len(labels)), key=lambda g: str(labels[g])):
            sub = _board(sc.subset(row_group == g), chosen, sort_by, w, confidence, interval, adjust, Issues(),
                         label)
            sub.group, sub.by, sub.cluster = str(labels[g]), by, cluster
            board.groups.append(sub)
    if show is not None:
        prepare(board, show)
    return board


@on_small_pages
def count(
    source: object,
    *,
    weights: Sequence[float] | str | None = None,
    cluster: str | None = None,
    by: str | None = None,
    model_col: str | None = None,
    question_col: str | None = None,
    outcome_col: str | None = None,
    sample_col: str | None = None,
    input_format: str | None = None,
    strict: bool = False,
    issues: Issues | None = None,
    progress: bool | Progress = False,
    memory_limit: str | int | None = None,
) -> Counts:
    """The counts table of ``source``: one row per (model, question), its
    samples per outcome category; what :func:`kscore.leaderboard` reads
    before any metric, and all it needs.

    ``source``: anything :func:`kscore.leaderboard` takes, or a list of them
    (stored counts tables and raw results mixed), whose counts are added.
    ``weights`` only sets the number of outcome categories (graded
    outcomes: columns ``c_0..c_C``); ``cluster`` / ``by`` name question
    columns carried beside the counts. Data warnings (skipped rows,
    duplicates) go to ``issues`` when given, else to Python's ``warnings``;
    ``strict`` raises :class:`LeaderboardError` on the first.
    ``memory_limit``: DuckDB's, as for :func:`kscore.leaderboard`. Store
    the result with ``.to_parquet(path)``: it is a source itself.

    Examples:
        >>> import pandas as pd
        >>> from kscore.leaderboard import count
        >>> rows = [("a", q, s, int(s < 3)) for q in range(2) for s in range(4)]
        >>> old = count(pd.DataFrame(rows, columns=["model", "question", "sample", "correct"]))
        >>> new = pd.DataFrame([("b", 0, 0, 1), ("b", 1, 0, 0)], columns=["model", "question", "sample", "correct"])
        >>> both = count([old, new])
        >>> both.columns()["model"], both.n.tolist(), both.c.tolist()
        (['a', 'a', 'b', 'b'], [4, 4, 1, 1], [3, 3, 1, 0])
    """
    w = parse_weights(weights)
    found = Issues()
    shown = progress if isinstance(progress, Progress) else Progress(_stderr_console() if progress else None)
    read = read_options(len(w), cluster, by, model_col, question_col, outcome_col, sample_col, input_format,
                        memory_limit)
    counts, _ = read_columns(source, read, found, shown)
    if strict and found.warnings:
        raise LeaderboardError(f"{len(found.warnings)} data problem(s): {found.warnings[0]}")
    if issues is not None:
        issues.warnings.extend(found.warnings)
        issues.notes.extend(found.notes)
    else:
        for message in found.warnings:
            warnings.warn(message, stacklevel=3)
    return counts


def _codes(values: Sequence[str | None], index: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """An integer code per entry of ``index`` from its value; a missing
    value (None) is a code of its own per distinct index."""
    codes: dict[str | None, int] = {}
    per = np.empty(len(values), np.int64)
    for i, v in enumerate(values):
        key: Any = v if v is not None else (None, i)
        per[i] = codes.setdefault(key, len(codes))
    out: npt.NDArray[np.int64] = per[index]
    return out


def _board(sc: Scores, chosen: list[Metric], sort_by: Metric, w: npt.NDArray[np.float64], confidence: float,
           interval: str, adjust: str, issues: Issues, label: str) -> Leaderboard:
    """One board from per-question scores: values, sorting, paired rank ranges
    (the cyclic collector paused: at 100 000 models its collections walked
    the rows made here again and again, 0.2-0.6 s per phase; kscore/_gc.py)."""
    with paused_collection():
        return _made_board(sc, chosen, sort_by, w, confidence, interval, adjust, issues, label)


def _made_board(sc: Scores, chosen: list[Metric], sort_by: Metric, w: npt.NDArray[np.float64], confidence: float,
                interval: str, adjust: str, issues: Issues, label: str) -> Leaderboard:
    counts = sc.counts
    profile.mark("metrics")
    rows = sort_rows(compute(sc, chosen, w, confidence, interval, issues), sort_by)
    if interval == "answers":  # given the questions: answer sampling alone (stats/answers.py)
        given_questions(rows, sc, chosen, w, confidence)
    profile.mark("pairs")
    models = scored_models(rows, sort_by)
    X, W, cl = dense(sc, sort_by.name, models)
    sets = rank_sets(X, W, cl, models, confidence, adjust, overwrite=True)  # (no matrix of all pairs: stats/ranges.py)
    del X, W
    if sets.note:
        issues.note(sets.note)
    rank(rows, sets)
    n_q = int(_questions_seen(counts, sc.per_model()).sum())
    return Leaderboard(rows, chosen, sort_by, confidence, label, n_q, sc.per_model().samples, [float(x) for x in w],
                       counts, interval=interval, adjust=adjust, ranks=sets, scores=sc)


def _stderr_console() -> object:
    from rich.console import Console  # (optional and heavy: imported only to show progress)

    return Console(stderr=True)
