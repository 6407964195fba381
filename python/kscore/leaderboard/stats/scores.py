"""Per-question estimates of every metric on every row of a board, made
once per distinct state (stats/states.py) and gathered to the rows on first
use (:class:`Scores`); and each model's rows."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from .._counts import Counts
from .._spec import Metric
from .estimates import question_estimates
from .states import PerModel, StateArray, States, distinct_states, per_model


def by_model(counts: Counts) -> list[tuple[int, IntArray]]:
    """(model index, its rows of ``counts``) for every model with results."""
    m = counts.model
    if bool(np.all(m[1:] >= m[:-1])):  # ordered by model, as the engine keeps them: no sort
        cuts = np.flatnonzero(m[1:] != m[:-1]) + 1
        bounds = [0, *cuts.tolist(), len(m)] if len(m) else []
        return [(int(m[a]), np.arange(a, b)) for a, b in zip(bounds[:-1], bounds[1:])]
    order = np.argsort(counts.model, kind="stable")
    m_sorted = counts.model[order]
    cuts = np.flatnonzero(np.diff(m_sorted)) + 1
    return [(int(counts.model[g[0]]), g) for g in np.split(order, cuts) if len(g)]


@dataclass
class Scores:
    """Per-question estimates of each metric (``x[name]``, one per row of
    ``counts``), each row's cluster id (None: a cluster per question) and
    the rows' distinct states (None: found when needed)."""

    counts: Counts
    x: Mapping[str, FloatArray]
    cluster: IntArray | None
    states: States | None = None
    #: Each metric's estimate per distinct state (``x[name]`` is it gathered to the rows).
    per_state: dict[str, FloatArray] = field(default_factory=dict)
    _models: PerModel | None = field(default=None, repr=False)

    def per_model(self) -> PerModel:
        """The models' rows summed up (states.per_model), once."""
        if self._models is None:
            st = self.states if self.states is not None else distinct_states(self.counts.categories)
            self.states = st
            c = self.counts
            self._models = per_model(st, c.model, c.question, len(c.models), len(c.questions))
        return self._models

    def subset(self, rows: npt.NDArray[np.bool_]) -> Scores:
        """The same scores restricted to some rows (a ``--by`` group)."""
        c = self.counts
        sub = Counts(c.models, c.questions, c.model[rows], c.question[rows], c.categories[rows], c.attributes)
        cl = None if self.cluster is None else self.cluster[rows]
        st = None if self.states is None else self.states.subset(rows)
        return Scores(sub, {k: v[rows] for k, v in self.x.items()}, cl, st, self.per_state if st is not None else {})


def scores(counts: Counts, metrics: list[Metric], w: FloatArray, cluster: IntArray | None,
           states: States | None = None) -> Scores:
    """Per-question estimates of every metric on every row: one core call
    per metric for the whole board, on its distinct states (``states``: those
    of ``counts.categories``, if known)."""
    st = states if states is not None else distinct_states(counts.categories)
    per_state = {m.name: question_estimates(st.cats, m, w) for m in metrics}
    return Scores(counts, Gathered(per_state, st.of_row), cluster, st, per_state)


class Gathered(Mapping[str, FloatArray]):
    """Each metric's estimate on every row, gathered from its per-state
    values on first use (the board's intervals need none of them; the
    pairwise comparisons the sorted metric's)."""

    def __init__(self, per_state: dict[str, FloatArray], of_row: StateArray) -> None:
        self._per_state = per_state
        self._of_row = of_row
        self._done: dict[str, FloatArray] = {}

    def __getitem__(self, name: str) -> FloatArray:
        if name not in self._done:
            self._done[name] = self._per_state[name][self._of_row]
        return self._done[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._per_state)

    def __len__(self) -> int:
        return len(self._per_state)
