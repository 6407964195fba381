"""Any trainer: flat arrays in, a flat dict of floats out, for a logger."""

from __future__ import annotations

from collections.abc import Sequence

from ._batch import Entries
from ._verl import nested_metrics


def validation_metrics(
    prompt_ids: Entries,
    rewards: Entries,
    preds: Entries | None = None,
    *,
    sources: Entries | None = None,
    prefix: str = "val",
    ks: Sequence[int] | None = None,
    confidence: float = 0.95,
    strict: bool = False,
) -> dict[str, float]:
    """Validation metrics of any trainer's rollouts, keyed for a logger.

    One entry per response, in any order, any number of responses per
    prompt: ``prompt_ids`` (any hashable ids), ``rewards`` (numbers),
    optionally ``preds`` (the extracted answers, for the majority vote) and
    ``sources`` (a data source per response; default one source ``"all"``).
    Gives ``{f"{prefix}/{source}/{metric}": float}`` with verl's metrics,
    exact (``mean@N``, ``std@N``, ``best@n/mean``, ... as
    :func:`kscore.rl.process_validation_metrics`) and, draws without
    replacement, unbiased, with ``/lo`` and ``/hi`` interval ends over
    prompts: ``pass@k``, ``pass_hat@k`` (pass^k) and ``strict_maj@k`` when
    every reward is 0 or 1, ``vote@k`` (verl's majority vote over k
    responses) with ``preds``; for ``ks`` (default k = 1, 2, 4, ... and the
    most responses of any prompt), each k averaged over the prompts with at
    least k responses (every prompt when none has fewer). A k above every
    prompt's responses raises a ValueError naming the data source and the
    prompt with the most.

    A NaN or infinite reward makes NaN the keys its prompt enters, with a
    RuntimeWarning naming the data source and prompt (verl's behaviour:
    training goes on); ``strict=True`` raises a ValueError instead.

    Examples:
        >>> m = validation_metrics([0, 0, 1, 1, 1, 1], [1, 0, 0, 0, 0, 1])
        >>> m["val/all/pass@1"], m["val/all/pass@2"]
        (0.375, 0.75)
        >>> sorted(k for k in m if k.startswith("val/all/mean"))
        ['val/all/mean@2', 'val/all/mean@4']
    """
    size = len(prompt_ids)
    infos: dict[str, Entries] = {"reward": rewards}
    if preds is not None:
        infos["pred"] = preds
    where: Entries = ["all"] * size if sources is None else sources
    nested = nested_metrics(where, prompt_ids, infos, unbiased=True, confidence=confidence, ks=ks, strict=strict)
    out: dict[str, float] = {}
    for source, fields in nested.items():
        for key, value in fields.get("reward", {}).items():
            out[f"{prefix}/{source}/{key}"] = value
    return out
