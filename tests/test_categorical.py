"""The categorical family (bayes, bayes_ci, avg, avg_ci, max_at_k, max_at_k_ci)
against scorio 0.2.3: reference examples, hand cases, random banks of every
dtype and layout (hypothesis), the full error contract with its validation
order, and 50-digit mpmath references.

Tolerances (docs/kernels.md, K15): mu-like values |a - b| <= 1e-15 + 1e-12 |b|;
sigma through the variance, |va - vb| <= rtol_v vb + atol_v with
rtol_v = max(2e-9, 1e-15 N) and atol_v = 64 (K + 2) eps / M (in reward
units squared); interval ends within tol_mu + z tol_sigma, and equal exactly
when both are clipped.
"""

from __future__ import annotations

import doctest
import inspect
import math
from collections.abc import Callable
from typing import Any

import mpmath as mp
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scorio import eval as se

from kscore import eval as ke

EPS = float(np.finfo(float).eps)
Z95 = 1.959963984540054

# scorio's own reductions overflow on rewards near 1e308 (numpy warns).
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")

DTYPES: list[npt.DTypeLike] = [
    np.bool_, np.int8, np.int16, np.int32, np.int64,
    np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64,
]

EXAMPLE_B = np.array([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]])
EXAMPLE_C = np.array([[0, 1, 2, 2, 1], [1, 1, 0, 2, 2]])
EXAMPLE_W = np.array([0.0, 0.5, 1.0])
EXAMPLE_R0 = np.array([[0, 2], [1, 2]])


# --------------------------------------------------------------------------
# comparison helpers


def reward_scale(w: Any) -> float:
    """The reward unit: sigma and its tolerance scale with it."""
    arr = np.abs(np.asarray([0.0, 1.0] if w is None else w, dtype=np.float64))
    return float(np.max(arr)) or 1.0


def mu_ok(a: float, b: float, scale: float = 1.0) -> bool:
    """The mu rule of docs/kernels.md, K15, its absolute part in reward units (results are
    offset + scale * x, so a cancellation to ~0 leaves ~eps * scale)."""
    return abs(a - b) <= 1e-15 * max(1.0, scale) + 1e-12 * abs(b)


def sigma_tol(b: float, n: int, degree: int, m: int, scale: float) -> float:
    """Allowed |sigma_a - sigma_b| from the variance rule of K15 (docs/kernels.md)."""
    rtol_v = max(2e-9, 1e-15 * n)
    atol_v = 64.0 * (degree + 2) * EPS / m * scale * scale
    vb = b * b
    dv = rtol_v * vb + atol_v
    # |sa - sb| = |va - vb| / (sa + sb) <= dv / sb, and <= sqrt(dv) always.
    return min(math.sqrt(dv), dv / b if b > 0 else math.inf)


def check_pair(ours: Any, theirs: Any, *, n: int, m: int, degree: int = 0, scale: float = 1.0) -> None:
    """(mu, sigma) pairs."""
    assert type(ours) is tuple and len(ours) == 2
    assert all(type(x) is float for x in ours)
    mu_a, s_a = ours
    mu_b, s_b = theirs
    assert mu_ok(mu_a, mu_b, scale) or mu_a == mu_b, (ours, theirs)
    assert abs(s_a - s_b) <= sigma_tol(s_b, n, degree, m, scale), (ours, theirs)


def check_ci(
    ours: Any, theirs: Any, *, n: int, m: int, degree: int = 0, scale: float = 1.0, z: float = Z95,
    bounds: tuple[float, float] | None = None,
) -> None:
    """(mu, sigma, lo, hi) tuples."""
    assert type(ours) is tuple and len(ours) == 4
    assert all(type(x) is float for x in ours)
    check_pair(ours[:2], theirs[:2], n=n, m=m, degree=degree, scale=scale)
    tol = 1e-15 * max(1.0, scale) + 1e-12 * abs(theirs[0]) + z * sigma_tol(theirs[1], n, degree, m, scale)
    ends = () if bounds is None else bounds
    for a, b in zip(ours[2:], theirs[2:]):
        if a in ends and b in ends:
            assert a == b, (ours, theirs)
        else:
            assert abs(a - b) <= tol + 1e-12 * abs(b), (ours, theirs)


def outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, Any]:
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - comparing exceptions is the point
        return type(exc).__name__, str(exc)


def same_error(name: str, *args: Any, **kwargs: Any) -> None:
    """kscore and scorio both raise, with the same type and message."""
    ours = outcome(getattr(ke, name), *args, **kwargs)
    theirs = outcome(getattr(se, name), *args, **kwargs)
    assert theirs[0] != "ok", f"scorio accepted {name}{args!r} {kwargs!r}"
    assert ours == theirs, (name, args, kwargs)


def compare_all(
    R: Any, w: Any = None, R0: Any = None, ks: tuple[int, ...] = (1, 2), bounds: Any = None
) -> None:
    """Every categorical function on one bank."""
    arr = np.asarray(R)
    m, n = (1, arr.shape[0]) if arr.ndim == 1 else arr.shape
    scale = reward_scale(w)
    check_pair(ke.bayes(R, w, R0), se.bayes(R, w, R0), n=n, m=m, scale=scale)
    check_ci(ke.bayes_ci(R, w, R0, bounds=bounds), se.bayes_ci(R, w, R0, bounds=bounds),
             n=n, m=m, scale=scale, bounds=bounds)
    check_pair(ke.avg(R, w), se.avg(R, w), n=n, m=m, scale=scale)
    check_ci(ke.avg_ci(R, w, 0.9, bounds), se.avg_ci(R, w, 0.9, bounds), n=n, m=m, scale=scale,
             z=1.6448536269514722, bounds=bounds)
    for k in ks:
        if k <= n:
            ours = ke.max_at_k(R, k, w)
            assert type(ours) is float
            assert mu_ok(ours, se.max_at_k(R, k, w), scale), (k, ours, se.max_at_k(R, k, w))
        theirs = se.max_at_k_ci(R, k, w, R0, bounds=bounds)
        ours_ci = ke.max_at_k_ci(R, k, w, R0, bounds=bounds)
        if not math.isfinite(theirs[0]):
            # scorio's plain mean of row means near 1e308 overflows; ours is
            # taken in normalised units and stays finite (a deliberate fix).
            assert all(math.isfinite(x) for x in ours_ci)
            assert abs(ours_ci[1] - theirs[1]) <= sigma_tol(theirs[1], n, 2 * k, m, scale)
            continue
        eff = bounds
        if bounds is None and k >= 2:
            ww = np.asarray([0.0, 1.0] if w is None else w, dtype=np.float64)
            eff = (float(np.min(ww)), float(np.max(ww)))
        check_ci(ours_ci, theirs, n=n, m=m, degree=2 * k, scale=scale, bounds=eff)


# --------------------------------------------------------------------------
# reference examples


@pytest.mark.thread_unsafe(reason="doctest patches linecache and redirects stdout")
@pytest.mark.parametrize("module", ["_bayes", "_max"])
def test_docstring_examples(module: str) -> None:
    """The examples in our docstrings are scorio's reference values."""
    mod = __import__(f"kscore.eval.{module}", fromlist=["_"])
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


REFERENCE: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("bayes", (EXAMPLE_C, EXAMPLE_W, EXAMPLE_R0), {}),
    ("bayes", (EXAMPLE_C, EXAMPLE_W), {}),
    ("bayes_ci", (EXAMPLE_B,), {"bounds": (0.0, 1.0)}),
    ("avg", (EXAMPLE_B,), {}),
    ("avg", (EXAMPLE_C, EXAMPLE_W), {}),
    ("avg_ci", (EXAMPLE_B,), {"bounds": (0.0, 1.0)}),
    ("avg_ci", (EXAMPLE_C, EXAMPLE_W), {"confidence": 0.95}),
    ("max_at_k", (EXAMPLE_B, 2), {}),
    ("max_at_k", (EXAMPLE_C, 2), {"w": EXAMPLE_W}),
    ("max_at_k_ci", (EXAMPLE_B, 2), {}),
    ("max_at_k_ci", (EXAMPLE_C, 2), {"w": EXAMPLE_W}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), REFERENCE)
def test_reference_examples(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    ours = getattr(ke, name)(*args, **kwargs)
    theirs = getattr(se, name)(*args, **kwargs)
    assert type(ours) is type(theirs)
    if isinstance(theirs, float):
        assert mu_ok(ours, theirs)
    else:
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert abs(a - b) <= 1e-15 + 1e-12 * abs(b), (ours, theirs)


def test_public_names_and_order() -> None:
    """Our names keep scorio's order, with the same parameters and defaults."""
    ours = [n for n in ke.__all__ if n in se.__all__]
    assert [n for n in se.__all__ if n in ours] == ours
    for name in ("bayes", "bayes_ci", "avg", "avg_ci", "max_at_k", "max_at_k_ci"):
        assert name in ke.__all__
        ours_p = inspect.signature(getattr(ke, name)).parameters
        theirs_p = inspect.signature(getattr(se, name)).parameters
        assert list(ours_p) == list(theirs_p)
        assert [p.default for p in ours_p.values()] == [p.default for p in theirs_p.values()]
        assert [p.kind for p in ours_p.values()] == [p.kind for p in theirs_p.values()]


# --------------------------------------------------------------------------
# hand cases


def test_extreme_rows_and_budgets() -> None:
    """c = 0 and c = N rows, k = 1 and k = N, latent k far above N."""
    R = np.array([[0] * 6, [1] * 6, [0, 1, 0, 1, 1, 0]])
    compare_all(R, ks=(1, 2, 5, 6, 7, 50))
    compare_all(np.zeros((3, 6), dtype=np.int8), ks=(1, 6, 100))
    compare_all(np.ones((3, 6), dtype=bool), ks=(1, 6, 100))
    Rc = np.array([[2] * 7, [0] * 7, [1, 2, 0, 0, 2, 1, 1]])
    compare_all(Rc, [0.1, -0.4, 2.5], ks=(1, 2, 6, 7, 1000))


def test_k_equal_one_is_bayes_ci_without_clipping() -> None:
    """max_at_k_ci(k=1) delegates to bayes_ci, so bounds=None does not clip
    (docs/kernels.md, K13)."""
    R = np.ones((1, 5))
    ours = ke.max_at_k_ci(R, 1)
    assert ours == ke.bayes_ci(R)
    assert ours[3] > 1.0
    assert ke.max_at_k_ci(R, 2)[3] == 1.0
    check_ci(ours, se.max_at_k_ci(R, 1), n=5, m=1)


@pytest.mark.parametrize("w", [[0.7], [0.3, 0.3], [2.0, 2.0, 2.0], [-5.0, -5.0]])
def test_constant_rewards(w: list[float]) -> None:
    R = np.zeros((3, 4), dtype=np.int64)
    R[1, 1] = len(w) - 1
    compare_all(R, w, ks=(1, 2, 4, 9))
    assert ke.bayes(R, w) == (w[0], 0.0)
    assert ke.avg(R, w) == (w[0], 0.0)
    assert ke.max_at_k(R, 3, w) == w[0]
    assert ke.max_at_k_ci(R, 3, w) == (w[0], 0.0, w[0], w[0])


@pytest.mark.parametrize(
    "w",
    [
        [-1e308, 1e308],
        [1e308, -1e308, 0.0],
        [-1.0, -3.0, -2.0],
        [1e300, 1e-300, 5.0],
        [0.3, 0.1, 0.3, -0.2],
        [True, False, True],
        np.array([1, 5, 2], dtype=np.int8),
    ],
)
def test_negative_and_huge_rewards(w: Any) -> None:
    rng = np.random.default_rng(7)
    R = rng.integers(0, len(w), size=(9, 11))
    R0 = rng.integers(0, len(w), size=(9, 3))
    compare_all(R, w, ks=(1, 2, 3, 11, 40))
    compare_all(R, w, R0, ks=(2, 5))
    ours = ke.bayes(R, w)
    assert all(math.isfinite(x) for x in ours)


def test_huge_rewards_mean_stays_finite() -> None:
    """Deviation: scorio's max_at_k_ci returns mu = inf here (its np.mean of
    row means near 1e308 overflows); kscore averages in normalised units."""
    R = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 1]])
    w = [-1e308, 1e308]
    theirs = se.max_at_k_ci(R, 2, w)
    assert theirs[0] == math.inf
    mu, sigma, lo, hi = ke.max_at_k_ci(R, 2, w)
    normalised = ke.max_at_k_ci(R, 2, [-1.0, 1.0])
    assert mu_ok(mu, normalised[0] * 1e308)
    assert abs(sigma / 1e308 - normalised[1]) <= 1e-15
    assert hi == 1e308 and lo == mu - Z95 * sigma


def test_prior_forms() -> None:
    """R0 absent, 2-D, 1-D (split into M rows), empty 1-D and (M, 0)."""
    R = np.array([[0, 1, 2, 2], [2, 2, 1, 0], [1, 1, 1, 1]])
    w = [0.0, 0.25, 1.0]
    priors: list[Any] = [None, np.array([[0, 2], [1, 1], [2, 0]]), np.array([0, 2, 1, 1, 2, 0]),
                         np.array([2, 1, 0]), [], np.zeros((3, 0)), np.array([[1.0], [0.0], [2.0]])]
    for R0 in priors:
        compare_all(R, w, R0, ks=(1, 2, 7))
    # 1-D R0 is split row-major into M equal chunks.
    assert ke.bayes(R, w, np.array([0, 2, 1, 1, 2, 0])) == ke.bayes(R, w, [[0, 2], [1, 1], [2, 0]])


def test_one_dimensional_r_is_one_question() -> None:
    compare_all(np.array([0, 1, 1, 0, 1]), ks=(1, 2, 5, 9))
    compare_all([2, 0, 1, 1], [0.0, 1.0, 0.5], R0=[1, 2], ks=(1, 3, 4))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", ["C", "F", "strided", "reversed"])
def test_dtypes_and_layouts(dtype: npt.DTypeLike, layout: str) -> None:
    rng = np.random.default_rng(11)
    cats = 2 if np.dtype(dtype) == np.bool_ else 4
    base = rng.integers(0, cats, size=(13, 17)).astype(dtype)
    prior = rng.integers(0, cats, size=(13, 3)).astype(dtype)
    if layout == "C":
        R, R0 = base, prior
    elif layout == "F":
        R, R0 = np.asfortranarray(base), np.asfortranarray(prior)
    elif layout == "strided":
        R, R0 = np.repeat(np.repeat(base, 2, 0), 3, 1)[::2, ::3], np.repeat(prior, 2, 1)[:, ::2]
    else:
        R, R0 = base[::-1, ::-1], prior[::-1]
    assert np.array_equal(R, base[::-1, ::-1] if layout == "reversed" else base)
    w = None if cats == 2 else [0.0, 0.4, 0.1, 1.0]
    compare_all(R, w, R0, ks=(1, 2, 17, 30))


def test_rare_dtypes() -> None:
    R = np.array([[0, 1, 2], [2, 2, 1]])
    w = [0.0, 0.6, 1.0]
    for arr in (R.astype(np.float16), R.astype(np.longdouble), R.astype(">i4"), R.astype("<u2")):
        compare_all(arr, w, arr[:, :1], ks=(1, 2))


def test_timedelta_is_read_as_int64() -> None:
    """scorio's categorical path casts timedelta64 entries to int64."""
    R = np.array([[0, 1, 2], [2, 2, 1]], dtype="m8[s]")
    compare_all(R, [0.0, 0.6, 1.0], R[:, :1], ks=(1, 2))
    same_error("bayes", np.array([[0, 1, 5]], dtype="m8[s]"))
    same_error("avg", np.array([[0, 1, 5]], dtype="m8[s]"))


# --------------------------------------------------------------------------
# random banks


@st.composite
def banks(draw: st.DrawFn) -> tuple[Any, Any, Any, int]:
    m = draw(st.integers(1, 200))
    n = draw(st.integers(1, 300))
    cats = draw(st.integers(1, 5))
    use_w = cats != 2 or draw(st.booleans())
    dtype = np.dtype(draw(st.sampled_from(DTYPES)))
    if dtype == np.bool_ and cats > 2:
        dtype = np.dtype(np.int16)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    # Skewed category probabilities give near-certain rows as well.
    p = rng.dirichlet(np.full(cats, draw(st.sampled_from([0.2, 1.0, 5.0]))))
    R = rng.choice(cats, size=(m, n), p=p).astype(dtype)
    layout = draw(st.sampled_from(["C", "F", "strided"]))
    if layout == "F":
        R = np.asfortranarray(R)
    elif layout == "strided":
        R = np.repeat(R, 2, axis=1)[:, ::2]
    w: Any = None
    if use_w:
        pool = [0.0, 1.0, 0.5, -0.25, 3.0, 1e-3, -7.5]
        w = [draw(st.sampled_from(pool)) for _ in range(cats)]
    R0: Any = None
    form = draw(st.sampled_from(["none", "2d", "1d"]))
    if form != "none":
        d = draw(st.integers(0, 12))
        R0 = rng.integers(0, cats, size=(m, d)).astype(dtype)
        if form == "1d":
            R0 = R0.ravel()
    k = draw(st.integers(1, 2 * n + 2))
    return R, w, R0, k


@pytest.mark.parametrize(
    ("m", "n", "w", "with_r0"),
    [
        (1200, 6, [0.0, 0.3, 0.6, 1.0], False),  # 3 levels: C(9, 3) = 84 joint slots
        (1500, 5, [0.5, -1.0, 0.5, 2.0, 0.1], True),  # ties, out of order, a prior
        (900, 9, [0.0, 1.0, 0.25], True),
        (700, 7, [1.0, 0.0], False),  # one level below the top
    ],
)
def test_max_at_k_ci_on_banks_counted_jointly(m: int, n: int, w: list[float], with_r0: bool) -> None:
    """Banks with at least 8 rows per slot of the joint table of the rows'
    cumulative level counts: the posterior's level and pair tables are its
    marginals (docs/kernels.md, K13). Same numbers as scorio, with and
    without R0, on the one-call and the validating path (R0 takes the
    latter)."""
    rng = np.random.default_rng(m + n)
    c = len(w)
    # Skewed rows, so that some cumulative vectors repeat and some are rare.
    p = rng.dirichlet(np.ones(c), size=m)
    R = np.array([rng.choice(c, size=n, p=row) for row in p], dtype=np.int64)
    R0 = rng.integers(0, c, size=(m, 2)) if with_r0 else None
    for k in (2, 5, 40):
        check_ci(ke.max_at_k_ci(R, k, w, R0), se.max_at_k_ci(R, k, w, R0), n=n, m=m, degree=2 * k,
                 scale=reward_scale(w), bounds=(min(w), max(w)))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banks())
def test_random_banks(bank: tuple[Any, Any, Any, int]) -> None:
    R, w, R0, k = bank
    m, n = R.shape
    scale = reward_scale(w)
    check_pair(ke.bayes(R, w, R0), se.bayes(R, w, R0), n=n, m=m, scale=scale)
    check_ci(ke.bayes_ci(R, w, R0, 0.8, (0.1, 0.9)), se.bayes_ci(R, w, R0, 0.8, (0.1, 0.9)),
             n=n, m=m, scale=scale, z=1.2815515655446004, bounds=(0.1, 0.9))
    check_pair(ke.avg(R, w), se.avg(R, w), n=n, m=m, scale=scale)
    kf = min(k, n)
    assert mu_ok(ke.max_at_k(R, kf, w), se.max_at_k(R, kf, w), scale)
    kl = min(k, 60)  # scorio's latent path is a Python loop: keep it quick
    ww = np.asarray([0.0, 1.0] if w is None else w, dtype=float)
    eff = None if kl == 1 else (float(ww.min()), float(ww.max()))
    check_ci(ke.max_at_k_ci(R, kl, w, R0), se.max_at_k_ci(R, kl, w, R0), n=n, m=m,
             degree=2 * kl, scale=scale, bounds=eff)


# --------------------------------------------------------------------------
# error contract


BAD_R: list[Any] = [
    None, 5, [], [[]], np.zeros((0, 3)), np.zeros((0, 0)), np.zeros((2, 3, 4)),
    [[1, 0], [1]], [[1 + 0j, 0]], [["a", "b"]], np.array([[1, 0]], dtype=object),
    [[0.5, 1.0]], [[np.nan, 1.0]], [[np.inf, 0.0]], [[1e19, 0.0]],
    np.array([[2**63, 0]], dtype=np.uint64), np.array([[0.5, np.nan]]), np.array([[3, 0.5]]),
    np.array([[np.nan, 1e19]], dtype=np.float32), np.array([[1e19, 0.5]], dtype=np.float32),
]


@pytest.mark.parametrize("R", BAD_R, ids=range(len(BAD_R)))
@pytest.mark.parametrize("name", ["bayes", "bayes_ci", "avg", "avg_ci"])
def test_bad_r(name: str, R: Any) -> None:
    same_error(name, R)
    same_error(name, R, [0.0, 1.0, 2.0])


@pytest.mark.parametrize("R", BAD_R, ids=range(len(BAD_R)))
def test_bad_r_max(R: Any) -> None:
    same_error("max_at_k", R, 1)
    same_error("max_at_k", R, 0)  # the bank is checked before k
    same_error("max_at_k_ci", R, 2)
    same_error("max_at_k_ci", R, 1)


NOT_BINARY: list[Any] = [
    [[2, 0]], [[-1, 0, 1]], np.array([[2, 0]], dtype=np.uint8), np.array([[-128, 1]], dtype=np.int8),
    [[3.0, -2.0, 0.0]], np.array([[7, 7]], dtype=np.uint64),
]


@pytest.mark.parametrize("R", NOT_BINARY, ids=range(len(NOT_BINARY)))
@pytest.mark.parametrize("name", ["bayes", "bayes_ci", "avg", "avg_ci", "max_at_k", "max_at_k_ci"])
def test_not_binary_without_w(name: str, R: Any) -> None:
    args: tuple[Any, ...] = (R, 2) if name.startswith("max") else (R,)
    same_error(name, *args)
    if name.startswith("max"):
        same_error(name, R, 1)


BAD_W: list[Any] = [
    [[0.0, 1.0], [1.0]], [[0.0, 1.0]], 0.5, [], np.zeros((0,)), [1j, 0.0], ["a", "b"],
    np.array([0.0, None], dtype=object), [np.nan, 1.0], [np.inf, 0.0],
    np.array([1e400, 0.0], dtype=np.longdouble) if np.finfo(np.longdouble).max > 1e400 else [np.inf],
    np.array(["2020-01-01"], dtype="datetime64[D]"),
]


@pytest.mark.parametrize("w", BAD_W, ids=range(len(BAD_W)))
def test_bad_w(w: Any) -> None:
    R = [[0, 1], [1, 1]]
    for name in ("bayes", "bayes_ci", "avg", "avg_ci"):
        same_error(name, R, w)
    same_error("max_at_k", R, 2, w)
    same_error("max_at_k_ci", R, 2, w)
    same_error("max_at_k_ci", R, 1, w)
    # R's value errors win over w; w's errors win over R's range.
    same_error("bayes", [[np.nan, 1.0]], w)
    same_error("bayes", [[9, 1]], w)
    same_error("avg", [[0.5, 1.0]], w)
    same_error("max_at_k", [[-1, 1]], 2, w)


BAD_R0: list[Any] = [
    [[0, 1], [1]], [1, 0, 1], np.zeros((2, 2, 2)), 3, [[0, 1]], np.zeros((3, 1)), [[1j], [0]],
    [["a"], ["b"]], np.array([[1], [0]], dtype=object), [[np.nan], [0.0]], [[0.5], [1.0]],
    [[1e19], [0.0]], np.array([[2**63], [0]], dtype=np.uint64), [[5], [0]], [[-1], [0]],
    np.array([5, 0]), np.zeros((0, 2)),
]


@pytest.mark.parametrize("R0", BAD_R0, ids=range(len(BAD_R0)))
def test_bad_r0(R0: Any) -> None:
    R = [[0, 1, 2], [2, 1, 0]]
    w = [0.0, 0.5, 1.0]
    for name in ("bayes", "bayes_ci"):
        same_error(name, R, w, R0)
        same_error(name, [[0, 1, 0], [1, 1, 0]], None, R0)
    same_error("max_at_k_ci", R, 3, w, R0)
    same_error("max_at_k_ci", R, 1, w, R0)
    # Order: R values < w < R0 shape/values < R range < R0 range.
    same_error("bayes", [[0, 1, np.inf], [0, 0, 0]], w, R0)
    same_error("bayes", R, [[1.0]], R0)
    same_error("bayes", [[0, 1, 7], [0, 0, 0]], w, R0)
    same_error("bayes", [[0, 1, 2], [0, 3, 0]], None, R0)  # not binary wins
    same_error("max_at_k_ci", [[0, 1, 9], [0, 0, 0]], 2, w, R0)


def test_range_errors_and_their_order() -> None:
    R = [[0, 1, 3], [2, 1, 0]]
    w = [0.0, 0.5, 1.0]
    for name in ("bayes", "bayes_ci", "avg", "avg_ci"):
        same_error(name, R, w)
        same_error(name, [[0, 1]], [1.0])
    same_error("max_at_k", R, 2, w)
    same_error("max_at_k", R, 9, w)  # range before k
    same_error("max_at_k_ci", R, 2, w)
    same_error("bayes", R, w, [[4], [0]])  # both out of range: R wins
    same_error("bayes", [[0, 1, 2], [2, 1, 0]], w, [[4], [-2]])
    same_error("bayes", [[0, 1, 2], [2, 1, 0]], w, np.array([[3], [0]], dtype=np.uint8))
    same_error("max_at_k_ci", [[0, 1, 2], [2, 1, 0]], 3, w, [[0, 4], [0, 0]])


BAD_K: list[Any] = [0, -1, 2.0, "2", None, True, np.bool_(True), np.float64(2.0)]


@pytest.mark.parametrize("k", BAD_K + [6, 99], ids=range(len(BAD_K) + 2))
def test_bad_k(k: Any) -> None:
    R = [[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]
    same_error("max_at_k", R, k)
    same_error("max_at_k", R, k, [0.0, 1.0])


@pytest.mark.parametrize("k", BAD_K, ids=range(len(BAD_K)))
def test_bad_latent_k(k: Any) -> None:
    same_error("max_at_k_ci", [[0, 1]], k)
    same_error("max_at_k_ci", [[np.nan, 1]], k)  # k is checked before the bank


def test_integer_k_types() -> None:
    R = [[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]]
    budgets: list[Any] = [np.int8(2), np.uint64(3), np.int64(5)]
    for k in budgets:
        assert mu_ok(ke.max_at_k(R, k), se.max_at_k(R, k))
        check_ci(ke.max_at_k_ci(R, k), se.max_at_k_ci(R, k), n=5, m=2, degree=10, bounds=(0.0, 1.0))


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.1, float("nan")])
def test_bad_confidence(confidence: float) -> None:
    R = [[0, 1, 1], [1, 0, 0]]
    same_error("bayes_ci", R, None, None, confidence)
    same_error("avg_ci", R, None, confidence)
    same_error("max_at_k_ci", R, 2, None, None, confidence)
    same_error("max_at_k_ci", R, 1, None, None, confidence)
    same_error("bayes_ci", [[0, 2]], None, None, confidence)  # the bank wins
    same_error("max_at_k_ci", [[0, 2]], 2, None, None, confidence)


@pytest.mark.parametrize("bounds", [(1.0, 0.0), (0.0,), (0.0, 0.5, 1.0), 5.0])
def test_bad_bounds(bounds: Any) -> None:
    R = [[0, 1, 1], [1, 0, 0]]
    same_error("bayes_ci", R, bounds=bounds)
    same_error("avg_ci", R, bounds=bounds)
    same_error("max_at_k_ci", R, 2, bounds=bounds)
    same_error("max_at_k_ci", R, 1, bounds=bounds)
    same_error("bayes_ci", R, confidence=2.0, bounds=bounds)  # confidence wins


def test_nan_bounds_are_ignored_like_python_min_max() -> None:
    R = [[0, 1, 1], [1, 0, 0]]
    for bounds in ((float("nan"), 1.0), (0.0, float("nan"))):
        check_ci(ke.bayes_ci(R, bounds=bounds), se.bayes_ci(R, bounds=bounds), n=3, m=2)
        check_ci(ke.max_at_k_ci(R, 2, bounds=bounds), se.max_at_k_ci(R, 2, bounds=bounds),
                 n=3, m=2, degree=4)


# --------------------------------------------------------------------------
# 50-digit references

mp.mp.dps = 50


def bank_from_counts(rows: list[list[int]]) -> npt.NDArray[np.int64]:
    """An M x N matrix whose row i holds rows[i][c] entries of category c."""
    return np.array([np.repeat(np.arange(len(r)), r) for r in rows], dtype=np.int64)


def bayes_ref(nu: list[list[int]], w: list[float]) -> tuple[mp.mpf, mp.mpf]:
    t = sum(nu[0])
    m = len(nu)
    wm = [mp.mpf(x) for x in w]
    means, var = [], mp.mpf(0)
    for row in nu:
        p = [mp.mpf(x) / t for x in row]
        mean = mp.fsum(pi * wi for pi, wi in zip(p, wm))
        means.append(mean)
        var += mp.fsum(pi * (wi - mean) ** 2 for pi, wi in zip(p, wm))
    return mp.fsum(means) / m, mp.sqrt(var / (m * m * (t + 1)))


def max_ci_ref(gammas: list[list[int]], levels: list[float], k: int) -> tuple[mp.mpf, mp.mpf]:
    """Nested Dirichlet closed forms: E[A^n] = rf(G, n)/rf(T, n)."""
    r = [mp.mpf(x) for x in levels]
    gaps = [r[i + 1] - r[i] for i in range(len(r) - 1)]
    means, var = [], mp.mpf(0)
    for g in gammas:
        t = sum(g)
        cum = [sum(g[: i + 1]) for i in range(len(g) - 1)]

        def moment(a: int, tot: int, n: int) -> mp.mpf:
            return mp.rf(a, n) / mp.rf(tot, n)

        ek = [moment(a, t, k) for a in cum]
        means.append(r[-1] - mp.fsum(gp * e for gp, e in zip(gaps, ek)))
        row = mp.mpf(0)
        for i in range(len(cum)):
            for j in range(len(cum)):
                lo, hi = min(i, j), max(i, j)
                cross = moment(cum[hi], t, 2 * k) * moment(cum[lo], cum[hi], k) if lo != hi else moment(
                    cum[lo], t, 2 * k)
                row += gaps[i] * gaps[j] * (cross - ek[i] * ek[j])
        var += row
    m = len(gammas)
    return mp.fsum(means) / m, mp.sqrt(var) / m


def rel(a: float, b: mp.mpf) -> float:
    return float(abs(mp.mpf(a) - b) / abs(b)) if b != 0 else abs(a)


@pytest.mark.parametrize("n", [64, 4096])
def test_bayes_against_mpmath(n: int) -> None:
    w = [0.0, 0.3, 1.0, -0.6]
    rows = [[n, 0, 0, 0], [0, 0, n, 0], [n // 4, n // 4, n // 4, n - 3 * (n // 4)],
            [1, n - 3, 1, 1], [n // 2, 0, n - n // 2, 0]]
    prior_rows = [[1, 0, 0, 1], [0, 2, 0, 0], [0, 0, 0, 2], [1, 1, 0, 0], [0, 0, 2, 0]]
    R, R0 = bank_from_counts(rows), bank_from_counts(prior_rows)
    for use_prior in (False, True):
        nu = [[a + (b if use_prior else 0) + 1 for a, b in zip(r, p)] for r, p in zip(rows, prior_rows)]
        mu_ref, sigma_ref = bayes_ref(nu, w)
        mu, sigma = ke.bayes(R, w, R0 if use_prior else None)
        assert rel(mu, mu_ref) <= 1e-15
        assert rel(sigma, sigma_ref) <= 1e-14
    a, s = ke.avg(R, w)
    a_ref = mp.fsum(mp.mpf(c) * mp.mpf(x) for r in rows for c, x in zip(r, w)) / (len(rows) * n)
    _, sb = bayes_ref([[c + 1 for c in r] for r in rows], w)
    assert rel(a, a_ref) <= 1e-15
    assert rel(s, sb * (len(w) + n) / n) <= 1e-14


@pytest.mark.parametrize(("n", "k"), [(64, 2), (64, 64), (64, 500), (4096, 2), (4096, 100), (4096, 4096)])
def test_max_at_k_ci_against_mpmath(n: int, k: int) -> None:
    w = [0.0, 0.3, 1.0]
    rows = [[n, 0, 0], [0, 0, n], [0, n, 0], [n // 3, n // 3, n - 2 * (n // 3)], [n - 2, 1, 1],
            [1, 1, n - 2], [n // 2, n - n // 2, 0]]
    R = bank_from_counts(rows)
    gammas = [[c + 1 for c in r] for r in rows]
    mu_ref, sigma_ref = max_ci_ref(gammas, w, k)
    mu, sigma, lo, hi = ke.max_at_k_ci(R, k, w)
    assert rel(mu, mu_ref) <= 2e-15
    assert rel(sigma, sigma_ref) <= 1e-9  # scorio's own error grows with N (docs/kernels.md, K13)
    assert lo == max(0.0, mu - Z95 * sigma) and hi == min(1.0, mu + Z95 * sigma)


@pytest.mark.parametrize("n", [64, 4096])
def test_max_at_k_against_exact_binomials(n: int) -> None:
    w = [0.0, 0.3, 1.0]
    rows = [[n // 3, n // 3, n - 2 * (n // 3)], [n - 2, 1, 1], [1, 1, n - 2], [n, 0, 0]]
    R = bank_from_counts(rows)
    for k in (2, n // 2, n):
        ref = []
        for r in rows:
            f = [r[0], r[0] + r[1]]
            total = mp.binomial(n, k)
            ref.append(mp.mpf(w[0]) + mp.fsum(
                (mp.mpf(w[i + 1]) - mp.mpf(w[i])) * (1 - mp.binomial(f[i], k) / total) for i in range(2)))
        assert rel(ke.max_at_k(R, k, w), mp.fsum(ref) / len(rows)) <= 1e-15


# --- The one-pass call (`_kscore.dirichlet_of_matrix`) against the counted bank ---

def _via_bank(R: Any, w: Any, observed: bool) -> tuple[float, float]:
    """Bayes@N / Avg@N through the validating path (counts, then moments)."""
    from kscore import _kscore
    from kscore.eval._categorical import prepare_bank

    bank = prepare_bank(R, w)
    if observed:
        return _kscore.avg(bank.counts, bank.weights)
    return _kscore.bayes(bank.counts, None, bank.weights)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("categories", [2, 3, 4, 5])
@pytest.mark.parametrize("shape", [(1, 4), (5, 16), (9, 7), (37, 200), (1003, 8)])
def test_one_pass_call_equals_the_counted_bank(dtype: Any, categories: int, shape: tuple[int, int]) -> None:
    """Every dtype, 2-5 categories, row lengths on and off the four-entry
    vectors and row counts on and off the four-row groups (the int64 path's
    packed fields): the fast call gives the validating path's numbers bit for
    bit, in C order, Fortran order and as a strided view, and matches scorio."""
    rng = np.random.default_rng(categories * 1000 + shape[0])
    top = 1 if dtype is np.bool_ else categories - 1
    R = rng.integers(0, top + 1, size=shape).astype(dtype)
    w = np.linspace(-0.5, 1.5, categories) ** 2
    w[0] = 0.25
    views = [R, np.asfortranarray(R), np.repeat(R, 2, axis=1)[:, ::2]]
    for observed in (False, True):
        want = _via_bank(R, w, observed)
        for view in views:
            from kscore import _kscore
            got = _kscore.dirichlet_of_matrix(view, w, observed)
            assert got == want, (view.flags, observed)
        ours = ke.avg(R, w) if observed else ke.bayes(R, w)
        theirs = se.avg(R, w) if observed else se.bayes(R, w)
        assert ours == want
        assert abs(ours[0] - theirs[0]) <= 1e-15 + 1e-12 * abs(theirs[0])
        assert abs(ours[1] - theirs[1]) <= 1e-12 * abs(theirs[1]) + 1e-15


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("categories", [2, 3, 4, 5, 9])
@pytest.mark.parametrize("shape", [(1, 4), (9, 7), (37, 200), (5003, 8)])
def test_max_at_k_one_pass_call_equals_the_counted_bank(dtype: Any, categories: int, shape: tuple[int, int]) -> None:
    """Max@k's fast call (category counts folded into the level histograms
    block by block, `_kscore.max_at_k_of_matrix`) gives the counted bank's
    number bit for bit on C-order rows of every dtype (5003 rows: past one
    block), declines other layouts (None), and matches scorio."""
    from kscore import _kscore
    from kscore.eval._categorical import prepare_bank

    rng = np.random.default_rng(categories * 1000 + shape[0])
    top = 1 if dtype is np.bool_ else categories - 1
    R = rng.integers(0, top + 1, size=shape).astype(dtype)
    w = np.linspace(-0.5, 1.5, categories) ** 2  # levels out of category order, one tie
    bank = prepare_bank(R, w)
    for k in sorted({2, shape[1] // 2 + 1, shape[1]} - {1}):
        if k > shape[1]:
            continue
        want = _kscore.max_at_k(bank.counts, bank.weights, k)
        assert _kscore.max_at_k_of_matrix(R, w, k) == want
        assert _kscore.max_at_k_of_matrix(np.asfortranarray(R), w, k) in (None, want)
        assert _kscore.max_at_k_of_matrix(np.repeat(R, 2, axis=1)[:, ::2], w, k) is None
        assert ke.max_at_k(R, k, w) == want
        if shape[0] <= 1000:  # (scorio is slow on the larger banks)
            theirs = se.max_at_k(R, k, w)
            assert abs(want - theirs) <= 1e-15 + 1e-12 * abs(theirs)


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.int64, np.uint16, np.float64])
@pytest.mark.parametrize("categories", [2, 3, 4, 6])
@pytest.mark.parametrize("shape", [(40, 6), (5003, 8), (300, 50)])
def test_max_at_k_ci_one_pass_call_equals_the_counted_bank(dtype: Any, categories: int,
                                                           shape: tuple[int, int]) -> None:
    """The posterior's fast call (counts folded into the level tables) gives
    the counted bank's ``(mu, sigma)`` bit for bit where the tables apply,
    None elsewhere, and ``max_at_k_ci`` matches scorio either way."""
    from kscore import _kscore
    from kscore.eval._categorical import prepare_bank

    rng = np.random.default_rng(categories * 7 + shape[0])
    top = 1 if dtype is np.bool_ else categories - 1
    R = rng.integers(0, top + 1, size=shape).astype(dtype)
    w = np.linspace(-0.5, 1.5, categories) ** 2
    bank = prepare_bank(R, w)
    for k in (2, 5, 64):
        want = _kscore.max_at_k_posterior(bank.counts, None, bank.weights, k)
        got = _kscore.max_at_k_posterior_of_matrix(R, w, k)
        assert got is None or got == want
        ours = ke.max_at_k_ci(R, k, w)
        assert ours[:2] == want
        if shape[0] <= 300 and k <= 5:  # (scorio takes seconds on the larger banks)
            theirs = se.max_at_k_ci(R, k, w)
            for a, b in zip(ours, theirs):
                assert abs(a - b) <= 1e-15 + 1e-12 * abs(b)
    if shape == (5003, 8):
        assert _kscore.max_at_k_posterior_of_matrix(R, w, 3) is not None  # the tables apply here


@pytest.mark.parametrize(("R", "w", "k"), [
    (np.array([[0, 1, 2, 2]]), np.array([0.0, 0.5, 1.0]), 0),     # k below 1
    (np.array([[0, 1, 2, 2]]), np.array([0.0, 0.5, 1.0]), 5),     # k above N
    (np.array([[0, 1, 2, 2]]), np.array([0.0, 0.5, 1.0]), 1),     # k = 1 (the observed mean)
    (np.array([[0, 1, 2, 2]]), np.array([0.0, 0.5, 1.0]), True),  # a bool k
    (np.array([[0, 1, 2, 2]]), np.array([0.0, 0.5, 1.0]), 2.0),   # a float k
    (np.array([[0, 1, 2, 2]]), np.array([0.5, 0.5, 0.5]), 2),     # one reward level
    (np.array([[0, 1, 3, 2]]), np.array([0.0, 0.5, 1.0]), 2),     # out of range
    (np.array([[0.0, np.nan, 2.0, 1.0]]), np.array([0.0, 0.5, 1.0]), 2),  # NaN
    (np.array([[0, 1, 2, 2]]), np.array([0, 1, 2]), 2),           # w not float64
    (np.zeros((0, 4), dtype=np.int64), np.array([0.0, 0.5, 1.0]), 2),  # no rows
])
def test_max_at_k_one_pass_call_leaves_the_unusual_to_the_validating_path(R: Any, w: Any, k: Any) -> None:
    """What the fast call does not take gives None, never an error; the public
    function then behaves as scorio: the same result, or the same exception
    type and message."""
    from kscore import _kscore

    assert _kscore.max_at_k_of_matrix(R, w, k) is None
    if not (isinstance(k, int) and k >= 2 and len(R) and R.max() <= 2 and w.dtype == np.float64
            and len(set(w.tolist())) > 1):
        assert _kscore.max_at_k_posterior_of_matrix(R, w, k) is None
    try:
        want = se.max_at_k(R, k, w)
    except Exception as exc:  # noqa: BLE001 - compared below
        with pytest.raises(type(exc)) as got:
            ke.max_at_k(R, k, w)
        assert str(got.value) == str(exc)
    else:
        assert abs(ke.max_at_k(R, k, w) - want) <= 1e-15 + 1e-12 * abs(want)


@pytest.mark.parametrize("R, w", [
    (np.array([[0, 1, 3]]), np.array([0.0, 0.5, 1.0])),          # out of range (a 3 among 3)
    (np.array([[0, 1, -1, 2]]), np.array([0.0, 0.5, 1.0])),      # negative
    (np.array([[0.0, 1.5, 2.0, 1.0]]), np.array([0.0, 0.5, 1.0])),  # not integer
    (np.array([[0.0, np.nan, 2.0, 1.0]]), np.array([0.0, 0.5, 1.0])),  # NaN
    (np.array([[0, 1, 2, 2]]), np.array([0.0, np.inf, 1.0])),    # w not finite
    (np.array([[0, 1, 2, 2]]), np.array([0, 1, 2])),             # w not float64
    (np.array([0, 1, 2, 2]), np.array([0.0, 0.5, 1.0])),         # 1-D R
    (np.zeros((0, 4), dtype=np.int64), np.array([0.0, 0.5, 1.0])),  # no rows
    (np.zeros((3, 0), dtype=np.int64), np.array([0.0, 0.5, 1.0])),  # no trials
    (np.array([[0, 1, 2, 2]], dtype=">i8"), np.array([0.0, 0.5, 1.0])),  # big-endian
])
def test_one_pass_call_leaves_the_unusual_to_the_validating_path(R: Any, w: Any) -> None:
    """Anything the fast call does not take gives None (never an error), and
    the public functions then behave exactly as scorio: same result, or the
    same exception type and message."""
    from kscore import _kscore

    assert _kscore.dirichlet_of_matrix(R, w, False) is None
    for name in ("bayes", "avg"):
        try:
            want: Any = getattr(se, name)(R, w)
        except Exception as exc:  # noqa: BLE001 - compared below
            with pytest.raises(type(exc)) as got:
                getattr(ke, name)(R, w)
            assert str(got.value) == str(exc)
        else:
            got_value = getattr(ke, name)(R, w)
            assert abs(got_value[0] - want[0]) <= 1e-15 + 1e-12 * abs(want[0])
