"""DeepConf online: the warmup threshold and the token where a trace is cut.

scorio 0.2.3's ``deepconf_stop_threshold`` and ``deepconf_online_stop`` (Fu et al.,
2025; ``scorio/aggregate/online.py``): same keywords, defaults, returns and
messages for one trace (one warmup set); ``batch=True`` (or ``lengths=``) for
many at once. The sliding-window means and the scan run in the core with
scorio's cumulative sums (docs/aggregate.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._kscore import token_signal
from ._tokens import TOPK_MESSAGES, raise_for
from .confidence import signal, topk_traces

__all__ = ["deepconf_stop_threshold", "deepconf_online_stop"]


def deepconf_stop_threshold(warmup_confidences: Any, *, keep: float = 0.1, batch: bool = False) -> Any:
    """The ``1 - keep`` quantile of the warmup traces' confidences (numpy's linear
    quantile, as scorio). ``batch=True``: a ``(..., W)`` array or a sequence of
    warmup sets, one threshold per set."""
    if not 0.0 < keep <= 1.0:
        raise ValueError(f"keep must be in (0, 1]; got {keep}.")
    if not batch:
        c = np.asarray(warmup_confidences, dtype=float).reshape(-1)
        _check_warmup(c, "")
        return float(np.quantile(c, 1.0 - keep))
    if isinstance(warmup_confidences, np.ndarray) and warmup_confidences.dtype != object:
        a = np.asarray(warmup_confidences, dtype=float)
        if a.ndim < 1:
            raise ValueError("many warmup sets need a (..., W) array (the last axis: warmup traces).")
        if a.shape[-1] == 0:
            raise ValueError("need at least one warmup confidence.")
        bad = np.flatnonzero(~np.isfinite(a).all(axis=-1).reshape(-1))
        if bad.size:
            where = tuple(int(i) for i in np.unravel_index(int(bad[0]), a.shape[:-1]))
            raise ValueError(f"warmup set {where}: warmup_confidences must all be finite.")
        return np.quantile(a, 1.0 - keep, axis=-1)
    out = np.empty(len(warmup_confidences))
    for i, w in enumerate(warmup_confidences):
        c = np.asarray(w, dtype=float).reshape(-1)
        _check_warmup(c, f"warmup set {i}: ")
        out[i] = np.quantile(c, 1.0 - keep)
    return out


def _check_warmup(c: Any, where: str) -> None:
    if c.size == 0:
        raise ValueError(f"{where}need at least one warmup confidence.")
    if not np.all(np.isfinite(c)):
        raise ValueError(f"{where}warmup_confidences must all be finite.")


def deepconf_online_stop(
    topk_logprobs: Any,
    threshold: Any,
    *,
    window: int = 2048,
    batch: bool = False,
    lengths: Any = None,
) -> Any:
    """The 0-based token that ends the first sliding window (``window`` tokens,
    clamped to the trace) whose mean DeepConf confidence is below ``threshold``;
    ``None`` if none is. Many traces: an int64 array of the traces' shape, -1 for
    None; ``threshold`` one for all or one per trace."""
    tr = topk_traces(topk_logprobs, batch, lengths)
    if tr.shape is None:
        w = min(int(window), int(tr.lens[0]))
        if w <= 0:
            raise ValueError(f"window must be positive; got {w}.")
        if not isinstance(threshold, (int, float, np.integer, np.floating)):
            return _scan_in_numpy(tr, w, threshold)
        thresholds = np.array([float(threshold)])
    else:
        w = int(window)
        if w <= 0:
            raise ValueError(f"window must be positive; got {w}.")
        t = np.asarray(threshold, dtype=float)
        thresholds = np.ascontiguousarray(np.broadcast_to(t, tr.shape), dtype=np.float64).reshape(-1)
    values = signal(tr, "confidence", "stop", TOPK_MESSAGES, window=min(w, 2**62), thresholds=thresholds)
    cut = values.astype(np.int64)
    if tr.shape is None:
        return None if cut[0] < 0 else int(cut[0])
    return cut.reshape(tr.shape)


def _scan_in_numpy(tr: Any, w: int, threshold: Any) -> int | None:
    """scorio's own scan, for a threshold that is not a real number (numpy decides
    what ``<`` means, or raises)."""
    conf, status = token_signal(tr.values, tr.k, tr.bounds, tr.starts, tr.lens, "confidence")
    raise_for(status, tr, TOPK_MESSAGES)
    t = conf.size
    if w == t:
        groups = np.array([float(np.mean(conf))])
    else:
        csum = np.cumsum(np.insert(conf, 0, 0.0))
        groups = (csum[w:] - csum[:-w]) / w
    below = np.where(groups < threshold)[0]
    if below.size == 0:
        return None
    return int(below[0] + w - 1)
