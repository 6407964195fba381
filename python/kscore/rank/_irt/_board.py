"""A response tensor as the count matrix the fits read, and the checks and
symmetries scorio applies to it (``_to_binomial_counts``, the
``_require_*`` refusals, the score averaging over equivalent models)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray
from .._validate import response_tensor


def counts(R: Any) -> tuple[npt.NDArray[np.unsignedinteger[Any]], int]:  # noqa: N803
    """``(k, N)``: correct counts per model and question as a C-contiguous
    uint8 (``N < 256``) or uint32 matrix, and the trials per cell. ``R`` is
    checked as scorio's ``validate_input`` does; a binary ``(L, M)`` or
    ``(L, M, 1)`` matrix of one-byte dtype is used in place (no copy)."""
    tensor = response_tensor(R)
    L, M, N = tensor.shape
    small = N < 256
    if N == 1 and tensor.dtype.itemsize == 1 and tensor.dtype.kind in "biu":
        k = tensor.reshape(L, M)
        return np.ascontiguousarray(k).view(np.uint8), 1
    dtype = np.uint8 if small else np.uint32
    # One trial at a time: no (L, M) temporary wider than the counts.
    k = tensor[:, :, 0].astype(dtype)
    for trial in range(1, N):
        np.add(k, tensor[:, :, trial], out=k, casting="unsafe")
    return np.ascontiguousarray(k), int(N)


def totals(k: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Row (model) and column (question) totals."""
    return k.sum(axis=1, dtype=np.int64), k.sum(axis=0, dtype=np.int64)


def require_finite_person(rows: npt.NDArray[np.int64], M: int, N: int, name: str) -> None:  # noqa: N803
    """scorio's refusal of an all-correct or all-wrong model row."""
    if np.any((rows == 0) | (rows == M * N)):
        raise ValueError(
            f"{name} has no finite ability MLE for an all-correct or all-wrong "
            "model row; use the corresponding MAP or MML estimator."
        )


def require_finite_items(cols: npt.NDArray[np.int64], L: int, N: int, name: str) -> None:  # noqa: N803
    """scorio's refusal of an all-correct or all-wrong question."""
    if np.any((cols == 0) | (cols == L * N)):
        raise ValueError(
            f"{name} has no finite item-parameter estimate for an all-correct "
            "or all-wrong question; remove that non-informative question or "
            "use rasch_mml, which handles boundary items explicitly."
        )


def require_no_separation(k: npt.NDArray[Any], N: int, name: str) -> None:  # noqa: N803
    """scorio's refusal of complete or quasi-separation: the response graph
    must be strongly connected (the condition its linear program tests)."""
    if not _kscore.irt_connected(k, N):
        raise ValueError(
            f"{name} has no finite joint location estimate because the binary "
            "response pattern is completely or quasi-separated; use a MAP or "
            "MML estimator with proper regularization."
        )


def average_by(scores: FloatArray, keys: npt.NDArray[Any]) -> FloatArray:
    """Scores averaged over the models with equal ``keys`` rows (scorio's
    ``average_equivalent_scores``)."""
    values = np.asarray(scores, dtype=float)
    rows = np.asarray(keys).reshape(values.size, -1)
    _, groups = np.unique(rows, axis=0, return_inverse=True)
    return _group_means(values, groups.reshape(-1))


def _group_means(values: FloatArray, groups: npt.NDArray[np.intp]) -> FloatArray:
    result = values.copy()
    sizes = np.bincount(groups)
    for group in np.flatnonzero(sizes > 1):
        members = groups == group
        result[members] = float(np.mean(values[members]))
    return result


def orbits(k: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Each model's orbit under simultaneous model/question relabellings
    that keep ``k`` (the smallest member's index)."""
    return np.asarray(_kscore.irt_orbits(k))


def average_over_orbits(scores: FloatArray, orbit: npt.NDArray[np.int64]) -> FloatArray:
    """Scores averaged over each orbit (scorio's
    ``average_event_exchangeable_scores``)."""
    return _group_means(np.asarray(scores, dtype=float), orbit)
