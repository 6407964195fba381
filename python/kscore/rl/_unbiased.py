"""pass@k, pass^k and maj@k without replacement, with intervals over prompts.

For a field whose values are all 0 or 1 (``acc``), each prompt is a count
``(n, c)`` and kscore.counts gives the unbiased per-prompt estimators for
every budget at once (:func:`kscore.counts.curve`): pass@k (at least one of k
draws without replacement correct), pass^k (all k correct) and maj@k (a
strict majority of k correct, scorio's ``maj_at_k``). The value is their
mean over the prompts with at least k responses (all of them when every
prompt has k or more); the interval is the leaderboard's default over those
prompts (kscore.leaderboard.stats.default_interval: a continuity-corrected
Wilson interval on the effective number of prompts, monotone, holding its
level near 0 and 1 and with few prompts), which covers the prompt-to-prompt
spread and the sampling noise within prompts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._arrays import FloatArray, IntArray
from ..counts import curve
from ..leaderboard.api import interval_of

#: Key prefix per kscore.counts curve family.
FAMILIES = {"pass@": "pass_at_k", "pass_hat@": "pass_hat_k", "strict_maj@": "maj_at_k"}


def budgets(smallest: int) -> list[int]:
    """k = 1, 2, 4, ... below ``smallest``, and ``smallest`` (the most
    responses of any prompt where the callers use it).

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


def interval(per_prompt: FloatArray, samples: float, confidence: float = 0.95,
             bounds: tuple[float, float] = (0.0, 1.0)) -> tuple[float, float, float]:
    """``(mean, lo, hi)`` over prompts: the leaderboard's default interval
    of the per-prompt values (``samples``: the responses behind them;
    ``bounds``: their range; the bounds themselves for a single prompt).

    Examples:
        >>> import numpy as np
        >>> [round(x, 4) for x in interval(np.array([0.0, 1.0, 1.0, 0.0]), 4)]
        [0.5, 0.0919, 0.9081]
    """
    mean = float(per_prompt.mean())
    lo, hi = interval_of(per_prompt, samples, confidence, bounds)
    return mean, lo, hi


def vote_metrics(per_prompt: FloatArray, ks: Sequence[int], bounds: tuple[float, float],
                 confidence: float = 0.95, samples: float | FloatArray | None = None) -> dict[str, float]:
    """Keys ``vote@k``, ``vote@k/lo``, ``vote@k/hi`` from per-prompt values
    (a ``(len(ks), M)`` array) of the vote without replacement.

    Examples:
        >>> import numpy as np
        >>> out = vote_metrics(np.array([[1.0, 0.0, 1.0]]), [3], (0.0, 1.0))
        >>> round(out["vote@3"], 6), round(out["vote@3/hi"], 4)
        (0.666667, 0.9823)
    """
    out: dict[str, float] = {}
    for j, k in enumerate(ks):
        row = per_prompt[j]
        kept = ~np.isnan(row)  # prompts with fewer than k responses have no vote@k
        if samples is None:
            behind = float(k * kept.sum())
        elif isinstance(samples, np.ndarray):  # responses per prompt: those of the kept ones
            behind = float(samples[kept].sum())
        else:
            behind = float(samples)
        mean, lo, hi = interval(row[kept], behind, confidence, bounds)
        out[f"vote@{k}"], out[f"vote@{k}/lo"], out[f"vote@{k}/hi"] = mean, lo, hi
    return out


def unbiased_metrics(
    n: IntArray, c: IntArray, ks: Sequence[int] | None = None, confidence: float = 0.95
) -> dict[str, float]:
    """Keys ``pass@k``, ``pass@k/lo``, ``pass@k/hi`` (and ``pass_hat@``,
    ``strict_maj@``) for the prompts with ``n`` responses, ``c`` correct:
    each k over the prompts with at least k responses (default ks: 1, 2,
    4, ... and the most responses of any prompt; the caller checks that
    every k is in 1..max(n)).

    Examples:
        >>> import numpy as np
        >>> out = unbiased_metrics(np.array([4, 4]), np.array([1, 4]), ks=[2])
        >>> out["pass@2"], out["pass_hat@2"], out["strict_maj@2"]
        (0.75, 0.5, 0.5)
        >>> ragged = unbiased_metrics(np.array([1, 4]), np.array([1, 2]))
        >>> ragged["pass@1"], ragged["pass@4"]  # pass@4: the second prompt only
        (0.75, 1.0)
    """
    ks = budgets(int(n.max())) if ks is None else [int(k) for k in ks]
    out: dict[str, float] = {}
    for prefix, family in FAMILIES.items():
        if int(n.min()) >= max(ks):  # every prompt has every k: one pass
            columns = list(curve(n, c, family, ks, mean=False).T)  # type: ignore[arg-type]
            behind = [float(n.sum())] * len(ks)
        else:
            columns, behind = [], []
            for k in ks:
                enough = n >= k
                columns.append(curve(n[enough], c[enough], family, [k], mean=False)[:, 0])  # type: ignore[arg-type]
                behind.append(float(n[enough].sum()))
        for k, column, responses in zip(ks, columns, behind):
            mean, lo, hi = interval(column, responses, confidence)
            out[f"{prefix}{k}"] = mean
            out[f"{prefix}{k}/lo"] = lo
            out[f"{prefix}{k}/hi"] = hi
    return out
