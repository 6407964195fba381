r"""TailPass: posterior profiles of the probability that a fresh bank of k
attempts reaches each required score, and the finite-bank profile (scorio
0.2.3's ``tailpass`` and ``tailpass_empirical``; docs/kernels.md, K16).

Binary rubrics (two distinct scores) run in the Rust core; rubrics with
three or more scores enumerate count compositions with numpy, as scorio.
Bank scores are the exact rational ``sum_c n_c s_c / k`` rounded once, so
each threshold is met exactly by the banks that reach it (scorio rounds
twice and misplaces some thresholds for k >= 2055).
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._inputs import finite_positive, integral_scalar, real_vector, validate_finite_k, validate_latent_k
from ..._interval import normal_ci, z_value
from .._categorical import CategoricalBank, prepare_bank
from ..tailpass_weights import _validate_weights, uniform_weights
from . import grid

RNG = int | np.random.Generator | None
Summary = tuple[float, float, float, float] | tuple[FloatArray, FloatArray, FloatArray, FloatArray]

#: Draw sets up to this many stored probabilities (8 bytes each) are kept in
#: memory; larger ones are replayed from the generator's saved state.
EAGER_DRAW_VALUES = 32_000_000
#: Probabilities generated per block of questions.
BLOCK_VALUES = 2_000_000
#: Gamma variates per numpy call when binary draws stream into profiles.
STREAM_VALUES = 1 << 18
#: Binary exact covariance: the largest (k + 1) * T and T * T (8 bytes each).
MAX_BINARY_COVARIANCE_CELLS = 125_000_000


def _readonly(values: Any) -> FloatArray:
    array = np.array(values, dtype=np.float64, order="C", copy=True)
    array.setflags(write=False)
    return array


def _unit_interval(value: Any, name: str) -> float:
    array = real_vector(value, name=name)
    if array.ndim != 0 or not 0.0 <= float(array) <= 1.0:
        raise ValueError(f"{name} must be a scalar in [0, 1]")
    return float(array)


def _thresholds(k: int, thresholds: Any) -> FloatArray:
    if thresholds is None:
        if k > grid.MAX_COUNT_STATES:
            raise ValueError("Default threshold grid is too large; supply explicit thresholds")
        return _readonly(np.arange(1, k + 1, dtype=float) / k)
    values = real_vector(thresholds, name="thresholds")
    if values.ndim != 1 or values.size == 0 or np.any((values < 0) | (values > 1)) or np.any(np.diff(values) <= 0):
        raise ValueError("thresholds must be a non-empty, strictly increasing vector in [0, 1]")
    return _readonly(values)


def _counts(counts: _kscore.CategoryCounts | None, rows: int, categories: int) -> IntArray:
    if counts is None:
        return np.zeros((rows, categories), dtype=np.int64)
    return counts.to_array().astype(np.int64)


def _grouping(weights: FloatArray) -> tuple[FloatArray, IntArray]:
    scores, inverse = np.unique(weights, return_inverse=True)
    return np.asarray(scores, dtype=float), np.asarray(inverse, dtype=np.int64).ravel()


def _group(values: npt.NDArray[Any], inverse: IntArray, size: int) -> npt.NDArray[Any]:
    if len(inverse) == size and np.array_equal(inverse, np.arange(size)):
        return values
    out = np.zeros((values.shape[0], size), dtype=values.dtype)
    for category, group in enumerate(inverse):
        out[:, group] += values[:, category]
    return out


def _check_rubric(bank: CategoricalBank) -> None:
    if np.any((bank.weights < 0) | (bank.weights > 1)):
        raise ValueError("TailPass rubric scores w must lie in [0, 1]")


def tailpass(
    R: Any,
    k: int,
    w: Any = None,
    R0: Any = None,
    *,
    eta: float = 1.0,
    prior: Any = 1.0,
    thresholds: Any = None,
) -> TailPassProfile:
    r"""Prepare a reusable posterior TailPass profile.

    Each question :math:`\alpha` has a Dirichlet posterior over its distinct
    rubric scores :math:`s_1 < \dots < s_L`, with concentrations
    :math:`\theta_{\alpha c} = \mathrm{prior}_{\alpha c} + n_{\alpha c} +
    \eta\, n^0_{\alpha c}` (equal scores merged). For a fresh bank of k
    attempts with category counts :math:`\mathbf n` and bank score
    :math:`b(\mathbf n) = \frac1k \sum_c n_c s_c`, the profile is

    .. math::

        \mathrm{TP}_t = \frac1M \sum_\alpha
            P\big(b(\mathbf n_\alpha) \ge \tau_t \mid \mathrm{data}\big),
        \qquad \tau_t = t/k \text{ by default},

    with exact posterior moments, scalar utilities and shared posterior
    draws on the returned :class:`TailPassProfile`. ``b`` is the exact
    rational rounded once to float64 (for the default grid: "at least t
    successes").

    Reference: Hariri, Hinczewski, Ayday, and Chaudhary (2026), *Success Has
    a Shape: TailPass@k for Repeated Sampling Evaluation*, Sections 2-3.

    Args:
        R: Question-by-trial categorical outcomes; 1D means one question.
        k: Positive reporting budget, independent of the observed trial count.
        w: Category scores in [0, 1]. Defaults to [0, 1] for binary R.
        R0: Optional auxiliary outcomes for the same questions, as in ``bayes``.
        eta: Auxiliary-count transfer weight in [0, 1].
        prior: Positive Dirichlet concentrations: a scalar, a length-(C+1)
            vector, or an M-by-(C+1) matrix for categories 0, ..., C.
        thresholds: Required average rubric scores in [0, 1], increasing.
            Defaults to 1/k, ..., 1. Threshold zero is always met.

    Returns:
        TailPassProfile: exact moments, utilities and posterior sampling.

    Examples:
        >>> profile = tailpass([[0, 1, 1], [1, 1, 1]], k=4)
        >>> profile.mean.shape
        (4,)
        >>> mu, sigma = profile.moment(lam=1)
        >>> round(mu, 3)
        0.7
        >>> [round(float(x), 4) for x in profile.mean]
        [0.9571, 0.8429, 0.6429, 0.3571]
    """
    k = validate_latent_k(k)
    thresholds_ = _thresholds(k, thresholds)
    bank = prepare_bank(R, w, R0)
    _check_rubric(bank)
    eta = _unit_interval(eta, "eta")
    base = real_vector(prior, name="prior")
    if base.ndim > 2 or np.any(base <= 0):
        raise ValueError("prior must contain positive Dirichlet concentrations")
    rows, categories = bank.counts.rows, int(bank.weights.size)
    try:
        np.broadcast_shapes(base.shape, (rows, categories))
    except ValueError as exc:
        raise ValueError("prior must be a scalar, category vector, or question-by-category matrix") from exc
    scores, inverse = _grouping(bank.weights)
    counts = _group(_counts(bank.counts, rows, categories), inverse, len(scores))
    hint: tuple[FloatArray, IntArray, IntArray] | None = None
    if base.ndim <= 1 and (bank.prior is None or eta == 0.0):
        # One prior row for every question: states are the distinct count rows.
        row = np.broadcast_to(base, (categories,)).astype(float)
        prior_row = _group(row[None, :], inverse, len(scores))[0]
        if len(scores) == 2:
            successes = counts[:, 1]
            histogram = np.bincount(successes, minlength=bank.counts.trials + 1)
            present = np.flatnonzero(histogram)
            keys = np.column_stack((bank.counts.trials - present, present))
            lookup = np.zeros(len(histogram), dtype=np.int64)
            lookup[present] = np.arange(len(present))
            state_inverse, frequencies = lookup[successes], histogram[present]
        else:
            keys, state_inverse, frequencies = np.unique(counts, axis=0, return_inverse=True, return_counts=True)
            state_inverse = state_inverse.ravel()
        with np.errstate(over="ignore"):
            states = prior_row + keys
        if not np.all(np.isfinite(states.sum(axis=1))):
            raise ValueError("Posterior concentration totals must be finite")
        parameters = states[state_inverse]
        hint = (_readonly(states), state_inverse, frequencies.astype(np.int64))
    else:
        full = np.broadcast_to(base, (rows, categories))
        with np.errstate(over="ignore"):
            raw = full + _counts(bank.counts, rows, categories) + eta * _counts(bank.prior, rows, categories)
            totals = raw.sum(axis=1)
        if not np.all(np.isfinite(totals)):
            raise ValueError("Posterior concentration totals must be finite")
        parameters = _group(raw, inverse, len(scores))
    return TailPassProfile(k, thresholds_, _readonly(parameters), _readonly(scores), hint)


def _aggregate(
    means: FloatArray, variances: FloatArray, frequencies: IntArray, m: int
) -> tuple[float, float]:
    mean = float(frequencies @ means / m)
    variance = grid.nonnegative_variance(float(frequencies @ variances / m**2))
    return mean, math.sqrt(variance)


@dataclass(frozen=True, eq=False)
class TailPassProfile:
    r"""Posterior-backed profile constructed by :func:`tailpass`.

    ``mean`` and ``std`` have one entry per threshold; ``covariance``
    describes their joint uncertainty; ``question_mean`` keeps the question
    axis. Expensive arrays are computed on first access and stored
    read-only. Binary profiles have an exact covariance at any k (scorio
    refuses k >= 2000); its only limit is memory (see docs/kernels.md, K16).

    Examples:
        >>> profile = tailpass([[0, 1, 1], [1, 1, 1]], k=2)
        >>> [round(float(x), 4) for x in profile.std]
        [0.1016, 0.1657]
        >>> mu, sigma, lo, hi = profile.ci(method="normal")
        >>> [round(float(x), 4) for x in hi]
        [1.0, 0.8581]
    """

    k: int
    thresholds: FloatArray
    _parameters: FloatArray = field(repr=False)
    _scores: FloatArray = field(repr=False)
    _hint: tuple[FloatArray, IntArray, IntArray] | None = field(default=None, repr=False)

    @property
    def question_count(self) -> int:
        """Number of independently modeled questions."""
        return len(self._parameters)

    @property
    def _binary(self) -> bool:
        return len(self._scores) == 2

    @cached_property
    def _states(self) -> tuple[FloatArray, IntArray, IntArray]:
        if self._hint is not None:
            return self._hint
        states, inverse, counts = np.unique(self._parameters, axis=0, return_inverse=True, return_counts=True)
        return np.asarray(states, dtype=float), np.asarray(inverse).ravel(), np.asarray(counts, dtype=np.int64)

    @cached_property
    def _bank_scores(self) -> FloatArray:
        """Bank score of every grid point (binary: of j = 0..k successes)."""
        if self._binary:
            grid.check_grid(self.k, 2)
            return grid.binary_scores(self.k, self._scores)
        return grid.bank_scores(self._grid[0], self._scores, self.k)

    @cached_property
    def _cutoffs(self) -> npt.NDArray[np.uint64]:
        """Binary: the least success count meeting each threshold (k + 1: none)."""
        return np.searchsorted(self._bank_scores, self.thresholds, side="left").astype(np.uint64)

    @cached_property
    def _grid(self) -> tuple[IntArray, FloatArray]:
        counts = grid.count_grid(self.k, len(self._scores))
        return counts, grid.log_coefficients(counts)

    @cached_property
    def _tail_map(self) -> tuple[IntArray, IntArray]:
        scores = self._bank_scores
        order = np.argsort(scores, kind="stable")
        return order, np.searchsorted(scores[order], self.thresholds)

    def _tails(self, pmf: FloatArray) -> FloatArray:
        order, indices = self._tail_map
        tails = np.cumsum(pmf[..., order][..., ::-1], axis=-1)[..., ::-1]
        padded = np.concatenate((tails, np.zeros((*tails.shape[:-1], 1))), axis=-1)
        return np.asarray(padded[..., indices], dtype=float)

    def _ab(self, states: FloatArray) -> tuple[FloatArray, FloatArray]:
        return np.ascontiguousarray(states[:, 1]), np.ascontiguousarray(states[:, 0])

    @cached_property
    def _state_means(self) -> FloatArray:
        states = self._states[0]
        if self._binary:
            a, b = self._ab(states)
            return np.asarray(_kscore.tailpass_state_tails(self.k, a, b, self._cutoffs))
        counts, log_coeff = self._grid
        return np.array([self._tails(grid.predictive_probabilities(counts, alpha, log_coeff)) for alpha in states])

    @cached_property
    def question_mean(self) -> FloatArray:
        """Exact per-question mean profiles, shape (M, number of thresholds)."""
        return _readonly(self._state_means[self._states[1]])

    @cached_property
    def mean(self) -> FloatArray:
        """Exact posterior mean of the dataset profile."""
        return _readonly(self._states[2] @ self._state_means / self.question_count)

    @cached_property
    def covariance(self) -> FloatArray:
        """Exact joint posterior covariance of the dataset profile.

        Independent question covariances are summed and divided by M squared.
        """
        t = len(self.thresholds)
        states, _, frequencies = self._states
        if self._binary:
            cells = max(self.k + 1, t) * t
            if cells > MAX_BINARY_COVARIANCE_CELLS:
                raise ValueError("Exact covariance is too large; use shared posterior draws")
            a, b = self._ab(states)
            result = np.array(
                _kscore.tailpass_covariance(self.k, a, b, frequencies.astype(float), self._cutoffs)
            )
        else:
            counts, log_coeff = self._grid
            if max(len(counts), t) ** 2 > grid.MAX_COVARIANCE_PAIRS:
                raise ValueError("Exact covariance is too large; use shared posterior draws")
            order, indices = self._tail_map
            events = (self._bank_scores[:, None] >= self.thresholds).astype(float)
            result = np.zeros((t, t))
            for alpha, frequency in zip(states, frequencies, strict=True):
                result += frequency * grid.count_covariance(counts, alpha, events, log_coeff)
        result /= self.question_count**2
        for index in range(len(result)):
            result[index, index] = grid.nonnegative_variance(float(result[index, index]))
        return _readonly(result)

    @cached_property
    def std(self) -> FloatArray:
        """Exact marginal posterior standard deviations."""
        return _readonly(np.sqrt(np.diag(self.covariance)))

    def _payoff_moments(self, values: FloatArray) -> tuple[float, float]:
        states, _, frequencies = self._states
        if self._binary:
            a, b = self._ab(states)
            if np.all(values == values[0]):
                means, variances = np.full(len(a), float(values[0])), np.zeros(len(a))
            elif values[0] == 0.0 and np.all(values[1:] == 1.0):
                means, variances = _kscore.tailpass_endpoint(self.k, a, b, True)
            elif values[-1] == 1.0 and np.all(values[:-1] == 0.0):
                means, variances = _kscore.tailpass_endpoint(self.k, a, b, False)
            else:
                means, variances = _kscore.tailpass_payoff_moments(self.k, a, b, np.ascontiguousarray(values))
        else:
            counts, log_coeff = self._grid
            means = np.array([grid.predictive_probabilities(counts, s, log_coeff) @ values for s in states])
            variances = np.array(
                [grid.count_covariance(counts, s, values[:, None], log_coeff)[0, 0] for s in states]
            )
        return _aggregate(np.asarray(means), np.asarray(variances), frequencies, self.question_count)

    def linear(self, weights: Any) -> tuple[float, float]:
        r"""Exact mean/std of a convex combination of the reported thresholds,
        :math:`\sum_t w_t \mathrm{TP}_t`, including every cross-threshold
        covariance (evaluated as the payoff :math:`u(\mathbf n) = \sum_{t:
        \tau_t \le b(\mathbf n)} w_t`).

        Args:
            weights: One finite nonnegative weight per threshold, summing to one.
        """
        weights = _validate_weights(weights, len(self.thresholds))
        cumulative = np.r_[0.0, np.cumsum(weights)]
        payoff = cumulative[np.searchsorted(self.thresholds, self._bank_scores, side="right")]
        return self._payoff_moments(payoff)

    def moment(self, lam: float) -> tuple[float, float]:
        r"""Exact mean/std of :math:`E[\bar b^\lambda]`, the average future
        rubric score raised to ``lam``. ``lam = 1`` is Bayes@N's mean under
        matching priors; ``lam`` in (2, 4) has an enumeration-free path for
        rubrics with three or more scores and for k >= 20000.
        """
        lam = finite_positive(lam, name="lam")
        states, _, frequencies = self._states
        if lam == 1.0:
            totals = states.sum(axis=1)
            probabilities = states / totals[:, None]
            means = probabilities @ self._scores
            variances = np.sum(probabilities * (self._scores - means[:, None]) ** 2, axis=1) / (totals + 1)
            return _aggregate(means, variances, frequencies, self.question_count)
        if lam in (2.0, 4.0) and (not self._binary or self.k >= grid.MAX_COUNT_STATES):
            powers, coefficients = grid.moment_polynomial(self._scores, self.k, int(lam))
            moments = np.array([grid.polynomial_moments(powers, coefficients, s) for s in states])
            return _aggregate(moments[:, 0], moments[:, 1], frequencies, self.question_count)
        return self._payoff_moments(self._bank_scores**lam)

    def _endpoint(self, full_credit: bool) -> tuple[float, float]:
        mask = self._scores == 1 if full_credit else self._scores > 0
        if np.all(mask) or not np.any(mask):
            return float(np.all(mask)), 0.0
        states, _, frequencies = self._states
        a = np.ascontiguousarray(states[:, mask].sum(axis=1))
        b = np.ascontiguousarray(states[:, ~mask].sum(axis=1))
        means, variances = _kscore.tailpass_endpoint(self.k, a, b, not full_credit)
        return _aggregate(np.asarray(means), np.asarray(variances), frequencies, self.question_count)

    def discovery(self) -> tuple[float, float]:
        """Exact mean/std of positive bank credit (the moment limit at 0+)."""
        return self._endpoint(False)

    def stability(self) -> tuple[float, float]:
        """Exact mean/std of every attempt receiving full rubric credit 1."""
        return self._endpoint(True)

    def at_k(self, k: int, *, thresholds: Any = None) -> TailPassProfile:
        """Reuse the fitted posterior at another positive reporting budget."""
        k = validate_latent_k(k)
        return TailPassProfile(k, _thresholds(k, thresholds), self._parameters, self._scores, self._hint)

    def sample(self, n_draws: int = 4000, *, rng: RNG = None) -> TailPassDraws:
        """Draw independent question probabilities, shared across all utilities.

        The draws are numpy's, in scorio's order (one Dirichlet draw set per
        question), so a seed gives scorio's draws. Large draw sets are not
        stored: they are replayed from the generator's saved state.

        Args:
            n_draws: At least two posterior draws.
            rng: NumPy Generator, integer seed, or None.
        """
        n_draws = _draw_count(n_draws)
        generator = np.random.default_rng(rng)
        m, size = self._parameters.shape
        if n_draws * m * size <= EAGER_DRAW_VALUES:
            values = np.empty((n_draws, m, size))
            for start, stop, block in _draw_blocks(generator, self._parameters, n_draws):
                values[:, start:stop] = block
            values.setflags(write=False)
            return TailPassDraws(self, values)
        replay = _Replay(type(generator.bit_generator), dict(copy.deepcopy(generator.bit_generator.state)), n_draws)
        draws = TailPassDraws(self, None, replay)
        draws._consume(generator)
        return draws

    def ci(
        self,
        confidence: float = 0.95,
        *,
        method: Literal["mc", "normal"] = "mc",
        n_draws: int = 4000,
        rng: RNG = None,
    ) -> Summary:
        """Return profile (mean, std, lo, hi), one entry per threshold.

        ``mc`` uses shared draws and equal-tailed pointwise intervals (the
        draws of ``sample(n_draws, rng=rng)``; binary profiles stream them
        into the profile without storing them, docs/kernels.md K16);
        ``normal`` uses exact moments and clipped Gaussian intervals.
        """
        z = z_value(confidence)
        if method == "mc":
            if not self._binary:
                return self.sample(n_draws, rng=rng).summary(confidence=confidence)
            # Binary: stream the draws into the profile; nothing is stored.
            n_draws, cutoffs = _draw_count(n_draws), self._cutoffs
            total = _binary_profile_sum(np.random.default_rng(rng), self._parameters, n_draws, self.k, cutoffs)
            return _summary(total / self.question_count, confidence)
        if method != "normal":
            raise ValueError("method must be 'mc' or 'normal'")
        return (
            self.mean,
            self.std,
            np.clip(self.mean - z * self.std, 0, 1),
            np.clip(self.mean + z * self.std, 0, 1),
        )

    def linear_ci(
        self,
        weights: Any,
        confidence: float = 0.95,
        *,
        method: Literal["mc", "normal"] = "mc",
        n_draws: int = 4000,
        rng: RNG = None,
    ) -> Summary:
        """Linear-utility summary; interval methods follow :meth:`ci`."""
        weights = _validate_weights(weights, len(self.thresholds))
        z_value(confidence)
        if method == "normal":
            return normal_ci(*self.linear(weights), confidence, (0.0, 1.0))
        if method != "mc":
            raise ValueError("method must be 'mc' or 'normal'")
        draws = self.sample(n_draws, rng=rng)
        return draws.summary(draws.linear(weights), confidence=confidence)

    def moment_ci(
        self,
        lam: float,
        confidence: float = 0.95,
        *,
        method: Literal["mc", "normal"] = "mc",
        n_draws: int = 4000,
        rng: RNG = None,
    ) -> Summary:
        """Moment-utility summary; interval methods follow :meth:`ci`."""
        lam = finite_positive(lam, name="lam")
        z_value(confidence)
        if method == "normal":
            return normal_ci(*self.moment(lam), confidence, (0.0, 1.0))
        if method != "mc":
            raise ValueError("method must be 'mc' or 'normal'")
        draws = self.sample(n_draws, rng=rng)
        return draws.summary(draws.moment(lam), confidence=confidence)


def _gamma_runs(
    generator: np.random.Generator,
    parameters: FloatArray,
    n_draws: int,
    start: int,
    stop: int,
    scratch: Iterator[FloatArray],
) -> Iterator[tuple[int, int, FloatArray, bool]]:
    """Questions ``start..stop`` in scorio's stream order, as runs.

    numpy's ``dirichlet(alpha, size)`` draws ``standard_gamma(alpha_c)`` for
    c = 0..L-1 on each draw in turn and scales by ``1 / sum`` (unless
    ``max(alpha) < 0.1``, where it breaks sticks with beta draws); one
    ``standard_gamma`` call over consecutive questions' shapes consumes the
    generator identically, so it gives the same numbers. Yields ``(i, j,
    gammas, True)`` with raw variates of shape ``(j - i, n_draws, L)``
    (written into the next buffer from ``scratch``, so valid until that
    buffer comes round again), or ``(i, i + 1,
    probabilities, False)`` with numpy's ``dirichlet`` output ``(n_draws, L)``
    for a question with ``max(alpha) < 0.1``. The shapes are passed as a
    contiguous array: numpy draws a broadcast view's variates about 25%
    slower (docs/kernels.md, K16).
    """
    size = parameters.shape[1]
    small = parameters[start:stop].max(axis=1) < 0.1
    i = start
    while i < stop:
        if small[i - start]:
            yield i, i + 1, generator.dirichlet(parameters[i], size=n_draws), False
            i += 1
            continue
        j = i
        while j < stop and not small[j - start]:
            j += 1
        shapes = np.repeat(parameters[i:j], n_draws, axis=0)
        out = next(scratch)[: shapes.size].reshape(shapes.shape)
        generator.standard_gamma(shapes, out=out)
        yield i, j, out.reshape(j - i, n_draws, size), True
        i = j


def _draw_blocks(
    generator: np.random.Generator, parameters: FloatArray, n_draws: int
) -> Iterator[tuple[int, int, FloatArray]]:
    """Dirichlet draws in scorio's stream order (``_gamma_runs``), a block
    of questions at a time, shape ``(n_draws, q, L)``."""
    m, size = parameters.shape
    step = max(1, BLOCK_VALUES // max(1, n_draws * size))
    scratch = itertools.repeat(np.empty(min(m, step) * n_draws * size))
    for start in range(0, m, step):
        stop = min(m, start + step)
        out = np.empty((n_draws, stop - start, size))
        if size == 1:
            out.fill(1.0)
            yield start, stop, out
            continue
        for i, j, values, gamma in _gamma_runs(generator, parameters, n_draws, start, stop, scratch):
            if not gamma:
                out[:, i - start] = values
                continue
            acc = values[..., 0].copy()
            for c in range(1, size):
                acc += values[..., c]
            out[:, i - start : j - start] = (values * (1.0 / acc)[..., None]).transpose(1, 0, 2)
        yield start, stop, out


def _binary_profile_sum(
    generator: np.random.Generator, parameters: FloatArray, n_draws: int, k: int, cutoffs: npt.NDArray[np.uint64]
) -> FloatArray:
    """Binary draws streamed into their profiles: ``sum_q P(Bin(k, theta_dq)
    >= c_t)``, shape (n_draws, T), without storing the draws. The core forms
    each success probability from the two gamma variates as numpy's
    ``dirichlet`` does, bit for bit. Beyond one block of questions, numpy
    draws the next run while the core (on a helper thread, one core; both
    release the interpreter) adds the previous one, in two alternating
    buffers; a single block runs in turn on the calling thread."""
    m = len(parameters)
    total = np.zeros((n_draws, len(cutoffs)))
    step = max(1, STREAM_VALUES // (2 * n_draws))
    scratch = itertools.cycle([np.empty(min(m, step) * n_draws * 2) for _ in range(2 if m > step else 1)])
    if m <= step:
        # One run of questions: nothing to overlap; the core may split it.
        for _, _, values, gamma in _gamma_runs(generator, parameters, n_draws, 0, m, scratch):
            if gamma:
                _kscore.tailpass_add_gamma_tails(k, values, cutoffs, total, True)
            else:
                total += _kscore.tailpass_draw_tails(k, np.ascontiguousarray(values[:, 1:]), cutoffs)
        return total
    pending: Future[None] | None = None
    with ThreadPoolExecutor(1) as helper:
        for start in range(0, m, step):
            runs = _gamma_runs(generator, parameters, n_draws, start, min(m, start + step), scratch)
            for _, _, values, gamma in runs:
                if pending is not None:
                    pending.result()
                    pending = None
                if gamma:
                    # One thread for the core while numpy draws on the other.
                    pending = helper.submit(_kscore.tailpass_add_gamma_tails, k, values, cutoffs, total, False)
                else:
                    total += _kscore.tailpass_draw_tails(k, np.ascontiguousarray(values[:, 1:]), cutoffs)
        if pending is not None:
            pending.result()
    return total


def _draw_count(n_draws: Any) -> int:
    count = int(integral_scalar(n_draws, name="n_draws"))
    if count < 2:
        raise ValueError("n_draws must be at least two")
    return count


def _summary(samples: FloatArray, confidence: float) -> Summary:
    lo, hi = np.quantile(samples, [(1 - confidence) / 2, (1 + confidence) / 2], axis=0)
    result = (samples.mean(axis=0), samples.std(axis=0, ddof=1), lo, hi)
    if samples.ndim == 1:
        return (float(result[0]), float(result[1]), float(result[2]), float(result[3]))
    return result


@dataclass(frozen=True)
class _Replay:
    """How to regenerate a draw set that is not stored."""

    bit_generator: type[np.random.BitGenerator]
    state: dict[str, Any]
    n_draws: int

    def generator(self) -> np.random.Generator:
        bits = self.bit_generator()
        bits.state = copy.deepcopy(self.state)
        return np.random.Generator(bits)


@dataclass(frozen=True, eq=False)
class TailPassDraws:
    r"""Shared posterior draws created by :meth:`TailPassProfile.sample`.

    Utility methods return one scalar per draw; ``summary(values)`` gives
    the Monte Carlo mean, standard deviation and equal-tailed interval.
    Each draw :math:`d` carries question probabilities :math:`\theta_{d\alpha}`
    and the profile :math:`\frac1M\sum_\alpha P(b \ge \tau_t \mid
    \theta_{d\alpha})`.

    Examples:
        >>> draws = tailpass([[0, 1, 1], [1, 1, 1]], k=2).sample(1000, rng=0)
        >>> draws.profile.shape
        (1000, 2)
        >>> mean, std, lo, hi = draws.summary(draws.discovery())
        >>> round(mean, 2)
        0.86
    """

    _source: TailPassProfile = field(repr=False)
    _probabilities: FloatArray | None = field(repr=False)
    _replay: _Replay | None = field(default=None, repr=False)

    @property
    def _n_draws(self) -> int:
        if self._probabilities is not None:
            return len(self._probabilities)
        assert self._replay is not None
        return self._replay.n_draws

    def _blocks(self) -> Iterator[tuple[int, int, FloatArray]]:
        """Question blocks of the probabilities, shape (draws, q, L)."""
        if self._probabilities is not None:
            m = self._source.question_count
            n, size = self._probabilities.shape[0], self._probabilities.shape[2]
            step = max(1, BLOCK_VALUES // max(1, n * size))
            for start in range(0, m, step):
                stop = min(m, start + step)
                yield start, stop, self._probabilities[:, start:stop]
            return
        assert self._replay is not None
        yield from _draw_blocks(self._replay.generator(), self._source._parameters, self._replay.n_draws)

    def _consume(self, generator: np.random.Generator) -> None:
        """Advance ``generator`` past this draw set, keeping the profile on
        the way when the grid allows (what ``ci`` needs)."""
        source = self._source
        try:
            cutoffs = source._cutoffs if source._binary else None
        except ValueError:
            cutoffs = None
        if cutoffs is not None and len(cutoffs) > 0:
            total = _binary_profile_sum(generator, source._parameters, self._n_draws, source.k, cutoffs)
            self.__dict__["profile"] = _readonly(total / source.question_count)
            return
        for _ in _draw_blocks(generator, source._parameters, self._n_draws):
            pass

    def _binary_tails(self, block: FloatArray, cutoffs: npt.NDArray[np.uint64] | None = None) -> FloatArray:
        theta = np.ascontiguousarray(block[..., 1])
        return np.asarray(
            _kscore.tailpass_draw_tails(self._source.k, theta, self._source._cutoffs if cutoffs is None else cutoffs)
        )

    def _question_tails(self) -> Iterator[FloatArray]:
        """Per-question profiles on every draw, shape (draws, T), in order."""
        source = self._source
        for _, _, block in self._blocks():
            for q in range(block.shape[1]):
                if source._binary:
                    yield self._binary_tails(block[:, q : q + 1])
                else:
                    counts, log_coeff = source._grid
                    yield source._tails(grid.conditional_probabilities(counts, block[:, q], log_coeff))

    @cached_property
    def profile(self) -> FloatArray:
        """Dataset profile samples, shape (draws, thresholds)."""
        source = self._source
        values = np.zeros((self._n_draws, len(source.thresholds)))
        if source._binary:
            for _, _, block in self._blocks():
                values += self._binary_tails(block)
        else:
            for tails in self._question_tails():
                values += tails
        return _readonly(values / source.question_count)

    def linear(self, weights: Any) -> FloatArray:
        """Apply a convex combination to every shared profile draw."""
        weights = _validate_weights(weights, len(self._source.thresholds))
        return np.asarray(self.profile @ weights, dtype=float)

    def moment(self, lam: float) -> FloatArray:
        """Draws of the full-score moment utility, independent of the grid."""
        lam = finite_positive(lam, name="lam")
        source = self._source
        values = np.zeros(self._n_draws)
        if lam in (1.0, 2.0, 4.0):
            for _, _, block in self._blocks():
                values += grid.conditional_integer_moment(block, source._scores, source.k, int(lam)).sum(axis=1)
        elif source._binary:
            # E[u(X)] = u(0) + sum_j (u(j) - u(j-1)) P(X >= j) for the
            # nondecreasing payoff u = b**lam.
            payoff = source._bank_scores**lam
            steps = np.diff(payoff)
            every = np.arange(1, source.k + 1, dtype=np.uint64)
            for _, _, block in self._blocks():
                values += payoff[0] * block.shape[1] + self._binary_tails(block, every) @ steps
        else:
            payoff = source._bank_scores**lam
            counts, log_coeff = source._grid
            for _, _, block in self._blocks():
                for q in range(block.shape[1]):
                    values += grid.conditional_probabilities(counts, block[:, q], log_coeff) @ payoff
        return values / source.question_count

    def _apply(self, transform: Callable[[FloatArray], FloatArray], aggregation: str = "question") -> FloatArray:
        if aggregation == "profile":
            return transform(self.profile)
        if aggregation != "question":
            raise ValueError("aggregation must be 'question' or 'profile'")
        values = np.zeros(self._n_draws)
        for tails in self._question_tails():
            values += transform(tails)
        return values / self._source.question_count

    def power_mean(
        self,
        q: float,
        weights: Any = None,
        *,
        aggregation: Literal["question", "profile"] = "question",
    ) -> FloatArray:
        r"""Weighted power means :math:`(\sum_t w_t v_t^q)^{1/q}` of the
        profile, question-first by default (``aggregation="profile"``
        averages the questions first).

        Args:
            q: Positive power-mean exponent (distinct from moment utility lam).
            weights: Convex weights on the reported thresholds; default uniform.
            aggregation: Apply the transform per question or to the profile.
        """
        q = finite_positive(q, name="q")
        size = len(self._source.thresholds)
        weights = _validate_weights(uniform_weights(size) if weights is None else weights, size)

        def transform(values: FloatArray) -> FloatArray:
            if q == 1.0:
                return np.asarray(values @ weights, dtype=float)
            active = weights > 0
            selected = values[:, active]
            scale = selected.max(axis=1)
            normalized = np.divide(selected, scale[:, None], out=np.zeros_like(selected), where=scale[:, None] > 0)
            with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
                logs = q * np.log(normalized)
                delta = np.expm1(logs) @ weights[active]
                log_mean = grid.logsumexp(logs + np.log(weights[active]), axis=1)
                small = np.abs(delta) < 0.25
                log_mean[small] = np.log1p(delta[small])
                result = scale * np.exp(log_mean / q)
            return np.asarray(np.where(scale == 0, 0.0, result), dtype=float)

        return self._apply(transform, aggregation)

    def qrs(
        self,
        weights: Any = None,
        *,
        aggregation: Literal["question", "profile"] = "question",
    ) -> FloatArray:
        """Quadratic RMS spectrum draws (``power_mean(2.0, ...)``)."""
        return self.power_mean(2.0, weights, aggregation=aggregation)

    def rollout(self, m: int, weights: Any = None) -> FloatArray:
        r"""Common-threshold m-rollout utility :math:`\sum_t w_t v_t^m`, per
        question then averaged.

        Args:
            m: Integer number of independent k-attempt rollouts, at least two.
            weights: Convex threshold weights; default uniform.
        """
        m = integral_scalar(m, name="m")
        if m < 2:
            raise ValueError("m must be at least two")
        size = len(self._source.thresholds)
        weights = _validate_weights(uniform_weights(size) if weights is None else weights, size)
        return self._apply(lambda values: np.asarray(values**m @ weights, dtype=float))

    def harmonic(self, alpha: float = 0.5) -> FloatArray:
        r"""Question-first harmonic balance
        :math:`1 / (\alpha/\mathrm{disc} + (1-\alpha)/\mathrm{stab})` of
        discovery (positive bank credit) and stability (bank credit 1)."""
        alpha = _unit_interval(alpha, "alpha")
        source = self._source
        values = np.zeros(self._n_draws)
        for _, _, block in self._blocks():
            zero = np.clip(block[..., source._scores == 0].sum(axis=-1), 0, 1)
            one = np.clip(block[..., source._scores == 1].sum(axis=-1), 0, 1)
            with np.errstate(divide="ignore"):
                discovery = -np.expm1(source.k * np.log(zero))
            stability = one**source.k
            if alpha == 1:
                values += discovery.sum(axis=1)
            elif alpha == 0:
                values += stability.sum(axis=1)
            else:
                positive = (discovery > 0) & (stability > 0)
                part = np.zeros_like(discovery)
                with np.errstate(over="ignore"):
                    part[positive] = 1.0 / (alpha / discovery[positive] + (1 - alpha) / stability[positive])
                values += part.sum(axis=1)
        return values / source.question_count

    def discovery(self) -> FloatArray:
        """Shared draws of the probability of positive bank credit."""
        return self.harmonic(1.0)

    def stability(self) -> FloatArray:
        """Shared draws of the probability of full bank credit."""
        return self.harmonic(0.0)

    def shortfall(self, target: Any, weights: Any = None, *, epsilon: float = 0.01) -> FloatArray:
        r"""Question-first reference-profile shortfall (lower is better):
        :math:`\max_t g_t + \epsilon \sum_t g_t` with
        :math:`g_t = w_t \max(\mathrm{target}_t - v_t, 0)`.

        Args:
            target: Nonincreasing target profile in [0, 1].
            weights: Strictly positive weights, default all ones.
            epsilon: Positive multiplier for the total weighted shortfall.
        """
        size = len(self._source.thresholds)
        target = real_vector(target, name="target")
        if target.shape != (size,) or np.any((target < 0) | (target > 1)) or np.any(np.diff(target) > 0):
            raise ValueError("target must be a nonincreasing [0, 1] vector matching thresholds")
        weights = real_vector(np.ones(size) if weights is None else weights, name="weights")
        if weights.shape != (size,) or np.any(weights <= 0):
            raise ValueError("shortfall weights must be positive and match thresholds")
        epsilon = finite_positive(epsilon, name="epsilon")

        def transform(values: FloatArray) -> FloatArray:
            gaps = np.maximum(target - values, 0.0) * weights
            return np.asarray(gaps.max(axis=1) + epsilon * gaps.sum(axis=1), dtype=float)

        return self._apply(transform)

    def at_k(self, k: int, *, thresholds: Any = None) -> TailPassDraws:
        """Reuse these same latent draws at a different reporting budget."""
        return TailPassDraws(self._source.at_k(k, thresholds=thresholds), self._probabilities, self._replay)

    def summary(self, values: Any = None, *, confidence: float = 0.95) -> Summary:
        """Monte Carlo mean/std (ddof 1) and equal-tailed interval along the
        draw axis; floats for 1-D values, arrays for 2-D (default: profile).

        Args:
            values: Utility draws, or None for the dataset profile draws.
            confidence: Posterior mass strictly between zero and one.
        """
        z_value(confidence)
        samples = self.profile if values is None else real_vector(values, name="values")
        if samples.ndim not in (1, 2) or samples.shape[0] != self._n_draws:
            raise ValueError("values must have this draw set's sample count on the first axis")
        return _summary(samples, confidence)


def tailpass_empirical(R: Any, k: int, w: Any = None, *, thresholds: Any = None) -> FloatArray:
    r"""Finite-bank TailPass profile: sample k of the observed N trials
    without replacement.

    For a question with grouped category counts :math:`\mathbf c`, the k-subset
    counts :math:`\mathbf n` are multivariate hypergeometric, and

    .. math::

        \mathrm{TP}_t = \frac1M \sum_\alpha P\big(b(\mathbf n_\alpha) \ge \tau_t\big),
        \qquad b(\mathbf n) = \frac1k \sum_c n_c s_c .

    Binary endpoints recover finite-bank Pass@k and unanimity. There is no
    posterior and no R0 or prior.

    Reference: Hariri, Hinczewski, Ayday, and Chaudhary (2026), *Success Has
    a Shape: TailPass@k for Repeated Sampling Evaluation*, Section 2.

    Args:
        R: Question-by-trial outcomes, or a 1D single-question bank.
        k: Integer satisfying 1 <= k <= N.
        w: Category scores in [0, 1]; defaults to binary [0, 1].
        thresholds: Increasing required bank scores, default 1/k, ..., 1.

    Returns:
        numpy.ndarray: read-only dataset profile, one entry per threshold.

    Examples:
        >>> tailpass_empirical([[0, 1, 1, 0], [1, 1, 1, 0]], k=2).round(4).tolist()
        [0.9167, 0.3333]
    """
    bank = prepare_bank(R, w)
    trials = bank.counts.trials
    k = validate_finite_k(trials, k)
    grid_ = _thresholds(k, thresholds)
    _check_rubric(bank)
    rows, categories = bank.counts.rows, int(bank.weights.size)
    scores, inverse = _grouping(bank.weights)
    observed = _group(_counts(bank.counts, rows, categories), inverse, len(scores))
    if len(scores) == 2:
        grid.check_grid(k, 2)
        histogram = np.bincount(observed[:, 1], minlength=trials + 1)
        present = np.flatnonzero(histogram)
        cutoffs = np.searchsorted(grid.binary_scores(k, scores), grid_, side="left").astype(np.uint64)
        total = _kscore.tailpass_empirical(
            trials, present.astype(np.uint64), histogram[present].astype(np.uint64), k, cutoffs
        )
        return _readonly(np.asarray(total) / rows)
    counts = grid.count_grid(k, len(scores))
    bank_scores = grid.bank_scores(counts, scores, k)
    order = np.argsort(bank_scores, kind="stable")
    cutoffs_ = np.searchsorted(bank_scores[order], grid_)
    states, frequencies = np.unique(observed, axis=0, return_counts=True)
    table = grid.log_factorials(trials)
    output = np.zeros(len(grid_))
    for state, frequency in zip(states, frequencies, strict=True):
        feasible = np.all(counts <= state, axis=1)
        logs = np.full(len(counts), -np.inf)
        c = counts[feasible]
        logs[feasible] = (table[state] - table[c] - table[state - c]).sum(axis=1)
        pmf = np.exp(logs - grid.logsumexp(logs[feasible]))
        pmf /= pmf.sum()
        tails = np.r_[np.cumsum(pmf[order][::-1])[::-1], 0.0]
        output += frequency * tails[cutoffs_]
    return _readonly(output / rows)
