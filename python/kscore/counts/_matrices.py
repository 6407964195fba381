"""Outcome matrices in: per-question counts of a binary matrix (packed or
not), and scores per question or per model (3-D arrays, lists of matrices)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _kscore
from .._arrays import FloatArray, IntArray
from .._inputs import as_matrix
from ._curve import _budgets, _family
from ._intake import _budget, _credit, _fits, _tau
from ._types import Metric, _How, _Where


def _is_model_list(R: object) -> bool:
    return isinstance(R, (list, tuple)) and len(R) > 0 and all(isinstance(x, np.ndarray) for x in R)


def _packed(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    if array.dtype != np.uint8:
        raise ValueError(
            f"R must be a uint8 array from numpy.packbits when packed_n is given; got dtype {array.dtype}"
        )
    return array


def _matrix(R: object, packed_n: int | None) -> npt.NDArray[Any]:
    if packed_n is None:
        return as_matrix(R)
    array = np.asarray(R)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2:
        raise ValueError(f"R must be a 1D or 2D array; got {array.ndim} dimensions.")
    return _packed(array)


def _packed_n(packed_n: object) -> int | None:
    if packed_n is None:
        return None
    return _budget(packed_n, name="packed_n")


def _banks(R: object, packed_n: int | None) -> tuple[_kscore.CountStates, str, tuple[int, ...]]:
    """States of one or several banks; the layout ("single", "stack",
    "list") and, for a stack, its (L, M) shape."""
    if _is_model_list(R):
        assert isinstance(R, (list, tuple))
        mats = [_matrix(x, packed_n) for x in R]
        return _kscore.CountStates.from_matrices(mats, packed_n), "list", (len(mats),)
    array = np.asarray(R)
    if array.ndim == 3:
        L, M, N = array.shape
        if L == 0 or M == 0:
            raise ValueError(f"R must hold at least one model and one question; got shape {array.shape}")
        flat = array.reshape(L * M, N)
        mat = _packed(flat) if packed_n is not None else as_matrix(flat)
        return _kscore.CountStates.from_matrix(mat, packed_n, L), "stack", (L, M)
    return _kscore.CountStates.from_matrix(_matrix(array, packed_n), packed_n, 1), "single", ()


def _matrix_where(layout: str, states: _kscore.CountStates) -> _Where:
    offsets = states.offsets

    def where(i: int, ni: int) -> str:
        if layout == "list":
            j = int(np.searchsorted(offsets, i, side="right")) - 1
            return f"the N = {ni} trials of models[{j}]"
        return f"the N = {ni} trials of R"

    return where


def _matrix_values(
    states: _kscore.CountStates,
    where: _Where,
    metric: str,
    k: object,
    tau: object,
    weights: object,
    how: _How,
) -> FloatArray:
    if metric == "avg_at_n":
        return states.direct("avg", 0, how)
    if metric == "cons_at_k":
        if k is None:
            return states.direct("cons", 0, how)
        budget = _budget(k)
        _fits(states, budget, where)
        return states.direct("cons", budget, how)
    if k is None:
        raise ValueError(f"{metric} needs a budget k")
    budget = _budget(k)
    _fits(states, budget, where)
    return states.evaluate(_credit(metric, budget, tau, weights), how)


def counts_of(R: npt.ArrayLike, *, packed_n: int | None = None) -> tuple[IntArray, IntArray]:
    r"""Per-question ``(n, c)`` of a binary outcome matrix (int64 arrays),
    the bridge from matrices to the count functions.

    Examples:
        >>> n, c = counts_of([[1, 0, 1], [0, 0, 0]])
        >>> n.tolist(), c.tolist()
        ([3, 3], [2, 0])
    """
    pn = _packed_n(packed_n)
    states = _kscore.CountStates.from_matrix(_matrix(R, pn), pn, 1)
    return states.question_counts()


def question_scores(
    R: object,
    metric: Metric,
    k: int | None = None,
    *,
    tau: float | None = None,
    weights: npt.ArrayLike | None = None,
    packed_n: int | None = None,
) -> FloatArray | list[FloatArray]:
    r"""A metric per question from outcome matrices: the :mod:`kscore.eval`
    metric without the final mean.

    Args:
        R: a binary ``M x N`` matrix (1-D: one question) -> shape ``(M,)``;
            an ``L x M x N`` array -> ``(L, M)``; a list or tuple of numpy
            matrices (shapes may differ) -> a list of ``(M_j,)`` arrays.
        metric: a metric name (:data:`Metric`).
        k: the budget (``1 <= k <= N``; ``None`` for ``avg_at_n``, and for
            ``cons_at_k`` meaning k = N).
        tau: for ``g_pass_at_k_tau``. weights: for ``threshold_spectrum_at_k``.
        packed_n: the true N of matrices packed with
            ``numpy.packbits(R, axis=-1)`` (uint8; padding bits must be 0).

    Examples:
        >>> question_scores([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], "pass_at_k", 2)
        array([0.9, 1. ])
    """
    states, layout, shape = _banks(R, _packed_n(packed_n))
    where = _matrix_where(layout, states)
    out = _matrix_values(states, where, metric, k, tau, weights, "question")
    if layout == "stack":
        return out.reshape(shape)
    if layout == "list":
        return list(np.split(out, states.offsets[1:-1]))
    return out


def model_scores(
    R: object,
    metric: Metric,
    k: int | Sequence[int] | None = None,
    *,
    tau: float | None = None,
    weights: npt.ArrayLike | None = None,
    packed_n: int | None = None,
) -> FloatArray:
    r"""One dataset value per model, all models at once.

    Args:
        R: an ``L x M x N`` array, or a list or tuple of numpy matrices of any
            shapes (one model each); a 2-D matrix is one model.
        metric, tau, weights, packed_n: as for :func:`question_scores`.
        k: a budget -> shape ``(L,)``; a sequence of budgets (a metric with a
            budget family) -> ``(L, K)``.

    Each model's value equals the :mod:`kscore.eval` function on that model.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[0, 1], [1, 1]], [[0, 0], [1, 0]]])
        >>> model_scores(R, "pass_at_k", 1)
        array([0.75, 0.25])
    """
    states, layout, _ = _banks(R, _packed_n(packed_n))
    where = _matrix_where(layout, states)
    if k is not None and not isinstance(k, (int, np.integer)):
        family = _family(metric)
        budgets = _budgets(k, states, where)
        t = float(_tau(tau)) if family == "g_pass_at_k_tau" else 0.0
        return states.curve(family, t, budgets, "segments")
    return _matrix_values(states, where, metric, k, tau, weights, "segments")


