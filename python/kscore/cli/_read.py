"""Reading results files into per-question outcome counts.

Long format (one row per graded sample: model, question, outcome[, sample])
comes from CSV (optionally gzip-compressed), JSON Lines or Parquet through
pyarrow's multithreaded readers, reading only the needed columns; model and
question ids are dictionary-encoded by pyarrow and everything after that is
vectorised numpy (no Python loop over rows, except to name example rows in
messages and to diagnose a file pyarrow refused).

Wide format (``.npy``/``.npz`` outcome arrays) is counted directly.

Either way the result is a :class:`Results`: for every model and question the
number of samples in each outcome category ``0..C``.
"""

from __future__ import annotations

import csv
import gzip
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ._errors import EXAMPLES, CliError, Issues

#: Auto-detected column spellings, in order of preference (case-insensitive).
SPELLINGS: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_name", "system", "model_id", "modelname"),
    "question": ("question", "question_id", "problem", "problem_id", "task_id", "id", "prompt_id", "qid", "task"),
    "outcome": (
        "outcome", "correct", "is_correct", "passed", "pass", "score", "label", "reward", "result", "success", "grade",
    ),
    "sample": ("sample", "sample_idx", "sample_id", "sample_index", "attempt", "trial", "seed", "run"),
}

FORMATS = ("csv", "tsv", "jsonl", "parquet", "npy", "npz")

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass
class Results:
    """Outcome counts: ``counts[m, q, j]`` samples of model ``m`` on question
    ``q`` in category ``j`` (0..C); a question a model lacks has all zeros."""

    models: list[str]
    questions: Callable[[int], str]
    n_questions: int
    counts: npt.NDArray[np.int32]
    rows: int
    source: str


@dataclass
class ColumnNames:
    model: str | None = None
    question: str | None = None
    outcome: str | None = None
    sample: str | None = None


def detect_format(path: Path, given: str | None) -> str:
    if given:
        return given
    name = path.name.lower()
    for suffix in (".gz", ".bz2", ".zst", ".lz4"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    ext = name.rsplit(".", 1)[-1] if "." in name else ""
    table = {"csv": "csv", "txt": "csv", "tsv": "tsv", "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl",
             "parquet": "parquet", "pq": "parquet", "npy": "npy", "npz": "npz"}
    if ext not in table:
        raise CliError(
            f"cannot tell the format of {path.name} from its extension; use --input-format {{{','.join(FORMATS)}}}"
        )
    return table[ext]


def resolve_columns(available: list[str], given: ColumnNames, source: str, issues: Issues) -> ColumnNames:
    """The columns to read: the given names (which must exist) or the first
    matching common spelling. A file without a model column is one model."""
    lower = {c.lower(): c for c in reversed(available)}
    shown = ", ".join(available) if len(available) <= 20 else ", ".join(available[:20]) + ", ..."
    out = ColumnNames()
    for role in ("model", "question", "outcome", "sample"):
        name = getattr(given, role)
        if name is not None:
            if name not in available:
                raise CliError(f"no column '{name}' in {source} (--{role}-col); columns: {shown}")
            setattr(out, role, name)
            continue
        for spelling in SPELLINGS[role]:
            if spelling in lower and lower[spelling] not in (out.model, out.question, out.outcome):
                setattr(out, role, lower[spelling])
                break
    if out.question is None:
        raise CliError(f"no question column found in {source} (columns: {shown}); name it with --question-col")
    if out.outcome is None:
        raise CliError(f"no outcome column found in {source} (columns: {shown}); name it with --outcome-col")
    if out.model is None:
        issues.note(
            f"no model column in {source}: all rows are one model, named '{Path(source).stem}' (--model-col names one)"
        )
    return out


# ---------------------------------------------------------------- long format


@dataclass
class Long:
    """Long-format columns as numpy arrays (codes are -1 where null)."""

    model: npt.NDArray[np.int32]
    models: list[str]
    question: npt.NDArray[np.int32]
    questions: Any  # pyarrow Array of the distinct question ids
    outcome: npt.NDArray[Any]  # integer, or float64 with NaN where missing or unparsable
    outcome_raw: Any  # pyarrow ChunkedArray, to quote bad values
    sample: npt.NDArray[np.int32] | None  # codes of the sample index
    sample_values: Any  # pyarrow Array of the distinct sample indices
    where: Callable[[int], str]  # "line 17" for the row at index i


def _pa() -> Any:
    try:
        import pyarrow
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise CliError("reading CSV, JSON Lines and Parquet needs pyarrow: pip install 'kscore[cli]'") from exc
    return pyarrow


def factorize(col: Any) -> tuple[npt.NDArray[np.int32], Any]:
    """Codes (int32, -1 for null) and the distinct values (a pyarrow Array)
    of a pyarrow ChunkedArray, without a Python loop over rows.

    Dictionary columns (what the CSV and Parquet readers produce) keep their
    per-chunk indices: the chunks' small dictionaries are concatenated and
    encoded once, and each chunk's indices are mapped through that table."""
    pa = _pa()
    import pyarrow.compute as pc

    if len(col) == 0:
        return np.zeros(0, np.int32), pa.array([], pa.string())
    if pa.types.is_integer(col.type) and col.null_count == 0:
        vals = col.to_numpy().astype(np.int64, copy=False)
        lo, hi = int(vals.min()), int(vals.max())
        if hi - lo <= 4 * len(vals) + 1024:
            present = np.bincount(vals - lo, minlength=hi - lo + 1) > 0
            remap = (np.cumsum(present) - 1).astype(np.int32)
            codes = remap[vals - lo]
            return codes, pa.array(np.flatnonzero(present) + lo)
    if not pa.types.is_dictionary(col.type):
        col = pc.dictionary_encode(col.combine_chunks())
        col = pa.chunked_array([col])
    chunks = [ch for ch in col.chunks if len(ch)]
    dicts = [ch.dictionary for ch in chunks]
    starts = np.cumsum([0] + [len(d) for d in dicts])
    encoded = pc.dictionary_encode(pa.concat_arrays(dicts))
    global_of_local = np.append(encoded.indices.to_numpy(zero_copy_only=False).astype(np.int32), np.int32(-1))
    codes = np.empty(len(col), np.int32)
    pos = 0
    for ch, start in zip(chunks, starts[:-1]):
        idx = ch.indices
        local = (idx.to_numpy() if idx.null_count == 0 else
                 pc.fill_null(idx, -1).to_numpy(zero_copy_only=False)).astype(np.int64, copy=False) + start
        if idx.null_count:
            local[local < start] = len(global_of_local) - 1  # null -> -1
        codes[pos:pos + len(ch)] = global_of_local[local]
        pos += len(ch)
    dictionary = encoded.dictionary
    # Compact: a dictionary may hold values no row uses.
    used = np.bincount(codes[codes >= 0], minlength=len(dictionary)) > 0
    if not used.all():
        remap = np.full(len(dictionary) + 1, -1, np.int32)
        remap[:-1][used] = np.arange(int(used.sum()), dtype=np.int32)
        codes = remap[codes]  # -1 indexes the trailing -1
        dictionary = dictionary.filter(pa.array(used))
    return codes, dictionary


_NUMBER = r"^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$"


def outcome_values(col: Any) -> npt.NDArray[Any]:
    """Outcomes as numbers: the column's own integer dtype when it has no
    nulls (bool as uint8), else float64 with NaN where missing or unparsable.
    The words true/false/yes/no are 1/0."""
    pa = _pa()
    import pyarrow.compute as pc

    t = col.type
    if pa.types.is_boolean(t) or pa.types.is_integer(t) or pa.types.is_floating(t):
        if pa.types.is_boolean(t):
            col = pc.cast(col, pa.uint8())
        if col.null_count == 0:
            return np.asarray(col.to_numpy())
        return np.asarray(pc.fill_null(pc.cast(col, pa.float64()), math.nan).to_numpy(), dtype=np.float64)
    if pa.types.is_dictionary(t):
        col = pc.cast(col, t.value_type)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        col = pc.cast(col, pa.string())
    s = pc.utf8_lower(pc.utf8_trim_whitespace(col))
    words = pc.index_in(s, value_set=pa.array(["false", "true", "no", "yes", "f", "t"]))
    word_val = pc.bit_wise_and(words, pa.scalar(1, pa.int32()))
    numeric = pc.match_substring_regex(s, _NUMBER)
    as_num = pc.cast(pc.if_else(numeric, s, pa.scalar("nan")), pa.float64())
    out = pc.if_else(pc.is_valid(words), pc.cast(word_val, pa.float64()), as_num)
    return np.asarray(pc.fill_null(out, math.nan).to_numpy(), dtype=np.float64)


def _header(path: Path, delimiter: str) -> list[str]:
    opener: Callable[..., Any] = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            line = fh.readline()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from exc
    if not line.strip():
        raise CliError(f"{path} is empty")
    return next(csv.reader([line], delimiter=delimiter))


def read_csv(path: Path, names: ColumnNames, delimiter: str, issues: Issues) -> tuple[Any, ColumnNames]:
    pa = _pa()
    import pyarrow.csv as pacsv

    cols = resolve_columns(_header(path, delimiter), names, str(path), issues)
    wanted = [c for c in (cols.model, cols.question, cols.outcome, cols.sample) if c is not None]
    dict_t = pa.dictionary(pa.int32(), pa.string())
    types = {c: dict_t for c in (cols.model, cols.question) if c is not None}
    for attempt in range(2):
        convert = pacsv.ConvertOptions(include_columns=wanted, column_types=types, strings_can_be_null=True)
        try:
            table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(use_threads=True, block_size=1 << 22),
                                   parse_options=pacsv.ParseOptions(delimiter=delimiter), convert_options=convert)
            return table, cols
        except pa.ArrowInvalid as exc:
            msg = str(exc)
            if attempt == 0 and "conversion error" in msg.lower():
                # Type inference saw numbers first and text later: read the
                # outcome and sample columns as text and parse them ourselves.
                types.update({c: pa.string() for c in (cols.outcome, cols.sample) if c is not None})
                continue
            raise CliError(_csv_error(path, msg, delimiter)) from exc
    raise AssertionError("unreachable")  # pragma: no cover


def _csv_error(path: Path, msg: str, delimiter: str) -> str:
    """A one-line message naming the malformed line (found by re-reading the
    file with the csv module: only on this error path)."""
    if "Empty CSV file" in msg:
        return f"{path} is empty"
    first = msg.splitlines()[0]
    opener: Callable[..., Any] = gzip.open if path.name.lower().endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            width = len(next(reader))
            for row in reader:
                if row and len(row) != width:
                    text = delimiter.join(row)
                    return (f"{path}: malformed row at line {reader.line_num}: expected {width} fields, "
                            f"got {len(row)}: {text[:80]!r}")
    except (csv.Error, UnicodeDecodeError, OSError) as exc:
        return f"{path}: malformed CSV: {exc}"
    return f"{path}: malformed CSV: {first}"


def read_jsonl(path: Path, names: ColumnNames, issues: Issues) -> tuple[Any, ColumnNames]:
    pa = _pa()
    import pyarrow.json as pajson

    first = _first_json_object(path)
    cols = resolve_columns(list(first), names, str(path), issues)
    wanted = [c for c in (cols.model, cols.question, cols.outcome, cols.sample) if c is not None]

    def json_type(v: Any) -> Any:
        if isinstance(v, bool):
            return pa.bool_()
        if isinstance(v, (int, float)):
            return pa.float64() if isinstance(v, float) else pa.int64()
        return pa.string()

    schema = pa.schema([(c, json_type(first.get(c))) for c in wanted])
    try:
        table = pajson.read_json(path, read_options=pajson.ReadOptions(use_threads=True, block_size=1 << 22),
                                 parse_options=pajson.ParseOptions(explicit_schema=schema,
                                                                   unexpected_field_behavior="ignore"))
        return table, cols
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        # Malformed line, or a column whose JSON type changes between lines
        # (ids that are numbers here and strings there): diagnose line by line.
        return _jsonl_fallback(path, wanted), cols


def _open_text(path: Path) -> Any:
    if path.name.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8")
    return open(path, encoding="utf-8")


def _json_object(path: Path, lineno: int, line: str) -> dict[str, Any]:
    """One JSON Lines record, or a one-line error naming the line."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise CliError(f"{path}: malformed JSON at line {lineno}: {exc.msg}: {line.strip()[:80]!r}") from exc
    if not isinstance(obj, dict):
        raise CliError(f"{path}: line {lineno} is not a JSON object: {line.strip()[:80]!r}")
    return obj


def _first_json_object(path: Path) -> dict[str, Any]:
    try:
        with _open_text(path) as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    return _json_object(path, lineno, line)
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from exc
    raise CliError(f"{path} is empty")


def _jsonl_fallback(path: Path, wanted: list[str]) -> Any:
    """Slow path, only after pyarrow refused the file: a malformed line is an
    error naming it; ids of mixed JSON types are read as text."""
    pa = _pa()
    data: dict[str, list[Any]] = {c: [] for c in wanted}
    with _open_text(path) as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            obj = _json_object(path, lineno, line)
            for c in wanted:
                v = obj.get(c)
                data[c].append(None if v is None else (v if isinstance(v, str) else json.dumps(v)))
    return pa.table({c: pa.array(v, pa.string()) for c, v in data.items()})


def read_parquet(path: Path, names: ColumnNames, issues: Issues) -> tuple[Any, ColumnNames]:
    pa = _pa()
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
    except (pa.ArrowInvalid, OSError) as exc:
        if path.stat().st_size == 0:
            raise CliError(f"{path} is empty") from exc
        raise CliError(f"{path} is not a readable Parquet file: {str(exc).splitlines()[0]}") from exc
    cols = resolve_columns(list(schema.names), names, str(path), issues)
    wanted = [c for c in (cols.model, cols.question, cols.outcome, cols.sample) if c is not None]
    as_dict = [c for c in (cols.model, cols.question) if c is not None
               and (pa.types.is_string(schema.field(c).type) or pa.types.is_large_string(schema.field(c).type))]
    try:
        table = pq.read_table(path, columns=wanted, read_dictionary=as_dict, use_threads=True)
    except (pa.ArrowInvalid, OSError) as exc:
        raise CliError(f"{path}: cannot read Parquet: {str(exc).splitlines()[0]}") from exc
    return table, cols


def read_long(path: Path, fmt: str, names: ColumnNames, issues: Issues) -> Long:
    if fmt in ("csv", "tsv"):
        table, cols = read_csv(path, names, "\t" if fmt == "tsv" else ",", issues)
        where: Callable[[int], str] = lambda i: f"line {i + 2}"  # noqa: E731 - header is line 1
    elif fmt == "jsonl":
        table, cols = read_jsonl(path, names, issues)
        where = lambda i: f"record {i + 1}"  # noqa: E731
    else:
        table, cols = read_parquet(path, names, issues)
        where = lambda i: f"row {i + 1}"  # noqa: E731
    if table.num_rows == 0:
        raise CliError(f"no results in {path} (no data rows)")
    _pa()  # the cli extra's pyarrow, or a CliError saying how to install it
    assert cols.question is not None and cols.outcome is not None
    if cols.model is not None:
        model, models_arr = factorize(table.column(cols.model))
        models = [str(v) for v in models_arr.to_pylist()]
    else:
        model, models = np.zeros(table.num_rows, np.int32), [Path(str(path)).stem.split(".")[0]]
    question, questions = factorize(table.column(cols.question))
    sample: npt.NDArray[np.int32] | None = None
    sample_values = None
    if cols.sample is not None:
        sample, sample_values = factorize(table.column(cols.sample))
    outcome_raw = table.column(cols.outcome)
    return Long(model, models, question, questions, outcome_values(outcome_raw), outcome_raw, sample,
                sample_values, where)


def _index_dtype(size: int) -> type[np.signedinteger[Any]]:
    return np.int32 if size < 2**31 else np.int64


def long_to_results(long: Long, n_categories: int, issues: Issues, source: str) -> Results:
    """Validate the rows and count outcomes per (model, question, category).

    Vectorised: a handful of passes over the columns and one ``bincount``;
    rows are only looked at one by one to name examples in warnings."""
    C = n_categories - 1
    n_models, n_q = len(long.models), len(long.questions)
    rows = len(long.outcome)

    def q_name(i: int) -> str:
        return str(long.questions[i].as_py())

    def label(i: int) -> str:
        m = long.models[long.model[i]] if long.model[i] >= 0 else "?"
        q = q_name(int(long.question[i])) if long.question[i] >= 0 else "?"
        return f"{long.where(i)} (model '{m}', question '{q}')"

    def raw(i: int) -> str:
        v = long.outcome_raw[i].as_py()
        return "empty" if v is None or v == "" else repr(v)

    drop = np.zeros(rows, dtype=bool)

    # Rows without a model, question or sample id.
    no_id = (long.model < 0) | (long.question < 0)
    if long.sample is not None:
        no_id |= long.sample < 0
    if no_id.any():
        bad = np.flatnonzero(no_id)
        issues.rows("rows without a model, question or sample id", [long.where(int(i)) for i in bad[:EXAMPLES]],
                    len(bad))
        drop |= no_id

    v = long.outcome
    if v.dtype.kind == "f":
        finite = np.isfinite(v)
        if not finite.all():
            bad = np.flatnonzero(~finite & ~drop)
            issues.rows("rows with a missing or unparsable outcome",
                        [f"{label(int(i))}: {raw(int(i))}" for i in bad[:EXAMPLES]], len(bad))
            drop |= ~finite
        with np.errstate(invalid="ignore"):
            in_range = (v >= 0) & (v <= C) & (v == np.floor(v))
    elif v.dtype.kind in "ub":
        in_range = v <= C
    else:
        in_range = (v >= 0) & (v <= C)
    if not in_range.all():
        bad = np.flatnonzero(~in_range & ~drop)
        allowed = "0 or 1" if C == 1 else f"an integer category 0..{C} (--weights has {C + 1} entries)"
        issues.rows(f"rows with an outcome out of range (expected {allowed})",
                    [f"{label(int(i))}: {raw(int(i))}" for i in bad[:EXAMPLES]], len(bad))
        drop |= ~in_range

    dt = _index_dtype(n_models * n_q * n_categories)
    cell = long.model.astype(dt) * dt(n_q) + long.question.astype(dt, copy=False)
    if long.sample is not None:
        drop = _drop_duplicates(long, cell, drop, issues, label)

    if drop.any():
        keep = np.flatnonzero(~drop)
        cell, v = cell[keep], v[keep]
    if len(cell) == 0:
        raise CliError(f"no valid results in {source}")
    cell *= dt(n_categories)
    cell += v.astype(dt)
    flat = np.bincount(cell, minlength=n_models * n_q * n_categories)
    counts = flat.astype(np.int32).reshape(n_models, n_q, n_categories)
    return Results(long.models, q_name, n_q, counts, int(len(cell)), source)


def _drop_duplicates(long: Long, cell: npt.NDArray[Any], drop: npt.NDArray[np.bool_], issues: Issues,
                     label: Callable[[int], str]) -> npt.NDArray[np.bool_]:
    """Rows repeating a (model, question, sample) already seen: warn, drop all
    but the first."""
    assert long.sample is not None
    s = long.sample
    any_drop = bool(drop.any())
    ok_s = s[~drop] if any_drop else s
    if len(ok_s) == 0:
        return drop
    smin, smax = int(ok_s.min()), int(ok_s.max())
    span = smax - smin + 1
    n_cells = len(long.models) * len(long.questions)
    dt = _index_dtype(n_cells * span)
    key = cell.astype(dt) * dt(span)
    key += s.astype(dt, copy=False)
    if smin:
        key -= dt(smin)
    if any_drop:
        key[drop] = -1  # dropped rows never collide
    if n_cells * span <= max(8 * len(key), 1 << 20):
        seen = np.bincount(key[key >= 0] if any_drop else key, minlength=n_cells * span)
        if seen.max() <= 1:
            return drop
        suspect = np.flatnonzero((seen[np.maximum(key, 0)] > 1) & (key >= 0))
    else:
        order = np.argsort(key, kind="stable")
        ks = key[order]
        rep = np.zeros(len(ks), dtype=bool)
        rep[1:] = (ks[1:] == ks[:-1]) & (ks[1:] >= 0)
        if not rep.any():
            return drop
        rep[:-1] |= rep[1:]
        suspect = np.sort(order[rep])
    skey = key[suspect]
    _, first, inv = np.unique(skey, return_index=True, return_inverse=True)
    first_row = suspect[first][inv.ravel()]
    dup_mask = suspect != first_row
    dup, dup_first = suspect[dup_mask], first_row[dup_mask]
    issues.rows("duplicate rows (same model, question and sample; the first is kept)",
                [f"{label(int(i))}, sample {_sample_name(long, int(i))}: repeats {long.where(int(f))}"
                 for i, f in zip(dup[:EXAMPLES], dup_first[:EXAMPLES])], len(dup))
    drop = drop.copy()
    drop[dup] = True
    return drop


def _sample_name(long: Long, i: int) -> str:
    assert long.sample is not None
    return str(long.sample_values[int(long.sample[i])].as_py())


# ---------------------------------------------------------------- wide format


def read_wide(path: Path, fmt: str, n_categories: int, issues: Issues) -> Results:
    """``.npy``: a 2-D array (questions x samples) is one model named after the
    file; a 3-D array is models x questions x samples. ``.npz``: every 2-D
    array is a model named by its key (3-D arrays: key[0], key[1], ...).
    Float arrays may use NaN for a missing sample (ragged data)."""
    try:
        if path.stat().st_size == 0:
            raise CliError(f"{path} is empty")
        loaded = np.load(path, allow_pickle=False)
    except CliError:
        raise
    except (OSError, ValueError, EOFError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CliError(f"{path} is not a readable {fmt} file: {reason}") from exc
    arrays: list[tuple[str, np.ndarray]] = []
    if isinstance(loaded, np.ndarray):
        items = [(path.name.split(".")[0], loaded)]
    else:
        with loaded:
            items = [(k, loaded[k]) for k in loaded.files]
    if not items:
        raise CliError(f"{path} is empty (no arrays)")
    for key, a in items:
        if a.ndim == 2:
            arrays.append((key, a))
        elif a.ndim == 3:
            prefix = "model" if isinstance(loaded, np.ndarray) else key
            arrays.extend((f"{prefix}[{i}]", a[i]) for i in range(a.shape[0]))
        else:
            raise CliError(f"{path}: array '{key}' has shape {a.shape}; expected questions x samples (2-D) "
                           "or models x questions x samples (3-D)")
    for key, a in arrays:
        if not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_):
            raise CliError(f"{path}: array '{key}' has dtype {a.dtype}; expected numbers or booleans")
    n_q = max(a.shape[0] for _, a in arrays)
    C = n_categories - 1
    counts = np.zeros((len(arrays), n_q, n_categories), np.int32)
    rows = 0
    examples: dict[str, list[str]] = {"out": [], "dup": []}
    n_out = 0
    for m, (name, a) in enumerate(arrays):
        x = a.astype(np.float64, copy=False)
        present = ~np.isnan(x)
        ok = present & (x >= 0) & (x <= C) & (x == np.floor(x))
        bad = np.argwhere(present & ~ok)
        n_out += len(bad)
        for q, s in bad[: max(0, EXAMPLES - len(examples["out"]))]:
            examples["out"].append(f"model '{name}', question {q}, sample {s}: {a[q, s]!r}")
        xi = np.where(ok, x, -1).astype(np.int64)
        for j in range(n_categories):
            counts[m, : a.shape[0], j] = (xi == j).sum(axis=1)
        rows += int(ok.sum())
    allowed = "0 or 1" if C == 1 else f"an integer category 0..{C}"
    issues.rows(f"outcomes out of range (expected {allowed})", examples["out"], n_out)
    if rows == 0:
        raise CliError(f"no valid results in {path}")
    return Results([n for n, _ in arrays], lambda q: str(q), n_q, counts, rows, str(path))


def read_results(path: Path, fmt: str | None, names: ColumnNames, n_categories: int, issues: Issues) -> Results:
    if not path.exists():
        raise CliError(f"no such file: {path}")
    if path.is_dir():
        raise CliError(f"{path} is a directory, not a results file")
    if not os.access(path, os.R_OK):
        raise CliError(f"cannot read {path}: permission denied")
    kind = detect_format(path, fmt)
    if kind in ("npy", "npz"):
        return read_wide(path, kind, n_categories, issues)
    long = read_long(path, kind, names, issues)
    return long_to_results(long, n_categories, issues, str(path))


def size_label(path: Path) -> str:
    n = float(path.stat().st_size)
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return ""  # pragma: no cover


__all__ = ["Results", "ColumnNames", "read_results", "detect_format", "size_label"]
