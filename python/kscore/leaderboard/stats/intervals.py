"""Intervals over questions, cluster-robust standard errors, paired
comparisons, p-values and Holm's correction (docs/leaderboard.md,
*Intervals*, *Paired comparisons*).

The standard error of a mean of per-question estimates ``x_i`` over ``n``
questions in ``G`` clusters (each question its own cluster by default) is
the cluster-robust (CR1) one,

    se^2 = G / (G - 1) * sum_c (sum_{i in c} (x_i - mean))^2 / n^2,

which with one question per cluster is the sample variance (``ddof=1``)
over ``n``: the central limit theorem over questions (E. Miller, "Adding
Error Bars to Evals", arXiv:2411.00640, eqs. 1-4). p-values are the normal
approximation of the t statistic (``erfc(|z| / sqrt 2)``, two-sided);
scipy is not needed."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..runtime import profile


def p_two_sided(z: npt.ArrayLike) -> FloatArray:
    """Two-sided normal p-values ``erfc(|z| / sqrt 2)``; NaN stays NaN."""
    arr = np.asarray(z, np.float64)
    out = np.full(arr.shape, np.nan)
    flat, res = arr.ravel(), out.ravel()
    at = np.flatnonzero(~np.isnan(flat))
    # math.erfc per value (numpy has no erfc; scipy is not a dependency).
    res[at] = list(map(math.erfc, (np.abs(flat[at]) / math.sqrt(2.0)).tolist()))
    return res.reshape(arr.shape)


def holm(p: npt.ArrayLike) -> FloatArray:
    """Holm's step-down adjusted p-values of a family (NaN: not a member)."""
    arr = np.asarray(p, np.float64)
    out = np.full(arr.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(arr))
    if ok.size:
        order = ok[np.argsort(arr[ok], kind="stable")]
        m = ok.size
        adj = np.minimum(1.0, np.maximum.accumulate(arr[order] * (m - np.arange(m))))
        out[order] = adj
    return out


def group_se(x: FloatArray, group: IntArray, n_groups: int, cluster: IntArray | None) -> tuple[
        FloatArray, FloatArray, IntArray]:
    """Per group: the mean of ``x``, its cluster-robust standard error (NaN
    with fewer than two clusters) and the number of values, all groups at
    once (``group``: 0..n_groups-1 per value; ``cluster``: a cluster id per
    value, or None for one question per cluster)."""
    cnt = np.bincount(group, minlength=n_groups).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(group, weights=x, minlength=n_groups) / cnt
        e = x - mean[group]
        if cluster is None:
            ss = np.bincount(group, weights=e * e, minlength=n_groups)
            g = cnt.astype(np.float64)
        else:
            width = int(cluster.max()) + 1 if cluster.size else 1
            key = group * width + cluster
            if n_groups * width <= 4 * len(key) + 1024:  # dense cells: no sort
                s = np.bincount(key, weights=e, minlength=n_groups * width)
                used = np.bincount(key, minlength=n_groups * width) > 0
                owner = np.arange(n_groups * width) // width
                s, owner = s[used], owner[used]
            else:
                uniq, inv = np.unique(key, return_inverse=True)
                s = np.bincount(inv.ravel(), weights=e)
                owner = uniq // width
            ss = np.bincount(owner, weights=s * s, minlength=n_groups)
            g = np.bincount(owner, minlength=n_groups).astype(np.float64)
        var = np.where(g > 1, g / (g - 1) * ss / (cnt.astype(np.float64) ** 2), np.nan)
    return mean, np.sqrt(var), cnt


def group_se_tabled(x: FloatArray, values: FloatArray, cell: IntArray, group: IntArray, cnt: IntArray) -> tuple[
        FloatArray, FloatArray]:
    """:func:`group_se` without clusters, where every ``x`` is one of a few
    ``values`` (``cell``: ``group * len(values)`` + which one; ``cnt``: the
    values per group): the same numbers, each squared deviation from the
    group's mean taken from a (group, value) table instead of computed per
    value. Two passes over ``x`` instead of six."""
    n_groups = len(cnt)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(group, weights=x, minlength=n_groups) / cnt
        d = values[None, :] - mean[:, None]
        ss = np.bincount(group, weights=(d * d).ravel()[cell], minlength=n_groups)
        g = cnt.astype(np.float64)
        var = np.where(g > 1, g / (g - 1) * ss / (cnt.astype(np.float64) ** 2), np.nan)
    return mean, np.sqrt(var)


def column_sums(table: FloatArray, states_t: npt.NDArray[np.integer[Any]], per_column: bool = False,
                grid: npt.NDArray[np.integer[Any]] | None = None) -> FloatArray:
    """``table[states_t]`` summed down each column in row order, where
    ``table`` holds values per state (shape ``(S, *k)``) or, with
    ``per_column``, per (column, state) (``(L, S, *k)``); the result is
    ``(L, *k)``. Column sums: numpy adds them row after row (its pairwise
    summation runs only along the contiguous axis), so each is a sequential
    sum, as bincount's. Taken a block of rows at a time, each block
    continuing the running sums (a row of the block), so that nothing larger
    than a block is made. ``grid``: ``states_t`` transposed (C order), for
    the core's ``grid_sums`` (the same sums, a model's run of states at a
    time), where the compiled module has it."""
    if grid is not None:
        done = _core_sums(table, grid, per_column)
        if done is not None:
            return done
    Q, L = states_t.shape
    inner = table.shape[2:] if per_column else table.shape[1:]
    flat = table.reshape(-1, *inner)
    offset = np.arange(L) * table.shape[1] if per_column else None
    width = L * max(int(np.prod(inner)), 1)
    rows = max(1, (1 << 16) // width)
    buf = np.empty((rows + 1, L, *inner))
    acc: FloatArray | None = None
    for a in range(0, Q, rows):
        b = min(a + rows, Q)
        idx = states_t[a:b] if offset is None else states_t[a:b] + offset
        if acc is None:
            np.take(flat, idx, axis=0, out=buf[1:1 + b - a], mode="clip")
            acc = buf[1:1 + b - a].sum(axis=0)
        else:
            buf[0] = acc
            np.take(flat, idx, axis=0, out=buf[1:1 + b - a], mode="clip")
            acc = buf[:1 + b - a].sum(axis=0)
    return acc if acc is not None else np.zeros((L, *inner))


def _core_sums(table: FloatArray, grid: npt.NDArray[np.integer[Any]], per_column: bool) -> FloatArray | None:
    """:func:`column_sums` by ``kscore._kscore.grid_sums`` (sequential sums
    in registers); None where the module lacks it or the states are wider
    than two bytes."""
    core = getattr(_kscore, "grid_sums", None)
    if core is None or grid.dtype.itemsize > 2 or grid.ndim != 2:
        return None
    L = grid.shape[0]
    inner = table.shape[2:] if per_column else table.shape[1:]
    width = int(np.prod(inner)) if inner else 1
    flat = np.ascontiguousarray(table.reshape(-1, width), dtype=np.float64)
    states = np.ascontiguousarray(grid).view(np.uint8 if grid.dtype.itemsize == 1 else np.uint16)  # (states >= 0)
    with profile.phase("per-model sums", threads="all"):
        out: FloatArray = core(states, flat, table.shape[1] if per_column else 0)
    return out.reshape(L, *inner)


def grid_se(values: FloatArray, states_t: npt.NDArray[np.integer[Any]], cnt: IntArray,
            grid: npt.NDArray[np.integer[Any]] | None = None) -> tuple[FloatArray, FloatArray]:
    """:func:`group_se_tabled` where every group has every question, in
    order: ``states_t[i, g]`` is which state group ``g`` has on question
    ``i`` (at least two groups), ``values[s]`` (or ``values[s, k]``, several
    metrics at once: results ``[g, k]``) the estimate in state ``s``. A
    group's sums are :func:`column_sums`, bincount's sums (+ 0.0: bincount
    starts from +0.0); the squared deviations come from a (group, state)
    table. Column sums are vector adds; bincount's are a chain of dependent
    adds, several times slower. ``grid``: ``states_t`` transposed, for the
    core's sums (:func:`column_sums`)."""
    c = cnt.reshape(-1, *([1] * (values.ndim - 1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (column_sums(values, states_t, grid=grid) + 0.0) / c
        d = values[None] - mean[:, None]
        ss = column_sums(d * d, states_t, per_column=True, grid=grid) + 0.0
        g = c.astype(np.float64)
        var = np.where(g > 1, g / (g - 1) * ss / (c.astype(np.float64) ** 2), np.nan)
    return mean, np.sqrt(var)


def segment_se(values: FloatArray, of_row: npt.NDArray[np.integer[Any]], starts: IntArray, cnt: IntArray) -> tuple[
        FloatArray, FloatArray] | None:
    """:func:`grid_se` off the grid, where group ``g``'s values are the rows
    ``starts[g]..starts[g + 1]`` (``of_row``: each row's state): the sums of
    :func:`group_se_tabled` (bincount's, row after row from +0.0) by the
    core's ``segment_sums``, no per-row array made. None where the compiled
    module lacks it or the states are wider than two bytes."""
    core = getattr(_kscore, "segment_sums", None)
    if core is None or of_row.dtype.itemsize > 2:
        return None
    states = np.ascontiguousarray(of_row).view(np.uint8 if of_row.dtype.itemsize == 1 else np.uint16)
    inner = values.shape[1:]
    width = int(np.prod(inner)) if inner else 1
    L = len(cnt)
    c = cnt.reshape(-1, *([1] * (values.ndim - 1)))
    with np.errstate(invalid="ignore", divide="ignore"):
        with profile.phase("per-model sums", threads="all"):
            total: FloatArray = core(states, starts, np.ascontiguousarray(values.reshape(-1, width), np.float64))
        mean = (total.reshape(L, *inner) + 0.0) / c
        d = values[None] - mean[:, None]
        with profile.phase("per-model sums", threads="all"):
            squares: FloatArray = core(states, starts, np.ascontiguousarray((d * d).reshape(-1, width)),
                                       values.shape[0])
        ss = squares.reshape(L, *inner) + 0.0
        g = c.astype(np.float64)
        var = np.where(g > 1, g / (g - 1) * ss / (c.astype(np.float64) ** 2), np.nan)
    return mean, np.sqrt(var)


def centred(X: FloatArray, W: npt.NDArray[np.bool_],
            overwrite: bool = False) -> tuple[FloatArray, FloatArray, bool]:
    """``X`` less each question's mean over the models that have it (0
    where a model lacks the question), the mask as floats and whether
    every model has every question (then the mask is left out: an ``L x
    0`` array). ``overwrite``: a full ``X`` is centred in place."""
    L, Q = X.shape
    full = bool(W.all())
    Wf = np.ones((L, 0)) if full else W.astype(np.float64)
    cnt = np.full(Q, float(L)) if full else Wf.sum(axis=0)
    mu = np.divide(X.sum(axis=0) if full else np.where(W, X, 0.0).sum(axis=0), cnt, out=np.zeros_like(cnt),
                   where=cnt > 0)
    if full and overwrite:
        X0 = X
        X0 -= mu
    else:
        X0 = X - mu if full else np.where(W, X - mu, 0.0)
    return X0, Wf, full


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
    L = X.shape[0]
    X0, Wf, full = centred(X, W, overwrite)
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
