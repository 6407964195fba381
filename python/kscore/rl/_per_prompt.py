"""verl's per-prompt statistics of one field, exact, for every prompt at once.

For each group of prompts with the same number N of responses the values
form an M x N matrix: ``mean@N`` and ``std@N`` are row means and population
standard deviations (verl's ``np.mean``/``np.std``), and ``best@n``,
``worst@n``, ``maj@n`` are weighted moments of the rows under exact
weights (:mod:`._order_stats`, :mod:`._majority`) instead of 1000 resamples.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from functools import lru_cache

import numpy as np

from .._arrays import FloatArray, IntArray
from ._batch import Batch, Field
from ._majority import win_table
from ._order_stats import best_weights, weighted_moments
from ._vote_counts import countable, win_rows

#: Keys, the prompts they cover, and a (keys x prompts) matrix of values.
Block = tuple[list[str], IntArray, FloatArray]


def draw_sizes(total: int) -> list[int]:
    """verl's ``gen_ns``: 2, 4, 8, ... below ``total``, then ``total``.

    Examples:
        >>> draw_sizes(16), draw_sizes(6), draw_sizes(1)
        ([2, 4, 8, 16], [2, 4, 6], [])
    """
    if total <= 1:
        return []
    out = []
    n = 2
    while n < total:
        out.append(n)
        n *= 2
    return [*out, total]


def metric_names(total: int, voted: bool) -> list[str]:
    """The keys verl gives one prompt with ``total`` responses, in its order.

    Examples:
        >>> metric_names(2, False)
        ['mean@2', 'std@2', 'best@2/mean', 'best@2/std', 'worst@2/mean', 'worst@2/std']
    """
    names = [f"mean@{total}"]
    if total > 1:
        names.append(f"std@{total}")
    for n in draw_sizes(total):
        names += [f"best@{n}/mean", f"best@{n}/std", f"worst@{n}/mean", f"worst@{n}/std"]
        if voted:
            names += [f"maj@{n}/mean", f"maj@{n}/std"]
    return names


@lru_cache(maxsize=256)
def stat_weights(total: int) -> FloatArray:
    """Weights over ascending order statistics: uniform (the mean), then for
    each n of :func:`draw_sizes` the best of n and the worst of n.

    Examples:
        >>> stat_weights(2).tolist()
        [[0.5, 0.5], [0.25, 0.75], [0.75, 0.25]]
    """
    rows = [np.full(total, 1.0 / total)]
    for n in draw_sizes(total):
        rows += [best_weights(total, n), best_weights(total, n)[::-1]]
    out = np.ascontiguousarray(np.stack(rows))
    out.flags.writeable = False
    return out


# (A plain np.unique would do too, but its first call in a process imports
# numpy.ma: 10-20 ms, more than a whole first call here.)


def _rows(field: Field, prompts: IntArray, total: int) -> FloatArray:
    index = field.start[prompts][:, None] + np.arange(total)[None, :]
    rows: FloatArray = field.values[index]
    return rows


# Random odd multipliers: a row of sorted group sizes hashes to one int64
# (wrapping); equal hashes are checked row by row, so a collision costs a
# slower path, never a wrong partition.
_HASH = np.random.default_rng(0x6B73636F7265).integers(1, 2**62, size=4096, dtype=np.int64) | 1


def _distinct_rows(rows: IntArray) -> tuple[IntArray, IntArray]:
    """``(representatives, inverse)`` of the distinct rows of ``rows``."""
    width = rows.shape[1]
    if width <= len(_HASH):
        with np.errstate(over="ignore"):
            key = rows @ _HASH[:width]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if (rows[first[inverse]] == rows).all():
            return rows[first], inverse
    shapes, inverse = np.unique(rows, axis=0, return_inverse=True)
    return shapes, inverse.ravel()


def vote_weights(batch: Batch, prompts: IntArray, total: int, draws: Sequence[int] | None = None,
                 replace: bool = True) -> FloatArray:
    """``(len(draws), M, total)``: for each number of draws n of verl's vote
    (default :func:`draw_sizes`; with or without replacement), the
    probability that each response gives the value."""
    assert batch.vote is not None
    ns = tuple(draw_sizes(total) if draws is None else draws)
    key = (total, ns, replace, prompts.tobytes())
    if key not in batch.memo:
        codes = batch.vote[batch.vote_start[prompts][:, None] + np.arange(total)[None, :]]
        batch.memo[key] = _vote_weights(codes, total, ns, replace)
    weights: FloatArray = batch.memo[key]
    return weights


def vote_at_k(batch: Batch, field: Field, prompts: IntArray, ks: Sequence[int]) -> FloatArray:
    """``(len(ks), len(prompts))``: per prompt, the expected value of verl's
    vote over k of its responses drawn without replacement (unbiased for
    the vote of k fresh responses)."""
    out = np.empty((len(ks), len(prompts)))
    totals = field.count[prompts]
    for total in np.flatnonzero(np.bincount(totals)).tolist():  # the distinct N, ascending
        same = totals == total
        rows = prompts[same]
        weights = vote_weights(batch, rows, total, ks, replace=False)
        out[:, same] = np.einsum("kmn,mn->km", weights, _rows(field, rows, total))
    return out


class _Store:
    """Win chances per response size (``(L, N + 1)``, already divided by
    the group size) of the partitions seen, one row each, kept across calls:
    a validation step's partitions recur step after step."""

    def __init__(self, total: int, lanes: int) -> None:
        self.index: dict[tuple[int, ...], int] = {}
        self.rows = np.zeros((0, lanes, total + 1))


#: One store per (N, draws, replace).
_STORES: dict[tuple[int, tuple[int, ...], bool], _Store] = {}
#: Past this many floats (32 MB) a store starts again (bounds the memory).
_STORE_FLOATS = 1 << 22
#: At most this many stores (kinds of (N, draws, replace)) at once.
_STORE_KINDS = 64
_LOCK = threading.Lock()


def clear_caches() -> None:
    """Forget every table kscore.rl keeps between calls (vote tables,
    order-statistic weights, vote-count vectors): the next call pays what a
    first call in a fresh process pays (benches time it this way)."""
    from . import _majority, _order_stats, _vote_counts

    _STORES.clear()
    for cached in (_majority.win_table, _majority._gauss, _majority._shift_index, _order_stats.best_weights,
                   _vote_counts._counts, _vote_counts._log_factorials, stat_weights):
        cached.cache_clear()


def _vote_weights(codes: IntArray, total: int, ns: tuple[int, ...], replace: bool) -> FloatArray:
    """:func:`vote_weights` of an ``(M, total)`` matrix of answer codes."""
    size = _group_sizes(codes)
    prompts = len(codes)
    # A partition is named by how many responses sit in groups of each size
    # s = 0..N (s times the number of groups of size s): a bincount, no sort.
    cells = (np.arange(prompts)[:, None] * (total + 1) + size).ravel()
    shapes, which = _distinct_rows(np.bincount(cells, minlength=prompts * (total + 1)).reshape(prompts, total + 1))
    keys = list(map(tuple, shapes.tolist()))
    with _LOCK:  # one store per kind, shared by every thread
        store = _STORES.get((total, ns, replace))
        if store is None or store.rows.size > _STORE_FLOATS:
            if len(_STORES) >= _STORE_KINDS:  # many different N: start again
                _STORES.clear()
            store = _STORES[(total, ns, replace)] = _Store(total, len(ns))
        missing = [key for key in keys if key not in store.index]
        if missing:
            store.index.update(zip(missing, range(len(store.rows), len(store.rows) + len(missing))))
            store.rows = np.concatenate([store.rows, _tables(missing, total, ns, replace)])
        per = store.rows[np.fromiter(map(store.index.__getitem__, keys), np.int64, len(keys))]  # (U, L, N + 1)
    lanes = per.transpose(1, 0, 2).reshape(len(ns), -1)  # (L, U * (N + 1))
    weights: FloatArray = np.take(lanes, (which[:, None] * (total + 1) + size).ravel(), axis=1)
    return weights.reshape(len(ns), prompts, total)


def _tables(keys: list[tuple[int, ...]], total: int, ns: tuple[int, ...], replace: bool) -> FloatArray:
    """``(len(keys), L, N + 1)``: per partition (named as in
    :func:`_vote_weights`), n of ``ns`` and group size s, the chance that
    one given response of a group of size s gives the vote's value."""
    out = np.zeros((len(keys), len(ns), total + 1))
    parts = [tuple(s for s in range(total, 0, -1) for _ in range(key[s] // s)) for key in keys]
    by_groups: dict[int, list[int]] = {}
    for u, part in enumerate(parts):
        if countable(max(ns), len(part)):
            by_groups.setdefault(len(part), []).append(u)
        else:
            out[u] = win_table(part, replace)[np.asarray(ns) - 1]
    for units in by_groups.values():
        sizes = np.array([parts[u] for u in units], np.int64)  # (U, G), descending
        wins = win_rows(sizes, ns, replace)  # (U, L, G)
        rows = np.asarray(units)
        for g in range(sizes.shape[1]):  # groups of one size win alike: any one of them names it
            out[rows, :, sizes[:, g]] = wins[:, :, g]
    out[:, :, 1:] /= np.arange(1, total + 1)
    return out


def _group_sizes(codes: IntArray) -> IntArray:
    """For each entry of each row, how many entries of its row are equal to it."""
    prompts, total = codes.shape
    span = int(codes.max()) + 1 if codes.size else 1
    if prompts * span <= 4 * codes.size + 1024:  # few distinct answers: count them per row
        cells = np.arange(prompts)[:, None] * span + codes
        counts: IntArray = np.bincount(cells.ravel(), minlength=prompts * span)[cells]
        return counts
    order = np.argsort(codes, axis=1, kind="stable")
    ranked = np.take_along_axis(codes, order, axis=1)
    starts = np.ones(ranked.shape, bool)
    starts[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    run = np.cumsum(starts.ravel()) - 1  # a run id per entry, rows one after another
    lengths = np.bincount(run)
    size = np.empty(codes.shape, np.int64)
    np.put_along_axis(size, order, lengths[run].reshape(codes.shape), axis=1)
    return size


def field_blocks(batch: Batch, field: Field) -> Iterator[Block]:
    """verl's metrics for ``field`` as blocks: the keys, the prompts, and
    one row of per-prompt values per key."""
    prompts = np.flatnonzero(field.count > 0).astype(np.int64)
    totals = field.count[prompts]
    voted = batch.vote_ok[prompts] & (batch.vote_count[prompts] == totals) if batch.vote is not None else None
    binary = bool(((field.values == 0.0) | (field.values == 1.0)).all())  # 0/1 values: moments without a pass
    for total in np.flatnonzero(np.bincount(totals)).tolist():  # the distinct N, ascending
        same = totals == total
        rows = prompts if same.all() else prompts[same]
        values = _rows(field, rows, total)
        if total == 1:
            yield [f"mean@{total}"], rows, values.T
            continue
        ns = draw_sizes(total)
        # One pass over the sorted rows: uniform weights (mean@N, std@N),
        # then best and worst of each n; moments interleaved as verl's keys.
        means, stds = weighted_moments(np.sort(values, axis=1), stat_weights(total), binary)
        table = np.empty((2 * len(means), len(rows)))
        table[0::2], table[1::2] = means, stds
        names = [f"mean@{total}", f"std@{total}"]
        for n in ns:
            names += [f"best@{n}/mean", f"best@{n}/std", f"worst@{n}/mean", f"worst@{n}/std"]
        yield names, rows, table
        if voted is not None:
            pick = voted[same]
            if pick.any():
                vote_rows = rows[pick]
                m_mean, m_std = weighted_moments(values[pick], vote_weights(batch, vote_rows, total), binary)
                names = [name for n in ns for name in (f"maj@{n}/mean", f"maj@{n}/std")]
                yield names, vote_rows, np.stack([m_mean, m_std], axis=1).reshape(2 * len(ns), len(vote_rows))
