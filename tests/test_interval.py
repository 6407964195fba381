"""The interval machinery: kscore's Cephes ndtri port against
scipy.special.ndtri (what scorio calls), and scorio's clipping rules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtri as scipy_ndtri

from kscore import _kscore
from kscore._interval import normal_ci


def test_ndtri_matches_scipy_on_the_open_unit_interval() -> None:
    rng = np.random.default_rng(11)
    ps = np.concatenate([
        rng.random(20000),
        10.0 ** -rng.uniform(0, 300, 5000),  # deep lower tail (both rational branches)
        1.0 - 10.0 ** -rng.uniform(1, 16, 2000),  # upper tail
        [0.5, 0.975, 0.995, 1e-300, 5e-324, np.nextafter(1.0, 0.0)],
    ])
    for p in ps:
        ours, ref = _kscore.ndtri(float(p)), float(scipy_ndtri(p))
        assert abs(ours - ref) <= 1e-15 * abs(ref) + 1e-300, (p, ours, ref)


def test_ndtri_edges() -> None:
    assert _kscore.ndtri(0.0) == -math.inf
    assert _kscore.ndtri(1.0) == math.inf
    assert math.isnan(_kscore.ndtri(1.5)) and math.isnan(_kscore.ndtri(-0.1))


def test_clipping_follows_python_min_max() -> None:
    mu, sigma, lo, hi = normal_ci(0.99, 0.1, 0.95, (0.0, 1.0))
    assert hi == 1.0 and lo < mu
    # A mean outside the bounds clamps both ends (never an inverted interval).
    assert normal_ci(1.5, 0.01, 0.95, (0.0, 1.0))[2:] == (1.0, 1.0)
    # NaN bounds are ignored by Python's min/max, as in scorio.
    assert normal_ci(0.5, 0.1, 0.95, (math.nan, math.nan))[2:] == normal_ci(0.5, 0.1, 0.95, None)[2:]
    with pytest.raises(ValueError, match=r"bounds must satisfy bounds\[0\] <= bounds\[1\]"):
        normal_ci(0.5, 0.1, 0.95, (1.0, 0.0))
    with pytest.raises(ValueError, match=r"confidence must be in \(0,1\); got 1.0"):
        normal_ci(0.5, 0.1, 1.0, None)
