"""The Parquet-statistics proof (docs/leaderboard.md, *How it reads*):
where the column statistics of every row group prove every outcome an
integer category and every sample id an integer in 0..N, none missing, no
row can have a problem but a missing id or a repeated sample id, and the
count need not check each row (:func:`proven`)."""

from __future__ import annotations

from .source import Source
from .sql import RowSql, sample_is_integer


def _stat(value: object) -> int:
    """A statistic as DuckDB's ``parquet_metadata`` spells it, as an integer
    (booleans 0/1; anything but an integer's digits refused)."""
    if isinstance(value, bool):
        return int(value)
    text = value.decode() if isinstance(value, bytes) else str(value)
    return {"false": 0, "true": 1}[text] if text in ("false", "true") else int(text)


def _statistics(source: Source, columns: set[str]) -> list[tuple[str, str, object, object, int | None]]:
    """(file, column, min, max, null count) of every row group's chunk of
    ``columns`` in every file, from the footers by pyarrow (a few times
    cheaper than DuckDB's ``parquet_metadata`` of the same footers; what is
    not there is None); an unreadable footer is one row of Nones."""
    import pyarrow.parquet as pq

    out: list[tuple[str, str, object, object, int | None]] = []
    for path in source.files:
        name = str(path)
        try:
            meta = pq.read_metadata(path)
            at = [j for j in range(meta.num_columns) if meta.schema.column(j).path in columns]
            for g in range(meta.num_row_groups):
                group = meta.row_group(g)
                for j in at:
                    chunk = group.column(j)
                    st = chunk.statistics
                    if st is None or not st.has_min_max:
                        out.append((name, chunk.path_in_schema, None, None, None))
                    else:
                        out.append((name, chunk.path_in_schema, st.min, st.max,
                                    st.null_count if st.has_null_count else None))
        except Exception:  # noqa: BLE001 - no statistics to trust: every row is checked
            return [(name, next(iter(columns)), None, None, None)]
    return out


def proven(source: Source, outcome: str, dtype: str, sample: str | None, n_categories: int) -> int | None:
    """The largest sample id (0 without a sample column) where the Parquet
    statistics of every row group prove every row's outcome an integer
    category 0..C and its sample id an integer >= 0, none missing: then no
    row can have a problem but a missing model/question id or a repeated
    sample id, which the lean count still finds. None where not proven (no
    statistics; other formats: every row is checked)."""
    if source.kind != "parquet" or source.relation is not None or not source.files:
        return None
    if not (dtype == "BOOLEAN" or sample_is_integer(dtype)):
        return None
    limits = {outcome: n_categories - 1}
    if sample is not None:
        limits[sample] = 1 << 62
    seen: dict[str, set[str]] = {c: set() for c in limits}
    top = 0
    for file, column, lo, hi, nulls in _statistics(source, set(limits)):
        seen[column].add(file)
        if lo is None or hi is None or nulls is None or int(nulls) != 0:
            return None
        try:
            lo_i, hi_i = _stat(lo), _stat(hi)
        except (ValueError, KeyError):
            return None
        if lo_i < 0 or hi_i > limits[column]:
            return None
        if column == sample:
            top = max(top, hi_i)
    if any(len(files) != len(source.files) for files in seen.values()):
        return None  # a file without the column (hive partitions, a schema that differs)
    return top


def proven_rows(source: Source, r: RowSql) -> int | None:
    """:func:`proven` for the outcome and sample columns of ``r``."""
    if r.names is None:
        return None
    _, _, outcome, sample = r.names
    return proven(source, outcome, dict(r.types).get(outcome, ""), sample, r.categories)
