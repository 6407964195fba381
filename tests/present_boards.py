"""Boards to render in the presentation tests: many models with long, alike
names (one with a ``|``), metrics with intervals, curves, the pairwise
matrix and subsets, from a seeded generator (the numbers are plausible, not
computed)."""

from __future__ import annotations

import numpy as np

from kscore.present.model import Board, Curve, Estimate, InfoColumn, MetricColumn, Pairwise


def model_names(n: int) -> list[str]:
    """Long names that differ only in the middle or at the very end."""
    sizes = ["7b", "8b", "13b", "70b", "405b"]
    names = [f"organisation-{i % 3}/very-long-family-name-{sizes[i % 5]}-instruct-v{i // 5}-preview-2026-11"
             for i in range(n)]
    if n > 2:
        names[2] = "lab|pipe/model_with*markdown*chars<&>"
    return names


def metric_names(m: int) -> list[str]:
    ks = [1, 2, 4, 8, 16, 32, 64]
    kinds = ["pass@", "pass^", "maj@"]
    return [f"{kinds[j // len(ks) % 3]}{ks[j % len(ks)]}" for j in range(m)]


def board(n: int, m: int = 3, curves: bool = True, pairwise: bool = True, subsets: int = 0,
          seed: int = 0) -> Board:
    rng = np.random.default_rng(seed)
    names = model_names(n)
    skill = np.sort(rng.uniform(0.2, 0.9, n))[::-1]
    half = rng.uniform(0.005, 0.04, n)
    metrics = []
    for j, name in enumerate(metric_names(m)):
        shift = 0.05 * (j % 7) / 7
        vals: list[Estimate | None] = [
            Estimate(float(min(s + shift, 0.99)), float(min(s + shift, 0.99) - h), float(min(s + shift + h, 1.0)))
            for s, h in zip(skill, half)]
        if n > 4 and j == m - 1:
            vals[4] = None  # a metric not computed for one model
        metrics.append(MetricColumn(name, vals, importance=j + 1))
    ranks = [(max(1, i + 1 - int(rng.integers(0, 3))), min(n, i + 1 + int(rng.integers(0, 3)))) for i in range(n)]
    info = [InfoColumn("questions", [f"{1000 + i:,}" for i in range(n)]), InfoColumn("samples", ["8"] * n)]
    b = Board(f"kscore leaderboard: synthetic ({n} models)", names, [(1, 1), *ranks[1:]] if n else [], metrics,
              footer="posterior mean ±half its 95% credible interval; rank: range the intervals allow",
              info=info, sort=metrics[0].name if metrics else None)
    if curves:
        ks = [1, 2, 4, 8, 16, 32, 64]
        b.curves = []
        for s, h in zip(skill, half):
            v = [float(1 - (1 - s) ** (k ** 0.5)) for k in ks]
            b.curves.append(Curve(ks, v, [max(0.0, x - h) for x in v], [min(1.0, x + h) for x in v]))
        b.curve_note = "line: the classic pass@k estimate; band: its 95% interval over questions"
    if pairwise:
        d = skill[:, None] - skill[None, :]
        se = np.sqrt(half[:, None] ** 2 + half[None, :] ** 2) / 2
        p = np.exp(-np.abs(d) / np.maximum(se, 1e-9))
        diff: list[list[float | None]] = [[None if i == j else float(d[i, j]) for j in range(n)] for i in range(n)]
        lo: list[list[float | None]] = [[None if i == j else float(d[i, j] - 2 * se[i, j]) for j in range(n)]
                                        for i in range(n)]
        hi: list[list[float | None]] = [[None if i == j else float(d[i, j] + 2 * se[i, j]) for j in range(n)]
                                        for i in range(n)]
        pv: list[list[float | None]] = [[None if i == j else float(p[i, j]) for j in range(n)] for i in range(n)]
        sig = [[i != j and bool(p[i, j] < 0.05) for j in range(n)] for i in range(n)]
        b.pairwise = Pairwise(metrics[0].name, diff, lo, hi, pv, sig)
    for s in range(subsets):
        b.subsets[f"subset {s}"] = board(n, m, curves=False, pairwise=False, seed=seed + s + 1)
    return b
