"""Drop-k fragility: the fewest battles whose removal changes #1 (Huang et
al. 2025 found two of 57,477 votes enough on one public board).

Greedy: the first-order effect of removing one battle of unique row ``r``
(pair ``i, j``, result ``y``, weight ``w``) on the ratings is ``-A x w (y -
p)`` (``x = e_i - e_j``, ``A`` the inverse information of the centred
ratings); for each of the nearest challengers the row that narrows its gap
to #1 the most is taken, the challenger that needs the fewest such battles
is chosen, half that many are removed (one, near the end) and the board is
refitted, until #1 changes. That count is an upper bound. On a small board
(few unique rows, a small bound) every smaller removal is tried: then it
is the exact fewest."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .result import Fragility

#: Challengers considered at each greedy step (the nearest by rating).
NEAREST = 5
#: Greedy steps at the most (each a refit warm-started from the last).
MAX_STEPS = 2000
#: Refits the exact search may make.
EXACT_BUDGET = 20_000


def fragility(board: Any, theta: np.ndarray, precision_if_needed: float, models: list[str]) -> Fragility:
    """The greedy count (and the exact one on a small board) for a
    :class:`kscore._kscore.BattleBoard` fitted at ``theta``."""
    L = len(theta)
    top = int(np.argmax(theta))
    if L < 2:
        return Fragility(models[top], None, None, False, note="one model")
    pi, pj = board.pairs()
    row_pair, row_out, row_w, row_n = board.rows()
    ri, rj = pi[row_pair].astype(np.int64), pj[row_pair].astype(np.int64)
    y = row_out / 2.0
    counts = row_n.astype(np.float64).copy()
    th = theta.copy()
    removed = 0
    for _ in range(MAX_STEPS):
        A = _inverse_information(ri, rj, counts * row_w, th)
        gaps = th[top] - th
        gaps[top] = np.inf
        near = np.argsort(gaps)[:NEAREST]
        p = 1.0 / (1.0 + np.exp(-(th[ri] - th[rj])))
        effect_rows = -row_w * (y - p)  # times A x: the ratings' change per battle removed
        best: tuple[float, int, int] | None = None
        for c in near:
            g = A[top] - A[c]
            delta = (g[ri] - g[rj]) * effect_rows  # change of the gap per battle of each row
            delta[counts <= 0] = np.inf
            r = int(np.argmin(delta))
            if delta[r] < 0:
                need = gaps[c] / -delta[r]
                if best is None or need < best[0]:
                    best = (need, r, int(c))
        if best is None:
            return Fragility(models[top], None, None, False, note="no removal narrows the lead")
        need, r, c = best
        k = int(min(counts[r], max(1.0, math.floor(need / 2))))
        counts[r] -= k
        removed += k
        th = _refit(board, counts, th, precision_if_needed)
        if int(np.argmax(th)) != top:
            break
    else:
        return Fragility(models[top], None, None, False, note=f"#1 still leads after {removed:,} removals")
    lead = int(np.argmax(th))
    taken = row_n - counts
    rows = [(models[ri[r]], models[rj[r]], float(y[r]), int(taken[r])) for r in np.flatnonzero(taken > 0)]
    exact = _exact(board, row_n, theta, top, removed, precision_if_needed)
    if exact is None:
        return Fragility(models[top], models[lead], removed, False, rows)
    if isinstance(exact, bool):
        return Fragility(models[top], models[lead], removed, True, rows)
    k, found, taken_rows = exact
    rows = [(models[ri[r]], models[rj[r]], float(y[r]), n) for r, n in taken_rows]
    return Fragility(models[top], models[found], k, True, rows)


def _inverse_information(ri: np.ndarray, rj: np.ndarray, n: np.ndarray, th: np.ndarray) -> np.ndarray:
    L = len(th)
    p = 1.0 / (1.0 + np.exp(-(th[ri] - th[rj])))
    v = n * p * (1 - p)
    H = np.zeros((L, L))
    np.add.at(H, (ri, ri), v)
    np.add.at(H, (rj, rj), v)
    np.add.at(H, (ri, rj), -v)
    np.add.at(H, (rj, ri), -v)
    return np.asarray(np.linalg.inv(H + 1.0 / L), dtype=np.float64)


def _refit(board: Any, counts: np.ndarray, start: np.ndarray, precision: float) -> np.ndarray:
    needs = not board.mle_exists(counts)
    theta, _ = board.fit(precision if needs else 0.0, counts, start)
    return np.asarray(theta)


def _exact(board: Any, row_n: np.ndarray, theta: np.ndarray, top: int, bound: int,
           precision: float) -> tuple[int, int, list[tuple[int, int]]] | bool | None:
    """The fewest removals below ``bound`` that change #1, by trying every
    multiset of removals: ``(k, new #1, [(row, removed)])``; True if none
    below ``bound`` does (the greedy count is the fewest); None if the
    board is too large to try them all."""
    R = len(row_n)
    if sum(math.comb(R + k - 1, k) for k in range(1, bound)) > EXACT_BUDGET:
        return None
    for k in range(1, bound):
        for combo in itertools.combinations_with_replacement(range(R), k):
            counts = row_n.astype(np.float64).copy()
            np.subtract.at(counts, list(combo), 1.0)
            if (counts < 0).any():
                continue
            th = _refit(board, counts, theta, precision)
            if int(np.argmax(th)) != top:
                taken: dict[int, int] = {}
                for r in combo:
                    taken[r] = taken.get(r, 0) + 1
                return k, int(np.argmax(th)), sorted(taken.items())
    return True
