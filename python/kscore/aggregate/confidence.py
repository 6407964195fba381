"""Confidence signals: scorio.aggregate's per-trace scores from token log-probabilities.

Same names, keywords, defaults, returns and messages as scorio 0.2.3
(``scorio/aggregate/confidence.py``; papers cited there and in docs/aggregate.md),
for one trace; with ``batch=True`` (or ``lengths=``) for many traces at once: a
sequence of traces, or a padded array whose last axis (last two for top-k) are
the tokens, with ``lengths`` giving each trace's token count. Many traces give an
array of the traces' shape (a questions x samples padded array gives a questions
x samples score matrix, the ``scores`` the selection rules take). The core
computes every trace in one pass (rust/kscore-core/src/aggregate/confidence.rs):
sums in numpy's pairwise order, so results without ``exp``/``log`` are scorio's to
the bit and the others agree to about an ulp (docs/aggregate.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import FloatArray
from .._kscore import token_signal, trace_signal
from ._tokens import (
    LOGPROB_MESSAGES,
    TOPK_MESSAGES,
    Traces,
    many_topk,
    many_values,
    one_topk,
    one_values,
    raise_for,
    shaped,
)

__all__ = [
    "mean_logprob",
    "sequence_logprob",
    "perplexity",
    "self_certainty",
    "token_confidence",
    "deepconf_confidence",
    "token_entropy",
    "varentropy",
    "max_softmax_probability",
    "logprob_margin",
    "picsar",
]

_REDUCERS = ("mean", "min", "max")
_MODES = ("mean", "tail", "bottom_group", "lowest_group")
#: Window and tail lengths past any trace's length (clamped to it in the core).
_LONG = 2**62


def logprob_traces(logprobs: Any, batch: bool, lengths: Any) -> Traces:
    """One trace of chosen-token log-probabilities, or many."""
    if batch or lengths is not None:
        return many_values(logprobs, lengths, "logprobs")
    return one_values(logprobs, LOGPROB_MESSAGES)


def topk_traces(topk_logprobs: Any, batch: bool, lengths: Any) -> Traces:
    """One trace of top-k rows, or many."""
    if batch or lengths is not None:
        return many_topk(topk_logprobs, lengths)
    return one_topk(topk_logprobs)


def signal(tr: Traces, stat: str, reduce: str, messages: dict[int, str], **options: Any) -> FloatArray:
    """The core's one number per trace; scorio's message for the first bad trace."""
    values, status = trace_signal(tr.values, tr.k, tr.bounds, tr.starts, tr.lens, stat, reduce, **options)
    raise_for(status, tr, messages, options.get("answer_start"))
    return values


def _reduced(topk_logprobs: Any, stat: str, aggregate: Any, batch: bool, lengths: Any) -> Any:
    tr = topk_traces(topk_logprobs, batch, lengths)
    if aggregate not in _REDUCERS:
        raise ValueError(f"aggregate must be one of {_REDUCERS}; got {aggregate!r}.")
    return shaped(signal(tr, stat, str(aggregate), TOPK_MESSAGES), tr)


def mean_logprob(logprobs: Any, *, batch: bool = False, lengths: Any = None) -> Any:
    """Mean chosen-token log-probability (Meena's sample-and-rank; Adiwardana et
    al., 2020; Wang et al., 2023); higher is more confident."""
    tr = logprob_traces(logprobs, batch, lengths)
    return shaped(signal(tr, "value", "mean", LOGPROB_MESSAGES), tr)


def sequence_logprob(logprobs: Any, *, batch: bool = False, lengths: Any = None) -> Any:
    """Summed chosen-token log-probability (Wang et al., 2023)."""
    tr = logprob_traces(logprobs, batch, lengths)
    return shaped(signal(tr, "value", "sum", LOGPROB_MESSAGES), tr)


def perplexity(logprobs: Any, *, batch: bool = False, lengths: Any = None) -> Any:
    """``exp(-mean_logprob)``; lower is more confident. Past ``math.exp``'s range
    it raises scorio's ``OverflowError``."""
    tr = logprob_traces(logprobs, batch, lengths)
    values = signal(tr, "value", "perplexity", LOGPROB_MESSAGES)
    over = np.flatnonzero(np.isinf(values))
    if over.size:
        raise OverflowError("math range error" if tr.shape is None else f"{tr.label(int(over[0]))}: math range error")
    return shaped(values, tr)


def picsar(
    logprobs: Any,
    *,
    answer_start: Any = None,
    normalize_reasoning: bool = False,
    batch: bool = False,
    lengths: Any = None,
) -> Any:
    """Reasoning plus answer log-likelihood (PiCSAR; Leang et al., 2026); the
    reasoning part divided by its length with ``normalize_reasoning``. Many
    traces take one ``answer_start`` for all or one per trace."""
    tr = logprob_traces(logprobs, batch, lengths)
    if answer_start is None:
        return shaped(signal(tr, "value", "sum", LOGPROB_MESSAGES), tr)
    if tr.shape is None:
        size = int(tr.lens[0])
        if not 0 <= answer_start <= size:
            raise ValueError(f"answer_start must be in [0, {size}]; got {answer_start}.")
        np.empty(0)[:answer_start]  # scorio slices with it: the same TypeError for a non-index
        starts = np.array([int(answer_start)], dtype=np.int64)
    else:
        a = np.asarray(answer_start)
        if a.dtype.kind not in "iub":
            raise TypeError(f"answer_start must be an integer or integers; got an array of {a.dtype}.")
        starts = np.ascontiguousarray(np.broadcast_to(a, tr.shape), dtype=np.int64).reshape(-1)
    values = signal(
        tr,
        "value",
        "picsar",
        LOGPROB_MESSAGES,
        answer_start=starts,
        normalize=bool(normalize_reasoning),
    )
    return shaped(values, tr)


def self_certainty(topk_logprobs: Any, *, aggregate: str = "mean", batch: bool = False, lengths: Any = None) -> Any:
    """KL from uniform to the renormalised top-k law, reduced over the trace
    (Kang et al., 2025); higher is more confident."""
    return _reduced(topk_logprobs, "self_certainty", aggregate, batch, lengths)


def token_entropy(topk_logprobs: Any, *, aggregate: str = "mean", batch: bool = False, lengths: Any = None) -> Any:
    """Entropy (nats) of the renormalised top-k law, reduced over the trace
    (Malinin & Gales, 2021); lower is more confident."""
    return _reduced(topk_logprobs, "entropy", aggregate, batch, lengths)


def varentropy(topk_logprobs: Any, *, aggregate: str = "mean", batch: bool = False, lengths: Any = None) -> Any:
    """Variance of the surprisal under the renormalised top-k law (entropix, 2024)."""
    return _reduced(topk_logprobs, "varentropy", aggregate, batch, lengths)


def max_softmax_probability(
    topk_logprobs: Any, *, aggregate: str = "mean", batch: bool = False, lengths: Any = None
) -> Any:
    """Top-1 probability, reduced over the trace (Hendrycks & Gimpel, 2017)."""
    return _reduced(topk_logprobs, "max_prob", aggregate, batch, lengths)


def logprob_margin(
    topk_logprobs: Any,
    *,
    use_prob: bool = False,
    aggregate: str = "mean",
    batch: bool = False,
    lengths: Any = None,
) -> Any:
    """Top-1 minus top-2 (log-probability, or probability with ``use_prob``),
    reduced over the trace (Scheffer et al., 2001); 0 at a one-candidate position."""
    return _reduced(topk_logprobs, "prob_margin" if use_prob else "margin", aggregate, batch, lengths)


def token_confidence(topk_logprobs: Any, *, batch: bool = False, lengths: Any = None) -> Any:
    """DeepConf's per-token confidence ``-mean(top-k log-probabilities)`` (Fu et al.,
    2025): a ``(T,)`` array; many traces give a list of them (a sequence in), or
    a padded array of the input's leading shape + ``(T,)``, NaN past each length
    (a padded array in)."""
    tr = topk_traces(topk_logprobs, batch, lengths)
    values, status = token_signal(tr.values, tr.k, tr.bounds, tr.starts, tr.lens, "confidence")
    raise_for(status, tr, TOPK_MESSAGES)
    if tr.shape is None:
        return values
    if isinstance(topk_logprobs, np.ndarray) and topk_logprobs.dtype != object or lengths is not None:
        width = int(np.asarray(topk_logprobs).shape[-2]) if tr.count else 0
        out = np.full((tr.count, width), np.nan)
        mask = np.arange(width)[None, :] < tr.lens[:, None]
        out[mask] = values
        return out.reshape(*tr.shape, width)
    return np.split(values, np.cumsum(tr.lens)[:-1])


def window_of(window: Any) -> int:
    """A group window as scorio's ``min(int(window), T)``: positive, else its message
    (``window`` shown as given)."""
    w = int(window)
    if w <= 0:
        raise ValueError(f"window must be positive; got {window}.")
    return min(w, _LONG)


def deepconf_confidence(
    topk_logprobs: Any,
    *,
    mode: str = "mean",
    window: int = 2048,
    tail_tokens: int = 2048,
    bottom_quantile: float = 0.10,
    batch: bool = False,
    lengths: Any = None,
) -> Any:
    """DeepConf trace confidence (Fu et al., 2025): the mean token confidence, the
    mean of the last ``tail_tokens``, the mean of the lowest ``bottom_quantile`` of
    the sliding-window (``window``) means, or the lowest window mean."""
    tr = topk_traces(topk_logprobs, batch, lengths)
    if mode == "mean":
        values = signal(tr, "confidence", "mean", TOPK_MESSAGES)
    elif mode == "tail":
        tail = min(max(int(tail_tokens), 1), _LONG)
        values = signal(tr, "confidence", "tail", TOPK_MESSAGES, tail=tail)
    elif mode in ("lowest_group", "bottom_group"):
        w = window_of(window)
        if mode == "lowest_group":
            values = signal(tr, "confidence", "lowest_group", TOPK_MESSAGES, window=w)
        else:
            if not 0.0 < bottom_quantile <= 1.0:
                raise ValueError(f"bottom_quantile must be in (0, 1]; got {bottom_quantile}.")
            values = signal(
                tr, "confidence", "bottom_group", TOPK_MESSAGES, window=w, quantile=float(bottom_quantile)
            )
    else:
        raise ValueError(f"mode must be 'mean', 'tail', 'bottom_group', or 'lowest_group'; got {mode!r}.")
    return shaped(values, tr)
