"""Candidate intervals over questions, on arrays of simulated boards, for the
coverage suite (issue 36; tests/coverage_families.py makes the boards,
``python scripts/coverage.py`` runs them, docs/rankings.md *Coverage*).

Every candidate takes :class:`Units`, the per-(board, model) summaries of
the per-question estimates ``x`` of a metric (their mean, its cluster-robust
standard error, the units that carry it) and returns ``(lo, hi)`` per
(board, model). The shipped default is :func:`default`
(kscore.leaderboard.stats.default_interval); the others are the prototypes
it was chosen from.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from scipy import special, stats

from kscore.leaderboard.stats.small import wilson_bounds

F = npt.NDArray[np.float64]
I = npt.NDArray[np.int64]  # noqa: E741


@dataclass
class Units:
    """Per (board, model): ``mean``, ``se`` (CR1; NaN with fewer than two
    units), ``n`` questions, ``G`` units (clusters or questions),
    ``samples``; per (board, model, unit): the sums ``S`` of ``x`` and the
    questions ``N`` of each unit (0: none), for the bootstraps."""

    mean: F
    se: F
    n: F
    G: F
    samples: F
    S: F
    N: F
    #: The range of the per-question values (bayes@N: ``[1 / (n + 2), (n + 1) / (n + 2)]``), per (board, model).
    lo_b: F | float = 0.0
    hi_b: F | float = 1.0
    #: The count of answers where ``samples`` is another cap (bayes@N: the information of its answers).
    answers: F | None = None

    @property
    def resid(self) -> F:
        """Each unit's sum of residuals ``x - mean``."""
        out: F = self.S - self.N * self.mean[..., None]
        return out

    @property
    def df_eff(self) -> F:
        """The Satterthwaite count of the units that carry the variance (NaN: none)."""
        w = self.resid**2
        sw, sw2 = w.sum(axis=-1), (w * w).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            out: F = np.where(sw2 > 0, sw * sw / sw2, np.nan)
        return out

    @property
    def n_worst(self) -> F:
        """``n^2 / sum_g m_g^2``: the number of independent 0/1 outcomes the
        mean would rest on if every unit were all right or all wrong."""
        out: F = self.n**2 / (self.N**2).sum(axis=-1)
        return out


def units(x: F, n_cells: I, cluster: I | None, bounds: tuple[F | float, F | float] = (0.0, 1.0)) -> Units:
    """:class:`Units` of per-question estimates ``x`` (boards, models,
    questions; NaN where missing), the samples of each cell and the
    questions' clusters (None: each question its own)."""
    present = ~np.isnan(x)
    x0 = np.where(present, x, 0.0)
    n = present.sum(axis=-1).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = x0.sum(axis=-1) / n
    if cluster is None:
        S, N = x0, present.astype(np.float64)
    else:
        onehot = np.zeros((x.shape[-1], int(cluster.max()) + 1))
        onehot[np.arange(x.shape[-1]), cluster] = 1.0
        S, N = x0 @ onehot, present.astype(np.float64) @ onehot
    G = (N > 0).sum(axis=-1).astype(np.float64)
    r = S - N * mean[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.where(G > 1, np.sqrt(G / (G - 1) * (r * r).sum(axis=-1) / n**2), np.nan)
    samples = np.where(present, n_cells, 0).sum(axis=-1).astype(np.float64)
    return Units(mean, se, n, G, samples, S, N, bounds[0], bounds[1])


def bayes_capped(u: Units, n_cells: I) -> Units:
    """``u`` of bayes@N with the cap on the effective outcomes the
    leaderboard uses (kscore.leaderboard.stats.default_interval.bayes_answers),
    written here from its definition: ``Q^2 / sum_i n_i s_i^2``, ``s_i`` the
    step one answer of question ``i`` makes in its rescaled estimate
    ``(c + 1) / (n_i + 2)`` (``1 / (n_i + 2)`` over the range's width ``N /
    (N + 2)``, ``N`` the most answers of the model on a question); the count
    of answers kept in ``answers``."""
    n = np.where(n_cells > 0, n_cells, 0).astype(np.float64)
    N = n.max(axis=-1, keepdims=True)
    step = 1.0 / (n + 2.0) / (N / (N + 2.0))
    return replace(u, samples=u.n**2 / (n * step**2).sum(axis=-1), answers=u.samples)


def _t(confidence: float, df: F) -> F:
    out: F = stats.t.ppf(0.5 + confidence / 2, np.maximum(df, 1e-9))
    return out


def _clip(lo: F, hi: F) -> tuple[F, F]:
    return np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)


def normal(u: Units, confidence: float) -> tuple[F, F]:
    """Today's default: ``mean +- z se``, clipped."""
    z = float(special.ndtri(0.5 + confidence / 2))
    return _clip(u.mean - z * u.se, u.mean + z * u.se)


def t_interval(u: Units, confidence: float) -> tuple[F, F]:
    """``mean +- t_{G-1} se``, clipped: the plain t-interval (the width baseline)."""
    t = _t(confidence, u.G - 1)
    return _clip(u.mean - t * u.se, u.mean + t * u.se)


def wilson_eff(u: Units, confidence: float) -> tuple[F, F]:
    """Today's ``interval="wilson"`` (kscore.leaderboard.stats.small)."""
    shape = u.mean.shape
    lo, hi = wilson_bounds(u.mean.ravel(), u.se.ravel(), u.n.ravel().astype(np.int64),
                           u.G.ravel().astype(np.int64), u.samples.ravel().astype(np.int64), confidence,
                           df_eff=u.df_eff.ravel())
    return lo.reshape(shape), hi.reshape(shape)


def wilson_bound(p: F, n: F, q: F, upper: bool) -> F:
    """The Wilson score bound of a proportion ``p`` on ``n`` outcomes with
    quantile ``q`` (lower, or ``upper``)."""
    q2 = q * q
    with np.errstate(invalid="ignore", divide="ignore"):
        d = 1.0 + q2 / n
        centre = (p + q2 / (2 * n)) / d
        half = q / d * np.sqrt(np.maximum(p * (1 - p), 0.0) / n + q2 / (4 * n * n))
    out: F = np.clip(centre + half if upper else centre - half, 0.0, 1.0)
    return out


def score(u: Units, confidence: float, prior: float = 2.0, df: str = "units", floor: bool = True,
          info: str = "eff") -> tuple[F, F]:
    """The Wilson score interval on the effective number of outcomes with a
    moderated dispersion: ``phi = se^2 n_w / (p (1 - p))`` (the variance as a
    share of the most a bounded value of this mean can have: every unit all
    right or all wrong), shrunk towards 1 with ``prior`` pseudo-units,
    ``(prior + d phi) / (prior + d)``, ``d`` the information about it
    (``info``: ``eff``, the units that carry the variance; ``units``: ``G -
    1``); the outcomes ``n_w / phi`` (at most the samples, with ``floor``);
    the quantile ``t`` on ``G - 1`` (``df="units"``) or on ``prior + d``
    (``"moderated"``, at most ``G - 1``)."""
    span = np.asarray(u.hi_b) - np.asarray(u.lo_b)
    p = np.clip((u.mean - u.lo_b) / span, 0.0, 1.0)
    se = u.se / span
    nw = u.n_worst
    v = p * (1 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi_hat = np.where(v > 0, se**2 * nw / v, 0.0)
    d = np.nan_to_num(u.df_eff) if info == "eff" else u.G - 1
    d = np.minimum(d, u.G - 1)
    phi = np.clip((prior + d * phi_hat) / (prior + d), 0.0, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        neff = nw / phi
    if floor:
        neff = np.minimum(neff, u.samples)
    dof = u.G - 1 if df == "units" else np.minimum(u.G - 1, prior + d)
    q = _t(confidence, dof)
    lo = u.lo_b + span * wilson_bound(p, neff, q, False)
    hi = u.lo_b + span * wilson_bound(p, neff, q, True)
    bad = ~(u.G > 1)
    return np.where(bad, np.nan, lo), np.where(bad, np.nan, hi)


def _draws(u: Units, rng: np.random.Generator, R: int) -> tuple[F, F]:
    """Bootstrap over units (the same resample of units for every model of a
    board): each draw's mean and CR1 standard error, (R, boards, models)."""
    B, L, U = u.S.shape
    W = rng.multinomial(U, np.full(U, 1.0 / U), (R, B)).astype(np.float64)  # (R, B, U)
    sS = np.einsum("rbu,blu->rbl", W, u.S)
    sN = np.einsum("rbu,blu->rbl", W, u.N)
    sSS = np.einsum("rbu,blu->rbl", W, u.S * u.S)
    sSN = np.einsum("rbu,blu->rbl", W, u.S * u.N)
    sNN = np.einsum("rbu,blu->rbl", W, u.N * u.N)
    g = np.einsum("rbu,blu->rbl", W, (u.N > 0).astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        m = sS / sN
        ss = np.maximum(sSS - 2 * m * sSN + m * m * sNN, 0.0)
        se = np.where(g > 1, np.sqrt(g / (g - 1) * ss / sN**2), np.nan)
    return m, se


def boot_t(u: Units, confidence: float, rng: np.random.Generator, R: int = 400) -> tuple[F, F]:
    """The bootstrap-t over units (clusters): ``mean - t*_{hi/lo} se``."""
    m, se = _draws(u, rng, R)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = (m - u.mean[None]) / se
        t = np.where(se > 0, t, np.where(m == u.mean[None], 0.0, np.sign(m - u.mean[None]) * np.inf))
    a = (1 - confidence) / 2
    ql = np.nanquantile(t, a, axis=0)
    qh = np.nanquantile(t, 1 - a, axis=0)
    with np.errstate(invalid="ignore"):
        lo = np.where(np.isinf(qh), 0.0, u.mean - qh * u.se)
        hi = np.where(np.isinf(ql), 1.0, u.mean - ql * u.se)
    return _clip(lo, hi)


def bca(u: Units, confidence: float, rng: np.random.Generator, R: int = 400) -> tuple[F, F]:
    """BCa over units (jackknife acceleration over units)."""
    m, _ = _draws(u, rng, R)
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = (np.sum(m < u.mean[None], axis=0) + 0.5 * np.sum(m == u.mean[None], axis=0)) / R
        z0 = special.ndtri(np.clip(frac, 1.0 / R, 1 - 1.0 / R))
        totS, totN = u.S.sum(axis=-1), u.N.sum(axis=-1)
        jack = (totS[..., None] - u.S) / (totN[..., None] - u.N)
        jack = np.where(u.N > 0, jack, np.nan)
        jm = np.nanmean(jack, axis=-1)
        dlt = jm[..., None] - jack
        acc = np.nansum(dlt**3, axis=-1) / (6 * np.nansum(dlt**2, axis=-1) ** 1.5)
        acc = np.nan_to_num(acc)
        za = special.ndtri((1 - confidence) / 2)
        levels = []
        for zz in (za, -za):
            levels.append(special.ndtr(z0 + (z0 + zz) / (1 - acc * (z0 + zz))))
    ms = np.sort(m, axis=0)
    idx_lo = np.clip((levels[0] * R).astype(np.int64), 0, R - 1)
    idx_hi = np.clip((levels[1] * R).astype(np.int64), 0, R - 1)
    lo = np.take_along_axis(ms, idx_lo[None], axis=0)[0]
    hi = np.take_along_axis(ms, idx_hi[None], axis=0)[0]
    return _clip(lo, hi)


def _rescaled(u: Units) -> tuple[F, F, F]:
    span = np.asarray(u.hi_b, np.float64) - np.asarray(u.lo_b, np.float64)
    p = np.clip((u.mean - u.lo_b) / span, 0.0, 1.0)
    return p, u.se / span, span + 0.0 * p


def hull(u: Units, confidence: float, few: float = 5.0, df: str = "units") -> tuple[F, F]:
    """The t-interval on ``G - 1`` degrees of freedom, widened to the Wilson
    score interval on ``n_w`` worst-case outcomes (every unit all right or
    all wrong) where that interval's end lies where fewer than ``few``
    minority units are expected (``n_w mu (1 - mu) <= few``): the union of
    the two acceptance sets, so each end is the farther of the two."""
    p, se, span = _rescaled(u)
    nw = u.n_worst
    q = _t(confidence, u.G - 1)
    # The zone near each end: mu (1 - mu) <= few / n_w.
    c = few / nw
    with np.errstate(invalid="ignore"):
        disc = np.sqrt(np.maximum(1.0 - 4.0 * c, 0.0))
    mu_top = np.where(4.0 * c < 1.0, 0.5 * (1.0 + disc), 0.0)  # the zone is [mu_top, 1] (everything if 4c >= 1)
    mu_bot = np.where(4.0 * c < 1.0, 0.5 * (1.0 - disc), 1.0)  # [0, mu_bot]
    wl, wu = wilson_bound(p, nw, q, False), wilson_bound(p, nw, q, True)
    ell = np.where(p >= mu_top, np.maximum(wl, np.minimum(mu_top, p)), np.where(p <= mu_bot, wl, p))
    ell = np.where((p >= mu_top) & (p <= mu_bot), wl, ell)
    h = np.where(p <= mu_bot, np.minimum(wu, np.maximum(mu_bot, p)), np.where(p >= mu_top, wu, p))
    h = np.where((p >= mu_top) & (p <= mu_bot), wu, h)
    lo = np.minimum(p - q * se, ell)
    hi = np.maximum(p + q * se, h)
    lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    bad = ~(u.G > 1)
    return np.where(bad, np.nan, u.lo_b + span * lo), np.where(bad, np.nan, u.lo_b + span * hi)


def _core_bound(p: F, se2: F, nw: F, samples: F, q: F, G: F, prior: float, upper: bool, core: str,
                z: float = 1.959963984540054) -> F:
    """One end of the interval of boards with mean ``p`` and variance of the
    mean ``se2`` (rescaled), by ``core``: ``score`` (Wilson on ``n_w /
    phi`` with the dispersion ``phi`` moderated towards 1 by ``prior``
    pseudo-units of weight ``prior / (prior + G - 1)``; 1 at the ends),
    ``wilson`` (the same without the moderation), ``cp`` (Clopper-Pearson on
    the effective counts), ``wcc`` (the continuity-corrected Wilson of
    Newcombe 1998, method 4, on the effective counts: the shipped default),
    ``t`` (``p -+ q se``) or ``wshape`` (Wilson's shape on ``n_w``, the
    data's variance)."""
    if core == "t":
        return np.clip(p + (1 if upper else -1) * q * np.sqrt(se2), 0.0, 1.0)
    if core == "wshape":
        d = 1.0 + q * q / nw
        half = q * np.sqrt(se2 + q * q / (4 * nw * nw)) / d
        return np.clip((p + q * q / (2 * nw)) / d + (1 if upper else -1) * half, 0.0, 1.0)
    v = p * (1 - p)
    w = prior if core == "score" else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        phi_hat = np.where(v > 0, se2 * nw / v, 1.0)
        phi = np.clip((w + (G - 1) * phi_hat) / (w + G - 1), 1e-12, 1.0)
        neff = np.minimum(nw / phi, samples)
        x = p * neff
        if core == "cp":
            if upper:
                return np.asarray(np.where(x < neff, special.betaincinv(x + 1, np.maximum(neff - x, 1e-300),
                                                                        special.ndtr(z)), 1.0), np.float64)
            return np.asarray(np.where(x > 0, special.betaincinv(np.maximum(x, 1e-300), neff - x + 1,
                                                                 special.ndtr(-z)), 0.0), np.float64)
        if core == "wcc":
            z2 = z * z
            if upper:
                r = z2 + 2 - 1 / neff + 4 * p * (neff * (1 - p) - 1)
                b = (2 * neff * p + z2 + 1 + z * np.sqrt(np.maximum(r, 0.0))) / (2 * (neff + z2))
                return np.asarray(np.where(p >= 1, 1.0, np.minimum(b, 1.0)), np.float64)
            r = z2 - 2 - 1 / neff + 4 * p * (neff * (1 - p) + 1)
            b = (2 * neff * p + z2 - 1 - z * np.sqrt(np.maximum(r, 0.0))) / (2 * (neff + z2))
            return np.asarray(np.where(p <= 0, 0.0, np.maximum(b, 0.0)), np.float64)
    return wilson_bound(p, neff, q, upper)


def envelope(u: Units, confidence: float, core: str = "wcc", prior: float = 0.0, few: float = 0.0) -> tuple[F, F]:
    """:func:`_core_bound` made monotone: the lower bound is the smallest
    over the boards that raise the ``k`` best units to the top of the range
    (``k = 0..G``), the upper the largest over those lowering the ``k`` worst
    to the bottom; with ``few``, hulled with the worst-case Wilson where fewer
    than ``few`` minority units are expected (:func:`hull`). (Every prefix is
    made, dense: the shipped module compresses runs of equal units.)"""
    p0, _, span = _rescaled(u)
    S = (u.S - u.N * np.asarray(u.lo_b)[..., None]) / span[..., None]  # unit sums, rescaled
    N = u.N
    n = N.sum(axis=-1)
    nw = u.n_worst
    G = u.G
    q = _t(confidence, G - 1)
    out = []
    for upper in (False, True):
        y = np.where(N > 0, S / np.where(N > 0, N, 1.0), -np.inf if not upper else np.inf)
        order = np.argsort(-y if not upper else y, axis=-1, kind="stable")
        Ss = np.take_along_axis(S, order, -1)
        Ns = np.take_along_axis(N, order, -1)
        target = Ns if not upper else 0.0 * Ns  # raised to the top, or lowered to the bottom
        zero = np.zeros((*S.shape[:-1], 1))
        dS = np.concatenate([zero, np.cumsum(target - Ss, -1)], -1)
        dSS = np.concatenate([zero, np.cumsum(target**2 - Ss**2, -1)], -1)
        dSN = np.concatenate([zero, np.cumsum(target * Ns - Ss * Ns, -1)], -1)
        sumS = S.sum(-1)[..., None] + dS
        sumSS = (S * S).sum(-1)[..., None] + dSS
        sumSN = (S * N).sum(-1)[..., None] + dSN
        sumNN = (N * N).sum(-1)[..., None]
        with np.errstate(invalid="ignore", divide="ignore"):
            mu = sumS / n[..., None]
            mu = np.where(mu > 1 - 1e-9, 1.0, np.where(mu < 1e-9, 0.0, mu))
            ss = np.maximum(sumSS - 2 * mu * sumSN + mu * mu * sumNN, 0.0)
            se2 = G[..., None] / (G[..., None] - 1) * ss / n[..., None] ** 2
        b = _core_bound(np.clip(mu, 0, 1), se2, nw[..., None], u.samples[..., None], q[..., None], G[..., None],
                        prior, upper, core, float(special.ndtri(0.5 + confidence / 2)))
        out.append(np.nanmax(b, -1) if upper else np.nanmin(b, -1))
    lo, hi = out
    if few > 0:
        hl, hh = hull(Units(p0, np.zeros_like(p0), u.n, u.G, u.samples, u.S, u.N), confidence, few)
        lo, hi = np.minimum(lo, hl), np.maximum(hi, hh)
    bad = ~(u.G > 1)
    return (np.where(bad, np.nan, u.lo_b + span * np.clip(lo, 0, 1)),
            np.where(bad, np.nan, u.lo_b + span * np.clip(hi, 0, 1)))


def default(u: Units, confidence: float) -> tuple[F, F]:
    """The shipped default (kscore.leaderboard.stats.default_interval) on
    the suite's arrays: every (board, model) one model."""
    from kscore.leaderboard.stats import default_interval as di

    B, L, U = u.S.shape
    ok = u.N > 0
    bi, li, _ = np.nonzero(ok)
    units = di.Units((bi * L + li).astype(np.int64), u.S[ok], u.N[ok], np.ones(int(ok.sum())), B * L)
    lo_b = np.broadcast_to(np.asarray(u.lo_b, np.float64), (B, L)).ravel()
    hi_b = np.broadcast_to(np.asarray(u.hi_b, np.float64), (B, L)).ravel()
    lo, hi = di.bounds(units, u.samples.ravel(), confidence, lo_b, hi_b)
    return lo.reshape(B, L), hi.reshape(B, L)


def beta_eff(u: Units, confidence: float, prior: float = 0.5, df: bool = False, mix: int = 0) -> tuple[F, F]:
    """Prototype of ``interval="posterior"`` (issue 36, item 5): the central
    credible interval of the Beta(``x* + prior``, ``n* - x* + prior``)
    posterior of the population mean, ``n*`` the effective number of
    outcomes of the default (``n_w / phi``, at most the samples), ``x* = p
    n*``; ``df``: ``n*`` scaled by ``(z / t_{G-1})^2`` (Korn and Graubard);
    ``mix``: the posterior a mixture over ``mix`` values of the dispersion
    from its estimate to 1, weighted by the chi-square likelihood of the
    units' spread on ``G - 1`` df."""
    p, se, span = _rescaled(u)
    nw = u.n_worst
    v = p * (1 - p)
    a = (1 - confidence) / 2
    z = float(special.ndtri(0.5 + confidence / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        phi_hat = np.clip(np.where(v > 0, se**2 * nw / v, 1.0), 1e-12, 1.0)
    scale = (z / _t(confidence, u.G - 1)) ** 2 if df else 1.0

    def one(phi: F) -> tuple[F, F]:
        with np.errstate(invalid="ignore", divide="ignore"):
            n = np.minimum(nw / phi, np.maximum(u.samples, nw)) * scale
        x = p * n
        return (np.where(x > 0, special.betaincinv(x + prior, n - x + prior, a), 0.0),
                np.where(x < n, special.betaincinv(x + prior, n - x + prior, 1 - a), 1.0))

    if mix == 0:
        lo, hi = one(phi_hat)
    else:
        from scipy import optimize  # noqa: F401

        grid = [phi_hat + (1 - phi_hat) * t for t in np.linspace(0.0, 1.0, mix)]
        dfree = np.maximum(u.G - 1, 1.0)
        # chi-square log likelihood of ss = df se2 / sigma2(phi) (sigma2 ~ phi): -df/2 log phi - df phi_hat / (2 phi)
        logw = np.stack([-dfree / 2 * np.log(g) - dfree * phi_hat / (2 * g) for g in grid])
        logw = np.where(np.isfinite(logw), logw, 0.0)
        wts = np.exp(logw - logw.max(axis=0))
        wts /= wts.sum(axis=0)
        # the mixture's quantiles by bisection on its cdf
        def cdf(t: F) -> F:
            out = np.zeros_like(t)
            for w_, g in zip(wts, grid):
                with np.errstate(invalid="ignore", divide="ignore"):
                    n = np.minimum(nw / g, np.maximum(u.samples, nw)) * scale
                x = p * n
                out += w_ * special.betainc(x + prior, n - x + prior, t)
            return out
        bl, bh = np.zeros_like(p), np.ones_like(p)
        ql, qh = np.zeros_like(p), np.ones_like(p)
        for target, res in ((a, "lo"), (1 - a, "hi")):
            l_, h_ = np.zeros_like(p), np.ones_like(p)
            for _ in range(40):
                mid = 0.5 * (l_ + h_)
                below = cdf(mid) < target
                l_, h_ = np.where(below, mid, l_), np.where(below, h_, mid)
            if res == "lo":
                ql = 0.5 * (l_ + h_)
            else:
                qh = 0.5 * (l_ + h_)
        lo, hi = ql, qh
        del bl, bh
    bad = ~(u.G > 1)
    return (np.where(bad, np.nan, u.lo_b + span * np.clip(lo, 0, 1)),
            np.where(bad, np.nan, u.lo_b + span * np.clip(hi, 0, 1)))


def beta_mix(u: Units, confidence: float, prior: float = 0.5, K: int = 16, dfree: str = "eff", trunc: bool = False,
             ends: bool = False) -> tuple[F, F]:
    """Prototype of ``interval="posterior"``: the dispersion ``phi`` has the
    posterior of a scale under Jeffreys' prior, ``d phi_hat / chi2_d`` (``d``
    the units that carry the spread: ``df_eff``, at most ``G - 1``), at most
    1; given ``phi``, the population mean is Beta(``x* + prior``, ``n* - x*
    + prior``) on ``n* = min(n_w / phi, samples)`` outcomes; the interval is
    the central one of the mixture over ``K`` equal-weight quantiles of
    ``phi``."""
    p, se, span = _rescaled(u)
    nw = u.n_worst
    v = p * (1 - p)
    a = (1 - confidence) / 2
    with np.errstate(invalid="ignore", divide="ignore"):
        phi_hat = np.clip(np.where(v > 0, se**2 * nw / v, 1.0), 1e-12, 1.0)
    d = np.minimum(np.nan_to_num(u.df_eff, nan=0.0), u.G - 1) if dfree == "eff" else u.G - 1
    d = np.maximum(d, 1e-6)
    qs = (np.arange(K) + 0.5) / K
    comps = []
    # P(phi <= 1) = P(chi2_d >= d phi_hat): the quantiles of phi truncated to (0, 1] (``trunc``), or clamped there
    top = stats.chi2.sf(d * phi_hat, d) if trunc else np.ones_like(d)
    for q in qs:
        phi = np.where(v > 0, np.minimum(d * phi_hat / stats.chi2.isf(q * top, d), 1.0), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            n = np.minimum(nw / phi, np.maximum(u.samples, nw))
        x = p * n
        comps.append((x + prior, n - x + prior))

    def cdf(t: F) -> F:
        out = np.zeros_like(t)
        for al, be in comps:
            out += special.betainc(al, be, t)
        return out / K

    res = []
    for target in (a, 1 - a):
        lo_, hi_ = np.zeros_like(p), np.ones_like(p)
        for _ in range(36):
            mid = 0.5 * (lo_ + hi_)
            below = cdf(mid) < target
            lo_, hi_ = np.where(below, mid, lo_), np.where(below, hi_, mid)
        res.append(0.5 * (lo_ + hi_))
    lo, hi = res
    if ends:  # every unit at an end: that end is in the interval (Brown, Cai and DasGupta's Jeffreys interval)
        lo, hi = np.where(p <= 0, 0.0, lo), np.where(p >= 1, 1.0, hi)
    bad = ~(u.G > 1)
    return (np.where(bad, np.nan, u.lo_b + span * np.clip(lo, 0, 1)),
            np.where(bad, np.nan, u.lo_b + span * np.clip(hi, 0, 1)))


def posterior(u: Units, confidence: float) -> tuple[F, F]:
    """The shipped ``interval="posterior"`` (kscore.leaderboard.stats.posterior)
    on the suite's arrays: every (board, model) one model."""
    from kscore.leaderboard.stats import default_interval as di
    from kscore.leaderboard.stats.posterior import population_posterior

    B, L, U = u.S.shape
    ok = u.N > 0
    bi, li, _ = np.nonzero(ok)
    units = di.Units((bi * L + li).astype(np.int64), u.S[ok], u.N[ok], np.ones(int(ok.sum())), B * L)
    lo_b = np.broadcast_to(np.asarray(u.lo_b, np.float64), (B, L)).ravel()
    hi_b = np.broadcast_to(np.asarray(u.hi_b, np.float64), (B, L)).ravel()
    _, _, lo, hi = population_posterior(units, u.samples.ravel(), confidence, lo_b, hi_b)
    return lo.reshape(B, L), hi.reshape(B, L)


def posterior_shifts(u: Units, confidence: float, shifts: tuple[float, ...]) -> tuple[F, F]:
    """:func:`posterior` with another mixture given the dispersion
    (stats/posterior.py's ``SHIFTS``: ``(0.5,)`` is Jeffreys' Beta(x + 1/2,
    n* - x + 1/2), the posterior before the mid-p one)."""
    from kscore.leaderboard.stats import posterior as post

    old = post.SHIFTS
    post.SHIFTS = shifts
    try:
        return posterior(u, confidence)
    finally:
        post.SHIFTS = old


def posterior_leverage(u: Units, confidence: float, leverage: str) -> tuple[F, F]:
    """:func:`posterior` with another correction of its standard error for
    the units' leverage (stats/posterior.py's ``LEVERAGE``)."""
    from kscore.leaderboard.stats import posterior as post

    old = post.LEVERAGE
    post.LEVERAGE = leverage
    try:
        return posterior(u, confidence)
    finally:
        post.LEVERAGE = old
