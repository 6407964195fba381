"""The leaderboard along the models axis (issue 26): ``kscore leaderboard``
on Parquet boards of 1 000, 10 000 and 100 000 models with names like
``sweep-3/qwen2.5-7b-grpo-lr2e-6-seed4-step000123`` (RL checkpoints of
hyperparameter sweeps: long names that differ in a few characters), as the
table, CSV and HTML, each in a fresh process under ``/usr/bin/time -v``
(wall time and peak resident memory), beside DuckDB's bare
``GROUP BY model, question`` (count and sum) on the same file in the same
run.

Boards (generated once, fixed seed, into ``--dir``): every model answers
every question with ``--samples`` samples; correctness is Bernoulli with a
logistic ability - difficulty, the abilities of a sweep close together
(many near-ties: the case that makes rank ranges wide).

Run (a few minutes; the 100k board needs some 3 GB free)::

    python benches/bench_models.py --boards 1000x50,10000x100,100000x20 --dir /tmp/kscore-models

The rank ranges' adjustments run as CSV with ``--extra``: Holm's beside the
simultaneous sets in the same run (their bootstrap is 250 x L^2 / 2
pair-draws: leave the 100k board out)::

    python benches/bench_models.py --boards 1000x50,3000x50,10000x100 --formats csv \
        --extra '--adjust holm;--adjust simultaneous'

``--python`` picks the interpreter. ``--threads 1,2`` runs kscore
(``--threads N``) and DuckDB (``SET threads = N``) at each count in the same
round, with kscore's ratio to DuckDB; ``--before DIR`` runs an older tree's
package too (``PYTHONPATH=DIR``, its ``python/`` folder, an absolute path) in
the same rounds; ``--profile`` adds the profile's CPU seconds of the rank
ranges (the ``pairs`` phase) and the wall and CPU seconds of the pairs and
of the naming of the cells (``name``); ``--rounds`` repeats everything and prints
medians. No timing is asserted; the table is printed (docs/leaderboard.md,
*Speed*; docs/threads.md, *Many models*)::

    python benches/bench_models.py --boards 100000x20,10000x100,1000x50 --formats csv \
        --threads 1,2 --profile --rounds 3 --before /abs/path/old-tree/python
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def model_names(n: int, rng: np.random.Generator) -> list[str]:
    """``sweep-S/<base>-grpo-lr<lr>-seed<s>-step<step>``: a few sweeps of a
    few bases, learning rates and seeds, many checkpoints each."""
    bases = ["qwen2.5-7b", "qwen2.5-14b", "llama-3.1-8b", "mistral-7b-v0.3"]
    lrs = ["1e-6", "2e-6", "5e-6", "1e-5"]
    out: list[str] = []
    i = 0
    while len(out) < n:
        sweep, base, lr, seed = i % 7, bases[(i // 7) % 4], lrs[(i // 28) % 4], (i // 112) % 8
        step = 100 * (i // 896) + int(rng.integers(0, 100))
        name = f"sweep-{sweep}/{base}-grpo-lr{lr}-seed{seed}-step{step:06d}"
        i += 1
        out.append(name)
    seen: set[str] = set()
    unique = []
    for j, name in enumerate(out):  # (a repeated draw of a step gets its index appended)
        unique.append(name if name not in seen else f"{name}-r{j}")
        seen.add(unique[-1])
    return unique


def write_board(path: Path, models: int, questions: int, samples: int, seed: int = 0) -> None:
    """One Parquet file: model, question, sample, correct (dictionary-encoded names)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    names = model_names(models, rng)
    ability = rng.normal(0.0, 0.4, models)
    difficulty = rng.normal(0.0, 1.5, questions)
    writer = None
    block = max(1, 2_000_000 // (questions * samples))
    for a in range(0, models, block):
        b = min(a + block, models)
        p = 1.0 / (1.0 + np.exp(-(ability[a:b, None] - difficulty[None, :])))
        correct = rng.random((b - a, questions, samples)) < p[:, :, None]
        m = np.repeat(np.arange(a, b, dtype=np.int32), questions * samples)
        q = np.tile(np.repeat(np.arange(questions, dtype=np.int32), samples), b - a)
        s = np.tile(np.arange(samples, dtype=np.int32), (b - a) * questions)
        table = pa.table({
            "model": pa.DictionaryArray.from_arrays(pa.array(m), pa.array(names)),
            "question": pa.array([f"q{j:05d}" for j in range(questions)]).take(pa.array(q)),
            "sample": s,
            "correct": correct.ravel().astype(np.int8),
        })
        if writer is None:
            writer = pq.ParquetWriter(str(path), table.schema)
        writer.write_table(table)
    assert writer is not None
    writer.close()


DUCKDB = """
import duckdb, sys
con = duckdb.connect()
if int(sys.argv[2]) > 0:
    con.execute(f"SET threads = {int(sys.argv[2])}")
t = con.execute("SELECT model, question, count(*) AS n, sum(correct) AS c FROM read_parquet(?) "
                "GROUP BY model, question", [sys.argv[1]]).fetchnumpy()
print(len(t["n"]))
"""


def timed(cmd: list[str], env: dict[str, str], limit_gb: float) -> tuple[float, float, str, dict[str, float]]:
    """Wall seconds and peak RSS (GB) of ``cmd`` in a fresh process under
    ``/usr/bin/time -v`` and an address-space limit of ``limit_gb``, the
    last line of its stderr on failure, and CPU seconds: ``cpu`` (user +
    system of the whole process, start-up included) and, from a
    ``--profile`` table on its stderr, ``count`` (its reading rows: setup,
    read + count, merge, name, checks) and ``pairs`` (missing: none)."""
    limit = f"ulimit -v {int(limit_gb * 1024 * 1024)}; "
    shell = limit + "exec /usr/bin/time -v " + " ".join(f"'{c}'" for c in cmd)
    t0 = time.perf_counter()
    run = subprocess.run(["bash", "-c", shell], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    rss = int(m.group(1)) / 1024 / 1024 if m else float("nan")
    lines = [x for x in run.stderr.splitlines() if x.strip() and not x.startswith("\t")]
    status = "ok" if run.returncode == 0 else f"exit {run.returncode}: {(lines or ['?'])[-1][:80]}"
    cpu: dict[str, float] = {}
    times = [re.search(rf"{k} time \(seconds\): ([0-9.]+)", run.stderr) for k in ("User", "System")]
    if all(times):
        cpu["cpu"] = sum(float(t.group(1)) for t in times if t)
    found = {r.group(1).strip(): (float(r.group(2)), float(r.group(3)))
             for r in re.finditer(r"^([a-z][a-z +()']*?) +([0-9.]+) +([0-9.]+) +\S+ +\S+$", run.stderr, re.M)}
    rows = {k: v[1] for k, v in found.items()}
    if "pairs" in rows:
        cpu["pairs"] = rows["pairs"]
        cpu["count"] = sum(rows.get(k, 0.0) for k in COUNT_ROWS)
        for k in ("pairs", "name"):  # (the phases of issue 39 item 4's many models: wall and CPU)
            if k in found:
                cpu[f"{k} wall"], cpu[f"{k} cpu"] = found[k]
    return wall, rss, status, cpu


#: The profile's rows of the reading and counting (the count phase compared with DuckDB's query).
COUNT_ROWS = ("read (setup)", "read + count", "merge", "name", "read (checks)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", default="1000x50,10000x100,100000x20", help="MODELSxQUESTIONS,...")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "kscore-models"))
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--formats", default="table,csv,html")
    ap.add_argument("--limit-gb", type=float, default=6.0, help="address-space limit of each run (ulimit -v)")
    ap.add_argument("--label", default="kscore")
    ap.add_argument("--extra", default="", help="more CSV runs with these flags, ';'-separated, e.g. "
                                                "'--adjust holm;--adjust simultaneous'")
    ap.add_argument("--threads", default="", help="thread counts, e.g. 1,2 (kscore --threads, DuckDB SET threads)")
    ap.add_argument("--before", default="", help="an older tree's python/ folder (absolute), run in the same rounds")
    ap.add_argument("--profile", action="store_true", help="add the profile's count and pairs CPU seconds")
    ap.add_argument("--rounds", type=int, default=1, help="rounds (medians printed)")
    args = ap.parse_args()
    root = Path(args.dir)
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, COLUMNS="120")
    trees = [(args.label, env)]
    if args.before:
        trees.insert(0, ("before", dict(env, PYTHONPATH=args.before)))
    counts: list[int | None] = [int(x) for x in args.threads.split(",")] if args.threads else [None]
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    print("| board | what | threads | seconds | ratio to DuckDB | CPU s | CPU ratio | count CPU s | pairs CPU s | "
          "pairs wall / CPU s | name wall / CPU s | peak RSS GB | output | status |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|", flush=True)
    for spec in args.boards.split(","):
        models, questions = (int(x) for x in spec.split("x"))
        path = root / f"board_{models}x{questions}x{args.samples}.parquet"
        if not path.exists():
            write_board(path, models, questions, args.samples)
        label = f"{models:,} x {questions} x {args.samples}"
        runs: list[tuple[str, list[str]]] = [(fmt, []) for fmt in args.formats.split(",")]
        runs += [("csv", flags.split()) for flags in args.extra.split(";") if flags.strip()]
        # (one row per job; each round runs every job once, interleaved, so load moves them alike)
        jobs: dict[tuple[str, str, str], list[tuple[float, float, str, dict[str, float], str]]] = {}
        for _ in range(args.rounds):
            for n in counts:
                th = "" if n is None else str(n)
                wall, rss, status, cpu = timed([args.python, "-c", DUCKDB, str(path), str(n or 0)], env,
                                               args.limit_gb)
                jobs.setdefault(("DuckDB GROUP BY", th, ""), []).append((wall, rss, status, cpu, ""))
                for name, tree_env in trees:
                    for fmt, flags in runs:
                        out = root / f"out_{models}x{questions}.{ {'table': 'txt'}.get(fmt, fmt) }"
                        cmd = [args.python, "-m", "kscore.cli", "leaderboard", str(path), "--quiet"]
                        cmd += ["--output", str(out)] if fmt != "table" else []
                        cmd += ["--format", fmt, *flags]
                        cmd += ["--threads", th] if th else []
                        cmd += ["--profile"] if args.profile else []
                        if fmt == "table":  # the terminal table, printed to a file by the shell's redirection
                            cmd = ["bash", "-c", " ".join(cmd) + f" > {out}"]
                        wall, rss, status, cpu = timed(cmd, tree_env, args.limit_gb)
                        size = f"{out.stat().st_size / 1e6:.1f} MB" if out.exists() and status == "ok" else ""
                        what = f"{name} {fmt}" + (" " + " ".join(flags) if flags else "")
                        jobs.setdefault((what, th, "duck"), []).append((wall, rss, status, cpu, size))
                        if out.exists():
                            out.unlink()

        def med(rows: list[tuple[float, float, str, dict[str, float], str]], key: str) -> float:
            got = [r[3][key] for r in rows if key in r[3]]
            return float(np.median(got)) if got else float("nan")

        duck = {th: (float(np.median([r[0] for r in rows])), med(rows, "cpu"))
                for (what, th, _), rows in jobs.items() if what.startswith("DuckDB")}
        for (what, th, kind), rows in jobs.items():
            wall = float(np.median([r[0] for r in rows]))
            rss = float(np.median([r[1] for r in rows]))
            cpu, count, pairs = (med(rows, k) for k in ("cpu", "count", "pairs"))
            status = next((r[2] for r in rows if r[2] != "ok"), "ok")
            ratio = f"{wall / duck[th][0]:.2f}x" if kind else ""
            cpu_ratio = f"{cpu / duck[th][1]:.2f}x" if kind else ""
            cells = ["" if np.isnan(x) else f"{x:.3f}" for x in (cpu, count, pairs)]
            phases = ["" if np.isnan(med(rows, f"{k} wall")) else
                      f"{med(rows, f'{k} wall'):.3f} / {med(rows, f'{k} cpu'):.3f}" for k in ("pairs", "name")]
            print(f"| {label} | {what} | {th or 'default'} | {wall:.2f} | {ratio} | {cells[0]} | {cpu_ratio} | "
                  f"{cells[1]} | {cells[2]} | {phases[0]} | {phases[1]} | {rss:.2f} | {rows[-1][4]} | {status} |",
                  flush=True)
        print(f"(load average after this board: {os.getloadavg()[0]:.2f})", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.2f}", flush=True)


if __name__ == "__main__":
    main()
