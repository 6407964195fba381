"""TailPass (tailpass, tailpass_empirical, TailPassProfile, TailPassDraws,
tailpass_weights) against scorio 0.2.3: reference examples, hand cases,
hypothesis banks (binary and categorical, R0 and priors, custom thresholds),
the same draws for the same seed, the error contract, 50-digit mpmath
references, and the exact threshold assignment where scorio rounds twice.

Tolerances (docs/kernels.md, K15/K16): mu-like values 1e-15 + 1e-12 |b|;
variances rtol_v = 2e-9 with atol_v = 64 (K + 2) eps / M; covariances
1e-11 sqrt(C_ss C_tt) + 64 eps / M^2; Monte Carlo draws 1e-12 relative plus
1e-15 absolute.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath as mp
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scorio import eval as se
from scorio.eval import tailpass_weights as stw

from kscore import eval as ke
from kscore.eval import tailpass_weights as ktw

from .conftest import outcome

EPS = float(np.finfo(float).eps)

# scorio sums a prior of 1e308 with overflow (numpy warns) before it raises.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")


def assert_mu(a: Any, b: Any) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.all(np.abs(a - b) <= 1e-15 + 1e-12 * np.abs(b)), np.max(np.abs(a - b))


def assert_sigma(a: float, b: float, k: int, m: int) -> None:
    va, vb = a * a, b * b
    assert abs(va - vb) <= 2e-9 * vb + 64 * (k + 2) * EPS / m, (a, b)


def assert_cov(a: npt.NDArray[Any], b: npt.NDArray[Any], m: int) -> None:
    scale = np.sqrt(np.outer(np.diag(b), np.diag(b)))
    assert np.all(np.abs(a - b) <= 1e-11 * scale + 64 * EPS / m**2), np.max(np.abs(a - b))


def assert_draws(a: Any, b: Any) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    assert np.all(np.abs(a - b) <= 1e-15 + 1e-12 * np.abs(b)), np.max(np.abs(a - b))


def compare_profiles(kp: Any, sp: Any, m: int) -> None:
    k, t = kp.k, len(kp.thresholds)
    assert kp.question_count == sp.question_count
    assert_mu(kp.thresholds, sp.thresholds)
    assert_mu(kp.mean, sp.mean)
    assert_mu(kp.question_mean, sp.question_mean)
    assert_cov(kp.covariance, sp.covariance, m)
    assert_mu(kp.std, sp.std)
    for name in ("discovery", "stability"):
        (a, s), (b, r) = getattr(kp, name)(), getattr(sp, name)()
        assert_mu(a, b)
        assert_sigma(s, r, k, m)
    for lam in (1.0, 2.0, 4.0, 0.5, 3.0):
        (a, s), (b, r) = kp.moment(lam), sp.moment(lam)
        assert_mu(a, b)
        assert_sigma(s, r, 2 * k, m)
    rng = np.random.default_rng(t)
    for weights in (np.full(t, 1.0 / t), rng.dirichlet(np.ones(t)), np.eye(t)[0], np.eye(t)[-1]):
        (a, s), (b, r) = kp.linear(weights), sp.linear(weights)
        assert_mu(a, b)
        assert_sigma(s, r, 2 * k, m)
    for ka, sa in zip(kp.ci(method="normal"), sp.ci(method="normal"), strict=True):
        assert_mu(ka, sa)
    assert_mu(kp.linear_ci(np.full(t, 1.0 / t), method="normal"), sp.linear_ci(np.full(t, 1.0 / t), method="normal"))
    assert_mu(kp.moment_ci(2.0, 0.9, method="normal"), sp.moment_ci(2.0, 0.9, method="normal"))


def compare_draws(kp: Any, sp: Any, seed: Any, n: int = 200) -> None:
    kd = kp.sample(n, rng=seed if isinstance(seed, int) else np.random.default_rng(seed))
    sd = sp.sample(n, rng=seed if isinstance(seed, int) else np.random.default_rng(seed))
    t = len(kp.thresholds)
    assert_draws(kd.profile, sd.profile)
    weights = np.linspace(1.0, 2.0, t) / np.linspace(1.0, 2.0, t).sum()
    target = np.linspace(0.9, 0.1, t)
    calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
        ("linear", (weights,), {}),
        ("moment", (1.0,), {}), ("moment", (2.0,), {}), ("moment", (4.0,), {}), ("moment", (0.7,), {}),
        ("power_mean", (0.5,), {}), ("power_mean", (1.0,), {}), ("power_mean", (3.0, weights), {}),
        ("power_mean", (0.5,), {"aggregation": "profile"}),
        ("qrs", (), {}), ("qrs", (weights,), {"aggregation": "profile"}),
        ("rollout", (3,), {}), ("harmonic", (), {}), ("harmonic", (0.2,), {}),
        ("discovery", (), {}), ("stability", (), {}),
        ("shortfall", (target,), {}), ("shortfall", (target, weights * 3), {"epsilon": 0.5}),
    ]
    for name, args, kwargs in calls:
        a, b = getattr(kd, name)(*args, **kwargs), getattr(sd, name)(*args, **kwargs)
        assert_draws(a, b)
        assert_draws(kd.summary(a, confidence=0.9), sd.summary(b, confidence=0.9))
    for a, b in zip(kd.summary(), sd.summary(), strict=True):
        assert_draws(a, b)
    assert_draws(kd.at_k(3).profile, sd.at_k(3).profile)


# ---------------------------------------------------------------- examples


def test_reference_example() -> None:
    profile = ke.tailpass([[0, 1, 1], [1, 1, 1]], k=4)
    assert profile.mean.shape == (4,)
    mu, _ = profile.moment(lam=1)
    assert round(mu, 3) == 0.7
    compare_profiles(profile, se.tailpass([[0, 1, 1], [1, 1, 1]], k=4), 2)


def test_layout() -> None:
    assert ke.__all__[-2:] == ["tailpass", "tailpass_empirical"]
    assert set(ke.__all__) == set(se.__all__)
    assert ktw.__all__ == stw.__all__
    assert ke.tailpass_weights is ktw
    profile = ke.tailpass([1, 0, 1], 3)
    assert repr(profile).startswith("TailPassProfile(k=3, thresholds=array(")
    assert repr(profile.sample(2, rng=0)) == "TailPassDraws()"
    assert not profile.mean.flags.writeable and not profile.covariance.flags.writeable
    assert not ke.tailpass_empirical([1, 0, 1], 2).flags.writeable
    with pytest.raises(TypeError):
        ke.tailpass([1, 0], 3, None, None, 1.0)  # type: ignore[call-arg]


# ---------------------------------------------------------------- hand cases

HAND: list[tuple[Any, int, dict[str, Any]]] = [
    ([[0, 1, 1], [1, 1, 1]], 4, {}),
    ([[0, 0, 0, 0]], 3, {}),
    ([[1, 1, 1, 1, 1]], 6, {}),
    ([1, 0], 1, {}),
    ([[0, 1, 0, 1], [1, 1, 0, 1]], 5, {"thresholds": [0.0, 0.3, 0.5, 1.0]}),
    ([[0, 1, 1], [1, 1, 1]], 3, {"prior": [0.5, 2.0]}),
    ([[0, 1, 1], [1, 1, 1]], 3, {"prior": [[0.5, 2.0], [1.0, 3.0]]}),
    ([[0, 1, 1], [1, 0, 1]], 3, {"R0": [[1, 1], [0, 0]], "eta": 0.3}),
    ([[0, 1, 2, 2], [1, 1, 0, 2]], 4, {"w": [0.0, 0.3, 1.0]}),
    ([[0, 1, 2, 3], [3, 3, 0, 2]], 3, {"w": [0.0, 0.5, 0.5, 1.0], "prior": [1, 2, 3, 4]}),
    ([[0, 1, 2], [2, 2, 1]], 3, {"w": [0.4, 0.4, 0.4], "thresholds": [1 / 3, 2 / 3, 1.0]}),
    ([[0, 1, 2], [2, 1, 1]], 2, {"w": [0.2, 0.7, 0.9]}),
    ([[0, 1], [1, 1]], 40, {"w": [0.25, 1.0]}),
]


@pytest.mark.parametrize(("R", "k", "kwargs"), HAND)
def test_hand_cases(R: Any, k: int, kwargs: dict[str, Any]) -> None:
    kp, sp = ke.tailpass(R, k, **kwargs), se.tailpass(R, k, **kwargs)
    compare_profiles(kp, sp, kp.question_count)
    compare_draws(kp, sp, 7)
    compare_draws(kp, sp, [1, 2])  # a Generator, not an int


@pytest.mark.parametrize(("R", "k", "kwargs"), HAND)
def test_empirical_hand_cases(R: Any, k: int, kwargs: dict[str, Any]) -> None:
    kwargs = {key: v for key, v in kwargs.items() if key in ("w", "thresholds")}
    n = np.atleast_2d(np.asarray(R)).shape[1]
    for budget in sorted({1, min(k, n), n}):
        t = kwargs.get("thresholds")
        kw = dict(kwargs)
        if t is None:
            kw.pop("thresholds", None)
        assert_mu(ke.tailpass_empirical(R, budget, **kw), se.tailpass_empirical(R, budget, **kw))


def test_tiny_prior_draws_use_numpys_beta_path() -> None:
    # max(alpha) < 0.1 makes numpy's dirichlet break sticks with beta draws.
    R = [[0, 1], [1, 1], [0, 0]]
    prior = [[0.01, 0.02], [1.0, 1.0], [0.03, 0.04]]
    kp = ke.tailpass(R, 3, prior=prior, eta=0.0)
    sp = se.tailpass(R, 3, prior=prior, eta=0.0)
    # Counts of 1 push alpha above 0.1; use R0 with eta=0 and an all-zero bank row instead.
    compare_draws(kp, sp, 3)
    kp2 = ke.tailpass(np.zeros((2, 1), dtype=int), 2, w=[0.0, 1.0], prior=0.01)
    sp2 = se.tailpass(np.zeros((2, 1), dtype=int), 2, w=[0.0, 1.0], prior=0.01)
    compare_draws(kp2, sp2, 5)


def test_large_draw_sets_are_replayed(monkeypatch: pytest.MonkeyPatch) -> None:
    from kscore.eval._tailpass import profile, stream

    monkeypatch.setattr(profile, "EAGER_DRAW_VALUES", 10)
    monkeypatch.setattr(stream, "BLOCK_VALUES", 100)
    R = np.random.default_rng(3).integers(0, 2, (9, 5))
    kp, sp = ke.tailpass(R, 4), se.tailpass(R, 4)
    kd = kp.sample(50, rng=11)
    assert kd._probabilities is None
    compare_draws(kp, sp, 11, n=50)
    # The caller's generator ends where scorio leaves it.
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    kp.sample(50, rng=g1)
    sp.sample(50, rng=g2)
    assert g1.random() == g2.random()
    R3 = np.random.default_rng(5).integers(0, 3, (4, 3))
    compare_draws(ke.tailpass(R3, 2, [0, 0.5, 1]), se.tailpass(R3, 2, [0, 0.5, 1]), 2, n=50)


@pytest.mark.parametrize("stream_values", [None, 64])
def test_binary_mc_intervals_stream_scorios_draws(monkeypatch: pytest.MonkeyPatch, stream_values: int | None) -> None:
    # Binary ci(method="mc") streams the gamma variates into the core without
    # storing draws (in small runs when STREAM_VALUES is tiny, so the two
    # buffers and the helper thread take turns); the same seed gives scorio's
    # intervals and leaves a Generator where scorio leaves it, tiny-prior
    # questions (numpy's stick-breaking dirichlet) included.
    from kscore.eval._tailpass import stream

    if stream_values is not None:
        monkeypatch.setattr(stream, "STREAM_VALUES", stream_values)
    rng = np.random.default_rng(8)
    R = (rng.random((23, 6)) < rng.random((23, 1))).astype(np.int8)
    prior = np.where(np.arange(23)[:, None] % 5 == 0, 0.02, 1.0) * np.ones((23, 2))
    R0 = np.zeros((23, 0), dtype=np.int8)
    cases = [
        (ke.tailpass(R, 7), se.tailpass(R, 7)),
        (ke.tailpass(R, 5, thresholds=[0.0, 0.5, 1.0]), se.tailpass(R, 5, thresholds=[0.0, 0.5, 1.0])),
        (ke.tailpass(R * 0, 4, R0=R0, prior=prior, eta=0.0), se.tailpass(R * 0, 4, R0=R0, prior=prior, eta=0.0)),
    ]
    for kp, sp in cases:
        for a, b in zip(kp.ci(rng=5, n_draws=300), sp.ci(rng=5, n_draws=300), strict=True):
            assert_draws(a, b)
        for a, b in zip(kp.ci(0.8, rng=6, n_draws=50), kp.sample(50, rng=6).summary(confidence=0.8), strict=True):
            assert_draws(a, b)
        g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
        kp.ci(rng=g1, n_draws=40)
        sp.ci(rng=g2, n_draws=40)
        assert g1.random() == g2.random()


# ---------------------------------------------------------------- hypothesis


@st.composite
def banks(draw: st.DrawFn) -> tuple[Any, int, dict[str, Any]]:
    m = draw(st.integers(1, 6))
    n = draw(st.integers(1, 7))
    categories = draw(st.sampled_from([2, 2, 3, 4]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    R = rng.integers(0, categories, (m, n))
    k = draw(st.integers(1, 6 if categories > 2 else 12))
    kwargs: dict[str, Any] = {}
    if categories > 2 or draw(st.booleans()):
        w = np.sort(rng.choice([0.0, 0.1, 0.3, 0.5, 0.7, 1.0], categories))
        kwargs["w"] = w if categories > 2 or draw(st.booleans()) else np.array([0.0, 1.0])
    if draw(st.booleans()):
        kwargs["R0"] = rng.integers(0, categories, (m, draw(st.integers(0, 3))))
        kwargs["eta"] = draw(st.sampled_from([0.0, 0.5, 1.0]))
    if draw(st.booleans()):
        kwargs["prior"] = draw(st.sampled_from([0.5, 2.0])) if draw(st.booleans()) else rng.uniform(0.2, 3, categories)
    if draw(st.booleans()):
        kwargs["thresholds"] = np.unique(rng.choice([0.0, 0.1, 0.25, 0.3, 0.5, 0.75, 0.9, 1.0], 3))
    return R, k, kwargs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks(), st.integers(0, 2**31))
def test_random_banks(bank: tuple[Any, int, dict[str, Any]], seed: int) -> None:
    R, k, kwargs = bank
    kp, sp = ke.tailpass(R, k, **kwargs), se.tailpass(R, k, **kwargs)
    compare_profiles(kp, sp, kp.question_count)
    compare_draws(kp, sp, seed, n=64)
    kw = {key: v for key, v in kwargs.items() if key in ("w", "thresholds")}
    budget = min(k, R.shape[1])
    assert_mu(ke.tailpass_empirical(R, budget, **kw), se.tailpass_empirical(R, budget, **kw))


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.float32, np.int64])
def test_dtypes(dtype: npt.DTypeLike) -> None:
    R = np.random.default_rng(1).integers(0, 2, (30, 9)).astype(dtype)
    assert_mu(ke.tailpass(R, 5).mean, se.tailpass(R, 5).mean)
    assert_mu(ke.tailpass(R[:, ::2], 5).mean, se.tailpass(R[:, ::2], 5).mean)
    assert_mu(ke.tailpass_empirical(R.T, 4), se.tailpass_empirical(R.T, 4))


def test_large_banks() -> None:
    rng = np.random.default_rng(2)
    R = (rng.random((40, 300)) < rng.random((40, 1))).astype(np.int8)
    for k in (1, 50, 300):
        kp, sp = ke.tailpass(R, k, thresholds=[0.1, 0.5, 0.9, 1.0]), se.tailpass(R, k, thresholds=[0.1, 0.5, 0.9, 1.0])
        compare_profiles(kp, sp, 40)
        assert_mu(ke.tailpass_empirical(R, k), se.tailpass_empirical(R, k))
    kp, sp = ke.tailpass(R, 20000, thresholds=[0.5, 1.0]), se.tailpass(R, 20000, thresholds=[0.5, 1.0])
    for lam in (1.0, 2.0, 4.0):
        (a, s), (b, r) = kp.moment(lam), sp.moment(lam)
        assert_mu(a, b)
        assert_sigma(s, r, 40000, 40)


# ---------------------------------------------------------------- weights


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("uniform_weights", (5,)), ("threshold_weights", (5, 2)), ("discovery_weights", (4,)),
        ("stability_weights", (4,)), ("moment_weights", (7, 0.3)), ("moment_weights", (7, 12.0)),
        ("beta_weights", (30, 0.3, 7.0)), ("beta_weights", (12, 0.8, 0.5)), ("beta_weights", (25, 0.5, 60.0)),
        ("maxent_weights", (20, 0.2)), ("maxent_weights", (20, 0.95)), ("maxent_weights", (20, 0.5)),
        ("maxent_weights", (20, 0.4999999)), ("payoff_weights", ([0.0, 0.2, 0.2, 1.0],)),
    ],
)
def test_weights(name: str, args: tuple[Any, ...]) -> None:
    a, b = getattr(ktw, name)(*args), getattr(stw, name)(*args)
    assert a.shape == b.shape and a.dtype == b.dtype
    assert np.all(np.abs(a - b) <= 1e-10 * np.abs(b) + 1e-16), np.max(np.abs(a - b))


WEIGHT_ERRORS: list[tuple[str, tuple[Any, ...]]] = [
    ("uniform_weights", (0,)), ("uniform_weights", (2.0,)), ("threshold_weights", (3, 0)),
    ("threshold_weights", (3, 1.0)), ("moment_weights", (3, 0.0)), ("moment_weights", (3, True)),
    ("beta_weights", (3, 1.0, 2.0)), ("beta_weights", (3, 0.5, -1.0)), ("beta_weights", (3, 1e-320, 1e-10)),
    ("maxent_weights", (3, 1.5)), ("maxent_weights", (3, float("nan"))), ("payoff_weights", ([0.0],)),
    ("payoff_weights", ([0.1, 1.0],)), ("payoff_weights", ([0.0, 0.6, 0.5, 1.0],)), ("payoff_weights", ([[0.0, 1.0]],)),
    ("payoff_weights", (["a", "b"],)),
]


@pytest.mark.parametrize(("name", "args"), WEIGHT_ERRORS)
def test_weight_errors(name: str, args: tuple[Any, ...]) -> None:
    assert outcome(getattr(ktw, name), *args) == outcome(getattr(stw, name), *args)


# ---------------------------------------------------------------- errors

R_OK = [[0, 1, 1], [1, 1, 0]]

TAILPASS_ERRORS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((R_OK, 0), {}), ((R_OK, 2.0), {}), ((R_OK, True), {}), ((R_OK, 20001), {}),
    ((R_OK, 3), {"thresholds": [0.5, 0.2]}), ((R_OK, 3), {"thresholds": []}), ((R_OK, 3), {"thresholds": [1.5]}),
    ((R_OK, 3), {"thresholds": [[0.5]]}), ((R_OK, 3), {"thresholds": [float("nan")]}),
    ((R_OK, 3), {"thresholds": ["x"]}), ((R_OK, 3), {"thresholds": [1j]}),
    (("bad", 0), {}), ((R_OK, 0), {"thresholds": [2.0]}), (([[0, 2]], 3), {}), (([[0, 2]], 3), {"w": [0, 0.5]}),
    ((R_OK, 3), {"w": [0.0, 1.5]}), ((R_OK, 3), {"w": [-0.1, 1.0], "eta": 2.0}), ((R_OK, 3), {"eta": 1.5}),
    ((R_OK, 3), {"eta": [0.5]}), ((R_OK, 3), {"eta": float("inf")}), ((R_OK, 3), {"prior": 0.0}),
    ((R_OK, 3), {"prior": [1.0, 2.0, 3.0]}), ((R_OK, 3), {"prior": np.ones((2, 2, 1))}),
    ((R_OK, 3), {"prior": float("nan")}), ((R_OK, 3), {"prior": 1e308}), ((R_OK, 3), {"prior": np.ones((2, 1))}),
    ((R_OK, 3, None, [[0], [1, 1]]), {}), ((R_OK, 3, None, [[3], [1]]), {}), ((R_OK, 3), {"eta": True}),
    ((R_OK, 3), {"prior": np.ones((3, 2))}),
]


@pytest.mark.parametrize(("args", "kwargs"), TAILPASS_ERRORS)
def test_tailpass_errors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    a, b = outcome(ke.tailpass, *args, **kwargs), outcome(se.tailpass, *args, **kwargs)
    assert a[0] == b[0]
    if a[0] == "ok":
        assert_mu(a[1].mean, b[1].mean)
    else:
        assert a[1] == b[1]


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((R_OK, 0), {}), ((R_OK, 4), {}), (("x", 4), {}), ((R_OK, 2), {"thresholds": [0.9, 0.1]}),
        ((R_OK, 2), {"w": [0, 2]}), ((R_OK, 4), {"w": [0, 2]}), (([[0, 3]], 1), {"w": [0, 0.5]}),
        ((R_OK, 2.5), {}),
    ],
)
def test_empirical_errors(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    assert outcome(ke.tailpass_empirical, *args, **kwargs) == outcome(se.tailpass_empirical, *args, **kwargs)


METHOD_ERRORS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("linear", ([0.5, 0.5],), {}), ("linear", ([0.5, 0.6, -0.1],), {}), ("linear", ([0.3, 0.3, 0.3],), {}),
    ("moment", (0.0,), {}), ("moment", (True,), {}), ("moment", ("1",), {}), ("at_k", (0,), {}),
    ("at_k", (2,), {"thresholds": [0.5, 0.5]}), ("sample", (1,), {}), ("sample", (2.0,), {}),
    ("ci", (1.5,), {}), ("ci", (0.9,), {"method": "x"}), ("ci", (0.0,), {"method": "x"}),
    ("linear_ci", ([1.0],), {"confidence": 2.0}), ("linear_ci", ([0.2, 0.3, 0.5],), {"confidence": 2.0}),
    ("linear_ci", ([0.2, 0.3, 0.5],), {"method": "bad"}), ("moment_ci", (-1.0,), {"confidence": 2.0}),
    ("moment_ci", (1.0,), {"confidence": 2.0}), ("moment_ci", (1.0,), {"method": "bad"}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), METHOD_ERRORS)
def test_profile_method_errors(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    kp, sp = ke.tailpass(R_OK, 3), se.tailpass(R_OK, 3)
    a, b = outcome(getattr(kp, name), *args, **kwargs), outcome(getattr(sp, name), *args, **kwargs)
    assert a[0] == b[0] and (a[0] == "ok" or a[1] == b[1]), (a, b)


DRAW_ERRORS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("linear", ([1.0],), {}), ("moment", (0,), {}), ("power_mean", (-1.0,), {}),
    ("power_mean", (1.0, [0.5, 0.5]), {}), ("power_mean", (2.0,), {"aggregation": "x"}),
    ("rollout", (1,), {}), ("rollout", (2.0,), {}), ("rollout", (2, [1.0]), {}), ("harmonic", (1.5,), {}),
    ("harmonic", ([0.5],), {}), ("shortfall", ([0.1, 0.5, 0.9],), {}), ("shortfall", ([0.9, 0.5],), {}),
    ("shortfall", ([0.9, 0.5, 0.1], [1.0, 0.0, 1.0]), {}), ("shortfall", ([0.9, 0.5, 0.1],), {"epsilon": 0.0}),
    ("summary", ([1.0, 2.0],), {}), ("summary", (np.ones((4, 2, 2)),), {}), ("summary", (), {"confidence": 1.0}),
    ("summary", (["a"] * 4,), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), DRAW_ERRORS)
def test_draw_method_errors(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    kd, sd = ke.tailpass(R_OK, 3).sample(4, rng=0), se.tailpass(R_OK, 3).sample(4, rng=0)
    a, b = outcome(getattr(kd, name), *args, **kwargs), outcome(getattr(sd, name), *args, **kwargs)
    assert a[0] == b[0] and (a[0] == "ok" or a[1] == b[1]), (a, b)


def test_size_limits() -> None:
    R = [[0, 1, 2]]
    w = [0.0, 0.5, 1.0]
    for fn in (lambda p: p.mean, lambda p: p.linear(np.ones(2) / 2)):
        a = outcome(fn, ke.tailpass(R, 300, w, thresholds=[0.5, 1.0]))
        b = outcome(fn, se.tailpass(R, 300, w, thresholds=[0.5, 1.0]))
        assert a == b and a[0] == "ValueError"
    a = outcome(lambda p: p.mean, ke.tailpass([[0, 1]], 20000, thresholds=[0.5]))
    b = outcome(lambda p: p.mean, se.tailpass([[0, 1]], 20000, thresholds=[0.5]))
    assert a == b and a[0] == "ValueError"


# ---------------------------------------------------------------- accuracy


def mp_beta_binomial_tail(k: int, a: float, b: float, c: int) -> mp.mpf:
    a_, b_ = mp.mpf(a), mp.mpf(b)
    total = mp.mpf(0)
    for j in range(c, k + 1):
        total += mp.binomial(k, j) * mp.beta(a_ + j, b_ + k - j) / mp.beta(a_, b_)
    return total


def test_mean_and_covariance_against_mpmath() -> None:
    mp.mp.dps = 50
    R = np.array([[0] * 40, [1] * 40, [1] * 20 + [0] * 20])
    k, cut = 25, [0.04, 0.48, 1.0]
    kp = ke.tailpass(R, k, thresholds=cut)
    cutoffs = [1, 12, 25]
    mean, cov = kp.mean, kp.covariance
    states = [(1.0, 41.0), (41.0, 1.0), (21.0, 21.0)]
    exact_mean = [sum(mp_beta_binomial_tail(k, a, b, c) for a, b in states) / 3 for c in cutoffs]
    for x, e in zip(mean, exact_mean, strict=True):
        assert abs(x - float(e)) <= 1e-15 * float(e) + 1e-300
    # Covariance: E[e_s e_t] by the two-draw sum, per state.
    for s, cs in enumerate(cutoffs):
        for t, ct in enumerate(cutoffs):
            total = mp.mpf(0)
            for a, b in states:
                joint = mp.mpf(0)
                for x in range(cs, k + 1):
                    px = mp.binomial(k, x) * mp.beta(a + x, b + k - x) / mp.beta(a, b)
                    joint += px * mp_beta_binomial_tail(k, a + x, b + k - x, ct)
                total += joint - mp_beta_binomial_tail(k, a, b, cs) * mp_beta_binomial_tail(k, a, b, ct)
            exact = total / 9
            scale = math.sqrt(float(cov[s, s] * cov[t, t]))
            assert abs(cov[s, t] - float(exact)) <= 1e-12 * scale + 1e-300, (s, t, cov[s, t], exact)
    # The near-certain coordinates keep tiny variances to full relative precision.
    assert cov[0, 0] > 0 and cov[2, 2] > 0


# ---------------------------------------------------------------- exactness (scorio's double rounding)


def exact_score(counts: list[int], scores: list[float], k: int) -> float:
    """The exact rational bank score, rounded once (Fraction -> float is correctly rounded)."""
    return float(sum(Fraction(n) * Fraction(s) for n, s in zip(counts, scores, strict=True)) / k)


def exact_hypergeom_tail(n: int, c: int, k: int, cutoff: int) -> Fraction:
    total = Fraction(math.comb(n, k))
    return sum((Fraction(math.comb(c, j) * math.comb(n - c, k - j)) for j in range(cutoff, k + 1)), Fraction(0)) / total


def test_thresholds_are_assigned_exactly_where_scorio_rounds_twice() -> None:
    # docs/kernels.md, K16: one bank with N = 2060 and c = 1999, k = 2055.
    n, c, k = 2060, 1999, 2055
    R = np.zeros((1, n), dtype=np.int8)
    R[0, :c] = 1
    thresholds = np.arange(1, k + 1) / k
    # Exact: coordinate t is P(X >= t) since fl(j/k) >= fl(t/k) iff j >= t.
    scores = [exact_score([k - j, j], [0.0, 1.0], k) for j in range(k + 1)]
    assert all((scores[j] >= thresholds[t - 1]) == (j >= t) for t in (1998, 1999, 2000) for j in range(1990, 2010))
    ours = ke.tailpass_empirical(R, k)
    exact = float(exact_hypergeom_tail(n, c, k, 1999))
    assert abs(ours[1998] - exact) <= 1e-13 * exact
    assert ours[1998] > 0.0
    # scorio's long-double double rounding drops the bank with exactly 1999
    # successes on x87 platforms; where it does, its coordinate is P(X >= 2000) = 0.
    theirs = se.tailpass_empirical(R, k)
    assert theirs[1998] in (0.0, pytest.approx(exact, rel=1e-12))
    # The posterior profile assigns the same threshold exactly too.
    kp = ke.tailpass(R, k, thresholds=thresholds[1996:2001])
    assert np.all(np.diff(kp._posterior.cutoffs.astype(np.int64)) == 1) and int(kp._posterior.cutoffs[2]) == 1999


def test_categorical_scores_round_once() -> None:
    # w = 0.3 is not dyadic: ties at b(n) = tau are decided by the exact rational.
    w = [0.0, 0.3, 1.0]
    k = 7
    counts = ke.tailpass([[0, 1, 2]], k, w)._posterior.grid[0]
    ours = ke.tailpass([[0, 1, 2]], k, w)._posterior.bank_scores
    for row, b in zip(counts.tolist(), ours, strict=True):
        assert b == exact_score(row, w, k)


def test_covariance_beyond_scorio_limit() -> None:
    rng = np.random.default_rng(0)
    R = (rng.random((3, 4096)) < np.array([[0.2], [0.5], [0.97]])).astype(np.int8)
    kp = ke.tailpass(R, 2048)
    with pytest.raises(ValueError, match="Exact covariance is too large"):
        _ = se.tailpass(R, 2048).covariance
    cov = kp.covariance
    assert cov.shape == (2048, 2048) and np.all(np.isfinite(cov))
    assert np.allclose(cov, cov.T, rtol=0, atol=0)
    assert np.all(np.diag(cov) >= 0)
    # The diagonal agrees with linear() on each threshold's indicator payoff.
    for t in (0, 700, 1023, 2047):
        _, sigma = kp.linear(np.eye(2048)[t])
        assert abs(math.sqrt(cov[t, t]) - sigma) <= 1e-9 * sigma + 1e-150
