"""A validation batch read the way verl reads it: prompts, fields, votes.

verl groups samples by ``(data_source, uid)`` in first-seen order, drops
``None`` values, skips a prompt's field when its first remaining value is a
string, and pairs a field with ``pred`` position by position when both have
the same length. This module does the same grouping once, in numpy, and
keeps each field as flat arrays sorted by prompt (the rows of a ragged
prompts x responses table).
"""

from __future__ import annotations

import operator
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np
import numpy.typing as npt

from .._arrays import BoolArray, FloatArray, IntArray

#: One entry per response: a list (any sequence) or a 1-D numpy array.
Entries = Union[Sequence[Any], npt.NDArray[Any]]  # noqa: UP007 - a runtime alias on Python 3.10

_NUMBER = (bool, int, float, np.bool_, np.integer, np.floating)
_STRING = (str, bytes)


@dataclass(frozen=True)
class Field:
    """One numeric field: ``values`` sorted by ``prompt`` (stable, so each
    prompt's values keep their sample order), ``count[p]`` values per prompt
    and ``start[p]`` the offset of prompt p's first value."""

    name: str
    prompt: IntArray
    values: FloatArray
    count: IntArray
    start: IntArray


@dataclass(frozen=True)
class Batch:
    """Prompts in first-seen order (within a data source, verl's uid order),
    the numeric fields, and the votes.

    ``vote[i]`` is a code per ``pred`` value (equal codes: equal as dict
    keys, as verl's vote counts them; -1 for None), sorted by prompt like a
    field; ``vote_ok[p]`` says prompt p has a ``pred`` list with no None."""

    sources: list[Hashable]
    source_of: IntArray
    fields: list[Field]
    vote: IntArray | None
    vote_count: IntArray
    vote_start: IntArray
    vote_ok: BoolArray
    #: Vote weights computed for one field, kept for the next (same prompts, same N).
    memo: dict[Any, Any] = field(default_factory=dict)

    @property
    def prompts(self) -> int:
        return len(self.source_of)


def _block_width(values: Entries) -> int | None:
    """The length of the first run of equal entries (a guess at the number
    of responses per prompt when each prompt's entries sit side by side, as
    trainers lay them out); None for a numpy array or a run past 4096."""
    if isinstance(values, np.ndarray) or not len(values):
        return None
    items = values if isinstance(values, list) else list(values)
    head = items[0]
    try:
        for i in range(1, min(len(items), 4097)):
            if items[i] != head:
                return i
    except (TypeError, ValueError):  # == is not a plain bool (arrays): no guess
        return None
    return len(items) if len(items) <= 4096 else None


def _codes(values: Entries, what: str, width: int | None = None) -> tuple[list[Any], IntArray]:
    """First-seen distinct values and each value's code (dict semantics).
    ``width``: a guess that the entries come in blocks of ``width`` equal
    entries (checked here, never trusted)."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "biu":
        uniq, first, inverse = np.unique(values.ravel(), return_index=True, return_inverse=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty(len(order), np.int64)
        rank[order] = np.arange(len(order))
        return uniq[order].tolist(), rank[inverse.ravel()]
    items = values.tolist() if isinstance(values, np.ndarray) else values
    items = items if isinstance(items, list) else list(items)
    size = len(items)
    if size == 0:
        return [], np.zeros(0, np.int64)
    if width and size % width == 0:
        # Blocks of equal entries: a slice per position in the block and one
        # list comparison each (C loops that skip identical objects), then
        # only the blocks' heads are coded.
        heads = items[::width]
        try:
            blocks = all(items[j::width] == heads for j in range(1, width))
        except (TypeError, ValueError):
            blocks = False
        if blocks:
            distinct, head_codes = _first_seen(heads, what, repeats=False)
            return distinct, np.repeat(head_codes, width)
    probe = items[: min(size, 257)]
    try:
        runs = sum(map(operator.ne, probe[1:], probe[:-1]))
    except (TypeError, ValueError):
        runs = len(probe)
    try:
        if not runs and items.count(items[0]) == size:  # one data source, one answer: nothing to code
            hash(items[0])
            return [items[0]], np.zeros(size, np.int64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what} must be hashable: {exc}") from None
    if runs * 3 > len(probe):  # short runs: code every entry
        return _first_seen(items, what)
    # Trainers repeat each prompt's entries side by side: code the runs of
    # equal neighbours (one C-level comparison per entry), not every entry.
    try:
        change = np.fromiter(map(operator.ne, items[1:], items[:-1]), bool, max(size - 1, 0))
    except (TypeError, ValueError):
        return _first_seen(items, what)
    heads_at = np.flatnonzero(np.concatenate([[True], change]))
    firsts = [items[0]] if len(heads_at) == 1 else list(operator.itemgetter(*heads_at.tolist())(items))
    distinct, head_codes = _first_seen(firsts, what, repeats=False)
    return distinct, np.repeat(head_codes, np.diff(np.append(heads_at, size)))


class _Coder(dict[Any, int]):
    """A dict that gives a missing key the next code: looking every item up
    once (itemgetter, a C loop) codes them in first-seen order in one pass;
    Python runs only once per distinct value."""

    def __missing__(self, key: Any) -> int:
        code = self[key] = len(self)
        return code


def _first_seen(items: list[Any], what: str, repeats: bool = True) -> tuple[list[Any], IntArray]:
    """Distinct values in first-seen order and each item's code, by dict
    lookups in C loops. ``repeats``: the items repeat (answers): one pass
    over a :class:`_Coder`; else (the heads of runs, mostly distinct) the
    distinct values first (``dict.fromkeys``), then the lookups, so that
    no Python code runs per item."""
    try:
        if len(items) == 1:
            hash(items[0])
            return [items[0]], np.zeros(1, np.int64)
        if repeats:
            coder = _Coder()
            codes = operator.itemgetter(*items)(coder)
            return list(coder), np.fromiter(codes, np.int64, len(items))
        distinct = list(dict.fromkeys(items))
    except TypeError as exc:
        raise TypeError(f"{what} must be hashable: {exc}") from None
    index = dict(zip(distinct, range(len(distinct))))
    return distinct, np.fromiter(operator.itemgetter(*items)(index), np.int64, len(items))


def _numbers(name: str, raw: Any, size: int, distinct: list[Any] | None = None) -> tuple[
        BoolArray, FloatArray, BoolArray]:
    """``(kept, values, text)`` per sample: whether it holds a number, the
    number (0 where not), whether it is a string (verl skips a prompt's
    field when its first non-None value is one). ``distinct``: the field's
    distinct values when already coded (``pred``); if all are strings, so
    is every entry (an entry equal to a string as a dict key is a string)."""
    none = np.zeros(size, bool)
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "biuf":
        return ~none, raw.astype(np.float64).ravel(), none
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "US":
        return none, np.zeros(size), ~none
    if distinct and all(isinstance(v, _STRING) for v in distinct):
        return none, np.zeros(size), ~none
    items = raw.tolist() if isinstance(raw, np.ndarray) else raw if isinstance(raw, list) else list(raw)
    if size and not isinstance(items[0], (str, bytes)) and items[0] is not None:
        # numpy reads a list of numbers in one C loop; anything else (None,
        # strings, objects) makes an object or text array: then look closer.
        try:
            guess = np.array(items)
        except (ValueError, TypeError, OverflowError):
            guess = np.zeros(0, object)
        if guess.dtype.kind in "biuf" and guess.shape == (size,):
            values = guess.astype(np.float64, copy=False)
            bad = ~np.isfinite(values)
            if bad.any():
                i = int(np.argmax(bad))
                raise ValueError(f"infos_dict[{name!r}][{i}] is {values[i]}; rewards must be finite numbers")
            return ~none, values, none
    kinds = set(map(type, items))
    if all(issubclass(t, _NUMBER) for t in kinds):
        values = np.array(items, dtype=np.float64)
        kept = ~none
        text = none
    elif all(issubclass(t, _STRING) for t in kinds):
        return none, np.zeros(size), ~none
    else:
        kept = np.fromiter((isinstance(v, _NUMBER) for v in items), bool, size)
        text = np.fromiter((isinstance(v, _STRING) for v in items), bool, size)
        odd = ~(kept | text) & np.fromiter((v is not None for v in items), bool, size)
        if odd.any():
            i = int(np.argmax(odd))
            raise TypeError(
                f"infos_dict[{name!r}][{i}] is a {type(items[i]).__name__}; a field holds numbers, strings or None"
            )
        values = np.array([v if k else 0.0 for v, k in zip(items, kept)], dtype=np.float64)
    bad = kept & ~np.isfinite(values)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"infos_dict[{name!r}][{i}] is {values[i]}; rewards must be finite numbers")
    return kept, values, text


def _skip_strings(name: str, kept: BoolArray, text: BoolArray, sample_prompt: IntArray, prompts: int) -> BoolArray:
    """``kept`` less the prompts whose first non-None value is a string."""
    alive = np.flatnonzero(kept | text)
    first = np.full(prompts, -1, np.int64)
    first[sample_prompt[alive[::-1]]] = alive[::-1]  # the last write per prompt is its first sample
    has = first >= 0
    skip = np.zeros(prompts, bool)
    skip[has] = text[first[has]]
    numbers = np.bincount(sample_prompt[kept], minlength=prompts) > 0
    strings = np.bincount(sample_prompt[text], minlength=prompts) > 0
    if (~skip & numbers & strings).any():
        raise TypeError(f"infos_dict[{name!r}] mixes numbers and strings within one prompt")
    return kept & ~skip[sample_prompt]


class _Order:
    """Samples sorted by prompt rank, stable, computed once for every field."""

    def __init__(self, sample_rank: IntArray, prompts: int) -> None:
        self.sample_rank = sample_rank
        self.prompts = prompts
        ordered = bool((sample_rank[1:] >= sample_rank[:-1]).all())
        self.perm = None if ordered else np.argsort(sample_rank, kind="stable")
        self.shared: tuple[IntArray, IntArray, IntArray] | None = None

    def field(self, name: str, kept: BoolArray, values: npt.NDArray[Any],
              extra_prompt: IntArray | None = None, extra_values: FloatArray | None = None) -> Field:
        plain = extra_prompt is None or not len(extra_prompt)
        if plain and kept.all():  # the common case: one layout shared by every such field
            if self.perm is not None:
                values = values[self.perm]
            if self.shared is None:
                self.shared = self._counts(self.sample_rank if self.perm is None else self.sample_rank[self.perm])
            return Field(name, self.shared[0], values, self.shared[1], self.shared[2])
        rank = self.sample_rank
        if self.perm is not None:
            kept, values, rank = kept[self.perm], values[self.perm], rank[self.perm]
        if not kept.all():
            values, rank = values[kept], rank[kept]
        if extra_prompt is not None and extra_values is not None and len(extra_prompt):
            rank = np.concatenate([rank, extra_prompt])
            values = np.concatenate([values, extra_values])
            order = np.argsort(rank, kind="stable")
            rank, values = rank[order], values[order]
        rank, count, start = self._counts(rank)
        return Field(name, rank, values, count, start)

    def _counts(self, rank: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        count = np.bincount(rank, minlength=self.prompts).astype(np.int64)
        start = np.zeros(self.prompts, np.int64)
        np.cumsum(count[:-1], out=start[1:])
        return rank, count, start


def read_batch(
    data_sources: Entries,
    sample_uids: Entries,
    infos_dict: Mapping[str, Entries],
    expected_acc_counts: Mapping[tuple[Any, Any], int] | None,
) -> Batch:
    """Group a verl validation batch by prompt (see the module docstring)."""
    size = len(data_sources)
    if len(sample_uids) != size:
        raise ValueError(f"sample_uids has {len(sample_uids)} entries, data_sources {size}")
    for name, raw in infos_dict.items():
        if len(raw) != size:
            raise ValueError(f"infos_dict[{name!r}] has {len(raw)} entries, data_sources {size}")
    block = _block_width(sample_uids)  # verl's layout: each prompt's n responses side by side
    sources, source_code = _codes(data_sources, "data_sources", block)
    uids, uid_code = _codes(sample_uids, "sample_uids", block)
    width = len(uids)
    source_of_uid = np.zeros(width, np.int64)
    source_of_uid[uid_code] = source_code
    if (source_of_uid[uid_code] == source_code).all():  # each uid in one source: prompts are the uids
        keys, sample_prompt = source_of_uid * width + np.arange(width), uid_code
    else:
        keys, inverse = np.unique(source_code * width + uid_code, return_inverse=True)
        sample_prompt = inverse.ravel().astype(np.int64)
    source_of = keys // max(width, 1)

    # (name, kept per sample, value per sample, extra prompts, extra values)
    parsed: list[tuple[str, BoolArray, FloatArray, IntArray | None, FloatArray | None]] = []
    # pred is coded first (its distinct values tell _numbers it holds strings);
    # an unhashable pred is reported after the fields' own checks, as before.
    coded: tuple[list[Any], IntArray] | None = None
    unhashable: TypeError | None = None
    if "pred" in infos_dict:
        try:
            coded = _codes(infos_dict["pred"], "infos_dict['pred'] values")
        except TypeError as exc:
            unhashable = exc
    for name, raw in infos_dict.items():
        kept, values, text = _numbers(name, raw, size, coded[0] if coded is not None and name == "pred" else None)
        if text.any() and kept.any():
            kept = _skip_strings(name, kept, text, sample_prompt, len(keys))
        parsed.append((name, kept, values, None, None))

    if expected_acc_counts and "acc" in infos_dict:
        raw = infos_dict["acc"]
        listed = raw.tolist() if isinstance(raw, np.ndarray) else raw
        present = np.fromiter((v is not None for v in listed), bool, size)
        acc_seen = np.zeros(len(sources), bool)
        acc_seen[source_code[present]] = True
        parsed, source_of = _expected(parsed, expected_acc_counts, sources, uids, source_of, keys, sample_prompt,
                                      acc_seen)
    total = len(source_of)
    # Prompts stay in first-seen order: within a data source that is verl's
    # uid order, and sources are apart only when metrics are averaged.
    layout = _Order(sample_prompt, total)
    fields = [layout.field(name, kept, values, xp, xv) for name, kept, values, xp, xv in parsed
              if kept.any() or (xp is not None and len(xp))]  # a field of strings only emits nothing

    vote = None
    vote_count = np.zeros(total, np.int64)
    vote_start = np.zeros(total, np.int64)
    vote_ok = np.zeros(total, bool)
    if unhashable is not None:
        raise unhashable
    if coded is not None:
        answers, codes = coded
        none = np.zeros(size, bool)
        if any(a is None for a in answers):  # the distinct answers, not every entry
            none = codes == next(i for i, a in enumerate(answers) if a is None)
            codes[none] = -1
        votes = layout.field("pred", np.ones(size, bool), codes)  # the codes ride in a field's layout
        vote = votes.values.astype(np.int64, copy=False)
        vote_count, vote_start = votes.count, votes.start
        bad = np.bincount(sample_prompt[none], minlength=total) > 0
        vote_ok = (vote_count > 0) & ~bad
    return Batch(sources, source_of, fields, vote, vote_count, vote_start, vote_ok)


def _expected(
    parsed: list[tuple[str, BoolArray, FloatArray, IntArray | None, FloatArray | None]],
    expected: Mapping[tuple[Any, Any], int],
    sources: list[Any],
    uids: list[Any],
    source_of: IntArray,
    keys: IntArray,
    sample_prompt: IntArray,
    acc_seen: BoolArray,
) -> tuple[list[tuple[str, BoolArray, FloatArray, IntArray | None, FloatArray | None]], IntArray]:
    """verl's ``expected_acc_counts``: for prompts of data sources that emit
    ``acc``, ``acc`` padded with zeros to the expected number of sessions
    and ``acc_success_only`` the observed values; unseen uids become new
    prompts (after the others)."""
    width = len(uids)
    uid_index = {u: i for i, u in enumerate(uids)}
    source_index = {s: i for i, s in enumerate(sources)}
    prompt_of_key = {int(k): i for i, k in enumerate(keys.tolist())}
    names = [entry[0] for entry in parsed]
    _, kept, values, _, _ = parsed[names.index("acc")]
    have = np.bincount(sample_prompt[kept], minlength=len(keys)).tolist()
    new_sources: list[int] = []
    pad_p: list[int] = []
    pad_n: list[int] = []
    listed = np.zeros(len(keys), bool)
    for (source, uid), count in expected.items():
        s = source_index.get(source)
        if s is None or not acc_seen[s]:
            continue
        u = uid_index.get(uid)
        p = prompt_of_key.get(s * width + u) if u is not None else None
        observed = 0
        if p is None:
            p = len(keys) + len(new_sources)
            new_sources.append(s)
        else:
            listed[p] = True
            observed = have[p]
        if int(count) > observed:
            pad_p.append(p)
            pad_n.append(int(count) - observed)
    pad = np.repeat(np.asarray(pad_p, np.int64), np.asarray(pad_n, np.int64))
    acc = ("acc", kept, values, pad, np.zeros(len(pad)))
    success = ("acc_success_only", kept & listed[sample_prompt], values, None, None)
    out = [acc if entry[0] == "acc" else entry for entry in parsed]
    if "acc_success_only" in names:
        out[names.index("acc_success_only")] = success
    else:
        out.append(success)
    return out, np.concatenate([source_of, np.asarray(new_sources, np.int64)])
