"""kscore arena beside arena-rank 0.1.1 and FastChat's procedure, in one
run, on LMArena's scale: 3M battles among 200 models with skewed pair
counts (model k drawn in proportion to (k + 1)^-1.2: the top few in most
battles, the rarest in a few thousand), ties 15%, four style features.

Phases (medians of --repeat runs; the load average is printed beside):
aggregation from an in-memory Arrow table and from Parquet (names to
codes to unique rows), fit, sandwich, 1000 bootstrap rounds, the style
fit, 100 style rounds, and end to end with 100 bootstrap rounds; then
arena-rank (its own environment, .arena-venv; bootstrap with the spawn
start method) and FastChat's procedure (benches/fastchat_procedure.py),
with each one's distance from the converged maximum.

Usage: ``python benches/bench_arena.py [--battles 3000000] [--models 200] [--repeat 3] [--peers]
[--peer-rounds 100]`` (``--peer-rounds``: the bootstrap rounds of the end-to-end comparison, arena-rank's
spawned pool taking tens of seconds a round on a loaded machine)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.arena_reference import draw_pairs  # noqa: E402

ELO = 400.0 / math.log(10.0)


def make(n: int, L: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    theta = rng.normal(0, 1.0, L)
    pm = (np.arange(L) + 1.0) ** -1.2
    pm /= pm.sum()
    a, b = draw_pairs(rng, pm, n)
    x = rng.normal(0, 1, (n, 4))
    z = theta[a] - theta[b] + x @ np.array([0.3, 0.1, -0.05, 0.08])
    y = np.where(rng.random(n) < 0.15, 0.5, (rng.random(n) < 1 / (1 + np.exp(-z))).astype(float))
    return {"a": a, "b": b, "y": y, "x": x}


CPU: list[float] = []


def timed(f, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    """Median wall seconds (and, in CPU, the median CPU seconds of the
    process over all its threads: on the shared machine the wall time
    counts other engineers' load, the CPU time does not)."""
    times, cpus, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    CPU.append(statistics.median(cpus))
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--battles", type=int, default=3_000_000)
    ap.add_argument("--models", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peers", action="store_true", help="also run arena-rank and FastChat's procedure")
    ap.add_argument("--peer-rounds", type=int, default=100,
                    help="bootstrap rounds of the end-to-end comparison with the peers (default 100)")
    ap.add_argument("--core", action="store_true",
                    help="only the fit and the bootstrap (and the tie models where the build has them): to run "
                         "one build against another in one shell command (PYTHONPATH=OLD_PACKAGE_DIR)")
    ap.add_argument("--light", action="store_true",
                    help="leave out the 1000 bootstrap rounds and the style phases (a loaded machine: time for the "
                         "peers)")
    ap.add_argument("--aggregation", action="store_true",
                    help="only the two aggregation phases (to run one build against another in one shell command)")
    args = ap.parse_args()
    import pyarrow as pa
    import pyarrow.parquet as pq

    import kscore
    from kscore import _kscore
    from kscore.arena.read import Roles, read_battles

    L, n = args.models, args.battles
    d = make(n, L)
    names = np.array([f"model-{k:03d}" for k in range(L)], dtype=object)
    word = np.array(["model_b", "tie", "model_a"], dtype=object)
    table = pa.table({"model_a": pa.array(names[d["a"]], pa.string()), "model_b": pa.array(names[d["b"]], pa.string()),
                      "winner": pa.array(word[np.rint(2 * d["y"]).astype(int)], pa.string()),
                      **{f"f{q}": d["x"][:, q] for q in range(4)}})
    tmp = Path(tempfile.mkdtemp())
    path = tmp / "battles.parquet"
    pq.write_table(table.select(["model_a", "model_b", "winner"]), path)
    pq.write_table(table, tmp / "battles_style.parquet")
    rows: list[tuple[str, float, str]] = []

    try:  # (kscore.arena's own path: the board the reader counted, where it did)
        from kscore.arena.ratings import board_of as counted
    except ImportError:  # (a build before the one-pass reader)
        def counted(bt: object) -> object:
            return _kscore.battle_board(len(bt.models), bt.a, bt.b, np.rint(2 * bt.y).astype(np.uint8))  # type: ignore[attr-defined]

    def board_of(src: object) -> object:
        return counted(read_battles(src, Roles()))

    t, board = timed(lambda: board_of(table), args.repeat)
    rows.append(("aggregation from an in-memory Arrow table", t, "<= 0.3 s"))
    t, _ = timed(lambda: board_of(str(path)), args.repeat)
    rows.append(("aggregation from Parquet", t, "<= 1 s"))
    if args.aggregation:
        load = os.getloadavg()
        print(f"# {kscore.__file__}\n# {n:,} battles, {L} models; load average {load[0]:.1f} {load[1]:.1f} "
              f"{load[2]:.1f}; {os.cpu_count()} cores")
        print("| phase | median wall s | median CPU s (all threads) |\n|---|---:|---:|")
        for (name, secs, _), c in zip(rows, CPU):
            print(f"| {name} | {secs:.4f} | {c:.4f} |")
        return
    t, fitted = timed(lambda: board.fit(), args.repeat)  # type: ignore[attr-defined]
    theta = np.asarray(fitted[0])  # type: ignore[index]
    rows.append((f"fit (Newton, {fitted[1]} iterations)", t, "<= 20 ms"))  # type: ignore[index]
    t, _ = timed(lambda: board.sandwich(theta), args.repeat)  # type: ignore[attr-defined]
    rows.append(("sandwich", t, "<= 20 ms"))
    if not args.light:
        t, _ = timed(lambda: board.bootstrap(theta, 1000, 0), 1)  # type: ignore[attr-defined]
        rows.append(("1000 bootstrap rounds", t, "<= 15 s"))
    if args.core:
        if hasattr(board, "fit_ties"):
            for model in ("davidson", "rao_kupper"):
                t, got = timed(lambda m=model: board.fit_ties(m), args.repeat)
                rows.append((f"{model}: fit + sandwich ({got[2]} iterations)", t, ""))  # type: ignore[index]
            t, _ = timed(lambda: board.bootstrap_ties("davidson", 100, 0), 1)  # type: ignore[attr-defined]
            rows.append(("davidson: 100 bootstrap rounds", t, ""))
        load = os.getloadavg()
        print(f"# {kscore.__file__}\n# {n:,} battles, {L} models; load average {load[0]:.1f} {load[1]:.1f} "
              f"{load[2]:.1f}; {os.cpu_count()} cores")
        print("| phase | median wall s | median CPU s (all threads) |\n|---|---:|---:|")
        for (name, secs, _), c in zip(rows, CPU):
            print(f"| {name} | {secs:.4f} | {c:.4f} |")
        return
    if not args.light:
        bt = read_battles(table, Roles(style=["f0", "f1", "f2", "f3"]))
        assert bt.features is not None
        t, sb = timed(lambda: _kscore.style_board(L, bt.a, bt.b, bt.y, np.ones(n), bt.features), 1)
        rows.append(("style: hold the battles", t, ""))
        t, sf = timed(lambda: sb.fit(float(n), 0.0, (theta, np.zeros(4))), args.repeat)  # type: ignore[attr-defined]
        rows.append((f"style fit (Newton, {sf[2]} iterations)", t, "<= 0.5 s"))  # type: ignore[index]
        t, _ = timed(lambda: sb.bootstrap(sf[0], sf[1], float(n), 100, 0), 1)  # type: ignore[attr-defined, index]
        rows.append(("100 style bootstrap rounds", t, "<= 30 s"))
    t, res = timed(lambda: kscore.arena(str(path), intervals="bootstrap", rounds=100, fragility=False), 1)
    rows.append(("kscore.arena end to end (Parquet, 100 rounds)", t, ""))
    t_e2e_k = t
    load = os.getloadavg()
    print(f"# {n:,} battles, {L} models; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}; "
          f"{os.cpu_count()} cores")
    print("| phase | median wall s | median CPU s (all threads) | target (wall, 2 idle cores) |\n|---|---:|---:|---|")
    for (name, secs, target), c in zip(rows, CPU):
        print(f"| {name} | {secs:.4f} | {c:.4f} | {target} |")
    if not args.peers:
        return
    ref = dict(zip(res.board.models, res.board.rating.tolist()))  # type: ignore[attr-defined]
    R = args.peer_rounds
    if R != 100:
        t_e2e_k, _ = timed(lambda: kscore.arena(str(path), intervals="bootstrap", rounds=R, fragility=False), 1)
        print(f"kscore.arena end to end (Parquet, {R} rounds): {t_e2e_k:.4f} s wall, {CPU[-1]:.4f} s CPU")
    peer: list[tuple[str, float]] = []
    py = ROOT / ".arena-venv" / "bin" / "python"
    if py.exists():
        t0 = time.perf_counter()
        runner = str(ROOT / "benches" / "arena_rank_runner.py")
        run = subprocess.run([str(py), runner, str(path), "--bootstrap", str(R)], capture_output=True, text=True)
        t_ar = time.perf_counter() - t0
        if run.returncode == 0:
            out = json.loads(run.stdout)
            got = dict(zip(out["competitors"], out["ratings"]))
            dist = max(abs(got[m] - ref[m]) for m in ref)
            peer += [("arena-rank: PairDataset.from_pandas", out["dataset_s"]),
                     ("arena-rank: fit + sandwich", out["fit_sandwich_s"]),
                     (f"arena-rank: {R} bootstrap rounds (spawn)", out.get("bootstrap_s", 0.0)),
                     ("arena-rank: end to end incl. reading and start-up (subprocess)", t_ar)]
            print(f"\narena-rank's ratings: at most {dist:.4f} Elo from the maximum")
            print(f"end to end, {R} rounds: kscore {t_e2e_k:.2f} s, arena-rank {t_ar:.2f} s: "
                  f"{t_ar / t_e2e_k:.1f}x")
        else:
            print("arena-rank failed:", run.stderr[-1000:])
    sys.path.insert(0, str(ROOT / "benches"))
    import fastchat_procedure as fc

    codes = {m: k for k, m in enumerate(sorted(ref))}
    a = np.array([codes[m] for m in names[d["a"]]])
    b = np.array([codes[m] for m in names[d["b"]]])
    t0 = time.perf_counter()
    got_fc = fc.run(a, b, d["y"], L, rounds=R)
    t_fc = time.perf_counter() - t0
    r_fc = np.asarray(got_fc["rating"])
    r_fc = r_fc - r_fc.mean() + 1000.0
    ordered = sorted(ref)
    dist_fc = max(abs(r_fc[k] - ref[m]) for k, m in enumerate(ordered))
    peer += [("FastChat procedure: dedup", float(got_fc["dedup_s"])),
             ("FastChat procedure: fit", float(got_fc["fit_s"])),
             (f"FastChat procedure: {R} bootstrap rounds (fork pool)", float(got_fc["bootstrap_s"])),
             ("FastChat procedure: end to end (codes in memory)", t_fc)]
    print(f"FastChat procedure's ratings: at most {dist_fc:.4f} Elo from the maximum")
    print("| peer phase | s |\n|---|---:|")
    for name, secs in peer:
        print(f"| {name} | {secs:.3f} |")
    load = os.getloadavg()
    print(f"# load average after: {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")


if __name__ == "__main__":
    main()
