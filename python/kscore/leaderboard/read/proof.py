"""The Parquet-statistics proof (docs/leaderboard.md, *How it reads*):
where the column statistics of every row group prove every outcome an
integer category and every sample id an integer in 0..N, none missing, no
row can have a problem but a missing id or a repeated sample id, and the
count need not check each row (:func:`proven`)."""

from __future__ import annotations

from .source import Source
from .sql import literal, sample_is_integer


def _stat(value: object) -> int:
    text = str(value)
    return {"false": 0, "true": 1}[text] if text in ("false", "true") else int(text)


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
    target = "[" + ", ".join(literal(str(f)) for f in source.files) + "]"
    try:
        stats = source.con.sql("SELECT file_name, path_in_schema, stats_min_value, stats_max_value, stats_null_count "
                               f"FROM parquet_metadata({target})").fetchall()
    except Exception:  # noqa: BLE001 - no statistics to trust: every row is checked
        return None
    limits = {outcome: n_categories - 1}
    if sample is not None:
        limits[sample] = 1 << 62
    seen: dict[str, set[str]] = {c: set() for c in limits}
    top = 0
    for file, column, lo, hi, nulls, in stats:
        if column not in limits:
            continue
        seen[column].add(str(file))
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
