"""Parity of the binary Bayesian credible intervals with scorio 0.2.3.

Tolerances (docs/kernels.md, K15): mu ``|a - b| <= 1e-15 + 1e-12 |b|``; the
variance ``|va - vb| <= rtol_v vb + atol_v`` with ``rtol_v = max(2e-9,
1e-15 N)`` and ``atol_v = 64 (K + 2) eps / M`` (K the total Bernstein degree:
k, or 2k where a covariance enters); ``lo``/``hi`` within ``tol_mu + z
tol_sigma``, and an end that scorio clips is clipped here too. Errors must
match in type and message. scorio is slow at large k, so it only sees small
banks here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
import numpy.typing as npt
import pytest
import scorio.eval as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kscore.eval as K

EPS = float(np.finfo(float).eps)
Tuple4 = tuple[float, float, float, float]

REFERENCE = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])

FINITE = [
    "pass_at_k_ci",
    "pass_hat_k_ci",
    "unanimous_at_k_ci",
    "g_pass_at_k_ci",
    "mg_pass_at_k_ci",
    "maj_at_k_ci",
    "auc_at_k_ci",
]
LATENT = ["geom_at_k_ci", "geom_ds_at_k_ci", "geo_spectrum_at_k_ci", "geo_spectrum_star_at_k_ci"]
JOINT = {"geom_at_k_ci", "geom_ds_at_k_ci", "geo_spectrum_at_k_ci", "geo_spectrum_star_at_k_ci"}


def z_of(confidence: float) -> float:
    from kscore import _kscore

    return _kscore.ndtri(0.5 + 0.5 * confidence)


def assert_parity(
    got: Tuple4,
    want: Tuple4,
    *,
    n: int,
    m: int,
    degree: int,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = (0.0, 1.0),
) -> None:
    assert isinstance(got, tuple) and len(got) == 4
    assert all(type(v) is float for v in got)
    mu_a, s_a, lo_a, hi_a = got
    mu_b, s_b, lo_b, hi_b = want
    tol_mu = 1e-15 + 1e-12 * abs(mu_b)
    assert abs(mu_a - mu_b) <= tol_mu, (got, want)
    rtol = max(2e-9, 1e-15 * n)
    atol = 64 * (degree + 2) * EPS / m
    assert abs(s_a**2 - s_b**2) <= rtol * s_b**2 + atol, (got, want)
    tol_end = tol_mu + z_of(confidence) * (rtol * s_b + math.sqrt(atol))
    for a, b, raw in ((lo_a, lo_b, mu_b - z_of(confidence) * s_b), (hi_a, hi_b, mu_b + z_of(confidence) * s_b)):
        assert abs(a - b) <= tol_end, (got, want)
        if bounds is not None and (raw < bounds[0] - tol_end or raw > bounds[1] + tol_end):
            assert a == b, (got, want)  # clipped: both are the bound itself


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - comparing exceptions is the point
        return type(exc).__name__, str(exc)


def same(name: str, *args: Any, n: int, m: int, degree: int, **kwargs: Any) -> None:
    got = outcome(getattr(K, name), *args, **kwargs)
    want = outcome(getattr(S, name), *args, **kwargs)
    assert got[0] == want[0], (name, got, want)
    if got[0] != "ok":
        assert got[1] == want[1], (name, got, want)
        return
    assert_parity(
        got[1],
        want[1],
        n=n,
        m=m,
        degree=degree,
        confidence=kwargs.get("confidence", 0.95),
        bounds=kwargs.get("bounds", (0.0, 1.0)),
    )


# --- API shape --------------------------------------------------------------


def test_aliases_and_exports() -> None:
    assert K.unanimous_at_k_ci is K.pass_hat_k_ci
    ci_names = [n for n in S.__all__ if n.endswith("_ci") and n not in {"bayes_ci", "avg_ci", "max_at_k_ci"}]
    for name in ci_names:
        assert name in K.__all__, name
    order = [n for n in S.__all__ if n in K.__all__]
    assert order == [n for n in K.__all__ if n in S.__all__]


@pytest.mark.parametrize("name", FINITE + LATENT + ["g_pass_at_k_tau_ci", "threshold_spectrum_at_k_ci"])
def test_signatures_match(name: str) -> None:
    import inspect

    def shape(fn: Any) -> list[tuple[str, Any, Any]]:
        return [(p.name, p.kind, p.default) for p in inspect.signature(fn).parameters.values()]

    assert shape(getattr(K, name)) == shape(getattr(S, name)), name


# --- reference examples -----------------------------------------------------


@pytest.mark.parametrize(
    "name,args",
    [
        ("pass_at_k_ci", (1,)),
        ("pass_at_k_ci", (2,)),
        ("pass_hat_k_ci", (1,)),
        ("pass_hat_k_ci", (2,)),
        ("maj_at_k_ci", (2,)),
        ("maj_at_k_ci", (3,)),
        ("geom_at_k_ci", (2,)),
        ("geom_ds_at_k_ci", (2,)),
        ("g_pass_at_k_tau_ci", (2, 0.5)),
        ("mg_pass_at_k_ci", (3,)),
        ("auc_at_k_ci", (3,)),
        ("geo_spectrum_at_k_ci", (3,)),
        ("geo_spectrum_star_at_k_ci", (3,)),
        ("threshold_spectrum_at_k_ci", (3, [0.2, 0.3, 0.5])),
    ],
)
def test_reference_examples(name: str, args: tuple[Any, ...]) -> None:
    same(name, REFERENCE, *args, n=5, m=2, degree=2 * args[0])


def test_documented_values() -> None:
    def rounded(t: Tuple4) -> Tuple4:
        return (round(t[0], 6), round(t[1], 6), round(t[2], 4), round(t[3], 4))

    assert rounded(K.pass_at_k_ci(REFERENCE, 1)) == (0.642857, 0.118451, 0.4107, 0.875)
    assert rounded(K.pass_at_k_ci(REFERENCE, 2)) == (0.839286, 0.097263, 0.6487, 1.0)
    assert rounded(K.pass_hat_k_ci(REFERENCE, 2)) == (0.446429, 0.146167, 0.1599, 0.7329)
    assert rounded(K.maj_at_k_ci(REFERENCE, 3)) == (0.684524, 0.151958, 0.3867, 0.9824)
    assert rounded(K.geom_at_k_ci(REFERENCE, 2)) == (0.610666, 0.133107, 0.3498, 0.8716)
    assert rounded(K.geom_ds_at_k_ci(REFERENCE, 2)) == (0.612112, 0.132755, 0.3519, 0.8723)


def test_exact_identities() -> None:
    for k in (1, 2, 5):
        assert K.g_pass_at_k_ci(REFERENCE, k) == K.pass_hat_k_ci(REFERENCE, k)
    assert K.auc_at_k_ci(REFERENCE, 1) == K.pass_at_k_ci(REFERENCE, 1)
    assert K.auc_at_k_ci(REFERENCE, cast(Any, np.int64(1))) == K.pass_at_k_ci(REFERENCE, 1)
    assert K.mg_pass_at_k_ci(REFERENCE, 1) == (0.0, 0.0, 0.0, 0.0)
    assert K.geo_spectrum_star_at_k_ci(REFERENCE, 1) == (0.0, 0.0, 0.0, 0.0)
    # lam == 1 ignores the weights entirely, even invalid ones.
    assert K.geo_spectrum_at_k_ci(REFERENCE, 3, lam=1.0, weights=[5, 5, 5]) == K.geo_spectrum_at_k_ci(
        REFERENCE, 3, lambda_=1.0
    )


# --- hand cases: c = 0, c = N, k = 1, k = N -----------------------------------


def hand_banks() -> list[npt.NDArray[np.int64]]:
    n = 9
    rows = [np.zeros(n), np.ones(n), np.r_[np.ones(4), np.zeros(5)], np.r_[np.ones(8), np.zeros(1)]]
    return [
        np.array(rows, dtype=np.int64),
        np.zeros((3, n), dtype=np.int64),
        np.ones((2, n), dtype=np.int64),
        np.array([[1]]),
        np.array([[0]]),
    ]


@pytest.mark.parametrize("bank", range(5))
@pytest.mark.parametrize("name", FINITE + ["g_pass_at_k_tau_ci"])
def test_hand_cases_finite(bank: int, name: str) -> None:
    R = hand_banks()[bank]
    m, n = R.shape
    for k in sorted({1, 2, n // 2 + 1, n} & set(range(1, n + 1))):
        extra = (0.4,) if name == "g_pass_at_k_tau_ci" else ()
        for a0, b0 in ((1.0, 1.0), (0.1, 10.0), (10.0, 0.1)):
            same(name, R, k, *extra, n=n, m=m, degree=k, alpha0=a0, beta0=b0)


@pytest.mark.parametrize("bank", range(5))
@pytest.mark.parametrize("name", LATENT + ["threshold_spectrum_at_k_ci"])
def test_hand_cases_latent(bank: int, name: str) -> None:
    R = hand_banks()[bank]
    m, n = R.shape
    for k in sorted({1, 2, n, 3 * n + 1}):
        extra: tuple[Any, ...] = ()
        if name == "threshold_spectrum_at_k_ci":
            w = np.zeros(k)
            w[(k - 1) // 2] = 0.6
            w[-1] = 0.4
            extra = (w,)
        for a0, b0 in ((1.0, 1.0), (0.1, 10.0)):
            same(name, R, k, *extra, n=n, m=m, degree=2 * k, alpha0=a0, beta0=b0)


@pytest.mark.parametrize("weights", ["first", "last", "zero", "middle"])
def test_spectrum_endpoint_weights(weights: str) -> None:
    """Spectra that are really Pass, Unanimous, a constant or a step."""
    R = hand_banks()[0]
    m, n = R.shape
    for k in (1, 3, 12):
        w = np.zeros(k)
        if weights == "first":
            w[0] = 1.0
        elif weights == "last":
            w[-1] = 1.0
        elif weights == "middle":
            w[k // 2] = 1.0
        same("threshold_spectrum_at_k_ci", R, k, w, n=n, m=m, degree=k)
        for lam in (0.0, 0.3, 1.0):
            same("geo_spectrum_at_k_ci", R, k, lam, w, n=n, m=m, degree=2 * k)


def test_geom_powers() -> None:
    R = hand_banks()[0]
    m, n = R.shape
    for a, b in ((1.0, 0.0), (0.0, 1.0), (0.3, 0.9), (2, 1), (-0.5, 1.0), (np.float64(0.25), 0.75), (True, 0.5)):
        for name in ("geom_at_k_ci", "geom_ds_at_k_ci"):
            for k in (1, 4, 20):
                same(name, R, k, a, b, n=n, m=m, degree=2 * k)


# --- random banks -------------------------------------------------------------


@st.composite
def banks(draw: st.DrawFn) -> npt.NDArray[np.int64]:
    m = draw(st.integers(1, 5))
    n = draw(st.integers(1, 10))
    rates = draw(st.lists(st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]), min_size=m, max_size=m))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    return (rng.random((m, n)) < np.array(rates)[:, None]).astype(np.int64)


priors = st.floats(0.1, 10.0)
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(R=banks(), data=st.data(), a0=priors, b0=priors, conf=st.floats(0.5, 0.999))
def test_random_finite(R: npt.NDArray[np.int64], data: st.DataObject, a0: float, b0: float, conf: float) -> None:
    m, n = R.shape
    k = data.draw(st.integers(1, n))
    kw = dict(alpha0=a0, beta0=b0, confidence=conf)
    for name in FINITE:
        same(name, R, k, n=n, m=m, degree=k, **kw)
    tau = data.draw(st.floats(0.0, 1.0) | st.sampled_from([0.0, 0.3, 0.5, 1.0]))
    same("g_pass_at_k_tau_ci", R, k, tau, n=n, m=m, degree=k, **kw)


@SETTINGS
@given(R=banks(), data=st.data(), a0=priors, b0=priors)
def test_random_latent(R: npt.NDArray[np.int64], data: st.DataObject, a0: float, b0: float) -> None:
    m, n = R.shape
    k = data.draw(st.integers(1, 4 * n))
    kw = dict(alpha0=a0, beta0=b0)
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    w = rng.dirichlet(np.ones(k)) * rng.uniform(0.2, 1.0)
    w[rng.random(k) < 0.5] = 0.0
    same("threshold_spectrum_at_k_ci", R, k, w, n=n, m=m, degree=k, **kw)
    same("geo_spectrum_at_k_ci", R, k, n=n, m=m, degree=2 * k, **kw)
    lam = data.draw(st.floats(0.0, 1.0))
    same("geo_spectrum_at_k_ci", R, k, lam, w, n=n, m=m, degree=2 * k, **kw)
    same("geo_spectrum_star_at_k_ci", R, k, n=n, m=m, degree=2 * k, **kw)
    a = data.draw(st.floats(0.0, 1.5))
    same("geom_at_k_ci", R, k, a, 1.0 - a / 2, n=n, m=m, degree=2 * k, **kw)
    same("geom_ds_at_k_ci", R, k, a, 1.0 - a / 2, n=n, m=m, degree=2 * k, **kw)


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_random_wider_banks(data: st.DataObject) -> None:
    """N up to 60 and k up to N: the variance guard and far tails bite."""
    n = data.draw(st.integers(20, 60))
    m = data.draw(st.integers(2, 8))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    R = (rng.random((m, n)) < rng.beta(0.5, 0.5, size=(m, 1))).astype(np.int8)
    k = data.draw(st.integers(1, n))
    for name in ("maj_at_k_ci", "mg_pass_at_k_ci", "auc_at_k_ci", "pass_at_k_ci", "pass_hat_k_ci"):
        same(name, R, k, n=n, m=m, degree=k)
    same("g_pass_at_k_tau_ci", R, k, 0.3, n=n, m=m, degree=k)
    same("geo_spectrum_star_at_k_ci", R, 2 * k, n=n, m=m, degree=4 * k)
    same("geom_at_k_ci", R, 3 * k, n=n, m=m, degree=6 * k)


def test_bounds_and_confidence_variants() -> None:
    R = hand_banks()[0]
    m, n = R.shape
    nan = float("nan")
    all_bounds = ((0.0, 1.0), (0.2, 0.6), (-1.0, 2.0), (0.5, 0.5), (nan, 1.0), [0.1, 0.9], np.array([0.0, 0.7]))
    for bounds in all_bounds:
        for conf in (0.5, 0.9, 0.999999):
            same("maj_at_k_ci", R, 5, n=n, m=m, degree=5, bounds=bounds, confidence=conf)
            same("geom_at_k_ci", R, 5, n=n, m=m, degree=10, bounds=bounds, confidence=conf)
    got = K.pass_at_k_ci(R, 3, bounds=cast(Any, None))
    want = S.pass_at_k_ci(R, 3, bounds=None)
    assert_parity(got, want, n=n, m=m, degree=3, bounds=None)


def test_input_dtypes_and_shapes() -> None:
    R = hand_banks()[0]
    m, n = R.shape
    for arr in (R.astype(bool), R.astype(np.uint8), R.astype(np.float32), R.T.copy().T, R.tolist()):
        same("maj_at_k_ci", arr, 3, n=n, m=m, degree=3)
        same("geom_ds_at_k_ci", arr, 30, n=n, m=m, degree=60)
    same("pass_at_k_ci", [1, 0, 1, 1], 2, n=4, m=1, degree=2)  # 1-D is one question


# --- errors ---------------------------------------------------------------------

BAD_R: list[Any] = [
    [[0, 2]],
    [[0, 1], [1]],
    np.zeros((0, 3)),
    [],
    [[0.5, 1.0]],
    [[np.nan, 1.0]],
    np.zeros((2, 2, 2)),
    [["a", "b"]],
    [[1j, 0]],
    5,
]


@pytest.mark.parametrize("name", FINITE + LATENT + ["g_pass_at_k_tau_ci", "threshold_spectrum_at_k_ci"])
def test_error_contract(name: str) -> None:
    extra: tuple[Any, ...] = ()
    if name == "g_pass_at_k_tau_ci":
        extra = (0.5,)

    def call(lib: Any, R: Any, k: Any, *rest: Any, **kw: Any) -> tuple[str, Any]:
        if name == "threshold_spectrum_at_k_ci":
            w = kw.pop("weights", np.full(k, 1.0 / k) if type(k) is int and 0 < k < 50 else [0.5])
            return outcome(getattr(lib, name), R, k, w, *rest, **kw)
        return outcome(getattr(lib, name), R, k, *extra, *rest, **kw)

    def check(R: Any, k: Any, *rest: Any, **kw: Any) -> None:
        got = call(K, R, k, *rest, **dict(kw))
        want = call(S, R, k, *rest, **dict(kw))
        assert got[0] == want[0], (name, R, k, kw, got, want)
        if got[0] != "ok":
            assert got[1] == want[1], (name, R, k, kw, got, want)

    R = REFERENCE
    for bad in BAD_R:
        check(bad, 2)
        check(bad, 0)  # R or k first, as scorio orders them
    for k in (0, -1, 6, 2.0, "2", None, True, np.bool_(True), np.int8(3), np.uint64(2), 10**30):
        check(R, k)
        check(R, k, alpha0=-1.0)
    for key in ("alpha0", "beta0"):
        for v in (0.0, -1.0, float("nan"), float("inf"), True, "1", None, np.array(1.0), np.float32(2.0), 3):
            check(R, 2, **{key: v})
    check(R, 2, alpha0=0.0, beta0=0.0)
    for conf in (0.0, 1.0, 1.5, float("nan"), -0.1):
        check(R, 2, confidence=conf)
        check(R, 2, confidence=conf, alpha0=-1.0)
    check(R, 2, confidence="x")
    for bounds in ((1.0, 0.0), (0.0,), (0.0, 1.0, 2.0), 0.5, "ab", None, (0.0, float("nan"))):
        check(R, 2, bounds=bounds)
        check(R, 2, bounds=bounds, confidence=2.0)


def test_tau_errors() -> None:
    R = REFERENCE
    for tau in (-0.1, 1.1, float("nan"), "a", None, True, np.float64(0.3), 0):
        got = outcome(K.g_pass_at_k_tau_ci, R, 2, tau)
        want = outcome(S.g_pass_at_k_tau_ci, R, 2, tau)
        assert got[0] == want[0] and (got[0] == "ok" or got[1] == want[1]), (tau, got, want)
    # R is checked before tau, tau before k.
    for args in (([[2]], 2, 5.0), (R, 9, 5.0), (R, 9, 0.5)):
        got = outcome(K.g_pass_at_k_tau_ci, *args)
        want = outcome(S.g_pass_at_k_tau_ci, *args)
        assert got == want or (got[0] == want[0] == "ok"), (args, got, want)


def test_spectrum_and_lambda_errors() -> None:
    R = REFERENCE
    bad_weights = (
        [0.5], [0.5, 0.6, 0.1], [[0.1, 0.2, 0.3]], [-0.1, 0.2, 0.3], [np.nan, 0, 0], [1j, 0, 0], ["a", "b", "c"], None,
        [[0.1], [0.2, 0.3]],
    )
    for w in bad_weights:
        for name, args in (("threshold_spectrum_at_k_ci", (R, 3, w)), ("geo_spectrum_at_k_ci", (R, 3, 0.5, w))):
            got = outcome(getattr(K, name), *args)
            want = outcome(getattr(S, name), *args)
            assert got[0] == want[0], (name, w, got, want)
            if got[0] != "ok":
                assert got[1] == want[1], (name, w, got, want)
    # order: k, then weights, then R (threshold spectrum); lam, k, R, weights (GeoSpectrum)
    cases: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
        ("threshold_spectrum_at_k_ci", ([[2]], 0, [0.5]), {}),
        ("threshold_spectrum_at_k_ci", ([[2]], 2, [0.5]), {}),
        ("threshold_spectrum_at_k_ci", ([[2]], 1, [0.5]), {"alpha0": 0}),
        ("geo_spectrum_at_k_ci", ([[2]], 0), {"lam": 2.0}),
        ("geo_spectrum_at_k_ci", ([[2]], 0), {}),
        ("geo_spectrum_at_k_ci", ([[2]], 2), {"weights": [9, 9]}),
        ("geo_spectrum_at_k_ci", (R, 2), {"weights": [9, 9], "alpha0": 0}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lam": 0.3, "lambda_": 0.2}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lam": 0.5, "lambda_": 0.2}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lambda_": float("nan")}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lam": "x"}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lam": 1.0, "alpha0": 0}),
        ("geo_spectrum_at_k_ci", (R, 2), {"lam": 0.0, "weights": [0.25, 0.5]}),
    ]
    for name, args, kw in cases:
        got = outcome(getattr(K, name), *args, **kw)
        want = outcome(getattr(S, name), *args, **kw)
        assert got[0] == want[0], (name, args, kw, got, want)
        if got[0] != "ok":
            assert got[1] == want[1], (name, args, kw, got, want)


def test_power_errors() -> None:
    R = np.zeros((2, 4), dtype=int)  # Pass and Unanimous posterior means are tiny but non-zero
    for name in ("geom_at_k_ci", "geom_ds_at_k_ci"):
        for a, b in ((0.0, 0.0), (0, 0), ("a", 0.5), (0.5, None), (-1, 0.5), (0.5, -2)):
            for RR in (R, REFERENCE, [[2]]):
                got = outcome(getattr(K, name), RR, 3, a, b)
                want = outcome(getattr(S, name), RR, 3, a, b)
                assert got[0] == want[0], (name, a, b, got, want)
                if got[0] != "ok":
                    assert got[1] == want[1], (name, a, b, got, want)
        # power checks come after the priors
        assert outcome(getattr(K, name), R, 3, 0, 0, alpha0=0) == outcome(getattr(S, name), R, 3, 0, 0, alpha0=0)
    nan_case = K.geom_at_k_ci(REFERENCE, 2, float("nan"))
    assert math.isnan(nan_case[0]) and nan_case[1] == 0.0
    assert math.isnan(nan_case[2]) and math.isnan(nan_case[3])


# --- documented deviation ------------------------------------------------------


def test_subnormal_mean_returns_finite_instead_of_overflow() -> None:
    """scorio 0.2.3 raises OverflowError(34) here (docs/kernels.md, K9, K15): the
    posterior mean of Unanimous@4096 is subnormal, so the delta-method
    gradient squared exceeds DBL_MAX. kscore returns the finite answer."""
    R = np.zeros((1, 4096), dtype=np.int8)
    R[0, :3118] = 1
    for name in ("geom_at_k_ci", "geom_ds_at_k_ci"):
        with pytest.raises(OverflowError):
            getattr(S, name)(R, 4096)
        mu, sigma, lo, hi = getattr(K, name)(R, 4096)
        assert all(math.isfinite(v) for v in (mu, sigma, lo, hi))
        assert 0.0 < mu < 1e-150 and 0.0 <= sigma < 1e-150
        assert lo <= mu <= hi


# --- determinism -----------------------------------------------------------------


def test_results_do_not_depend_on_thread_count() -> None:
    """Per-state work is independent and every reduction runs in a fixed
    order, so one thread and many give bit-identical tuples."""
    import subprocess
    import sys

    script = (
        "import numpy as np, kscore.eval as K\n"
        "rng = np.random.default_rng(3)\n"
        "R = (rng.random((300, 200)) < rng.beta(0.6, 0.6, size=(300, 1))).astype(np.int8)\n"
        "out = [K.maj_at_k_ci(R, 101), K.mg_pass_at_k_ci(R, 120), K.auc_at_k_ci(R, 150),\n"
        "       K.g_pass_at_k_tau_ci(R, 200, 0.3), K.geo_spectrum_at_k_ci(R, 500),\n"
        "       K.geom_at_k_ci(R, 700), K.threshold_spectrum_at_k_ci(R, 300, np.full(300, 1 / 300))]\n"
        "print(repr([tuple(float(v).hex() for v in t) for t in out]))\n"
    )
    import os

    runs = []
    for threads in ("1", "2", "7"):
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        res = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        runs.append(res.stdout)
    assert runs[0] == runs[1] == runs[2]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scorio's own overflow warnings
@pytest.mark.parametrize(
    "a0,b0", [(1e-320, 1.0), (1.0, 1e-320), (1e-320, 1e-320), (1e308, 1.0), (1e308, 1e308), (1e-10, 1e10)]
)
def test_extreme_priors(a0: float, b0: float) -> None:
    """Subnormal and huge priors: finite, and within the parity tolerance
    (scorio itself returns roundoff-level sigma on guarded paths there)."""
    R = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1], [0, 0, 0, 0, 0], [1, 1, 1, 1, 1]])
    m, n = R.shape
    kw = dict(alpha0=a0, beta0=b0)
    for name in ("pass_at_k_ci", "pass_hat_k_ci", "maj_at_k_ci", "mg_pass_at_k_ci", "auc_at_k_ci"):
        same(name, R, 4, n=n, m=m, degree=4, **kw)
    for name in ("geom_at_k_ci", "geom_ds_at_k_ci", "geo_spectrum_at_k_ci"):
        same(name, R, 9, n=n, m=m, degree=18, **kw)
    same("threshold_spectrum_at_k_ci", R, 6, [0, 0.5, 0, 0.5, 0, 0], n=n, m=m, degree=6, **kw)
