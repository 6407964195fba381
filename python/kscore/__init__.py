"""kscore: fast, exact metrics for sampled LLM outputs.

``from kscore import eval`` is a drop-in for ``scorio.eval`` (scorio 0.2.3),
computed by a Rust core that reads outcome matrices in place, once.
"""

from . import eval
from ._kscore import __version__

__all__ = ["eval", "__version__"]
