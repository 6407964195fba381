"""SQL expressions of one row: model, question, outcome category, sample.

Shared by the aggregation and the diagnostics, so both judge a row alike
(docs/leaderboard.md, *Ragged and dirty data*)."""

from __future__ import annotations

from dataclasses import dataclass

#: DuckDB's integer types.
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                 "UBIGINT", "UHUGEINT")


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def value(col: str, dtype: str) -> str:
    """A column's values; as text where DuckDB read JSON Lines values of
    mixed types as JSON (cast as they are, the string "q1" would be '"q1"'
    with its quotes)."""
    return f"({ident(col)} ->> '$')" if dtype == "JSON" else ident(col)


def outcome_expr(col: str, dtype: str) -> str:
    """The outcome as a number, NULL where missing, unparsable or not finite;
    the words true/false, t/f, yes/no are 1/0."""
    c = value(col, dtype)
    if dtype == "BOOLEAN":
        return f"CAST({c} AS TINYINT)"
    if dtype in INTEGER_TYPES or dtype.startswith("DECIMAL"):
        return c
    if dtype in ("FLOAT", "DOUBLE"):
        return f"CASE WHEN isfinite({c}) THEN {c} END"
    text = f"lower(trim(CAST({c} AS VARCHAR)))"
    num = f"TRY_CAST({text} AS DOUBLE)"
    return (f"CASE WHEN {text} IN ('true', 't', 'yes') THEN 1 WHEN {text} IN ('false', 'f', 'no') THEN 0 "
            f"WHEN isfinite({num}) THEN {num} END")


@dataclass(frozen=True)
class RowSql:
    """Expressions over the scanned rows: ``m``, ``q``, ``v`` (outcome
    number), ``s`` (sample, or None), ``raw`` (the outcome as written);
    ``mask_ok``: the sample is an integer column (duplicates by bitmask);
    ``proven``: the Parquet statistics prove every outcome a category 0..C
    and every sample id an integer in 0..``proven`` (None: not proven; the
    count checks every row)."""

    m: str
    q: str
    v: str
    s: str | None
    raw: str
    mask_ok: bool
    categories: int
    proven: int | None = None
    #: Question attributes carried through the aggregation (``--cluster``,
    #: ``--by``): (name, expression), selected as x0, x1, ...
    extra: tuple[tuple[str, str], ...] = ()
    #: The columns as named in the source (model, question, outcome,
    #: sample; None: absent), for the direct count of Parquet rows
    #: (read/parquet_rows.py).
    names: tuple[str | None, str, str, str | None] | None = None
    #: The source's columns and their DuckDB types as its scan reads them
    #: (the described types, CSV ids read as text), for the direct count.
    types: tuple[tuple[str, str], ...] = ()

    def select(self) -> str:
        s = self.s if self.s is not None else "0"
        xs = "".join(f", {e} AS x{i}" for i, (_, e) in enumerate(self.extra))
        return f"SELECT {self.m} AS m, {self.q} AS q, {self.v} AS v, {s} AS s, {self.raw} AS raw{xs}"

    def valid(self, v: str = "v", s: str = "s") -> str:
        """The row counts: an outcome 0..C (integer-valued) and a sample id."""
        cats = ", ".join(str(j) for j in range(self.categories))
        ok = f"{v} IN ({cats})"
        return f"({ok} AND {s} IS NOT NULL)" if self.s is not None else ok


def sample_is_integer(dtype: str) -> bool:
    return dtype in INTEGER_TYPES
