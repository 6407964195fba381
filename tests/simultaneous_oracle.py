"""Today's (before the simultaneous sets went past 2 000 models, issue 26)
simultaneous rank sets, kept verbatim as the test oracle of
kscore.leaderboard.stats.simultaneous: every pair's ``|t|`` significant at
``alpha`` held and sorted (Holm's ``p_crit`` by scanning them), one sweep of
the blocks per step of the step-down, the maxima over draws by a numpy loop
per row. It uses the package's blocks (``Pairs``) and small helpers, as
the replaced code did, so that both see the same standard errors. Not used
by the package. Its changes since (issue 36): up to 2 000 models the
step-down runs to its end (it stopped at a step rejecting under a tenth of
the pairs left), and the draws are simultaneous.draws_for's."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from kscore.leaderboard.stats import simultaneous as _sim
from kscore.leaderboard.stats.pair_tests import count_block, holm_crit, u_of, u_threshold, unadjusted
from kscore.leaderboard.stats.pairs import Pairs
from kscore.leaderboard.stats.ranges import RankSets, _holm_p

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

DRAWS = 250
SEED = 20261125


def rank_sets(X: FloatArray, W: npt.NDArray[np.bool_], cluster: IntArray | None, models: list[str],
              confidence: float) -> RankSets:
    """Today's ``rank_sets(..., adjust="simultaneous")`` on a full grid, any number of models."""
    L = len(models)
    alpha = 1.0 - confidence
    u_star = u_threshold(alpha)
    better = np.zeros(L, np.int64)
    worse = np.zeros(L, np.int64)
    pairs = Pairs(X, W, cluster)
    assert pairs.full
    used = "simultaneous"
    p_crit: float | None = None
    t_crit: float | None = None
    if True:
        m = 0
        kept: list[FloatArray] = []
        count = 0
        for _, _, _, _, t in pairs.blocks():
            u = u_of(t)
            m += int(np.count_nonzero(~np.isnan(u)))
            kept.append(u[unadjusted(u, u_star, alpha)])
            count += len(kept[-1])
            if count > 60_000_000:  # (HOLM_MAX_KEPT)
                raise MemoryError(
                    f"--adjust simultaneous on {L:,} models keeps the t statistic of every pair significant at "
                    f"{alpha:g} (over 60,000,000): use --adjust none, "
                    "or rank fewer models (a subset, or --top after a first run)")
        u_sig = np.concatenate(kept) if kept else np.zeros(0)
        del kept
        u_sig.sort()  # (in place, then read backwards: no copy of what can be 8 bytes per pair)
        u_sig = u_sig[::-1]
        p_crit = holm_crit(u_sig, m, alpha)
        if used == "simultaneous":
            t_crit = step_down(pairs, alpha, m, u_sig)
        rule = RankSets(models, better, worse, used, confidence, u_star, p_crit, t_crit)
        for a, b, diff, _, t in pairs.blocks():
            with np.errstate(invalid="ignore"):
                p = _holm_p(u_of(t), p_crit)
            count_block(better, worse, a, b, rule.significant(np.abs(t), p) & ~np.isnan(t), diff)
    lo = better + 1
    hi = L - worse
    best = [mdl for mdl, x in zip(models, lo.tolist()) if x == 1]
    return RankSets(models, lo, hi, used, confidence, u_star, p_crit, t_crit, "", best)


def _scale(pairs: Pairs) -> tuple[FloatArray, float]:
    """``E`` (questions summed per cluster) and the multipliers' scale
    making ``Var(T*_ij) = 1`` (module docstring)."""
    X0 = pairs.X0
    n = pairs.Q
    E = X0 - X0.mean(axis=1, keepdims=True)
    if pairs.cluster is None:
        return E, math.sqrt(n / (n - 1.0)) / n
    E = np.stack([E[:, part].sum(axis=1) for part in pairs.parts], axis=1)
    G = E.shape[1]
    return E, math.sqrt(G / (G - 1.0)) / n


def step_down(pairs: Pairs, alpha: float, m: int, u_sig: FloatArray) -> float | None:
    """The step-down max-t procedure's last critical value: pairs with
    ``|t|`` above it are rejected (module docstring). None: none is."""
    from kscore._interval import z_value

    if m == 0 or pairs.Q < 2 or (pairs.cluster is not None and len(pairs.parts) < 2):
        return None  # (no testable pair: every standard error needs two questions / clusters)
    E, scale = _scale(pairs)
    rng = np.random.default_rng(SEED)
    draws = _sim.draws_for(pairs.L, E.shape[1])  # (issue 36: more draws on smaller boards)
    Z = (E @ rng.standard_normal((E.shape[1], draws)) * scale).astype(np.float32)  # models x draws
    t_sig = u_sig * math.sqrt(2.0)  # the |t| of the pairs with p < alpha
    floor = float(np.nextafter(pairs_floor(alpha), 0.0))
    c_prev, done = math.inf, 0  # the family: the pairs with |t| <= c_prev (``done`` rejected)
    while True:
        mx = _max_t(pairs, Z, c_prev)
        k = min(draws, math.ceil((1.0 - alpha) * (draws + 1))) - 1
        c = float(np.sort(mx)[k])
        # Bonferroni's bound of the max-t quantile for the pairs left (2-sided), and no lower
        # than one test's: Monte Carlo noise neither widens beyond Holm nor rejects beyond p < alpha.
        c = max(min(c, z_value(1.0 - alpha / (m - done))), floor)
        now = int(np.count_nonzero(t_sig > c))
        # Up to 2 000 models (simultaneous.STEP_DOWN_MAX, issue 36) to the end: a step that rejects
        # nothing new. Past it, stopping early (valid: fewer rejections): a step that removed under a
        # tenth of the family would lower the next critical value little, at the cost of another pass.
        if now == m or now - done < (1 if pairs.L <= _sim.STEP_DOWN_MAX else max(1, (m - done) // 10)):
            return c if now else None
        c_prev, done = c, now


def pairs_floor(alpha: float) -> float:
    """One two-sided test's critical |t|."""
    return u_threshold(alpha) * math.sqrt(2.0)


def _max_t(pairs: Pairs, Z: npt.NDArray[np.float32], c_prev: float) -> npt.NDArray[np.float32]:
    """Per draw, ``max |Z*_i - Z*_j| / se_ij`` over the pairs with ``|t| <=
    c_prev`` (``Z``: models x draws), a few rows at a time (rows x columns x
    draws float32, 4 MB: in cache, contiguous over the draws)."""
    draws = Z.shape[1]
    mx = np.zeros(draws, np.float32)
    for a, b, _, se, t in pairs.blocks():
        with np.errstate(invalid="ignore", divide="ignore"):
            inv = np.where((np.abs(t) <= c_prev) & (se > 0), 1.0 / se, 0.0).astype(np.float32)
        for r in range(a, b):
            keep = np.flatnonzero(inv[r - a])
            if keep.size == 0:
                continue
            chunk = max(1, (1 << 16) // draws)
            for c0 in range(0, keep.size, chunk):
                cols = keep[c0:c0 + chunk]
                d = Z[a + cols] - Z[r]
                np.abs(d, out=d)
                d *= inv[r - a, cols][:, None]
                np.maximum(mx, d.max(axis=0), out=mx)
    return mx
