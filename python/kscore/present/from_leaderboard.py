"""A :class:`~kscore.present.model.Board` from a
:class:`kscore.leaderboard.Leaderboard`: its rows and metrics, and for the
shared page (:func:`page_board`) its curves, pairwise comparisons and
``--by`` subsets."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .model import Board, Curve, Estimate, InfoColumn, MetricColumn, Pairwise

if TYPE_CHECKING:
    from ..leaderboard import Leaderboard

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


def footer(lb: Leaderboard) -> str:
    """What the cells and ranks are, for the interval the board was made with."""
    pct = f"{lb.confidence * 100:g}%"
    if lb.interval == "posterior":
        what = f"{pct} Bayesian credible interval given these questions (sampling noise only)"
    else:
        cl = f", clustered by {lb.cluster}" if lb.cluster else ""
        what = f"{pct} interval over questions{cl} (what another question set like this one could give)"
    adj = " with Holm's correction" if lb.adjust == "holm" else ""
    return (f"cells: the classic estimate ±half the {what}; curves: pass@k with its credible band; rank: range "
            f"from paired tests{adj}")


def page_board(lb: Leaderboard) -> Board:
    """Everything the shared page shows: the board with its curves, the
    pairwise comparisons on the ranking metric and a board per ``--by``
    subset (docs/leaderboard.md)."""
    board = board_from_leaderboard(lb, curves=True)
    board.pairwise = _pairwise(lb)
    board.subsets = {str(g.group): board_from_leaderboard(g) for g in lb.groups}
    return board


def _pairwise(lb: Leaderboard) -> Pairwise | None:
    if len(lb.rows) < 2:
        return None
    pw = lb.pairwise()
    order = [pw.models.index(r.model) for r in lb.rows]
    better = pw.significant(lb.adjust)
    sig = better | better.T

    def grid(a: Any) -> list[list[float | None]]:
        return [[None if i == j or a[i, j] != a[i, j] else float(a[i, j]) for j in order] for i in order]

    return Pairwise(pw.metric, grid(pw.diff), grid(pw.lo), grid(pw.hi), grid(pw.p),
                    [[bool(sig[i, j]) and i != j for j in order] for i in order],
                    note=f"row minus column on {pw.metric}, paired on the questions both answered")


def board_from_leaderboard(lb: Leaderboard, curves: bool = False) -> Board:
    """The board of ``lb`` (with pass@k curves for each model when
    ``curves``, computed from its counts)."""
    rows = lb.rows
    metrics = []
    for j, m in enumerate(lb.metrics):
        values: list[Estimate | None] = []
        for r in rows:
            v = r.values.get(m.name)
            values.append(None if v is None else Estimate(v.estimate, v.lo, v.hi))
        metrics.append(MetricColumn(m.name, values, importance=j + 1))
    metrics.append(MetricColumn("accuracy", [Estimate(r.accuracy) for r in rows], importance=40))
    info = [InfoColumn("questions", [f"{r.questions:,}" for r in rows], importance=60),
            InfoColumn("samples", [str(r.n_min) if r.n_min == r.n_max else f"{r.n_min}-{r.n_max}" for r in rows],
                       importance=61)]
    notes = [f"{lb.n_samples:,} samples, {lb.n_questions:,} questions, {len(rows)} models; sorted by {lb.sort.name}; "
             "accuracy: mean reward per sample", *lb.warnings]
    board = Board(f"kscore leaderboard: {lb.source}", [r.model for r in rows], [r.rank for r in rows], metrics,
                  footer=footer(lb), info=info, sort=lb.sort.name, notes=notes)
    if curves:
        board.curves = _curves(lb)
        board.curve_label = "pass@k"
    return board


def _curves(lb: Leaderboard) -> list[Curve | None]:
    from ..leaderboard._metrics import by_model, curve

    counts = lb.counts
    index = {counts.models[m]: idx for m, idx in by_model(counts)}
    out: list[Curve | None] = []
    for r in lb.rows:
        if r.model not in index:
            out.append(None)
            continue
        ks = curve_ks(r.n_min)
        c = curve(counts.categories[index[r.model]], ks, lb.confidence)
        # the classic estimate (as the cells), with the posterior band
        out.append(Curve(ks, [float(x) for x in c[:, 3]], [float(x) for x in c[:, 1]], [float(x) for x in c[:, 2]]))
    return out
