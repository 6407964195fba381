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
in one pass (``_kscore.inspect_columns``), about two thirds of the time of
Python's two list comprehensions, and numbers the values (and the ids, when
they are not ints) as it goes; the rest runs on arrays and on the few
distinct values (a value is mapped once, not once per score). inspect
passes the same list to every metric of a scorer, so the reads and the table
are kept for the next metric (one slot each, holding that list until a
metric is called on another one; a list changed in place in between would be
seen as it was: inspect does not do that; a metric with other rewards ``w``
builds its table from the same reads)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _kscore
from .._arrays import FloatArray, IntArray
from ..formats.api import to_float as default_to_float
from ..leaderboard.api import Counts

ToFloat = Callable[[Any], float]


@dataclass(frozen=True)
class Table:
    """The counts of one scorer's scores (a single model: inspect's metrics
    see one model), and each score's question code (for clusters)."""

    counts: Counts
    question_of_score: IntArray


#: Each score's value code, the distinct values, and the ids themselves
#: (int64, with None) or each score's id code and the distinct ids.
Columns = tuple[IntArray, list[Any], IntArray, list[Any] | None]

_last: tuple[tuple[Any, ...], Sequence[Any], Table] | None = None
_last_columns: tuple[tuple[Any, ...], Sequence[Any], Columns] | None = None
_last_cluster: tuple[Table, str, IntArray] | None = None


def table(scores: Sequence[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> Table:
    """The counts table of ``scores`` (``where``: the metric's name, for
    errors). Reuses the previous call's table for the same list, and its
    reads for the same list under other rewards."""
    global _last, _last_columns
    key = _key(scores)
    full = (*key, tuple(w.tolist()), id(to_float))
    if _last is not None and _last[0] == full and _last[1] is scores:
        return _last[2]
    if _last_columns is not None and _last_columns[0] == key and _last_columns[1] is scores:
        columns = _last_columns[2]
    else:
        _last_columns = None  # (the old list let go before reading the new one)
        columns = read(scores, where)
        _last_columns = (key, scores, columns)
    out = _build(columns, w, to_float, where)
    _last = (full, scores, out)
    return out


def _key(scores: Sequence[Any]) -> tuple[Any, ...]:
    ends = (id(scores[0]), id(scores[-1])) if len(scores) else ()
    return (id(scores), len(scores), *ends)


def _build(columns: Columns, w: FloatArray, to_float: ToFloat | None, where: str) -> Table:
    value_codes, distinct, ids, distinct_ids = columns
    cat = _categories(distinct, w, to_float, where)[value_codes]
    q, n_questions = _question_codes(ids) if distinct_ids is None else (ids, len(distinct_ids))
    width = len(w)
    cats = np.bincount(q * width + cat, minlength=n_questions * width).reshape(n_questions, width)
    # One model; the question names are not needed by the metrics (only their number).
    counts = Counts(["model"], [""] * n_questions, np.zeros(n_questions, np.int64),
                    np.arange(n_questions, dtype=np.int64), cats.astype(np.int64, copy=False))
    return Table(counts, q)


def read(scores: Sequence[Any], where: str) -> Columns:
    """Each score's ``.score.value`` and ``.sample_id``: the values numbered
    in order of first appearance (equal values, as dict keys, one number),
    the ids as int64 when every one is an int, else numbered as the values."""
    if type(scores) is list:  # (a subclass may iterate otherwise)
        try:
            return _kscore.inspect_columns(scores)  # (one pass, as getattr reads)
        except TypeError:
            pass  # (an unhashable value: read again below, for the message)
    return python_read(scores, where)


def python_read(scores: Sequence[Any], where: str) -> Columns:
    """:func:`read` in Python (any sequence): its reference in the tests."""
    values = [s.score.value for s in scores]
    ids = [s.sample_id for s in scores]
    try:
        value_codes, distinct = _numbered(values)
    except TypeError:
        bad = next(v for v in values if not isinstance(v, Hashable))
        raise ValueError(f"kscore {where}: a score value is {type(bad).__name__} ({str(bad)[:60]}), "
                         "several values rather than one outcome; give the scorer one value per sample") from None
    if all(type(i) is int for i in ids) and all(-(2**63) <= i < 2**63 for i in ids):
        return value_codes, distinct, np.array(ids, np.int64), None
    id_codes, distinct_ids = _numbered(ids)
    return value_codes, distinct, id_codes, distinct_ids


def _numbered(objects: list[Any]) -> tuple[IntArray, list[Any]]:
    code: dict[Any, int] = {}
    codes = np.fromiter((code.setdefault(v, len(code)) for v in objects), np.int64, len(objects))
    return codes, list(code)


def _categories(distinct: list[Any], w: FloatArray, to_float: ToFloat | None, where: str) -> IntArray:
    """Each distinct value's outcome category (the index of the reward it
    equals, mapped as ``to_float`` maps it)."""
    convert = to_float or default_to_float
    rewards = w.tolist()
    out = np.empty(len(distinct), np.int64)
    for j, v in enumerate(distinct):
        f = convert(v)
        if f is None or f not in rewards:
            shown = "0 or 1" if rewards == [0.0, 1.0] else f"one of the rewards w = {rewards}"
            mapped = "" if f is None else f" (as a number: {f!r})"
            raise ValueError(f"kscore {where}: score value {v!r}{mapped} is not {shown}; "
                             "pass w= for graded rewards (bayes)")
        out[j] = rewards.index(f)
    return out


def _question_codes(ids: IntArray) -> tuple[IntArray, int]:
    """Each score's question code 0..Q-1 (by int sample id) and Q."""
    n = len(ids)
    if not n:
        return ids, 0
    lo = int(ids.min())
    span = int(ids.max()) - lo + 1
    if span <= 4 * n + (1 << 16):
        off = ids - lo
        used = np.bincount(off, minlength=span) > 0
        if used.all():  # (ids lo..hi without a gap: the offsets are the codes)
            return off, span
        renum = np.cumsum(used) - 1
        return renum[off], int(used.sum())
    uniq, inv = np.unique(ids, return_inverse=True)
    return inv.ravel().astype(np.int64, copy=False), len(uniq)


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
