"""``kscore.leaderboard(source, ...)``: read, count, check, compute, rank.

The engine reads and counts (one DuckDB aggregation, _aggregate.py), the
diagnostics name bad rows (_diagnose.py), kscore.counts computes every
metric from the counts (_metrics.py). See docs/leaderboard.md."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._aggregate import aggregate, describe, row_sql
from ._columns import ID_KEYS, ColumnNames, spelling_key
from ._compare import dense
from ._counts import Counts
from ._counts_input import is_counts_table, read_counts_table
from ._dask import LABEL as DASK_LABEL
from ._dask import is_dask_collection, leaderboard_counts
from ._diagnose import diagnose
from ._issues import Issues, LeaderboardError
from ._memory import Spill, memory_size, spill_folder
from ._metrics import INTERVALS, Scores, compute, scores
from ._pages import on_small_pages
from ._progress import Progress, phase
from ._ranges import ADJUST, rank_sets
from ._rank import rank, scored_models, sort_rows
from ._recount import is_many, read_many
from ._result import Leaderboard
from ._source import Source, open_source
from ._spec import Metric, default_ks, parse_ks, parse_metrics, resolve_sort
from ._states import PerModel, distinct_states, row_sums
from ._wide import read_wide


def _weights(weights: Sequence[float] | str | None) -> npt.NDArray[np.float64]:
    if weights is None:
        return np.array([0.0, 1.0])
    try:
        w = np.array([float(t) for t in weights.replace(" ", "").split(",") if t] if isinstance(weights, str)
                     else [float(t) for t in weights])
    except ValueError as exc:
        raise LeaderboardError(f"--weights takes numbers separated by commas, e.g. 0,0.5,1; got {weights!r}") from exc
    if len(w) < 2 or not np.all(np.isfinite(w)):
        raise LeaderboardError(f"--weights needs at least two finite numbers (one per category 0..C); got {weights!r}")
    return w


def _connect(spill: Spill | None = None) -> object:
    import duckdb

    con = duckdb.connect()
    # query_progress() (the progress display) needs the progress bar on; its
    # own printing stays off.
    con.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")
    if spill is not None:
        con.execute(spill.settings())
    return con


def read_counts(source: object, *, names: ColumnNames | None = None, n_categories: int = 2,
                input_format: str | None = None, issues: Issues | None = None,
                progress: Progress | None = None, memory_limit: str | int | None = None) -> tuple[Counts, str]:
    """Any source to its counts table (and the source's label);
    ``memory_limit``: DuckDB's, spilling to a folder removed at the end."""
    import duckdb

    limit = memory_size(memory_limit)
    issues = issues if issues is not None else Issues()
    if is_many(source):  # stored counts and new results mixed: each read alone, added (_recount.py)
        return read_many(source, read_counts, names=names, n_categories=n_categories, input_format=input_format,
                         issues=issues, progress=progress, memory_limit=memory_limit)
    with spill_folder(limit) as spill:
        opened: list[Any] = []

        def connect() -> object:
            con = _connect(spill)
            opened.append(con)
            return con

        try:
            counts, label = _read_counts(source, names, n_categories, input_format, issues, progress, connect)
        except LeaderboardError as exc:
            if limit is not None and "out of memory" in str(exc).lower():
                raise LeaderboardError(f"{exc} (under --memory-limit {limit}: give it more)") from None
            raise
        finally:
            spilled = spill.spilled  # DuckDB removes its folder when the connection closes
            for con in opened:  # before the folder goes: DuckDB removes its own spill files
                try:
                    con.close()
                except duckdb.Error:  # busy with a query still unwinding from Ctrl-C: the run is ending anyway
                    pass
        if spilled:
            issues.note(f"the read spilled to disk under --memory-limit {limit}" if limit else
                        "the read spilled to disk (DuckDB's default memory limit)")
    return counts, label


def _read_counts(source: object, names: ColumnNames | None, n_categories: int, input_format: str | None,
                 issues: Issues, progress: Progress | None,
                 connect: Callable[[], object]) -> tuple[Counts, str]:
    import duckdb

    names = names or ColumnNames()
    if isinstance(source, Counts):
        if source.n_categories != n_categories:
            raise LeaderboardError(f"the counts table has {source.n_categories} categories; --weights gives "
                                   f"{n_categories}")
        return source, "counts table"
    if is_dask_collection(source):  # counted on the cluster (_dask.py)
        return leaderboard_counts(source, names, n_categories, issues), DASK_LABEL
    src: Source = open_source(source, input_format, connect)
    for message in src.warnings:
        issues.warn(message)
    if src.kind in ("npy", "npz"):
        return read_wide(src.files[0], src.kind, n_categories, issues), src.label
    phase("reading")
    with (progress or Progress(None)).query(src.con, f"Reading {Path(src.label).name or src.label}"):
        columns = describe_checked(src, names)
        available = [n for n, _ in columns]
        if is_counts_table(available, names):
            return read_counts_table(src, available, names, n_categories, issues), src.label
        r = row_sql(src, names, n_categories, issues, columns)
        try:
            cells = aggregate(src, r)
        except duckdb.Error:
            # A value the CSV sniffer did not expect (text among numbers):
            # read the outcome and sample as text, parse them in SQL.
            hive = {part.split("=", 1)[0] for f in src.files for part in f.parts[:-1] if "=" in part}
            src.types.update({n: "VARCHAR" for n, _ in columns if n not in hive and n != "filename"})
            r = row_sql(src, names, n_categories, Issues(), describe_checked(src, names))
            cells = aggregate(src, r)
        diagnose(src, cells, issues)
    if len(cells.counts.model) == 0 or not np.any(cells.counts.categories):
        why = f": {issues.warnings[0].removeprefix(f'{src.label}: ')}" if issues.warnings else ""
        raise LeaderboardError(f"no valid results in {src.label}{why}")
    return cells.counts, src.label


def describe_checked(src: Source, names: ColumnNames | None = None) -> list[tuple[str, str]]:
    import duckdb

    from ._aggregate import error_line
    from ._diagnose_read import explain_read_error, json_line

    try:
        columns = describe(src)
    except duckdb.Error as exc:
        raise LeaderboardError(explain_read_error(src, exc) or error_line(src, exc)) from exc
    if src.kind == "jsonl" and [n for n, _ in columns] == ["json"]:
        # DuckDB reads JSON Lines with a line that is not an object (an
        # array, a number) as one column, "json": name that line.
        for path in src.files:
            found = json_line(path)
            if found:
                raise LeaderboardError(found)
    if src.kind in ("csv", "tsv") and src.relation is None:
        hive = {part.split("=", 1)[0] for f in src.files for part in f.parts[:-1] if "=" in part}
        # Ids are text: read as numbers, '1' and '1.0' (or '7' and '07') would be one model or question.
        given = {names.model, names.question, *names.extra} if names is not None else set()
        src.types.update({n: "VARCHAR" for n, t in columns if (spelling_key(n) in ID_KEYS or n in given)
                          and n not in hive})
    return columns


def _coverage(counts: Counts, pm: PerModel, issues: Issues) -> None:
    """Warn about models missing questions; note ragged sample counts
    (``pm``: the models' rows summed up)."""
    q_seen = np.bincount(counts.question, minlength=len(counts.questions)) > 0
    n_q = int(q_seen.sum())
    per_model, lo, hi = pm.count, pm.n_min, pm.n_max
    missing: list[str] = []
    for m in np.flatnonzero(per_model):
        name = counts.models[int(m)]
        if per_model[m] < n_q:
            has = np.zeros(len(counts.questions), bool)
            has[counts.question[counts.model == m]] = True
            lacking = sorted(counts.questions[int(q)] for q in np.flatnonzero(q_seen & ~has))
            eg = ", ".join(f"'{q}'" for q in lacking[:3])
            missing.append(f"model '{name}' has no results for {len(lacking)} of {n_q} questions (e.g. {eg}); "
                           f"its metrics use the {per_model[m]} it has")
        if lo[m] != hi[m]:
            issues.note(f"model '{name}' has {lo[m]} to {hi[m]} samples per question; its metrics use each "
                        "question's own count (exact)")
    for line in missing[:10]:
        issues.warn(line)
    if len(missing) > 10:
        issues.warn(f"... and {len(missing) - 10} more models with missing questions")


@on_small_pages
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
    ``interval``: ``"questions"`` (default: the spread of the per-question
    estimates over questions; ``cluster`` names a column of question
    clusters for clustered standard errors) or ``"posterior"`` (Bayesian,
    conditional on the questions). ``by``: a column of question groups;
    ``groups`` of the result holds one board per group. ``adjust``: the
    paired tests behind the rank ranges: ``"none"`` (default; each pair at
    1 - confidence), ``"holm"`` (Holm's correction over all pairs) or
    ``"simultaneous"`` (step-down max-t: every model's range holds at once
    at ``confidence``; ``could_be_best`` of the result's ``ranks``).
    ``strict``: raise :class:`LeaderboardError` on any data warning.
    ``memory_limit``: DuckDB's memory limit for the read (``"1GB"``, or
    bytes), spilling to a temporary folder removed afterwards. See
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
    if not 0.0 < confidence < 1.0:
        raise LeaderboardError(f"--confidence must lie in (0, 1); got {confidence}")
    if interval not in INTERVALS:
        raise LeaderboardError(f"--interval must be one of {', '.join(INTERVALS)}; got {interval!r}")
    if adjust not in ADJUST:
        raise LeaderboardError(f"--adjust must be one of {', '.join(ADJUST)}; got {adjust!r}")
    w = _weights(weights)
    ks_given = parse_ks(k)
    issues = Issues()
    shown = progress if isinstance(progress, Progress) else Progress(_stderr_console() if progress else None)
    extra = tuple(dict.fromkeys(x for x in (cluster, by) if x is not None))
    names = ColumnNames(model_col, question_col, outcome_col, sample_col, extra)
    counts, label = read_counts(source, names=names, n_categories=len(w), input_format=input_format,
                                issues=issues, progress=shown, memory_limit=memory_limit)
    for x in extra:
        if x not in counts.attributes:
            raise LeaderboardError(f"--cluster / --by {x!r}: {label} has no such question column (long-format "
                                   "and counts tables carry question columns; .npy/.npz and Counts without it do not)")
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
    return board


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
    """One board from per-question scores: values, sorting, paired rank ranges."""
    counts = sc.counts
    rows = sort_rows(compute(sc, chosen, w, confidence, interval, issues), sort_by)
    models = scored_models(rows, sort_by)
    X, W, cl = dense(sc, sort_by.name, models)
    sets = rank_sets(X, W, cl, models, confidence, adjust)  # (no matrix of all pairs: _ranges.py)
    del X, W
    if sets.note:
        issues.note(sets.note)
    rank(rows, sets)
    n_q = int((np.bincount(counts.question, minlength=len(counts.questions)) > 0).sum())
    return Leaderboard(rows, chosen, sort_by, confidence, label, n_q, sc.per_model().samples, [float(x) for x in w],
                       counts, interval=interval, adjust=adjust, ranks=sets, scores=sc)


def _stderr_console() -> object:
    from rich.console import Console

    return Console(stderr=True)
