"""Small inputs run on the calling thread, large ones on the pool (the core's
parallel grain, docs/threads.md). Both sides must give the same bits: every
public function is evaluated with the grain forced to 1 ns (every parallel
iterator splits as far as it can), to the default, and to "never split";
and from many Python threads at once, as serially. `digest()` (run as
`python -m tests.test_threads`) hashes every result, for comparisons across
processes: thread counts (tests/test_runtime.py) and builds (.ci/run checks
a `force-scalar` build against the default one). The leaderboard's direct
counts (read/direct.py: Parquet with string and integer ids, CSV, JSON Lines,
an attribute column) are in the table too: their reading threads, merge and
naming must not change a bit either."""

from __future__ import annotations

import atexit
import hashlib
import json
import random
import shutil
import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kscore.counts as kc
from kscore import _kscore
from kscore import eval as ke

NEVER = 1 << 60


@contextmanager
def grain(ns: int) -> Iterator[None]:
    previous = _kscore._set_parallel_grain(ns)
    try:
        yield
    finally:
        _kscore._set_parallel_grain(previous)


@pytest.mark.thread_unsafe(reason="sets the process-wide grain")
def test_grain_is_settable_and_restored() -> None:
    default = _kscore._set_parallel_grain(0)
    assert default > 1
    with grain(7):
        assert _kscore._set_parallel_grain(7) == 7
    assert _kscore._set_parallel_grain(0) == default


rng = np.random.default_rng(11)
# Many distinct counts and rows, so that forced splits really split.
R = (rng.random((6000, 40)) < rng.beta(0.6, 0.6, size=(6000, 1))).astype(np.int64)
C = rng.integers(0, 4, size=(6000, 40)).astype(np.int32)
C0 = rng.integers(0, 4, size=(6000, 3)).astype(np.int32)
W4 = np.array([0.0, 0.25, 1.0, 0.5])
SPECTRUM = np.linspace(0.0, 1.0, 24) / 24.0

def _rows_folder() -> Path:
    """A small board as files of every layout the direct count reads: a
    Parquet file per model (string ids), one with integer question ids,
    CSV files and one JSON Lines file; each with a topic per question."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(tempfile.mkdtemp(prefix="kscore-threads-"))
    atexit.register(shutil.rmtree, folder, True)
    r = np.random.default_rng(3)
    rows = [(f"model-{m}", q, s, int(r.random() < 0.3 + 0.05 * m)) for m in range(7) for q in range(900)
            for s in range(int(r.integers(1, 9)))]
    for sub in ("pq", "pqint", "csv"):
        (folder / sub).mkdir()
    for m in range(7):
        mine = [x for x in rows if x[0] == f"model-{m}"]
        cols = {"question": [f"q{x[1]:04d}" for x in mine], "sample": [x[2] for x in mine],
                "correct": [x[3] for x in mine], "topic": [f"t{x[1] % 7}" for x in mine]}
        pq.write_table(pa.table(cols), folder / "pq" / f"model-{m}.parquet", row_group_size=500)
        ints = dict(cols, question=[x[1] * 3 - 50 for x in mine])
        pq.write_table(pa.table(ints), folder / "pqint" / f"model-{m}.parquet", row_group_size=500)
        (folder / "csv" / f"model-{m}.csv").write_text(
            "question,sample,correct,topic\n" + "".join(f"q{x[1]:04d},{x[2]},{x[3]},t{x[1] % 7}\n" for x in mine))
    (folder / "all.jsonl").write_text("".join(json.dumps({"model": x[0], "question": f"q{x[1]:04d}", "sample": x[2],
                                                          "correct": bool(x[3])}) + "\n" for x in rows))
    return folder


ROWS = _rows_folder()


def direct(source: str, **kw: Any) -> bytes:
    """The direct count's table of ``source`` (it must not hand over), as bytes."""
    from kscore.leaderboard import ColumnNames
    from kscore.leaderboard._issues import Issues
    from kscore.leaderboard.read import direct
    from kscore.leaderboard.read.describe import describe
    from kscore.leaderboard.read.reader import rows_of
    from kscore.leaderboard.read.source import open_source

    src = open_source(source, None)
    try:
        r = rows_of(src, ColumnNames(**kw), 2, Issues(), describe(src))
        found = direct.count_rows(src, r)
    finally:
        src.con.close()
    assert not isinstance(found, str), found
    return b"|".join([repr((found.models, found.questions, found.attributes)).encode(), found.model.tobytes(),
                      found.question.tobytes(), found.categories.T.tobytes()])


CALLS: dict[str, Callable[[], Any]] = {
    "pass_at_k": lambda: ke.pass_at_k(R, 24),
    "pass_hat_k": lambda: ke.pass_hat_k(R, 24),
    "g_pass_at_k_tau": lambda: ke.g_pass_at_k_tau(R, 24, 0.4),
    "mg_pass_at_k": lambda: ke.mg_pass_at_k(R, 24),
    "maj_at_k": lambda: ke.maj_at_k(R, 24),
    "auc_at_k": lambda: ke.auc_at_k(R, 24),
    "threshold_spectrum_at_k": lambda: ke.threshold_spectrum_at_k(R, 24, SPECTRUM),
    "geom_at_k": lambda: ke.geom_at_k(R, 24),
    "geom_ds_at_k": lambda: ke.geom_ds_at_k(R, 24),
    "geo_spectrum_at_k": lambda: ke.geo_spectrum_at_k(R, 24),
    "max_at_k": lambda: ke.max_at_k(C, 24, W4),
    "bayes": lambda: ke.bayes(C, W4, C0),
    "avg": lambda: ke.avg(C, W4),
    "pass_at_k_ci": lambda: ke.pass_at_k_ci(R, 24),
    "pass_hat_k_ci": lambda: ke.pass_hat_k_ci(R, 24),
    "g_pass_at_k_tau_ci": lambda: ke.g_pass_at_k_tau_ci(R, 24, 0.4),
    "mg_pass_at_k_ci": lambda: ke.mg_pass_at_k_ci(R, 24),
    "maj_at_k_ci": lambda: ke.maj_at_k_ci(R, 24),
    "auc_at_k_ci": lambda: ke.auc_at_k_ci(R, 24),
    "threshold_spectrum_at_k_ci": lambda: ke.threshold_spectrum_at_k_ci(R, 24, SPECTRUM),
    "geom_at_k_ci": lambda: ke.geom_at_k_ci(R, 24),
    "geom_ds_at_k_ci": lambda: ke.geom_ds_at_k_ci(R, 24),
    "geo_spectrum_at_k_ci": lambda: ke.geo_spectrum_at_k_ci(R, 60),
    "max_at_k_ci": lambda: ke.max_at_k_ci(C, 24, W4, C0),
    "bayes_ci": lambda: ke.bayes_ci(C, W4, C0),
    "avg_ci": lambda: ke.avg_ci(C, W4),
    "estimate_pass_at_k": lambda: kc.estimate_pass_at_k(np.full(6000, 40), R.sum(axis=1), 10).tobytes(),
    "curve": lambda: kc.curve(np.full(6000, 40), R.sum(axis=1)).tobytes(),
    "question_scores": lambda: np.asarray(kc.question_scores(R, "maj_at_k", 9)).tobytes(),
    "model_scores": lambda: kc.model_scores(R.reshape(6, 1000, 40), "pass_at_k", [1, 5]).tobytes(),
    # One-byte and Fortran-order matrices take the intake's other vector paths.
    "pass_at_k_bool": lambda: ke.pass_at_k(R.astype(np.bool_), 24),
    "maj_at_k_uint8_fortran": lambda: ke.maj_at_k(np.asfortranarray(R.astype(np.uint8)), 24),
    "mg_pass_at_k_int8_rows": lambda: ke.mg_pass_at_k(R.astype(np.int8)[:, 1:37], 24),
    "bayes_int8": lambda: ke.bayes(C.astype(np.int8), W4, C0.astype(np.int8)),
    "max_at_k_uint8": lambda: ke.max_at_k(C.astype(np.uint8), 24, W4),
    "avg_float64": lambda: ke.avg(C.astype(np.float64), W4),
    # int64 rows of 3-4 categories without R0: the count moments summed in
    # the counting pass, block by block (no per-row counts).
    "bayes_int64": lambda: ke.bayes(C.astype(np.int64), W4),
    "avg_ci_int64_3_categories": lambda: ke.avg_ci(np.minimum(C, 2).astype(np.int64), W4[:3]),
    # The leaderboard's direct counts (reading threads, per-thread shards, merge, names).
    "rows_parquet": lambda: direct(str(ROWS / "pq" / "*.parquet"), extra=("topic",)),
    "rows_parquet_integer_ids": lambda: direct(str(ROWS / "pqint" / "*.parquet")),
    "rows_csv": lambda: direct(str(ROWS / "csv" / "*.csv"), extra=("topic",)),
    "rows_jsonl": lambda: direct(str(ROWS / "all.jsonl")),
    "geo_spectrum_at_k_ci_large_k": lambda: ke.geo_spectrum_at_k_ci(R[:300], 3000),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_calling_thread_and_pool_agree_bit_for_bit(name: str) -> None:
    call = CALLS[name]
    with grain(NEVER):
        alone = call()
    with grain(1):
        split = call()
    default = call()
    assert alone == split == default


def test_threads_at_once_match_serial_calls() -> None:
    serial = {name: call() for name, call in CALLS.items()}
    jobs = [name for name in CALLS for _ in range(3)]
    random.Random(5).shuffle(jobs)
    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda name: (name, CALLS[name]()), jobs))
    for name, value in results:
        assert value == serial[name], name


def digest() -> str:
    """One hash of every result of CALLS (values as Python prints them)."""
    h = hashlib.sha256()
    for name, call in CALLS.items():
        h.update(f"{name}={call()!r}\n".encode())
    return h.hexdigest()


if __name__ == "__main__":
    print(digest())
