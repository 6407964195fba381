"""Each model's pass@k curve (k = 1..its fewest samples per question) from a
:class:`kscore.leaderboard.Leaderboard`, the line and the band describing
one and the same estimate, with the leaderboard's own interval
(docs/leaderboard.md, *Output*):

* ``questions`` (the default): the line is the classic estimate (the mean
  over questions of the unbiased per-question pass@k, as the table's pass@k
  cells), the band its interval over questions, ``estimate +- z se``,
  cluster-robust with ``--cluster``: at a k the table shows, the same
  numbers as the cell.
* ``posterior``: the line is the posterior mean of pass@k, the band its
  credible interval given these questions (Beta(1, 1) prior per question).

A band around another estimate than the line's would mislead: the posterior
band need not contain the classic estimate (at large k it often does not).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from .model import Curve

if TYPE_CHECKING:
    from ..leaderboard import Leaderboard

IntArray = npt.NDArray[np.int64]

#: Curves are drawn at about this many values of k at most.
CURVE_POINTS = 64


def curve_ks(n: int) -> list[int]:
    """k = 1..n, thinned to about :data:`CURVE_POINTS` on a log scale.

    >>> curve_ks(4), len(curve_ks(1000)) <= 64, curve_ks(1000)[-1]
    ([1, 2, 3, 4], True, 1000)
    """
    if n <= CURVE_POINTS:
        return list(range(1, n + 1))
    ratio = n ** (1 / (CURVE_POINTS - 1))
    return sorted({min(n, round(ratio**i)) for i in range(CURVE_POINTS)})


def curve_note(lb: Leaderboard) -> str:
    """What the line and the band are, for the caption under the curves."""
    pct = f"{lb.confidence * 100:g}%"
    if lb.interval == "posterior":
        return (f"line: the posterior mean of pass@k (Beta(1, 1) prior; not the table's classic estimate); band: "
                f"its {pct} credible interval given these questions (sampling noise only)")
    cl = f", clustered by {lb.cluster}" if lb.cluster else ""
    return (f"line: the classic pass@k estimate (as the table's pass@k cells); band: its {pct} interval over "
            f"questions{cl}")


def leaderboard_curves(lb: Leaderboard, models: list[str]) -> list[Curve | None]:
    """The curve of each of ``models`` (None for a model without results)."""
    from ..leaderboard.stats.metrics import by_model

    counts = lb.counts
    index = {counts.models[m]: idx for m, idx in by_model(counts)}
    n_min = {r.model: r.n_min for r in lb.rows}
    one = _posterior if lb.interval == "posterior" else _over_questions
    return [one(lb, index[m], curve_ks(n_min[m])) if m in index else None for m in models]


def _posterior(lb: Leaderboard, idx: IntArray, ks: list[int]) -> Curve:
    from ..leaderboard.stats.metrics import curve

    c = curve(lb.counts.categories[idx], ks, lb.confidence)  # rows: posterior mean, lo, hi, classic
    return Curve(ks, [float(x) for x in c[:, 0]], [float(x) for x in c[:, 1]], [float(x) for x in c[:, 2]])


def _over_questions(lb: Leaderboard, idx: IntArray, ks: list[int]) -> Curve:
    """The table's ``questions`` interval (``_metrics.compute``) at every k at
    once: the per-question estimates of all k stacked as one group per k."""
    from .. import counts as kc
    from .._interval import z_value
    from ..leaderboard.stats.intervals import group_se

    cats = lb.counts.categories[idx]
    x = kc.curve(cats.sum(axis=1), cats[:, -1], "pass_at_k", ks, mean=False)  # questions x ks
    m, k = x.shape
    cluster = None if lb.scores is None or lb.scores.cluster is None else np.tile(lb.scores.cluster[idx], k)
    mean, se, _ = group_se(np.ascontiguousarray(x.T).ravel(), np.repeat(np.arange(k), m), k, cluster)
    z = z_value(lb.confidence)
    lo, hi = np.clip(mean - z * se, 0.0, 1.0), np.clip(mean + z * se, 0.0, 1.0)  # NaN (one question) stays NaN
    return Curve(ks, [float(v) for v in mean], [float(v) for v in lo], [float(v) for v in hi])
