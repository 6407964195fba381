"""The source's columns: their names and DuckDB types, read without a row
(a single CSV/TSV file sniffed once), and the problems a description shows
named in one line (a header naming a column twice, a line of JSON Lines that
is not an object, a column name that is not UTF-8); id columns of CSV read
as text."""

from __future__ import annotations

from .._issues import LeaderboardError
from .._options import ColumnNames
from .columns import ID_KEYS, spelling_key
from .diagnose_read import duplicate_header, error_line, explain_read_error, json_line
from .interrupt import interruptible
from .source import Source


def describe(source: Source) -> list[tuple[str, str]]:
    """Column names and DuckDB types of the source (a single CSV/TSV file
    sniffed once, :meth:`Source.sniff`); a CSV/TSV header naming a column
    twice is refused first."""
    problem = duplicate_header(source)
    if problem is not None:
        raise LeaderboardError(problem)
    source.sniff()
    rel = interruptible(source.con, lambda: source.run("SELECT * FROM {src} LIMIT 0"))
    return [(str(n), str(t)) for n, t in zip(rel.columns, rel.types)]


def describe_checked(src: Source, names: ColumnNames | None = None) -> list[tuple[str, str]]:
    import duckdb  # (optional and heavy: imported where a read starts)

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
