"""Battles from files, folders, globs and tables (docs/arena.md, *Formats*),
to codes: the models sorted by name, per battle the two models' codes, the
result of the first (1, 0.5, 0), and the optional weight, prompt,
category and style features. Rows that cannot be a battle (a missing model
name, a model against itself, a winner outside the set, a style feature
that is not a number) are skipped and counted, the first named by file and
line; with ``strict`` the first is an error."""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrays import FloatArray
from .columns import ONE_HOT, STYLE_METADATA, VERDICTS, WINNERS, find, squash

U32 = npt.NDArray[np.uint32]
U8 = npt.NDArray[np.uint8]
#: Codes of strings (the core's unsigned 32-bit ones, or 64-bit ones remapped).
Codes = npt.NDArray[np.uint32] | npt.NDArray[np.int64]

#: File extensions read (compressed CSV and JSON Lines too).
EXTENSIONS = (".csv", ".tsv", ".jsonl", ".ndjson", ".json", ".parquet", ".csv.gz", ".tsv.gz", ".jsonl.gz",
              ".csv.zst", ".jsonl.zst")


class ArenaError(ValueError):
    """Bad battles or options: a one-line message naming the file and line."""


@dataclass
class Part:
    """Rows ``start..stop`` of the table came from ``file``; line of row
    ``k`` is ``k - start + first_line`` (0: rows, not lines)."""

    file: str
    start: int
    stop: int
    first_line: int


@dataclass
class Battles:
    models: list[str]
    a: U32
    b: U32
    y: FloatArray
    weight: FloatArray | None = None
    prompt: U32 | None = None
    prompts: int = 0
    category: npt.NDArray[np.int64] | None = None
    categories: list[str] = field(default_factory=list)
    features: FloatArray | None = None
    feature_names: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: The result of model_a as 0 (loss), 1 (tie), 2 (win), where the reader made it.
    outcome: U8 | None = None
    #: The board's unique rows (kscore._kscore.BattleBoard), counted by the
    #: reader on its pass over the columns (no weights, no prompt ids); None:
    #: count them from the codes.
    board: Any = None

    def subset(self, keep: npt.NDArray[np.bool_]) -> Battles:
        """The battles where ``keep`` (models recoded to those left)."""
        used = np.zeros(len(self.models), bool)
        used[self.a[keep]] = True
        used[self.b[keep]] = True
        new = np.cumsum(used) - 1
        def pick(x: Any) -> Any:
            return None if x is None else x[keep]

        prompt = pick(self.prompt)
        prompts = self.prompts
        if prompt is not None:
            uniq, prompt_codes = np.unique(prompt, return_inverse=True)
            prompt, prompts = prompt_codes.astype(np.uint32), len(uniq)
        return Battles([m for m, u in zip(self.models, used) if u], new[self.a[keep]].astype(np.uint32),
                       new[self.b[keep]].astype(np.uint32), self.y[keep], pick(self.weight), prompt, prompts,
                       None, [], pick(self.features), self.feature_names, [], pick(self.outcome))


def files_of(source: str | os.PathLike[str]) -> list[Path]:
    """A file, the battle files of a folder, or a glob's matches (sorted)."""
    text = str(source)
    p = Path(text)
    if p.is_dir():
        found = sorted(f for f in p.rglob("*") if f.is_file() and f.name.lower().endswith(EXTENSIONS))
        if not found:
            raise ArenaError(f"{text}: no battle files (.csv, .jsonl, .json, .parquet) in this folder")
        return found
    if p.exists():
        return [p]
    if any(ch in text for ch in "*?["):
        found = sorted(Path(f) for f in glob.glob(text, recursive=True) if Path(f).is_file())
        if not found:
            raise ArenaError(f"{text}: no file matches")
        return found
    raise ArenaError(f"{text}: no such file or folder")


def _read_file(path: Path, fmt: str | None) -> tuple[Any, int]:
    """A pyarrow table and the line of its first row (0: not lines)."""
    import pyarrow as pa

    name = path.name.lower()
    kind = fmt or next((k for k in ("parquet", "jsonl", "ndjson", "json", "tsv", "csv") if f".{k}" in name), "csv")
    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
            strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
            return pq.read_table(path, read_dictionary=strings), 0
        if kind in ("jsonl", "ndjson") or (kind == "json" and _is_json_lines(path)):
            import pyarrow.json as pj

            return pj.read_json(path), 1
        if kind == "json":
            with open(path, encoding="utf-8") as fh:
                rows = json.load(fh)
            if isinstance(rows, dict):  # (a table as {column: [values]})
                return pa.table(rows), 0
            if not isinstance(rows, list):
                raise ArenaError(f"{path}: a JSON file of battles is a list of objects")
            return pa.Table.from_pylist(rows), 0
        import pyarrow.csv as pc

        opts = pc.ParseOptions(delimiter="\t" if kind == "tsv" else ",")
        return pc.read_csv(path, parse_options=opts), 2
    except ArenaError:
        raise
    except (pa.ArrowInvalid, json.JSONDecodeError, UnicodeDecodeError, OSError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ArenaError(f"{path}: cannot read as {kind}: {first}") from exc


def _is_json_lines(path: Path) -> bool:
    with open(path, "rb") as fh:
        head = fh.read(1 << 16).lstrip()
    return head[:1] == b"{"


def to_table(source: Any, input_format: str | None = None) -> tuple[Any, list[Part]]:
    """A pyarrow table of all the battles of ``source``, and where its rows
    came from."""
    import pyarrow as pa

    if isinstance(source, (str, os.PathLike)) or (isinstance(source, list) and source
                                                  and all(isinstance(s, (str, os.PathLike)) for s in source)):
        paths = [f for s in (source if isinstance(source, list) else [source]) for f in files_of(s)]
        tables, parts, at = [], [], 0
        for path in paths:
            t, line = _read_file(path, input_format)
            t = _arena_hard(t, str(path)) if "games" in t.column_names else t
            tables.append(t)
            parts.append(Part(str(path), at, at + t.num_rows, line if "games" not in t.column_names else 0))
            at += t.num_rows
        try:
            table = pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0]
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise ArenaError(f"the files' columns do not agree: {str(exc).splitlines()[0]}") from exc
        return table, parts
    table = _frame_to_arrow(source)
    if "games" in table.column_names:
        table = _arena_hard(table, "the table")
    return table, [Part("the table", 0, table.num_rows, 0)]


def _frame_to_arrow(source: Any) -> Any:
    import pyarrow as pa

    if isinstance(source, pa.Table):
        return source
    if isinstance(source, dict):
        return pa.table(source)
    mod = type(source).__module__.split(".")[0]
    if mod == "pandas":
        return pa.Table.from_pandas(source, preserve_index=False)
    if mod == "polars":
        return source.to_arrow()
    if hasattr(source, "__arrow_c_stream__"):
        return pa.table(source)
    raise TypeError(f"battles must be a file, folder, glob, list of files or a table (pandas, polars, pyarrow, "
                    f"dict of columns), not {type(source).__name__}")


def _arena_hard(table: Any, where: str) -> Any:
    """arena-hard-auto's judgments (a row per prompt and model: ``uid`` or
    ``question_id``, ``model``, ``baseline``, ``games``: two verdicts, the
    first with the baseline as assistant A, the second with the model as
    A) as battles, a strong verdict counting 3 battles as its
    show_result.py counts them; games without a verdict are dropped and
    counted."""
    import pyarrow as pa

    rows = table.to_pylist()
    out: dict[str, list[Any]] = {"model_a": [], "model_b": [], "winner": [], "question_id": [], "category": []}
    dropped = 0
    for row in rows:
        model, baseline = row.get("model"), row.get("baseline")
        games = row.get("games") or []
        if baseline is None:
            baseline = row.get("judge_baseline") or "baseline"
        uid = row.get("uid", row.get("question_id"))
        for g, game in enumerate(games[:2]):
            label = (game or {}).get("score")
            if label not in VERDICTS:
                dropped += 1
                continue
            result, times = VERDICTS[label]
            a, b = (baseline, model) if g == 0 else (model, baseline)
            word = "model_a" if result == 1.0 else "model_b" if result == 0.0 else "tie"
            for _ in range(times):
                out["model_a"].append(a)
                out["model_b"].append(b)
                out["winner"].append(word)
                out["question_id"].append(None if uid is None else str(uid))
                out["category"].append(row.get("category"))
    t = pa.table(out)
    if dropped:
        t = t.replace_schema_metadata({"kscore_dropped": f"{where}: {dropped:,} judgment game(s) without a verdict "
                                                         f"skipped"})
    return t


def _where(parts: list[Part], k: int) -> str:
    for p in parts:
        if p.start <= k < p.stop:
            if p.first_line:
                return f"{p.file}, line {k - p.start + p.first_line}"
            return f"{p.file}, row {k - p.start + 1}"
    return f"row {k + 1}"


@dataclass
class Roles:
    model_a: str | None = None
    model_b: str | None = None
    winner: str | None = None
    weight: str | None = None
    prompt: str | None = None
    by: str | None = None
    style: list[str] | bool | None = None


def _column(table: Any, columns: list[str], role: str, given: str | None, required: bool) -> str | None:
    try:
        name = find(columns, role, given)
    except KeyError:
        raise ArenaError(f"no column {given!r} (columns: {', '.join(columns)})") from None
    if name is None and required:
        raise ArenaError(f"no {role} column (looked for {role}, and the spellings in docs/arena.md; columns: "
                         f"{', '.join(columns[:20])}): name it with --{role.replace('_', '-')}-col")
    return name


def read_battles(source: Any, roles: Roles, input_format: str | None = None, strict: bool = False) -> Battles:
    """Read and code the battles of ``source`` (module docstring)."""

    table, parts = to_table(source, input_format)
    meta = (table.schema.metadata or {}).get(b"kscore_dropped")
    warnings = [meta.decode()] if meta else []
    cols = list(table.column_names)
    ca = _column(table, cols, "model_a", roles.model_a, True)
    cb = _column(table, cols, "model_b", roles.model_b, True)
    cw = _column(table, cols, "winner", roles.winner, False)
    if cw is None and not all(c in cols for c in ONE_HOT):
        raise ArenaError(f"no winner column (winner, outcome, result, ... or {', '.join(ONE_HOT)}; columns: "
                         f"{', '.join(cols[:20])}): name it with --winner-col")
    n = table.num_rows
    if n == 0:
        raise ArenaError(f"{parts[0].file if parts else 'the table'}: no battles")
    bad: dict[str, npt.NDArray[np.bool_]] = {}
    outcome: U8 | None = None
    board = None
    coded = _code_battles(table.column(ca), table.column(cb), table.column(cw)) if cw is not None else None
    if coded is not None:
        # plain string columns: names, winners and the board's rows in one pass of the core
        a, b, outcome, flags, names, board = coded
        y = np.asarray(outcome * 0.5, np.float64)
        if flags.any():
            bad[MISSING] = (flags & (MISSING_A | MISSING_B)) != 0
            bad[SELF] = (flags & SELF_BATTLE) != 0
            bad[NOT_A_WINNER] = (flags & BAD_WINNER) != 0
            y[bad[NOT_A_WINNER]] = np.nan
    else:
        # models: one code per name over both columns (the core's encoder), names sorted
        a, b, names, miss_a, miss_b = encode_models(table.column(ca), table.column(cb))
        bad[MISSING] = miss_a | miss_b
        bad[SELF] = (a == b) & ~bad[MISSING]
        y = _results(table, cw, n)
        bad[NOT_A_WINNER] = np.isnan(y)
    weight = None
    cwt = _column(table, cols, "weight", roles.weight, False)
    if cwt is not None:
        weight = _numbers(table.column(cwt))
        bad["a weight that is not a number >= 0"] = ~(np.isfinite(weight) & (weight >= 0))
    prompt, prompts = None, 0
    cp = _column(table, cols, "prompt", roles.prompt, False)
    if cp is not None:
        pcodes, pnames, _ = encode(table.column(cp))
        prompt, prompts = pcodes.astype(np.uint32), len(pnames)
    category, categories = None, []
    if roles.by is not None:
        if roles.by not in cols:
            raise ArenaError(f"no column {roles.by!r} for --by (columns: {', '.join(cols[:20])})")
        ce = _strings(table.column(roles.by)).dictionary_encode().combine_chunks()
        categories = [str(v) for v in ce.dictionary.to_pylist()]
        idx = ce.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
        category = idx
        empty = int((idx < 0).sum()) + sum(int((idx == k).sum()) for k, c in enumerate(categories) if c == "")
        if empty:
            warnings.append(f"{empty:,} battle(s) with an empty {roles.by!r}: in the overall board only")
            category = np.where(np.isin(idx, [k for k, c in enumerate(categories) if c == ""]), -1, idx)
    features: FloatArray | None = None
    feature_names: list[str] = []
    if roles.style:
        features, feature_names = _style(table, cols, roles.style)
        bad["a style feature that is not a number"] = np.asarray(~np.isfinite(features).all(axis=1), bool)

    any_bad = np.zeros(n, bool)
    for mask in bad.values():
        any_bad |= mask
    skipped = bool(bad) and bool(any_bad.any())
    if skipped:
        if strict:
            first = int(np.flatnonzero(any_bad)[0])
            what = next(w for w, mask in bad.items() if mask[first])
            raise ArenaError(f"{_where(parts, first)}: {what}")
        if any_bad.all():
            raise ArenaError("no valid battles left")
        for what, mask in bad.items():
            count = int(mask.sum())
            if count:
                msg = f"{_where(parts, int(np.flatnonzero(mask)[0]))}: {what}"
                warnings.append(f"{count:,} battle(s) with {what} skipped (first: {msg})")
    out = Battles(names, np.asarray(a, np.uint32), np.asarray(b, np.uint32), y, weight, prompt,
                  prompts, category, categories, features, feature_names, warnings, outcome,
                  board if weight is None and prompt is None else None)
    if skipped:
        keep = ~any_bad
        sub = out.subset(keep)
        sub.category = None if category is None else category[keep]
        sub.categories, sub.warnings = categories, warnings
        return sub
    return out


#: Why a row is not a battle (the warnings' words).
MISSING = "a missing model name"
SELF = "a model against itself"
NOT_A_WINNER = "a winner outside model_a, model_b, tie, tie (bothbad) (or A/B/tie, 1/0/0.5)"

#: The core's flags of a row that is not a battle (rust/kscore-core/src/battles/columns.rs).
MISSING_A, MISSING_B, SELF_BATTLE, BAD_WINNER = 1, 2, 4, 8


def _outcome_codes(words: list[bytes]) -> list[int]:
    """What each distinct winner word means (the core asks between its two
    passes): 0 loss, 1 tie, 2 win of model_a; 255 not a winner value."""
    out = []
    for w in words:
        v = WINNERS.get(w.decode("utf-8", "replace").strip().lower())
        out.append(255 if v is None else int(round(2 * v)))
    return out


def _arrays(chunks: list[Any]) -> list[tuple[Any, ...]]:
    """Each string chunk as the core reads it: offsets, bytes, and the
    validity bitmap with the bit of its first row (None without nulls)."""
    out: list[tuple[Any, ...]] = []
    for c in chunks:
        offsets, data = _buffers(c)
        valid = None
        if c.null_count:
            valid = (np.frombuffer(c.buffers()[0], np.uint8), c.offset)
        out.append((offsets, data, valid))
    return out


def _code_battles(col_a: Any, col_b: Any, col_w: Any) -> tuple[Codes, Codes, U8, U8, list[str], Any] | None:
    """``(a, b, outcome, flags, names, board)`` by one call of the core
    (kscore._kscore.code_battles: both model columns and the winner words
    coded, checked and the board's rows counted in one pass over the
    strings, straight from Arrow's buffers), when the three columns are
    plain strings; None otherwise (Parquet's dictionaries, numbers)."""
    from .. import _kscore

    chunks = [_plain_chunks(c) for c in (col_a, col_b, col_w)]
    if any(c is None for c in chunks):
        return None
    ca, cb, cw = (c or [] for c in chunks)
    a, b, outcome, flags, uniq, board = _kscore.code_battles(_arrays(ca), _arrays(cb), _arrays(cw), _outcome_codes)
    words = [u.decode("utf-8", "replace") for u in uniq]
    names = sorted(set(words))
    if names != words:  # (bytes that are not UTF-8: the decoded names' order and set decide; count again)
        at = {m: j for j, m in enumerate(names)}
        remap = np.array([at[w] for w in words], np.uint32)
        a, b, board = remap[a], remap[b], None
    return a, b, outcome, flags, names, board


def _strings(col: Any) -> Any:
    import pyarrow as pa

    if pa.types.is_dictionary(col.type):
        col = col.cast(col.type.value_type)
    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        col = col.cast(pa.string())
    return col


def _numbers(col: Any) -> FloatArray:
    import pyarrow as pa

    try:
        return np.asarray(col.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return np.array([_float(v) for v in col.to_pylist()], dtype=np.float64)


def _float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _results(table: Any, cw: str | None, n: int) -> FloatArray:
    """The result of model_a per battle (NaN: not a winner value)."""
    import pyarrow as pa

    if cw is None:  # one-hot columns
        cols = [_numbers(table.column(c)) for c in ONE_HOT]
        y = np.full(n, np.nan)
        for col, val in zip(cols, (1.0, 0.0, 0.5)):
            y[col == 1] = val
        y[(np.nan_to_num(cols[0]) + np.nan_to_num(cols[1]) + np.nan_to_num(cols[2])) != 1] = np.nan
        return y
    col = table.column(cw)
    if pa.types.is_floating(col.type) or pa.types.is_integer(col.type) or pa.types.is_boolean(col.type):
        v = _numbers(col)
        return np.where(np.isin(v, (0.0, 0.5, 1.0)), v, np.nan)
    codes, words, missing = encode(col)
    values = np.array([WINNERS.get(w.strip().lower(), np.nan) for w in words] + [np.nan])
    if not len(words):
        return np.full(n, np.nan)
    y = values[codes]
    return np.where(missing, np.nan, y) if missing.any() else y


def _plain_chunks(col: Any) -> list[Any] | None:
    """The non-empty chunks of a column if each is a plain string array (not
    a dictionary), else None."""
    import pyarrow as pa

    if isinstance(col, pa.Array):
        col = pa.chunked_array([col])
    if not all(pa.types.is_string(c.type) or pa.types.is_large_string(c.type) for c in col.chunks):
        return None
    return [c for c in col.chunks if len(c)]


def _buffers(chunk: Any) -> tuple[npt.NDArray[np.int32] | npt.NDArray[np.int64], npt.NDArray[np.uint8]]:
    """An Arrow string array's offsets and bytes, zero-copy."""
    import pyarrow as pa

    n = len(chunk)
    _, off_buf, data_buf = chunk.buffers()
    wide = pa.types.is_large_string(chunk.type)
    offsets: npt.NDArray[np.int32] | npt.NDArray[np.int64] = (
        np.frombuffer(off_buf, np.int64, count=n + 1, offset=8 * chunk.offset) if wide
        else np.frombuffer(off_buf, np.int32, count=n + 1, offset=4 * chunk.offset))
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
    return offsets, data


def _missing(chunks: list[Any], offsets: list[Any]) -> npt.NDArray[np.bool_]:
    """Null or empty, per row of the chunks."""
    parts = []
    for chunk, off in zip(chunks, offsets):
        miss = off[1:] == off[:-1]
        if chunk.null_count:
            miss = miss | chunk.is_null().to_numpy(zero_copy_only=False)
        parts.append(miss)
    return np.concatenate(parts) if len(parts) != 1 else parts[0]


def encode_models(col_a: Any, col_b: Any) -> tuple[Codes, Codes, list[str], npt.NDArray[np.bool_],
                                                   npt.NDArray[np.bool_]]:
    """The two model columns as ``(codes_a, codes_b, names, missing_a,
    missing_b)``: one code per name over both, the names sorted. Plain
    string columns (an in-memory table's) are coded in one call of the
    core (kscore._kscore.encode_sorted_strings: every chunk of both columns
    hashed in parallel, straight from Arrow's buffers, the names sorted
    there); dictionary columns (Parquet's, a pandas categorical) by their
    dictionaries."""
    from .. import _kscore

    chunks_a, chunks_b = _plain_chunks(col_a), _plain_chunks(col_b)
    if chunks_a is not None and chunks_b is not None:
        bufs = [_buffers(c) for c in chunks_a + chunks_b]
        if not bufs:
            empty = np.zeros(0, np.uint32)
            return empty, empty, [], np.zeros(0, bool), np.zeros(0, bool)
        coded, uniq = _kscore.encode_sorted_strings(bufs)
        words = [u.decode("utf-8", "replace") for u in uniq]
        k = len(chunks_a)

        def joined(parts: list[Any]) -> Codes:
            if not parts:
                return np.zeros(0, np.uint32)
            return np.asarray(parts[0] if len(parts) == 1 else np.concatenate(parts))

        a, b = joined(coded[:k]), joined(coded[k:])
        names = sorted(set(words))
        if names != words:  # (bytes that are not UTF-8: the decoded names' order and set decide)
            at = {m: j for j, m in enumerate(names)}
            remap = np.array([at[w] for w in words], np.uint32)
            a, b = remap[a], remap[b]
        miss_a = _missing(chunks_a, [o for o, _ in bufs[:k]]) if chunks_a else np.zeros(0, bool)
        miss_b = _missing(chunks_b, [o for o, _ in bufs[k:]]) if chunks_b else np.zeros(0, bool)
        return a, b, names, miss_a, miss_b
    codes_a, names_a, miss_a = encode(col_a)
    codes_b, names_b, miss_b = encode(col_b)
    names = sorted(set(names_a) | set(names_b))
    at = {m: j for j, m in enumerate(names)}
    a = np.array([at[m] for m in names_a], np.int64)[codes_a] if len(codes_a) else np.zeros(0, np.int64)
    b = np.array([at[m] for m in names_b], np.int64)[codes_b] if len(codes_b) else np.zeros(0, np.int64)
    return a, b, names, miss_a, miss_b


def encode(col: Any) -> tuple[Codes, list[str], npt.NDArray[np.bool_]]:
    """A string column as ``(codes, distinct strings, missing)`` (missing:
    null or empty), by the core's encoder over Arrow's buffers, chunk by
    chunk (kscore._kscore.encode_strings)."""
    import pyarrow as pa

    from .. import _kscore

    if isinstance(col, pa.Array):
        col = pa.chunked_array([col])
    if not (pa.types.is_dictionary(col.type) or pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        col = _strings(col)
    names: list[str] = []
    at: dict[str, int] = {}
    codes, missing = [], []
    for chunk in col.chunks:
        n = len(chunk)
        if pa.types.is_dictionary(chunk.type):  # (Parquet's dictionary pages, a pandas categorical: no string hashed)
            words = [str(w) for w in chunk.dictionary.to_pylist()]
            idx = chunk.indices.fill_null(0).to_numpy(zero_copy_only=False).astype(np.int64)
            empty = np.array([w == "" for w in words] + [True])
            miss = empty[idx] if len(words) else np.ones(n, bool)
            c = idx
        else:
            _, off_buf, data_buf = chunk.buffers()
            wide = pa.types.is_large_string(chunk.type)
            offsets = np.frombuffer(off_buf, np.int64 if wide else np.int32, count=n + 1,
                                    offset=(8 if wide else 4) * chunk.offset)
            data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.zeros(0, np.uint8)
            c, uniq = _kscore.encode_strings(offsets, data)  # type: ignore[arg-type]
            words = [u.decode("utf-8", "replace") for u in uniq]
            miss = offsets[1:] == offsets[:-1]
        remap = np.array([at.setdefault(w, len(at)) for w in words], np.int64)
        names = list(at)
        if not len(words):
            c = np.zeros(n, np.int64)
        elif not np.array_equal(remap, np.arange(len(words))):  # (the identity: the codes as they are)
            c = remap[c]
        codes.append(c)
        if chunk.null_count:
            miss = miss | chunk.is_null().to_numpy(zero_copy_only=False)
        missing.append(miss)
    if not codes:
        return np.zeros(0, np.int64), [], np.zeros(0, bool)
    if len(codes) == 1:
        return codes[0], names, missing[0]
    return np.concatenate(codes), names, np.concatenate(missing)


def _style(table: Any, cols: list[str], style: list[str] | bool) -> tuple[FloatArray, list[str]]:
    """The style features: LMArena's conv_metadata counts (``style`` True or
    ``["conv_metadata"]``), or named columns (``len`` may name a pair
    ``len_a``/``len_b``); a pair's feature is ``(a - b) / (a + b)`` (a zero
    sum taken as 1), as arena-rank's example makes them. Each feature is
    then standardised (mean 0, population sd 1; a constant one left at 0),
    as arena-rank's ContextualPairDataset does."""
    raw: list[FloatArray] = []
    names: list[str] = []
    wanted = ["conv_metadata"] if style is True else list(style) if not isinstance(style, bool) else []
    for name in wanted:
        if name == "conv_metadata":
            if "conv_metadata" not in cols:
                raise ArenaError("style control with conv_metadata: no conv_metadata column")
            meta = _metadata(table.column("conv_metadata"))
            for feat, (fa, fb) in STYLE_METADATA.items():
                raw.append(_ratio(meta(fa), meta(fb)))
                names.append(feat)
        elif name in cols:
            raw.append(_numbers(table.column(name)))
            names.append(name)
        elif f"{name}_a" in cols and f"{name}_b" in cols:
            raw.append(_ratio(_numbers(table.column(f"{name}_a")), _numbers(table.column(f"{name}_b"))))
            names.append(name)
        else:
            raise ArenaError(f"no style column {name!r} (nor {name}_a and {name}_b)")
    x = np.stack(raw, axis=1) if raw else np.zeros((table.num_rows, 0))
    with np.errstate(invalid="ignore"):
        ok = np.isfinite(x).all(axis=1)
        mu = x[ok].mean(axis=0) if ok.any() else np.zeros(x.shape[1])
        sd = x[ok].std(axis=0) if ok.any() else np.ones(x.shape[1])
    sd = np.where(sd > 0, sd, 1.0)
    return np.asarray((x - mu) / sd, np.float64), names


def _ratio(a: FloatArray, b: FloatArray) -> FloatArray:
    total = a + b
    return (a - b) / np.where(total == 0, 1.0, total)


def _metadata(col: Any) -> Any:
    """A reader of one conv_metadata field per battle (a struct column, or
    JSON text): a number, or a dict of counts summed."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_struct(col.type):
        def field_of(name: str) -> FloatArray:
            f = pc.struct_field(col, name)
            if pa.types.is_struct(f.type):
                parts = [_numbers(pc.struct_field(f, i)) for i in range(f.type.num_fields)]
                return np.asarray(np.sum(parts, axis=0), np.float64)
            return _numbers(f)
        return field_of
    rows = [json.loads(v) if isinstance(v, str) else (v or {}) for v in col.to_pylist()]

    def from_json(name: str) -> FloatArray:
        def one(r: dict[str, Any]) -> float:
            v = r.get(name)
            if isinstance(v, dict):
                return float(sum(x or 0 for x in v.values()))
            return _float(v)
        return np.array([one(r) for r in rows], dtype=np.float64)
    return from_json


__all__ = ["ArenaError", "Battles", "Roles", "files_of", "read_battles", "squash", "to_table"]
