"""``--plot FILE.png``: pass@k curves (k = 1..N) per model with credible bands."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..leaderboard import Leaderboard
from ..leaderboard._metrics import by_model, curve
from ._errors import CliError
from ._write import write_atomic

#: Figure size in pixels (width, height) at DPI.
WIDTH, HEIGHT, DPI = 960, 600, 100
#: Models drawn at most (the top of the leaderboard).
MAX_MODELS = 12


def plot_ks(n: int) -> list[int]:
    """k = 1..N, thinned to about 64 points on a log scale when N is large."""
    if n <= 64:
        return list(range(1, n + 1))
    return sorted({int(round(x)) for x in np.geomspace(1, n, 64)})


def plot(path: Path, board: Leaderboard, confidence: float) -> str:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise CliError("--plot needs matplotlib: pip install 'kscore[cli]'") from exc
    counts = board.counts
    rows = board.rows
    index = {counts.models[m]: idx for m, idx in by_model(counts)}
    shown = rows[:MAX_MODELS]
    fig, ax = plt.subplots(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI)
    n_max = 1
    for r in shown:
        ks = plot_ks(r.n_min)
        n_max = max(n_max, r.n_min)
        c = curve(counts.categories[index[r.model]], ks, confidence)
        (line,) = ax.plot(ks, c[:, 0], marker="o", markersize=3, linewidth=1.5, label=r.model)
        ax.fill_between(ks, c[:, 1], c[:, 2], color=line.get_color(), alpha=0.18, linewidth=0)
    ax.set_xscale("log", base=2)
    ax.set_xlim(1, max(2, n_max))
    ax.set_ylim(0.0, 1.0)
    ax.set_xlabel("k (samples)")
    ax.set_ylabel("pass@k (posterior mean)")
    more = f" (top {MAX_MODELS} of {len(rows)})" if len(rows) > MAX_MODELS else ""
    ax.set_title(f"pass@k with {confidence * 100:g}% credible bands{more}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    try:
        write_atomic(path, lambda tmp: fig.savefig(tmp, dpi=DPI, format="png"))
    finally:
        plt.close(fig)
    return str(path)
