"""Coverage of kscore.arena's intervals and rank sets by simulation
(docs/arena.md, *Coverage*): boards drawn from a known Bradley-Terry model
with ties, skewed pair counts, prompts whose random effects cluster the
battles, and (second scenario) a style effect correlated with the models.

The target of the ties-as-half-a-win fit is the pseudo-true rating
``theta*``: the maximum of the expected log-likelihood over the design
(pair probabilities, ties, the prompts' effects integrated out by
Gauss-Hermite); with style control and no ties it is the true rating.
Reported per method: the share of (board, model) intervals holding
``theta*`` (95% nominal) and the share of boards whose simultaneous rank
sets all hold the true ranks.

Usage: ``python scripts/arena_coverage.py [--boards 200] [--rounds 200] [--scenario plain|style|all]``
(tests/test_arena_coverage.py runs a fast subset.)
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.arena_reference import ELO, draw_pairs, newton_bt  # noqa: E402

WORD = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}


def design(L: int, skew: float) -> np.ndarray:
    pm = (np.arange(L) + 1.0) ** -skew
    return np.asarray(pm / pm.sum(), np.float64)


def draw(rng: np.random.Generator, theta: np.ndarray, pm: np.ndarray, N: int, tie: float, prompts: int,
         prompt_sd: float, style: float, verbosity: np.ndarray | None) -> dict[str, object]:
    L = len(theta)
    a, b = draw_pairs(rng, pm, N)
    q = rng.integers(0, prompts, N)
    eff = rng.normal(0, prompt_sd, (prompts, L))
    z = theta[a] - theta[b] + eff[q, a] - eff[q, b]
    out: dict[str, object] = {}
    if verbosity is not None:
        x = verbosity[a] - verbosity[b] + rng.normal(0, 1, N)
        z = z + style * x
        out["length"] = x
    p = 1 / (1 + np.exp(-z))
    y = np.where(rng.random(N) < tie, 0.5, (rng.random(N) < p).astype(float))
    names = [f"m{k:02d}" for k in range(L)]
    out.update(model_a=[names[i] for i in a], model_b=[names[i] for i in b], winner=[WORD[v] for v in y],
               question_id=[f"p{v}" for v in q])
    return out


def pseudo_true(theta: np.ndarray, pm: np.ndarray, tie: float, prompt_sd: float) -> np.ndarray:
    """The maximum of the expected ties-as-half log-likelihood."""
    L = len(theta)
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    a, b, y, wt = [], [], [], []
    for i in range(L):
        for j in range(L):
            if i == j:
                continue
            n = pm[i] * pm[j] / (1 - pm[i])  # (b redrawn until it differs from a)
            d = theta[i] - theta[j] + math.sqrt(2) * prompt_sd * x
            ey = tie / 2 + (1 - tie) * float(np.sum(w / (1 + np.exp(-d))))
            a += [i, i]
            b += [j, j]
            y += [1.0, 0.0]
            wt += [n * ey, n * (1 - ey)]
    return newton_bt(L, np.array(a), np.array(b), np.array(y), np.array(wt))


def run(scenario: str, boards: int, rounds: int, seed: int = 0, only: str | None = None, style_reg: float = 1.0
        ) -> dict[str, tuple[float, float]]:
    import kscore

    L, N, tie, prompts, prompt_sd = 12, 12_000, 0.15, 3000, 0.6
    rng = np.random.default_rng(seed)
    pm = design(L, 1.0)
    methods: dict[str, dict[str, Any]] = {
        "sandwich (clustered by prompt)": {"intervals": "sandwich"},
        f"bootstrap by prompt ({rounds} rounds)": {"intervals": "bootstrap", "rounds": rounds},
        "sandwich ignoring the prompts": {"intervals": "sandwich", "prompt": None}}
    if only is not None:
        methods = {m: kw for m, kw in methods.items() if m.startswith(only)}
    hits = {m: [0, 0, 0, 0] for m in methods}
    for k in range(boards):
        theta = rng.normal(0, 0.6, L)
        theta -= theta.mean()
        if scenario == "style":
            verb = rng.normal(0, 0.7, L)
            data = draw(rng, theta, pm, N, 0.0, prompts, 0.0, 0.4, verb)
            target = theta
        else:
            data = draw(rng, theta, pm, N, tie, prompts, prompt_sd, 0.0, None)
            target = pseudo_true(theta, pm, tie, prompt_sd)
        truth = {f"m{i:02d}": 1000 + ELO * target[i] for i in range(L)}
        true_rank = {m: 1 + sum(1 for v in truth.values() if v > truth[m]) for m in truth}
        for name, kw in methods.items():
            kw = dict(kw)
            use = dict(data)
            if "prompt" in kw:
                kw.pop("prompt")
                use.pop("question_id")
            res = kscore.arena(use, style=["length"] if scenario == "style" else None, seed=k, fragility=False,
                               style_reg=style_reg, **kw)
            b = res.board
            inside = [b.lo[i] <= truth[m] <= b.hi[i] for i, m in enumerate(b.models)]
            ranks_ok = all(b.rank_lo[i] <= true_rank[m] <= b.rank_hi[i] for i, m in enumerate(b.models))
            h = hits[name]
            h[0] += sum(inside)
            h[1] += len(inside)
            h[2] += ranks_ok
            h[3] += 1
    return {m: (h[0] / h[1], h[2] / h[3]) for m, h in hits.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--scenario", choices=["plain", "style", "all"], default="all")
    ap.add_argument("--style-reg", type=float, default=1.0, help="the coefficients' penalty (arena-rank's 1.0)")
    args = ap.parse_args()
    for sc in (["plain", "style"] if args.scenario == "all" else [args.scenario]):
        got = run(sc, args.boards, args.rounds, style_reg=args.style_reg)
        print(f"\n### {sc}: {args.boards} boards x 12 models, style_reg {args.style_reg:g}\n")
        print("| intervals | 95% rating intervals cover | rank sets hold jointly |\n|---|---:|---:|")
        for m, (cov, joint) in got.items():
            print(f"| {m} | {cov:.1%} | {joint:.1%} |")


if __name__ == "__main__":
    main()
