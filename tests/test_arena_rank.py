"""kscore.arena beside arena-rank 0.1.1 itself, run through a subprocess in
its own environment (it pins numpy 2.3.3 and jax 0.8.1): .arena-venv at the
repository's root, made by .ci/run (``python3 -m venv .arena-venv &&
.arena-venv/bin/pip install arena-rank==0.1.1``); skipped without it.

Its sandwich variances, evaluated by its own code at kscore's converged
ratings, equal kscore's with arena-rank's ridge to 1e-6 relative; its own
L-BFGS ratings stop short of the maximum (reported, bounded)."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import kscore
from tests.arena_reference import ELO, simulate

ROOT = Path(__file__).resolve().parents[1]
PY = ROOT / ".arena-venv" / "bin" / "python"
pytestmark = pytest.mark.skipif(not PY.exists(), reason="no .arena-venv with arena-rank 0.1.1")


def test_arena_ranks_own_sandwich_at_the_converged_ratings(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    s = simulate(np.random.default_rng(21), 25, 40_000, spread=1.0, tie=0.2, skew=1.5)
    names = [f"model-{k:02d}" for k in range(25)]
    word = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}
    table = pa.table({"model_a": [names[i] for i in s["a"]], "model_b": [names[i] for i in s["b"]],
                      "winner": [word[v] for v in s["y"]]})
    path = tmp_path / "battles.parquet"
    pq.write_table(table, path)
    res = kscore.arena(table, ridge=1e-5, fragility=False)
    rating = dict(zip(res.board.models, res.board.rating.tolist()))
    se = dict(zip(res.board.models, res.board.se.tolist()))
    theta = np.array([(rating[m] - 1000.0) / ELO for m in sorted(names)])
    np.save(tmp_path / "theta.npy", theta)
    run = subprocess.run([str(PY), str(ROOT / "benches" / "arena_rank_runner.py"), str(path), "--at",
                          str(tmp_path / "theta.npy")], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["competitors"] == sorted(names)
    theirs = np.array(out["variances_at"]) * ELO ** 2
    ours = np.array([se[m] ** 2 for m in sorted(names)])
    assert np.max(np.abs(ours / theirs - 1)) < 1e-6
    # its own fit: within its tolerance of the maximum (reported in docs/arena.md)
    gap = np.max(np.abs(np.array(out["ratings"]) - np.array([rating[m] for m in sorted(names)])))
    assert gap < 1.0 and math.isfinite(gap)
