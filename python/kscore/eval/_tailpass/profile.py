"""The posterior TailPass profile (:class:`TailPassProfile`, made by
``tailpass``, build.py): exact moments, covariance, scalar utilities and
intervals from the questions' posterior (shared.Posterior); shared draws by
:meth:`TailPassProfile.sample` (draws.py)."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._inputs import finite_positive, validate_latent_k
from ..._interval import normal_ci, z_value
from ..tailpass_weights import _validate_weights
from . import grid
from .draws import Replay, TailPassDraws
from .shared import RNG, Posterior, Summary, draw_count, readonly, summary, thresholds_for
from .stream import binary_profile_sum, draw_blocks

#: Draw sets up to this many stored probabilities (8 bytes each) are kept in
#: memory; larger ones are replayed from the generator's saved state.
EAGER_DRAW_VALUES = 32_000_000
#: Binary exact covariance: the largest (k + 1) * T and T * T (8 bytes each).
MAX_BINARY_COVARIANCE_CELLS = 125_000_000


def profile_of(posterior: Posterior) -> TailPassProfile:
    """The profile of a fitted posterior (its budget and thresholds shown)."""
    return TailPassProfile(posterior.k, posterior.thresholds, posterior)


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
    _posterior: Posterior = field(repr=False)

    @property
    def question_count(self) -> int:
        """Number of independently modeled questions."""
        return self._posterior.question_count

    def _ab(self, states: FloatArray) -> tuple[FloatArray, FloatArray]:
        return np.ascontiguousarray(states[:, 1]), np.ascontiguousarray(states[:, 0])

    @cached_property
    def _state_means(self) -> FloatArray:
        states = self._posterior.states[0]
        if self._posterior.binary:
            a, b = self._ab(states)
            return np.asarray(_kscore.tailpass_state_tails(self.k, a, b, self._posterior.cutoffs))
        counts, log_coeff = self._posterior.grid
        tails = self._posterior.tails
        return np.array([tails(grid.predictive_probabilities(counts, alpha, log_coeff)) for alpha in states])

    @cached_property
    def question_mean(self) -> FloatArray:
        """Exact per-question mean profiles, shape (M, number of thresholds)."""
        return readonly(self._state_means[self._posterior.states[1]])

    @cached_property
    def mean(self) -> FloatArray:
        """Exact posterior mean of the dataset profile."""
        return readonly(self._posterior.states[2] @ self._state_means / self.question_count)

    @cached_property
    def covariance(self) -> FloatArray:
        """Exact joint posterior covariance of the dataset profile.

        Independent question covariances are summed and divided by M squared.
        """
        t = len(self.thresholds)
        states, _, frequencies = self._posterior.states
        if self._posterior.binary:
            cells = max(self.k + 1, t) * t
            if cells > MAX_BINARY_COVARIANCE_CELLS:
                raise ValueError("Exact covariance is too large; use shared posterior draws")
            a, b = self._ab(states)
            result = np.array(
                _kscore.tailpass_covariance(self.k, a, b, frequencies.astype(float), self._posterior.cutoffs)
            )
        else:
            counts, log_coeff = self._posterior.grid
            if max(len(counts), t) ** 2 > grid.MAX_COVARIANCE_PAIRS:
                raise ValueError("Exact covariance is too large; use shared posterior draws")
            order, indices = self._posterior.tail_map
            events = (self._posterior.bank_scores[:, None] >= self.thresholds).astype(float)
            result = np.zeros((t, t))
            for alpha, frequency in zip(states, frequencies, strict=True):
                result += frequency * grid.count_covariance(counts, alpha, events, log_coeff)
        result /= self.question_count**2
        for index in range(len(result)):
            result[index, index] = grid.nonnegative_variance(float(result[index, index]))
        return readonly(result)

    @cached_property
    def std(self) -> FloatArray:
        """Exact marginal posterior standard deviations."""
        return readonly(np.sqrt(np.diag(self.covariance)))

    def _payoff_moments(self, values: FloatArray) -> tuple[float, float]:
        states, _, frequencies = self._posterior.states
        if self._posterior.binary:
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
            counts, log_coeff = self._posterior.grid
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
        payoff = cumulative[np.searchsorted(self.thresholds, self._posterior.bank_scores, side="right")]
        return self._payoff_moments(payoff)

    def moment(self, lam: float) -> tuple[float, float]:
        r"""Exact mean/std of :math:`E[\bar b^\lambda]`, the average future
        rubric score raised to ``lam``. ``lam = 1`` is Bayes@N's mean under
        matching priors; ``lam`` in (2, 4) has an enumeration-free path for
        rubrics with three or more scores and for k >= 20000.
        """
        lam = finite_positive(lam, name="lam")
        states, _, frequencies = self._posterior.states
        if lam == 1.0:
            totals = states.sum(axis=1)
            probabilities = states / totals[:, None]
            means = probabilities @ self._posterior.scores
            variances = np.sum(probabilities * (self._posterior.scores - means[:, None]) ** 2, axis=1) / (totals + 1)
            return _aggregate(means, variances, frequencies, self.question_count)
        if lam in (2.0, 4.0) and (not self._posterior.binary or self.k >= grid.MAX_COUNT_STATES):
            powers, coefficients = grid.moment_polynomial(self._posterior.scores, self.k, int(lam))
            moments = np.array([grid.polynomial_moments(powers, coefficients, s) for s in states])
            return _aggregate(moments[:, 0], moments[:, 1], frequencies, self.question_count)
        return self._payoff_moments(self._posterior.bank_scores**lam)

    def _endpoint(self, full_credit: bool) -> tuple[float, float]:
        mask = self._posterior.scores == 1 if full_credit else self._posterior.scores > 0
        if np.all(mask) or not np.any(mask):
            return float(np.all(mask)), 0.0
        states, _, frequencies = self._posterior.states
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
        return profile_of(self._posterior.at(k, thresholds_for(k, thresholds)))

    def sample(self, n_draws: int = 4000, *, rng: RNG = None) -> TailPassDraws:
        """Draw independent question probabilities, shared across all utilities.

        The draws are numpy's, in scorio's order (one Dirichlet draw set per
        question), so a seed gives scorio's draws. Large draw sets are not
        stored: they are replayed from the generator's saved state.

        Args:
            n_draws: At least two posterior draws.
            rng: NumPy Generator, integer seed, or None.
        """
        n_draws = draw_count(n_draws)
        generator = np.random.default_rng(rng)
        m, size = self._posterior.parameters.shape
        if n_draws * m * size <= EAGER_DRAW_VALUES:
            values = np.empty((n_draws, m, size))
            for start, stop, block in draw_blocks(generator, self._posterior.parameters, n_draws):
                values[:, start:stop] = block
            values.setflags(write=False)
            return TailPassDraws(self._posterior, values)
        replay = Replay(type(generator.bit_generator), dict(copy.deepcopy(generator.bit_generator.state)), n_draws)
        draws = TailPassDraws(self._posterior, None, replay)
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
            if not self._posterior.binary:
                return self.sample(n_draws, rng=rng).summary(confidence=confidence)
            # Binary: stream the draws into the profile; nothing is stored.
            n_draws, cutoffs = draw_count(n_draws), self._posterior.cutoffs
            total = binary_profile_sum(np.random.default_rng(rng), self._posterior.parameters, n_draws, self.k, cutoffs)
            return summary(total / self.question_count, confidence)
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
