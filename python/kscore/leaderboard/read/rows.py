"""The SQL of one row of the source (:class:`RowSql`, read/sql.py) from
its described columns and which of them is the model, question, outcome and
sample (resolved by the orchestrator, read/columns.py), and the question
attributes carried. (Whether the Parquet statistics prove the rows clean,
read/proof.py, is asked only where DuckDB's query counts: read/aggregate.py.)"""

from __future__ import annotations

from .._issues import LeaderboardError
from .._options import ColumnNames
from .source import Source
from .sql import RowSql, literal, outcome_expr, sample_is_integer, value


def row_sql(source: Source, names: ColumnNames, cols: ColumnNames, n_categories: int,
            columns: list[tuple[str, str]]) -> RowSql:
    """``cols``: the columns resolved (:func:`~kscore.leaderboard.read.columns.resolve_columns`),
    ``names``: as given (its ``extra`` carried)."""
    available = [n for n, _ in columns if not (source.multi and n == "filename")]
    types = dict(columns)
    stem = None if source.multi else source.stem
    assert cols.question is not None and cols.outcome is not None
    if cols.model is not None:
        m = value(cols.model, types[cols.model])
    elif source.multi:
        m = "regexp_extract(filename, '([^/\\\\]+?)([.][^/\\\\]*)?$', 1)"
    else:
        m = literal(stem or source.label)
    s = value(cols.sample, types[cols.sample]) if cols.sample is not None else None
    mask_ok = cols.sample is not None and sample_is_integer(types[cols.sample])
    return RowSql(m, value(cols.question, types[cols.question]), outcome_expr(cols.outcome, types[cols.outcome]), s,
                  f"CAST({value(cols.outcome, types[cols.outcome])} AS VARCHAR)", mask_ok, n_categories, None,
                  extra_columns(names.extra, available, source.label, types),
                  (cols.model, cols.question, cols.outcome, cols.sample),
                  tuple((n, source.types.get(n, t)) for n, t in columns))


def extra_columns(extra: tuple[str, ...], available: list[str], label: str,
                  types: dict[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """The question attributes to carry (``--cluster``, ``--by``), checked to exist."""
    for name in extra:
        if name not in available:
            raise LeaderboardError(f"no column '{name}' in {label} (--cluster / --by); columns: "
                                   f"{', '.join(available[:20])}")
    return tuple((name, f"CAST({value(name, (types or {}).get(name, ''))} AS VARCHAR)") for name in extra)
