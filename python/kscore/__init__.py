"""kscore: fast, exact metrics for sampled LLM outputs.

``from kscore import eval`` is a drop-in for ``scorio.eval`` (scorio 0.2.3),
computed by a Rust core that reads outcome matrices in place, once.
``kscore.counts`` takes the per-question ``(n, c)`` counts harnesses keep
(``estimate_pass_at_k`` and every finite-bank metric, per question, at many
budgets, for many models at once). ``kscore.leaderboard(source)`` ranks
models from a results file, directory, glob or table with credible intervals.
``kscore.rl`` gives RL trainers exact validation metrics (a drop-in for
verl's ``process_validation_metrics``, and pass@k for any trainer).
``kscore.sinf`` is a drop-in for ``scorio.sinf`` (stopping and allocation
decisions from means and sigmas).
"""

from typing import TYPE_CHECKING, Any

from . import _interrupt

_interrupt.during_startup()  # first: Ctrl-C while the kscore command imports the rest is one line

with _interrupt.held_sigint():  # the core's import finds numpy's C tables (numpy's Python code: a panic if it raised)
    from . import _kscore  # noqa: E402, F401

from . import counts  # noqa: E402
from ._kscore import __version__  # noqa: E402
from .arena import arena  # noqa: E402
from .counts import (  # noqa: E402
    avg_at_n,
    cons_at_k,
    counts_of,
    estimate_pass_at_k,
    model_scores,
    question_scores,
)
from .leaderboard import Leaderboard, add_counts, leaderboard  # noqa: E402

__all__ = [
    "eval",
    "rl",
    "sinf",
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
    from . import eval, rl, sinf


def __getattr__(name: str) -> Any:
    # kscore.eval, kscore.rl and kscore.sinf are imported on first use: the
    # leaderboard (and every kscore.counts user) starts without them.
    if name in ("eval", "rl", "sinf"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
