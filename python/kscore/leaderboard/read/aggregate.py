"""Rows to counts in one DuckDB query (docs/leaderboard.md, *How it reads*):
the assembly. The query (read/query.py; or, where it applies, the direct
count of Parquet and text rows, read/direct.py) gives per-cell counts and
problem totals as Arrow; they become numpy codes ordered by model then
question (read/arrow.py) and one :class:`Counts` with the totals the
diagnostics need (:class:`Cells`)."""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace

from .._counts import Counts
from .._issues import LeaderboardError
from ..runtime import profile
from .arrow import arrow_call, codes_of, drop_unused, int_column, order_cells, question_attributes
from .direct import applies, count_rows
from .proof import proven_rows
from .query import count_query, exact_duplicates, run_checked
from .shards import REPEATED
from .source import Source
from .sql import RowSql

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


def aggregate(source: Source, r: RowSql, checked: bool = False) -> Cells:
    """Run the aggregation; per-cell counts, problem totals. ``checked``:
    by DuckDB's query with every row checked (a repeated sample id found)."""
    why = REPEATED if checked else applies(source, r)
    if why is None:
        found = count_rows(source, r)
        if not isinstance(found, str):
            log.info("%s: counted directly on %d threads", source.label, source.context.threads)
            return Cells(found, r, 0, 0, 0)
        why = found
        checked = found == REPEATED  # the lean query would find it too: count with every row checked
    if why != "turned off":
        log.info("%s: counted by DuckDB's query (%s threads), not directly: %s", source.label,
                 source.context.chosen or "all", why)
    # The lean query where the Parquet statistics prove every row clean
    # (read/proof.py: the footers of every file, read only where DuckDB counts).
    r = replace(r, proven=None if checked else proven_rows(source, r))
    with profile.phase("DuckDB query", threads="all"):
        table = run_checked(source, count_query(r), filename=source.multi)
    columns = set(table.column_names)
    lean = r.proven is not None and "bad" not in columns
    if lean and "dup" in columns and arrow_call("any", table.column("dup")).as_py():
        # A repeated sample id: count again with every row checked, so that
        # the diagnostics find the repeats and keep the first.
        return aggregate(source, replace(r, proven=None), checked=True)
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
        duplicates += exact_duplicates(source, r)
    m, q, placed = order_cells(m, q, len(questions), cats + [x for _, x in xs])
    categories = placed[:r.categories].T  # cells x categories, column-major: each column contiguous
    xs = [(names, x) for (names, _), x in zip(xs, placed[r.categories:])]
    attributes = question_attributes(q, len(questions), xs, r.extra)
    return Cells(Counts(models, questions, m, q, categories, attributes), r, no_id, n_bad, duplicates)
