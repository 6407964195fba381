"""A counts table as the source: columns model, question, n, c (and c_0..c_C
for graded outcomes), e.g. the ``counts`` of an earlier run or the sum of
several (docs/leaderboard.md, *Counts tables*). Repeated (model, question)
rows are added, so concatenated tables merge."""

from __future__ import annotations

from ._aggregate import (
    codes_of,
    drop_unused,
    extra_columns,
    int_column,
    order_cells,
    question_attributes,
    run_checked,
)
from ._columns import ColumnNames
from ._counts import Counts
from ._issues import Issues, LeaderboardError
from ._source import Source
from ._sql import ident


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
    categories = placed[:len(cat)].T  # cells x categories, column-major, as _aggregate.py's
    xs = [(names, x) for (names, _), x in zip(xs, placed[len(cat):])]
    attributes = question_attributes(q, len(questions), xs, extra)
    return Counts(models, questions, m, q, categories, attributes)
