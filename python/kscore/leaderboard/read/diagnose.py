"""Naming the rows behind the aggregation's problem counts.

Runs only when a problem was counted: one pass numbering the rows (the line
of a CSV file, the record of a JSON Lines file, the row of a Parquet file or
table; per file for a directory or glob) picks up to five examples of each
kind, and duplicates (same model, question and sample) are found with their
first occurrence, which is kept; the others are taken out of the counts
(docs/leaderboard.md, *Ragged and dirty data*)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._issues import EXAMPLES, Issues, LeaderboardError
from .aggregate import Cells
from .query import run_checked
from .source import Source


def _numbered(source: Source) -> str:
    """SQL of the source's rows with ``kscore_rn`` (1-based, per file) and ``kscore_file``."""
    if source.kind == "parquet":
        rn = "file_row_number + 1"
    elif source.multi:
        rn = "row_number() OVER (PARTITION BY filename)"
    else:
        rn = "row_number() OVER ()"
    f = "filename" if source.multi else "NULL"
    return f"SELECT *, {rn} AS kscore_rn, {f} AS kscore_file FROM {{src}}"


def _where(source: Source, rn: int, file: str | None) -> str:
    if source.kind in ("csv", "tsv"):
        at = f"line {rn + 1}"  # the header is line 1
    elif source.kind == "jsonl":
        at = f"record {rn}"
    else:
        at = f"row {rn}"
    return f"{file} {at}" if file else at


def _label(source: Source, row: dict[str, Any]) -> str:
    m = "?" if row["m"] is None else row["m"]
    q = "?" if row["q"] is None else row["q"]
    return f"{_where(source, row['rn'], row['f'])} (model '{m}', question '{q}')"


def _raw(value: Any) -> str:
    return "empty" if value is None or value == "" else repr(value)


def diagnose(source: Source, cells: Cells, issues: Issues) -> None:
    """Warn about every counted problem with examples; drop duplicates."""
    r = cells.rows
    dups = cells.duplicates
    if not (cells.no_id or cells.bad or dups):
        return
    rows = (f"SELECT CAST(m AS VARCHAR) AS m, CAST(q AS VARCHAR) AS q, v, s, raw, rn, f FROM "
            f"({r.select()}, kscore_rn AS rn, kscore_file AS f FROM ({_numbered(source)}))")
    no_sample = "s IS NULL" if r.s is not None else "false"
    kind = (f"CASE WHEN m IS NULL OR q IS NULL OR {no_sample} THEN 'id' WHEN v IS NULL THEN 'parse' "
            f"WHEN NOT {r.valid()} THEN 'range' END")
    where = _source_label(source)
    if cells.no_id or cells.bad:
        # The examples of each kind, and each kind's total (the aggregation
        # counted the problem rows, not their kinds).
        sql = (f"SELECT *, count(*) OVER (PARTITION BY kind) AS total FROM (SELECT *, {kind} AS kind FROM ({rows})) "
               f"WHERE kind IS NOT NULL QUALIFY row_number() OVER (PARTITION BY kind ORDER BY f, rn) <= {EXAMPLES} "
               "ORDER BY f, rn")
        found = run_checked(source, sql, filename=source.multi, row_number=True).to_pylist()
        bad = {k: 0 for k in ("id", "parse", "range")}
        for x in found:
            bad[x["kind"]] = int(x["total"])
        if sum(bad.values()) != cells.no_id + cells.bad:  # pragma: no cover - a bug, not bad data
            raise LeaderboardError(f"{source.label}: inconsistent problem counts")
        ex = {k: [x for x in found if x["kind"] == k] for k in bad}
        issues.rows("rows without a model, question or sample id",
                    [_where(source, x["rn"], x["f"]) for x in ex["id"]], bad["id"], where)
        issues.rows("rows with a missing or unparsable outcome",
                    [f"{_label(source, x)}: {_raw(x['raw'])}" for x in ex["parse"]], bad["parse"], where)
        C = r.categories - 1
        allowed = "0 or 1" if C == 1 else f"an integer category 0..{C} (--weights has {C + 1} entries)"
        issues.rows(f"rows with an outcome out of range (expected {allowed})",
                    [f"{_label(source, x)}: {_raw(x['raw'])}" for x in ex["range"]], bad["range"], where)
    if dups:
        _drop_duplicates(source, cells, rows, issues, where)


def _source_label(source: Source) -> str:
    return source.label


def _drop_duplicates(source: Source, cells: Cells, rows: str, issues: Issues, where: str) -> None:
    """Rows repeating a (model, question, sample) seen earlier: warn, and take
    all but the first out of the counts (rows without a model or question id
    are not counted, so their repeats are not either)."""
    r = cells.rows
    sql = (f"SELECT m, q, s, v, rn, f, first_rn, first_f FROM (SELECT *, "
           f"first_value(rn) OVER w AS first_rn, first_value(f) OVER w AS first_f, "
           f"row_number() OVER w AS k FROM ({rows}) WHERE {r.valid()} AND m IS NOT NULL AND q IS NOT NULL "
           f"WINDOW w AS (PARTITION BY m, q, s ORDER BY f, rn)) WHERE k > 1 ORDER BY f, rn")
    extra = run_checked(source, sql, filename=source.multi, row_number=True)
    counts = cells.counts
    nq = max(len(counts.questions), 1)
    m_index = {x: i for i, x in enumerate(counts.models)}
    q_index = {x: i for i, x in enumerate(counts.questions)}
    key = counts.model * nq + counts.question  # ascending: the rows are ordered by model, then question
    ms, qs, vs = extra.column("m").to_pylist(), extra.column("q").to_pylist(), extra.column("v").to_pylist()
    wanted = np.array([m_index[m] * nq + q_index[q] for m, q in zip(ms, qs)], np.int64)
    rows_at = np.minimum(np.searchsorted(key, wanted), max(len(key) - 1, 0))
    cats = counts.categories
    if len(key) == 0 or np.any(key[rows_at] != wanted):  # pragma: no cover - the passes disagree: a bug
        raise LeaderboardError(f"{source.label}: inconsistent duplicate counts")
    np.subtract.at(cats, (rows_at, np.array([int(v) for v in vs], np.int64)), 1)
    if np.any(cats < 0):  # pragma: no cover - the two passes disagree: a bug, not bad data
        raise LeaderboardError(f"{source.label}: inconsistent duplicate counts")
    shown = extra.slice(0, EXAMPLES).to_pylist()
    issues.rows("duplicate rows (same model, question and sample; the first is kept)",
                [f"{_label(source, x)}, sample {x['s']}: repeats {_where(source, x['first_rn'], x['first_f'])}"
                 for x in shown], extra.num_rows, where)
