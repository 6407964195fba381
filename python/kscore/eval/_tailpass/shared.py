"""What the parts of TailPass share: the fitted posterior at one reporting
budget (:class:`Posterior`, public attributes: the profile's exact moments,
the draws and their streaming all read it) and the small checks and
conversions of its inputs and outputs."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._inputs import integral_scalar, real_vector
from .._categorical import CategoricalBank
from . import grid

RNG = int | np.random.Generator | None
Summary = tuple[float, float, float, float] | tuple[FloatArray, FloatArray, FloatArray, FloatArray]


def readonly(values: Any) -> FloatArray:
    array = np.array(values, dtype=np.float64, order="C", copy=True)
    array.setflags(write=False)
    return array


def unit_interval(value: Any, name: str) -> float:
    array = real_vector(value, name=name)
    if array.ndim != 0 or not 0.0 <= float(array) <= 1.0:
        raise ValueError(f"{name} must be a scalar in [0, 1]")
    return float(array)


def thresholds_for(k: int, thresholds: Any) -> FloatArray:
    if thresholds is None:
        if k > grid.MAX_COUNT_STATES:
            raise ValueError("Default threshold grid is too large; supply explicit thresholds")
        return readonly(np.arange(1, k + 1, dtype=float) / k)
    values = real_vector(thresholds, name="thresholds")
    if values.ndim != 1 or values.size == 0 or np.any((values < 0) | (values > 1)) or np.any(np.diff(values) <= 0):
        raise ValueError("thresholds must be a non-empty, strictly increasing vector in [0, 1]")
    return readonly(values)


def category_counts(counts: _kscore.CategoryCounts | None, rows: int, categories: int) -> IntArray:
    if counts is None:
        return np.zeros((rows, categories), dtype=np.int64)
    return counts.to_array().astype(np.int64)


def grouping(weights: FloatArray) -> tuple[FloatArray, IntArray]:
    scores, inverse = np.unique(weights, return_inverse=True)
    return np.asarray(scores, dtype=float), np.asarray(inverse, dtype=np.int64).ravel()


def group(values: npt.NDArray[Any], inverse: IntArray, size: int) -> npt.NDArray[Any]:
    if len(inverse) == size and np.array_equal(inverse, np.arange(size)):
        return values
    out = np.zeros((values.shape[0], size), dtype=values.dtype)
    for category, group in enumerate(inverse):
        out[:, group] += values[:, category]
    return out


def check_rubric(bank: CategoricalBank) -> None:
    if np.any((bank.weights < 0) | (bank.weights > 1)):
        raise ValueError("TailPass rubric scores w must lie in [0, 1]")


def draw_count(n_draws: Any) -> int:
    count = int(integral_scalar(n_draws, name="n_draws"))
    if count < 2:
        raise ValueError("n_draws must be at least two")
    return count


def summary(samples: FloatArray, confidence: float) -> Summary:
    lo, hi = np.quantile(samples, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    result = (samples.mean(axis=0), samples.std(axis=0, ddof=1), lo, hi)
    if samples.ndim == 1:
        return (float(result[0]), float(result[1]), float(result[2]), float(result[3]))
    return result


@dataclass(frozen=True, eq=False)
class Posterior:
    """The Dirichlet posterior of every question, at a reporting budget.

    ``k`` and ``thresholds``: the budget and the required bank scores;
    ``parameters``: the questions' concentrations (M x L, equal scores
    merged); ``scores``: the L distinct rubric scores; ``hint``: the distinct
    parameter rows, each question's row and their frequencies, when the
    builder knows them. The grids every part needs are made on first use and
    kept (read-only)."""

    k: int
    thresholds: FloatArray
    parameters: FloatArray
    scores: FloatArray
    hint: tuple[FloatArray, IntArray, IntArray] | None = None

    @property
    def question_count(self) -> int:
        """Number of independently modeled questions."""
        return len(self.parameters)

    @property
    def binary(self) -> bool:
        """Two distinct scores: the Rust core's kernels, no count grid."""
        return len(self.scores) == 2

    def at(self, k: int, thresholds: FloatArray) -> Posterior:
        """The same posterior at another budget (its grids made anew)."""
        return Posterior(k, thresholds, self.parameters, self.scores, self.hint)

    @cached_property
    def states(self) -> tuple[FloatArray, IntArray, IntArray]:
        """The distinct parameter rows, each question's row, their frequencies."""
        if self.hint is not None:
            return self.hint
        states, inverse, counts = np.unique(self.parameters, axis=0, return_inverse=True, return_counts=True)
        return np.asarray(states, dtype=float), np.asarray(inverse).ravel(), np.asarray(counts, dtype=np.int64)

    @cached_property
    def bank_scores(self) -> FloatArray:
        """Bank score of every grid point (binary: of j = 0..k successes)."""
        if self.binary:
            grid.check_grid(self.k, 2)
            return grid.binary_scores(self.k, self.scores)
        return grid.bank_scores(self.grid[0], self.scores, self.k)

    @cached_property
    def cutoffs(self) -> npt.NDArray[np.uint64]:
        """Binary: the least success count meeting each threshold (k + 1: none)."""
        return np.searchsorted(self.bank_scores, self.thresholds, side="left").astype(np.uint64)

    @cached_property
    def grid(self) -> tuple[IntArray, FloatArray]:
        """The count compositions of k attempts and their log coefficients."""
        counts = grid.count_grid(self.k, len(self.scores))
        return counts, grid.log_coefficients(counts)

    @cached_property
    def tail_map(self) -> tuple[IntArray, IntArray]:
        """The grid's order by bank score, and where each threshold falls in it."""
        scores = self.bank_scores
        order = np.argsort(scores, kind="stable")
        return order, np.searchsorted(scores[order], self.thresholds)

    def tails(self, pmf: FloatArray) -> FloatArray:
        """``P(b >= tau_t)`` of probabilities ``pmf`` over the grid."""
        order, indices = self.tail_map
        tails = np.cumsum(pmf[..., order][..., ::-1], axis=-1)[..., ::-1]
        padded = np.concatenate((tails, np.zeros((*tails.shape[:-1], 1))), axis=-1)
        return np.asarray(padded[..., indices], dtype=float)
