r"""Paired counts of a response tensor, computed once in the Rust core:
for each pair of models :math:`i < j`, scorio's decisive wins

.. math::

    W_{ij} = \#\{(m, n): R_{imn} = 1, R_{jmn} = 0\}, \qquad
    T_{ij} = \#\{(m, n): R_{imn} = R_{jmn}\},

and which models have identical rows (scorio averages their scores: they
are indistinguishable to every model fitted here). The rows are packed
eight outcomes to a byte in scorio's event order (trial-major: every
question of trial 0, then trial 1, ...), which the rating systems also read.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import _kscore

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Events:
    """A binary tensor's outcomes as packed rows, one per model, in
    scorio's event order (``event = trial * M + question``)."""

    bits: npt.NDArray[np.uint8]
    models: int
    events: int


def events_of(tensor: npt.NDArray[np.generic]) -> Events:
    """The packed rows of a validated binary ``(L, M, N)`` tensor."""
    L, M, N = tensor.shape
    # One byte per outcome before the transpose (not the tensor's 8).
    by_event = np.not_equal(tensor, 0).transpose(0, 2, 1).reshape(L, M * N)
    return Events(np.packbits(by_event, axis=1), L, M * N)


@dataclass(frozen=True)
class Paired:
    """Every pair ``i < j`` of ``models``: wins of ``i``, of ``j``, ties;
    ``twins[l]`` the first model with the same row as ``l``."""

    models: int
    i: Ints
    j: Ints
    win_i: Floats
    win_j: Floats
    tie: Floats
    twins: Ints

    @property
    def total_wins(self) -> float:
        return float(self.win_i.sum() + self.win_j.sum())

    @property
    def total_ties(self) -> float:
        return float(self.tie.sum())

    def wins_matrix(self) -> Floats:
        """scorio's ``W`` (``W[i, j]``: wins of ``i`` over ``j``)."""
        W = np.zeros((self.models, self.models))
        W[self.i, self.j] = self.win_i
        W[self.j, self.i] = self.win_j
        return W

    def log_win_shares(self) -> Floats:
        """scorio's starting point of its fits: the log of each model's share
        of the wins (at least one each)."""
        wins = np.maximum(self.wins_matrix().sum(axis=1), 1)
        return np.asarray(np.log(wins / wins.sum()), dtype=np.float64)

    def connected(self, ties: bool) -> bool:
        """Whether the directed graph of wins (and ties, both ways) is
        strongly connected: scorio's test for a finite maximum likelihood."""
        tie = self.tie > 0 if ties else np.zeros(self.i.size, dtype=bool)
        forward = np.ascontiguousarray((self.win_i > 0) | tie)
        backward = np.ascontiguousarray((self.win_j > 0) | tie)
        return bool(_kscore.strongly_connected(self.models, self.i, self.j, forward, backward))


def paired(events: Events) -> Paired:
    """The paired counts and twin rows of packed rows."""
    i, j, win_i, win_j, tie = _kscore.pair_counts(events.bits, events.events)
    twins = _kscore.twin_rows(events.bits, events.events)
    return Paired(
        events.models,
        i.astype(np.int64),
        j.astype(np.int64),
        win_i,
        win_j,
        tie,
        twins.astype(np.int64),
    )


def average_twins(scores: Floats, twins: Ints) -> Floats:
    """Models with identical rows get the mean of their scores (scorio's
    ``average_equivalent_scores`` on the response tensor)."""
    heads = np.arange(twins.size)
    if np.array_equal(twins, heads):
        return scores
    result = scores.copy()
    for head in np.unique(twins[twins != heads]).tolist():
        members = np.flatnonzero(twins == head)
        result[members] = float(np.mean(scores[members]))
    return result
