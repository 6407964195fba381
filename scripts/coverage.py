"""The coverage suite of the leaderboard's intervals (issue 36): every family
of tests/coverage_families.py, every metric it lists, every candidate
interval of tests/coverage_intervals.py, at 95%; prints a Markdown table of
mean and worst-model coverage with their Monte Carlo errors and the mean
width relative to the plain t-interval.

    PYTHONPATH=python python scripts/coverage.py [--boards 1000] [--only TEXT] [--exact NAME] [--candidates a,b]
        [--json rows.jsonl] [--held-out] [--part I/K]

About ten minutes at 1,000 boards per family on one core (the bootstraps
take most of it; ``--candidates default,t`` a minute or two).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests import coverage_intervals as ci  # noqa: E402
from tests.coverage_families import FAMILIES, HELD_OUT, Family, boards, estimates, truth  # noqa: E402

Candidate = Callable[[ci.Units, float, np.random.Generator], tuple[ci.F, ci.F]]

#: Bootstrap draws per board (--draws).
DRAWS = [400]

CANDIDATES: dict[str, Candidate] = {
    # the intervals kscore has had
    "normal": lambda u, c, r: ci.normal(u, c),  # the default before issue 36 (interval="normal")
    "wilson_eff": lambda u, c, r: ci.wilson_eff(u, c),  # interval="wilson"
    # the classics
    "t": lambda u, c, r: ci.t_interval(u, c),  # on G - 1 df: the width baseline
    "boot_t": lambda u, c, r: ci.boot_t(u, c, r, DRAWS[0]),
    "bca": lambda u, c, r: ci.bca(u, c, r, DRAWS[0]),
    # prototypes
    "score": lambda u, c, r: ci.score(u, c, prior=2.0),  # Wilson on n_eff, dispersion moderated (d_eff), t on G-1
    "hull": lambda u, c, r: ci.hull(u, c, few=8.0),  # t, widened to the worst-case Wilson where E <= 8
    "env_t": lambda u, c, r: ci.envelope(u, c, core="t", few=8.0),  # the same, made monotone: exactly so
    "env_wilson": lambda u, c, r: ci.envelope(u, c, core="wilson"),  # Wilson on n_eff, made monotone
    "env_cp": lambda u, c, r: ci.envelope(u, c, core="cp"),  # Clopper-Pearson on n_eff, made monotone
    # prototypes of interval="posterior" (issue 36, item 5)
    "beta_j": lambda u, c, r: ci.beta_eff(u, c, 0.5),
    "beta_jdf": lambda u, c, r: ci.beta_eff(u, c, 0.5, df=True),
    "beta_u": lambda u, c, r: ci.beta_eff(u, c, 1.0),
    "beta_udf": lambda u, c, r: ci.beta_eff(u, c, 1.0, df=True),
    "beta_jmix": lambda u, c, r: ci.beta_eff(u, c, 0.5, mix=6),
    "bmix_j": lambda u, c, r: ci.beta_mix(u, c, 0.5),
    "bmix_u": lambda u, c, r: ci.beta_mix(u, c, 1.0),
    "bmix_jg": lambda u, c, r: ci.beta_mix(u, c, 0.5, dfree="units"),
    "bmix_je": lambda u, c, r: ci.beta_mix(u, c, 0.5, ends=True),
    "bmix_jte": lambda u, c, r: ci.beta_mix(u, c, 0.5, trunc=True, ends=True),
    "bmix_ute": lambda u, c, r: ci.beta_mix(u, c, 1.0, trunc=True, ends=True),
    # the shipped default (kscore.leaderboard.stats.default_interval)
    "default": lambda u, c, r: ci.default(u, c),
    # the default before session 5: n* capped by the count of answers (bayes@N's differs; others the same)
    "default_count": lambda u, c, r: ci.default(replace(u, samples=u.samples if u.answers is None else u.answers), c),
    # the shipped interval="posterior" (kscore.leaderboard.stats.posterior)
    "posterior": lambda u, c, r: ci.posterior(u, c),
    "posterior_jeffreys": lambda u, c, r: ci.posterior_shifts(u, c, (0.5,)),  # Jeffreys' Beta given the dispersion
    # the posterior's se by the units' leverage: CR1 (G / (G - 1)), CR2, CR3 (the shipped one since session 5)
    "posterior_cr1": lambda u, c, r: ci.posterior_leverage(u, c, "cr1"),  # the posterior before session 5
    "posterior_cr2": lambda u, c, r: ci.posterior_leverage(u, c, "cr2"),
    "posterior_cr3": lambda u, c, r: ci.posterior_leverage(u, c, "cr3"),
}


def run_family(fam: Family, n_boards: int, names: list[str], confidence: float = 0.95, seed: int = 7) -> list[dict[
        str, object]]:
    """Coverage and widths of each candidate on each metric of a family."""
    rng = np.random.default_rng(seed + 1)
    hits: dict[tuple[str, str], list[np.ndarray]] = {}
    widths: dict[tuple[str, str], list[np.ndarray]] = {}
    for chunk in boards(fam, n_boards, seed):
        for metric in fam.metrics:
            x = estimates(metric, chunk.c, chunk.n)
            x = np.where(chunk.n > 0, x, np.nan)
            bounds: tuple[ci.F | float, ci.F | float] = (0.0, 1.0)
            if metric == "bayes@N":  # the per-question posterior mean's range
                nmax = np.where(chunk.n > 0, chunk.n, 0).max(axis=-1).astype(np.float64)
                bounds = (1.0 / (nmax + 2.0), (nmax + 1.0) / (nmax + 2.0))
            u = ci.units(x, chunk.n, chunk.cluster, bounds)
            if metric == "bayes@N":  # the cap on n*: the information of the answers, as the leaderboard's
                u = ci.bayes_capped(u, chunk.n)
            tr = truth(fam, metric)
            for name in names:
                lo, hi = CANDIDATES[name](u, confidence, rng)
                hit = (lo - 1e-12 <= tr) & (tr <= hi + 1e-12)
                hits.setdefault((metric, name), []).append(hit)
                widths.setdefault((metric, name), []).append(hi - lo)
    rows = []
    for metric in fam.metrics:
        base = np.concatenate(widths[(metric, "t")]) if (metric, "t") in widths else None
        for name in names:
            h = np.concatenate(hits[(metric, name)]).astype(np.float64)  # (boards, models)
            w = np.concatenate(widths[(metric, name)])
            per_board = h.mean(axis=1)
            per_model = h.mean(axis=0)
            worst = int(np.argmin(per_model))
            B = h.shape[0]
            rows.append({
                "family": fam.name, "metric": metric, "candidate": name, "mean": float(per_board.mean()),
                "mean_se": float(per_board.std(ddof=1) / np.sqrt(B)), "worst": float(per_model[worst]),
                "worst_se": float(np.sqrt(per_model[worst] * (1 - per_model[worst]) / B)),
                "width": float(np.nanmean(w)),
                "ratio": float(np.nanmean(w) / np.nanmean(base)) if base is not None else float("nan"),
                "zero_width": float(np.mean(w <= 0)),
            })
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--only", default="", help="families whose name contains one of these ('|'-separated)")
    ap.add_argument("--exact", default="", help="families of exactly these names ('|'-separated)")
    ap.add_argument("--json", default="", help="also append each row as a line of JSON to this file")
    ap.add_argument("--held-out", action="store_true", help="the held-out families (tests/coverage_families.HELD_OUT)")
    ap.add_argument("--part", default="1/1", help="I/K: every K-th family from the I-th (parallel workers)")
    ap.add_argument("--candidates", default="")
    ap.add_argument("--draws", type=int, default=400, help="bootstrap draws per board (boot_t, bca)")
    args = ap.parse_args()
    DRAWS[0] = args.draws
    names = args.candidates.split(",") if args.candidates else list(CANDIDATES)
    if "t" not in names:
        names = ["t", *names]
    print(f"Coverage at 95%, {args.boards} boards per family; mean over models (MC error) / worst model (MC "
          "error) / mean width as a multiple of the t-interval's.\n")
    print("| family | metric | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    part, parts = (int(x) for x in args.part.split("/"))
    for index, fam in enumerate(HELD_OUT if args.held_out else FAMILIES):
        if index % parts != part - 1:
            continue
        if args.only and not any(o in fam.name for o in args.only.split("|")):
            continue
        if args.exact and fam.name not in args.exact.split("|"):
            continue
        t0 = time.time()
        rows = run_family(fam, args.boards, names)
        if args.json:
            with open(args.json, "a") as f:
                for r in rows:
                    f.write(json.dumps({**r, "boards": args.boards}) + "\n")
        for metric in fam.metrics:
            cells = []
            for name in names:
                r = next(x for x in rows if x["metric"] == metric and x["candidate"] == name)
                cells.append(f"{100 * r['mean']:.1f}±{100 * r['mean_se']:.1f} / {100 * r['worst']:.1f} / "
                             f"{r['ratio']:.2f}")
            print(f"| {fam.name} | {metric} | " + " | ".join(cells) + " |", flush=True)
        print(f"<!-- {fam.name}: {time.time() - t0:.1f} s -->", file=sys.stderr)


if __name__ == "__main__":
    main()
