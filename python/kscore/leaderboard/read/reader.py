"""Any source to its counts table: ``read_counts`` opens the source (a
file, folder, glob, table, relation, Dask frame, counts table or a list of
them), reads and counts it (directly or in DuckDB: aggregate.py), checks the
rows (diagnose.py) and returns the counts with the source's label. A read's
options travel as one :class:`ReadOptions` (leaderboard/_options.py).

This module is the orchestrator (issue 34): it resolves what the whole read
shares once (the threads, DuckDB's settings, the connections to close:
:class:`~kscore.leaderboard.read.context.ReadContext`, carried on the
Source), marks the phases, and calls each stage in turn with what the one
before gave (the description, the columns resolved, the SQL of a row), so
that no stage calls back into the runtime or into another stage's helpers."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._counts import Counts
from .._issues import Issues, LeaderboardError
from .._options import ColumnNames, ReadOptions
from ..runtime import threads
from ..runtime.progress import Progress, phase
from .aggregate import aggregate
from .columns import grouping_columns, resolve_columns, text_ids
from .context import ReadContext
from .counts_input import is_counts_table, read_counts_table
from .dask import LABEL as DASK_LABEL
from .dask import counts_from_dask, is_dask_collection
from .describe import describe_checked
from .diagnose import diagnose
from .recount import is_many, read_many
from .rows import row_sql
from .session import duckdb_error, memory_size, session
from .source import Source, open_source
from .sql import RowSql
from .wide import read_wide


def read_counts(source: object, *, names: ColumnNames | None = None, n_categories: int = 2,
                input_format: str | None = None, issues: Issues | None = None,
                progress: Progress | None = None, memory_limit: str | int | None = None) -> tuple[Counts, str]:
    """Any source to its counts table (and the source's label);
    ``memory_limit``: DuckDB's, spilling to a folder removed at the end."""
    options = ReadOptions(names or ColumnNames(), n_categories, input_format, memory_limit)
    return read(source, options, issues if issues is not None else Issues(), progress)


def read(source: object, options: ReadOptions, issues: Issues, progress: Progress | None) -> tuple[Counts, str]:
    """:func:`read_counts` with its options in one object."""
    limit = memory_size(options.memory_limit)
    if is_many(source):  # stored counts and new results mixed: each read alone, added (read/recount.py)
        return read_many(source, lambda one: read(one, options, issues, progress))
    with session(limit) as duck:
        # Resolved once for the whole read (read/context.py): the stages take it from the Source.
        setting = threads.duckdb_setting()  # --threads / KSCORE_THREADS (default: DuckDB's, every core)
        context = ReadContext(threads.count(), threads.chosen(), (*([setting] if setting else []),
                                                                  duck.spill.settings()), duck.opened,
                              direct=limit is None)
        try:
            counts, label = _read_counts(source, options, issues, progress, context)
        except LeaderboardError as exc:
            if limit is not None and "out of memory" in str(exc).lower():
                raise LeaderboardError(f"{exc} (under --memory-limit {limit}: give it more)") from None
            raise
    if duck.spilled:
        issues.note(f"the read spilled to disk under --memory-limit {limit}" if limit else
                    "the read spilled to disk (DuckDB's default memory limit)")
    return counts, label


def read_columns(source: object, options: ReadOptions, issues: Issues,
                 progress: Progress | None) -> tuple[Counts, str]:
    """:func:`read` for the leaderboard and ``count``: the question columns
    carried (``--cluster`` / ``--by``: ``options.names.extra``) checked to be
    there."""
    counts, label = read(source, options, issues, progress)
    for x in options.names.extra:
        if x not in counts.attributes:
            raise LeaderboardError(f"--cluster / --by {x!r}: {label} has no such question column (long-format "
                                   "and counts tables carry question columns; .npy/.npz and Counts without it do not)")
    return counts, label


def _read_counts(source: object, options: ReadOptions, issues: Issues, progress: Progress | None,
                 context: ReadContext) -> tuple[Counts, str]:
    """The read, stage by stage: the source opened, its columns described
    and resolved, its rows counted (directly or by DuckDB's query) and
    checked; each stage is handed what it needs."""
    names, n_categories, input_format = options.names, options.n_categories, options.input_format
    if isinstance(source, Counts):
        if source.n_categories != n_categories:
            raise LeaderboardError(f"the counts table has {source.n_categories} categories; --weights gives "
                                   f"{n_categories}")
        return source, "counts table"
    if is_dask_collection(source):  # counted on the cluster (read/dask.py)
        return _dask_counts(source, options, issues), DASK_LABEL
    src: Source = open_source(source, input_format, context)
    for message in src.warnings:
        issues.warn(message)
    if src.kind in ("npy", "npz"):
        return read_wide(src.files[0], src.kind, n_categories, issues), src.label
    phase("reading")
    with (progress or Progress(None)).query(src, f"Reading {Path(src.label).name or src.label}"):
        columns = describe_checked(src)
        if src.kind in ("csv", "tsv") and src.relation is None:
            src.types.update(text_ids(columns, names, src.files))
        available = [n for n, _ in columns]
        if names.groupings:  # (carried for stats/cluster_check.py's warning)
            names = replace(names, extra=names.extra + grouping_columns(available, names.extra + tuple(
                x for x in (names.model, names.question, names.outcome, names.sample) if x)))
        if is_counts_table(available, names):
            return read_counts_table(src, available, names, n_categories, issues), src.label
        r = rows_of(src, names, n_categories, issues, columns)
        try:
            cells = aggregate(src, r)
        except Exception as exc:
            if not duckdb_error(exc):
                raise
            # A value the CSV sniffer did not expect (text among numbers):
            # read the outcome and sample as text, parse them in SQL.
            hive = {part.split("=", 1)[0] for f in src.files for part in f.parts[:-1] if "=" in part}
            src.types.update({n: "VARCHAR" for n, _ in columns if n not in hive and n != "filename"})
            r = rows_of(src, names, n_categories, Issues(), describe_checked(src))
            cells = aggregate(src, r)
        phase("counting")
        diagnose(src, cells, issues)
    cats = cells.counts.categories
    if len(cells.counts.model) == 0 or not (cats[0].any() or np.any(cats)):  # (the first cell: no pass)
        why = f": {issues.warnings[0].removeprefix(f'{src.label}: ')}" if issues.warnings else ""
        raise LeaderboardError(f"no valid results in {src.label}{why}")
    return cells.counts, src.label


def rows_of(src: Source, names: ColumnNames, n_categories: int, issues: Issues,
            columns: list[tuple[str, str]]) -> RowSql:
    """The SQL of one row (read/rows.py) from the described ``columns``,
    the model, question, outcome and sample columns resolved first
    (read/columns.py)."""
    available = [n for n, _ in columns if not (src.multi and n == "filename")]
    cols = resolve_columns(available, names, src.label, issues, None if src.multi else src.stem)
    return row_sql(src, names, cols, n_categories, columns)


def _dask_counts(ddf: Any, options: ReadOptions, issues: Issues) -> Counts:
    """The counts of a dask source: a counts table (columns model, question,
    n, c) is brought back and read as one; rows are counted on the cluster
    (read/dask.py)."""
    names = options.names
    if is_counts_table([str(c) for c in ddf.columns], names):
        return read(ddf.compute(), ReadOptions(names, options.n_categories), issues, None)[0]
    return counts_from_dask(ddf, model=names.model, question=names.question, outcome=names.outcome,
                            sample=names.sample, n_categories=options.n_categories, issues=issues)
