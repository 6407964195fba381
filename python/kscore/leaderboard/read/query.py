"""The counting query (docs/leaderboard.md, *How it reads*) and running it.

One ``GROUP BY model, question`` turns every row into per-(model, question)
category counts, plus what the diagnostics need: the rows with a problem
(no id, an unparsable or out-of-range outcome; their kinds are told apart
only when there are any, by read/diagnose.py) and the distinct sample ids (a
64-bit mask of ids 0..63, so duplicates cost no extra pass; other ids get an
exact ``count(DISTINCT)`` pass, :func:`exact_duplicates`). Where the Parquet
column statistics already prove every outcome an integer category and every
sample id in 0..63 (read/proof.py), the query is the bare count
(``count(*)``, ``sum``, the mask) with no per-row checks. DuckDB streams the
input on all cores and spills to disk: memory grows with the number of
(model, question) pairs, not rows. :func:`run_checked` runs a query and
returns Arrow, DuckDB's errors as one line naming the source."""

from __future__ import annotations

from typing import Any

from .._issues import LeaderboardError
from .arrow import int_column
from .diagnose_read import error_line, explain_read_error
from .interrupt import interruptible
from .source import Source, duckdb_module
from .sql import RowSql


def _onehot_bits(r: RowSql) -> int | None:
    """Bits of the one-hot (sample, outcome) mask: ``categories`` bits per
    sample id 0..proven; None where a 64-bit mask cannot hold them."""
    if r.proven is None or r.s is None:
        return None
    bits = r.categories * (r.proven + 1)
    return bits if bits <= 64 else None


#: Sample ids (0..N-1) proven by the Parquet statistics up to which the
#: distinct ids of a (model, question) are counted on a bitstring of N bits
#: per cell (N / 8 bytes: 128 B for 1024 ids, 1.3 GB for 10M cells).
BITSTRING_IDS = 1024


def count_query(r: RowSql) -> str:
    """One row per (model, question): ``c_0..c_C`` (valid rows per
    category) and, with a sample column, ``dup``.

    Checked rows: also ``bad`` (rows with a problem); ``dup`` is the valid
    rows minus the distinct sample ids (-1 where the mask of ids 0..63
    cannot tell). Proven rows (``r.proven``): two aggregates, as the bare
    count: ``count(*)`` and a one-hot mask, bit ``w * s + v`` for sample id
    ``s`` and outcome ``v`` (``w`` categories), whose bits give the counts;
    ``dup`` is true where a sample id repeats (then the counts are not to be
    used). Proven sample ids too many for that mask (below
    :data:`BITSTRING_IDS`): the counts by ``count``/``sum`` and a bitstring
    of the ids seen, ``dup`` as before."""
    cats = range(r.categories)
    bits = _onehot_bits(r)
    if r.proven is not None and (r.s is None or bits is not None):
        if r.s is None:
            parts = ["count(*) - sum(v) AS c_0", "sum(v) AS c_1"] if r.categories == 2 else \
                [f"count_if(v = {j}) AS c_{j}" for j in cats]
            outer = [f"CAST(c_{j} AS BIGINT) AS c_{j}" for j in cats]
        else:
            # A signed shift may not reach bit 63 (UBIGINT shifted by a signed
            # number is a HUGEINT, hence the unsigned shift amount).
            t, by = ("BIGINT", "INTEGER") if bits is not None and bits < 64 else ("UBIGINT", "UINTEGER")
            w = r.categories
            parts = ["count(*) AS nrows", f"bit_or(1::{t} << CAST({w} * s + v AS {by})) AS mask"]
            base = sum(1 << (w * s) for s in range(r.proven + 1))
            outer = [f"CAST(bit_count(mask & {base << j}::{t}) AS BIGINT) AS c_{j}" for j in cats]
            folded = " | ".join(["mask"] + [f"(mask >> {j})" for j in range(1, w)])
            outer.append(f"bit_count(({folded}) & {base}::{t}) <> nrows AS dup")
    elif r.proven is not None and r.s is not None and r.proven < BITSTRING_IDS:
        # Sample ids proven in 0..proven, too many for the one-hot mask: the
        # counts, and a bitstring of the ids seen, whose bits give the
        # distinct ids (an exact count(DISTINCT) pass would hold every
        # (model, question, sample) in memory: 7.8 GB for 1e8 rows of 100
        # samples).
        parts = ["count(*) - sum(v) AS c_0", "sum(v) AS c_1"] if r.categories == 2 else \
            [f"count_if(v = {j}) AS c_{j}" for j in cats]
        parts += ["count(*) AS nrows", f"bit_count(bitstring_agg(CAST(s AS BIGINT), 0, {r.proven})) AS seen"]
        outer = [f"CAST(c_{j} AS BIGINT) AS c_{j}" for j in cats] + ["seen <> nrows AS dup"]
    else:
        # Conditions on a NULL outcome are NULL, and DuckDB's count_if of
        # only NULLs is NULL, not 0: a cell whose every outcome is missing
        # would lose its bad rows. Hence coalesce(..., false) throughout.
        ok = f"coalesce({r.valid()}, false)"
        keep = " AND s IS NOT NULL" if r.s is not None else ""
        parts = [f"count_if(coalesce(v = {j}{keep}, false)) AS c_{j}" for j in cats]
        parts.append(f"count(*) - count_if({ok}) AS bad")
        if r.s is not None and r.mask_ok:
            parts.append(f"CASE WHEN count_if({ok} AND NOT (s BETWEEN 0 AND 63)) > 0 THEN -1 ELSE count_if({ok}) - "
                         f"coalesce(bit_count(bit_or(CASE WHEN {ok} AND s BETWEEN 0 AND 63 "
                         "THEN 1::UBIGINT << CAST(s AS INTEGER) END)), 0) END AS dup")
        elif r.s is not None:
            parts.append("-1 AS dup")
        # count_if is a HUGEINT.
        outer = [f"CAST({p.rsplit(' AS ', 1)[1]} AS BIGINT) AS {p.rsplit(' AS ', 1)[1]}" for p in parts]
    # Question attributes: any value of the (model, question) group, passed through.
    xs = [f"x{i}" for i in range(len(r.extra))]
    parts += [f"any_value({x}) AS {x}" for x in xs]
    outer += xs
    inner = f"{r.select()} FROM {{src}}"
    return (f"SELECT CAST(m AS VARCHAR) AS m, CAST(q AS VARCHAR) AS q, {', '.join(outer)} FROM "
            f"(SELECT m, q, {', '.join(parts)} FROM ({inner}) GROUP BY m, q)")


def exact_duplicates(source: Source, r: RowSql) -> int:
    """Repeated sample ids where the bitmask cannot tell (ids outside 0..63
    or not integers): one more pass, ``count(DISTINCT)`` (over every cell:
    the counts of the cells the mask covered are not double-counted, since
    the mask's count is only used where no id is outside 0..63)."""
    inner = f"{r.select()} FROM {{src}}"
    wide = "true" if not r.mask_ok else "count_if(NOT (s BETWEEN 0 AND 63)) > 0"
    sql = (f"SELECT CAST(coalesce(sum(d), 0) AS BIGINT) AS d FROM (SELECT count(*) - count(DISTINCT s) AS d "
           f"FROM ({inner}) WHERE {r.valid()} AND m IS NOT NULL AND q IS NOT NULL GROUP BY m, q HAVING {wide})")
    return int(int_column(run_checked(source, sql, filename=source.multi), "d").sum())


#: Rows per Arrow batch of a result: few chunks (DuckDB's default is 131 072
#: rows in 2.0), so that the columns are read from their buffers without copies.
_BATCH = 1 << 22


def run_checked(source: Source, sql: str, filename: bool = False, row_number: bool = False) -> Any:
    """The query's result as a pyarrow Table; DuckDB errors as one line naming the source."""
    duckdb = duckdb_module()

    def work() -> Any:
        rel = source.run(sql, filename, row_number)
        fetch = getattr(rel, "to_arrow_table", None) or rel.fetch_arrow_table  # duckdb >= 1.4 / older
        return fetch(_BATCH)

    try:
        return interruptible(source.con, work)
    except duckdb.Error as exc:
        if "conversion" in str(exc).lower() and source.kind in ("csv", "tsv"):
            raise  # the caller reads the columns as text and retries
        raise LeaderboardError(explain_read_error(source, exc) or error_line(source, exc)) from exc
