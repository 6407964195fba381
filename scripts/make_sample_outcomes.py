"""Generate the sample outcome matrices shipped in kscore (fixed seed).

Run from the repository root: ``python scripts/make_sample_outcomes.py``.
It writes ``python/kscore/data/sample_outcomes.npz`` with

- ``binary``: 300 questions x 16 samples of one model, bool; per-question
  difficulty from a Beta(1.2, 0.8) so that some questions are always solved,
  some never, most in between;
- ``graded``: the same questions graded 0 (wrong), 1 (partial), 2 (right),
  int8, with rewards ``w = [0, 0.5, 1]``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

SEED = 20261121
M, N = 300, 16


def main() -> None:
    rng = np.random.default_rng(SEED)
    p_right = rng.beta(1.2, 0.8, size=(M, 1))
    p_partial = (1.0 - p_right) * rng.uniform(0.0, 0.5, size=(M, 1))
    u = rng.random((M, N))
    graded = np.where(u < p_right, 2, np.where(u < p_right + p_partial, 1, 0)).astype(np.int8)
    binary = graded == 2
    out = Path(__file__).resolve().parent.parent / "python" / "kscore" / "data" / "sample_outcomes.npz"
    np.savez_compressed(out, binary=binary, graded=graded, w=np.array([0.0, 0.5, 1.0]))
    print(f"wrote {out} ({binary.mean():.3f} solved)")


if __name__ == "__main__":
    main()
