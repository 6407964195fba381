r"""scorio.rank 0.2.3's ``bayesian_mcmc``: posterior means of Bradley-Terry
log-strengths by random-walk Metropolis, the same chain for the same seed.

scorio draws, each iteration, ``L`` normals (the proposal) then one
uniform (the acceptance) from ``numpy.random.default_rng(seed)``; here the
same draws are made in the same order, a block of iterations at a time,
and the chain (scorio's log-posterior term for term, its adaptive step)
runs in the Rust core (``kscore._kscore.bt_mcmc``).

The draws are numpy's own: where ``numpy.random._generator`` exports its C
``random_standard_normal_fill`` (numpy 1.17 on), ``kscore._kscore.numpy_draws``
calls it and the bit generator's ``next_double`` (what
``Generator.standard_normal(out=...)`` and ``Generator.random()`` call)
for a block of iterations in one call, instead of two Python calls per
iteration (about 2/3 of the draws' time at 100 models); the first use
checks its draws against the methods' on a copy of a generator, and any
difference (or a numpy without the export) keeps the methods.
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import numpy as np
from numpy.random import _generator as numpy_generator

from .. import _kscore
from ._metrics import RankResult, _result
from ._pairs import average_twins, events_of, paired
from ._ties import RankMethod
from ._validate import integer_argument, response_tensor

#: Iterations per block of draws (bounds the draws' memory to block x L).
_BLOCK = 4096


def _draw_methods(rng: np.random.Generator, z: np.ndarray, u: np.ndarray) -> None:
    """scorio's draws by the generator's methods: per iteration, ``L``
    normals then one uniform."""
    normal, uniform = rng.standard_normal, rng.random
    for t in range(u.shape[0]):
        normal(out=z[t])
        u[t] = uniform()


def _draw_native(fill: int, rng: np.random.Generator, z: np.ndarray, u: np.ndarray) -> None:
    """The same draws by numpy's C functions, the block in one call."""
    _kscore.numpy_draws(rng.bit_generator.ctypes.bit_generator.value, fill, z, u)


@functools.cache
def _normal_fill() -> int | None:
    """The address of numpy's ``random_standard_normal_fill`` where it is
    exported and its draws (by ``_draw_native``) equal the methods' on a
    check of three widths; else None."""
    try:
        fill = ctypes.cast(ctypes.CDLL(numpy_generator.__file__).random_standard_normal_fill, ctypes.c_void_p).value
    except (OSError, AttributeError):
        return None
    if not fill:
        return None
    for width, seed in [(1, 0), (7, 1), (130, 2)]:
        want = (np.empty((9, width)), np.empty(9))
        got = (np.empty((9, width)), np.empty(9))
        _draw_methods(np.random.default_rng(seed), *want)
        _draw_native(fill, np.random.default_rng(seed), *got)
        if not (np.array_equal(want[0], got[0]) and np.array_equal(want[1], got[1])):
            return None
    return fill


def bayesian_mcmc(
    R: Any,  # noqa: N803
    n_samples: int = 5000,
    burnin: int = 1000,
    prior_var: float = 1.0,
    seed: int = 42,
    method: RankMethod = "competition",
    return_scores: bool = False,
) -> RankResult:
    r"""Rank models by posterior mean Bradley-Terry log-strengths (Metropolis).

    .. math::

        \Pr(i \succ j \mid \theta) = \frac{e^{\theta_i}}{e^{\theta_i} + e^{\theta_j}},
        \qquad \theta_i \sim \mathcal{N}(0, \sigma^2), \qquad
        s_i = \mathbb{E}[\theta_i \mid W]

    estimated from ``n_samples`` draws after ``burnin`` of a random-walk
    Metropolis chain (step 0.1, scaled by 0.8 or 1.2 every 500 burn-in
    iterations towards an acceptance rate in [0.2, 0.5]). Without decisive
    outcomes every score is 0.

    References:
        Metropolis, N., et al. (1953). Equation of State Calculations by
        Fast Computing Machines. The Journal of Chemical Physics.

        Caron, F., & Doucet, A. (2012). Efficient Bayesian inference for
        generalized Bradley-Terry models.

    Args:
        R: binary ``(L, M, N)`` tensor, or ``(L, M)``.
        n_samples: draws kept (a positive integer).
        burnin: draws discarded first (a non-negative integer).
        prior_var: the prior variance :math:`\sigma^2` (positive, finite).
        seed: seed of ``numpy.random.default_rng``.
        method: tie rule (see :func:`kscore.rank.avg`).
        return_scores: also return the posterior means.

    Returns:
        The ranks ``(L,)``, or ``(ranks, means)``.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[1, 1], [1, 1]], [[0, 0], [0, 0]]])
        >>> bayesian_mcmc(R, n_samples=2000, burnin=500).tolist()
        [1, 2]
    """
    tensor = response_tensor(R)
    kept = integer_argument("n_samples", n_samples, 1)
    warm = integer_argument("burnin", burnin, 0)
    variance = float(prior_var)
    if not np.isfinite(variance) or variance <= 0.0:
        raise ValueError("prior_var must be > 0 and finite.")

    L = tensor.shape[0]
    rng = np.random.default_rng(seed)
    p = paired(events_of(tensor))
    if p.total_wins <= 0.0:
        return _result(np.zeros(L), method, return_scores)
    wins = np.ascontiguousarray(p.wins_matrix())
    total = kept + warm
    state = None
    done = 0
    fill = _normal_fill()
    while done < total:
        block = min(_BLOCK, total - done)
        z = np.empty((block, L))
        u = np.empty(block)
        if fill is None:
            _draw_methods(rng, z, u)
        else:
            _draw_native(fill, rng, z, u)
        state = _kscore.bt_mcmc(wins, variance, z, u, warm, state)
        done += block
    assert state is not None
    scores = state[5] / kept
    return _result(average_twins(scores, p.twins), method, return_scores)
