r"""The exact distribution of verl's majority vote over n draws with replacement.

verl's ``calc_maj_val`` counts the votes of a resample in the order the
answers are first seen, takes ``max`` over those counts (so a tie goes to
the answer seen first) and returns the value of the first response of the
winning answer. For draws with replacement the resample is an exchangeable
sequence, so given the vote counts every tied answer is equally likely to
be seen first: the tie rule is a fair coin among the tied answers. And given
the answers drawn, each draw of answer ``a`` is a uniform response of ``a``,
so the value returned is a uniform response of the winning answer.

So the probability that response ``j`` (answer ``a``, group size ``s_a``) is
the value is ``P(a wins) / s_a``, and ``P(a wins)`` depends only on the
group sizes (the *partition* of N). With ``q_i = s_i / N``, exponential
generating functions give, for each number of draws ``n``,

.. math::
    P_n(a) = n! \sum_{m \ge 1} \frac{q_a^m}{m!} \int_0^1 [x^{n-m}]
    \prod_{i \ne a} \Bigl(\sum_{c<m} \frac{(q_i x)^c}{c!} + y \frac{(q_i x)^m}{m!}\Bigr) dy

(``m`` is the winning count, ``y`` marks the answers tied with ``a`` and
its integral is the fair tie-break ``1 / (1 + ties)``). The integrand is a
polynomial of degree ``G - 1`` in ``y`` (G answers), integrated exactly by
Gauss-Legendre with ``ceil(G / 2)`` nodes; every coefficient is positive, so
no cancellation: the result is exact to a few ulps (the tests check it to
1e-12 against every resample of small cases). One partition costs well
under a millisecond for N = 16 and is cached.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from .._arrays import FloatArray


@lru_cache(maxsize=64)
def _shift_index(width: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """``(k - j, k >= j)`` for j, k < width: a Toeplitz matrix's layout."""
    j, k = np.meshgrid(np.arange(width), np.arange(width), indexing="ij")
    return np.maximum(k - j, 0), k >= j


def _multiply(a: FloatArray, b: FloatArray) -> FloatArray:
    """Power series ``a * b`` truncated at the common length (last axis),
    for every (m, y) pair at once."""
    width = a.shape[-1]
    if width <= 24:
        # a times the upper-triangular Toeplitz matrix of b: one batched
        # product (0.45 ms a partition of N = 16 against 0.7 for the loop
        # below; past N ~ 24 the width^2 matrices cost more than they save).
        index, inside = _shift_index(width)
        toeplitz = np.where(inside, b[..., index], 0.0)  # (..., j, k) = b[k - j]
        product: FloatArray = np.matmul(a[..., None, :], toeplitz)[..., 0, :]
        return product
    out = np.zeros(np.broadcast_shapes(a.shape, b.shape))
    for j in range(width):  # one vector operation per term of a
        out[..., j:] += a[..., j : j + 1] * b[..., : width - j]
    return out


@lru_cache(maxsize=256)
def _gauss(count: int) -> tuple[FloatArray, FloatArray]:
    """Gauss-Legendre nodes and weights on [0, 1]: exact for polynomials of
    degree up to 2 * count - 1."""
    nodes, weights = np.polynomial.legendre.leggauss(count)
    return (nodes + 1.0) / 2.0, weights / 2.0


@lru_cache(maxsize=1024)  # N = 16 has 231 partitions; a table is (N, N + 1) floats
def win_table(sizes: tuple[int, ...], replace: bool = True) -> FloatArray:
    """``table[n - 1, s]``: the probability that one given answer of group
    size ``s`` wins verl's vote of ``n`` draws with replacement (n = 1..N),
    for the partition ``sizes`` (group sizes, any order, summing to N).

    ``replace=False``: n draws without replacement (a uniform n-subset in
    random order, so ties are again a fair coin): the same sum with
    ``C(s, c)`` in place of ``(q x)^c / c!`` and ``C(N, n)`` as the total.

    Examples:
        >>> t = win_table((2, 1))  # answers A, A, B
        >>> [round(float(x), 6) for x in t[1, 1:3]]  # two draws: B wins by BB or BA (tie seen first)
        [0.333333, 0.666667]
    """
    total = sum(sizes)
    if total > 1000:
        raise ValueError(f"the exact vote is limited to 1000 responses per prompt; got {total}")
    table = np.zeros((total, total + 1))
    distinct = sorted(set(sizes))
    if len(sizes) == 1:
        table[:, total] = 1.0
        table.flags.writeable = False
        return table
    mult = {s: sizes.count(s) for s in distinct}
    groups = len(sizes)
    y, w = _gauss((groups + 1) // 2)
    m = np.arange(1, total + 1)  # the winning count
    c = np.arange(total)  # the power of x, 0..N-1 (n - m <= N - 1)
    log_fact = np.array([math.lgamma(i + 1.0) for i in range(total + 1)])
    # x is scaled by t = N / e: coefficients near t^j / j! stay within
    # [~1, e^(N/e)] for j <= N instead of falling to 1/N! (below the
    # smallest double past N = 170).
    log_t = math.log(max(1.0, total / math.e)) if replace else 0.0  # C(s, c) sums stay below 2^N

    def log_choose(s: int, k: npt.NDArray[np.int64]) -> FloatArray:
        inside = k <= s
        safe = np.where(inside, k, 0)
        return np.where(inside, math.lgamma(s + 1) - log_fact[safe] - log_fact[np.where(inside, s - k, 0)], -np.inf)

    def base(s: int) -> FloatArray:
        if replace:
            terms = np.exp(c * (math.log(s / total) + log_t) - log_fact[c])  # (q t x)^c / c!
        else:
            terms = np.exp(log_choose(s, c))  # C(s, c)
        below = np.where(c[None, :] < m[:, None], terms[None, :], 0.0)  # (M, C)
        at = np.where(c[None, :] == m[:, None], terms[None, :], 0.0)
        return below[:, None, :] + y[None, :, None] * at[:, None, :]  # (M, K, C)

    def power(b: FloatArray, r: int) -> FloatArray:
        """b^r by squaring."""
        out: FloatArray | None = None
        while r:
            if r & 1:
                out = b if out is None else _multiply(out, b)
            r >>= 1
            if r:
                b = _multiply(b, b)
        if out is None:
            out = np.zeros((total, len(y), total))
            out[..., 0] = 1.0
        return out

    bases = {s: base(s) for s in distinct}
    minus = {s: power(bases[s], mult[s] - 1) for s in distinct}  # one group of size s left out
    full = {s: _multiply(minus[s], bases[s]) if len(distinct) > 1 else minus[s] for s in distinct}
    n = np.arange(1, total + 1)
    log_nfact = log_fact[n]
    for s in distinct:
        others = minus[s]
        for t in distinct:
            if t != s:
                others = _multiply(others, full[t])
        inner = np.einsum("mkc,k->mc", others, w)  # (M, C): the y integral
        # with replacement: P_n = sum_{m <= n} n! q^m / m! [x^(n-m)] inner_m (scaled coefficient over t^(n-m));
        # without: P_n = sum_{m <= n} C(s, m) [x^(n-m)] inner_m / C(N, n)
        diff = n[:, None] - m[None, :]  # (n, m)
        ok = diff >= 0
        coef = np.where(ok, inner[np.arange(total)[None, :], np.where(ok, diff, 0)], 0.0)
        if replace:
            log_scale = log_nfact[:, None] + m[None, :] * math.log(s / total) - log_fact[m][None, :] - diff * log_t
        else:
            log_scale = log_choose(s, m)[None, :] - log_choose(total, n)[:, None]
            ok &= np.isfinite(log_scale)
        scale = np.where(ok, np.exp(np.where(ok, log_scale, 0.0)), 0.0)
        table[:, s] = (coef * scale).sum(axis=1)
    table.flags.writeable = False  # cached: shared by every caller
    return table
