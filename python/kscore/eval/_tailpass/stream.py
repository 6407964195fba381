"""Posterior draws in scorio's stream order (numpy's ``dirichlet``, one draw
set per question), a block of questions at a time, and binary draws
streamed into their profiles without being stored (docs/kernels.md, K16)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray

#: Probabilities generated per block of questions.
BLOCK_VALUES = 2_000_000
#: Gamma variates per numpy call when binary draws stream into profiles.
STREAM_VALUES = 1 << 18


def gamma_runs(
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


def draw_blocks(
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
        for i, j, values, gamma in gamma_runs(generator, parameters, n_draws, start, stop, scratch):
            if not gamma:
                out[:, i - start] = values
                continue
            acc = values[..., 0].copy()
            for c in range(1, size):
                acc += values[..., c]
            out[:, i - start : j - start] = (values * (1.0 / acc)[..., None]).transpose(1, 0, 2)
        yield start, stop, out


def binary_profile_sum(
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
        for _, _, values, gamma in gamma_runs(generator, parameters, n_draws, 0, m, scratch):
            if gamma:
                _kscore.tailpass_add_gamma_tails(k, values, cutoffs, total, True)
            else:
                total += _kscore.tailpass_draw_tails(k, np.ascontiguousarray(values[:, 1:]), cutoffs)
        return total
    pending: Future[None] | None = None
    with ThreadPoolExecutor(1) as helper:
        for start in range(0, m, step):
            runs = gamma_runs(generator, parameters, n_draws, start, min(m, start + step), scratch)
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
