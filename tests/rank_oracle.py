"""Today's (before issue 26) all-pairs computation of the paired tests and
rank ranges, kept verbatim as the test oracle of the blocked rank ranges
(kscore.leaderboard.stats.ranges): the L x L matrices of differences, standard
errors and p-values, Holm over the upper triangle, ranks from the
significance matrix. Not used by the package."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from kscore._interval import z_value
from kscore.leaderboard.stats.compare import dense
from kscore.leaderboard.stats.intervals import holm, p_two_sided

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def paired(X: FloatArray, W: npt.NDArray[np.bool_], cluster: IntArray | None,
           overwrite: bool = False) -> dict[str, Any]:
    """Every pair of rows of ``X`` (models x questions, ``W`` marking the
    questions each model has): ``diff[i, j]``, the mean of ``x_i - x_j`` over
    the questions both have, its paired cluster-robust standard error
    ``se[i, j]`` and the number of common questions ``n[i, j]``.

    All pairs at once from matrix products (no per-pair loop; with clusters,
    a few small products per cluster). Each question's mean over models is
    subtracted first: the differences are unchanged and the sums of squares
    lose less to cancellation. ``overwrite``: ``X`` (every question known)
    may be centred in place, sparing a copy as large as it (80 MB for 100
    models x 100 000 questions)."""
    L, Q = X.shape
    full = bool(W.all())
    # Every model has every question: the masks change nothing and are left out.
    Wf = np.ones((L, 0)) if full else W.astype(np.float64)
    cnt = np.full(Q, float(L)) if full else Wf.sum(axis=0)
    mu = np.divide(X.sum(axis=0) if full else np.where(W, X, 0.0).sum(axis=0), cnt, out=np.zeros_like(cnt),
                   where=cnt > 0)
    if full and overwrite:
        X0 = X
        X0 -= mu
    else:
        X0 = X - mu if full else np.where(W, X - mu, 0.0)
    if full:
        n = np.full((L, L), float(X.shape[1]))
        s = X0.sum(axis=1)
        sd = s[:, None] - s[None, :]
    else:
        n = Wf @ Wf.T
        A = X0 @ Wf.T  # [i, j]: sum of x_i over the questions j also has
        sd = A - A.T
    with np.errstate(invalid="ignore", divide="ignore"):
        diff = sd / n
        if cluster is None:
            G = X0 @ X0.T
            if full:
                s2 = np.diagonal(G)  # (each row's sum of squares, rounded as the products beside it)
                sd2 = s2[:, None] + s2[None, :] - 2.0 * G
            else:
                B = (X0 * X0) @ Wf.T
                sd2 = B + B.T - 2.0 * G
            ss = np.maximum(sd2 - sd * diff, 0.0)
            var = np.where(n > 1, ss / (n * (n - 1.0)), np.nan)
        else:
            # Per cluster c: S_c[i, j] = sum over c of the centred paired
            # differences; var = G/(G-1) sum_c S_c^2 / n^2 (G: clusters with
            # a common question).
            ss = np.zeros((L, L))
            g = np.zeros((L, L))
            order = np.argsort(cluster, kind="stable")
            cs = cluster[order]
            cuts = np.flatnonzero(cs[1:] != cs[:-1]) + 1
            for part in np.split(order, cuts):
                Xc = X0[:, part]
                if full:
                    Nc = np.full((L, L), float(len(part)))
                    Ac = Xc.sum(axis=1)[:, None] * np.ones((1, L))
                else:
                    Wc = Wf[:, part]
                    Nc = Wc @ Wc.T
                    Ac = Xc @ Wc.T
                Sc = Ac - Ac.T - diff * Nc
                ss += Sc * Sc
                g += Nc > 0
            var = np.where(g > 1, g / (g - 1.0) * ss / (n * n), np.nan)
        se = np.sqrt(var)
    np.fill_diagonal(diff, 0.0)
    np.fill_diagonal(se, np.nan)
    return {"diff": diff, "se": se, "n": n.round().astype(np.int64)}


def pairwise(sc: Any, name: str, models: list[str], confidence: float) -> dict[str, Any]:
    """Paired comparisons of every pair of ``models`` on metric ``name``."""
    X, W, cl = dense(sc, name, models)
    res = paired(X, W, cl, overwrite=True)
    diff, se, n = res["diff"], res["se"], res["n"]
    z = z_value(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
    t = np.where(np.isnan(se), np.nan, t)
    L = len(models)
    upper = np.triu_indices(L, 1)
    a = np.abs(t)
    if np.array_equal(a, a.T, equal_nan=True):  # (as it is where the Gram matrix is symmetric): half the erfc calls
        p = np.full((L, L), np.nan)
        p[upper] = p_two_sided(t[upper])
        p.T[upper] = p[upper]
        np.fill_diagonal(p, p_two_sided(np.diag(t)))
    else:
        p = p_two_sided(t)
    p_holm = np.full((L, L), np.nan)
    p_holm[upper] = holm(p[upper])
    p_holm.T[upper] = p_holm[upper]
    return {"models": list(models), "diff": diff, "se": se, "p": p, "p_holm": p_holm, "n": n,
            "lo": diff - z * se, "hi": diff + z * se}




def rank_ranges(pw: dict[str, Any], confidence: float, adjust: str = "none") -> list[tuple[int, int]]:
    """Today's ``rank``: best = 1 + the models significantly better, worst =
    L - the models significantly worse (raw or Holm p-values)."""
    p = pw["p_holm"] if adjust == "holm" else pw["p"]
    with np.errstate(invalid="ignore"):
        sig = (p < 1.0 - confidence) & (pw["diff"] > 0)
    better, worse = sig.sum(axis=0), sig.sum(axis=1)
    L = len(pw["models"])
    return [(int(better[i]) + 1, L - int(worse[i])) for i in range(L)]
