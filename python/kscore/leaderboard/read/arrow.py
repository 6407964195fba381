"""A query's Arrow result to numpy, without per-cell Python work: integer
columns read from their buffers, string columns to sorted names and codes
by Arrow's dictionary encoding (on threads for a large table), cells
ordered by model then question, names no cell uses dropped, and the
question attributes carried beside the counts."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._arrays import IntArray


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
    import pyarrow as pa  # (optional and heavy: imported where a result comes back)

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
