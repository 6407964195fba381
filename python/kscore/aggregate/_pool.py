"""Candidate pools: answers (and scores) of M questions x N candidates, grouped by answer once.

scorio.aggregate reads one question at a time and groups its answers in a Python
dict. Here the whole batch is grouped at once: an array of ids, numbers or strings
by its bytes in the core (one hash table per row), anything else (lists, objects) by a dict per
row, which keeps Python's equality exactly (``1 == 1.0 == True`` is one answer, an
unhashable answer raises scorio's ``TypeError``). Either way every group gets a
number within its row, in order of first appearance: ties broken "by earliest
appearance" are ties broken by the smaller number.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from .._arrays import BoolArray, FloatArray, IntArray
from .._kscore import group_answers, group_typed, pick_text, select_rows

#: dtypes grouped by their bytes in the core (equal bytes: equal in Python too).
_FIXED = "biufU"


def is_valid(a: Any) -> bool:
    """scorio's rule: ``None``, ``""`` and ``NaN`` are unparsable answers."""
    if a is None:
        return False
    if isinstance(a, str):
        return a != ""
    return not (isinstance(a, (float, np.floating)) and math.isnan(float(a)))


@dataclass(frozen=True)
class Pool:
    """A batch of candidate pools with its answer groups: ``codes[r, j]`` numbers
    candidate j's answer among row r's answers in order of first appearance
    (``-1``: unparsable). A typed batch keeps its bytes (``raw``, ``kind``) for the
    core, which groups them inside the fused rules; its codes are made here only
    when a rule or a replay reads them."""

    answers: Any  # (M, N) ndarray: typed (sortable dtype) or object
    scores: FloatArray | None
    single: bool
    raw: npt.NDArray[np.uint8] | None  # (M, N * width) bytes of a typed batch
    kind: str  # how the core reads ``raw`` (group_typed's kind)
    given: npt.NDArray[np.int32] | None = None  # codes made up front (object arrays)

    @property
    def shape(self) -> tuple[int, int]:
        m, n = self.answers.shape
        return int(m), int(n)

    @cached_property
    def codes(self) -> npt.NDArray[np.int32]:
        """The group codes (made on first use for a typed batch)."""
        if self.given is not None:
            return self.given
        assert self.raw is not None
        return group_typed(self.raw, self.shape[1], self.kind)

    @cached_property
    def valid(self) -> BoolArray:
        """Who has a parsable answer (made once: the rules read it several times)."""
        return self.codes >= 0

    def answer(self, r: int, j: int) -> Any:
        """The answer at (r, j) as scorio returns it (an element of an object array)."""
        if j < 0:
            return None
        a = self.answers[r, j]
        return a.item() if isinstance(a, np.generic) else a

    def take(self, rows: IntArray) -> Pool:
        """The questions ``rows`` as a pool of their own (codes are row-local)."""
        s = None if self.scores is None else self.scores[rows]
        return Pool(self.answers[rows], s, False, None, "", self.codes[rows])


def pool(answers: Any, scores: Any = None, *, require_scores: bool = False) -> Pool:
    """scorio's ``_normalize`` (shapes, messages) and the answer groups."""
    typed = isinstance(answers, np.ndarray) and answers.dtype.kind in _FIXED
    z = answers if typed else np.asarray(answers, dtype=object)
    if not typed and z.ndim in (1, 2):
        fixed = _as_fixed(z)
        if fixed is not None:
            z, typed = fixed, True
    if z.ndim == 1:
        z = z.reshape(1, -1)
        single = True
    elif z.ndim == 2:
        single = False
    else:
        raise ValueError("answers must be a 1D (N,) or 2D (M, N) array.")
    if z.shape[1] == 0:
        raise ValueError("need at least one candidate per question (N >= 1).")
    s: FloatArray | None = None
    if scores is None:
        if require_scores:
            raise ValueError("scores are required for this selection rule.")
    else:
        s = np.ascontiguousarray(scores, dtype=float)
        if s.ndim == 1:
            s = s.reshape(1, -1)
        if s.shape != z.shape:
            raise ValueError(
                f"answers and scores must have the same shape; got {z.shape} and {s.shape}."
            )
    if not typed:
        return Pool(z, s, single, None, "", _group_dict(z))
    m, n = z.shape
    kind = "float" if z.dtype.kind == "f" else "text" if z.dtype.kind == "U" else "bytes"
    if kind != "float" or z.dtype.itemsize in (4, 8):
        raw = np.ascontiguousarray(z).view(np.uint8).reshape(m, n * z.dtype.itemsize)
        return Pool(z, s, single, raw, kind)
    # float16 / long double: the mask and the -0.0 fold in numpy
    valid = ~np.isnan(z)
    raw = np.ascontiguousarray(z + 0.0).view(np.uint8).reshape(m, n * z.dtype.itemsize)
    return Pool(z, s, single, None, "", group_answers(raw, np.ascontiguousarray(valid)))


def fused(
    p: Pool,
    rule: str,
    slow: Callable[[Pool], tuple[IntArray, IntArray]],
    *,
    param: float = 0.0,
    count: int = 0,
    weighted: bool = True,
) -> tuple[IntArray, IntArray]:
    """``(answer, representative)`` columns of every question under ``rule``, in one
    core pass (``_kscore.select_rows``: grouping, order, weights and the count fused);
    the questions it flags (a NaN compared) go to ``slow``, the rule's step-by-step
    path, as a pool of their own."""
    n = p.shape[1]
    if p.raw is not None:
        answer, rep, replay = select_rows(
            rule, n, p.scores, answers=p.raw, kind=p.kind, param=param, count=count, weighted=weighted
        )
    else:
        answer, rep, replay = select_rows(
            rule, n, p.scores, codes=p.codes, param=param, count=count, weighted=weighted
        )
    rows = np.flatnonzero(replay)
    if rows.size:
        answer[rows], rep[rows] = slow(p.take(rows))
    return answer, rep


def _as_fixed(z: Any) -> Any:
    """A list's answers as a fixed-width array where that changes nothing scorio sees:
    all ``str`` (``None`` made ``""``: both unparsable), all ``int`` within int64, or
    all ``float``. Mixed types (``1`` and ``"1"``, ``1`` and ``True``) keep Python's
    equality through the dict."""
    kinds = set(map(type, z.flat))
    if kinds <= {str, type(None)} and str in kinds:
        if type(None) in kinds:
            z = np.where(np.vectorize(lambda a: a is None, otypes=[bool])(z), "", z)
        return z.astype(str)
    if kinds == {int}:
        try:
            return z.astype(np.int64)
        except OverflowError:
            return None
    if kinds == {float}:
        return z.astype(np.float64)
    return None


def _group_dict(z: Any) -> npt.NDArray[np.int32]:
    """Groups of an object array: a dict per row, Python's equality and hashing."""
    m, n = z.shape
    codes = np.full((m, n), -1, dtype=np.int32)
    for r in range(m):
        seen: dict[Any, int] = {}
        out = codes[r]
        for j, a in enumerate(z[r]):
            if not is_valid(a):
                continue
            g = seen.get(a)
            if g is None:
                g = seen[a] = len(seen)
            out[j] = g
    return codes


def finalize(selected: list[Any], single: bool) -> Any:
    """A scalar for one question, else an (M,) object array (tuples stay one answer)."""
    if single:
        return selected[0]
    out = np.empty(len(selected), dtype=object)
    out[:] = selected
    return out


def pack(
    p: Pool,
    chosen: tuple[IntArray, IntArray] | IntArray,
    *,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """The caller-facing result: selection, then index and score where asked (scorio's
    order). ``chosen``: the columns of the answer returned and of the representative
    (one array when they are the same candidate)."""
    answer, index = chosen if isinstance(chosen, tuple) else (chosen, chosen)
    if p.single:
        first: Any = p.answer(0, int(answer[0]))
    else:
        first = _picked(p, answer)
    out: list[Any] = [first]
    if return_index:
        out.append(int(index[0]) if p.single else np.asarray(index, dtype=int))
    if return_score:
        assert p.scores is not None
        rows = np.arange(len(index))
        score = np.where(index >= 0, p.scores[rows, np.maximum(index, 0)], np.nan)
        out.append(float(score[0]) if p.single else score.astype(float))
    return out[0] if len(out) == 1 else tuple(out)


def _picked(p: Pool, answer: IntArray) -> Any:
    """The chosen answers of a batch as an (M,) object array (None where nothing was
    valid): a numpy string batch's from its bytes in the core, one ``str`` made per
    distinct string (numpy makes one per row: most of the result's cost)."""
    if p.kind == "text" and p.raw is not None and p.answers.dtype.isnative:
        made = pick_text(p.raw, p.shape[1], np.ascontiguousarray(answer, dtype=np.int64))
        if made is not None:
            return made
    # One fancy index: an object array's own elements, or a typed array's values as
    # Python scalars (what scorio's object array holds); None where nothing was valid.
    rows = np.arange(len(answer))
    picked = p.answers[rows, np.maximum(answer, 0)]
    first = picked if picked.dtype == object else picked.astype(object)
    if (answer < 0).any():
        first = first.copy() if first is picked else first
        first[answer < 0] = None
    return first
