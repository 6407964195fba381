"""What the renderers draw: a small typed model of a ranked board.

Every renderer (the terminal tables, CSV, JSON, Markdown, HTML, plots,
Arrow/pandas/polars) reads only this model, never a result object of its
own: a :class:`Board` is rows (a name, values with intervals, a rank range),
optionally a matrix of pairs, and the sentences that say what they are,
everything computed before any rendering. :mod:`kscore.present.from_leaderboard`
builds one from a :class:`kscore.leaderboard.Leaderboard`; another kind of
result (a board from pairwise battles) gets every format by building the
same (CONTRIBUTING.md, *Output*). Models are listed best first; every
per-model list has one entry per model, in that order.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from ..leaderboard.api import Comparison
from ..leaderboard.api import Curve as Curve  # (computed with the board: result/show.py)


@dataclass(frozen=True)
class Estimate:
    """A value and its interval (``lo``/``hi`` None when there is none);
    for the tables' columns (CSV, JSON), its standard error ``sigma`` and,
    where the interval is centred elsewhere than the value (a posterior),
    that centre ``posterior_mean``."""

    value: float
    lo: float | None = None
    hi: float | None = None
    sigma: float | None = None
    posterior_mean: float | None = None

    @property
    def half_width(self) -> float | None:
        """Half the interval's width: what ``±`` shows (None without one)."""
        if self.lo is None or self.hi is None or not (math.isfinite(self.lo) and math.isfinite(self.hi)):
            return None
        return (self.hi - self.lo) / 2


class Estimates(Sequence["Estimate | None"]):
    """A metric's values as columns, one entry per model: ``value`` (None:
    not computed) and the interval's ``lo``, ``hi``, ``sigma`` and
    ``posterior_mean`` (None: all None); an :class:`Estimate` is made only
    when an entry is read, so that the writers of 100 000 models read the
    columns."""

    __slots__ = ("value", "lo", "hi", "sigma", "posterior_mean")

    def __init__(self, value: list[float | None], lo: list[float | None] | None = None,
                 hi: list[float | None] | None = None, sigma: list[float | None] | None = None,
                 posterior_mean: list[float | None] | None = None) -> None:
        none: list[float | None] = [None] * len(value)
        self.value = value
        self.lo = none if lo is None else lo
        self.hi = none if hi is None else hi
        self.sigma = none if sigma is None else sigma
        self.posterior_mean = none if posterior_mean is None else posterior_mean

    def __len__(self) -> int:
        return len(self.value)

    @overload
    def __getitem__(self, i: int) -> Estimate | None: ...

    @overload
    def __getitem__(self, i: slice) -> Estimates: ...

    def __getitem__(self, i: int | slice) -> Estimate | None | Estimates:
        if isinstance(i, slice):
            return Estimates(self.value[i], self.lo[i], self.hi[i], self.sigma[i], self.posterior_mean[i])
        v = self.value[i]
        if v is None:
            return None
        return Estimate(v, self.lo[i], self.hi[i], self.sigma[i], self.posterior_mean[i])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(list(self))


@dataclass
class MetricColumn:
    """One numeric column: a value (and interval) per model, None where not
    computed. ``importance``: 0 is kept longest when a table must leave out
    columns; ``digits``: decimals shown; ``higher_better`` sets the direction
    a first click sorts in."""

    name: str
    values: Sequence[Estimate | None]
    importance: int = 1
    digits: int = 3
    higher_better: bool = True
    #: The numbers of each value the JSON writes (attributes of
    #: :class:`Estimate`, ``value`` as ``estimate``); only ``("estimate",)``:
    #: a plain value without interval (accuracy), written beside the
    #: model's name, not among its metrics.
    fields: tuple[str, ...] = ("estimate", "sigma", "lo", "hi")
    #: The header where space is short (the command's compact table); '': the name.
    short: str = ""

    @property
    def plain(self) -> bool:
        """A value without interval (shown after the metrics, written beside the name)."""
        return self.fields == ("estimate",)


@dataclass
class InfoColumn:
    """A column of text per model (questions, samples): shown, sortable,
    left out before any metric when space is short; ``values``: the same
    as JSON-ready data (None: the JSON leaves the column out)."""

    name: str
    cells: list[str]
    importance: int = 50
    values: list[Any] | None = None


@dataclass
class Pairwise:
    """Paired comparisons of every two models on ``metric``: cell ``[i][j]``
    is model ``i`` minus model ``j`` (None on the diagonal or where not
    computed), with its interval, p-value and whether it is significant."""

    metric: str
    difference: list[list[float | None]]
    lo: list[list[float | None]]
    hi: list[list[float | None]]
    p: list[list[float | None]]
    significant: list[list[bool]]
    note: str = ""
    #: Per-question estimates of every model, for comparing any model with
    #: all others in the page's script (kscore.leaderboard.api.compare_data).
    on_demand: dict[str, Any] | None = None


@dataclass
class Words:
    """The sentences of the command's own outputs, each in the wording that
    output has (:mod:`kscore.present.wording` makes them): ``meaning``
    what the cells and rank ranges are (the JSON's ``interval_meaning``);
    ``caption`` under the wide table's title; ``summary`` the compact
    table's line under it (what is shown, cut to the width); ``footers``
    the compact table's footer, longest wording first (the first that fits
    the width is written); ``best`` the compact table's line naming the
    models that could be #1 ('' for none)."""

    meaning: str = ""
    caption: str = ""
    summary: str = ""
    footers: tuple[str, ...] = ()
    best: str = ""


@dataclass
class Board:
    """A ranked leaderboard to show.

    ``ranks``: each model's rank range (``(2, 3)``: rank 2 to 3), None where
    unranked; ``sort``: the name of the column the ranking is by;
    ``footer``: one line saying what the numbers and intervals are;
    ``interval_note``: what a plot of the values and intervals draws (the
    footer when empty); ``curves``: per model, None where there is none,
    ``curve_note`` what their line and band are (shown under them);
    ``subsets``: the same board for each subset of the data (``--by``), by
    subset name; ``plan``: the design diagnostics as lines of text.

    What only the command's outputs show (:mod:`kscore.present.formats`):
    ``words`` their sentences; ``table`` the rows as typed columns, the
    board's subsets after it under a leading ``group`` column (CSV, Arrow,
    pandas, polars), a list per column or, for the command's metrics, a
    float64 array (NaN where the list has None); for the JSON, ``about`` (facts written first: the
    source, the interval, ...), ``totals`` (before the rows: questions,
    samples), ``extras`` (after them: plan, pairs, ...), ``by`` (the column
    of the subsets) and ``group`` (a subset's value of it), ``warnings``."""

    title: str
    models: list[str]
    ranks: list[tuple[int, int] | None]
    metrics: list[MetricColumn]
    footer: str = ""
    info: list[InfoColumn] = field(default_factory=list)
    sort: str | None = None
    curves: list[Curve | None] | None = None
    curve_label: str = "pass@k"
    curve_note: str = ""
    pairwise: Pairwise | None = None
    subsets: dict[str, Board] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    interval_note: str = ""
    #: The design diagnostics in words (kscore plan), shown under the table; empty: none.
    plan: list[str] = field(default_factory=list)
    #: The pairwise matrix covers the first this many models (all: None).
    matrix_models: int | None = None
    words: Words = field(default_factory=Words)
    table: dict[str, Any] | None = None
    about: dict[str, Any] = field(default_factory=dict)
    totals: dict[str, Any] = field(default_factory=dict)
    extras: dict[str, Any] = field(default_factory=dict)
    by: str | None = None
    group: str | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        n = len(self.models)
        lengths = {"ranks": len(self.ranks), **{f"metric {m.name!r}": len(m.values) for m in self.metrics},
                   **{f"column {c.name!r}": len(c.cells) for c in self.info}}
        if self.curves is not None:
            lengths["curves"] = len(self.curves)
        if self.pairwise is not None and self.matrix_models is None:
            lengths["pairwise"] = len(self.pairwise.difference)
        wrong = [f"{what} has {m}" for what, m in lengths.items() if m != n]
        if wrong:
            raise ValueError(f"a Board of {n} models: " + "; ".join(wrong))


@dataclass
class ComparisonReport:
    """``kscore compare``'s result as shown: one pair of models on every
    metric, overall (group None) and in each subset holding both.
    ``title``: the table's; ``meaning``: what the numbers are (under the
    table, and the JSON's ``meaning``); ``about``: the JSON's first facts;
    ``by``: the column of the subsets."""

    title: str
    meaning: str
    about: dict[str, Any]
    by: str | None
    groups: list[tuple[str | None, list[Comparison]]]


@dataclass
class PlanShown:
    """One board's design diagnostics: its title, in words (``lines``) and
    as JSON-ready data (``data``); ``group``: a subset's value (None: the
    whole board)."""

    title: str
    group: str | None
    lines: list[str]
    data: dict[str, Any]


@dataclass
class PlanReport:
    """``kscore plan``'s result as shown: the whole board's plan, then each
    subset's (``by``: their column); ``about``: the JSON's first facts."""

    about: dict[str, Any]
    by: str | None
    plans: list[PlanShown]
    warnings: list[str] = field(default_factory=list)


class OutputError(Exception):
    """An output that cannot be made as asked (the message, one line, says
    what to ask instead): the command ends with it as an error."""


@dataclass(frozen=True)
class Target:
    """Where an output goes: a file (``file``), else standard output, a
    terminal or not (``tty``); ``encoding`` its encoding; ``width`` the
    columns the compact table fits (the terminal's, 80 otherwise); ``wide``
    the whole table (``--wide``) rather than the compact one."""

    file: bool = True
    tty: bool = False
    encoding: str = "utf-8"
    width: int = 80
    wide: bool = False


def rank_text(rank: tuple[int, int] | None) -> str:
    """``2-3`` for a range, ``1`` for a single rank, ``-`` for none.

    >>> rank_text((2, 3)), rank_text((1, 1)), rank_text(None)
    ('2-3', '1', '-')
    """
    if rank is None:
        return "-"
    a, b = rank
    return str(a) if a == b else f"{a}-{b}"
