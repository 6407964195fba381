"""kscore.rl: exact validation metrics inside RL training loops.

* :func:`process_validation_metrics` -- a drop-in for verl 0.9.1's function
  of that name: the same keys, every bootstrap statistic replaced by its
  exact value (``from kscore.rl import process_validation_metrics``).
* :func:`validation_metrics` -- any trainer: prompt ids, rewards and
  optionally predictions as flat arrays, a flat ``{"val/<source>/pass@8":
  float}`` dict for a logger.

See docs/rl.md for how the values relate to verl's.
"""

from ._flat import validation_metrics
from ._verl import process_validation_metrics

__all__ = ["process_validation_metrics", "validation_metrics"]
