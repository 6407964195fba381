"""kscore.eval binary point metrics against scorio 0.2.3: reference examples,
hand cases, every dtype and layout, and random banks (hypothesis)."""

from __future__ import annotations

import doctest
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scorio import eval as se

from kscore import eval as ke

from .conftest import DTYPES, close

# name -> extra positional arguments after (R, k) as a function of k
POINT: dict[str, Callable[[int], tuple[Any, ...]]] = {
    "pass_at_k": lambda k: (),
    "pass_hat_k": lambda k: (),
    "unanimous_at_k": lambda k: (),
    "g_pass_at_k": lambda k: (),
    "mg_pass_at_k": lambda k: (),
    "maj_at_k": lambda k: (),
    "auc_at_k": lambda k: (),
    "geom_at_k": lambda k: (),
    "geom_ds_at_k": lambda k: (),
    "geo_spectrum_at_k": lambda k: (),
    "geo_spectrum_star_at_k": lambda k: (),
    "g_pass_at_k_tau": lambda k: (0.3,),
    "threshold_spectrum_at_k": lambda k: (np.full(k, 1.0 / k),),
}

EXAMPLE = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])


def check_all(R: Any, k: int) -> None:
    for name, extra in POINT.items():
        ours = getattr(ke, name)(R, k, *extra(k))
        theirs = getattr(se, name)(R, k, *extra(k))
        assert type(ours) is float
        assert close(ours, theirs), (name, k, ours, theirs)


@pytest.mark.thread_unsafe(reason="doctest patches linecache and redirects stdout")
@pytest.mark.parametrize("module", ["_pass", "_gpass", "_maj", "_auc", "_geom"])
def test_docstring_examples(module: str) -> None:
    """The examples in our docstrings are scorio's reference values."""
    mod = __import__(f"kscore.eval.{module}", fromlist=["_"])
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_reference_example(k: int) -> None:
    check_all(EXAMPLE, k)


def test_unanimous_is_the_same_object() -> None:
    assert ke.unanimous_at_k is ke.pass_hat_k
    assert ke.unanimous_at_k.__name__ == "pass_hat_k"


@pytest.mark.parametrize("n", [1, 2, 7, 64])
def test_hand_cases_every_count(n: int) -> None:
    # One row per success count c = 0..N (so c = 0 and c = N are in).
    R = np.tril(np.ones((n + 1, n), dtype=np.int8), -1)
    for k in sorted({1, min(2, n), n // 2 or 1, n}):
        check_all(R, k)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype(dtype: npt.DTypeLike, rng: np.random.Generator) -> None:
    R = (rng.random((40, 13)) < 0.4).astype(dtype)
    check_all(R, 5)


def test_layouts(rng: np.random.Generator) -> None:
    base = rng.random((60, 30)) < 0.5
    views = [
        np.asfortranarray(base),
        base[::3, ::2],
        base[::-1, ::-1],
        base.T[:, :25].T if base.shape[1] >= 25 else base,
        base.astype(np.int32)[:, 1::3],
    ]
    for view in views:
        check_all(view, 4)


def test_one_dimensional_is_one_question() -> None:
    r = [1, 0, 1, 1, 0, 0]
    check_all(r, 3)
    check_all([True, False, True], 2)


def test_lists_and_float_entries() -> None:
    check_all([[1.0, 0.0, -0.0], [1.0, 1.0, 0.0]], 2)
    check_all(np.array([[1, 0, 1]], dtype=np.float16), 2)
    check_all(np.array([[1, 0, 1]], dtype=np.longdouble), 2)
    check_all(np.array([[1, 0, 1]], dtype=">i4"), 2)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    m=st.integers(1, 200),
    n=st.integers(1, 300),
    p=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from(DTYPES),
    data=st.data(),
)
def test_random_banks(m: int, n: int, p: float, seed: int, dtype: Any, data: st.DataObject) -> None:
    gen = np.random.default_rng(seed)
    # Per-row success rates spread out so that many distinct counts appear.
    rates = np.clip(gen.beta(0.5, 0.5, size=(m, 1)) * 2 * p, 0, 1)
    R = (gen.random((m, n)) < rates).astype(dtype)
    k = data.draw(st.integers(1, n))
    tau = data.draw(st.floats(0.0, 1.0))
    check_all(R, k)
    assert close(ke.g_pass_at_k_tau(R, k, tau), se.g_pass_at_k_tau(R, k, tau))
    w = gen.random(k)
    w = w / w.sum() * data.draw(st.floats(0.0, 1.0))
    assert close(ke.threshold_spectrum_at_k(R, k, w), se.threshold_spectrum_at_k(R, k, w))
    lam = data.draw(st.floats(0.0, 1.0))
    assert close(ke.geo_spectrum_at_k(R, k, lam, w), se.geo_spectrum_at_k(R, k, lam, w))
    a, b = data.draw(st.floats(0.0, 3.0)), data.draw(st.floats(0.0, 3.0))
    if a or b:
        assert close(ke.geom_at_k(R, k, a, b), se.geom_at_k(R, k, a, b))
        assert close(ke.geom_ds_at_k(R, k, a, b), se.geom_ds_at_k(R, k, a, b))


@pytest.mark.parametrize("tau", [0.0, 0.1, 0.3, 0.5, 0.7, 1 / 3, 2 / 3, 0.9999, 1.0, True])
def test_tau_boundaries(tau: float) -> None:
    R = np.tril(np.ones((11, 10), dtype=bool), -1)
    for k in range(1, 11):
        assert close(ke.g_pass_at_k_tau(R, k, tau), se.g_pass_at_k_tau(R, k, tau)), (tau, k)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.longdouble])
def test_tau_of_another_float_type(dtype: type) -> None:
    """scorio finds the threshold in tau's own arithmetic (a float32 0.6 times 5
    is 3.0 and equals 3/5: 3 successes, where the double 0.6000000238 needs 4):
    the point metric, its interval and the counts' batch give scorio's numbers."""
    from scorio.eval import g_pass_at_k_tau_ci as scorio_ci

    from kscore import counts

    R = np.tril(np.ones((11, 10), dtype=bool), -1)
    seen = set()
    for t in (0.0, 0.1, 0.2, 0.3, 0.6, 0.7, 0.9, 1 / 3, 2 / 3, 1.0):
        tau = dtype(t)
        for k in range(1, 11):
            ours, theirs = ke.g_pass_at_k_tau(R, k, tau), se.g_pass_at_k_tau(R, k, tau)
            assert close(ours, theirs), (tau, k)
            seen.add(ours != ke.g_pass_at_k_tau(R, k, float(tau)))
            assert np.allclose(ke.g_pass_at_k_tau_ci(R, k, tau), scorio_ci(R, k, tau), rtol=1e-12, atol=1e-12)
            batch = counts.model_scores(R[None], "g_pass_at_k_tau", k, tau=tau)
            assert close(float(batch[0]), theirs), (tau, k)
    if dtype is np.float32:
        assert True in seen  # some tau of this type needs another threshold than its double


def test_geometric_zero_rules() -> None:
    R = np.array([[0, 0, 0, 0], [1, 1, 0, 0]])
    for a, b in [(1.0, 2.0), (0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (2.0, -0.5)]:
        for fn in ("geom_at_k", "geom_ds_at_k"):
            ours = _outcome(getattr(ke, fn), R, 2, a, b)
            theirs = _outcome(getattr(se, fn), R, 2, a, b)
            assert ours[0] == theirs[0] and (
                ours[0] != "ok" and ours[1] == theirs[1] or close(ours[1], theirs[1])
            ), (fn, a, b, ours, theirs)


def _outcome(fn: Callable[..., Any], *args: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args)
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, str(exc)


def test_geo_spectrum_lam_edges() -> None:
    R = EXAMPLE
    assert ke.geo_spectrum_at_k(R, 3, lam=1.0, weights=[5, 5, 5]) == se.geo_spectrum_at_k(
        R, 3, lam=1.0, weights=[5, 5, 5]
    )
    assert close(ke.geo_spectrum_at_k(R, 3, lam=0.0), se.geo_spectrum_at_k(R, 3, lam=0.0))
    assert close(ke.geo_spectrum_at_k(R, 3, lambda_=0.25), se.geo_spectrum_at_k(R, 3, lambda_=0.25))
    assert ke.geo_spectrum_star_at_k(R, 1) == 0.0 == se.geo_spectrum_star_at_k(R, 1)


def test_subnormal_spectrum_weights_round_once() -> None:
    # Found by test_random_banks: a credit of 5e-324 on a 2-of-5 row is
    # 0.4 * 5e-324, which rounds to 0.0 (scorio's value); a dot product rounded
    # onto the subnormal grid before the division gave 5e-324, and the
    # geometric blend turned that into 3.2e-11.
    R = np.array([[False, True, False, False, True]])
    w = np.array([5e-324])
    assert ke.threshold_spectrum_at_k(R, 1, w) == se.threshold_spectrum_at_k(R, 1, w) == 0.0
    assert ke.geo_spectrum_at_k(R, 1, 0.96875, w) == se.geo_spectrum_at_k(R, 1, 0.96875, w) == 0.0


@pytest.mark.parametrize("k", [1, 2, 5, 8, 1024, 1025, 1500])
def test_geo_spectrum_star_default_weights_made_once_per_k(k: int) -> None:
    # The default weights are cached for k <= 1024: the cached array is the
    # formula's, read-only, and the same call twice (and the ci variant)
    # agrees with scorio whichever side of the cache k falls.
    from kscore._inputs import mg_spectrum_weights

    w = mg_spectrum_weights(k)
    want = np.array([2.0 / k if r >= k // 2 + (k % 2) else 0.0 for r in range(k)])
    assert np.array_equal(w, want) and not w.flags.writeable
    with pytest.raises(ValueError):
        w[0] = 1.0
    R = np.random.default_rng(k).random((6, k)) < 0.6
    for _ in range(2):
        assert close(ke.geo_spectrum_star_at_k(R, k), se.geo_spectrum_star_at_k(R, k))
    assert mg_spectrum_weights(k) is mg_spectrum_weights(k) or k > 1024
