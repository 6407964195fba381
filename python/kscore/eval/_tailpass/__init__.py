"""TailPass (docs/kernels.md, K16): scorio 0.2.3's ``tailpass`` and
``tailpass_empirical``, by job:

shared.py      the fitted posterior every part reads (Posterior), input checks
build.py       tailpass(): the questions' Dirichlet posteriors from the outcomes
profile.py     TailPassProfile: exact moments, covariance, utilities, intervals
draws.py       TailPassDraws: utilities on shared posterior draws
stream.py      draws in scorio's stream order; binary draws streamed into profiles
grid.py        count grids, bank scores, Dirichlet-multinomial numerics
empirical.py   tailpass_empirical(): the finite-bank profile
"""

from __future__ import annotations

from .build import tailpass
from .draws import TailPassDraws
from .empirical import tailpass_empirical
from .profile import TailPassProfile

__all__ = ["tailpass", "tailpass_empirical", "TailPassProfile", "TailPassDraws"]
