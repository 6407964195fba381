"""The simultaneous rank sets (``--adjust simultaneous``) without L x L
memory (docs/leaderboard.md, *Rank ranges*).

The step-down max-t procedure of :mod:`kscore.leaderboard.stats.ranges`
(its module docstring has the statistics), made in a few sweeps over the
blocks of pairs of :meth:`Pairs.blocks <kscore.leaderboard.stats.pairs.Pairs.blocks>`
(rows ``a..b`` against columns ``a..L``; 8 MB per temporary whatever
``L``), with the same decisions, bit for bit, as the code it replaced
(kept in tests/simultaneous_oracle.py), which held every pair's ``|t|``
significant at ``alpha`` (8 bytes a pair) and swept the blocks once per
step:

- Each block's standard errors are computed once per sweep and serve all
  :data:`DRAWS` multiplier draws: the compiled kernel
  (``kscore._kscore.max_t_block``, rust/kscore-core/src/rank/max_t.rs)
  raises the per-draw maxima of ``|Z*_i - Z*_j| / se_ij`` over the
  block's pairs with the numpy loop's float32 operations (a maximum is
  exact: the same bits in any order).
- Instead of the held ``|t|``, a histogram of the significant pairs' ``u =
  |t| / sqrt 2`` (bins of 1/16 384 of an octave, a few hundred KB) bounds
  every count the procedure asks for (``#{u sqrt 2 > c}``; Holm's
  ``#{erfc(u) < level}``): a count is exact up to the pairs of the one bin
  its threshold falls in. Where every value in those bounds leads to the
  same decision, the decision is taken; otherwise the exact count is made
  in the next sweep, which computes the next step's maxima at the same time
  (discarded if the count says stop).
- Holm's rejections (kept in the simultaneous sets) are the least fixed
  point of ``R <- #{(m - R) p < alpha}`` (docs/leaderboard.md): iterated
  on the histogram's lower bounds, which stay below it, and checked by one
  exact count unless the upper bound already shows the fixed point.

Sweeps on a board where most pairs differ: the first (maxima over all
pairs, the histogram), one per further step of the procedure, and the
last, which counts the ranks. Up to :data:`STEP_DOWN_MAX` models the
step-down runs to its end, a step that rejects nothing new, with more
multiplier draws (:func:`draws_for`; issue 36: with them the sets are
within 0.3% of the width of the step-down max-t computed apart with fresh
draws, 2.0-3.8% below Holm's on 30 models, docs/rankings.md, *Rank sets,
by simulation*);
past it, where to the end cost up to twice the early stop's CPU on a board
of 10 000 near-tied models, a step that rejects under a tenth of the pairs
left ends it, and the sets carry a note saying so (:func:`_stops`).

With missing questions (no clusters) each pair is compared on the
questions both have, as everywhere on the board, and its bootstrap
statistic is over those questions too (:class:`_PartialDraws`): it no
longer splits into ``Z*_i - Z*_j``, so the maxima come from two products
per row of a block for all draws (float64 numpy), checked against the
definition pair by pair. :func:`refusal` says where Holm's ranges stand in
(:func:`kscore.leaderboard.stats.ranges.rank_sets` adds the note): past
:data:`FULL_MAX` models, or :data:`PARTIAL_MAX` with missing questions,
or missing questions with clusters.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from ... import _kscore
from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from .pair_tests import count_block, holm_level, u_of, u_threshold, unadjusted
from .pairs import Pairs

#: Multiplier draws (fixed seed). The critical value is the
#: ``ceil((1 - alpha)(DRAWS + 1))``-th smallest maximum: for a new draw of
#: the same law it is exceeded with probability at most ``alpha`` whatever
#: ``DRAWS`` (exchangeability), so a few hundred draws cost precision of the
#: critical value, not level.
DRAWS = 250
SEED = 20261125
#: On a full grid a board of fewer than :data:`DRAWS_MODELS` models gets more
#: draws, ``DRAWS (DRAWS_MODELS / L)^2`` up to :data:`MAX_DRAWS` (a sweep
#: costs at most what a ``DRAWS_MODELS``-model board's does) and to
#: :data:`UNIT_DRAWS` over its units (the multipliers, units x draws, at most
#: 20 MB): with 250 the critical value's Monte Carlo error (some 0.07 on a
#: 30-model board, from the same draws on every board) made the sets wider
#: than the procedure's own (issue 36: docs/rankings.md, *Rank sets, by
#: simulation*).
MAX_DRAWS = 10_000
DRAWS_MODELS = 2000
UNIT_DRAWS = 2_500_000
#: Bins of the histogram of ``u``: the top ``64 - SHIFT`` bits of the
#: double (sign, exponent, 52 - SHIFT bits of mantissa): 2^(52 - SHIFT) bins
#: an octave.
SHIFT = 38
#: Threads taking the blocks' maxima (with missing questions, a job per few rows).
THREADS = min(2, os.cpu_count() or 1)
#: The work of a job with missing questions (flops): tens of milliseconds.
JOB_FLOPS = 1e8
#: ``u`` from here on shares one bin (no critical value comes near:
#: Bonferroni's for 10^12 pairs at 10^-6 is |t| < 10).
U_TOP = 64.0


#: On a full grid the bootstrap is ``DRAWS x L^2 / 2`` pair-draws (some 4-8 s
#: at 10 000 models, a minute at 30 000 on the shared 2-core machine): past
#: this many models Holm's ranges stand in, with a note.
FULL_MAX = 30_000
#: With missing questions it is two products per row of a block for all draws
#: (``6 x DRAWS x Q`` flops a pair, float64): past this many ``models^2 x
#: questions`` (1 000 models x 100 questions: 3-30 s on the shared 2-core
#: machine, as its load goes) Holm's ranges stand in.
PARTIAL_MAX = 1000 * 1000 * 100
#: Up to this many models the step-down runs to its end (each step a sweep
#: of every pair); past it a step that rejects under a tenth of the pairs
#: left ends it (:func:`_stops`; ranges possibly wider, said in a note): on
#: a board of 10 000 near-tied models (benches/bench_models.py's) running to
#: the end took 2.0x the CPU of the early stop (22.0 s against 11.1 s).
STEP_DOWN_MAX = 2_000


def draws_for(models: int, units: int) -> int:
    """The multiplier draws of a full grid of ``models`` models and
    ``units`` units (questions, or clusters): :data:`DRAWS` from
    :data:`DRAWS_MODELS` models or :data:`UNIT_DRAWS` / :data:`DRAWS`
    units on, more on smaller boards (up to :data:`MAX_DRAWS`).

    >>> draws_for(30, 30), draws_for(30, 300), draws_for(1000, 300), draws_for(10_000, 100), draws_for(30, 10**5)
    (10000, 8333, 1000, 250, 250)
    """
    more = min(MAX_DRAWS, DRAWS * (DRAWS_MODELS / max(models, 1)) ** 2, UNIT_DRAWS / max(units, 1))
    return int(max(DRAWS, more))


def refusal(pairs: Pairs) -> str:
    """Why the simultaneous sets of this board are not made ("": they are):
    past :data:`FULL_MAX` models; with missing questions, clusters or past
    :data:`PARTIAL_MAX`.

    >>> from kscore.leaderboard.stats.pairs import Pairs
    >>> X = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    >>> refusal(Pairs(X, np.array([[True, True, False], [True, True, True]]), None))
    ''
    >>> refusal(Pairs(X, np.array([[True, True, False], [True, True, True]]), np.array([0, 0, 1])))
    'with missing questions, questions without clusters (--cluster)'
    """
    if pairs.full:
        return f"at most {FULL_MAX:,} models" if pairs.L > FULL_MAX else ""
    if pairs.cluster is not None:
        return "with missing questions, questions without clusters (--cluster)"
    if pairs.L * pairs.L * pairs.Q > PARTIAL_MAX:
        return f"with missing questions, models^2 x questions <= {PARTIAL_MAX:,} (here {pairs.L:,} models x " \
               f"{pairs.Q:,} questions)"
    return ""


@dataclass
class Sets:
    """What the procedure decided: Holm's ``level`` (significant where
    ``erfc(u) < level``; None: no pair) and the max-t critical value
    ``t_crit`` (significant where ``|t| > t_crit``; None: no pair);
    ``note``: past :data:`STEP_DOWN_MAX` models, a line saying that the
    step-down may have stopped before its end."""

    level: float | None
    t_crit: float | None
    note: str = ""


class Sketch:
    """A histogram of the significant pairs' ``u`` (bins of equal bit
    patterns' prefixes: positive doubles sort as their bits), bounding
    the count of any up-set of ``u``."""

    def __init__(self, u_star: float) -> None:
        self.k0 = _bits(u_star) >> SHIFT
        top = _bits(U_TOP) >> SHIFT
        self.counts = np.zeros(top - self.k0 + 1, np.int64)
        keys = np.arange(self.k0, top + 1, dtype=np.int64)
        self.lo = (keys << SHIFT).view(np.float64)  # the smallest double of each bin
        self.hi = (((keys + 1) << SHIFT) - 1).view(np.float64)  # the largest
        self.lo[0] = 0.0  # (a u below u_star decided significant by erfc itself: in the first bin)
        self.hi[-1] = math.inf

    def add(self, u: FloatArray) -> None:
        """Counts the ``u`` (significant pairs: none NaN)."""
        k = np.clip((u.view(np.int64) >> SHIFT) - self.k0, 0, len(self.counts) - 1)
        self.counts += np.bincount(k, minlength=len(self.counts))

    def bounds(self, pred: Callable[[FloatArray], npt.NDArray[np.bool_]]) -> tuple[int, int]:
        """``(lo, hi)`` around ``#{pred(u)}`` for ``pred`` true from some ``u``
        on: a bin counts surely where ``pred`` holds at its smallest double,
        possibly where at its largest."""
        return int(self.counts[pred(self.lo)].sum()), int(self.counts[pred(self.hi)].sum())


def _bits(x: float) -> int:
    return int(np.float64(x).view(np.int64))


def _above(c: float) -> Callable[[FloatArray], npt.NDArray[np.bool_]]:
    """``u sqrt 2 > c``: the step-down's test, rounded as it was (the held
    ``|t|`` were ``u * sqrt 2``)."""
    return lambda u: u * math.sqrt(2.0) > c


def _below(level: float) -> Callable[[FloatArray], npt.NDArray[np.bool_]]:
    """``erfc(u) < level`` (Holm's test at ``level``)."""
    u_l = u_threshold(level)
    return lambda u: unadjusted(u, u_l, level)


class _Holm:
    """Holm's rejections ``R``: the least fixed point of ``f(R) = #{erfc(u)
    < holm_level(alpha, m - R)}`` (``f(R) >= R`` below it; module
    docstring), reached on the histogram's bounds and checked exactly
    where they cannot tell."""

    def __init__(self, m: int, alpha: float, sketch: Sketch) -> None:
        self.m, self.alpha, self.sketch = m, alpha, sketch
        self.R = 0
        self.level: float | None = None  # (set when known)
        self.pending: float | None = None  # a level whose exact count is asked for
        self._climb()

    def _climb(self) -> None:
        while True:
            level = holm_level(self.alpha, self.m - self.R)
            lo, hi = self.sketch.bounds(_below(level))
            if hi <= self.R or lo == self.m:  # f(R) = R, or every pair rejected
                self.R, self.level, self.pending = max(self.R, lo), level, None
                return
            if lo <= self.R:  # (the bounds cannot tell: one exact count)
                self.pending = level
                return
            self.R = lo  # (lo <= f(R) <= the fixed point)

    def exact(self, count: int) -> None:
        """The exact ``f(R)`` at the pending level."""
        assert self.pending is not None
        if count <= self.R or count == self.m:
            self.R, self.level, self.pending = count, self.pending, None
            return
        self.R = count
        self._climb()


@dataclass
class _Sweep:
    """What one sweep over the blocks gives: the per-draw maxima over the
    pairs with ``|t| <= c_prev`` (None: not asked), the exact counts of the
    significant pairs with ``u sqrt 2 > c`` and ``erfc(u) < level``, and of
    the pairs tested (``t`` not NaN)."""

    mx: npt.NDArray[np.floating] | None
    above: int
    below: int
    tested: int


class _Draws:
    """The multiplier draws on a full grid: each model's perturbed estimate
    per draw (``Z``, float32, models x draws), the maxima of a block from
    the compiled kernel."""

    def __init__(self, pairs: Pairs) -> None:
        E, scale = _scale(pairs)
        rng = np.random.default_rng(SEED)
        g = rng.standard_normal((E.shape[1], draws_for(pairs.L, E.shape[1])))
        self.Z = np.ascontiguousarray((E @ g * scale).astype(np.float32))

    def jobs(self, a: int, b: int, diff: FloatArray, se: FloatArray, t: FloatArray,
             c_prev: float) -> list[Callable[[], npt.NDArray[np.floating]]]:
        """The block's maxima over the pairs with ``|t| <= c_prev``, to run
        (one job: the kernel shares it among the cores itself)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            inv = np.where((np.abs(t) <= c_prev) & (se > 0), 1.0 / se, 0.0).astype(np.float32)
        Z = self.Z
        return [lambda: _kscore.max_t_block(Z, inv, a, a, np.zeros(Z.shape[1], np.float32))]


class _PartialDraws:
    """The multiplier draws with missing questions (no clusters): a pair's
    ``T*_ij = sum_q g_q e_q / sqrt(sum_q e_q^2)`` over the questions ``q``
    both have, ``e_q`` the paired differences centred on their mean ``d_ij``
    (``sum_q e_q^2 = n (n - 1) se^2``): variance 1, the Gaussian max-t over
    the estimated covariance of the differences, as on a full grid (where
    it is ``(Z*_i - Z*_j) / se_ij``). It does not split into a term per
    model: ``sum_q g_q e_q = sum_q g_q (x_iq w_jq - w_iq x_jq) - d_ij sum_q
    g_q w_iq w_jq``, two products per row of the block for all draws
    (float64, numpy). A pair whose differences are constant on its
    questions (``e = 0``: with few questions in common, not rare) has no
    variance to perturb: ``T* = 0``, where ``sum_q e_q^2`` is within the
    rounding of its sums (``64 Q eps (|x_i|^2 + |x_j|^2)``) rather than the
    noise over noise that dividing would give."""

    def __init__(self, pairs: Pairs) -> None:
        rng = np.random.default_rng(SEED)
        self.G = np.ascontiguousarray(rng.standard_normal((pairs.Q, DRAWS)).T)  # draws x questions
        self.pairs = pairs
        self.K = np.concatenate([pairs.Wf, -pairs.X0], axis=1)  # [w_j, -x_j]: models x 2 questions
        self.r2 = (pairs.X0 * pairs.X0).sum(axis=1) * (64.0 * pairs.Q * float(np.finfo(np.float64).eps))

    def jobs(self, a: int, b: int, diff: FloatArray, se: FloatArray, t: FloatArray,
             c_prev: float) -> list[Callable[[], npt.NDArray[np.floating]]]:
        """The block's maxima over the pairs with ``|t| <= c_prev``, to run:
        a job per few rows (:data:`JOB_FLOPS`; each product on one BLAS
        thread, :data:`THREADS` jobs at a time)."""
        pairs, G, K = self.pairs, self.G, self.K
        Wf, X0 = pairs.Wf, pairs.X0
        n = Wf[a:b] @ Wf[a:].T
        with np.errstate(invalid="ignore", divide="ignore"):
            root = se * np.sqrt(n * (n - 1.0))  # sqrt(sum_q e_q^2)
            keep = (np.abs(t) <= c_prev) & (root * root > self.r2[a:b, None] + self.r2[None, a:])
            inv = np.where(keep, 1.0 / root, 0.0)

        def run(r0: int, r1: int) -> npt.NDArray[np.floating]:
            mx = np.zeros(G.shape[0])
            step = max(1, (1 << 18) // G.shape[0])  # (columns a product: draws x step, 2 MB)
            for r in range(r0, r1):
                cols = np.flatnonzero(inv[r - a])
                if cols.size == 0:
                    continue
                Gw = G * Wf[r]
                H = np.concatenate([G * X0[r], Gw], axis=1)  # [g x_i, g w_i]: draws x 2 questions
                for c0 in range(0, cols.size, step):
                    cc = cols[c0:c0 + step]
                    N = H @ K[a + cc].T - diff[r - a, cc] * (Gw @ Wf[a + cc].T)
                    np.abs(N, out=N)
                    N *= inv[r - a, cc]
                    np.maximum(mx, N.max(axis=1), out=mx)
            return mx

        # (rows a job: some JOB_FLOPS, tens of ms, so that Ctrl-C waits for no long job)
        rows = max(1, int(JOB_FLOPS // (6.0 * G.shape[0] * pairs.Q * max(pairs.L - a, 1))))
        return [partial(run, r0, min(r0 + rows, b)) for r0 in range(a, b, rows)]


def _sweep(pairs: Pairs, u_star: float, alpha: float, draws: _Draws | _PartialDraws | None, c_prev: float,
           c: float | None, level: float | None, sketch: Sketch | None = None) -> _Sweep:
    """One pass over the blocks (see :class:`_Sweep`); ``sketch``: filled.
    A block's maxima are taken on a thread of their own (the kernel and
    numpy's products release the interpreter) while the next block's
    statistics are computed: each block gives its own, merged at the end
    (a maximum is exact)."""
    from concurrent.futures import Future, ThreadPoolExecutor

    mx: npt.NDArray[np.floating] | None = None
    above = below = tested = 0
    test_below = None if level is None else _below(level)
    running: list[Future[npt.NDArray[np.floating]]] = []
    with ThreadPoolExecutor(THREADS) as pool:  # (one block in flight: its weights, 4 MB at 10 000 models, held)
        try:
            for a, b, diff, se, t in pairs.blocks():
                if draws is not None:
                    jobs = draws.jobs(a, b, diff, se, t, c_prev)
                    while running:
                        got = running.pop().result()
                        mx = got if mx is None else np.maximum(mx, got)
                    running = [pool.submit(job) for job in jobs]
                tested += int(np.count_nonzero(~np.isnan(t)))
                if sketch is None and c is None and level is None:
                    continue
                u = u_of(t)
                u_sig = u[unadjusted(u, u_star, alpha)]
                if sketch is not None:
                    sketch.add(u_sig)
                if c is not None:
                    above += int(np.count_nonzero(_above(c)(u_sig)))
                if test_below is not None:
                    below += int(np.count_nonzero(test_below(u_sig)))
            while running:
                got = running.pop().result()
                mx = got if mx is None else np.maximum(mx, got)
        except BaseException:  # (Ctrl-C: drop the jobs not started; those running end within tens of ms)
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return _Sweep(mx, above, below, tested)


def _stops(now: int, done: int, m: int, to_end: bool) -> bool:
    """The step-down's stopping rule: every pair rejected, or a step that
    rejected nothing new (the end of the procedure); past
    :data:`STEP_DOWN_MAX` models (``to_end`` false), a step that removed
    under a tenth of the family left (stopping early is valid: fewer
    rejections; another step would lower the critical value little, at the
    cost of another sweep of every pair)."""
    return now == m or now - done < (1 if to_end else max(1, (m - done) // 10))


def simultaneous(pairs: Pairs, alpha: float, u_star: float) -> Sets:
    """Holm's level and the step-down max-t critical value of a board (a
    full grid, or missing questions without clusters; module docstring;
    ``u_star``: one test's threshold of ``u``,
    :func:`kscore.leaderboard.stats.pair_tests.u_threshold` of ``alpha``).

    >>> from kscore.leaderboard.stats.pairs import Pairs
    >>> from kscore.leaderboard.stats.pair_tests import u_threshold
    >>> X = np.array([[1.0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1], [1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0],
    ...               [0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]])
    >>> sets = simultaneous(Pairs(X, np.ones_like(X, bool), None), 0.05, u_threshold(0.05))
    >>> sets.level, round(sets.t_crit, 4)
    (0.025, 2.2414)
    """
    if not pairs.full and pairs.cluster is not None:
        raise ValueError("simultaneous rank sets with missing questions need questions without clusters")
    L = pairs.L
    tested = pairs.Q >= 2 and (pairs.cluster is None or len(pairs.parts) >= 2)
    # (on a full grid every pair has the same questions: all testable, or none; else counted)
    m = L * (L - 1) // 2 if tested else 0
    if m == 0:
        return Sets(None, None)
    draws = _Draws(pairs) if pairs.full else _PartialDraws(pairs)
    floor = float(np.nextafter(u_star * math.sqrt(2.0), 0.0))  # (one two-sided test's critical |t|)
    n_draws = draws.Z.shape[1] if isinstance(draws, _Draws) else DRAWS
    k = min(n_draws, math.ceil((1.0 - alpha) * (n_draws + 1))) - 1

    def crit(mx: npt.NDArray[np.floating], done: int) -> float:
        # Bonferroni's bound of the max-t quantile for the pairs left (2-sided), and no lower than
        # one test's: Monte Carlo noise neither widens beyond Holm nor rejects beyond p < alpha.
        c = float(np.sort(mx)[k])
        return max(min(c, z_value(1.0 - alpha / (m - done))), floor)

    to_end = L <= STEP_DOWN_MAX
    sketch = Sketch(u_star)
    first = _sweep(pairs, u_star, alpha, draws, math.inf, None, None, sketch)
    m = first.tested
    if m == 0:
        return Sets(None, None)
    assert first.mx is not None
    holm = _Holm(m, alpha, sketch)
    c, done = crit(first.mx, 0), 0
    t_crit: float | None
    while True:
        lo, hi = sketch.bounds(_above(c))
        go = done + (1 if to_end else max(1, (m - done) // 10))  # (a step that rejects fewer pairs than this stops)
        all_stop = hi < go or lo == m or go > m - 1
        if all_stop and (lo > 0 or hi == 0):
            t_crit = c if lo > 0 else None  # (every count within the bounds stops, with the same answer)
            break
        # The exact count, and (unless every count within the bounds stops) the next step's maxima.
        more = not all_stop
        got = _sweep(pairs, u_star, alpha, draws if more else None, c, c, holm.pending)
        if holm.pending is not None:
            holm.exact(got.below)
        now = got.above
        if _stops(now, done, m, to_end):
            t_crit = c if now else None
            break
        assert got.mx is not None
        c, done = crit(got.mx, now), now
    while holm.pending is not None:  # (rare: Holm's count left open by the bounds and every sweep above)
        holm.exact(_sweep(pairs, u_star, alpha, None, math.inf, None, holm.pending).below)
    level = holm.level if holm.R > 0 else None
    note = "" if to_end else (
        f"simultaneous rank sets on over {STEP_DOWN_MAX:,} models: the step-down max-t ends at a step that rejects "
        "under a tenth of the pairs left (a sweep of every pair a step), not at its end: ranges possibly a little "
        "wider")
    return Sets(level, t_crit, note)


def count_ranks(pairs: Pairs, sets: Sets, u_star: float, alpha: float, better: IntArray,
                worse: IntArray) -> float | None:
    """Adds to ``better``/``worse`` the pairs significant by Holm's test
    (``erfc(u) < level``) or by the max-t one (``|t| > t_crit``); returns
    Holm's ``p_crit``, the largest rejected p-value (significant where ``p
    <= p_crit``; None: none rejected).

    >>> from kscore.leaderboard.stats.pairs import Pairs
    >>> from kscore.leaderboard.stats.pair_tests import u_threshold
    >>> X = np.array([[1.0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1], [1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 0],
    ...               [0, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 0], [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]])
    >>> pairs = Pairs(X, np.ones_like(X, bool), None)
    >>> better, worse = np.zeros(4, np.int64), np.zeros(4, np.int64)
    >>> p_crit = count_ranks(pairs, simultaneous(pairs, 0.05, u_threshold(0.05)), u_threshold(0.05), 0.05,
    ...                      better, worse)
    >>> better.tolist(), worse.tolist()
    ([0, 0, 2, 2], [2, 2, 0, 0])
    """
    u_min: float | None = None
    holm = None if sets.level is None else _below(sets.level)
    for a, b, diff, _, t in pairs.blocks():
        u = u_of(t)
        sig = np.zeros(t.shape, bool)
        if holm is not None:
            sig = holm(u) & unadjusted(u, u_star, alpha)
            if sig.any():
                u_min = float(u[sig].min()) if u_min is None else min(u_min, float(u[sig].min()))
        if sets.t_crit is not None:
            with np.errstate(invalid="ignore"):
                sig |= np.abs(t) > sets.t_crit
        with np.errstate(invalid="ignore"):
            sig &= np.abs(t) > 0
        count_block(better, worse, a, b, sig & ~np.isnan(t), diff)
    return None if u_min is None else math.erfc(u_min)


def _scale(pairs: Pairs) -> tuple[FloatArray, float]:
    """``E`` (questions summed per cluster) and the multipliers' scale
    making ``Var(T*_ij) = 1`` (kscore.leaderboard.stats.ranges' docstring)."""
    X0 = pairs.X0
    n = pairs.Q
    E = X0 - X0.mean(axis=1, keepdims=True)
    if pairs.cluster is None:
        return E, math.sqrt(n / (n - 1.0)) / n
    E = np.stack([E[:, part].sum(axis=1) for part in pairs.parts], axis=1)
    G = E.shape[1]
    return E, math.sqrt(G / (G - 1.0)) / n
