"""Which metrics a leaderboard shows: ``pass@K``, ``pass^K``, ``maj@K``,
``bayes@N`` (docs/leaderboard.md, *Metrics and ranking*)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ._issues import LeaderboardError


@dataclass(frozen=True)
class Metric:
    kind: str  # "pass", "pass^", "maj", "bayes"
    k: int = 0

    @property
    def name(self) -> str:
        if self.kind == "bayes":
            return "bayes@N"
        if self.kind == "pass^":
            return f"pass^{self.k}"
        return f"{self.kind}@{self.k}"


DEFAULT_KS = (1, 4, 16)
_METRIC = re.compile(r"^(pass@|pass\^|maj@)(k|\d+)$|^(bayes|bayes@n)$")


def parse_ks(text: str | Iterable[int] | None) -> list[int] | None:
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


def parse_metrics(specs: Iterable[str] | None, ks: list[int]) -> list[Metric]:
    """``pass@K``, ``pass^K``, ``maj@K`` (``K`` a number, or ``k`` for each of
    the budgets) and ``bayes@N``; comma-separated or several strings."""
    specs = list(specs) if specs is not None else []
    if not specs:
        kmax = max(ks)
        return [Metric("pass", 1)] + [Metric("pass", k) for k in ks if k > 1] + [Metric("maj", kmax), Metric("bayes")]
    out: list[Metric] = []
    for spec in specs:
        for token in spec.replace(" ", "").split(","):
            if not token:
                continue
            m = _METRIC.match(token.lower())
            if m is None:
                raise LeaderboardError(f"unknown metric {token!r}; use pass@K, pass^K, maj@K (K a number or 'k' for "
                                       "each --k) or bayes@N")
            if m.group(3):
                metrics = [Metric("bayes")]
            else:
                kind = {"pass@": "pass", "pass^": "pass^", "maj@": "maj"}[m.group(1)]
                kk = ks if m.group(2) == "k" else [int(m.group(2))]
                if min(kk) < 1:
                    raise LeaderboardError(f"metric {token!r}: k must be at least 1")
                metrics = [Metric(kind, k) for k in kk]
            out.extend(x for x in metrics if x not in out)
    return out


def resolve_sort(sort: str | None, metrics: list[Metric]) -> Metric:
    if sort is None:
        return next((m for m in metrics if m.kind == "bayes"), metrics[0])
    key = sort.lower()
    if key in ("bayes", "bayes@n"):
        key = "bayes@n"
    for m in metrics:
        if m.name.lower() == key:
            return m
    raise LeaderboardError(f"--sort {sort!r} is not one of the metrics shown: {', '.join(m.name for m in metrics)}")
