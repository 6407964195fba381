"""inspect's per-epoch ``SampleScore`` list as a kscore counts table.

A metric declared ``@metric(scores="unreduced")`` receives one
``SampleScore`` per sample and epoch, in whatever order the samples
finished. Each value becomes a number as inspect's default
``value_to_float()`` maps it (``kscore.formats._inspect.to_float``, the
reader the leaderboard uses on inspect logs: ``C`` 1, ``P`` 0.5, ``I``/``N``
0, numbers, yes/no), then an outcome category: the index of the reward in
``w`` it equals (``w = [0, 1]``: the outcome is 0 or 1, the correct answers
counted). The counts per (sample, category) are all kscore's kernels need.

Reading the scores is the cost: two attribute reads per score, walks
through pydantic objects scattered in memory. The compiled module reads both
in one pass (``_kscore.inspect_columns``: one-letter values as bytes, int
ids as int64, else the objects), about two thirds of the time of Python's
two list comprehensions; the rest runs on arrays and on the few distinct
values (a value is looked up once, not once per score). inspect passes the
same list to every metric of a scorer, so the table is kept for the next
metric (one slot, holding that list until a metric is called on another
one; a list changed in place in between would be seen as it was: inspect
does not do that)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from ..formats._inspect import to_float as default_to_float
from ..leaderboard._counts import Counts

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
ToFloat = Callable[[Any], float]


@dataclass(frozen=True)
class Table:
    """The counts of one scorer's scores (a single model: inspect's metrics
    see one model), and each score's question code (for clusters)."""

    counts: Counts
    question_of_score: IntArray


_last: tuple[tuple[Any, ...], Sequence[Any], Table] | None = None
_last_cluster: tuple[Table, str, IntArray] | None = None


def table(scores: Sequence[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> Table:
    """The counts table of ``scores`` (``where``: the metric's name, for
    errors). Reuses the previous call's table for the same list."""
    global _last
    key = _key(scores, w, to_float)
    if _last is not None and _last[0] == key and _last[1] is scores:
        return _last[2]
    out = _build(scores, w, to_float, where)
    _last = (key, scores, out)
    return out


def _key(scores: Sequence[Any], w: FloatArray, to_float: ToFloat | None) -> tuple[Any, ...]:
    ends = (id(scores[0]), id(scores[-1])) if len(scores) else ()
    return (id(scores), len(scores), *ends, tuple(w.tolist()), id(to_float))


def _build(scores: Sequence[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> Table:
    values, ids = read(scores)
    cat = _categories(values, w, to_float, where)
    q, n_questions = _question_codes(ids)
    width = len(w)
    cats = np.bincount(q * width + cat, minlength=n_questions * width).reshape(n_questions, width)
    # One model; the question names are not needed by the metrics (only their number).
    counts = Counts(["model"], [""] * n_questions, np.zeros(n_questions, np.int64),
                    np.arange(n_questions, dtype=np.int64), cats.astype(np.int64, copy=False))
    return Table(counts, q)


def read(scores: Sequence[Any]) -> tuple[bytes | list[Any], IntArray | list[Any]]:
    """Each score's ``.score.value`` and ``.sample_id``: the values as bytes
    (one latin-1 code each) when every one is a one-character str below
    U+0100, the ids as int64 when every one is an int, else as lists."""
    if type(scores) is list:  # (a subclass may iterate otherwise)
        return _kscore.inspect_columns(scores)  # (one pass, as getattr reads)
    return [s.score.value for s in scores], [s.sample_id for s in scores]


def _categories(values: bytes | list[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> IntArray:
    """Each value's outcome category (the index of the reward it equals)."""
    if isinstance(values, bytes):
        letters = np.frombuffer(values, np.uint8)
        present = np.flatnonzero(np.bincount(letters, minlength=256))
        of_letter = _category_of([chr(c) for c in present.tolist()], w, to_float, where)
        by_code = np.zeros(256, np.int64)
        by_code[present] = [of_letter[chr(c)] for c in present.tolist()]
        return by_code[letters]
    try:
        distinct: set[Hashable] = set(values)
    except TypeError:
        bad = next(v for v in values if not isinstance(v, Hashable))
        raise ValueError(f"kscore {where}: a score value is {type(bad).__name__} ({str(bad)[:60]}), several values "
                         "rather than one outcome; give the scorer one value per sample") from None
    cat_of = _category_of(distinct, w, to_float, where)
    n = len(values)
    if len(cat_of) == 1:
        return np.full(n, next(iter(cat_of.values())), np.int64)
    if all(isinstance(v, str) and len(v) == 1 and ord(v) < 256 for v in cat_of):
        # One-letter values (C/I/P/N): their bytes index a table, no per-score call.
        lut = np.zeros(256, np.int64)
        for v, j in cat_of.items():
            lut[ord(v)] = j
        return lut[np.frombuffer("".join(values).encode("latin-1"), np.uint8)]
    if all(isinstance(v, int | float) for v in cat_of):  # (bool is an int)
        keys = np.array(sorted(float(v) for v in cat_of))
        codes = np.array([cat_of[k] for k in keys.tolist()], np.int64)
        return codes[np.searchsorted(keys, np.array(values, np.float64))]
    return np.fromiter(map(cat_of.__getitem__, values), np.int64, n)


def _category_of(distinct: Iterable[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> dict[Any, int]:
    """Each distinct value's outcome category, mapped as ``to_float`` maps it."""
    convert = to_float or default_to_float
    rewards = w.tolist()
    cat_of: dict[Any, int] = {}
    for v in distinct:
        f = convert(v)
        if f is None or f not in rewards:
            shown = "0 or 1" if rewards == [0.0, 1.0] else f"one of the rewards w = {rewards}"
            mapped = "" if f is None else f" (as a number: {f!r})"
            raise ValueError(f"kscore {where}: score value {v!r}{mapped} is not {shown}; "
                             "pass w= for graded rewards (bayes)")
        cat_of[v] = rewards.index(f)
    return cat_of


def _question_codes(ids: IntArray | list[Any]) -> tuple[IntArray, int]:
    """Each score's question code 0..Q-1 (by sample id) and Q."""
    n = len(ids)
    arr = ids if isinstance(ids, np.ndarray) else np.array(ids) if n else np.zeros(0, np.int64)
    if arr.dtype.kind == "i":  # every id an int (a str id makes the array text)
        lo = int(arr.min()) if n else 0
        span = int(arr.max()) - lo + 1 if n else 0
        if span <= 4 * n + (1 << 16):
            off = arr - lo
            used = np.bincount(off, minlength=span) > 0
            if used.all():  # (ids lo..hi without a gap: the offsets are the codes)
                return off.astype(np.int64, copy=False), span
            renum = np.cumsum(used) - 1
            return renum[off].astype(np.int64, copy=False), int(used.sum())
        uniq, inv = np.unique(arr, return_inverse=True)
        return inv.ravel().astype(np.int64, copy=False), len(uniq)
    order = dict.fromkeys(ids)  # (the ids as given: 1 and "1" are two samples)
    for j, k in enumerate(order):
        order[k] = j
    return np.fromiter(map(order.__getitem__, ids), np.int64, n), len(order)


def clusters(scores: Sequence[Any], tab: Table, key: str, where: str) -> IntArray:
    """Each question's cluster code from its sample metadata ``key`` (a
    sample without it is a cluster of its own)."""
    global _last_cluster
    # (a table is built for one list: the same table object, the same scores)
    if _last_cluster is not None and _last_cluster[0] is tab and _last_cluster[1] == key:
        return _last_cluster[2]
    Q = len(tab.counts.questions)
    first = np.full(Q, len(scores), np.int64)
    np.minimum.at(first, tab.question_of_score, np.arange(len(scores), dtype=np.int64))
    codes: dict[Any, int] = {}
    out = np.empty(Q, np.int64)
    for qi, i in enumerate(first.tolist()):
        meta = scores[i].sample_metadata or {}
        v = meta.get(key)
        try:
            out[qi] = codes.setdefault((None, qi) if v is None else v, len(codes))
        except TypeError:
            raise ValueError(f"kscore {where}: cluster={key!r}: sample metadata value {str(v)[:60]} is not "
                             "hashable (a list or dict); use a string or number") from None
    _last_cluster = (tab, key, out)
    return out
