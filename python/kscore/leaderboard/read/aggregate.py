"""Rows to counts in one DuckDB query (docs/leaderboard.md, *How it reads*).

One ``GROUP BY model, question`` turns every row into per-(model, question)
category counts, plus what the diagnostics need: the rows with a problem
(no id, an unparsable or out-of-range outcome; their kinds are told apart
only when there are any, by read/diagnose.py) and the distinct sample ids (a
64-bit mask of ids 0..63, so duplicates cost no extra pass; other ids get an
exact ``count(DISTINCT)`` pass). Where the Parquet column statistics already
prove every outcome an integer category and every sample id in 0..63, the
query is the bare count (``count(*)``, ``sum``, the mask) with no per-row
checks. DuckDB streams the input on all cores and spills to disk: memory
grows with the number of (model, question) pairs, not rows. The result
comes back as Arrow and becomes numpy codes without per-cell Python work.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from .._counts import Counts
from .._issues import Issues, LeaderboardError
from .._types import IntArray
from ..runtime import profile, threads
from ..runtime.progress import phase
from .columns import ColumnNames, resolve_columns
from .diagnose_read import duplicate_header
from .direct import REPEATED, applies, count_rows, to_counts
from .interrupt import interruptible
from .source import Source
from .sql import RowSql, literal, outcome_expr, sample_is_integer, value

#: Where a count went and why (``--verbose`` prints it).
log = logging.getLogger("kscore")


@dataclass
class Cells:
    """The aggregation's result before the diagnostics: ``counts`` (valid
    rows only) plus the problem totals."""

    counts: Counts
    rows: RowSql
    no_id: int  # rows without a model or question id (their cells are dropped)
    bad: int  # other rows with a problem: no sample id, unparsable or out-of-range outcome
    duplicates: int  # valid rows repeating a (model, question, sample)


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


def row_sql(source: Source, names: ColumnNames, n_categories: int, issues: Issues,
            columns: list[tuple[str, str]]) -> RowSql:
    available = [n for n, _ in columns if not (source.multi and n == "filename")]
    types = dict(columns)
    stem = None if source.multi else source.stem
    cols = resolve_columns(available, names, source.label, issues, stem)
    assert cols.question is not None and cols.outcome is not None
    if cols.model is not None:
        m = value(cols.model, types[cols.model])
    elif source.multi:
        m = "regexp_extract(filename, '([^/\\\\]+?)([.][^/\\\\]*)?$', 1)"
    else:
        m = literal(stem or source.label)
    s = value(cols.sample, types[cols.sample]) if cols.sample is not None else None
    mask_ok = cols.sample is not None and sample_is_integer(types[cols.sample])
    proven = _proven(source, cols.outcome, types[cols.outcome], cols.sample, n_categories)
    return RowSql(m, value(cols.question, types[cols.question]), outcome_expr(cols.outcome, types[cols.outcome]), s,
                  f"CAST({value(cols.outcome, types[cols.outcome])} AS VARCHAR)", mask_ok, n_categories, proven,
                  extra_columns(names.extra, available, source.label, types),
                  (cols.model, cols.question, cols.outcome, cols.sample))


def extra_columns(extra: tuple[str, ...], available: list[str], label: str,
                  types: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """The question attributes to carry (``--cluster``, ``--by``), checked to exist."""
    for name in extra:
        if name not in available:
            raise LeaderboardError(f"no column '{name}' in {label} (--cluster / --by); columns: "
                                   f"{', '.join(available[:20])}")
    return tuple((name, f"CAST({value(name, (types or {}).get(name, ''))} AS VARCHAR)") for name in extra)


def _stat(value: object) -> int:
    text = str(value)
    return {"false": 0, "true": 1}[text] if text in ("false", "true") else int(text)


def _proven(source: Source, outcome: str, dtype: str, sample: str | None, n_categories: int) -> int | None:
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


def _query(r: RowSql) -> str:
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


def ints(arr: Any) -> IntArray:
    """A non-null integer Arrow array (or chunked array) as int64, read from
    its buffers (``to_numpy`` would import pandas)."""
    chunks = getattr(arr, "chunks", None)
    parts = []
    for ch in chunks if chunks is not None else [arr]:
        if ch.null_count:
            ch = ch.fill_null(0)
        width = ch.type.bit_width // 8
        data = np.frombuffer(ch.buffers()[1], dtype=np.dtype(f"i{width}"), count=len(ch) + ch.offset)[ch.offset:]
        parts.append(data.astype(np.int64, copy=False))
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def int_column(table: Any, name: str) -> IntArray:
    """A non-null integer column of an Arrow table as int64."""
    return ints(table.column(name))


def arrow_call(function: str, *args: Any) -> Any:
    """An Arrow compute function by name. pyarrow.compute itself is not
    imported: it wraps some 300 functions with their docstrings on import,
    0.1 s of a run (its ``call_function`` is ``pyarrow._compute``'s)."""
    try:
        from pyarrow._compute import call_function
    except ImportError:  # pragma: no cover - a pyarrow that moved it
        from pyarrow.compute import call_function
    return call_function(function, list(args))


def codes(table: Any, name: str) -> tuple[list[str], IntArray]:
    """A string column as sorted distinct names and an int64 code per row
    (-1 where null), by Arrow's dictionary encoding: no per-row Python, and
    no copy of the strings (the chunks are encoded as they are)."""
    import pyarrow as pa

    col = table.column(name)
    enc = arrow_call("dictionary_encode", col if isinstance(col, pa.ChunkedArray) else pa.chunked_array([col]))
    if len({len(ch.dictionary) for ch in enc.chunks}) > 1:
        enc = enc.unify_dictionaries()
    dictionary = enc.chunks[0].dictionary if enc.num_chunks else pa.array([], pa.string())
    sort = arrow_call("array_sort_indices", dictionary)
    order = ints(sort)
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    out = np.empty(len(col), np.int64)
    at = 0
    for ch in enc.chunks:
        idx = ch.indices
        if len(rank) == 0:  # every value null (an empty question column: found by tests/fuzz_readers.py)
            out[at:at + len(idx)] = -1
        elif idx.null_count:
            raw = ints(idx.fill_null(-1))
            out[at:at + len(idx)] = np.where(raw >= 0, rank[np.maximum(raw, 0)], -1)
        elif len(idx):
            width = idx.type.bit_width // 8
            raw32 = np.frombuffer(idx.buffers()[1], np.dtype(f"i{width}"), count=len(idx) + idx.offset)[idx.offset:]
            np.take(rank, raw32, out=out[at:at + len(idx)], mode="clip")  # valid indices; "raise" would buffer out
        at += len(idx)
    names = arrow_call("take", dictionary, sort).to_pylist()  # (pa.array of numpy would import pandas)
    return [str(x) for x in names], out


def order_cells(m: IntArray, q: IntArray, n_questions: int, columns: list[IntArray]) -> tuple[
        IntArray, IntArray, IntArray]:
    """``m``, ``q`` and each of ``columns`` (values per cell; the first one
    non-negative) reordered by model, then question; the columns as the rows
    of one array (so that the counts' categories are a view of it).

    Random access is what costs here (a gather through a random permutation
    of a million cells is ten times a sequential pass), so each column moves
    once: where every model has every question, each value is written at its
    key ``m * Q + q`` and the ordered ``m``, ``q`` are written out
    sequentially (a hole left in the first column means repeated keys: then
    the general way); else the ordered keys and the permutation come from
    one scatter over the key space (a sort where that is much larger)."""
    Q = max(n_questions, 1)
    N = len(m)
    L = int(m.max()) + 1 if N else 0
    key = m * Q
    key += q
    out = np.empty((len(columns), N), np.int64)
    if N and N == L * Q and columns:
        out[0].fill(-1)
        out[0][key] = columns[0]
        if int(out[0].min()) >= 0:
            for i, col in enumerate(columns[1:], 1):
                out[i][key] = col
            return np.repeat(np.arange(L, dtype=np.int64), Q), np.tile(np.arange(Q, dtype=np.int64), L), out
    order = by_model_question(m, q, n_questions)
    keys = key[order]
    m_sorted = keys // Q
    for i, col in enumerate(columns):
        np.take(col, order, out=out[i], mode="clip")  # a permutation; "raise" would buffer out
    return m_sorted, keys - m_sorted * Q, out


def codes_of(table: Any, names: list[str]) -> list[tuple[list[str], IntArray]]:
    """:func:`codes` of several columns, side by side on threads for a large
    table (Arrow's hashing and numpy's take release the GIL): the models and
    the questions of a million cells take one encoding's time, not two."""
    if len(names) < 2 or table.num_rows < 100_000:
        return [codes(table, n) for n in names]
    import threading

    # Imported here, before the threads: a Ctrl-C inside this import on one
    # thread left the import lock held for the other (a deadlock found by
    # tests/test_interrupt.py).
    arrow_call("is_null", table.column(names[0]).slice(0, 0))
    out: list[Any] = [None] * len(names)
    done = [threading.Event() for _ in names]

    def run(i: int) -> None:
        try:
            out[i] = codes(table, names[i])
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the caller's thread
            out[i] = exc
        finally:
            done[i].set()

    for i in range(1, len(names)):
        threading.Thread(target=run, args=(i,), name="kscore-codes", daemon=True).start()
    out[0] = codes(table, names[0])  # on this thread: a Ctrl-C goes straight up
    for event in done[1:]:
        while not event.wait(0.25):  # not Thread.join: see read/interrupt.py
            pass
    for x in out:
        if isinstance(x, BaseException):
            raise x
    return out


def by_model_question(m: IntArray, q: IntArray, n_questions: int) -> IntArray:
    """The permutation ordering unique (model, question) code pairs by model,
    then question: a scatter when the grid is not much larger than the cells,
    else a sort."""
    key = m * max(n_questions, 1) + q
    if len(key) == 0:
        return np.zeros(0, np.int64)
    size = int(key.max()) + 1
    if size <= 4 * len(key) + 1024:
        slot = np.full(size, -1, np.int64)
        slot[key] = np.arange(len(key))
        out: IntArray = slot[slot >= 0]
        if len(out) == len(key):
            return out
        # A repeated key (not from a GROUP BY): the scatter kept one of them.
    return np.argsort(key, kind="stable")


def aggregate(source: Source, r: RowSql) -> Cells:
    """Run the aggregation; per-cell counts, problem totals."""
    why = applies(source, r)
    if why is None:
        found = count_rows(source, r)
        if not isinstance(found, str):
            log.info("%s: counted directly on %d threads", source.label, threads.count())
            phase("counting")
            return Cells(to_counts(found), r, 0, 0, 0)
        why = found
        if found == REPEATED:  # the lean query would find it too: count with every row checked
            r = replace(r, proven=None)
    if why != "turned off":
        log.info("%s: counted by DuckDB's query (%s threads), not directly: %s", source.label,
                 threads.chosen() or "all", why)
    with profile.phase("DuckDB query", threads="all"):
        table = run_checked(source, _query(r), filename=source.multi)
    phase("counting")
    columns = set(table.column_names)
    lean = r.proven is not None and "bad" not in columns
    if lean and "dup" in columns and arrow_call("any", table.column("dup")).as_py():
        # A repeated sample id: count again with every row checked, so that
        # the diagnostics find the repeats and keep the first.
        return aggregate(source, replace(r, proven=None))
    (models, m), (questions, q), *xs = codes_of(table, ["m", "q", *(f"x{i}" for i in range(len(r.extra)))])
    cats = [int_column(table, f"c_{j}") for j in range(r.categories)]
    bad = int_column(table, "bad") if "bad" in columns else None
    dup = int_column(table, "dup") if "dup" in columns and not lean else None
    ids_missing = table.column("m").null_count + table.column("q").null_count > 0
    del table
    if len(m) == 0:
        raise LeaderboardError(f"no results in {source.label} (no data rows)")
    exact = dup is not None and bool((dup < 0).any())
    no_id = 0
    n_bad = int(bad.sum()) if bad is not None else 0
    # A cell whose every row was skipped (no valid outcome) is dropped, as if
    # absent: kept with n = 0 it would make every metric of its model n/a.
    # (The lean count has none: each of its cells has rows, all valid.)
    keep = None if lean else sum(cats[1:], cats[0]) > 0
    if ids_missing:
        ids_ok = (m >= 0) & (q >= 0)
        no_id = int(sum(int(c[~ids_ok].sum()) for c in cats) + (bad[~ids_ok].sum() if bad is not None else 0))
        n_bad = int(bad[ids_ok].sum()) if bad is not None else 0
        keep = ids_ok if keep is None else keep & ids_ok
    if keep is not None and not keep.all():
        models, m = drop_unused(models, m, keep)
        questions, q = drop_unused(questions, q, keep)
        cats = [c[keep] for c in cats]
        dup = dup[keep] if dup is not None else None
        xs = [(names, x[keep]) for names, x in xs]
    duplicates = int(dup[dup > 0].sum()) if dup is not None else 0
    if exact:
        duplicates += _exact_duplicates(source, r)
    m, q, placed = order_cells(m, q, len(questions), cats + [x for _, x in xs])
    categories = placed[:r.categories].T  # cells x categories, column-major: each column contiguous
    xs = [(names, x) for (names, _), x in zip(xs, placed[r.categories:])]
    attributes = question_attributes(q, len(questions), xs, r.extra)
    return Cells(Counts(models, questions, m, q, categories, attributes), r, no_id, n_bad, duplicates)


def question_attributes(q: IntArray, n_questions: int, values: list[tuple[list[str], IntArray]],
                        extra: tuple[tuple[str, str], ...]) -> dict[str, list[str | None]]:
    """Each carried attribute per question: its first non-null value over
    the cells (``q``: the cells' question codes; ``values``: per attribute,
    as :func:`codes` of the cells, -1 where null)."""
    out: dict[str, list[str | None]] = {}
    for (name, _), (names, code) in zip(extra, values):
        known = np.flatnonzero(code >= 0)
        first_q, at = np.unique(q[known], return_index=True)
        per: list[str | None] = [None] * n_questions
        for qi, ci in zip(first_q.tolist(), code[known[at]].tolist()):
            per[qi] = names[ci]
        out[name] = per
    return out


def drop_unused(names: list[str], code: IntArray, keep: npt.NDArray[np.bool_]) -> tuple[list[str], IntArray]:
    """Codes of the kept rows, renumbered over the names they still use."""
    kept = code[keep]
    used = np.zeros(len(names), bool)
    used[kept] = True
    new = np.cumsum(used) - 1
    return [x for x, u in zip(names, used) if u], new[kept]


def _exact_duplicates(source: Source, r: RowSql) -> int:
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
    import duckdb

    from .diagnose_read import explain_read_error

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


def error_line(source: Source, exc: BaseException) -> str:
    text = str(exc).strip()
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), type(exc).__name__)
    if source.kind == "parquet" and ("magic bytes" in text.lower() or "not a parquet" in text.lower()
                                     or "too small" in text.lower()):
        return f"{source.label} is not a readable Parquet file: {first}"
    return f"{source.label}: cannot read {source.kind}: {first}"
