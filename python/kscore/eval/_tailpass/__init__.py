"""TailPass (docs/kernels.md, K16): scorio 0.2.3's ``tailpass`` and
``tailpass_empirical``."""

from __future__ import annotations

from .profile import TailPassDraws, TailPassProfile, tailpass, tailpass_empirical

__all__ = ["tailpass", "tailpass_empirical", "TailPassProfile", "TailPassDraws"]
