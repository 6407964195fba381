"""The default interval's compiled envelope (kscore-core interval::envelope)
runs the models in blocks on the pool's threads: each model's bound is the
one it gets alone, in model order, and equals the numpy reference of
stats/default_interval.py (the path without the kernel)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from kscore import _kscore
from kscore.leaderboard.stats import default_interval as di


def _units(models: int, seed: int) -> di.Units:
    """Ragged units: 1-6 distinct unit values per model, each 1-150 alike
    (past the kernel's DENSE run length), sizes 1-3 (clusters)."""
    rng = np.random.default_rng(seed)
    per = rng.integers(1, 7, models)
    model = np.repeat(np.arange(models), per)
    size = rng.integers(1, 4, len(model)).astype(np.float64)
    total = np.round(rng.random(len(model)) * size * 4) / 4
    mult = rng.integers(1, 151, len(model)).astype(np.float64)
    return di.Units(model.astype(np.int64), total, size, mult, models)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_kernel_equals_the_numpy_reference_across_blocks(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    L = 1700  # (3 blocks of 512 models and a part)
    u = _units(L, seed)
    samples = np.full(L, 400.0)
    lo_b, hi_b = np.zeros(L), np.ones(L)
    lo, hi = di.bounds(u, samples, 0.95, lo_b, hi_b)
    monkeypatch.setattr(di, "_kscore", object())  # (no interval_envelope: numpy's own)
    ref_lo, ref_hi = di.bounds(u, samples, 0.95, lo_b, hi_b)
    np.testing.assert_allclose(lo, ref_lo, rtol=0, atol=1e-12)
    np.testing.assert_allclose(hi, ref_hi, rtol=0, atol=1e-12)
    ok = ~np.isnan(lo)  # (NaN: a model of one unit)
    assert ok.sum() > L // 2 and (lo[ok] <= hi[ok]).all()


def test_each_models_bound_is_the_one_it_gets_alone() -> None:
    L = 1300
    u = _units(L, 7)
    y = u.total / u.size
    order = np.lexsort((-y, u.model))
    om = u.model[order]
    S, m, c = (np.ascontiguousarray(a[order], np.float64) for a in (u.total, u.size, u.mult))
    n = np.bincount(u.model, weights=u.mult * u.size, minlength=L)
    G = np.bincount(u.model, weights=u.mult, minlength=L)
    T = [np.bincount(u.model, weights=u.mult * w, minlength=L) for w in (u.total, u.total**2, u.total * u.size,
                                                                         u.size**2)]
    sums = [n, G, *T, n * n / T[3], np.full(L, 300.0)]
    offsets = np.searchsorted(om, np.arange(L + 1)).astype(np.int64)
    whole = _kscore.interval_envelope(offsets, sums, S, m, c, 1.96, False)
    for a, b in ((0, 1), (511, 513), (1023, 1024), (1299, 1300), (200, 900)):
        part = _kscore.interval_envelope(offsets[a:b + 1] - offsets[a], [s[a:b].copy() for s in sums],
                                         S[offsets[a]:offsets[b]].copy(), m[offsets[a]:offsets[b]].copy(),
                                         c[offsets[a]:offsets[b]].copy(), 1.96, False)
        assert np.asarray(whole)[a:b].tobytes() == np.asarray(part).tobytes(), (a, b)


@pytest.mark.parametrize("seed", [3, 4])
def test_the_one_call_bounds_equal_the_per_direction_kernel_bit_for_bit(seed: int,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # interval_bounds rescales, sums, orders each model's units and runs both envelopes in the core; the path
    # before it (numpy's sums and lexsort, interval_envelope per direction) gives the same floats, ties of
    # s / m (units alike but for their count) included, with per-model ranges as Bayes@N's.
    L = 1300
    u = _units(L, seed)
    u.total[::7] = u.size[::7] * 0.5  # (ties of s / m within a model, in both orders)
    rng = np.random.default_rng(seed)
    lo_b = -rng.random(L) * 0.1
    hi_b = 1.0 + rng.random(L) * 0.1
    hi_b[::5] = lo_b[::5]  # (a range of no width: span 1)
    samples = rng.integers(50, 800, L).astype(np.float64)
    lo, hi = di.bounds(u, samples, 0.9, lo_b, hi_b)
    monkeypatch.setattr(di, "_kscore", SimpleNamespace(interval_envelope=_kscore.interval_envelope))
    ref_lo, ref_hi = di.bounds(u, samples, 0.9, lo_b, hi_b)
    assert lo.tobytes() == ref_lo.tobytes() and hi.tobytes() == ref_hi.tobytes()
    ok = ~np.isnan(lo)
    assert ok.sum() > L // 2 and (lo[ok] < hi[ok]).any()


def test_units_out_of_model_order_take_the_numpy_path() -> None:
    # (the one-call kernel wants each model's units in one run: units out of model order are bounded as before)
    u = _units(40, 5)
    order = np.random.default_rng(5).permutation(len(u.model))
    shuffled = di.Units(u.model[order], u.total[order], u.size[order], u.mult[order], u.models)
    args = (np.full(40, 300.0), 0.95, np.zeros(40), np.ones(40))
    for a, b in zip(di.bounds(u, *args), di.bounds(shuffled, *args)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)
