"""Rows to counts in one DuckDB query (docs/leaderboard.md, *How it reads*).

One ``GROUP BY model, question`` turns every row into per-(model, question)
category counts, plus what the diagnostics need: rows without an id,
unparsable and out-of-range outcomes, and the distinct sample ids (a 64-bit
mask of ids 0..63, so duplicates cost no extra pass; other ids get an exact
``count(DISTINCT)`` pass). DuckDB streams the input on all cores and spills
to disk: memory grows with the number of (model, question) pairs, not rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ._columns import ColumnNames, resolve_columns
from ._counts import Counts
from ._issues import Issues, LeaderboardError
from ._source import Source
from ._sql import RowSql, ident, literal, outcome_expr, sample_is_integer

IntArray = npt.NDArray[np.int64]


@dataclass
class Cells:
    """The aggregation's result before the diagnostics: ``counts`` plus
    per-cell problem counts (each row counted under its first problem)."""

    counts: Counts
    rows: RowSql
    no_id: int  # rows without a model or question id (their cells are dropped)
    no_sample: IntArray
    unparsable: IntArray
    out_of_range: IntArray
    duplicates: IntArray


def describe(source: Source) -> list[tuple[str, str]]:
    """Column names and DuckDB types of the source."""
    rel = source.run("SELECT * FROM {src} LIMIT 0")
    return [(str(n), str(t)) for n, t in zip(rel.columns, rel.types)]


def row_sql(source: Source, names: ColumnNames, n_categories: int, issues: Issues,
            columns: list[tuple[str, str]]) -> RowSql:
    available = [n for n, _ in columns if not (source.multi and n == "filename")]
    types = dict(columns)
    stem = None if source.multi else source.stem
    cols = resolve_columns(available, names, source.label, issues, stem)
    assert cols.question is not None and cols.outcome is not None
    if cols.model is not None:
        m = ident(cols.model)
    elif source.multi:
        m = "regexp_extract(filename, '([^/\\\\]+?)([.][^/\\\\]*)?$', 1)"
    else:
        m = literal(stem or source.label)
    s = ident(cols.sample) if cols.sample is not None else None
    mask_ok = cols.sample is not None and sample_is_integer(types[cols.sample])
    return RowSql(m, ident(cols.question), outcome_expr(cols.outcome, types[cols.outcome]), s,
                  f"CAST({ident(cols.outcome)} AS VARCHAR)", mask_ok, n_categories,
                  extra_columns(names.extra, available, source.label))


def extra_columns(extra: tuple[str, ...], available: list[str], label: str) -> tuple[tuple[str, str], ...]:
    """The question attributes to carry (``--cluster``, ``--by``), checked to exist."""
    for name in extra:
        if name not in available:
            raise LeaderboardError(f"no column '{name}' in {label} (--cluster / --by); columns: "
                                   f"{', '.join(available[:20])}")
    return tuple((name, f"CAST({ident(name)} AS VARCHAR)") for name in extra)


def _query(r: RowSql) -> str:
    ok = r.valid()
    parts = ["count(*) AS nrows"]
    if r.s is not None:
        parts.append("count_if(s IS NULL) AS no_sample")
        parts.append("count_if(s IS NOT NULL AND v IS NULL) AS unparsable")
        parts += [f"count_if(v = {j} AND s IS NOT NULL) AS c_{j}" for j in range(r.categories)]
        if r.mask_ok:
            parts.append(f"bit_count(bit_or(CASE WHEN {ok} AND s BETWEEN 0 AND 63 "
                         "THEN 1::UBIGINT << CAST(s AS INTEGER) END)) AS distinct_s")
            parts.append(f"count_if({ok} AND NOT (s BETWEEN 0 AND 63)) AS wide")
    else:
        parts.append("count_if(v IS NULL) AS unparsable")
        parts += [f"count_if(v = {j}) AS c_{j}" for j in range(r.categories)]
    inner = f"{r.select()} FROM {{src}}"
    names = [p.rsplit(" AS ", 1)[1] for p in parts]
    # count_if is a HUGEINT; bit_or over no rows is NULL, which counts as 0 here.
    casts = ", ".join(f"CAST(coalesce({n}, 0) AS BIGINT) AS {n}" for n in names)
    # Question attributes: any value of the (model, question) group.
    xs = [f"x{i}" for i in range(len(r.extra))]
    parts += [f"any_value({x}) AS {x}" for x in xs]
    casts += "".join(f", {x}" for x in xs)
    return (f"SELECT CAST(m AS VARCHAR) AS m, CAST(q AS VARCHAR) AS q, {casts} FROM "
            f"(SELECT m, q, {', '.join(parts)} FROM ({inner}) GROUP BY m, q)")


def _column(table: Any, name: str) -> IntArray:
    # Chunk by chunk: ChunkedArray.to_numpy is far slower on a 1M-row column.
    chunks = [np.asarray(ch.to_numpy(zero_copy_only=False), dtype=np.int64) for ch in table.column(name).chunks]
    return np.concatenate(chunks) if chunks else np.zeros(0, np.int64)


def aggregate(source: Source, r: RowSql) -> Cells:
    """Run the aggregation; per-cell counts and problem counts."""
    import pyarrow.compute as pc

    table = run_checked(source, _query(r), filename=source.multi)
    ids_ok = pc.and_(pc.is_valid(table.column("m")), pc.is_valid(table.column("q")))
    no_id = 0
    if not pc.all(ids_ok).as_py():
        no_id = int(pc.sum(pc.filter(table.column("nrows"), pc.invert(ids_ok))).as_py() or 0)
        table = table.filter(ids_ok)
    if table.num_rows == 0 and no_id == 0:
        raise LeaderboardError(f"no results in {source.label} (no data rows)")
    m_codes = pc.dictionary_encode(table.column("m").combine_chunks())
    q_codes = pc.dictionary_encode(table.column("q").combine_chunks())
    cats = np.stack([_column(table, f"c_{j}") for j in range(r.categories)], axis=1)
    nrows = _column(table, "nrows")
    no_sample = _column(table, "no_sample") if r.s is not None else np.zeros_like(nrows)
    unparsable = _column(table, "unparsable")
    valid = cats.sum(axis=1)
    out_of_range = nrows - no_sample - unparsable - valid
    duplicates = np.zeros_like(nrows)
    if r.s is not None:
        if r.mask_ok:
            wide = _column(table, "wide")
            duplicates = np.where(wide == 0, valid - _column(table, "distinct_s"), 0)
            exact = wide > 0
        else:
            exact = np.ones(len(nrows), bool)
        if exact.any():
            duplicates[exact] = _exact_duplicates(source, r, table, exact)
    counts = Counts([str(x) for x in m_codes.dictionary.to_pylist()], [str(x) for x in q_codes.dictionary.to_pylist()],
                    np.asarray(m_codes.indices.to_numpy(), np.int64), np.asarray(q_codes.indices.to_numpy(), np.int64),
                    cats, question_attributes(table, q_codes, r.extra))
    return Cells(counts, r, no_id, no_sample, unparsable, out_of_range, duplicates)


def question_attributes(table: Any, q_codes: Any, extra: tuple[tuple[str, str], ...],
                        prefix: str = "x") -> dict[str, list[str | None]]:
    """Each carried attribute per question (its first non-null value)."""
    q = np.asarray(q_codes.indices.to_numpy(), np.int64)
    out: dict[str, list[str | None]] = {}
    for i, (name, _) in enumerate(extra):
        values: list[str | None] = [None] * len(q_codes.dictionary)
        for qi, v in zip(q.tolist(), table.column(f"{prefix}{i}").to_pylist()):
            if values[qi] is None:
                values[qi] = v
        out[name] = values
    return out


def _exact_duplicates(source: Source, r: RowSql, table: Any, exact: npt.NDArray[np.bool_]) -> IntArray:
    """Repeated sample ids per cell where the bitmask cannot tell (ids outside
    0..63 or not integers): one more pass, ``count(DISTINCT)``."""
    sql = (f"SELECT CAST(m AS VARCHAR) AS m, CAST(q AS VARCHAR) AS q, count(*) - count(DISTINCT s) AS d "
           f"FROM ({r.select()} FROM {{src}}) WHERE {r.valid()} GROUP BY m, q HAVING d > 0")
    found = run_checked(source, sql, filename=source.multi).to_pylist()
    dup = {(x["m"], x["q"]): int(x["d"]) for x in found}
    ms, qs = table.column("m").to_pylist(), table.column("q").to_pylist()
    idx = np.flatnonzero(exact)
    return np.array([dup.get((ms[i], qs[i]), 0) for i in idx], np.int64) if dup else np.zeros(len(idx), np.int64)


def run_checked(source: Source, sql: str, filename: bool = False, row_number: bool = False) -> Any:
    """The query's result as a pyarrow Table; DuckDB errors as one line naming the source."""
    import duckdb

    from ._diagnose_read import explain_read_error

    try:
        rel = source.run(sql, filename, row_number)
        fetch = getattr(rel, "to_arrow_table", None) or rel.fetch_arrow_table  # duckdb >= 1.4 / older
        return fetch()
    except duckdb.Error as exc:
        if "conversion" in str(exc).lower() and source.kind in ("csv", "tsv"):
            raise  # the caller reads the columns as text and retries
        raise LeaderboardError(explain_read_error(source, exc) or error_line(source, exc)) from exc


def error_line(source: Source, exc: BaseException) -> str:
    text = str(exc).strip()
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    if source.kind == "parquet" and ("magic bytes" in text.lower() or "not a parquet" in text.lower()
                                     or "too small" in text.lower()):
        return f"{source.label} is not a readable Parquet file: {first}"
    return f"{source.label}: cannot read {source.kind}: {first}"
