"""Joint coverage and width of the rank ranges (issue 36, item 4): boards of
8 or 30 models in groups of near-ties, questions drawn afresh from a
population for every board (independent, or in clusters of 10 ranked with
``cluster``), the true rank of a model its place by its expected pass@1 over
the population. For each procedure: the share of boards where every model's
range holds its true rank (joint coverage, with its Monte Carlo error), the
mean share of models whose range holds their rank (marginal), the mean width
``hi - lo`` and the mean number of models that could be #1.

    PYTHONPATH=python python scripts/rank_coverage.py [--boards 1000] [--only TEXT] [--methods none,holm,...]
        [--save DIR]

The boards of a family are the same whatever ``--methods`` (the prototypes'
multiplier draws come from a generator of their own), so procedures run
apart can be compared board by board: ``--save DIR`` writes each family's
per-board coverage and widths (``DIR/<family>.<methods>.npz``), and
``--paired DIR`` prints each procedure's mean width against Holm's from
those files, the mean of the per-board differences with its Monte Carlo
error.

Procedures: kscore's ``--adjust none`` (each pair at 5%), ``holm`` and
``simultaneous`` (kscore.leaderboard.stats.ranges), and prototypes computed
here from the same paired statistics: ``maxt`` (the step-down max-t over all
pairs, run to the end with 1,000 multiplier draws: Mogstad, Romano, Shaikh and
Wilhelm; what ``simultaneous`` approximates with 250 draws, early stopping and
Holm's rejections added), ``csranks`` (csranks' ``csranks(simul=TRUE)``:
the same over ordered pairs, where a decided pair keeps its reverse
direction in the family) and ``marginal`` (csranks' ``simul=FALSE``: each
model's own max-t over its pairs, a set that holds that model's rank at 95%,
not all at once).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "python"))

from kscore.leaderboard.stats.ranges import rank_sets  # noqa: E402


@dataclass(frozen=True)
class RankFamily:
    name: str
    ability: tuple[float, ...]
    questions: int
    samples: int = 4
    cluster: int = 0  # questions per cluster (0: independent)


def groups(n_groups: int, size: int, gap: float, step: float) -> tuple[float, ...]:
    """Abilities in ``n_groups`` groups of ``size`` near-ties (``step`` apart
    within a group, ``gap`` between groups)."""
    return tuple(float(1.5 - g * gap - k * step) for g in range(n_groups) for k in range(size))


FAMILIES = [
    RankFamily("8 models, 3 groups of near-ties, 300 q", (1.0, 0.97, 0.94, 0.5, 0.48, 0.0, -0.02, -0.6), 300),
    RankFamily("8 models, the same, clusters of 10", (1.0, 0.97, 0.94, 0.5, 0.48, 0.0, -0.02, -0.6), 300,
               cluster=10),
    RankFamily("30 models, 6 groups of 5 near-ties, 300 q", groups(6, 5, 0.35, 0.03), 300),
    RankFamily("30 models, the same, clusters of 10", groups(6, 5, 0.35, 0.03), 300, cluster=10),
    RankFamily("30 models, evenly spread, 200 q", tuple(float(x) for x in np.linspace(1.5, -1.5, 30)), 200),
    RankFamily("8 models, all within 0.1, 100 q", tuple(float(x) for x in np.linspace(0.5, 0.4, 8)), 100),
]


def difficulty(rng: np.random.Generator, n: int, cluster: int) -> np.ndarray:
    if not cluster:
        return rng.normal(0.0, 1.5, n)
    return np.repeat(rng.normal(0.0, 1.3, n // cluster), cluster) + rng.normal(0.0, 0.75, n)


def true_ranks(fam: RankFamily) -> np.ndarray:
    d = difficulty(np.random.default_rng(0), 400_000, fam.cluster)
    a = np.asarray(fam.ability)
    means = np.array([(1 / (1 + np.exp(-(x - d)))).mean() for x in a])
    order = np.argsort(-means)
    r = np.empty(len(a), np.int64)
    r[order] = np.arange(1, len(a) + 1)
    return r


def pair_stats(X: np.ndarray, cluster: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Paired differences, their CR1 standard errors (L x L), the centred
    per-unit sums E (L x units) and the multipliers' scale (as
    kscore.leaderboard.stats.simultaneous._scale)."""
    L, Q = X.shape
    E = X - X.mean(axis=1, keepdims=True)
    if cluster is not None:
        E = np.stack([E[:, cluster == g].sum(axis=1) for g in np.unique(cluster)], axis=1)
    G = E.shape[1]
    D = E[:, None, :] - E[None, :, :]
    se = np.sqrt(G / (G - 1) * (D * D).sum(axis=2)) / Q
    m = X.mean(axis=1)
    diff = m[:, None] - m[None, :]
    return diff, se, E, float(np.sqrt(G / (G - 1)) / Q)


def maxt(diff: np.ndarray, se: np.ndarray, E: np.ndarray, scale: float, alpha: float, rng: np.random.Generator,
         draws: int = 1000, ordered: bool = False) -> np.ndarray:
    """``better[i, j]``: i declared better than j by the step-down max-t
    (``ordered``: csranks' family of ordered pairs)."""
    L = len(diff)
    Z = (E @ rng.standard_normal((E.shape[1], draws))) * scale  # L x draws
    with np.errstate(invalid="ignore", divide="ignore"):
        T = np.where(se > 0, diff / se, 0.0)
    off = ~np.eye(L, dtype=bool)
    active = off.copy()  # ordered pairs (i, j): the claim "i better than j" not yet made
    better = np.zeros((L, L), bool)
    iu = np.argwhere(off)
    inv = np.where(se > 0, 1.0 / np.where(se > 0, se, 1.0), 0.0)
    while True:
        act = active[iu[:, 0], iu[:, 1]]
        if ordered:
            pairs = iu[act]
        else:  # both directions of each undecided pair
            und = act & active[iu[:, 1], iu[:, 0]]
            pairs = iu[und]
        if len(pairs) == 0:
            break
        zs = (Z[pairs[:, 0]] - Z[pairs[:, 1]]) * inv[pairs[:, 0], pairs[:, 1]][:, None]
        c = float(np.quantile(zs.max(axis=0), 1 - alpha))
        new = active & (T > c) & off
        if not new.any():
            break
        better |= new
        active &= ~new
        if not ordered:
            active &= ~new.T
    return better


def marginal_sets(diff: np.ndarray, se: np.ndarray, E: np.ndarray, scale: float, alpha: float,
                  rng: np.random.Generator, draws: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """csranks(simul=FALSE): model j's set from the step-down max-t over the
    ordered pairs (j, k) and (k, j) alone."""
    L = len(diff)
    lo, hi = np.zeros(L, np.int64), np.zeros(L, np.int64)
    Z = (E @ rng.standard_normal((E.shape[1], draws))) * scale
    with np.errstate(invalid="ignore", divide="ignore"):
        T = np.where(se > 0, diff / se, 0.0)
        inv = np.where(se > 0, 1.0 / np.where(se > 0, se, 1.0), 0.0)
    for j in range(L):
        others = np.array([k for k in range(L) if k != j])
        # ordered claims: "k better than j" (pairs (k, j)) and "j better than k" ((j, k))
        claims = [(k, j) for k in others] + [(j, k) for k in others]
        active = np.ones(len(claims), bool)
        made = np.zeros(len(claims), bool)
        ci_ = np.array(claims)
        while active.any():
            pr = ci_[active]
            zs = (Z[pr[:, 0]] - Z[pr[:, 1]]) * inv[pr[:, 0], pr[:, 1]][:, None]
            c = float(np.quantile(zs.max(axis=0), 1 - alpha))
            new = active & (T[ci_[:, 0], ci_[:, 1]] > c)
            if not new.any():
                break
            made |= new
            active &= ~new
        n_better = int(made[: L - 1].sum())
        n_worse = int(made[L - 1:].sum())
        lo[j], hi[j] = 1 + n_better, L - n_worse
    return lo, hi


NAMES = ["none", "holm", "simultaneous", "maxt", "csranks", "marginal"]


def run(fam: RankFamily, boards: int, seed: int = 1, names: list[str] = NAMES, save: str = "", first: int = 0) -> dict[
        str, tuple[float, float, float, float, float]]:
    true = true_ranks(fam)
    rng = np.random.default_rng(seed)
    rng_draws = np.random.default_rng([seed, 1])  # (the prototypes': the boards do not depend on them)
    L = len(fam.ability)
    models = [str(i) for i in range(L)]
    cluster = np.repeat(np.arange(fam.questions // fam.cluster), fam.cluster) if fam.cluster else None
    joint = {a: [] for a in names}
    marg = {a: [] for a in names}
    width = {a: [] for a in names}
    best = {a: [] for a in names}
    a = np.asarray(fam.ability)
    units = fam.questions // fam.cluster if fam.cluster else fam.questions
    for b in range(first + boards):
        d = difficulty(rng, fam.questions, fam.cluster)
        p = 1 / (1 + np.exp(-(a[:, None] - d[None, :])))
        X = rng.binomial(fam.samples, p) / fam.samples
        if b < first:  # (a later share of the boards: the draws of the ones before, discarded)
            for _ in [x for x in ("maxt", "csranks", "marginal") if x in names]:
                rng_draws.standard_normal((units, 1000))
            continue
        order = np.argsort(-X.mean(axis=1), kind="stable")
        Xo = X[order]
        t = true[order]
        got: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for adj in [x for x in ("none", "holm", "simultaneous") if x in names]:
            s = rank_sets(Xo.copy(), np.ones_like(Xo, bool), cluster, [models[i] for i in order], 0.95, adj)
            got[adj] = (s.lo, s.hi)
        if {"maxt", "csranks", "marginal"} & set(names):  # (the prototypes, in numpy: slow on 30 models)
            diff, se, E, scale = pair_stats(Xo, cluster)
            for name, ordered in [x for x in (("maxt", False), ("csranks", True)) if x[0] in names]:
                b = maxt(diff, se, E, scale, 0.05, rng_draws, ordered=ordered)
                got[name] = (1 + b.sum(axis=0), L - b.sum(axis=1))
            if "marginal" in names:
                got["marginal"] = marginal_sets(diff, se, E, scale, 0.05, rng_draws)
        for name, (lo, hi) in got.items():
            ok = (lo <= t) & (t <= hi)
            joint[name].append(bool(ok.all()))
            marg[name].append(float(ok.mean()))
            width[name].append(float(np.mean(hi - lo)))
            best[name].append(int(np.sum(lo == 1)))
    if save:
        Path(save).mkdir(parents=True, exist_ok=True)
        kinds = (("joint", joint), ("width", width), ("marginal", marg), ("best", best))
        arrays = {f"{k}_{name}": np.asarray(v[name]) for k, v in kinds for name in names}
        part = f".from{first:05d}" if first else ""
        np.savez(Path(save) / f"{slug(fam.name)}.{'-'.join(names)}{part}.npz", **arrays)
    out = {}
    for name in names:
        j = np.asarray(joint[name], float)
        out[name] = (float(j.mean()), float(np.sqrt(j.mean() * (1 - j.mean()) / boards)), float(np.mean(marg[name])),
                     float(np.mean(width[name])), float(np.mean(best[name])))
    return out


def slug(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name).strip("_")


def paired(save: str) -> None:
    """Each procedure's mean width against Holm's, board by board, from the
    files of ``--save`` (procedures run apart on the same boards)."""
    for fam in FAMILIES:
        parts: dict[tuple[str, str], list[tuple[int, np.ndarray]]] = {}
        for f in Path(save).glob(f"{slug(fam.name)}.*.npz"):
            first = int(f.name.split(".from")[1].split(".")[0]) if ".from" in f.name else 0  # (a later share)
            with np.load(f) as z:
                for key in z.files:
                    kind, name = key.split("_", 1)
                    parts.setdefault((kind, name), []).append((first, z[key]))
        per: dict[str, dict[str, np.ndarray]] = {"joint": {}, "width": {}, "marginal": {}, "best": {}}
        for (kind, name), got in parts.items():
            per[kind][name] = np.concatenate([x for _, x in sorted(got, key=lambda t: t[0])])
        if "holm" not in per["width"]:
            continue
        h = per["width"]["holm"]
        print(f"{fam.name} ({len(h)} boards): Holm's mean width {h.mean():.4f}, joint "
              f"{100 * per['joint']['holm'].mean():.1f}%")
        for name, w in per["width"].items():
            if name == "holm" or len(w) != len(h):
                continue
            d = w - h
            j = per["joint"][name].astype(float)
            print(f"  {name}: joint {100 * j.mean():.1f}±{100 * np.sqrt(j.mean() * (1 - j.mean()) / len(j)):.1f}%, "
                  f"width {w.mean():.4f}, minus Holm's {d.mean():+.4f}±{d.std(ddof=1) / np.sqrt(len(d)):.4f} "
                  f"({100 * d.mean() / h.mean():+.2f}%), narrower on {np.mean(d < 0):.1%} of boards, "
                  f"wider on {np.mean(d > 0):.1%}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=1000)
    ap.add_argument("--only", default="")
    ap.add_argument("--methods", default=",".join(NAMES), help="procedures to run (default: all)")
    ap.add_argument("--save", default="", help="write each family's per-board coverage and widths here")
    ap.add_argument("--paired", default="", help="compare the widths saved here with Holm's, board by board")
    ap.add_argument("--first", type=int, default=0, help="start at this board (a later share of a family's boards)")
    args = ap.parse_args()
    if args.paired:
        paired(args.paired)
        return
    print(f"Rank ranges at 95%, {args.boards} boards per family: joint coverage (MC error) / marginal coverage / "
          "mean width (hi - lo) / models that could be #1.\n")
    names = [x for x in NAMES if x in args.methods.split(",")]
    print("| family | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for fam in FAMILIES:
        if args.only and args.only not in fam.name:
            continue
        t0 = time.time()
        res = run(fam, args.boards, names=names, save=args.save, first=args.first)
        cells = [f"{100 * r[0]:.1f}±{100 * r[1]:.1f} / {100 * r[2]:.1f} / {r[3]:.2f} / {r[4]:.1f}"
                 for r in (res[n] for n in names)]
        print(f"| {fam.name} | " + " | ".join(cells) + " |", flush=True)
        print(f"<!-- {fam.name}: {time.time() - t0:.0f} s -->", file=sys.stderr)


if __name__ == "__main__":
    main()
