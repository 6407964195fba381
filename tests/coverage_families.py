"""Simulated boards for the coverage suite of the leaderboard's intervals
(issue 36; ``python scripts/coverage.py``, tests/test_coverage_suite.py,
docs/rankings.md *Coverage*).

A family is a population of questions and a set of models. Each board draws
its questions afresh from the population: a question has a difficulty
``b`` (with clusters, ``b`` = the cluster's shared part + the question's
own), model ``m`` solves it with chance ``p = sigmoid(a_m - b)`` (or exactly
0 or 1 for a model fixed there), and answers it ``n`` times (fixed, or
uniform on a range: ragged), some (model, question) cells missing at
random. The **estimand** of a model and a metric is its expected value over
the population of questions (and of ``n``, where ragged):

* pass@k: ``E[1 - (1 - p)^k]``;
* maj@k: ``E[P(Binomial(k, p) > k / 2)]`` (a strict majority);
* bayes@N: ``E[(n p + 1) / (n + 2)]``, the expectation of the per-question
  posterior mean ``(c + 1) / (n + 2)`` the leaderboard reports;

each the expectation of the per-question estimate the board averages, so
that every interval over questions has one target, computed once per family
from 400 000 draws of the population (its Monte Carlo error, under 1e-3 of
the metric's spread, is far below every interval's width).

Everything is vectorised over boards: a chunk of boards is a few arrays of
shape (boards, models, questions).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

F = npt.NDArray[np.float64]
I = npt.NDArray[np.int64]  # noqa: E741

#: Draws of the population for the truths and for solving abilities.
POPULATION = 400_000


@dataclass(frozen=True)
class Family:
    """A population of questions and its models (module docstring).

    ``means``: each model's pass@1 over the population (abilities solved for
    it) or ``abilities`` on the logit scale; ``fixed``: models whose chance is
    exactly this on every question (by index); ``difficulty``: ``normal``
    (``N(0, spread)``), ``skewed`` (like real benchmarks: 35% of questions
    every model solves, 25% none does, the rest ``N(0, spread)``), ``bimodal``
    (``N(-2.5, 0.7)`` or ``N(2.5, 0.7)``); ``clusters``: the sizes of the
    clusters of questions (each board's questions fall in these clusters, in
    order), whose shared difficulty is ``N(0, cluster_sd)``; ``cluster_given``:
    whether the interval is told them (``--cluster``); ``samples``: per cell,
    fixed or a (lo, hi) uniform range; ``missing``: the share of cells missing
    at random."""

    name: str
    questions: int
    samples: int | tuple[int, int]
    metrics: tuple[str, ...] = ("pass@1",)
    means: tuple[float, ...] | None = None
    abilities: tuple[float, ...] | None = None
    fixed: tuple[tuple[int, float], ...] = ()
    difficulty: str = "normal"
    spread: float = 1.5
    clusters: tuple[int, ...] | None = None
    cluster_sd: float = 0.0
    cluster_given: bool = True
    missing: float = 0.0
    note: str = ""
    _cache: dict[str, F] = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def models(self) -> int:
        return len(self.means if self.means is not None else self.abilities or ())


def sigmoid(x: F) -> F:
    out: F = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def draw_difficulty(fam: Family, rng: np.random.Generator, shape: tuple[int, ...]) -> F:
    """Question difficulties of shape ``shape`` (last axis: questions), the
    clusters' shared parts included (clusters in order along the last axis)."""
    if fam.difficulty == "normal":
        b = rng.normal(0.0, fam.spread, shape)
    elif fam.difficulty == "skewed":
        u = rng.random(shape)
        b = np.where(u < 0.35, -12.0, np.where(u < 0.6, 12.0, rng.normal(0.0, fam.spread, shape)))
    elif fam.difficulty == "bimodal":
        b = np.where(rng.random(shape) < 0.5, -2.5, 2.5) + rng.normal(0.0, 0.7, shape)
    else:
        raise ValueError(fam.difficulty)
    if fam.clusters is not None and fam.cluster_sd > 0:
        sizes = np.asarray(fam.clusters)
        shared = rng.normal(0.0, fam.cluster_sd, (*shape[:-1], len(sizes)))
        b = b + np.repeat(shared, sizes, axis=-1)
    return np.asarray(b, np.float64)


def population(fam: Family) -> F:
    """POPULATION draws of the population's difficulty (fixed seed), the
    clusters' shared parts included (the marginal over clusters)."""
    if "b" not in fam._cache:
        rng = np.random.default_rng(12345)
        if fam.clusters is not None and fam.cluster_sd > 0:
            base = draw_difficulty(Family("", 1, 1, difficulty=fam.difficulty, spread=fam.spread), rng,
                                   (POPULATION,))
            fam._cache["b"] = base + rng.normal(0.0, fam.cluster_sd, POPULATION)
        else:
            fam._cache["b"] = draw_difficulty(fam, rng, (POPULATION,))
    return fam._cache["b"]


def abilities(fam: Family) -> F:
    """Each model's logit ability (``fam.abilities``, or solved by bisection
    for ``fam.means`` over the population); fixed models: NaN."""
    if "a" in fam._cache:
        return fam._cache["a"]
    if fam.abilities is not None:
        a = np.asarray(fam.abilities, np.float64)
    else:
        assert fam.means is not None
        b = population(fam)
        target = np.asarray(fam.means, np.float64)
        lo, hi = np.full(len(target), -30.0), np.full(len(target), 30.0)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            m = np.array([float(sigmoid(x - b).mean()) for x in mid])
            lo, hi = np.where(m < target, mid, lo), np.where(m < target, hi, mid)
        a = 0.5 * (lo + hi)
    a = a.copy()
    for j, _ in fam.fixed:
        a[j] = np.nan
    fam._cache["a"] = a
    return a


def chance(fam: Family, b: F) -> F:
    """Each model's chance on questions of difficulty ``b``: shape
    ``(models, *b.shape)`` moved so that models come before the last axis."""
    a = abilities(fam)
    p = sigmoid(a.reshape((-1,) + (1,) * b.ndim) - b[None])
    for j, value in fam.fixed:
        p[j] = value
    return p


def parse(metric: str) -> tuple[str, int]:
    """``"pass@4"`` -> ``("pass", 4)``; ``"bayes@N"`` -> ``("bayes", 0)``."""
    kind, _, k = metric.partition("@")
    return kind, 0 if k == "N" else int(k)


def metric_of_chance(metric: str, p: F, n: F | None = None) -> F:
    """The metric's expected per-question value at chance ``p`` (``n``: the
    samples, for bayes@N)."""
    kind, k = parse(metric)
    if kind == "pass":
        return 1.0 - (1.0 - p) ** k
    if kind == "maj":
        out = np.zeros_like(p)
        for j in range(k // 2 + 1, k + 1):
            out += math.comb(k, j) * p**j * (1.0 - p) ** (k - j)
        return out
    if kind == "bayes":
        assert n is not None
        return (n * p + 1.0) / (n + 2.0)
    raise ValueError(metric)


def truth(fam: Family, metric: str) -> F:
    """Each model's estimand for ``metric`` (module docstring)."""
    key = "truth:" + metric
    if key not in fam._cache:
        p = chance(fam, population(fam))  # (models, POPULATION)
        if parse(metric)[0] == "bayes":
            lo, hi = fam.samples if isinstance(fam.samples, tuple) else (fam.samples, fam.samples)
            ns = np.arange(lo, hi + 1, dtype=np.float64)
            fam._cache[key] = np.mean([metric_of_chance(metric, p, np.full_like(p, n)).mean(axis=1) for n in ns],
                                      axis=0)
        else:
            fam._cache[key] = metric_of_chance(metric, p).mean(axis=1)
    return fam._cache[key]


def estimates(metric: str, c: I, n: I) -> F:
    """The per-question estimate of ``metric`` from ``c`` correct of ``n``
    (the leaderboard's: kscore.counts' unbiased estimators, Bayes@N's
    posterior mean); NaN where ``n`` is below the metric's budget (or 0)."""
    kind, k = parse(metric)
    cf, nf = c.astype(np.float64), n.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        if kind == "bayes":
            return np.where(n > 0, (cf + 1.0) / (nf + 2.0), np.nan)
        ok = n >= max(k, 1)
        if kind == "pass":
            fail = np.ones_like(cf)  # C(n - c, k) / C(n, k) = prod_j (n - c - j) / (n - j)
            for j in range(k):
                fail *= np.clip(nf - cf - j, 0.0, None) / np.maximum(nf - j, 1.0)
            return np.where(ok, 1.0 - fail, np.nan)
        if kind == "maj":
            out = np.zeros_like(cf)
            total = _log_comb(nf, float(k))
            for j in range(k // 2 + 1, k + 1):
                term = np.exp(_log_comb(cf, float(j)) + _log_comb(nf - cf, float(k - j)) - total)
                out += np.where((cf >= j) & (nf - cf >= k - j), term, 0.0)
            return np.where(ok, out, np.nan)
    raise ValueError(metric)


def _log_comb(a: F, b: float) -> F:
    from scipy.special import gammaln

    with np.errstate(invalid="ignore"):
        out: F = gammaln(np.maximum(a, b) + 1.0) - gammaln(b + 1.0) - gammaln(np.maximum(a - b, 0.0) + 1.0)
    return out


@dataclass
class Chunk:
    """Boards of one family: ``c``, ``n`` (boards, models, questions; ``n`` 0
    where the cell is missing) and the clusters of the questions (None: the
    interval is told none)."""

    c: I
    n: I
    cluster: I | None
    true_cluster: I | None
    #: Each cell's chance (for the target given the questions: ``given_truth``).
    p: F | None = None


def boards(fam: Family, total: int, seed: int, chunk: int = 250) -> Iterator[Chunk]:
    """``total`` boards of the family, ``chunk`` at a time."""
    rng = np.random.default_rng(seed)
    Q = fam.questions
    true_cluster = None if fam.clusters is None else np.repeat(np.arange(len(fam.clusters)), fam.clusters)
    if true_cluster is not None:
        assert len(true_cluster) == Q, fam.name
    given = true_cluster if fam.cluster_given else None
    done = 0
    while done < total:
        B = min(chunk, total - done)
        b = draw_difficulty(fam, rng, (B, Q))
        p = np.moveaxis(chance(fam, b), 0, 1)  # (B, L, Q)
        if isinstance(fam.samples, tuple):
            n = rng.integers(fam.samples[0], fam.samples[1] + 1, p.shape)
        else:
            n = np.full(p.shape, fam.samples, np.int64)
        if fam.missing > 0:
            n = np.where(rng.random(p.shape) < fam.missing, 0, n)
        c = rng.binomial(n, p).astype(np.int64)
        yield Chunk(c, n.astype(np.int64), given, true_cluster, p)
        done += B


def _even(q: int, g: int) -> tuple[int, ...]:
    return tuple([q // g] * g)


EIGHT = tuple(float(x) for x in np.linspace(-1.5, 2.5, 8))

#: Every family of issue 36 and our own (the suite's rows). Abilities on the
#: logit scale against difficulties N(0, 1.5): pass@1 from about 0.25 to 0.85.
FAMILIES: list[Family] = [
    # the issue's
    Family("8 models x 40 questions, heterogeneous", 40, 4, ("pass@1", "pass@2", "maj@3", "bayes@N"), abilities=EIGHT),
    Family("8 models x 200 questions, heterogeneous", 200, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"),
           abilities=EIGHT),
    Family("near the ceiling: 0.97-0.995, 30 x 4", 30, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"),
           means=(0.97, 0.975, 0.98, 0.985, 0.99, 0.995)),
    Family("near 0: 0.005-0.03, 30 x 4", 30, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"),
           means=(0.005, 0.01, 0.015, 0.02, 0.025, 0.03)),
    Family("pass@4 on 40 x 8", 40, 8, ("pass@4", "pass@1"), abilities=EIGHT),
    Family("pass@k up to n: 40 x 8", 40, 8, ("pass@8", "pass@6", "maj@8", "maj@7"), abilities=EIGHT),
    Family("10 clusters of 10, --cluster", 100, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           clusters=_even(100, 10), cluster_sd=1.2, spread=0.8),
    Family("10 clusters of 10, no --cluster", 100, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           clusters=_even(100, 10), cluster_sd=1.2, spread=0.8, cluster_given=False,
           note="no interval that is not told the clusters can hold here: the warning names the column"),
    Family("ragged 1-16 samples, 15% missing, 100 q", 100, (1, 16), ("pass@1", "bayes@N"), abilities=EIGHT,
           missing=0.15),
    Family("5 questions", 5, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT),
    Family("10 questions", 10, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT),
    Family("15 questions", 15, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT),
    Family("every answer correct", 30, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=(0.0, 0.0, 0.0),
           fixed=((0, 1.0), (1, 1.0), (2, 1.0))),
    Family("one model at 0 and one at 1", 40, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           fixed=((0, 0.0), (7, 1.0))),
    # our own
    Family("skewed like real benchmarks, 100 q", 100, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           difficulty="skewed"),
    Family("skewed, 30 q", 30, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT, difficulty="skewed"),
    Family("bimodal difficulty, 60 q", 60, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           difficulty="bimodal"),
    Family("3 clusters of 20, --cluster", 60, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT,
           clusters=_even(60, 3), cluster_sd=1.0, spread=1.0),
    Family("2 clusters of 30, --cluster", 60, 4, ("pass@1", "bayes@N"), abilities=EIGHT, clusters=_even(60, 2),
           cluster_sd=1.0, spread=1.0),
    Family("unequal clusters (40, 20, 10, 5, 5, 5, 5, 5, 3, 2), --cluster", 100, 4,
           ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=EIGHT, clusters=(40, 20, 10, 5, 5, 5, 5, 5, 3, 2),
           cluster_sd=1.2, spread=0.8),
    Family("1 sample per question, 50 q", 50, 1, ("pass@1", "bayes@N"), abilities=EIGHT),
    Family("a single model, 40 x 4", 40, 4, ("pass@1", "pass@4", "maj@3", "bayes@N"), abilities=(0.7,)),
    Family("near the ceiling, skewed, 30 x 4", 30, 4, ("pass@1", "pass@4", "bayes@N"),
           means=(0.97, 0.98, 0.99, 0.995), difficulty="normal", spread=4.0),
    Family("near the ceiling, 20 clusters of 5, --cluster", 100, 4, ("pass@1", "bayes@N"),
           means=(0.95, 0.97, 0.98, 0.99), clusters=_even(100, 20), cluster_sd=2.0, spread=1.0),
    Family("near 0, 16 samples, 100 q", 100, 16, ("pass@1", "pass@16", "bayes@N"), means=(0.01, 0.02, 0.03, 0.05),
           spread=2.5),
]


def given_truth(metric: str, chunk: Chunk) -> F:
    """Each (board, model)'s mean over its own questions of the metric's
    expected per-question value (the target given the questions), NaN where
    it has no question."""
    assert chunk.p is not None
    g = metric_of_chance(metric, chunk.p, chunk.n.astype(np.float64))
    present = chunk.n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        out: F = np.where(present, g, 0.0).sum(axis=-1) / present.sum(axis=-1)
    return out


#: Boards the intervals were not chosen on (session 4: a check that the
#: default and ``interval="posterior"`` hold beyond the families above;
#: ``python scripts/coverage.py --held-out``).
HELD_OUT: list[Family] = [
    Family("held out: pass@2 of 2 samples, 20 q", 20, 2, ("pass@2", "pass@1"), abilities=EIGHT),
    Family("held out: 0.85-0.95, 12 q x 8", 12, 8, ("pass@1", "pass@8", "maj@5"), means=(0.85, 0.9, 0.95)),
    Family("held out: near the ceiling, 6 clusters of 5, --cluster", 30, 4, ("pass@1", "pass@4"),
           means=(0.9, 0.95, 0.98), clusters=_even(30, 6), cluster_sd=1.5, spread=1.0),
    Family("held out: skewed, 20 q x 16", 20, 16, ("pass@1", "pass@16", "maj@9"), abilities=EIGHT,
           difficulty="skewed"),
    Family("held out: near 0, ragged 1-8 samples, 10% missing, 25 q", 25, (1, 8), ("pass@1", "bayes@N"),
           means=(0.01, 0.03, 0.06), missing=0.1),
]
