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

Third and fourth scenarios: ties drawn from Davidson's model (nu 0.6)
or Rao and Kupper's (kappa 1.5), no prompt effects, fitted with
``ties="davidson"`` or ``ties="rao_kupper"``: the target is the true
rating; the tie parameter's interval is scored too.

Each coverage comes with its Monte Carlo standard error: over boards (the
intervals of one board are not independent: the error is the spread of the
per-board shares over the boards), and binomial for the joint rank sets.

Usage: ``python scripts/arena_coverage.py [--boards 200] [--rounds 200]
[--scenario plain|style|davidson|rao_kupper|all] [--style-reg R] [--only sandwich|bootstrap] [--seed S]``
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


def draw_davidson(rng: np.random.Generator, theta: np.ndarray, pm: np.ndarray, N: int, nu: float, prompts: int
                  ) -> dict[str, object]:
    """Battles from Davidson's model: P(a) : P(b) : P(tie) = e^a : e^b : nu e^{(a+b)/2}."""
    L = len(theta)
    a, b = draw_pairs(rng, pm, N)
    q = rng.integers(0, prompts, N)
    u = np.stack([theta[a], theta[b], math.log(nu) + (theta[a] + theta[b]) / 2])
    p = np.exp(u - u.max(axis=0))
    p /= p.sum(axis=0)
    r = rng.random(N)
    y = np.where(r < p[0], 1.0, np.where(r < p[0] + p[1], 0.0, 0.5))
    names = [f"m{k:02d}" for k in range(L)]
    return {"model_a": [names[i] for i in a], "model_b": [names[i] for i in b], "winner": [WORD[v] for v in y],
            "question_id": [f"p{v}" for v in q]}


def draw_rao_kupper(rng: np.random.Generator, theta: np.ndarray, pm: np.ndarray, N: int, kappa: float,
                    prompts: int) -> dict[str, object]:
    """Battles from Rao and Kupper's model: ``P(a) = pi_a / (pi_a + kappa pi_b)``,
    ``P(b) = pi_b / (kappa pi_a + pi_b)``, a tie otherwise (``pi = e^theta``)."""
    L = len(theta)
    a, b = draw_pairs(rng, pm, N)
    q = rng.integers(0, prompts, N)
    d = theta[a] - theta[b]
    pa = 1 / (1 + kappa * np.exp(-d))
    pb = 1 / (1 + kappa * np.exp(d))
    r = rng.random(N)
    y = np.where(r < pa, 1.0, np.where(r < pa + pb, 0.0, 0.5))
    names = [f"m{k:02d}" for k in range(L)]
    return {"model_a": [names[i] for i in a], "model_b": [names[i] for i in b], "winner": [WORD[v] for v in y],
            "question_id": [f"p{v}" for v in q]}


#: The tie models' true parameters in the third and fourth scenarios.
TIE_TRUTH = {"davidson": 0.6, "rao_kupper": 1.5}

Coverage = dict[str, tuple[float, float, float, float, float, float]]


def run(scenario: str, boards: int, rounds: int, seed: int = 0, only: str | None = None,
        style_reg: float | None = None) -> Coverage:
    """Coverage per method: ``(rating intervals cover, its Monte Carlo
    error, rank sets hold jointly, its error, the tie parameter's interval
    covers (NaN: no tie model), its error)``; ``style_reg`` None: kscore's
    default penalty."""
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
    per_board: dict[str, list[float]] = {m: [] for m in methods}
    joint_ok: dict[str, list[bool]] = {m: [] for m in methods}
    tie_ok: dict[str, list[bool]] = {m: [] for m in methods}
    for k in range(boards):
        theta = rng.normal(0, 0.6, L)
        theta -= theta.mean()
        if scenario == "davidson":
            data = draw_davidson(rng, theta, pm, N, TIE_TRUTH["davidson"], prompts)
            target = theta
        elif scenario == "rao_kupper":
            data = draw_rao_kupper(rng, theta, pm, N, TIE_TRUTH["rao_kupper"], prompts)
            target = theta
        elif scenario == "style":
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
            if style_reg is not None:
                kw["style_reg"] = style_reg
            if scenario in TIE_TRUTH:
                kw["ties"] = scenario
            res = kscore.arena(use, style=["length"] if scenario == "style" else None, seed=k, fragility=False,
                               **kw)
            b = res.board
            inside = [b.lo[i] <= truth[m] <= b.hi[i] for i, m in enumerate(b.models)]
            ranks_ok = all(b.rank_lo[i] <= true_rank[m] <= b.rank_hi[i] for i, m in enumerate(b.models))
            per_board[name].append(sum(inside) / len(inside))
            joint_ok[name].append(ranks_ok)
            if scenario in TIE_TRUTH and b.tie_parameter is not None:
                tie_ok[name].append(b.tie_parameter[2] <= TIE_TRUTH[scenario] <= b.tie_parameter[3])
    return {m: (*_share(per_board[m]), *_share(joint_ok[m]), *_share(tie_ok[m])) for m in methods}


def _share(x: list[float] | list[bool]) -> tuple[float, float]:
    """The mean of per-board shares and its Monte Carlo standard error."""
    v = np.asarray(x, np.float64)
    if len(v) == 0:
        return math.nan, math.nan
    se = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan
    return float(v.mean()), se


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=200)
    ap.add_argument("--scenario", choices=["plain", "style", "davidson", "rao_kupper", "all"], default="all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--style-reg", type=float, default=None,
                    help="the coefficients' penalty (default: kscore's; arena-rank's is 1.0)")
    ap.add_argument("--only", help="methods whose name starts with this (sandwich, bootstrap)")
    args = ap.parse_args()
    for sc in (["plain", "style", "davidson", "rao_kupper"] if args.scenario == "all" else [args.scenario]):
        got = run(sc, args.boards, args.rounds, seed=args.seed, only=args.only, style_reg=args.style_reg)
        reg = "default" if args.style_reg is None else f"{args.style_reg:g}"
        print(f"\n### {sc}: {args.boards} boards x 12 models, style_reg {reg}, seed {args.seed}\n")
        tie = sc in TIE_TRUTH
        print("| intervals | 95% rating intervals cover (+- MC se) | rank sets hold jointly (+- MC se) |"
              + (" tie parameter's interval covers (+- MC se) |\n|---|---:|---:|---:|" if tie else "\n|---|---:|---:|"))
        for m, (cov, cse, joint, jse, tc, tse) in got.items():
            print(f"| {m} | {cov:.2%} +- {cse:.2%} | {joint:.1%} +- {jse:.1%} |"
                  + (f" {tc:.1%} +- {tse:.1%} |" if tie else ""))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
