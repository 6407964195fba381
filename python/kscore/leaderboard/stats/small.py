"""An interval over questions that holds its level on small boards
(docs/rankings.md, *Small boards*): ``interval="wilson"``.

The normal interval ``mean +- z se`` over questions undercovers where the
central limit theorem has not set in: few questions (or few clusters), and
estimates near the ends of the metric's range, where it can even have zero
width (every question 0 or 1). Bowyer et al. (arXiv 2503.01747) show this
for evaluation boards and recommend score or Bayesian intervals there. This
module gives the Wilson score interval on the *effective number of
questions*, with Student's t quantile on the effective number of clusters:

* the estimate ``p`` rescaled into [0, 1] by the metric's bounds;
* ``n_eff = p (1 - p) / se^2`` (Kish's effective sample size: the number of
  independent 0/1 outcomes that would give the same standard error; ``se``
  is the board's, cluster-robust with clusters), at most the model's
  samples; where ``se`` is 0 or ``p`` is 0 or 1 (no spread seen),
  ``n_eff`` = the number of questions;
* the Wilson score interval for ``p`` on ``n_eff`` outcomes with ``t`` in
  place of ``z``, ``t`` the two-sided quantile of Student's t with
  ``min(G - 1, df_eff)`` degrees of freedom (``G``: questions, or clusters;
  ``df_eff``: :func:`effective_df`, the number of groups that carry the
  variance, since near the ends a few clusters carry all of it and ``se``
  is then known from those few).

It was chosen by measured coverage (scripts/small_coverage.py,
tests/test_small_coverage.py and the tables in docs/rankings.md): at 95%
it holds at least 93% on boards of 10 to 100 questions, 1 to 16 samples
each, means from 0.01 to 0.99, with 2 to 20 clusters of questions or none,
where the normal interval falls to 20-80% near the ends and t on ``G - 1``
to 85-91% in the skewed clustered cases; its price is width where the
spread is uneven (about 1.2 times the normal interval's at 100 questions
away from the ends)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray
from ..._interval import z_value
from ..._special import betainc
from .scores import Scores
from .states import row_sums


def t_two_sided(confidence: float, df: float) -> float:
    """The ``t`` with ``P(|T| <= t) = confidence`` for Student's t with
    ``df`` (>= 1) degrees of freedom: for integer ``df`` the exact finite
    series of ``P(|T| <= t)`` (Abramowitz and Stegun 26.7.3-4, in ``theta =
    atan(t / sqrt(df))``), otherwise ``1 - I_{cos^2 theta}(df/2, 1/2)`` (the
    regularised incomplete beta, 26.7.1), solved by bisection on ``theta``;
    past 2,000 degrees of freedom the Cornish-Fisher expansion (26.7.5).

    Examples:
        >>> round(t_two_sided(0.95, 9), 6)
        2.262157
        >>> round(t_two_sided(0.95, 2.5), 6)
        3.574655
    """
    if not 0.0 < confidence < 1.0 or not df >= 1:
        raise ValueError(f"t_two_sided needs confidence in (0, 1) and df >= 1; got {confidence}, {df}")
    if df > 2000:
        z = z_value(confidence)
        g1 = (z**3 + z) / 4
        g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
        g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
        return float(z + g1 / df + g2 / df**2 + g3 / df**3)
    lo, hi = 0.0, math.pi / 2
    for _ in range(64):
        mid = 0.5 * (lo + hi)
        if (_abs_t_cdf(mid, int(df)) if df == int(df) else 1.0 - betainc(df / 2, 0.5, math.cos(mid) ** 2)) \
                < confidence:
            lo = mid
        else:
            hi = mid
    return math.tan(0.5 * (lo + hi)) * math.sqrt(df)


def _abs_t_cdf(theta: float, df: int) -> float:
    """``P(|T| <= sqrt(df) tan(theta))`` for integer ``df`` (A&S 26.7.3-4)."""
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 1:
        total, term = 0.0, 1.0
        if df > 1:
            total = term = math.cos(theta)
            for j in range(1, (df - 1) // 2):
                term *= c2 * (2 * j) / (2 * j + 1)
                total += term
        return 2.0 / math.pi * (theta + s * total)
    total = term = 1.0
    for j in range(1, df // 2):
        term *= c2 * (2 * j - 1) / (2 * j)
        total += term
    return s * total


def wilson_bounds(estimate: FloatArray, se: FloatArray, questions: npt.NDArray[np.int64],
                  groups: npt.NDArray[np.int64], samples: npt.NDArray[np.int64], confidence: float,
                  bounds: tuple[float, float] = (0.0, 1.0),
                  df_eff: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
    """The small-board interval (module docstring) of each model: its
    ``estimate``, standard error over questions ``se``, number of
    ``questions``, of independent ``groups`` (questions, or clusters) and of
    ``samples``; the metric's range ``bounds``; ``df_eff``: the effective
    degrees of freedom of ``se`` (:func:`effective_df`; None or NaN: ``groups
    - 1``). NaN where ``se`` is NaN (fewer than two groups).

    Examples:
        >>> lo, hi = wilson_bounds(np.array([0.0]), np.array([0.0]), np.array([10]), np.array([10]),
        ...                        np.array([40]), 0.95)
        >>> round(float(lo[0]), 4), round(float(hi[0]), 4)
        (0.0, 0.3385)
    """
    b_lo, b_hi = bounds
    span = b_hi - b_lo
    est = np.asarray(estimate, np.float64)
    lo = np.full(est.shape, np.nan)
    hi = np.full(est.shape, np.nan)
    if span <= 0:
        ok0 = ~np.isnan(se)
        lo[ok0], hi[ok0] = est[ok0], est[ok0]
        return lo, hi
    p = np.clip((est - b_lo) / span, 0.0, 1.0)
    s = np.asarray(se, np.float64) / span
    v = p * (1.0 - p)
    ok = ~np.isnan(s) & (groups >= 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        n_eff = np.where((s > 0) & (v > 0), np.minimum(v / (s * s), samples), questions).astype(np.float64)
    n_eff = np.maximum(n_eff, 1.0)
    # Degrees of freedom: the groups' less one, lowered to the effective
    # number of groups that carry the spread (effective_df).
    dof = np.asarray(groups, np.float64) - 1.0
    if df_eff is not None:
        d_eff = np.asarray(df_eff, np.float64)
        # Rounded down (a little wider, never narrower): to sixteenths below 4,
        # where t moves fast, to integers up to 32, above to 16 steps per
        # doubling (t moves by under 0.3% a step there); so at most some 200
        # distinct t to solve for the effective df on any board.
        d_eff = np.maximum(d_eff, 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            step = np.exp2(np.floor(np.log2(np.maximum(d_eff, 32.0))) - 4.0)  # 2 at 32 to 63, 4 at 64 to 127, ...
        d_eff = np.where(d_eff < 4.0, np.floor(16 * d_eff) / 16,
                         np.where(d_eff < 32.0, np.floor(d_eff), np.floor(d_eff / step) * step))
        dof = np.where(np.isnan(d_eff), dof, np.minimum(dof, d_eff))
    df, at = np.unique(dof, return_inverse=True)
    t = np.array([t_two_sided(confidence, g) if g >= 1 else np.nan for g in df.tolist()])[at.ravel()]
    t2 = t * t
    with np.errstate(invalid="ignore"):
        d = 1.0 + t2 / n_eff
        centre = (p + t2 / (2.0 * n_eff)) / d
        half = t / d * np.sqrt(v / n_eff + t2 / (4.0 * n_eff * n_eff))
    lo[ok] = b_lo + span * np.clip(centre - half, 0.0, 1.0)[ok]
    hi[ok] = b_lo + span * np.clip(centre + half, 0.0, 1.0)[ok]
    return lo, hi


def unreliable(estimate: float, se: float, groups: int, confidence: float,
               bounds: tuple[float, float] = (0.0, 1.0), unit: str = "questions") -> str | None:
    """Why the normal interval over questions is unreliable for a model, or
    None: fewer than 100 questions (or clusters), or the interval reaches
    an end of the metric's range (or has no width; ``unit``: what the
    groups are). The leaderboard notes the first such model and points to
    ``interval="wilson"``.

    Examples:
        >>> unreliable(0.5, 0.05, 40, 0.95)
        '40 questions'
        >>> unreliable(0.99, 0.006, 500, 0.95)
        'an estimate near the end of the range'
    """
    if groups < 100:
        return f"{groups} {unit}"
    z = z_value(confidence)
    if not se > 0 or estimate - z * se <= bounds[0] or estimate + z * se >= bounds[1]:
        return "an estimate near the end of the range"
    return None


def model_groups(sc: Scores) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per model of the board: its questions, its independent groups
    (clusters where the board has them, else questions) and its samples."""
    c = sc.counts
    L = len(c.models)
    pm = sc.per_model()
    if sc.cluster is None and pm.table is not None and sc.states is not None:
        # From the (model, state) table: the same integers without a pass over the rows.
        tabled: npt.NDArray[np.int64] = pm.count.astype(np.int64)
        return tabled, tabled, pm.table @ row_sums(sc.states.cats)
    questions = np.bincount(c.model, minlength=L).astype(np.int64)
    st = sc.states if sc.states is not None else None
    n = st.n if st is not None else c.categories.sum(axis=1)
    samples = np.bincount(c.model, weights=n, minlength=L).round().astype(np.int64)
    if sc.cluster is None:
        return questions, questions, samples
    pairs = np.unique(c.model * (int(sc.cluster.max()) + 1) + sc.cluster)
    groups = np.bincount(pairs // (int(sc.cluster.max()) + 1), minlength=L).astype(np.int64)
    return questions, groups, samples


def effective_df(x: FloatArray, model: npt.NDArray[np.int64], cluster: npt.NDArray[np.int64] | None,
                 mean: FloatArray) -> FloatArray:
    """Each model's effective degrees of freedom of its standard error over
    questions: with ``w_g`` the square of group ``g``'s sum of residuals
    ``x - mean`` (a group: a cluster, or a question), ``(sum w)^2 / sum w^2``
    (the Satterthwaite count of the groups that carry the variance: the
    number of groups when they all carry the same, 1 when one carries it
    all). NaN where no group has a residual (``se`` = 0). ``x``: per-row
    values, ``model`` and ``cluster``: per-row ids, ``mean``: per model.

    Examples:
        >>> x = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0])
        >>> [round(float(d), 3) for d in effective_df(x, np.repeat([0, 1], 4), None, np.array([0.25, 0.25]))]
        [1.714, 4.0]
    """
    L = len(mean)
    r = np.nan_to_num(np.asarray(x, np.float64) - mean[model])
    w: FloatArray
    of: npt.NDArray[np.int64]
    if cluster is None:
        w, of = r * r, model
    else:
        width = int(cluster.max()) + 1 if len(cluster) else 1
        keys, inv = np.unique(model.astype(np.int64) * width + cluster, return_inverse=True)
        s = np.bincount(inv.ravel(), weights=r, minlength=len(keys)).astype(np.float64)
        w, of = s * s, (keys // width).astype(np.int64)
    sw = np.bincount(of, weights=w, minlength=L)
    sw2 = np.bincount(of, weights=w * w, minlength=L)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sw2 > 0, sw * sw / sw2, np.nan)


def small_board_bounds(sc: Scores, name: str, mean: FloatArray, se: FloatArray, confidence: float,
                       bounds: tuple[float, float]) -> tuple[FloatArray, FloatArray]:
    """:func:`wilson_bounds` of every model of a board for metric ``name``
    (``mean``, ``se``: its estimates and standard errors over questions, one
    per model), on the effective degrees of freedom of each model's rows."""
    questions, groups, samples = model_groups(sc)
    m = sc.counts.model
    df_eff = effective_df(sc.x[name], m, sc.cluster, np.nan_to_num(np.asarray(mean, np.float64)))
    return wilson_bounds(mean, se, questions, groups, samples, confidence, bounds, df_eff)
