"""Token-level inputs (one trace, or many) laid out for the core's confidence kernels.

One trace is read exactly as scorio 0.2.3 reads it (``_as_logprobs``,
``_as_topk``: the same coercions, shapes and messages, raised here). Many traces
come as a sequence of such traces, or as one padded array whose last axis (last
two for top-k) are a trace's tokens, with ``lengths`` (the leading shape) saying
how many tokens each trace has; the result has the leading shape. Every trace's
rows are then one flat float64 array: ``k`` candidates per position, or each
row's bounds where ``k`` varies. Emptiness and finiteness of many traces are
checked in the core, in scorio's order, and reported with the trace's index.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import FloatArray, IntArray

#: The core's per-trace statuses (rust/kscore-core/src/aggregate/confidence.rs).
NO_TOKENS, EMPTY_ROW, NOT_FINITE, BAD_ANSWER_START = 1, 2, 3, 4

LOGPROB_MESSAGES = {
    NO_TOKENS: "need at least one token (T >= 1).",
    NOT_FINITE: "logprobs must all be finite.",
}
TOPK_MESSAGES = {
    NO_TOKENS: "need at least one token (T >= 1).",
    EMPTY_ROW: "every position needs at least one top-k candidate.",
    NOT_FINITE: "topk_logprobs must all be finite.",
}
STEP_MESSAGES = {
    NO_TOKENS: "step_scores must be non-empty (L >= 1).",
    NOT_FINITE: "step_scores must all be finite.",
}

_EMPTY_MATRIX = "need at least one token and one top-k candidate."


@dataclass(frozen=True)
class Traces:
    """Traces for the core: ``values`` flat; ``k`` candidates per position (or
    ``bounds``); trace t is positions ``starts[t] .. starts[t] + lens[t]``;
    ``shape``: the result's shape (``None``: one trace, a scalar result)."""

    values: FloatArray
    k: int
    bounds: IntArray | None
    starts: IntArray
    lens: IntArray
    shape: tuple[int, ...] | None

    @property
    def count(self) -> int:
        return len(self.lens)

    def label(self, t: int) -> str:
        """How a message names trace ``t`` (its index in the leading shape)."""
        if self.shape is None or len(self.shape) <= 1:
            return f"trace {t}"
        return f"trace {tuple(int(i) for i in np.unravel_index(t, self.shape))}"


def _one(values: FloatArray, k: int, bounds: IntArray | None, positions: int) -> Traces:
    return Traces(
        np.ascontiguousarray(values, dtype=np.float64).reshape(-1),
        k,
        bounds,
        np.zeros(1, dtype=np.int64),
        np.array([positions], dtype=np.int64),
        None,
    )


def one_values(x: Any, messages: dict[int, str]) -> Traces:
    """One trace of one value per position (scorio's ``_as_logprobs``, and
    ``prm_aggregate``'s step scores: flattened, non-empty, finite)."""
    lp = np.asarray(x, dtype=float).reshape(-1)
    if lp.size == 0:
        raise ValueError(messages[NO_TOKENS])
    if not np.all(np.isfinite(lp)):
        raise ValueError(messages[NOT_FINITE])
    return _one(lp, 1, None, lp.size)


def _bounds(sizes: list[int]) -> IntArray:
    b = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(sizes, out=b[1:])
    return b


def one_topk(topk: Any) -> Traces:
    """One trace's top-k rows, as scorio's ``_as_topk``: a float ``(T, k)``
    matrix, a bare ``(k,)`` row (one position), or else a sequence of rows
    each flattened (ragged, or a 3-D array's planes)."""
    try:
        mat = np.asarray(topk, dtype=float)
    except (ValueError, TypeError):
        mat = np.asarray(topk, dtype=object)
    if mat.dtype != object and mat.ndim == 2:
        if mat.shape[0] == 0 or mat.shape[1] == 0:
            raise ValueError(_EMPTY_MATRIX)
        if not np.all(np.isfinite(mat)):
            raise ValueError(TOPK_MESSAGES[NOT_FINITE])
        return _one(mat, int(mat.shape[1]), None, int(mat.shape[0]))
    if mat.ndim == 1 and mat.dtype != object:
        rows = [np.asarray(mat, dtype=float)]
    else:
        rows = [np.asarray(r, dtype=float).reshape(-1) for r in topk]
    if not rows:
        raise ValueError(TOPK_MESSAGES[NO_TOKENS])
    for r in rows:
        if r.size == 0:
            raise ValueError(TOPK_MESSAGES[EMPTY_ROW])
        if not np.all(np.isfinite(r)):
            raise ValueError(TOPK_MESSAGES[NOT_FINITE])
    return _one(np.concatenate(rows), 0, _bounds([r.size for r in rows]), len(rows))


def _lengths(lengths: Any, lead: tuple[int, ...], tokens: int) -> IntArray:
    """``lengths`` of a padded array: integers in ``[0, T]``, one per trace."""
    ln = np.asarray(lengths)
    if ln.dtype.kind not in "iu":
        raise TypeError(f"lengths must be integers; got an array of {ln.dtype}.")
    if ln.shape != lead:
        raise ValueError(f"lengths must have the traces' shape {lead}; got {ln.shape}.")
    ln = ln.astype(np.int64).reshape(-1)
    if ln.size and (ln.min() < 0 or ln.max() > tokens):
        raise ValueError(f"lengths must be in [0, {tokens}] (the padded length).")
    return ln


def _padded(arr: FloatArray, lead: tuple[int, ...], tokens: int, k: int, lengths: Any) -> Traces:
    b = int(np.prod(lead, dtype=np.int64))
    lens = np.full(b, tokens, dtype=np.int64) if lengths is None else _lengths(lengths, lead, tokens)
    return Traces(
        np.ascontiguousarray(arr, dtype=np.float64).reshape(-1),
        k,
        None,
        np.arange(b, dtype=np.int64) * tokens,
        lens,
        lead,
    )


def many_values(x: Any, lengths: Any, what: str) -> Traces:
    """Many traces of one value per position: a padded ``(..., T)`` array (with
    ``lengths``, else every trace full), or a sequence of traces (each flattened)."""
    if lengths is not None or (isinstance(x, np.ndarray) and x.dtype != object):
        arr = np.asarray(x, dtype=float)
        if arr.ndim < 2:
            raise ValueError(f"many traces of {what} need a (..., T) array (the last axis: tokens); got {arr.ndim}-D.")
        return _padded(arr, arr.shape[:-1], arr.shape[-1], 1, lengths)
    parts = [np.asarray(t, dtype=float).reshape(-1) for t in x]
    sizes = [p.size for p in parts]
    values = np.concatenate(parts) if parts else np.zeros(0)
    starts = _bounds(sizes)[:-1]
    return Traces(values, 1, None, starts, np.array(sizes, dtype=np.int64), (len(parts),))


def many_topk(x: Any, lengths: Any) -> Traces:
    """Many traces of top-k rows: a padded ``(..., T, k)`` array (with
    ``lengths``, else every trace full), or a sequence of traces, each read
    as scorio reads one (a ``(T, k)`` matrix or a sequence of rows)."""
    if lengths is not None or (isinstance(x, np.ndarray) and x.dtype != object):
        arr = np.asarray(x, dtype=float)
        if arr.ndim < 3:
            raise ValueError(
                "many traces of top-k rows need a (..., T, k) array (the last two axes: tokens, "
                f"candidates); got {arr.ndim}-D."
            )
        if arr.shape[-1] == 0:
            raise ValueError(_EMPTY_MATRIX)
        return _padded(arr, arr.shape[:-2], arr.shape[-2], arr.shape[-1], lengths)
    chunks: list[FloatArray] = []
    row_sizes: list[IntArray] = []
    lens: list[int] = []
    for i, trace in enumerate(x):
        try:
            mat = np.asarray(trace, dtype=float)
        except (ValueError, TypeError):
            mat = np.asarray(trace, dtype=object)
        if mat.dtype != object and mat.ndim == 2:
            if mat.shape[0] == 0 or mat.shape[1] == 0:
                raise ValueError(f"trace {i}: {_EMPTY_MATRIX}")
            chunks.append(mat.reshape(-1))
            row_sizes.append(np.full(mat.shape[0], mat.shape[1], dtype=np.int64))
            lens.append(int(mat.shape[0]))
            continue
        if mat.ndim == 1 and mat.dtype != object:
            rows = [mat]
        else:
            rows = [np.asarray(r, dtype=float).reshape(-1) for r in trace]
        chunks.extend(rows)
        row_sizes.append(np.array([r.size for r in rows], dtype=np.int64))
        lens.append(len(rows))
    sizes = np.concatenate(row_sizes) if row_sizes else np.zeros(0, dtype=np.int64)
    values = np.concatenate(chunks) if chunks else np.zeros(0)
    starts = _bounds(lens)[:-1]
    n = (len(lens),)
    if sizes.size and (sizes == sizes[0]).all() and sizes[0] > 0:
        return Traces(values, int(sizes[0]), None, starts, np.array(lens, dtype=np.int64), n)
    return Traces(values, 0, _bounds(sizes.tolist()), starts, np.array(lens, dtype=np.int64), n)


def raise_for(status: Any, traces: Traces, messages: dict[int, str], answer_start: Any = None) -> None:
    """scorio's message for the first trace the core found bad (with its index
    when there are many)."""
    bad = np.flatnonzero(status)
    if not bad.size:
        return
    t = int(bad[0])
    code = int(status[t])
    if code == BAD_ANSWER_START:
        msg = f"answer_start must be in [0, {int(traces.lens[t])}]; got {int(answer_start[t])}."
    else:
        msg = messages[code]
    raise ValueError(msg if traces.shape is None else f"{traces.label(t)}: {msg}")


def shaped(values: FloatArray, traces: Traces) -> Any:
    """A float for one trace, else an array of the traces' shape."""
    if traces.shape is None:
        return float(values[0])
    return values.reshape(traces.shape)
