"""Long-format results for the rows benchmarks, written fast: one file per
model, each written by a worker process (``multiprocessing``, every core),
with pyarrow and numpy (docs/benchmarks.md, *Rows*).

Layouts (``--layout``):

- ``string``: Parquet, columns model, question_id (``q00042``), sample
  (int16), correct (int8), row groups of 122 880 rows (DuckDB's default);
- ``int``: the same with integer question ids (int32);
- ``csv`` / ``csv.gz``: the string layout as CSV (plain, or gzip);
- ``jsonl``: the string layout as JSON Lines.

Outcomes follow an item-response model: model ``m``'s ability and each
question's difficulty drawn from fixed seeds, the outcome of each sample
Bernoulli of their logistic. The same arguments write the same bytes.

    python benches/rows_data.py DIR --models 100 --questions 100000 --samples 10 --layout string
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import time
from pathlib import Path

import numpy as np

SUFFIX = {"string": ".parquet", "int": ".parquet", "csv": ".csv", "csv.gz": ".csv.gz", "jsonl": ".jsonl"}
#: Row groups of DuckDB's Parquet writer (rows).
ROW_GROUP = 122_880


def _model_table(m: int, questions: int, samples: int, layout: str, seed: int) -> object:
    import pyarrow as pa

    difficulty = np.random.default_rng(seed).normal(0.0, 1.5, questions)
    rng = np.random.default_rng([seed, m])
    theta = rng.normal(0.0, 1.0)
    p = 1.0 / (1.0 + np.exp(-(theta - difficulty)))
    correct = (rng.random((questions, samples), dtype=np.float32) < p[:, None]).astype(np.int8).ravel()
    q = np.repeat(np.arange(questions, dtype=np.int32), samples)
    sample = np.tile(np.arange(samples, dtype=np.int16), questions)
    width = max(5, len(str(questions - 1)))
    if layout == "int":
        question: object = pa.array(q)
    else:
        names = pa.array([f"q{i:0{width}d}" for i in range(questions)])
        question = pa.DictionaryArray.from_arrays(pa.array(q), names).cast(pa.string())
    model = pa.DictionaryArray.from_arrays(pa.array(np.zeros(len(q), np.int32)),
                                           pa.array([f"model-{m:03d}"])).cast(pa.string())
    return pa.table({"model": model, "question_id": question, "sample": pa.array(sample),
                     "correct": pa.array(correct)})


def _write_one(job: tuple[Path, int, int, int, str, int]) -> Path:
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    out, m, questions, samples, layout, seed = job
    path = out / f"model-{m:03d}{SUFFIX[layout]}"
    tmp = path.with_name(path.name + ".tmp")
    table = _model_table(m, questions, samples, layout, seed)
    if layout in ("string", "int"):
        pq.write_table(table, tmp, row_group_size=ROW_GROUP, store_schema=False)  # as DuckDB writes
    elif layout in ("csv", "csv.gz"):
        import pyarrow as pa

        options = pacsv.WriteOptions(quoting_style="needed")
        if layout == "csv.gz":
            with pa.CompressedOutputStream(str(tmp), "gzip") as sink:
                pacsv.write_csv(table, sink, options)
        else:
            pacsv.write_csv(table, tmp, options)
    else:
        models = table.column("model").to_pylist()
        qs = table.column("question_id").to_pylist()
        ss = table.column("sample").to_pylist()
        cs = table.column("correct").to_pylist()
        with open(tmp, "w") as fh:
            for a, b, c, d in zip(models, qs, ss, cs):
                fh.write(f'{{"model": "{a}", "question_id": "{b}", "sample": {c}, "correct": {d}}}\n')
    os.replace(tmp, path)
    return path


def write(out: Path, models: int, questions: int, samples: int, layout: str = "string", seed: int = 3,
          workers: int | None = None) -> list[Path]:
    """The dataset's files under ``out`` (written once: existing files are kept)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"model-{m:03d}{SUFFIX[layout]}" for m in range(models)]
    jobs = [(out, m, questions, samples, layout, seed) for m, p in enumerate(paths) if not p.exists()]
    if jobs:
        with multiprocessing.get_context("spawn").Pool(workers or os.cpu_count()) as pool:
            for _ in pool.imap_unordered(_write_one, jobs):
                pass
    return paths


def dataset_args(doc: str) -> argparse.ArgumentParser:
    """A parser with the rows benchmarks' dataset arguments: DIR and its shape."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--models", type=int, default=100)
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=10)
    return parser


def main() -> None:
    parser = dataset_args(__doc__)
    parser.add_argument("--layout", choices=sorted(SUFFIX), default="string")
    parser.add_argument("--workers", type=int)
    args = parser.parse_args()
    t0 = time.perf_counter()
    files = write(args.dir, args.models, args.questions, args.samples, args.layout, workers=args.workers)
    size = sum(f.stat().st_size for f in files)
    print(f"{len(files)} files, {args.models * args.questions * args.samples:,} rows, {size / 1e6:.0f} MB, "
          f"{time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
