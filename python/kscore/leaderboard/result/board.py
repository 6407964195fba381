"""The result of :func:`kscore.leaderboard`: ranked models with every
metric's estimate and interval, paired comparisons, per-group boards, as a
table for arrow, pandas or polars (docs/leaderboard.md, *Python API*)."""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from typing import Any

import numpy as np

from .._counts import Counts
from .._issues import LeaderboardError
from .._spec import Metric, resolve_sort
from ..stats.compare import Comparison, Pairwise, compare, pairwise
from ..stats.plan import Plan, check_power, plan
from ..stats.ranges import RankSets
from ..stats.rank import rank_labels, scored_models
from ..stats.scores import Scores
from ..stats.values import ModelRow, column, float_column, table_of
from .show import Shown

#: The ``group`` of the overall board in tables with ``by`` groups.
ALL = "(all)"

# The attributes :meth:`Leaderboard.columns` reads of each row and value.
_RANK, _MODEL, _QUESTIONS, _N_MIN, _N_MAX, _ACCURACY = map(
    attrgetter, ("rank", "model", "questions", "n_min", "n_max", "accuracy"))
_FIRST, _SECOND = itemgetter(0), itemgetter(1)


@dataclass
class Leaderboard:
    """Ranked models (``rows``, best first) and what they were computed from.

    ``interval``: ``"questions"`` (the intervals reflect the sampling of the
    questions, cluster-robust by ``cluster``) or ``"posterior"`` (Bayesian,
    conditional on the questions); ``adjust``: the p-values the rank ranges
    use (``"none"``, ``"holm"`` or ``"simultaneous"``); ``ranks``: how the
    rank ranges were decided, and ``ranks.could_be_best`` the models no
    model is significantly better than. The matrices of all pairs are made
    only when asked: ``pairs`` (the sorted metric's, computed on first use)
    or :meth:`pairwise` (any metric, any models); :meth:`compare` gives one
    pair. ``groups``: one
    board per value of the ``by`` column (``group`` names it). ``counts``:
    the per-(model, question) counts table (pass it back to
    :func:`kscore.leaderboard`, or add runs with :func:`kscore.add_counts`);
    ``warnings``/``notes``: the data problems found."""

    rows: list[ModelRow]
    metrics: list[Metric]
    sort: Metric
    confidence: float
    source: str
    n_questions: int
    n_samples: int
    weights: list[float]
    counts: Counts
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    interval: str = "questions"
    adjust: str = "none"
    cluster: str | None = None
    by: str | None = None
    group: str | None = None
    groups: list[Leaderboard] = field(default_factory=list)
    ranks: RankSets | None = None
    scores: Scores | None = field(default=None, repr=False)
    #: What its outputs show beyond the rows, where asked of the run (``show=``).
    shown: Shown | None = field(default=None, repr=False)
    _pairs: Pairwise | None = field(default=None, repr=False)

    @property
    def pairs(self) -> Pairwise | None:
        """The paired comparisons of every two models on the sorted metric
        (L x L matrices: made on first use, then kept)."""
        if self._pairs is None and self.scores is not None:
            self._pairs = self.pairwise()
        return self._pairs

    def _metric(self, metric: str | Metric | None) -> Metric:
        if metric is None:
            return self.sort
        if isinstance(metric, Metric):
            return metric
        return resolve_sort(metric, self.metrics)

    def pairwise(self, metric: str | Metric | None = None, models: list[str] | None = None) -> Pairwise:
        """Paired comparisons of every two models (board order; or of
        ``models``) on a metric shown (default: the sorted one): L x L
        matrices, so ask for the models you need on a large board. Their
        ``significant()`` decides as the rank ranges did (the board's
        ``adjust``) on the sorted metric; ``p_holm`` is Holm's over the
        pairs of the matrix."""
        m = self._metric(metric)
        if m == self.sort and self._pairs is not None and models is None:
            return self._pairs
        if self.scores is None:
            raise LeaderboardError("this leaderboard keeps no per-question scores")
        chosen = scored_models(self.rows, m)
        if models is not None:
            have = set(chosen)
            chosen = [x for x in models if x in have]
        pw = pairwise(self.scores, m.name, chosen, self.confidence)
        if m == self.sort:
            pw.sets = self.ranks
        return pw

    def compare(self, a: str, b: str, metric: str | Metric | None = None) -> Comparison:
        """Model ``a`` minus model ``b`` on the questions both answered: the
        mean paired difference, its interval and p-value (one test; no
        multiple-comparison adjustment)."""
        m = self._metric(metric)
        names = {r.model for r in self.rows}
        for x in (a, b):
            if x not in names:
                raise LeaderboardError(f"no model {x!r} on this leaderboard; models: "
                                       f"{', '.join(r.model for r in self.rows[:10])}")
        if self.scores is None:
            raise LeaderboardError("this leaderboard keeps no per-question scores")
        return compare(self.scores, m.name, a, b, self.confidence)

    def plan(self, metric: str | Metric | None = None, power: float = 0.8) -> Plan:
        """Design diagnostics on a metric shown (default: the sorted one):
        each model's variance within and between questions, and for each
        adjacent pair the smallest difference detectable at ``power``, the
        questions or samples per question that would resolve it, and the
        fewest questions whose removal flips it (docs/rankings.md, *Plan*).

        Examples:
            >>> import pandas as pd, kscore
            >>> rows = [(m, q, s, int((q + s) % 4 < t)) for m, t in (("a", 3), ("b", 2)) for q in range(8)
            ...         for s in range(4)]
            >>> board = kscore.leaderboard(pd.DataFrame(rows, columns=["model", "question", "sample", "correct"]))
            >>> board.plan().pairs[0].flip is None  # a is ahead on every question
            True
        """
        check_power(power)
        return plan(self, self._metric(metric), power)

    def columns(self, groups: bool = False, top: int | None = None, arrays: bool = False) -> dict[str, Any]:
        """One list per column: rank, rank_lo, rank_hi, model, questions,
        samples_min, samples_max, accuracy, then for each metric ``<m>`` (the
        estimate), ``<m>_sigma``, ``<m>_lo``, ``<m>_hi`` (the ``interval``'s
        standard error and bounds) and, for the posterior interval,
        ``<m>_posterior_mean`` (None where not computed). ``groups=True``
        with a ``by`` column: a leading ``group`` column, the overall board
        (``(all)``) then each group's. ``top``: the first ``top`` models of
        each (the command's CSV is this table, kscore.present.tabular).
        ``arrays``: each metric's columns as float64 arrays, NaN where the
        list has None (the CSV writes both as an empty field), read from the
        board's columns without a Python float per value where no row holds
        values of its own (else lists)."""
        if groups and self.by is not None:
            boards = [self, *self.groups]
            parts = [b.columns(top=top, arrays=arrays) for b in boards]
            out: dict[str, Any] = {"group": [ALL if b.group is None else b.group
                                             for b, p in zip(boards, parts) for _ in p["model"]]}
            for key in parts[0]:
                got = [p[key] for p in parts]
                out[key] = np.concatenate(got) if all(isinstance(g, np.ndarray) for g in got) else \
                    [v for g in got for v in (_as_list(g) if isinstance(g, np.ndarray) else g)]
            return out
        rs = self.rows if top is None else self.rows[:top]
        # (a column at a time: attribute reads mapped in C over the rows, no per-row Python)
        ranks = list(map(_RANK, rs))
        cols: dict[str, Any] = {
            "rank": rank_labels(ranks),
            "rank_lo": [None if r is None else r[0] for r in ranks] if None in ranks else list(map(_FIRST, ranks)),
            "rank_hi": [None if r is None else r[1] for r in ranks] if None in ranks else list(map(_SECOND, ranks)),
            "model": list(map(_MODEL, rs)),
            "questions": list(map(_QUESTIONS, rs)),
            "samples_min": list(map(_N_MIN, rs)),
            "samples_max": list(map(_N_MAX, rs)),
            "accuracy": list(map(_ACCURACY, rs)),
        }
        found = table_of(rs)  # (the rows' values as columns: no Value read but those the rows hold)
        fields = ["estimate", "sigma", "lo", "hi"] + (["posterior_mean"] if self.interval == "posterior" else [])
        for m in self.metrics:
            name = m.name  # (a property: computed at each use)
            for f in fields:
                cols[name + ("" if f == "estimate" else "_" + f)] = \
                    (float_column if arrays else column)(rs, found, name, f)
        return cols

    def value_columns(self, fields: tuple[str, ...] = ("estimate", "sigma", "lo", "hi"),
                      top: int | None = None) -> dict[str, list[list[Any]]]:
        """Each metric's values as columns: for each metric shown, a list per
        field of ``fields`` (``estimate``, ``sigma``, ``lo``, ``hi``,
        ``posterior_mean``) with an entry for each of the first ``top`` rows
        (all by default), None where the metric was not computed (the
        board's columns read at once, not a :class:`Value` per row)."""
        rs = self.rows if top is None else self.rows[:top]
        found = table_of(rs)
        return {m.name: [column(rs, found, m.name, f) for f in fields] for m in self.metrics}

    def to_arrow(self, groups: bool = False) -> Any:
        """A ``pyarrow.Table`` of :meth:`columns` (needs pyarrow only)."""
        import pyarrow as pa

        return pa.table(self.columns(groups))

    def to_pandas(self, groups: bool = False) -> Any:
        """A ``pandas.DataFrame`` of :meth:`columns` (needs pandas only)."""
        import pandas as pd

        return pd.DataFrame(self.columns(groups))

    def to_polars(self, groups: bool = False) -> Any:
        """A ``polars.DataFrame`` of :meth:`columns` (needs polars only)."""
        import polars as pl

        return pl.DataFrame(self.columns(groups), strict=False)


def _as_list(a: Any) -> list[Any]:
    """A float column of :meth:`Leaderboard.columns` ``(arrays=True)`` as a
    list, NaN as None (where groups' columns mix arrays and lists)."""
    out: list[Any] = a.tolist()
    for j in np.flatnonzero(np.isnan(a)).tolist():
        out[j] = None
    return out
