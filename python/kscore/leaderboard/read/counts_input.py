"""A counts table as the source: columns model, question, n, c (and c_0..c_C
for graded outcomes), e.g. the ``counts`` of an earlier run or the sum of
several (docs/leaderboard.md, *Counts tables*). Repeated (model, question)
rows are added, so concatenated tables merge.

A Parquet counts table whose ids are text and whose counts are integers
(what ``kscore count`` writes) is read by pyarrow with the ids as the
file's own dictionaries: no ``GROUP BY`` over its rows and no hashing of
each row's names, so a stored board of 10M cells reads in a fraction of
the query's time (the checks are the query's, in numpy). Any other table
goes through the DuckDB query."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._arrays import IntArray
from .._counts import Counts, sum_cells
from .._issues import Issues, LeaderboardError
from .._options import ColumnNames
from .arrow import arrow_call, codes_of, drop_unused, int_column, ints, order_cells, question_attributes
from .query import run_checked
from .rows import extra_columns
from .source import Source
from .sql import ident


def is_counts_table(columns: list[str], names: ColumnNames) -> bool:
    lower = {c.lower() for c in columns}
    return names.outcome is None and {"n", "c"} <= lower


def read_counts_table(source: Source, columns: list[str], names: ColumnNames, n_categories: int,
                      issues: Issues) -> Counts:
    lower = {c.lower(): c for c in reversed(columns)}
    model = names.model or lower.get("model")
    question = names.question or lower.get("question")
    if question is None or model is None:
        raise LeaderboardError(f"counts table {source.label} needs columns model, question, n, c; "
                               f"has {', '.join(columns)}")
    per_cat = [lower.get(f"c_{j}") for j in range(n_categories)]
    graded = n_categories > 2
    if graded and None in per_cat:
        raise LeaderboardError(f"counts table {source.label} has no column c_{per_cat.index(None)}: --weights gives "
                               f"{n_categories} categories, which need columns c_0..c_{n_categories - 1}")
    fast = _read_parquet(source, [model, question, lower["n"], lower["c"], *(x for x in per_cat if x)],
                         names.extra, columns, n_categories, issues)
    if fast is not None:
        return fast
    n, c = ident(lower["n"]), ident(lower["c"])
    cats = [ident(x) for x in per_cat] if graded else [f"{n} - {c}", c]  # type: ignore[arg-type]
    ok = f"{c} IS NOT NULL AND {n} IS NOT NULL AND {c} >= 0 AND {c} <= {n} AND {n} = floor({n}) AND {c} = floor({c})"
    if graded:
        ok += f" AND {' + '.join(cats)} = {n} AND {cats[-1]} = {c} AND " + " AND ".join(f"{x} >= 0" for x in cats)
    sums = ", ".join(f"CAST(sum({x}) FILTER (WHERE ok) AS BIGINT) AS c_{j}" for j, x in enumerate(cats))
    extra = extra_columns(names.extra, columns, source.label)
    sums += "".join(f", any_value({e}) AS x{i}" for i, (_, e) in enumerate(extra))
    sql = (f"SELECT CAST(m AS VARCHAR) AS m, CAST(q AS VARCHAR) AS q, {sums}, CAST(count_if(NOT ok) AS BIGINT) AS bad "
           f"FROM (SELECT *, {ident(model)} AS m, {ident(question)} AS q, coalesce({ok}, false) AS ok FROM {{src}}) "
           "GROUP BY m, q")
    table = run_checked(source, sql)
    bad = int(int_column(table, "bad").sum())
    if bad:
        issues.warn(f"{source.label}: {bad} counts row(s) with invalid counts (need 0 <= c <= n, integers"
                    f"{', c_0..c_C summing to n' if graded else ''}) (skipped)")
    (models, m), (questions, q), *xs = codes_of(table, ["m", "q", *(f"x{i}" for i in range(len(extra)))])
    cat = [int_column(table, f"c_{j}") for j in range(len(cats))]
    have = (sum(cat[1:], cat[0]) > 0) & (m >= 0) & (q >= 0)
    if not have.all():
        models, m = drop_unused(models, m, have)
        questions, q = drop_unused(questions, q, have)
        cat = [c[have] for c in cat]
        xs = [(names, x[have]) for names, x in xs]
    m, q, placed = order_cells(m, q, len(questions), cat + [x for _, x in xs])
    categories = placed[:len(cat)].T  # cells x categories, column-major, as read/aggregate.py's
    xs = [(names, x) for (names, _), x in zip(xs, placed[len(cat):])]
    attributes = question_attributes(q, len(questions), xs, extra)
    return Counts(models, questions, m, q, categories, attributes)


#: Parquet counts tables from this size on (bytes, all files) are read by
#: pyarrow: below it the query is as quick, and importing pyarrow.parquet
#: (0.1 s) would cost a small board more than it saves.
FAST_BYTES = 4 << 20

#: Counts above this (per row) take the DuckDB query, whose sums cannot
#: overflow unnoticed.
_LARGEST = 1 << 40


def _read_parquet(source: Source, wanted: list[str], extra: tuple[str, ...], columns: list[str], n_categories: int,
                  issues: Issues) -> Counts | None:
    """The counts table read by pyarrow and checked in numpy, as the query
    of :func:`read_counts_table` checks it; None where this path does not
    apply (not Parquet files, hive partitions, ids that are not text, counts
    that are not integers, files whose columns differ): then the query."""
    if source.kind != "parquet" or source.relation is not None or not source.files:
        return None
    if any("=" in part for f in source.files for part in f.parts[:-1]):
        return None  # hive partitions add columns that pyarrow does not read here
    if sum(f.stat().st_size for f in source.files) < FAST_BYTES:
        return None
    try:
        import pyarrow as pa  # (optional and heavy: imported where this path applies)
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - the cli extra installs pyarrow
        return None
    for name in extra:
        if name not in columns:
            return None  # the query's one-line error
    text = [wanted[0], wanted[1], *extra]
    try:
        parts = [pq.read_table(f, columns=list(dict.fromkeys(wanted[:2] + wanted[2:] + list(extra))),
                               read_dictionary=text) for f in source.files]
        table = pa.concat_tables(parts) if len(parts) > 1 else parts[0]
    except (pa.ArrowException, OSError, ValueError, KeyError):
        return None
    types = table.schema
    for name in text:
        t = types.field(name).type
        if not (pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type)
                                               or pa.types.is_large_string(t.value_type))):
            return None
    counts = wanted[2:]
    if not all(pa.types.is_signed_integer(types.field(x).type) for x in counts):  # (read as signed below)
        return None
    return _checked(table, wanted, extra, n_categories, source, issues)


def _values(table: Any, name: str) -> tuple[IntArray, Any]:
    """An integer column as int64 (nulls as 0) and its validity (None: no nulls)."""
    col = table.column(name)
    valid = None
    if col.null_count:
        valid = np.concatenate([np.asarray(arrow_call("is_valid", ch)) if len(ch) else np.zeros(0, bool)
                                for ch in col.chunks])
    return ints(col), valid


def _checked(table: Any, wanted: list[str], extra: tuple[str, ...], n_categories: int, source: Source,
             issues: Issues) -> Counts | None:
    graded = n_categories > 2
    n, n_ok = _values(table, wanted[2])
    c, c_ok = _values(table, wanted[3])
    if len(n) and (int(n.max()) > _LARGEST or int(c.max()) > _LARGEST):
        return None
    ok = (c >= 0) & (c <= n)
    for valid in (n_ok, c_ok):
        if valid is not None:
            ok &= valid
    if graded:
        cats = []
        for name in wanted[4:]:
            x, x_ok = _values(table, name)
            if len(x) and int(x.max()) > _LARGEST:
                return None
            ok &= x >= 0
            if x_ok is not None:
                ok &= x_ok
            cats.append(x)
        ok &= (sum(cats[1:], cats[0]) == n) & (cats[-1] == c)
    else:
        cats = [n - c, c]
    bad = int(len(ok) - np.count_nonzero(ok))
    if bad:
        issues.warn(f"{source.label}: {bad} counts row(s) with invalid counts (need 0 <= c <= n, integers"
                    f"{', c_0..c_C summing to n' if graded else ''}) (skipped)")
    renamed = table.select([wanted[0], wanted[1], *extra]).rename_columns(
        ["m", "q", *(f"x{i}" for i in range(len(extra)))])
    (models, m), (questions, q), *xs = codes_of(renamed, renamed.column_names)
    have = ok & (m >= 0) & (q >= 0)
    if not have.all():
        models, m = drop_unused(models, m, have)
        questions, q = drop_unused(questions, q, have)
        cats = [x[have] for x in cats]
        xs = [(names, x[have]) for names, x in xs]
    cell_m, cell_q, categories = sum_cells(m, q, len(questions), cats)
    attributes = question_attributes(q, len(questions), xs, tuple((x, x) for x in extra))
    out = Counts(models, questions, cell_m, cell_q, categories, attributes)
    return _unused_dropped(out)


def _unused_dropped(counts: Counts) -> Counts:
    """Names no cell uses (a model whose every row was all zeros) removed, as
    the query's ``GROUP BY`` (whose empty cells are dropped) leaves none."""
    used_m = np.zeros(len(counts.models), bool)
    used_m[counts.model] = True
    used_q = np.zeros(len(counts.questions), bool)
    used_q[counts.question] = True
    if used_m.all() and used_q.all():
        return counts
    new_m, new_q = np.cumsum(used_m) - 1, np.cumsum(used_q) - 1
    keep_q = np.flatnonzero(used_q)
    attributes = {k: [v[i] for i in keep_q] for k, v in counts.attributes.items()}
    return Counts([x for x, u in zip(counts.models, used_m) if u], [x for x, u in zip(counts.questions, used_q) if u],
                  new_m[counts.model], new_q[counts.question], counts.categories, attributes)
