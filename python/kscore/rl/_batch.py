"""A validation batch read the way verl reads it: prompts, fields, votes.

verl groups samples by ``(data_source, uid)`` in first-seen order, drops
``None`` values, skips a prompt's field when its first remaining value is a
string, and pairs a field with ``pred`` position by position when both have
the same length. This module does the same grouping once, in numpy, and
keeps each field as flat arrays sorted by prompt (the rows of a ragged
prompts x responses table).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

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
    """Prompts in verl's order (data sources first seen, then uids first
    seen within a source), the numeric fields, and the votes.

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

    @property
    def prompts(self) -> int:
        return len(self.source_of)


def _codes(values: Sequence[Any], what: str) -> tuple[list[Any], IntArray]:
    """First-seen distinct values and each value's code (dict semantics)."""
    try:
        first = dict.fromkeys(values)
    except TypeError as exc:
        raise TypeError(f"{what} must be hashable: {exc}") from None
    index = {key: i for i, key in enumerate(first)}
    return list(first), np.fromiter(map(index.__getitem__, values), np.int64, len(values))


def _numbers(name: str, raw: Any, size: int) -> tuple[BoolArray, FloatArray, BoolArray]:
    """``(kept, values, string_start)``: which samples hold a number, the
    numbers, and for each sample whether it is a string (verl skips a
    prompt's field when its first non-None value is one)."""
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "biuf":
        values = raw.astype(np.float64).ravel()
        return np.ones(size, bool), values, np.zeros(size, bool)
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "US":
        return np.zeros(size, bool), np.zeros(0), np.ones(size, bool)
    items = raw.tolist() if isinstance(raw, np.ndarray) else list(raw)
    kinds = set(map(type, items))
    if all(issubclass(t, _NUMBER) for t in kinds):
        return np.ones(size, bool), np.array(items, dtype=np.float64), np.zeros(size, bool)
    if all(issubclass(t, _STRING) for t in kinds):
        return np.zeros(size, bool), np.zeros(0), np.ones(size, bool)
    kept = np.fromiter((isinstance(v, _NUMBER) for v in items), bool, size)
    text = np.fromiter((isinstance(v, _STRING) for v in items), bool, size)
    odd = ~(kept | text) & np.fromiter((v is not None for v in items), bool, size)
    if odd.any():
        i = int(np.argmax(odd))
        raise TypeError(
            f"infos_dict[{name!r}][{i}] is a {type(items[i]).__name__}; a field holds numbers, strings or None"
        )
    values = np.array([v for v, k in zip(items, kept) if k], dtype=np.float64)
    return kept, values, text


def _finite(name: str, kept: BoolArray, values: FloatArray) -> None:
    bad = ~np.isfinite(values)
    if bad.any():
        i = int(np.flatnonzero(kept)[int(np.argmax(bad))])
        raise ValueError(f"infos_dict[{name!r}][{i}] is {values[bad][0]}; rewards must be finite numbers")


def _field(name: str, prompt: IntArray, values: FloatArray, prompts: int) -> Field:
    order = np.argsort(prompt, kind="stable")
    count = np.bincount(prompt, minlength=prompts).astype(np.int64)
    start = np.zeros(prompts, np.int64)
    np.cumsum(count[:-1], out=start[1:])
    return Field(name, prompt[order], values[order], count, start)


def read_batch(
    data_sources: Sequence[Any],
    sample_uids: Sequence[Any],
    infos_dict: Mapping[str, Any],
    expected_acc_counts: Mapping[tuple[Any, Any], int] | None,
) -> Batch:
    """Group a verl validation batch by prompt (see the module docstring)."""
    size = len(data_sources)
    if len(sample_uids) != size:
        raise ValueError(f"sample_uids has {len(sample_uids)} entries, data_sources {size}")
    for name, raw in infos_dict.items():
        if len(raw) != size:
            raise ValueError(f"infos_dict[{name!r}] has {len(raw)} entries, data_sources {size}")
    sources, source_code = _codes(data_sources, "data_sources")
    _, uid_code = _codes(sample_uids, "sample_uids")
    pair = source_code * (int(uid_code.max(initial=0)) + 1) + uid_code
    keys, sample_prompt = np.unique(pair, return_inverse=True)
    sample_prompt = sample_prompt.ravel().astype(np.int64)
    prompts = len(keys)
    source_of = (keys // (int(uid_code.max(initial=0)) + 1)).astype(np.int64)

    # Strings or None-only fields emit nothing; verl decides per prompt.
    parsed: list[tuple[str, IntArray, FloatArray]] = []
    acc_seen: BoolArray | None = None
    for name, raw in infos_dict.items():
        kept, values, text = _numbers(name, raw, size)
        if name == "acc":
            acc_seen = np.zeros(len(sources), bool)
            present = kept | text
            if not isinstance(raw, np.ndarray) or raw.dtype.kind == "O":
                present = np.fromiter((v is not None for v in raw), bool, size)
            acc_seen[np.unique(source_code[present])] = True
        _finite(name, kept, values)
        prompt = sample_prompt[kept]
        if text.any():
            # The first non-None value of each prompt decides: a string skips the prompt.
            alive = kept | text
            idx = np.flatnonzero(alive)
            first = np.full(prompts, -1, np.int64)
            first[sample_prompt[idx[::-1]]] = idx[::-1]
            skip = np.zeros(prompts, bool)
            has = first >= 0
            skip[has] = text[first[has]]
            both = np.bincount(sample_prompt[kept], minlength=prompts) > 0
            mixed = ~skip & both & (np.bincount(sample_prompt[text], minlength=prompts) > 0)
            if mixed.any():
                raise TypeError(f"infos_dict[{name!r}] mixes numbers and strings within one prompt")
            keep = ~skip[prompt]
            prompt, values = prompt[keep], values[keep]
        parsed.append((name, prompt, values))

    new_sources: list[int] = []
    if expected_acc_counts and acc_seen is not None:
        parsed, new_sources = _expected(parsed, expected_acc_counts, sources, source_of, keys, uid_code,
                                        sample_uids, acc_seen)
    if new_sources:
        source_of = np.concatenate([source_of, np.asarray(new_sources, np.int64)])
    total = len(source_of)
    # verl's prompt order: by data source first seen, then uid first seen (new ones last).
    order = np.argsort(source_of, kind="stable")
    rank = np.empty(total, np.int64)
    rank[order] = np.arange(total)
    fields = [_field(name, rank[p], v, total) for name, p, v in parsed]

    vote = None
    vote_count = np.zeros(total, np.int64)
    vote_start = np.zeros(total, np.int64)
    vote_ok = np.zeros(total, bool)
    if "pred" in infos_dict:
        raw = infos_dict["pred"]
        items = raw.tolist() if isinstance(raw, np.ndarray) else list(raw)
        _, codes = _codes(items, "infos_dict['pred'] values")
        none = np.fromiter((v is None for v in items), bool, size)
        codes[none] = -1
        votes = _field("pred", rank[sample_prompt], codes.astype(np.float64), total)
        vote = votes.values.astype(np.int64)
        vote_count, vote_start = votes.count, votes.start
        bad = np.bincount(rank[sample_prompt[none]], minlength=total) > 0
        vote_ok = (vote_count > 0) & ~bad
    return Batch(sources, source_of[order], fields, vote, vote_count, vote_start, vote_ok)


def _expected(
    parsed: list[tuple[str, IntArray, FloatArray]],
    expected: Mapping[tuple[Any, Any], int],
    sources: list[Hashable],
    source_of: IntArray,
    keys: IntArray,
    uid_code: IntArray,
    sample_uids: Sequence[Any],
    acc_seen: BoolArray,
) -> tuple[list[tuple[str, IntArray, FloatArray]], list[int]]:
    """verl's ``expected_acc_counts``: ``acc`` padded with zeros to the
    expected number of sessions, ``acc_success_only`` the observed values,
    for prompts of data sources that emit ``acc``; unseen uids become new
    prompts."""
    width = int(uid_code.max(initial=0)) + 1
    uid_index = dict(zip(sample_uids, uid_code.tolist()))
    source_index = {s: i for i, s in enumerate(sources)}
    prompt_of_key = {int(k): i for i, k in enumerate(keys.tolist())}
    names = [name for name, _, _ in parsed]
    _, acc_p, acc_v = parsed[names.index("acc")]
    have = np.bincount(acc_p, minlength=len(keys) + len(expected))
    new_sources: list[int] = []
    pad_p: list[int] = []
    pad_n: list[int] = []
    only: list[int] = []
    for (source, uid), count in expected.items():
        s = source_index.get(source)
        if s is None or not acc_seen[s]:
            continue
        u = uid_index.get(uid)
        p = prompt_of_key.get(s * width + u) if u is not None else None
        if p is None:
            p = len(keys) + len(new_sources)
            new_sources.append(s)
        else:
            only.append(p)
        missing = max(int(count) - int(have[p]), 0)
        if missing:
            pad_p.append(p)
            pad_n.append(missing)
    pad = np.repeat(np.asarray(pad_p, np.int64), np.asarray(pad_n, np.int64))
    acc = ("acc", np.concatenate([acc_p, pad]), np.concatenate([acc_v, np.zeros(len(pad))]))
    chosen = np.isin(acc_p, np.asarray(only, np.int64))
    success = ("acc_success_only", acc_p[chosen], acc_v[chosen])
    out = [acc if name == "acc" else entry for name, entry in zip(names, parsed)]
    if "acc_success_only" in names:
        out[names.index("acc_success_only")] = success
    else:
        out.append(success)
    return out, new_sources
