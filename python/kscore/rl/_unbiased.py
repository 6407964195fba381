"""pass@k, pass^k and maj@k without replacement, with intervals over prompts.

For a field whose values are all 0 or 1 (``acc``), each prompt is a count
``(n, c)`` and kscore.counts gives the unbiased per-prompt estimators for
every budget at once (:func:`kscore.counts.curve`): pass@k (at least one of k
draws without replacement correct), pass^k (all k correct) and maj@k (a
strict majority of k correct, scorio's ``maj_at_k``). The value is their
mean over prompts; the interval is the normal one over prompts,
``mean -+ z * sd / sqrt(M)`` (sd with ddof=1, clipped into [0, 1]), which
covers the prompt-to-prompt spread and the sampling noise within prompts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._arrays import FloatArray, IntArray
from .._interval import z_value
from ..counts import curve

#: Key prefix per kscore.counts curve family.
FAMILIES = {"pass@": "pass_at_k", "pass_hat@": "pass_hat_k", "strict_maj@": "maj_at_k"}


def budgets(smallest: int) -> list[int]:
    """k = 1, 2, 4, ... up to the fewest responses of any prompt, and that number.

    Examples:
        >>> budgets(16), budgets(6), budgets(1)
        ([1, 2, 4, 8, 16], [1, 2, 4, 6], [1])
    """
    out = []
    k = 1
    while k < smallest:
        out.append(k)
        k *= 2
    return [*out, smallest]


def interval(per_prompt: FloatArray, z: float, bounds: tuple[float, float] = (0.0, 1.0)) -> tuple[
        float, float, float]:
    """``(mean, lo, hi)`` over prompts, clipped into ``bounds`` (the
    bounds themselves for a single prompt: no spread to measure).

    Examples:
        >>> interval(np.array([0.0, 1.0, 1.0, 0.0]), 1.959963984540054)
        (0.5, 0.0, 1.0)
    """
    mean = float(per_prompt.mean())
    if len(per_prompt) < 2:
        return mean, bounds[0], bounds[1]
    half = z * float(per_prompt.std(ddof=1)) / np.sqrt(len(per_prompt))
    return mean, max(bounds[0], mean - half), min(bounds[1], mean + half)


def vote_metrics(per_prompt: FloatArray, ks: Sequence[int], bounds: tuple[float, float],
                 confidence: float = 0.95) -> dict[str, float]:
    """Keys ``vote@k``, ``vote@k/lo``, ``vote@k/hi`` from per-prompt values
    (a ``(len(ks), M)`` array) of the vote without replacement.

    Examples:
        >>> out = vote_metrics(np.array([[1.0, 0.0, 1.0]]), [3], (0.0, 1.0))
        >>> round(out["vote@3"], 6), out["vote@3/hi"]
        (0.666667, 1.0)
    """
    z = z_value(confidence)
    out: dict[str, float] = {}
    for j, k in enumerate(ks):
        mean, lo, hi = interval(per_prompt[j], z, bounds)
        out[f"vote@{k}"], out[f"vote@{k}/lo"], out[f"vote@{k}/hi"] = mean, lo, hi
    return out


def unbiased_metrics(
    n: IntArray, c: IntArray, ks: Sequence[int] | None = None, confidence: float = 0.95
) -> dict[str, float]:
    """Keys ``pass@k``, ``pass@k/lo``, ``pass@k/hi`` (and ``pass_hat@``,
    ``strict_maj@``) for the prompts with ``n`` responses, ``c`` correct.

    Examples:
        >>> out = unbiased_metrics(np.array([4, 4]), np.array([1, 4]), ks=[2])
        >>> out["pass@2"], out["pass_hat@2"], out["strict_maj@2"]
        (0.75, 0.5, 0.5)
    """
    ks = budgets(int(n.min())) if ks is None else [int(k) for k in ks]
    z = z_value(confidence)
    out: dict[str, float] = {}
    for prefix, family in FAMILIES.items():
        table = curve(n, c, family, ks, mean=False)  # type: ignore[arg-type]
        for j, k in enumerate(ks):
            mean, lo, hi = interval(table[:, j], z)
            out[f"{prefix}{k}"] = mean
            out[f"{prefix}{k}/lo"] = lo
            out[f"{prefix}{k}/hi"] = hi
    return out
