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
Gauss-Legendre rule in ``x`` for all questions at once (numpy):

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
from .._special import betaincc

#: Panels x Gauss-Legendre nodes per panel of the fixed rule.
_PANELS, _NODES = 8, 20
#: Largest ``v1 + v2 + 1`` summed exactly with integers (past it, the continued fraction).
_EXACT_N = 16384
#: Questions per block of the vectorised integral (bounds the (rows, nodes, shape) table).
_CELLS = 4_000_000


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
    """:func:`top_two_probability` of every (v1, v2) pair, each distinct pair once."""
    if v1.size == 0:
        return np.zeros(0)
    base = int(max(v1.max(), v2.max())) + 1
    keys, inverse = np.unique(v1.astype(np.int64) * base + v2, return_inverse=True)
    values = np.array([top_two_probability(int(key // base), int(key % base)) for key in keys], dtype=float)
    out: FloatArray = values[inverse.ravel()]
    return out


def leader_probabilities(counts: IntArray, leader: IntArray) -> FloatArray:
    """Per row of ``counts`` (rows x answers, 0 where a row has fewer answers), the
    probability that answer ``leader[r]`` has the largest share under
    ``Dirichlet(counts[r, :m] + 1)`` (the integral above; zero counts are absent
    answers, not answers with count 0)."""
    rows = counts.shape[0]
    out = np.empty(rows)
    if rows == 0:
        return out
    top = int(counts.max()) + 1
    nodes, weights = _rule()
    block = max(1, _CELLS // (len(nodes) * (top + 1)))
    for start in range(0, rows, block):
        stop = min(rows, start + block)
        out[start:stop] = _block(counts[start:stop], leader[start:stop], nodes, weights)
    return out


def _block(counts: IntArray, leader: IntArray, nodes: FloatArray, weights: FloatArray) -> FloatArray:
    rows = counts.shape[0]
    r = np.arange(rows)
    a_lead = counts[r, leader].astype(float) + 1.0
    spread = 10.0 * np.sqrt(a_lead)
    lo = np.maximum(0.0, a_lead - spread - 10.0)
    hi = a_lead + spread + 30.0
    x = lo[:, None] + (hi - lo)[:, None] * nodes[None, :]  # (rows, nodes)
    width = (hi - lo)[:, None] * weights[None, :]
    top = int(counts.max()) + 1
    k = np.arange(top, dtype=float)
    log_fact = np.array([math.lgamma(i + 1.0) for i in range(top)])
    # terms[r, i, k] = e^{-x} x^k / k!; the cumulative sums are 1 - F_{k+1}(x).
    if float(hi.max()) < 600.0:  # e^{-x} stays a normal double: the recurrence t_k = t_{k-1} x / k
        terms = np.empty((rows, x.shape[1], top))
        terms[:, :, 0] = np.exp(-x)
        for i in range(1, top):
            np.multiply(terms[:, :, i - 1], x / i, out=terms[:, :, i])
    else:
        with np.errstate(divide="ignore"):
            log_x = np.log(x)
        terms = np.exp(-x[:, :, None] + k[None, None, :] * log_x[:, :, None] - log_fact[None, None, :])
        terms[:, :, 0] = np.exp(-x)  # 0 * log(0) at x = 0
    upper = np.cumsum(terms, axis=2)
    density = terms[r, :, (a_lead - 1.0).astype(np.intp)]  # (rows, nodes)
    product = np.ones_like(x)
    present = counts > 0
    present[r, leader] = False
    for j in range(counts.shape[1]):
        sel = np.flatnonzero(present[:, j])
        if sel.size == 0:
            continue
        factor = 1.0 - upper[sel, :, counts[sel, j]]  # shape a_j = count + 1: index a_j - 1
        product[sel] *= np.maximum(factor, 0.0)
    value: FloatArray = np.clip(np.sum(width * density * product, axis=1), 0.0, 1.0)
    return value
