"""Accuracy of the binary Bayesian credible intervals against 50-digit mpmath
references written from the formulas (not from either implementation's
algorithm where a closed form exists):

* Pass@k / Unanimous@k: rising factorials, ``E[p^n] = (a)_n / (a+b)_n``;
  their covariance from ``E[p^u q^v] = (a)_u (b)_v / (a+b)_(u+v)``.
* Step credits (Maj@k, G-Pass@k_tau, one-hot spectra): ``E[g]`` from the
  Beta-binomial pmf; ``E[g^2] = P(X1 >= t, X2 >= t)`` through
  ``Z = X1 + X2 ~ BB(2k)`` and the hypergeometric CDF of ``X1 | Z`` by its
  O(1) recurrence along Z.
* AUC@k: the power basis ``g = 1 - sum_j c_j q^j`` with the exact integer
  self-convolution of the trapezoid weights.
* mG-Pass@k and the GeoSpectrum* spectrum: the Bernstein product at 50 digits.
* Geometric blends: the delta method evaluated on those moments.

mu and sigma must agree to 1e-12 relative, and every output must be finite,
including N = 100000 with k = 100000.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath as mp
import numpy as np
import numpy.typing as npt
import pytest

import kscore.eval as K

mp.mp.dps = 50
MPF = Any


def bank(n: int, counts: list[int]) -> npt.NDArray[np.int8]:
    """Rows with the given success counts, multiplicities cycling 1, 2, 3."""
    rows = []
    for i, c in enumerate(counts):
        row = np.zeros(n, dtype=np.int8)
        row[:c] = 1
        rows.extend([row] * (1 + i % 3))
    return np.array(rows)


def states(n: int) -> list[int]:
    # Includes a count near 0.3 N so that G-Pass@k_0.3 has a state near its
    # threshold (otherwise every state is certain to ~1e-100 and sigma is
    # far below anything a double-precision posterior resolves).
    return sorted({0, 1, (3 * n) // 10, n // 3, n // 2, n - 1, n})


def freqs(counts: list[int]) -> list[int]:
    return [1 + i % 3 for i in range(len(counts))]


def params(c: int, n: int, a0: float = 1.0, b0: float = 1.0) -> tuple[MPF, MPF]:
    return mp.mpf(a0) + c, mp.mpf(b0) + n - c


def bb_pmf(deg: int, a: MPF, b: MPF) -> list[MPF]:
    p = [mp.mpf(0)] * (deg + 1)
    v = mp.mpf(1)
    for i in range(deg):
        v *= (b + i) / (a + b + i)
    p[0] = v
    for j in range(deg):
        p[j + 1] = p[j] * (deg - j) * (a + j) / ((j + 1) * (b + deg - 1 - j))
    return p


def power_moment(a: MPF, b: MPF, m: int) -> MPF:
    return mp.rf(a, m) / mp.rf(a + b, m)


def aggregate(f: list[int], means: list[MPF], variances: list[MPF]) -> tuple[MPF, MPF]:
    m = sum(f)
    mu = sum(fi * x for fi, x in zip(f, means)) / m
    var = sum(fi * v for fi, v in zip(f, variances)) / (m * m)
    return mu, mp.sqrt(var)


# --- per-state references ------------------------------------------------------


def pass_state(a: MPF, b: MPF, k: int) -> tuple[MPF, MPF]:
    q1, q2 = power_moment(b, a, k), power_moment(b, a, 2 * k)
    return 1 - q1, q2 - q1 * q1


def unanimous_state(a: MPF, b: MPF, k: int) -> tuple[MPF, MPF]:
    p1, p2 = power_moment(a, b, k), power_moment(a, b, 2 * k)
    return p1, p2 - p1 * p1


TINY = mp.mpf(10) ** -70


def bb_window(deg: int, a: MPF, b: MPF) -> dict[int, MPF]:
    """BB(j; deg, a, b) where it exceeds 1e-70 of its mode: the mode from
    log-gamma (exact to ~45 digits at 50), then ratio recurrences outward."""
    mode = int(mp.floor((deg + 1) * (a - 1) / (a + b - 2))) if a + b > 2 else 0
    mode = min(max(mode, 0), deg)

    def logpmf(j: int) -> MPF:
        return (
            mp.loggamma(deg + 1) - mp.loggamma(j + 1) - mp.loggamma(deg - j + 1)
            + mp.loggamma(a + j) + mp.loggamma(b + deg - j) - mp.loggamma(a + b + deg)
            - mp.loggamma(a) - mp.loggamma(b) + mp.loggamma(a + b)
        )

    top = mp.exp(logpmf(mode))
    out = {mode: top}
    v = top
    for j in range(mode, deg):
        v = v * (deg - j) * (a + j) / ((j + 1) * (b + deg - 1 - j))
        if v < TINY * top:
            break
        out[j + 1] = v
    v = top
    for j in range(mode - 1, -1, -1):
        v = v * (j + 1) * (b + deg - 1 - j) / ((deg - j) * (a + j))
        if v < TINY * top:
            break
        out[j] = v
    return out


def hyp_cdf_along(k: int, x: int, z_lo: int, z_hi: int) -> dict[int, MPF]:
    """F(x; z) = P(X <= x), X ~ Hyp(2k, k, z), for z in [z_lo, z_hi]: a direct
    (windowed) sum at z_lo, then the recurrence
    F(x; z+1) = F(x; z) - h(x; z) (k - x) / (2k - z)."""
    n = 2 * k

    def h_of(j: int, z: int) -> MPF:
        if j < max(0, z - k) or j > min(k, z):
            return mp.mpf(0)
        return mp.exp(
            mp.loggamma(k + 1) - mp.loggamma(j + 1) - mp.loggamma(k - j + 1)
            + mp.loggamma(k + 1) - mp.loggamma(z - j + 1) - mp.loggamma(k - z + j + 1)
            - mp.loggamma(n + 1) + mp.loggamma(z + 1) + mp.loggamma(n - z + 1)
        )

    z = z_lo
    lo, hi = max(0, z - k), min(k, z)
    if x < lo:
        F = mp.mpf(0)
    elif x >= hi:
        F = mp.mpf(1)
    else:
        mid = z / 2
        if x < mid:  # sum the lower tail downward
            F, j, v = mp.mpf(0), x, h_of(x, z)
            first = v
            while j >= lo and v > TINY * first:
                F += v
                v = v * j * (k - z + j) / ((k - j + 1) * (z - j + 1))
                j -= 1
        else:  # 1 - upper tail
            U, j, v = mp.mpf(0), x + 1, h_of(x + 1, z)
            first = v
            while j <= hi and v > TINY * first:
                U += v
                v = v * (k - j) * (z - j) / ((j + 1) * (k - z + j + 1))
                j += 1
            F = 1 - U
    out = {z: F}
    h = h_of(x, z)
    for z in range(z_lo, z_hi):
        F = F - h * (k - x) / (n - z)
        if h == 0 or z + 1 - x <= 0:
            h = h_of(x, z + 1)  # outside the support the recurrence is 0/0
        else:
            h = h * (k - z + x) / (z + 1 - x) * (z + 1) / (n - z) if k - z + x > 0 else mp.mpf(0)
        out[z + 1] = F
    return out


def step_state(a: MPF, b: MPF, k: int, t: int) -> tuple[MPF, MPF]:
    """Mean and variance of 1{X >= t}, X ~ BB(k, a, b). E[g^2] and
    E[(1-g)^2] through Z = X1 + X2 ~ BB(2k): with F = P(X1 <= t-1 | Z = z),
    P(both >= t) = 1 - 2F for z >= 2t and P(both < t) = 2F - 1 for z <= 2t-2.
    The complement is used when the mean exceeds 1/2."""
    p = bb_window(k, a, b)
    above = mp.fsum(v for j, v in p.items() if j >= t)
    below = mp.fsum(v for j, v in p.items() if j < t)
    total = above + below
    mean, comp = above / total, below / total
    p2 = bb_window(2 * k, a, b)
    zs = sorted(p2)
    F = hyp_cdf_along(k, t - 1, zs[0], zs[-1])
    tot2 = mp.fsum(p2.values())
    if mean <= comp:
        second = mp.fsum(p2[z] * (1 - 2 * F[z]) for z in zs if z >= 2 * t) / tot2
        return mean, second - mean * mean
    second = mp.fsum(p2[z] * (2 * F[z] - 1) for z in zs if z <= 2 * t - 2) / tot2
    return mean, second - comp * comp


def auc_state(a: MPF, b: MPF, k: int) -> tuple[MPF, MPF]:
    q = [mp.mpf(1)]
    for m in range(2 * k):
        q.append(q[-1] * (b + m) / (a + b + m))
    d = np.full(k, 2, dtype=np.int64)  # 2 (k - 1) c_j
    d[0] = d[-1] = 1
    conv = np.convolve(d, d)  # index i + j for 1-based i, j -> m = idx + 2
    scale = mp.mpf(2 * (k - 1))
    lin = mp.fsum(int(d[j - 1]) * q[j] for j in range(1, k + 1)) / scale
    quad = mp.fsum(int(conv[m - 2]) * q[m] for m in range(2, 2 * k + 1)) / (scale * scale)
    return 1 - lin, quad - lin * lin  # Var(g) = Var(1 - g)


def dense_state(values: list[MPF], a: MPF, b: MPF) -> tuple[MPF, MPF]:
    """E[g], Var[g] of a Bernstein credit via its self-product at 50 digits."""
    k = len(values) - 1
    p = bb_pmf(k, a, b)
    mean = mp.fsum(v * w for v, w in zip(values, p))
    p2 = bb_pmf(2 * k, a, b)
    second = mp.mpf(0)
    for z in range(2 * k + 1):
        lo, hi = max(0, z - k), min(k, z)
        # hypergeometric weights over j by recurrence, normalised
        w = [mp.mpf(1)]
        for j in range(lo, hi):
            w.append(w[-1] * (k - j) * (z - j) / ((j + 1) * (k - z + j + 1)))
        tot = mp.fsum(w)
        hz = mp.fsum(wi * values[lo + i] * values[z - lo - i] for i, wi in enumerate(w)) / tot
        second += hz * p2[z]
    return mean, second - mean * mean


def dense_state_shifted(values: list[MPF], a: MPF, b: MPF) -> tuple[MPF, MPF]:
    """As dense_state, on the complement to the top value when that is smaller."""
    top = values[-1]
    mean, var = dense_state([top - v for v in values], a, b)
    return top - mean, var


def delta(mx: MPF, vx: MPF, my: MPF, vy: MPF, cxy: MPF, a: float, b: float) -> tuple[MPF, MPF]:
    a_, b_ = mp.mpf(a), mp.mpf(b)
    mean = mx**a_ * my**b_
    gx = a_ * mx ** (a_ - 1) * my**b_
    gy = b_ * mx**a_ * my ** (b_ - 1)
    return mean, gx * gx * vx + gy * gy * vy + 2 * gx * gy * cxy


def check(got: tuple[float, ...], mu: MPF, sigma: MPF, rel: float = 1e-12) -> None:
    assert all(math.isfinite(v) for v in got), got
    assert abs(got[0] - mu) <= rel * abs(mu) + 1e-300, (got, mp.nstr(mu, 20))
    assert abs(got[1] - sigma) <= rel * abs(sigma) + 1e-300, (got, mp.nstr(sigma, 20))


# --- tests ------------------------------------------------------------------------

NS = [64, 4096, 100000]


@pytest.mark.parametrize("n", NS)
def test_pass_and_unanimous(n: int) -> None:
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    for k in sorted({1, 7, n // 2, n}):
        for fn, state in ((K.pass_at_k_ci, pass_state), (K.pass_hat_k_ci, unanimous_state)):
            moments = [state(*params(c, n), k) for c in counts]
            mu, sigma = aggregate(f, [m[0] for m in moments], [m[1] for m in moments])
            check(fn(R, k), mu, sigma)


@pytest.mark.parametrize("n", NS)
def test_step_credits(n: int) -> None:
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    ks = sorted({1, 2, 64, n})
    for k in ks:
        def maj(R: Any, k: int) -> tuple[float, float, float, float]:
            return K.maj_at_k_ci(R, k)

        def tau(R: Any, k: int) -> tuple[float, float, float, float]:
            return K.g_pass_at_k_tau_ci(R, k, 0.3)

        cases: list[tuple[Callable[[Any, int], tuple[float, float, float, float]], int]] = [
            (maj, k // 2 + 1),
            (tau, max(1, math.ceil(0.3 * k - 1e-9))),
        ]
        for fn, t in cases:
            if t == 1:
                moments = [pass_state(*params(c, n), k) for c in counts]
            elif t == k:
                moments = [unanimous_state(*params(c, n), k) for c in counts]
            else:
                moments = [step_state(*params(c, n), k, t) for c in counts]
            mu, sigma = aggregate(f, [m[0] for m in moments], [m[1] for m in moments])
            check(fn(R, k), mu, sigma)


@pytest.mark.parametrize("n,k", [(64, 256), (4096, 16384), (100000, 100000)])
def test_latent_one_hot_spectrum(n: int, k: int) -> None:
    counts = states(n) if n < 100000 else [0, n // 2, n]
    R, f = bank(n, counts), freqs(counts)
    t = (2 * k) // 5
    w = np.zeros(k)
    w[t - 1] = 1.0
    moments = [step_state(*params(c, n), k, t) for c in counts]
    mu, sigma = aggregate(f, [m[0] for m in moments], [m[1] for m in moments])
    check(K.threshold_spectrum_at_k_ci(R, k, w), mu, sigma)


@pytest.mark.parametrize("n", NS)
def test_geom(n: int) -> None:
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    for k in sorted({1, 10, n, 4 * n}):
        per = []
        for c in counts:
            a, b = params(c, n)
            pm, pv = pass_state(a, b, k)
            um, uv = unanimous_state(a, b, k)
            cov = power_moment(b, a, k) * power_moment(a, b, k) - mp.rf(a, k) * mp.rf(b, k) / mp.rf(a + b, 2 * k)
            per.append((pm, pv, um, uv, cov))
        for pp, up in ((0.5, 0.5), (0.7, 0.2)):
            # questionwise: skip states whose Unanimous mean underflows a double
            if all(float(s[2]) > 1e-300 for s in per):
                d = [delta(s[0], s[1], s[2], s[3], s[4], pp, up) for s in per]
                mu, sigma = aggregate(f, [x[0] for x in d], [x[1] for x in d])
                check(K.geom_at_k_ci(R, k, pp, up), mu, sigma)
            m = sum(f)
            agg = [sum(fi * s[i] for fi, s in zip(f, per)) / (m if i in (0, 2) else m * m) for i in range(5)]
            if float(agg[2]) > 1e-300:
                mean, var = delta(agg[0], agg[1], agg[2], agg[3], agg[4], pp, up)
                check(K.geom_ds_at_k_ci(R, k, pp, up), mean, mp.sqrt(var))


@pytest.mark.parametrize("n,ks", [(64, [2, 64]), (4096, [100, 4096])])
def test_auc(n: int, ks: list[int]) -> None:
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    for k in ks:
        moments = [auc_state(*params(c, n), k) for c in counts]
        mu, sigma = aggregate(f, [m[0] for m in moments], [m[1] for m in moments])
        check(K.auc_at_k_ci(R, k), mu, sigma)


@pytest.mark.parametrize("n,k", [(64, 64), (4096, 48)])
def test_mg(n: int, k: int) -> None:
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    m = (k + 1) // 2
    values = [mp.mpf(2) / k * max(j - m, 0) for j in range(k + 1)]
    moments = [
        dense_state_shifted(values, *params(c, n)) if c > n // 2 else dense_state(values, *params(c, n))
        for c in counts
    ]
    mu, sigma = aggregate(f, [x[0] for x in moments], [x[1] for x in moments])
    check(K.mg_pass_at_k_ci(R, k), mu, sigma)


def test_geo_spectrum_star_latent() -> None:
    n, k = 64, 256
    counts = states(n)
    R, f = bank(n, counts), freqs(counts)
    w = np.zeros(k)
    w[(k + 1) // 2 :] = 2.0 / k
    values = [mp.mpf(0)] + [mp.mpf(float(v)) for v in np.cumsum(w)]
    per = []
    for c in counts:
        a, b = params(c, n)
        pm, pv = pass_state(a, b, k)
        sm, sv = dense_state(values, a, b)
        scale = mp.rf(a + b, 2 * k)
        q_k_s = mp.fsum(
            values[j] * mp.binomial(k, j) * mp.rf(a, j) * mp.rf(b, 2 * k - j) for j in range(k + 1)
        ) / scale
        per.append((pm, pv, sm, sv, (sm - q_k_s) - pm * sm))
    mm = sum(f)
    agg = [sum(fi * s[i] for fi, s in zip(f, per)) / (mm if i in (0, 2) else mm * mm) for i in range(5)]
    mean, var = delta(agg[0], agg[1], agg[2], agg[3], agg[4], 0.5, 0.5)
    check(K.geo_spectrum_star_at_k_ci(R, k), mean, mp.sqrt(var))


def test_large_bank_is_finite() -> None:
    """N = k = 100000: nothing non-finite, for every binary interval (mG,
    AUC and general spectra through the blocked products of K5)."""
    n = 100000
    rng = np.random.default_rng(7)
    R = (rng.random((40, n)) < rng.beta(0.6, 0.6, size=(40, 1))).astype(np.int8)
    R[0] = 0
    R[1] = 1
    calls: list[Callable[[], tuple[float, float, float, float]]] = [
        lambda: K.pass_at_k_ci(R, n),
        lambda: K.pass_hat_k_ci(R, n),
        lambda: K.maj_at_k_ci(R, n),
        lambda: K.g_pass_at_k_tau_ci(R, n, 0.3),
        lambda: K.geom_at_k_ci(R, n),
        lambda: K.geom_ds_at_k_ci(R, n),
        lambda: K.threshold_spectrum_at_k_ci(R, n, np.eye(1, n, n // 2)[0]),
        lambda: K.geo_spectrum_at_k_ci(R, n, 0.5, np.eye(1, n, n // 3)[0]),
        lambda: K.mg_pass_at_k_ci(R, n),
        lambda: K.auc_at_k_ci(R, n),
        lambda: K.geo_spectrum_star_at_k_ci(R, n),
        lambda: K.threshold_spectrum_at_k_ci(R, n, np.linspace(0.0, 2.0 / n, n)),
    ]
    for call in calls:
        out = call()
        assert all(math.isfinite(v) for v in out), out
        assert out[1] >= 0.0 and out[2] <= out[0] <= out[3]


# --- large k (the blocked-FFT products of docs/kernels.md, K5) ------------------


def beta_expect(fn: Callable[[MPF], MPF], a: MPF, b: MPF) -> MPF:
    """E[fn(p)], p ~ Beta(a, b), by tanh-sinh quadrature split at the mode
    and a few standard deviations either side of it."""
    mode = (a - 1) / (a + b - 2) if a + b > 2 else mp.mpf(1) / 2
    sd = mp.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    inner = sorted({mode + j * sd for j in (-8, -2, 0, 2, 8)} | {mp.mpf(0), mp.mpf(1)})
    pts = [x for x in inner if 0 <= x <= 1]
    log_beta = mp.log(mp.beta(a, b))

    def integrand(p: MPF) -> MPF:
        if p <= 0 or p >= 1:
            return mp.mpf(0) if (p <= 0 and a > 1) or (p >= 1 and b > 1) else mp.exp(-log_beta) * fn(p)
        return mp.exp((a - 1) * mp.log(p) + (b - 1) * mp.log1p(-p) - log_beta) * fn(p)

    return mp.quad(integrand, pts)


def auc_target(p: MPF, k: int) -> MPF:
    """Latent AUC@k from its definition: the trapezoid mean of Pass@j = 1 - q^j,
    j = 1..k, i.e. 1 - G(q) with G = (sum_{j<=k} q^j - q/2 - q^k/2) / (k - 1)
    and the geometric sum q (1 - q^k) / p (1 - q^k by expm1/log1p)."""
    q = 1 - p
    if p == 0:
        return mp.mpf(0)
    geometric = q * -mp.expm1(k * mp.log1p(-p)) / p
    return 1 - (geometric - q / 2 - q**k / 2) / (k - 1)


@pytest.mark.parametrize("n", [10_000, 100_000])
def test_auc_large_k(n: int) -> None:
    """N = k: mu and the centred variance E[(g - mu)^2] by quadrature."""
    counts = [0, 1, n // 3, n]
    R, f = bank(n, counts), freqs(counts)
    moments = []
    with mp.workdps(32):
        for c in counts:
            a, b = params(c, n)
            m = beta_expect(lambda p: auc_target(p, n), a, b)

            def centred(p: MPF, m: MPF = m) -> MPF:
                return (auc_target(p, n) - m) ** 2

            moments.append((m, beta_expect(centred, a, b)))
        mu, sigma = aggregate(f, [x[0] for x in moments], [x[1] for x in moments])
    check(K.auc_at_k_ci(R, n), mu, sigma)


@pytest.mark.parametrize("k,ratio", [(10_000, -5.0), (100_000, 3.0)])
def test_geometric_spectrum_large_k(k: int, ratio: float) -> None:
    """Weights w_t = c rho^t (rho = 1 + ratio/k): A_j = alpha (1 - rho^j), so
    g(p) = alpha (1 - u^k) with u = 1 - (1 - rho) p, and every moment is a
    Beta expectation of powers of u and q (quadrature at 32 digits). The
    spectrum alone and GeoSpectrum with lambda = 0.4 (whose Pass@k
    covariance is alpha Cov(q^k, u^k))."""
    n = 64
    counts = [0, 20, 32, 64]
    R, f = bank(n, counts), freqs(counts)
    with mp.workdps(32):
        rho = mp.mpf(1) + mp.mpf(ratio) / k
        total = rho * (1 - rho**k) / (1 - rho)
        c = mp.mpf("0.9") / total
        w = np.array([float(c * rho**t) for t in range(1, k + 1)])
        alpha = c * rho / (1 - rho)
        s = 1 - rho
        spec, per = [], []
        for cnt in counts:
            a, b = params(cnt, n)
            eu = beta_expect(lambda p: (1 - s * p) ** k, a, b)
            eu2 = beta_expect(lambda p: (1 - s * p) ** (2 * k), a, b)
            equ = beta_expect(lambda p: ((1 - p) * (1 - s * p)) ** k, a, b)
            sm, sv = alpha * (1 - eu), alpha * alpha * (eu2 - eu * eu)
            pm, pv = pass_state(a, b, k)
            eq = power_moment(b, a, k)
            spec.append((sm, sv))
            per.append((pm, pv, sm, sv, alpha * (equ - eq * eu)))
        mu, sigma = aggregate(f, [x[0] for x in spec], [x[1] for x in spec])
        check(K.threshold_spectrum_at_k_ci(R, k, w), mu, sigma)
        m = sum(f)
        agg = [sum(fi * x[i] for fi, x in zip(f, per)) / (m if i in (0, 2) else m * m) for i in range(5)]
        mean, var = delta(agg[0], agg[1], agg[2], agg[3], agg[4], 0.4, 0.6)
    check(K.geo_spectrum_at_k_ci(R, k, 0.4, w), mean, mp.sqrt(var))
