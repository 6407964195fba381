"""kscore: fast, exact metrics for sampled LLM outputs.

``from kscore import eval`` is a drop-in for ``scorio.eval`` (scorio 0.2.3),
computed by a Rust core that reads outcome matrices in place, once.
``kscore.counts`` takes the per-question ``(n, c)`` counts harnesses keep
(``estimate_pass_at_k`` and every finite-bank metric, per question, at many
budgets, for many models at once). ``kscore.leaderboard(source)`` ranks
models from a results file, directory, glob or table with credible intervals.
``kscore.rl`` gives RL trainers exact validation metrics (a drop-in for
verl's ``process_validation_metrics``, and pass@k for any trainer).
"""

from typing import TYPE_CHECKING, Any

from . import counts
from ._kscore import __version__
from .arena import arena
from .counts import (
    avg_at_n,
    cons_at_k,
    counts_of,
    estimate_pass_at_k,
    model_scores,
    question_scores,
)
from .leaderboard import Leaderboard, add_counts, leaderboard

__all__ = [
    "eval",
    "rl",
    "counts",
    "leaderboard",
    "arena",
    "Leaderboard",
    "add_counts",
    "estimate_pass_at_k",
    "avg_at_n",
    "cons_at_k",
    "counts_of",
    "question_scores",
    "model_scores",
    "__version__",
]

if TYPE_CHECKING:
    from . import eval, rl


def __getattr__(name: str) -> Any:
    # kscore.eval and kscore.rl are imported on first use: the leaderboard
    # (and every kscore.counts user) starts without them.
    if name in ("eval", "rl"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
