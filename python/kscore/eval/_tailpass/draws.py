"""Shared posterior draws (:class:`TailPassDraws`, made by
:meth:`TailPassProfile.sample <kscore.eval._tailpass.profile.TailPassProfile.sample>`):
utilities evaluated on every draw of the questions' probabilities, kept in
memory or replayed from the generator's saved state (docs/kernels.md, K16)."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray
from ..._inputs import finite_positive, integral_scalar, real_vector, validate_latent_k
from ..._interval import z_value
from ..tailpass_weights import _validate_weights, uniform_weights
from . import grid, stream
from .shared import Posterior, Summary, readonly, summary, thresholds_for, unit_interval
from .stream import binary_profile_sum, draw_blocks


@dataclass(frozen=True)
class Replay:
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

    _posterior: Posterior = field(repr=False)
    _probabilities: FloatArray | None = field(repr=False)
    _replay: Replay | None = field(default=None, repr=False)

    @property
    def _n_draws(self) -> int:
        if self._probabilities is not None:
            return len(self._probabilities)
        assert self._replay is not None
        return self._replay.n_draws

    def _blocks(self) -> Iterator[tuple[int, int, FloatArray]]:
        """Question blocks of the probabilities, shape (draws, q, L)."""
        if self._probabilities is not None:
            m = self._posterior.question_count
            n, size = self._probabilities.shape[0], self._probabilities.shape[2]
            step = max(1, stream.BLOCK_VALUES // max(1, n * size))
            for start in range(0, m, step):
                stop = min(m, start + step)
                yield start, stop, self._probabilities[:, start:stop]
            return
        assert self._replay is not None
        yield from draw_blocks(self._replay.generator(), self._posterior.parameters, self._replay.n_draws)

    def _consume(self, generator: np.random.Generator) -> None:
        """Advance ``generator`` past this draw set, keeping the profile on
        the way when the grid allows (what ``ci`` needs)."""
        post = self._posterior
        try:
            cutoffs = post.cutoffs if post.binary else None
        except ValueError:
            cutoffs = None
        if cutoffs is not None and len(cutoffs) > 0:
            total = binary_profile_sum(generator, post.parameters, self._n_draws, post.k, cutoffs)
            self.__dict__["profile"] = readonly(total / post.question_count)
            return
        for _ in draw_blocks(generator, post.parameters, self._n_draws):
            pass

    def _binary_tails(self, block: FloatArray, cutoffs: npt.NDArray[np.uint64] | None = None) -> FloatArray:
        theta = np.ascontiguousarray(block[..., 1])
        post = self._posterior
        return np.asarray(_kscore.tailpass_draw_tails(post.k, theta, post.cutoffs if cutoffs is None else cutoffs))

    def _question_tails(self) -> Iterator[FloatArray]:
        """Per-question profiles on every draw, shape (draws, T), in order."""
        post = self._posterior
        for _, _, block in self._blocks():
            for q in range(block.shape[1]):
                if post.binary:
                    yield self._binary_tails(block[:, q : q + 1])
                else:
                    counts, log_coeff = post.grid
                    yield post.tails(grid.conditional_probabilities(counts, block[:, q], log_coeff))

    @cached_property
    def profile(self) -> FloatArray:
        """Dataset profile samples, shape (draws, thresholds)."""
        post = self._posterior
        values = np.zeros((self._n_draws, len(post.thresholds)))
        if post.binary:
            for _, _, block in self._blocks():
                values += self._binary_tails(block)
        else:
            for tails in self._question_tails():
                values += tails
        return readonly(values / post.question_count)

    def linear(self, weights: Any) -> FloatArray:
        """Apply a convex combination to every shared profile draw."""
        weights = _validate_weights(weights, len(self._posterior.thresholds))
        return np.asarray(self.profile @ weights, dtype=float)

    def moment(self, lam: float) -> FloatArray:
        """Draws of the full-score moment utility, independent of the grid."""
        lam = finite_positive(lam, name="lam")
        post = self._posterior
        values = np.zeros(self._n_draws)
        if lam in (1.0, 2.0, 4.0):
            for _, _, block in self._blocks():
                values += grid.conditional_integer_moment(block, post.scores, post.k, int(lam)).sum(axis=1)
        elif post.binary:
            # E[u(X)] = u(0) + sum_j (u(j) - u(j-1)) P(X >= j) for the
            # nondecreasing payoff u = b**lam.
            payoff = post.bank_scores**lam
            steps = np.diff(payoff)
            every = np.arange(1, post.k + 1, dtype=np.uint64)
            for _, _, block in self._blocks():
                values += payoff[0] * block.shape[1] + self._binary_tails(block, every) @ steps
        else:
            payoff = post.bank_scores**lam
            counts, log_coeff = post.grid
            for _, _, block in self._blocks():
                for q in range(block.shape[1]):
                    values += grid.conditional_probabilities(counts, block[:, q], log_coeff) @ payoff
        return values / post.question_count

    def _apply(self, transform: Callable[[FloatArray], FloatArray], aggregation: str = "question") -> FloatArray:
        if aggregation == "profile":
            return transform(self.profile)
        if aggregation != "question":
            raise ValueError("aggregation must be 'question' or 'profile'")
        values = np.zeros(self._n_draws)
        for tails in self._question_tails():
            values += transform(tails)
        return values / self._posterior.question_count

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
        size = len(self._posterior.thresholds)
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
        size = len(self._posterior.thresholds)
        weights = _validate_weights(uniform_weights(size) if weights is None else weights, size)
        return self._apply(lambda values: np.asarray(values**m @ weights, dtype=float))

    def harmonic(self, alpha: float = 0.5) -> FloatArray:
        r"""Question-first harmonic balance
        :math:`1 / (\alpha/\mathrm{disc} + (1-\alpha)/\mathrm{stab})` of
        discovery (positive bank credit) and stability (bank credit 1)."""
        alpha = unit_interval(alpha, "alpha")
        post = self._posterior
        values = np.zeros(self._n_draws)
        for _, _, block in self._blocks():
            zero = np.clip(block[..., post.scores == 0].sum(axis=-1), 0, 1)
            one = np.clip(block[..., post.scores == 1].sum(axis=-1), 0, 1)
            with np.errstate(divide="ignore"):
                discovery = -np.expm1(post.k * np.log(zero))
            stability = one**post.k
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
        return values / post.question_count

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
        size = len(self._posterior.thresholds)
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
        k = validate_latent_k(k)
        return TailPassDraws(self._posterior.at(k, thresholds_for(k, thresholds)), self._probabilities, self._replay)

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
        return summary(samples, confidence)
