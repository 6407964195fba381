r"""The probability that the count leader has the largest share under ``Dirichlet(v + 1)``.

With integer counts ``v`` the Dirichlet is ``G / sum(G)`` for independent
``G_j ~ Gamma(a_j = v_j + 1, 1)``, and the order of the shares is the order of the
``G_j``. So the probability that the leader ``L`` is largest is

.. math::
    \int_0^\infty f_{a_L}(x) \prod_{j \ne L} F_{a_j}(x)\, dx

with ``f``/``F`` the Gamma density and distribution function. scorio evaluates the
same integral after the substitution ``u = F_{a_L}(x)``, with ``scipy.integrate.quad``
(adaptive Gauss-Kronrod, ``epsabs = epsrel = 1e-10``) and scipy's ``gammaincinv``
inside a Python integrand: about 0.4 s a question. Here it is a fixed composite
Gauss-Legendre rule in ``x`` for all questions at once (in the core:
rust/kscore-core/src/aggregate/leader.rs):

- For integer shape, ``1 - F_a(x) = e^{-x} \sum_{k<a} x^k / k!``: a sum of positive
  terms, so one table of cumulative sums per node serves every answer of a question
  (``F`` to an absolute 1e-16, which is what an absolute error of the probability needs).
- ``f_{a_L}(x)`` is the table's term ``k = a_L - 1``.
- The nodes cover ``[a_L - 10 sqrt(a_L) - 10, a_L + 10 sqrt(a_L) + 30]`` (clipped at 0):
  outside it the leader's density has mass below 1e-18 (Chernoff bounds), and every
  other factor lies in [0, 1]. 8 panels of 20 nodes: the tests check the result against
  mpmath (50 digits, adaptive quadrature) to 1e-13.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .._arrays import FloatArray, IntArray
from .._kscore import dirichlet_leader, top_two_betas
from .._special import betaincc

#: Panels x Gauss-Legendre nodes per panel of the fixed rule.
_PANELS, _NODES = 8, 20
#: Largest ``v1 + v2 + 1`` summed exactly with integers (past it, the continued fraction).
_EXACT_N = 16384


@lru_cache(maxsize=1)
def _rule() -> tuple[FloatArray, FloatArray]:
    """Composite Gauss-Legendre nodes and weights on [0, 1]."""
    t, w = np.polynomial.legendre.leggauss(_NODES)
    t, w = (t + 1.0) / 2.0, w / 2.0
    nodes = (np.arange(_PANELS)[:, None] + t[None, :]).ravel() / _PANELS
    weights = np.tile(w, _PANELS) / _PANELS
    return nodes, weights


@lru_cache(maxsize=65536)
def top_two_probability(v1: int, v2: int) -> float:
    """``1 - I_{1/2}(v1 + 1, v2 + 1)``: the top-two Beta criterion.

    For integer arguments ``I_{1/2}(a, b) = P(Binomial(a + b - 1, 1/2) >= a)``, so
    the value is ``sum_{k <= v1} C(n, k) / 2^n`` with ``n = v1 + v2 + 1``: summed in
    integers and divided once (Python's int division rounds correctly), exact to half
    an ulp (n = 16384: 0.6 s, once per distinct pair). Past it, kscore's continued fraction
    (``_special.betaincc``: 1.5e-12 from the exact value at n = 9991, growing with n)."""
    if v1 == 0:
        return 0.0
    n = v1 + v2 + 1
    if n > _EXACT_N:
        return betaincc(v1 + 1.0, v2 + 1.0, 0.5)
    total = 0
    c = 1
    for k in range(v1 + 1):
        total += c
        c = c * (n - k) // (k + 1)
    return total / (1 << n)


def top_two_probabilities(v1: IntArray, v2: IntArray) -> FloatArray:
    """:func:`top_two_probability` of every (v1, v2) pair: in the core where
    ``v1 + v2 + 1 <= 127`` (the same integer sum in 128 bits, rounded once: the same
    bits, rust/kscore-core/src/aggregate/stop.rs), the rest here, each distinct pair once."""
    if v1.size == 0:
        return np.zeros(0)
    out: FloatArray = top_two_betas(
        np.ascontiguousarray(v1, dtype=np.int64).ravel(), np.ascontiguousarray(v2, dtype=np.int64).ravel()
    )
    rest = np.flatnonzero(np.isnan(out))
    if rest.size:
        a, b = v1.ravel()[rest], v2.ravel()[rest]
        base = int(max(a.max(), b.max())) + 1
        keys, inverse = np.unique(a.astype(np.int64) * base + b, return_inverse=True)
        values = np.array([top_two_probability(int(key // base), int(key % base)) for key in keys], dtype=float)
        out[rest] = values[inverse.ravel()]
    return out.reshape(np.shape(v1))


def leader_probabilities(counts: IntArray, leader: IntArray) -> FloatArray:
    """Per row of ``counts`` (rows x answers, 0 where a row has fewer answers), the
    probability that answer ``leader[r]`` has the largest share under
    ``Dirichlet(counts[r, :m] + 1)`` (the integral above; zero counts are absent
    answers, not answers with count 0): every row in one core call
    (rust/kscore-core/src/aggregate/leader.rs, the same rule and the same sums)."""
    rows = counts.shape[0]
    if rows == 0:
        return np.empty(0)
    top = int(counts.max()) + 1
    nodes, weights = _rule()
    log_fact = np.array([math.lgamma(i + 1.0) for i in range(top)])
    out: FloatArray = dirichlet_leader(
        np.ascontiguousarray(counts, dtype=np.int64),
        np.ascontiguousarray(leader, dtype=np.int64),
        nodes,
        weights,
        log_fact,
    )
    return out
