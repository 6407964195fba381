"""Which metrics a leaderboard shows, parsed from the core's metric table
(docs/leaderboard.md, *Metrics*).

Every finite-bank metric of the table (``kscore._kscore.metric_table()``)
gets a leaderboard name from its table name: ``<stem>_at_k`` is
``<stem>@K``, ``<stem>_hat_k`` is ``<stem>^K``, a ``_tau`` metric takes
``_TAU`` after the budget, and underscores in the stem become hyphens
(``pass_at_k`` -> ``pass@K``, ``pass_hat_k`` -> ``pass^K``,
``g_pass_at_k_tau`` -> ``g-pass@K_TAU``, ``mg_pass_at_k`` -> ``mg-pass@K``;
the aliases ``unanimous@K`` and ``g-pass@K`` are pass^K). Beside the table:
``avg@n``, ``cons@K`` / ``cons@n`` (the harness metrics), ``max@K`` (the
expected best reward of K samples under ``--weights``) and ``bayes@N``.
Metrics that need a weight vector per budget (the threshold spectrum) are
not offered."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass

from .. import _kscore
from ._issues import LeaderboardError

_RULE = re.compile(r"^(?P<stem>.+?)_(?P<op>at|hat)_(?P<k>k|n)(?P<tau>_tau)?$")


def _token(name: str) -> tuple[str, bool, str]:
    """A table-style name's leaderboard prefix (``pass@``), whether it takes
    tau, and its budget letter."""
    m = _RULE.match(name)
    if m is None:  # pragma: no cover - every table name follows the rule (tested)
        raise ValueError(f"metric name {name!r} does not follow <stem>_at_k / <stem>_hat_k")
    return m["stem"].replace("_", "-") + ("@" if m["op"] == "at" else "^"), m["tau"] is not None, m["k"]


#: Metrics beside the table's: the harness metrics, max@k and Bayes@N.
EXTRA = ("avg_at_n", "cons_at_k", "max_at_k")
#: (prefix, takes tau) -> the canonical metric (table rows whose extra
#: argument is a weight vector per budget are left out).
PREFIXES: dict[tuple[str, bool], str] = {}
for _name, _canonical, _needs in _kscore.metric_table():
    if _needs != "weights":
        _prefix, _tau, _ = _token(_name)
        PREFIXES[(_prefix, _tau)] = _canonical
for _name in EXTRA:
    PREFIXES[_token(_name)[:2]] = _name
#: The leaderboard prefix of each canonical metric.
PREFIX_OF = {canonical: _token(canonical)[0] for canonical in PREFIXES.values()}


@dataclass(frozen=True)
class Metric:
    """A leaderboard metric: ``kind`` is a metric-table name (``pass_at_k``,
    ``pass_hat_k``, ``g_pass_at_k_tau``, ``mg_pass_at_k``, ``maj_at_k``,
    ``auc_at_k``) or ``avg_at_n``, ``cons_at_k``, ``max_at_k``, ``bayes``;
    ``k`` its budget (0: each question's own n, for avg@n and cons@n);
    ``tau`` for G-Pass@k_tau."""

    kind: str
    k: int = 0
    tau: float | None = None

    @property
    def name(self) -> str:
        """The display name: ``pass@4``, ``pass^2``, ``g-pass@4_0.5``,
        ``cons@n``, ``bayes@N``, ..."""
        if self.kind == "bayes":
            return "bayes@N"
        prefix = PREFIX_OF[self.kind]
        k = "n" if self.k == 0 else str(self.k)
        return f"{prefix}{k}" + (f"_{self.tau:g}" if self.tau is not None else "")

    @property
    def budget(self) -> int:
        """The samples a question needs (1 for avg@n, cons@n and Bayes@N)."""
        return max(self.k, 1)


DEFAULT_KS = (1, 4, 16)
_TOKEN = re.compile(r"^(?P<prefix>[a-z][a-z-]*[@^])(?P<k>k|n|\d+)(?:_(?P<tau>[0-9.eE+-]+))?$")
_HELP = ("pass@K, pass^K, g-pass@K_TAU, mg-pass@K, maj@K, cons@K, cons@n, avg@n, auc@K, max@K, bayes@N "
         "(K a number or 'k' for each --k)")


def parse_ks(text: str | Iterable[int] | None) -> list[int] | None:
    """``--k``: positive budgets, comma-separated or a sequence (sorted, unique)."""
    if text is None:
        return None
    try:
        if isinstance(text, str):
            ks = sorted({int(t) for t in text.replace(" ", "").split(",") if t})
        else:
            ks = sorted({int(t) for t in text})
    except ValueError as exc:
        raise LeaderboardError(f"--k takes positive integers separated by commas, e.g. 1,4,16; got {text!r}") from exc
    if not ks or ks[0] < 1:
        raise LeaderboardError(f"--k takes positive integers separated by commas, e.g. 1,4,16; got {text!r}")
    return ks


def default_ks(n_min: int) -> list[int]:
    """1, 4, 16 bounded by the fewest samples any question has."""
    return sorted({min(k, n_min) for k in DEFAULT_KS})


def default_metrics(ks: list[int]) -> list[Metric]:
    """pass@1, pass@k for each further budget, maj@(largest k), Bayes@N."""
    kmax = max(ks)
    return ([Metric("pass_at_k", 1)] + [Metric("pass_at_k", k) for k in ks if k > 1]
            + [Metric("maj_at_k", kmax), Metric("bayes")])


def _one(token: str, ks: list[int]) -> list[Metric]:
    low = token.lower()
    if low in ("bayes", "bayes@n"):
        return [Metric("bayes")]
    m = _TOKEN.match(low)
    kind = None if m is None else PREFIXES.get((m["prefix"], m["tau"] is not None))
    if m is None or kind is None:
        raise LeaderboardError(f"unknown metric {token!r}; use {_HELP}")
    tau: float | None = None
    if m["tau"] is not None:
        try:
            tau = float(m["tau"])
        except ValueError:
            tau = math.nan
        if not 0.0 <= tau <= 1.0:
            raise LeaderboardError(f"metric {token!r}: tau must be a number in [0, 1]")
    if m["k"] == "n":
        if kind not in ("avg_at_n", "cons_at_k"):
            raise LeaderboardError(f"metric {token!r}: only avg@n and cons@n take n (each question's samples)")
        return [Metric(kind, 0)]
    if kind == "avg_at_n":
        raise LeaderboardError(f"metric {token!r}: avg@n has no budget; write avg@n")
    kk = ks if m["k"] == "k" else [int(m["k"])]
    if min(kk) < 1:
        raise LeaderboardError(f"metric {token!r}: k must be at least 1")
    return [Metric(kind, k, tau) for k in kk]


def parse_metrics(specs: Iterable[str] | None, ks: list[int]) -> list[Metric]:
    """Metric names (see the module doc), comma-separated or several
    strings; none: :func:`default_metrics`."""
    specs = list(specs) if specs is not None else []
    if not specs:
        return default_metrics(ks)
    out: list[Metric] = []
    for spec in specs:
        for token in spec.replace(" ", "").split(","):
            if token:
                out.extend(x for x in _one(token, ks) if x not in out)
    if not out:
        raise LeaderboardError(f"--metric names no metric; use {_HELP}")
    return out


def resolve_sort(sort: str | None, metrics: list[Metric]) -> Metric:
    """``--sort``: one of the metrics shown (default Bayes@N if shown, else the first)."""
    if sort is None:
        return next((m for m in metrics if m.kind == "bayes"), metrics[0])
    key = sort.lower()
    if key in ("bayes", "bayes@n"):
        key = "bayes@n"
    for m in metrics:
        if m.name.lower() == key:
            return m
    try:
        wanted = _one(sort.replace(" ", ""), [1])
    except LeaderboardError:
        wanted = []
    for m in metrics:
        if wanted and m == wanted[0]:
            return m
    raise LeaderboardError(f"--sort {sort!r} is not one of the metrics shown: {', '.join(m.name for m in metrics)}")
