"""A drop-in for verl 0.9.1's ``process_validation_metrics``, exact."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from .._arrays import FloatArray, IntArray
from ._batch import Batch, Entries, Field, read_batch
from ._per_prompt import field_blocks, metric_names, vote_at_k
from ._unbiased import budgets, unbiased_metrics, vote_metrics

Nested = dict[Any, dict[str, dict[str, float]]]


def process_validation_metrics(
    data_sources: Entries,
    sample_uids: Entries,
    infos_dict: Mapping[str, Entries],
    seed: int = 42,
    expected_acc_counts: Mapping[tuple[Any, Any], int] | None = None,
    *,
    unbiased: bool = False,
    confidence: float = 0.95,
) -> Nested:
    """verl's validation metrics with every bootstrap statistic exact.

    Same arguments, defaults and nested result as
    ``verl.trainer.ppo.metric_utils.process_validation_metrics`` (verl
    0.9.1): ``{data_source: {field: {metric: value}}}`` with ``mean@N``,
    ``std@N`` and, for n = 2, 4, ..., N, ``best@n/mean``, ``best@n/std``,
    ``worst@n/mean``, ``worst@n/std`` and (with a ``pred`` field)
    ``maj@n/mean``, ``maj@n/std``; string fields skipped, ``None`` dropped,
    ``expected_acc_counts`` padding ``acc`` with zeros and adding
    ``acc_success_only``. verl estimates the best/worst/majority statistics
    from 1000 resamples with replacement; here they are the values those
    resamples converge to (order-statistic weights, and the exact
    distribution of verl's vote with its tie rule), so ``seed`` is accepted
    and has no effect. Dicts are plain ``dict`` with ``float`` values.

    Args:
        data_sources, sample_uids, infos_dict, seed, expected_acc_counts: verl's.
        unbiased: also give, for each field whose values are all 0 or 1,
            ``pass@k``, ``pass_hat@k`` (pass^k) and ``strict_maj@k``, and
            for each field with a ``pred`` of every response ``vote@k``
            (verl's majority vote over k responses): draws without
            replacement, unbiased, with ``/lo`` and ``/hi`` interval ends
            over prompts, for k = 1, 2, 4, ... and the fewest responses of
            any prompt (see docs/rl.md).
        confidence: the intervals' level.

    Raises:
        ValueError: lists of different lengths, a NaN or infinite value.
        TypeError: a field value that is neither a number, a string nor
            None, or a prompt mixing numbers and strings in one field.

    Examples:
        >>> out = process_validation_metrics(
        ...     ["math"] * 4, ["q1", "q1", "q2", "q2"],
        ...     {"acc": [1.0, 0.0, 1.0, 1.0], "pred": ["7", "3", "5", "5"]})
        >>> out["math"]["acc"]["mean@2"], out["math"]["acc"]["best@2/mean"]
        (0.75, 0.875)
        >>> out["math"]["acc"]["maj@2/mean"]  # q1: "7" or "3" wins half the time
        0.75
    """
    del seed  # exact values: nothing is drawn
    return nested_metrics(data_sources, sample_uids, infos_dict, expected_acc_counts,
                          unbiased=unbiased, confidence=confidence)


def nested_metrics(
    data_sources: Entries,
    sample_uids: Entries,
    infos_dict: Mapping[str, Entries],
    expected_acc_counts: Mapping[tuple[Any, Any], int] | None = None,
    *,
    unbiased: bool = False,
    confidence: float = 0.95,
    ks: Sequence[int] | None = None,
) -> Nested:
    """:func:`process_validation_metrics` with the budgets ``ks`` of the
    unbiased keys chosen (default 1, 2, 4, ... and the fewest responses)."""
    batch = read_batch(data_sources, sample_uids, infos_dict, expected_acc_counts)
    columns = [_aggregate(batch, field) for field in batch.fields]
    out: Nested = {}
    for s, source in enumerate(batch.sources):
        firsts = []
        for pos, field in enumerate(batch.fields):
            mine = np.flatnonzero((field.count > 0) & (batch.source_of == s))
            if len(mine):
                firsts.append((int(mine[0]), pos, mine))
        if not firsts:
            continue
        fields: dict[str, dict[str, float]] = {}
        for _, pos, mine in sorted(firsts, key=lambda t: (t[0], t[1])):
            field = batch.fields[pos]
            sums, counts = columns[pos]
            metrics = {key: float(sums[key][s] / counts[key][s]) for key in _key_order(batch, field, mine)}
            if unbiased:
                metrics.update(_unbiased(batch, field, mine, confidence, ks))
            fields[field.name] = metrics
        out[source] = fields
    return out


def _key_order(batch: Batch, field: Field, prompts: IntArray) -> list[str]:
    """verl's key order: each prompt's keys, first seen over prompts."""
    totals = field.count[prompts]
    voted = np.zeros(len(prompts), bool)
    if batch.vote is not None:
        voted = batch.vote_ok[prompts] & (batch.vote_count[prompts] == totals)
    signature = totals * 2 + voted
    _, first = np.unique(signature, return_index=True)
    keys: dict[str, None] = {}
    for i in np.sort(first).tolist():
        keys.update(dict.fromkeys(metric_names(int(totals[i]), bool(voted[i]))))
    return list(keys)


def _aggregate(batch: Batch, field: Field) -> tuple[dict[str, FloatArray], dict[str, FloatArray]]:
    """Per key, the sum and number of per-prompt values of each data source."""
    sources = len(batch.sources)
    sums: dict[str, FloatArray] = {}
    counts: dict[str, FloatArray] = {}
    for names, rows, table in field_blocks(batch, field):
        if sources == 1:
            block_sums = table.sum(axis=1)[:, None]
            block_counts = np.array([float(len(rows))])
        else:
            where = np.zeros((len(rows), sources))
            where[np.arange(len(rows)), batch.source_of[rows]] = 1.0
            block_sums = table @ where  # (keys, sources)
            block_counts = where.sum(axis=0)
        for name, row in zip(names, block_sums):
            if name in sums:
                sums[name] = sums[name] + row
                counts[name] = counts[name] + block_counts
            else:
                sums[name], counts[name] = row, block_counts
    return sums, counts


def _unbiased(batch: Batch, field: Field, prompts: IntArray, confidence: float,
              ks: Sequence[int] | None) -> dict[str, float]:
    """The keys beyond verl's for ``field`` over ``prompts``: pass@k,
    pass_hat@k and strict_maj@k for a 0/1 field, vote@k for prompts with
    a ``pred`` of every response."""
    chosen = np.zeros(len(field.count), bool)
    chosen[prompts] = True
    values = field.values[chosen[field.prompt]]
    out: dict[str, float] = {}
    binary = bool(((values == 0.0) | (values == 1.0)).all())
    if binary:
        c = np.bincount(field.prompt, weights=field.values, minlength=len(field.count))[prompts]
        out.update(unbiased_metrics(field.count[prompts], np.rint(c).astype(np.int64), ks, confidence))
    if batch.vote is not None:
        totals = field.count[prompts]
        voted = prompts[batch.vote_ok[prompts] & (batch.vote_count[prompts] == totals)]
        if len(voted):
            fewest = int(field.count[voted].min())
            budgets_v = budgets(fewest) if ks is None else [int(k) for k in ks]
            if max(budgets_v) > fewest or min(budgets_v) < 1:
                raise ValueError(f"k must be in 1..{fewest} (the fewest responses of a voted prompt); got {budgets_v}")
            bounds = (0.0, 1.0) if binary else (float(values.min()), float(values.max()))
            out.update(vote_metrics(vote_at_k(batch, field, voted, budgets_v), budgets_v, bounds, confidence))
    return out
