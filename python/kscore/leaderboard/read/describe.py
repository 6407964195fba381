"""The source's columns: their names and DuckDB types, read without a row
(a single CSV/TSV file sniffed once; Parquet files from the first file's
footer, without DuckDB, where every column has a type named below), and the
problems a description shows named in one line (a header naming a column
twice, a line of JSON Lines that is not an object, a column name that is not
UTF-8); id columns of CSV read as text."""

from __future__ import annotations

from .._issues import LeaderboardError
from .diagnose_read import error_line, explain_read_error, json_line
from .source import Source, duckdb_module

#: Arrow types of a Parquet footer's columns (pyarrow's reading of the
#: footer) as DuckDB names them when it reads the file; a column of any
#: other type (timestamps, decimals, nested, binary, ...) leaves the
#: description to DuckDB. (tests/test_read_describe.py checks each against
#: DuckDB's own description.)
ARROW_TO_DUCKDB = {
    "bool": "BOOLEAN", "int8": "TINYINT", "int16": "SMALLINT", "int32": "INTEGER", "int64": "BIGINT",
    "uint8": "UTINYINT", "uint16": "USMALLINT", "uint32": "UINTEGER", "uint64": "UBIGINT", "float": "FLOAT",
    "double": "DOUBLE", "string": "VARCHAR", "large_string": "VARCHAR",
}


def footer_columns(source: Source) -> list[tuple[str, str]] | None:
    """The columns of Parquet files as DuckDB describes them, from the first
    file's footer (DuckDB binds a list of Parquet files by the first file's
    schema too); None where DuckDB must describe them: not Parquet files,
    hive-partitioned folders (DuckDB adds and types the folder columns), a
    column of a type outside :data:`ARROW_TO_DUCKDB`, a name twice or not
    UTF-8, a footer pyarrow cannot read."""
    if source.kind != "parquet" or source.relation is not None or not source.files:
        return None
    if any("=" in part for f in source.files for part in f.parts[:-1]):
        return None
    import pyarrow as pa  # (the direct count's reader: imported where a Parquet read starts)
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(source.files[0])
        out = []
        for f in schema:
            t = str(f.type.value_type) if pa.types.is_dictionary(f.type) else str(f.type)
            if pa.types.is_dictionary(f.type) and t not in ("string", "large_string"):
                return None  # (text categories, as pandas writes them, only)
            out.append((f.name, ARROW_TO_DUCKDB[t]))
            f.name.encode("utf-8")
    except Exception:  # noqa: BLE001 - unreadable, odd or unnamed here: DuckDB describes (and names the problem)
        return None
    if len({n for n, _ in out}) != len(out):
        return None
    return out


def describe(source: Source) -> list[tuple[str, str]]:
    """Column names and DuckDB types of the source (a single CSV/TSV file
    sniffed once, :meth:`Source.sniff`)."""
    source.sniff()
    return source.columns()


def describe_checked(src: Source) -> list[tuple[str, str]]:
    """:func:`describe` (Parquet files from their footers where
    :func:`footer_columns` can), its problems as one-line errors."""
    found = footer_columns(src)
    if found is not None:
        return found
    duckdb = duckdb_module()
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
            found_line = json_line(path)
            if found_line:
                raise LeaderboardError(found_line)
    return columns
