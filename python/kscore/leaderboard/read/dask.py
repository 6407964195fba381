"""Past one machine: the same aggregation on a Dask cluster (docs/leaderboard.md, *Past one machine*).

:func:`counts_from_dask` turns a ``dask.dataframe`` of long-format rows (one
row per graded sample, read by the cluster's workers from as many files as
they like) into the counts table the DuckDB engine gives on the same rows:
each partition is turned into per-row indicators (which outcome category,
which problem), ``groupby(model, question).sum()`` adds them on the workers
(the ids in their own type: they are written as text, as DuckDB writes them,
once counted), and only the per-(model, question) counts come back to this
process. Rows are
judged as the DuckDB engine judges them (read/sql.py): outcomes 0/1, booleans,
the words true/false, t/f, yes/no and numeric text, integer categories
0..C with weights; rows without an id or sample, with an unparsable or
out-of-range outcome are skipped and counted; rows repeating a (model,
question, sample) are found by a second, distributed ``groupby`` in the same
read and all but the first (in partition, then row order) are taken out.
What it does not do: name the file and line of each skipped row (warnings
give counts, and partition/row examples for duplicates), or name a model
after its file when there is no model column.

Nothing here imports dask (or pandas) until a dask collection is given:
both are optional, and heavy to import.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._counts import Counts, from_cells
from .._issues import EXAMPLES, Issues, LeaderboardError
from .._options import ColumnNames
from .._options import weights as parse_weights
from .columns import resolve_columns

#: The name of the source in messages, and of the one model without a model column.
LABEL = "dask DataFrame"
_WORDS = {"true": 1.0, "t": 1.0, "yes": 1.0, "false": 0.0, "f": 0.0, "no": 0.0}


def is_dask_collection(obj: object) -> bool:
    """A dask DataFrame (or other collection), told without importing dask."""
    return type(obj).__module__.split(".")[0] == "dask"


def _text(col: Any, integer: bool) -> Any:
    """Ids as text, as DuckDB's ``CAST(x AS VARCHAR)`` writes them; None where
    missing. ``integer``: the column is integer in the dataset's schema (a
    partition with missing ids holds it as floats: 3.0 is written 3)."""
    import pandas as pd

    null = col.isna().to_numpy()
    if integer and col.dtype.kind == "f":
        col = col.astype("Int64")
    out = pd.Series(col.astype(str).to_numpy(dtype=object), index=col.index, dtype=object)
    out[null] = None
    return out


def _ids(part: Any, cols: ColumnNames) -> tuple[Any, Any]:
    """A partition's model and question ids as the groupby's keys, in their
    own type (text only once counted, by :func:`_text`): categorical columns
    (hive folders) as their values; the one model's name without a model column."""
    import pandas as pd

    def key(col: Any) -> Any:
        return col.astype(col.cat.categories.dtype) if isinstance(col.dtype, pd.CategoricalDtype) else col

    assert cols.question is not None
    m = (key(part[cols.model]) if cols.model is not None
         else pd.Series(np.full(len(part), LABEL, dtype=object), index=part.index))
    return m, key(part[cols.question])


def outcome_values(col: Any) -> npt.NDArray[np.float64]:
    """The outcome as a number, NaN where missing, unparsable or not finite
    (the same rule as sql.outcome_expr)."""
    import pandas as pd
    from pandas.api import types

    if types.is_bool_dtype(col.dtype) or (types.is_numeric_dtype(col.dtype) and not types.is_complex_dtype(col.dtype)):
        v = np.array(col.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan), np.float64)
    else:
        null = col.isna().to_numpy()
        text = pd.Series(col.astype(str).to_numpy(dtype=object), index=col.index, dtype=object)
        text[null] = ""
        text = text.str.strip(" ").str.lower()
        words = text.map(_WORDS)
        nums = pd.to_numeric(text.where(words.isna()), errors="coerce")
        v = np.array(words.fillna(nums).to_numpy(dtype=np.float64, na_value=np.nan), np.float64)
        v[null] = np.nan
    v[~np.isfinite(v)] = np.nan
    return v


def _indicators(part: Any, cols: ColumnNames, n_categories: int) -> Any:
    """One partition's rows as per-row indicators the groupby adds up."""
    import pandas as pd

    size = len(part)
    m, q = _ids(part, cols)
    assert cols.outcome is not None
    v = outcome_values(part[cols.outcome])
    no_sample = part[cols.sample].isna().to_numpy() if cols.sample is not None else np.zeros(size, bool)
    data: dict[str, Any] = {"m": m, "q": q, "nrows": np.ones(size, np.int64),
                            "no_sample": no_sample.astype(np.int64),
                            "unparsable": (~no_sample & np.isnan(v)).astype(np.int64)}
    for j in range(n_categories):
        data[f"c_{j}"] = (~no_sample & (v == j)).astype(np.int64)
    return pd.DataFrame(data, index=part.index)


#: Partition number and row within it, in one sortable int64 (the row's position).
_ROW_BITS = 40


def _valid_keys(part: Any, cols: ColumnNames, n_categories: int, partition_info: Any = None) -> Any:
    """The counted rows of a partition: ids, sample, category and position
    (partition, then row: which of repeated rows is the first)."""
    import pandas as pd

    assert cols.sample is not None and cols.question is not None and cols.outcome is not None
    v = outcome_values(part[cols.outcome])
    m, q = _ids(part, cols)
    ok = (np.isin(v, np.arange(n_categories)) & part[cols.sample].notna().to_numpy() & m.notna().to_numpy()
          & q.notna().to_numpy())
    number = int(partition_info["number"]) if partition_info else 0
    return pd.DataFrame({"m": m[ok], "q": q[ok], "s": part[cols.sample][ok], "v": v[ok].astype(np.int64),
                         "pos": (number << _ROW_BITS) + np.flatnonzero(ok)}, index=part.index[ok])


def _where(pos: int) -> str:
    return f"partition {pos >> _ROW_BITS} row {(pos & ((1 << _ROW_BITS) - 1)) + 1}"


def _n_categories(weights: Sequence[float] | str | None, n_categories: int | None) -> int:
    if n_categories is not None:
        if n_categories < 2:
            raise LeaderboardError(f"n_categories must be at least 2; got {n_categories}")
        return n_categories
    return len(parse_weights(weights))


def _warn(issues: Issues, label: str, what: str, total: int, examples: list[str] | None = None) -> None:
    if total == 0:
        return
    if examples:
        issues.rows(what, examples, total, label)
        return
    if total == 1:
        what = what.replace("rows", "row", 1)
    issues.warn(f"{label}: {total} {what} (skipped; the Dask path counts them but does not name them)")


def counts_from_dask(ddf: Any, *, model: str | None = None, question: str | None = None,
                     outcome: str | None = None, sample: str | None = None,
                     weights: Sequence[float] | str | None = None, n_categories: int | None = None,
                     check_duplicates: bool = True, issues: Issues | None = None, label: str = LABEL) -> Counts:
    """Per-(model, question) counts of a dask DataFrame of graded samples,
    computed on its cluster (the current ``dask.distributed`` client, or
    dask's default scheduler): the counts the DuckDB engine gives on the same
    rows, ordered by model then question.

    ``model`` ... ``sample`` name the columns (default: the common spellings
    the engine auto-detects); ``weights`` (or ``n_categories``): graded
    outcomes 0..C. ``check_duplicates=False`` skips the second groupby that
    finds rows repeating a (model, question, sample): repeated rows then count
    as more samples. Data warnings go to ``issues`` when given.

    A ``kscore.leaderboard(ddf, ...)`` call does the same and ranks the
    result; :func:`kscore.add_counts` adds counts of separate runs.
    """
    import dask

    issues = issues if issues is not None else Issues()
    cats = _n_categories(weights, n_categories)
    available = [str(c) for c in ddf.columns]
    cols = resolve_columns(available, ColumnNames(model, question, outcome, sample), label, issues, label)
    rows = ddf.map_partitions(_indicators, cols, cats, meta=_indicators(ddf._meta, cols, cats))
    cells = rows.groupby(["m", "q"], dropna=False).sum()
    todo: list[Any] = [cells]
    keyed = None
    if cols.sample is not None and check_duplicates:
        keyed = ddf.map_partitions(_valid_keys, cols, cats, meta=_valid_keys(ddf._meta, cols, cats))
        # Every counted (model, question, sample): its first position and
        # its rows, spread over the workers (split_out), never gathered here.
        firsts = keyed.groupby(["m", "q", "s"])["pos"].agg(["min", "count"], split_out=max(1, ddf.npartitions // 4))
        repeated = firsts[firsts["count"] > 1]
        todo.append((repeated["count"] - 1).sum())
    done = dask.compute(*todo)  # type: ignore[attr-defined,no-untyped-call]  # one read for both
    table = done[0].reset_index()
    ids_ok = (table["m"].notna() & table["q"].notna()).to_numpy()
    no_id = int(table["nrows"].to_numpy()[~ids_ok].sum())
    table = table[ids_ok]
    if table.empty and no_id == 0:
        raise LeaderboardError(f"no results in {label} (no data rows)")
    categories = np.stack([table[f"c_{j}"].to_numpy(np.int64) for j in range(cats)], axis=1) if len(table) \
        else np.zeros((0, cats), np.int64)
    no_sample = int(table["no_sample"].sum())
    unparsable = int(table["unparsable"].sum())
    out_of_range = int(table["nrows"].sum()) - no_sample - unparsable - int(categories.sum())
    _warn(issues, label, "rows without a model, question or sample id", no_id + no_sample)
    _warn(issues, label, "rows with a missing or unparsable outcome", unparsable)
    allowed = "0 or 1" if cats == 2 else f"an integer category 0..{cats - 1} (--weights has {cats} entries)"
    _warn(issues, label, f"rows with an outcome out of range (expected {allowed})", out_of_range)
    if keyed is not None and int(done[1]) > 0:
        # Rows after the first of their (model, question, sample), on the
        # cluster: per (model, question, category) how many, and the first few.
        extra = keyed.merge(repeated[["min"]].reset_index(), on=["m", "q", "s"])
        extra = extra[extra["pos"] != extra["min"]]
        per_cell, shown = dask.compute(  # type: ignore[attr-defined,no-untyped-call]
            extra.groupby(["m", "q", "v"]).size(), extra.nsmallest(EXAMPLES, "pos"))
        cell = {(m, q): i for i, (m, q) in enumerate(zip(table["m"], table["q"]))}  # the ids as counted
        for (m, q, v), k in per_cell.items():
            categories[cell[(m, q)], int(v)] -= int(k)
        if np.any(categories < 0):  # pragma: no cover - the two passes disagree: a bug, not bad data
            raise LeaderboardError(f"{label}: inconsistent duplicate counts")
        examples = [f"{_where(int(p))} (model '{m}', question '{q}'), sample {s}: repeats {_where(int(f))}"
                    for m, q, s, p, f in shown[["m", "q", "s", "pos", "min"]].itertuples(index=False)]
        _warn(issues, label, "duplicate rows (same model, question and sample; the first is kept)",
              int(per_cell.sum()), examples)
    integer = {c for c in (cols.model, cols.question) if c is not None and ddf[c].dtype.kind in "iu"}
    m_text = _text(table["m"], cols.model in integer).to_numpy()
    q_text = _text(table["q"], cols.question in integer).to_numpy()
    models, m_codes = np.unique(m_text.astype(str), return_inverse=True)
    questions, q_codes = np.unique(q_text.astype(str), return_inverse=True)
    # Ids of different types written alike (3 and "3") are one cell, added.
    counts = from_cells([str(x) for x in models], [str(x) for x in questions], m_codes.ravel(), q_codes.ravel(),
                        categories)
    if len(counts.model) == 0:
        raise LeaderboardError(f"no valid results in {label}")
    return counts
