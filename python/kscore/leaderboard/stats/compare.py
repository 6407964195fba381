"""Paired comparisons of models on the questions both answered
(docs/leaderboard.md, *Paired comparisons*).

For models A and B and a metric, ``d_i = x_Ai - x_Bi`` on every question
``i`` both have (``x``: the per-question estimates); the difference is the
mean of ``d``, its standard error the cluster-robust one of that mean
(paired: the questions' shared difficulty cancels), the interval
``diff +- z se`` and the p-value the two-sided normal approximation of
``diff / se``. Holm's correction over all pairs of the board is reported
beside the raw p-value."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from .._counts import Counts
from ..runtime import profile
from ..runtime.blas import one_thread
from .intervals import holm, p_two_sided, paired
from .ranges import RankSets
from .scores import Scores


@dataclass
class Comparison:
    """Model ``a`` minus model ``b`` on ``metric`` over the ``questions``
    both answered: their estimates there, the mean paired difference
    ``diff``, its standard error ``sigma``, interval ``lo``..``hi``, the
    two-sided p-value ``p`` and, within a pairwise matrix, Holm's adjusted
    ``p_holm`` (None for a single comparison)."""

    metric: str
    a: str
    b: str
    questions: int
    a_estimate: float
    b_estimate: float
    diff: float
    sigma: float
    lo: float
    hi: float
    p: float
    p_holm: float | None = None


@dataclass
class Pairwise:
    """Every pair of ``models`` (board order) on one metric: ``[i, j]`` is
    model i minus model j (antisymmetric ``diff``, ``lo``/``hi``; symmetric
    ``sigma``, ``p``, ``p_holm`` and ``questions``; the diagonal is 0 / NaN)."""

    metric: str
    models: list[str]
    diff: FloatArray
    sigma: FloatArray
    lo: FloatArray
    hi: FloatArray
    p: FloatArray
    p_holm: FloatArray
    questions: IntArray
    confidence: float
    #: The board's rule for significance (its rank ranges'), where known.
    sets: RankSets | None = None

    def comparison(self, a: str, b: str) -> Comparison:
        """One pair of the matrix as a :class:`Comparison` (a minus b)."""
        i, j = self.models.index(a), self.models.index(b)
        return Comparison(self.metric, a, b, int(self.questions[i, j]), float("nan"), float("nan"),
                          float(self.diff[i, j]), float(self.sigma[i, j]), float(self.lo[i, j]),
                          float(self.hi[i, j]), float(self.p[i, j]), float(self.p_holm[i, j]))

    def significant(self, adjust: str | None = None) -> npt.NDArray[np.bool_]:
        """``[i, j]``: model i is better than model j at ``1 - confidence``
        (two-sided): by the board's rule (its rank ranges') when the matrix
        comes from a board and ``adjust`` is None, else by raw
        (``"none"``) or Holm-adjusted (``"holm"``: over this matrix) p-values."""
        if adjust is None and self.sets is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.where(self.sigma > 0, self.diff / self.sigma,
                             np.where(self.diff == 0, 0.0, np.sign(self.diff) * np.inf))
            return self.sets.significant(np.where(np.isnan(self.sigma), np.nan, t), self.p)
        p = self.p_holm if adjust == "holm" else self.p
        with np.errstate(invalid="ignore"):
            out: npt.NDArray[np.bool_] = (p < 1.0 - self.confidence) & (self.diff > 0)
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the models and one list of rows per matrix (None for NaN)."""
        def rows(a: npt.NDArray[Any]) -> list[list[Any]]:
            return [[None if (isinstance(v, float) and v != v) else v for v in r] for r in a.tolist()]

        return {"metric": self.metric, "models": self.models, "diff": rows(self.diff), "sigma": rows(self.sigma),
                "lo": rows(self.lo), "hi": rows(self.hi), "p": rows(self.p), "p_holm": rows(self.p_holm),
                "questions": self.questions.tolist()}


def dense(sc: Scores, name: str, models: list[str]) -> tuple[FloatArray, npt.NDArray[np.bool_], IntArray | None]:
    """Models x questions of the per-question estimates (NaN rows left
    out), the mask of present cells and each question's cluster."""
    c = sc.counts
    f = sc.per_state.get(name)
    grid = sc.per_model().grid
    if f is not None and grid is not None and not bool(np.isnan(f).any()):
        return _from_grid(c, f, grid, models, sc.cluster)
    starts = sc.per_model().starts
    if f is not None and starts is not None and sc.states is not None and len(c.model) >= RUN * len(c.models):
        return _from_runs(c, f, sc.states.of_row, starts, models, sc.cluster)
    x = sc.x[name]
    pos = dict(zip(models, range(len(models))))  # (dicts and lists made by maps in C: 100 000s of models)
    row_of = np.array(list(map(pos.get, c.models, repeat(-1))), np.int64)
    some_nan = bool(np.isnan(f).any()) if f is not None else bool(np.isnan(x).any())
    full = None if some_nan else _full_grid(c, x, row_of, sc.cluster, sc.per_model().grid is not None)
    if full is not None:
        return full
    ok = ~np.isnan(x)
    r = row_of[c.model]
    ok &= r >= 0
    # Questions renumbered 0..Q-1 in order (a bincount, no sort).
    used = np.bincount(c.question[ok], minlength=len(c.questions)) > 0
    q_new = np.cumsum(used) - 1
    Q = int(used.sum())
    q_idx = q_new[c.question[ok]]
    X = np.zeros((len(models), Q))
    W = np.zeros((len(models), Q), bool)
    X[r[ok], q_idx] = x[ok]
    W[r[ok], q_idx] = True
    cl = None
    if sc.cluster is not None:
        cl = np.zeros(Q, np.int64)
        cl[q_idx] = sc.cluster[ok]
    return X, W, cl


def _from_grid(c: Counts, f: FloatArray, grid: npt.NDArray[np.integer[Any]], models: list[str],
               cluster: IntArray | None) -> tuple[FloatArray, npt.NDArray[np.bool_], IntArray | None]:
    """:func:`dense` where every model has every question (``grid``: each
    model's state per question) and no estimate is NaN: each row is its
    model's states looked up in ``f`` (the estimate per state), without the
    estimates of every row (the values :func:`_full_grid` places)."""
    code = dict(zip(c.models, range(len(c.models))))
    Q = grid.shape[1]
    core = getattr(_kscore, "gather_rows", None)
    if core is not None and grid.dtype.itemsize <= 2 and grid.flags.c_contiguous and len(f):
        # The same lookups on the core's pool (``take``'s clip included).
        with profile.phase("pairs (estimates)", threads="all"):
            X: FloatArray = core(grid.view(np.uint8 if grid.dtype.itemsize == 1 else np.uint16),
                                 list(map(code.__getitem__, models)), np.ascontiguousarray(f, np.float64))
    else:
        X = np.empty((len(models), Q))
        for r, m in enumerate(models):
            np.take(f, grid[code[m]], out=X[r], mode="clip")  # (clip: no buffered copy of the indices)
    return X, np.ones((len(models), Q), bool), None if cluster is None else cluster[:Q].copy()


#: Rows per model (on average) from which :func:`dense` places each model's
#: run of rows on its own rather than every row at once.
RUN = 1000


def _from_runs(c: Counts, f: FloatArray, of_row: npt.NDArray[np.integer[Any]], starts: IntArray, models: list[str],
               cluster: IntArray | None) -> tuple[FloatArray, npt.NDArray[np.bool_], IntArray | None]:
    """:func:`dense` where each model's rows are a run (``starts``; rows
    ordered by model) and ``f`` is the estimate per state: the same cells
    placed a model at a time from its states, without the estimates of
    every row or index arrays as long as the rows."""
    code = dict(zip(c.models, range(len(c.models))))
    rows = list(map(code.__getitem__, models))
    good = ~np.isnan(f)
    some_nan = not bool(good.all())
    used = np.zeros(len(c.questions), bool)
    runs: list[tuple[npt.NDArray[np.integer[Any]], IntArray, slice | npt.NDArray[np.bool_]]] = []
    for i in rows:
        a, b = int(starts[i]), int(starts[i + 1])
        s, qs = of_row[a:b], c.question[a:b]
        keep: slice | npt.NDArray[np.bool_] = slice(None)
        if some_nan:
            keep = good[s]
            s, qs = s[keep], qs[keep]
        used[qs] = True
        runs.append((s, qs, keep))
    q_new = np.cumsum(used) - 1
    Q = int(used.sum())
    X = np.zeros((len(models), Q))
    W = np.zeros((len(models), Q), bool)
    cl = None if cluster is None else np.zeros(Q, np.int64)
    for r, (i, (s, qs, keep)) in enumerate(zip(rows, runs)):
        idx = q_new[qs]
        X[r, idx] = f[s]
        W[r, idx] = True
        if cl is not None and cluster is not None:
            a, b = int(starts[i]), int(starts[i + 1])
            cl[idx] = cluster[a:b][keep]
    return X, W, cl


def _full_grid(c: Counts, x: FloatArray, row_of: IntArray, cluster: IntArray | None, grid: bool) -> tuple[
        FloatArray, npt.NDArray[np.bool_], IntArray | None] | None:
    """:func:`dense` where every model of ``c`` is compared and has every
    question (all its estimates known), the rows ordered by model then
    question (as the engine keeps them; ``grid``: known to be so): the grid
    is the rows reshaped, no scatter. None otherwise."""
    L, Q = len(c.models), len(c.questions)
    if len(x) != L * Q or L == 0 or Q == 0 or not bool(np.all(row_of >= 0)):
        return None
    if not grid and not (bool((c.model.reshape(L, Q) == np.arange(L)[:, None]).all())
                         and bool((c.question.reshape(L, Q) == np.arange(Q)).all())):
        return None
    X = np.empty((L, Q))
    X[row_of] = x.reshape(L, Q)
    return X, np.ones((L, Q), bool), None if cluster is None else cluster[:Q].copy()


def pairwise(sc: Scores, name: str, models: list[str], confidence: float) -> Pairwise:
    """Paired comparisons of every pair of ``models`` on metric ``name``."""
    X, W, cl = dense(sc, name, models)
    with one_thread(float(X.shape[0]) ** 2 * X.shape[1]):
        res = paired(X, W, cl, overwrite=True)  # (X is dense()'s own)
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
    return Pairwise(name, list(models), diff, se, diff - z * se, diff + z * se, p, p_holm, n, confidence)


def compare(sc: Scores, name: str, a: str, b: str, confidence: float) -> Comparison:
    """Model ``a`` minus model ``b`` on metric ``name`` (no Holm: one test)."""
    pw = pairwise(sc, name, [a, b], confidence)
    X, W, _ = dense(sc, name, [a, b])
    both = W[0] & W[1]
    ea = float(X[0, both].mean()) if both.any() else float("nan")
    eb = float(X[1, both].mean()) if both.any() else float("nan")
    out = pw.comparison(a, b)
    out.a_estimate, out.b_estimate, out.p_holm = ea, eb, None
    return out
