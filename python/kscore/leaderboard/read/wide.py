"""``.npy``/``.npz`` outcome arrays to counts (docs/leaderboard.md, *Input*).

``.npy``: a 2-D array (questions x samples) is one model named after the
file; a 3-D array is models x questions x samples. ``.npz``: every 2-D array
is a model named by its key (3-D arrays: key[0], key[1], ...). Float arrays
may use NaN for a missing sample (ragged data)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._counts import Counts, from_cells
from .._issues import EXAMPLES, Issues, LeaderboardError


def _arrays(path: Path, fmt: str) -> list[tuple[str, np.ndarray]]:
    try:
        loaded = np.load(path, allow_pickle=False)
        if isinstance(loaded, np.ndarray):
            items = [(path.name.split(".")[0], loaded)]
        else:
            with loaded:  # the members are read (and their CRCs checked) here
                items = [(k, loaded[k]) for k in loaded.files]
    except Exception as exc:  # noqa: BLE001 - a corrupt file makes numpy, zipfile, zlib or tokenize raise
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise LeaderboardError(f"{path} is not a readable {fmt} file: {reason}") from exc
    if not items:
        raise LeaderboardError(f"{path} is empty (no arrays)")
    arrays: list[tuple[str, np.ndarray]] = []
    for key, a in items:
        if a.ndim == 2:
            arrays.append((key, a))
        elif a.ndim == 3:
            prefix = "model" if isinstance(loaded, np.ndarray) else key
            arrays.extend((f"{prefix}[{i}]", a[i]) for i in range(a.shape[0]))
        else:
            raise LeaderboardError(f"{path}: array '{key}' has shape {a.shape}; expected questions x samples (2-D) "
                                   "or models x questions x samples (3-D)")
        # Complex numbers were read as their real parts, with numpy's
        # warning only (found by tests/fuzz_readers.py).
        if not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_) or np.iscomplexobj(a):
            raise LeaderboardError(f"{path}: array '{key}' has dtype {a.dtype}; expected real numbers or booleans")
    return arrays


def read_wide(path: Path, fmt: str, n_categories: int, issues: Issues) -> Counts:
    arrays = _arrays(path, fmt)
    if not arrays:  # a 3-D array of no models (found by tests/fuzz_readers.py)
        raise LeaderboardError(f"no valid results in {path} (no models: its arrays are empty)")
    n_q = max(a.shape[0] for _, a in arrays)
    C = n_categories - 1
    model, question, cats = [], [], []
    examples: list[str] = []
    n_out = 0
    for m, (name, a) in enumerate(arrays):
        x = a.astype(np.float64, copy=False)
        present = ~np.isnan(x)
        ok = present & (x >= 0) & (x <= C) & (x == np.floor(x))
        bad = np.argwhere(present & ~ok)
        n_out += len(bad)
        for q, s in bad[: max(0, EXAMPLES - len(examples))]:
            examples.append(f"model '{name}', question {q}, sample {s}: {a[q, s]!r}")
        xi = np.where(ok, x, -1).astype(np.int64)
        cats.append(np.stack([(xi == j).sum(axis=1) for j in range(n_categories)], axis=1))
        model.append(np.full(a.shape[0], m))
        question.append(np.arange(a.shape[0]))
    allowed = "0 or 1" if C == 1 else f"an integer category 0..{C}"
    issues.rows(f"outcomes out of range (expected {allowed})", examples, n_out, str(path))
    counts = from_cells([n for n, _ in arrays], [str(q) for q in range(n_q)], np.concatenate(model),
                        np.concatenate(question), np.concatenate(cats))
    if len(counts.model) == 0:
        raise LeaderboardError(f"no valid results in {path}")
    return counts
