"""``interval="posterior"`` (issue 36, item 5; docs/rankings.md, *The
posterior*): a Bayesian posterior for the quantity the board estimates, each
model's **expected metric over the population of questions** (the default
interval's target), and its central credible interval; and the pass@k curve
of one model with it.

For one model and metric, with its per-question estimates rescaled into
[0, 1] by the metric's range, ``p`` their mean over ``G`` units (clusters
with ``cluster``, else questions; stats/default_interval.py's units), ``se``
its cluster-robust standard error (the jackknife's over the units, CR3:
``(G - 1) / G sum_g r_g^2 / (n - m_g)^2``, ``r_g`` a unit's sum of residuals and
``m_g`` its questions: the CR1 of the default interval
where the units are of one size; with clusters of unequal sizes CR1 misses
the shrinking of a big cluster's residual by its own weight in the mean,
and the posterior covered 93.0% there), ``n_w = n^2 / sum m_g^2`` the number of
independent 0/1 outcomes the mean would rest on if every unit were all right
or all wrong, and ``phi = se^2 n_w / (p (1 - p))`` the dispersion the board
shows (the variance as a share of that worst case):

* the population's mean ``mu`` is the chance of ``n* = min(n_w / phi,
  answers)`` effective outcomes, ``x = p n*`` of them successes (Kish's
  effective sample size): given the dispersion, the posterior of ``mu`` is
  the **mid-p posterior**, the equal mixture of Beta(``x``, ``n* - x + 1``)
  and Beta(``x + 1``, ``n* - x``) (the posteriors under the one-sided priors
  Beta(0, 1) and Beta(1, 0) of Clopper and Pearson's bounds; its central
  quantiles are the mid-p binomial interval, Lancaster 1961, Berry and
  Armitage 1995; its mean ``(x + 1/2) / (n* + 1)``, Jeffreys');
* the dispersion is not known, only seen through the units that carry the
  spread, ``d = min(df_eff, G - 1)`` (the Satterthwaite count: 1 when one
  question holds every failure): under Jeffreys' prior for a scale its
  posterior is ``d phi_hat / chi2_d``, at most 1 (a mean of values in [0, 1]
  is never more dispersed than all-or-nothing units), and exactly 1 where
  nothing is seen of it (``p`` at 0 or 1, or no spread);
* the posterior of ``mu`` is the mixture over the dispersion, drawn: for
  each model ``DRAWS`` draws of the dispersion and of ``mu`` given it (a
  generator seeded by the model's summaries: the same model gives the same
  interval on any board); the interval is the central ``confidence`` of the
  draws; at an end of the range (every unit there) it reaches that end and
  its other bound is exact, ``(1 - confidence)^(1 / n_w)`` from the end
  (half the posterior is the point at the end); its centre, the posterior
  mean, and its sd are the mixture's, exactly given each drawn dispersion.

Why mid-p and not Jeffreys' Beta(``x + 1/2``, ``n* - x + 1/2``), the
posterior until session 4 (the same mean; 1-9% narrower for ``n`` from 100
down to 5): where the units are all-or-nothing (pass@k with k near the
samples, a mean near 0 or 1, few questions) the posterior *is* a binomial
interval on ``n_w`` outcomes, and Jeffreys' coverage dips to 86.8-89.7% at
some chances for every ``n`` from 5 to 100 (exactly, by enumeration:
scripts/binomial_coverage.py; Brown, Cai and DasGupta 2001), which the
suite saw as worst models at 88.5-89.5%; mid-p's lowest is 92.1-93.3% at
the same ``n``, its average over chances 95.3-97.8%.

Where the units are many and spread, the dispersion is well known and this
is the mid-p interval on the effective sample size (about the t-interval in
the middle of the range, asymmetric near its ends); where few units carry
the spread (near 0 or 1, few questions or clusters) the dispersion may be as
large as all-or-nothing units allow and the interval widens towards the
binomial one on ``n_w`` outcomes. Its coverage of the population's mean is
measured on the default interval's families (scripts/coverage.py, candidate
``posterior``; the table is in docs/rankings.md). Pure numpy.
"""

from __future__ import annotations

import zlib

import numpy as np

from ... import counts as kc
from ..._arrays import FloatArray, IntArray
from ..._special import betainc
from .default_interval import Units, units_from_rows

#: Draws of the posterior per model (its quantiles' Monte Carlo error: about
#: 1-2% of the interval's half-width).
DRAWS = 4000

#: The generator's seed (fixed: the same board gives the same interval).
SEED = 36

#: Given the dispersion, the population's mean has the equal mixture of
#: Beta(x + s, n* - x + 1 - s) over these ``s`` (``x = p n*`` successes of
#: ``n*``): (0, 1) is the mid-p posterior, the average of those under the
#: one-sided priors Beta(0, 1) and Beta(1, 0) whose central quantiles are the
#: mid-p binomial interval (Lancaster 1961; Berry and Armitage 1995); (0.5,)
#: would be Jeffreys' (scripts/coverage.py's candidate ``posterior_jeffreys``).
SHIFTS: tuple[float, ...] = (0.0, 1.0)

#: The standard error's correction for the units' own weight in the mean:
#: ``cr1`` (``G / (G - 1)``), ``cr2`` or ``cr3`` (per unit, by its leverage;
#: the same as ``cr1`` where the units are of one size).
LEVERAGE = "cr3"


def _rounded(x: FloatArray) -> FloatArray:
    """``x`` to 10 significant digits (a key that a rounding of a sum does not change)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(x != 0, np.floor(np.log10(np.abs(np.where(x != 0, x, 1.0)))), 0.0)
    out: FloatArray = np.round(x / 10.0**e, 9) * 10.0**e
    return out


def _summaries(units: Units, lo_b: FloatArray, hi_b: FloatArray) -> tuple[FloatArray, ...]:
    """Per model: the rescaled mean ``p``, the cluster-robust ``se``, ``n_w``,
    ``G`` and the units that carry the spread ``df_eff`` (0 where none)."""
    L = units.models
    span = np.where(hi_b > lo_b, hi_b - lo_b, 1.0)
    mdl = units.model
    S = (units.total - units.size * lo_b[mdl]) / span[mdl]
    m, c = units.size, units.mult
    n = np.bincount(mdl, weights=c * m, minlength=L).astype(np.float64)
    G = np.bincount(mdl, weights=c, minlength=L).astype(np.float64)
    T1 = np.bincount(mdl, weights=c * S, minlength=L)
    T4 = np.bincount(mdl, weights=c * m * m, minlength=L)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.clip(T1 / n, 0.0, 1.0)
        r = S - m * p[mdl]  # each unit's sum of residuals
        ss = np.bincount(mdl, weights=c * r * r, minlength=L)
        s4 = np.bincount(mdl, weights=c * r**4, minlength=L)
        if LEVERAGE == "cr1":
            se2 = np.where(G > 1, G / (G - 1.0) * ss / (n * n), np.nan)
        else:
            # Each unit's residual shrunk by its own weight in the mean (its leverage h = m / n) undone:
            # CR2 (Bell and McCaffrey 2002) r^2 / (1 - h), CR3 (the jackknife) (G - 1) / G r^2 / (1 - h)^2;
            # both are CR1 where the units are of one size (h = 1 / G).
            h = np.minimum(m / n[mdl], 1.0 - 1e-12)
            adj: FloatArray
            if LEVERAGE == "cr2":
                adj = np.bincount(mdl, weights=c * r * r / (1.0 - h), minlength=L).astype(np.float64)
            else:
                adj = (G - 1.0) / G * np.bincount(mdl, weights=c * r * r / (1.0 - h) ** 2, minlength=L)
            se2 = np.where(G > 1, adj / (n * n), np.nan)
        n_w = n * n / T4
        df_eff = np.where(s4 > 0, ss * ss / s4, 0.0)
    # A mean at an end by a rounding of its sums is at that end.
    p = np.where(p > 1.0 - 1e-12, 1.0, np.where(p < 1e-12, 0.0, p))
    return p, se2, n_w, G, df_eff, span


def _end_bound(n: float, a: float, shift: FloatArray) -> float:
    """The lower bound of an all-right board of ``n`` effective outcomes:
    the ``a`` quantile of the equal mixture of Beta(n + s, 1 - s) over the
    shifts ``s`` (in [0, 1]; the CDF of Beta(n + s, 1 - s) at ``t`` is
    ``t^n`` for s = 0 and 0 below 1 for s = 1: a closed form; other shifts,
    Jeffreys' s = 1/2, by bisection on the CDF). The upper bound of an
    all-wrong board is 1 less this."""
    if set(shift.tolist()) <= {0.0, 1.0}:
        share = float(np.mean(shift == 0.0))  # the mixture's weight on Beta(n, 1); the rest is the point 1
        return float((a / share) ** (1.0 / n)) if share > 0 else 1.0
    lo_, hi_ = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo_ + hi_)
        cdf = float(np.mean([betainc(n + s, 1.0 - s, mid) if s < 1.0 else 0.0 for s in shift.tolist()]))
        lo_, hi_ = (mid, hi_) if cdf < a else (lo_, mid)
    return 0.5 * (lo_ + hi_)


def population_posterior(units: Units, samples: FloatArray, confidence: float, lo_b: FloatArray, hi_b: FloatArray
                         ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Every model's posterior (module docstring): ``(mean, sd, lo, hi)`` on
    the metric's scale; ``samples`` its answers, ``lo_b``/``hi_b`` the range
    of its per-question estimates; NaN for a model with fewer than two
    units."""
    p, se2, n_w, G, df_eff, span = _summaries(units, lo_b, hi_b)
    L = units.models
    v = p * (1.0 - p)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi_hat = np.clip(np.where(v > 0, se2 * n_w / v, 1.0), 1e-12, 1.0)
    d = np.minimum(df_eff, G - 1.0)
    known = (v > 0) & (d > 0) & (phi_hat < 1.0)  # else the dispersion is 1 (nothing seen of it, or all-or-nothing)
    cap = np.maximum(samples, n_w)  # (answers >= questions >= n_w)
    a = (1.0 - confidence) / 2.0
    mean, sd, lo, hi = (np.full(L, np.nan) for _ in range(4))
    shift = np.asarray(SHIFTS, np.float64)
    s = shift[np.arange(DRAWS) % len(shift)]  # (each component of the mixture an equal share of the draws)
    s_mean, s_var = float(shift.mean()), float(shift.var())
    for i in np.flatnonzero(G >= 2):
        # Each model's own generator, seeded by what its posterior depends on (to 10 digits): the same
        # model gets the same draws whatever else is on the board (its curve, --by subsets).
        key = np.array([p[i], phi_hat[i], d[i], n_w[i], cap[i], float(known[i])])
        rng = np.random.default_rng([SEED, zlib.crc32(_rounded(key).tobytes())])
        phi = np.ones(DRAWS)
        if known[i]:
            phi = np.minimum(d[i] * phi_hat[i] / rng.chisquare(d[i], DRAWS), 1.0)
        n_star = np.minimum(n_w[i] / phi, cap[i])
        x = p[i] * n_star
        # The moments exactly given each drawn dispersion (the mixture over the shifts), then over the dispersion.
        T = n_star + 1.0
        c1 = (x + s_mean) / T  # the components' means, averaged over the shifts, and their squares'
        c2 = ((x + s_mean) ** 2 + s_var) / (T * T)
        mean[i] = float(c1.mean())
        sd[i] = np.sqrt(max(float(((c1 - c2) / (T + 1.0) + c2).mean()) - mean[i] ** 2, 0.0))
        if p[i] <= 0.0 or p[i] >= 1.0:
            # At an end (nothing seen of the dispersion: 1, n* = n_w) the far bound exactly, not by draws (half of
            # the mid-p mixture is the point at the end: draws would spend half their number there).
            far = _end_bound(float(n_star[0]), a, shift)
            lo[i], hi[i] = (0.0, 1.0 - far) if p[i] <= 0.0 else (far, 1.0)
            continue
        mu = rng.beta(x + s, n_star - x + 1.0 - s)
        lo[i], hi[i] = np.quantile(mu, [a, 1.0 - a])  # (numpy's default, linear between the order statistics)
    return (lo_b + span * mean, span * sd, lo_b + span * np.clip(lo, 0.0, 1.0),
            lo_b + span * np.clip(hi, 0.0, 1.0))


def curve(cats: IntArray, ks: list[int], confidence: float) -> FloatArray:
    """pass@k of one model for each k: rows (posterior mean, lo, hi, classic
    estimate) of :func:`population_posterior` over its questions; NaN where
    k exceeds a question's samples."""
    n = cats.sum(axis=1)
    c = cats[:, -1]
    out = np.full((len(ks), 4), np.nan)
    one = np.zeros(len(n), np.int64)
    for i, k in enumerate(ks):
        if k <= int(n.min()):
            x = np.asarray(kc.pass_at_k(n, c, k), np.float64)
            units = units_from_rows(x, one, None, 1)
            mu, _, lo, hi = population_posterior(units, np.array([float(n.sum())]), confidence, np.zeros(1),
                                                 np.ones(1))
            out[i] = (mu[0], lo[0], hi[0], float(x.mean()))
    return out
