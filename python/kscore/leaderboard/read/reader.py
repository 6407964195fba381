"""Any source to its counts table: ``read_counts`` opens the source (a
file, folder, glob, table, relation, Dask frame, counts table or a list of
them), reads and counts it in DuckDB (aggregate.py), checks the rows
(diagnose.py) and returns the counts with the source's label. Moved here
from _run.py, so that dask.py and recount.py read without importing it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from .._counts import Counts
from .._issues import Issues, LeaderboardError
from ..runtime.progress import Progress, phase
from .aggregate import aggregate, describe, row_sql
from .columns import ID_KEYS, ColumnNames, grouping_columns, spelling_key
from .counts_input import is_counts_table, read_counts_table
from .dask import LABEL as DASK_LABEL
from .dask import is_dask_collection, leaderboard_counts
from .diagnose import diagnose
from .memory import Spill, memory_size, spill_folder
from .recount import is_many, read_many
from .source import Source, open_source
from .wide import read_wide


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
    if is_many(source):  # stored counts and new results mixed: each read alone, added (read/recount.py)
        return read_many(source, read_counts, names=names, n_categories=n_categories, input_format=input_format,
                         issues=issues, progress=progress, memory_limit=memory_limit)
    with spill_folder(limit) as spill:
        opened: list[Any] = []

        def connect() -> object:
            con = _connect(spill)
            opened.append(con)
            return con

        try:
            counts, label = _read_counts(source, names, n_categories, input_format, issues, progress, connect,
                                         direct=limit is None)
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


def read_columns(source: object, *, n_categories: int, cluster: str | None, by: str | None, model_col: str | None,
                 question_col: str | None, outcome_col: str | None, sample_col: str | None,
                 input_format: str | None, issues: Issues, progress: Progress | None,
                 memory_limit: str | int | None, groupings: bool = False) -> tuple[Counts, str]:
    """:func:`read_counts` with the columns as the user names them (the
    leaderboard's and ``count``'s flags), ``cluster`` / ``by`` carried as
    question attributes and checked to be there; ``groupings``: also the
    columns that look like a grouping of the questions (ColumnNames)."""
    extra = tuple(dict.fromkeys(x for x in (cluster, by) if x is not None))
    names = ColumnNames(model_col, question_col, outcome_col, sample_col, extra, groupings)
    counts, label = read_counts(source, names=names, n_categories=n_categories, input_format=input_format,
                                issues=issues, progress=progress, memory_limit=memory_limit)
    for x in extra:
        if x not in counts.attributes:
            raise LeaderboardError(f"--cluster / --by {x!r}: {label} has no such question column (long-format "
                                   "and counts tables carry question columns; .npy/.npz and Counts without it do not)")
    return counts, label


def _read_counts(source: object, names: ColumnNames | None, n_categories: int, input_format: str | None,
                 issues: Issues, progress: Progress | None,
                 connect: Callable[[], object], direct: bool = True) -> tuple[Counts, str]:
    import duckdb

    names = names or ColumnNames()
    if isinstance(source, Counts):
        if source.n_categories != n_categories:
            raise LeaderboardError(f"the counts table has {source.n_categories} categories; --weights gives "
                                   f"{n_categories}")
        return source, "counts table"
    if is_dask_collection(source):  # counted on the cluster (read/dask.py)
        return leaderboard_counts(source, names, n_categories, issues), DASK_LABEL
    src: Source = open_source(source, input_format, connect)
    src.direct = direct
    for message in src.warnings:
        issues.warn(message)
    if src.kind in ("npy", "npz"):
        return read_wide(src.files[0], src.kind, n_categories, issues), src.label
    phase("reading")
    with (progress or Progress(None)).query(src, f"Reading {Path(src.label).name or src.label}"):
        columns = describe_checked(src, names)
        available = [n for n, _ in columns]
        if names.groupings:  # (carried for stats/cluster_check.py's warning)
            names = replace(names, extra=names.extra + grouping_columns(available, names.extra + tuple(
                x for x in (names.model, names.question, names.outcome, names.sample) if x)))
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

    from .aggregate import error_line
    from .diagnose_read import explain_read_error, json_line

    try:
        columns = describe(src)
    except duckdb.Error as exc:
        raise LeaderboardError(explain_read_error(src, exc) or error_line(src, exc)) from exc
    except RuntimeError as exc:
        if "conversion" not in str(exc):
            raise
        # DuckDB's binding cannot make Python text of a column name that is
        # not UTF-8 (found by scripts/fuzz_readers.py in a mutated Parquet footer).
        raise LeaderboardError(f"{src.label}: cannot read {src.kind}: a column name is not valid UTF-8") from None
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
