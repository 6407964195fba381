r"""kscore.eval: a drop-in for ``scorio.eval`` (scorio 0.2.3) with a Rust core.

Same names, signatures, defaults, return types, exception types and
messages, and the same numbers to about 1e-12 relative.

Notation: ``R`` is an :math:`M \times N` outcome matrix (M questions, N
trials; 1-D is one question). Binary metrics need entries in {0, 1}; the
categorical ones (``bayes``, ``avg``, ``max_at_k``, ``tailpass``) take categories
``0..C`` mapped to rewards by ``w``. Any numpy dtype is read in place:
bool, int8..int64, uint8..uint64, integer-valued floats, any layout.
"""

from . import tailpass_weights as tailpass_weights  # scorio.eval.tailpass_weights, not in __all__
from ._auc import auc_at_k
from ._bayes import avg, avg_ci, bayes, bayes_ci
from ._geom import (
    geo_spectrum_at_k,
    geo_spectrum_star_at_k,
    geom_at_k,
    geom_ds_at_k,
    threshold_spectrum_at_k,
)
from ._geom_ci import (
    geo_spectrum_at_k_ci,
    geo_spectrum_star_at_k_ci,
    geom_at_k_ci,
    geom_ds_at_k_ci,
    threshold_spectrum_at_k_ci,
)
from ._gpass import g_pass_at_k, g_pass_at_k_tau, mg_pass_at_k
from ._gpass_ci import (
    auc_at_k_ci,
    g_pass_at_k_ci,
    g_pass_at_k_tau_ci,
    maj_at_k_ci,
    mg_pass_at_k_ci,
)
from ._maj import maj_at_k
from ._max import max_at_k, max_at_k_ci
from ._pass import pass_at_k, pass_hat_k, unanimous_at_k
from ._pass_ci import pass_at_k_ci, pass_hat_k_ci, unanimous_at_k_ci
from ._tailpass import tailpass, tailpass_empirical

__all__ = [
    "bayes",
    "bayes_ci",
    "avg",
    "avg_ci",
    "pass_at_k",
    "pass_at_k_ci",
    "pass_hat_k",
    "pass_hat_k_ci",
    "unanimous_at_k",
    "unanimous_at_k_ci",
    "g_pass_at_k",
    "g_pass_at_k_ci",
    "g_pass_at_k_tau",
    "g_pass_at_k_tau_ci",
    "mg_pass_at_k",
    "mg_pass_at_k_ci",
    "maj_at_k",
    "maj_at_k_ci",
    "auc_at_k",
    "auc_at_k_ci",
    "max_at_k",
    "max_at_k_ci",
    "threshold_spectrum_at_k",
    "threshold_spectrum_at_k_ci",
    "geom_at_k",
    "geom_ds_at_k",
    "geom_at_k_ci",
    "geom_ds_at_k_ci",
    "geo_spectrum_at_k",
    "geo_spectrum_at_k_ci",
    "geo_spectrum_star_at_k",
    "geo_spectrum_star_at_k_ci",
    "tailpass",
    "tailpass_empirical",
]
