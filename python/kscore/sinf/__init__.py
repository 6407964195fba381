"""kscore.sinf: scorio.sinf 0.2.3's sequential-inference helpers, drop-in.

Decisions from posterior means and standard deviations under a normal
approximation: the confidence that two models are ordered
(``ranking_confidence``), a normal interval (``ci_from_mu_sigma``), whether a
metric is precise enough to stop sampling (``should_stop``), whether the
leader is resolved (``should_stop_top1``) and which pair to sample next
(``suggest_next_allocation``). Same signatures, defaults, results and
exceptions as scorio; the normal quantile is the Rust core's Cephes
``ndtri`` (scipy's, bit for bit) and the normal CDF Cephes' ``ndtr`` formula
over the C library's ``erf``/``erfc``, so scipy is not needed.

Examples:
    >>> from kscore import sinf
    >>> rho, z = sinf.ranking_confidence(0.8, 0.01, 0.7, 0.02)
    >>> round(rho, 6), round(z, 4)
    (0.999996, 4.4721)
    >>> sinf.should_stop(0.01, confidence=0.95, max_half_width=0.02)
    True
"""

from ._decisions import (
    ci_from_mu_sigma,
    ranking_confidence,
    should_stop,
    should_stop_top1,
    suggest_next_allocation,
)

__all__ = [
    "ranking_confidence",
    "ci_from_mu_sigma",
    "should_stop",
    "should_stop_top1",
    "suggest_next_allocation",
]
