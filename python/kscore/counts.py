r"""kscore.counts: counts in, arrays out.

Evaluation harnesses (human-eval, HF ``evaluate`` code_eval, evalplus,
bigcode, lighteval, OpenCompass, RL trainers) keep one pair per question: the
number of samples ``n_i`` and the number of correct ones ``c_i`` (``n`` may
differ per question), then loop in Python. This module takes those arrays
whole, validates them, deduplicates the ``(n, c)`` states, evaluates each
state once in the Rust core (in parallel, interpreter released) and returns
numpy arrays.

Counts in (``n`` an int for all questions or a 1-D array, ``c`` a 1-D array):

* :func:`estimate_pass_at_k` -- the harness function, same signature, same
  numbers, one float64 per problem.
* :func:`pass_at_k`, :func:`pass_hat_k` (= :func:`unanimous_at_k`),
  :func:`g_pass_at_k_tau`, :func:`mg_pass_at_k`, :func:`maj_at_k`,
  :func:`auc_at_k`, :func:`threshold_spectrum_at_k` -- every finite-bank
  metric of :mod:`kscore.eval`, per question (``mean=False``, the default)
  or averaged (``mean=True``, the :mod:`kscore.eval` value).
* :func:`pass_at_k_ci`, :func:`pass_hat_k_ci`, :func:`g_pass_at_k_tau_ci`,
  :func:`mg_pass_at_k_ci`, :func:`maj_at_k_ci`, :func:`auc_at_k_ci`,
  :func:`threshold_spectrum_at_k_ci` -- the Beta-posterior credible
  intervals ``(mu, sigma, lo, hi)`` of :mod:`kscore.eval`, from counts with
  ``n`` varying per question.
* :func:`avg_at_n`, :func:`cons_at_k` -- the harness metrics (see below).
* :func:`curve` -- one metric at many budgets k (default every
  ``k = 1..min(n)``: the pass@k curve) in one call, O(U * N) for pass@k and
  pass^k (U distinct states).

Outcome matrices in (binary ``M x N``; a 3-D ``L x M x N`` array or a list
of numpy matrices of any shapes is L models; ``packed_n=N`` reads matrices
packed with ``numpy.packbits(R, axis=-1)``):

* :func:`counts_of` -- per-question ``(n, c)`` of a matrix.
* :func:`question_scores` -- a metric per question (the metric without the
  final mean), per model.
* :func:`model_scores` -- one value per model (or per model and budget),
  computed in parallel.

Bad input raises ``ValueError`` naming the argument and the first offending
index: mismatched lengths, negative counts, ``c > n``, NaN, non-integers,
``k < 1``, ``k > n`` for a finite-bank metric, a packed matrix with an
impossible N or nonzero padding bits. Nothing is broadcast (except a scalar
``n``) or clipped.

Harness metrics: avg@n, cons@k and maj@k
----------------------------------------

With ``c`` correct answers among the ``n`` samples of a question:

* **avg@n** (:func:`avg_at_n`) is ``c / n`` per question, averaged: the mean
  sample accuracy. It equals ``kscore.eval.pass_at_k(R, 1)`` and is the
  DeepSeek-R1 style "pass@1 with n samples".
* **cons@k** (:func:`cons_at_k`, OpenCompass-style harnesses) is
  ``1 if c > k/2 else 0`` per question on the question's *total* correct
  count, averaged. The harness sets ``k = n`` (both are
  ``num_return_sequences``), so it asks "did a strict majority of all the
  samples come out correct?" -- a 0/1 verdict on the observed samples.
* **maj@k** (:func:`maj_at_k`, ``scorio.eval.maj_at_k``) is the
  *probability* that a strict majority of ``k`` samples drawn without
  replacement from the ``n`` is correct (a hypergeometric tail),
  averaged. It is an unbiased estimate of majority-vote accuracy with a
  budget of ``k`` samples, and varies smoothly with ``c``.

At ``k = n`` the draw is the whole bank, so maj@n == cons@n exactly. For
``k < n`` they differ: with ``n = 10, c = 6, k = 3``, cons gives
``1`` (6 > 1.5) while maj@3 is ``P(X >= 2) = 2/3`` for X ~ Hypergeom(10, 6, 3).
cons@k with ``k < n`` compares a count out of n with half of k, which is
rarely what is meant; prefer maj@k for budgets below n.

The worked example of the harness document (``n = k = 3``; correct counts
2, 2, 1, 0) gives pass@3 = 0.75, avg@3 = 0.4167 and cons@3 = 0.5::

    >>> import kscore.counts as kc
    >>> c = [2, 2, 1, 0]
    >>> float(kc.pass_at_k(3, c, 3, mean=True))
    0.75
    >>> round(kc.avg_at_n(3, c, mean=True), 4)
    0.4167
    >>> kc.cons_at_k(3, c, 3, mean=True)
    0.5
    >>> kc.maj_at_k(3, c, 3, mean=True)
    0.5

The harness ``estimate_pass_at_k`` and k > n
--------------------------------------------

The harness returns ``1.0`` whenever ``n - c < k``, which includes ``k > n``
even when nothing was correct (a known upstream bug: a problem with 5
samples, none correct, scores pass@10 = 1). kscore raises ``ValueError``
naming the first such problem instead; everywhere else the numbers agree
(kscore's are the more accurate, to about 1e-15 relative).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Union, overload

import numpy as np
import numpy.typing as npt

from . import _kscore
from ._inputs import as_matrix, finite_positive, spectrum_weights, validate_tau
from ._interval import normal_ci

__all__ = [
    "estimate_pass_at_k",
    "pass_at_k",
    "pass_hat_k",
    "unanimous_at_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "maj_at_k",
    "auc_at_k",
    "threshold_spectrum_at_k",
    "pass_at_k_ci",
    "pass_hat_k_ci",
    "g_pass_at_k_tau_ci",
    "mg_pass_at_k_ci",
    "maj_at_k_ci",
    "auc_at_k_ci",
    "threshold_spectrum_at_k_ci",
    "avg_at_n",
    "cons_at_k",
    "curve",
    "counts_of",
    "question_scores",
    "model_scores",
    "Metric",
    "CurveMetric",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: The number of samples: one int for every question, or one per question.
Trials = Union[int, np.integer[Any], npt.ArrayLike]  # noqa: UP007 - a runtime alias on Python 3.10

#: Metrics with a budget-indexed family (usable in :func:`curve`).
CurveMetric = Literal[
    "pass_at_k",
    "pass_hat_k",
    "unanimous_at_k",
    "g_pass_at_k",
    "g_pass_at_k_tau",
    "mg_pass_at_k",
    "maj_at_k",
    "auc_at_k",
]
#: Every metric :func:`question_scores` and :func:`model_scores` accept.
Metric = Union[CurveMetric, Literal["threshold_spectrum_at_k", "avg_at_n", "cons_at_k"]]  # noqa: UP007

_FAMILY = {
    "pass_at_k": "pass_at_k",
    "pass_hat_k": "pass_hat_k",
    "unanimous_at_k": "pass_hat_k",
    "g_pass_at_k": "pass_hat_k",
    "g_pass_at_k_tau": "g_pass_at_k_tau",
    "mg_pass_at_k": "mg_pass_at_k",
    "maj_at_k": "maj_at_k",
    "auc_at_k": "auc_at_k",
}

_Where = Callable[[int, int], str]
_How = Literal["question", "mean", "segments"]


# ---------------------------------------------------------------------------
# argument intake


def _count_vector(values: object, name: str) -> npt.NDArray[Any]:
    """A 1-D int64 or float64 array (no copy for those dtypes)."""
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a 1-D array of counts") from exc
    if array.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of counts; got {array.ndim} dimensions")
    kind = array.dtype.kind
    if kind == "u" and array.dtype.itemsize == 8 and array.size:
        over = np.flatnonzero(array > np.iinfo(np.int64).max)
        if over.size:
            i = int(over[0])
            raise ValueError(f"{name}[{i}] must be at most 4294967295; got {array[i]}")
    if kind in "biu":
        return array.astype(np.int64, copy=False)
    if kind == "f":
        if array.dtype.itemsize > 8:  # long double: check here, exactly
            return _long_double(array, name)
        return array.astype(np.float64, copy=False)
    raise ValueError(f"{name} must contain integer counts; got dtype {array.dtype}")


def _long_double(array: npt.NDArray[Any], name: str) -> npt.NDArray[Any]:
    bad = np.flatnonzero(~np.isfinite(array) | (array != np.trunc(array)) | (array < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"{name}[{i}] must be a non-negative integer; got {array[i]}")
    return array.astype(np.float64)


def _trials(n: object, name: str) -> int | npt.NDArray[Any]:
    """A scalar n stays a Python int; anything else becomes a count vector."""
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)):
        if n < 0:
            raise ValueError(f"{name} must be non-negative; got {n}")
        return int(n)
    return _count_vector(n, name)


def _states(n: object, c: object, n_name: str, c_name: str) -> _kscore.CountStates:
    return _kscore.CountStates.from_counts(
        _trials(n, n_name), _count_vector(c, c_name), n_name, c_name
    )


def _budget(k: object, name: str = "k") -> int:
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise ValueError(f"{name} must be an integer; got {k!r}")
    if k < 1:
        raise ValueError(f"{name} must be >= 1; got {k}")
    return int(k)


def _counts_where(n: object, n_name: str) -> _Where:
    scalar = isinstance(n, (int, np.integer))
    return lambda i, ni: f"{n_name} = {ni}" if scalar else f"{n_name}[{i}] = {ni}"


def _fits(states: _kscore.CountStates, k: int, where: _Where, what: str = "k") -> None:
    """Raise unless ``k <= n`` for every question (first offender named)."""
    hit = states.first_short(k)
    if hit is not None:
        i, ni = hit
        raise ValueError(
            f"{what} = {k} exceeds {where(i, ni)} (question {i}); "
            "finite-bank metrics need 1 <= k <= n for every question"
        )


def _nonempty(states: _kscore.CountStates, c_name: str) -> None:
    if states.m == 0:
        raise ValueError(f"{c_name} must contain at least one question to average")


def _credit(
    metric: str, k: int, tau: object = None, weights: object = None
) -> _kscore.Credit:
    family = _FAMILY.get(metric)
    if family == "pass_at_k":
        return _kscore.Credit.at_least(k, 1)
    if family == "pass_hat_k":
        return _kscore.Credit.at_least(k, k)
    if family == "g_pass_at_k_tau":
        return _kscore.Credit.tau(k, _tau(tau))
    if family == "maj_at_k":
        return _kscore.Credit.majority(k)
    if family == "mg_pass_at_k":
        return _kscore.Credit.mg(k)
    if family == "auc_at_k":
        return _kscore.Credit.auc(k)
    if metric == "threshold_spectrum_at_k":
        if weights is None:
            raise ValueError("threshold_spectrum_at_k needs weights")
        return _kscore.Credit.spectrum(spectrum_weights(weights, k))
    raise ValueError(f"unknown metric {metric!r}")


def _tau(tau: object) -> float:
    if tau is None:
        raise ValueError("g_pass_at_k_tau needs tau")
    if isinstance(tau, (bool, np.bool_)) or not isinstance(tau, (int, float, np.integer, np.floating)):
        raise ValueError(f"tau must be a real number in [0, 1]; got {tau!r}")
    validate_tau(tau)
    return float(tau)


def _scalar_or_array(out: FloatArray, mean: bool) -> FloatArray | float:
    return float(out[0]) if mean else out


# ---------------------------------------------------------------------------
# the harness function


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
    states = _states(n, c, "n", "c")
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
    states = _states(n, c, "n", "c")
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
    states = _states(n, c, "n", "c")
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


# ---------------------------------------------------------------------------
# many budgets


def _budgets(ks: object, states: _kscore.CountStates, where: _Where) -> list[int]:
    if ks is None:
        hit = states.first_short(1)
        if hit is not None:
            i, ni = hit
            raise ValueError(f"a curve needs n >= 1; got {where(i, ni)} (question {i})")
        top = _min_n(states)
        return list(range(1, top + 1))
    if isinstance(ks, (int, np.integer)):
        raise ValueError(f"ks must be a sequence of budgets; got {ks!r}")
    out = [_budget(x, name=f"ks[{j}]") for j, x in enumerate(np.asarray(ks, dtype=object).ravel())]
    if not out:
        raise ValueError("ks must contain at least one budget")
    top = max(out)
    _fits(states, top, where, what=f"ks[{out.index(top)}]")
    return out


def _min_n(states: _kscore.CountStates) -> int:
    low = states.min_n
    return 0 if low is None else low


def _family(metric: str) -> str:
    family = _FAMILY.get(metric)
    if family is None:
        raise ValueError(
            f"metric {metric!r} has no budget family; use one of {sorted(_FAMILY)}"
        )
    return family


def curve(
    n: Trials,
    c: npt.ArrayLike,
    metric: CurveMetric = "pass_at_k",
    ks: Sequence[int] | npt.NDArray[np.integer[Any]] | None = None,
    *,
    tau: float | None = None,
    mean: bool = True,
) -> FloatArray:
    r"""A metric at many budgets in one call over the distinct states.

    Args:
        n, c: per-question counts, as for :func:`pass_at_k`.
        metric: a budget family: ``"pass_at_k"`` (default), ``"pass_hat_k"``,
            ``"g_pass_at_k_tau"`` (with ``tau``), ``"mg_pass_at_k"``,
            ``"maj_at_k"``, ``"auc_at_k"``.
        ks: the budgets (any order, repeats allowed); default every
            ``k = 1..min(n)``.
        mean: average over questions (shape ``(K,)``) or not (``(M, K)``).

    Pass@k and Pass^k take a recurrence over k per state (O(U * max k) in
    all for U distinct states); the other families evaluate each
    (state, k) once.

    Examples:
        >>> curve(4, [0, 2, 4])
        array([0.5       , 0.61111111, 0.66666667, 0.66666667])
    """
    family = _family(metric)
    states = _states(n, c, "n", "c")
    if mean:
        _nonempty(states, "c")
    budgets = _budgets(ks, states, _counts_where(n, "n"))
    t = _tau(tau) if family == "g_pass_at_k_tau" else 0.0
    table = states.curve(family, t, budgets, "mean" if mean else "question")
    return table[0] if mean else table


# ---------------------------------------------------------------------------
# outcome matrices


def _is_model_list(R: object) -> bool:
    return isinstance(R, (list, tuple)) and len(R) > 0 and all(isinstance(x, np.ndarray) for x in R)


def _packed(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    if array.dtype != np.uint8:
        raise ValueError(
            f"R must be a uint8 array from numpy.packbits when packed_n is given; got dtype {array.dtype}"
        )
    return array


def _matrix(R: object, packed_n: int | None) -> npt.NDArray[Any]:
    if packed_n is None:
        return as_matrix(R)
    array = np.asarray(R)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    if array.ndim != 2:
        raise ValueError(f"R must be a 1D or 2D array; got {array.ndim} dimensions.")
    return _packed(array)


def _packed_n(packed_n: object) -> int | None:
    if packed_n is None:
        return None
    return _budget(packed_n, name="packed_n")


def _banks(R: object, packed_n: int | None) -> tuple[_kscore.CountStates, str, tuple[int, ...]]:
    """States of one or several banks; the layout ("single", "stack",
    "list") and, for a stack, its (L, M) shape."""
    if _is_model_list(R):
        assert isinstance(R, (list, tuple))
        mats = [_matrix(x, packed_n) for x in R]
        return _kscore.CountStates.from_matrices(mats, packed_n), "list", (len(mats),)
    array = np.asarray(R)
    if array.ndim == 3:
        L, M, N = array.shape
        if L == 0 or M == 0:
            raise ValueError(f"R must hold at least one model and one question; got shape {array.shape}")
        flat = array.reshape(L * M, N)
        mat = _packed(flat) if packed_n is not None else as_matrix(flat)
        return _kscore.CountStates.from_matrix(mat, packed_n, L), "stack", (L, M)
    return _kscore.CountStates.from_matrix(_matrix(array, packed_n), packed_n, 1), "single", ()


def _matrix_where(layout: str, states: _kscore.CountStates) -> _Where:
    offsets = states.offsets

    def where(i: int, ni: int) -> str:
        if layout == "list":
            j = int(np.searchsorted(offsets, i, side="right")) - 1
            return f"the N = {ni} trials of models[{j}]"
        return f"the N = {ni} trials of R"

    return where


def _matrix_values(
    states: _kscore.CountStates,
    where: _Where,
    metric: str,
    k: object,
    tau: object,
    weights: object,
    how: _How,
) -> FloatArray:
    if metric == "avg_at_n":
        return states.direct("avg", 0, how)
    if metric == "cons_at_k":
        if k is None:
            return states.direct("cons", 0, how)
        budget = _budget(k)
        _fits(states, budget, where)
        return states.direct("cons", budget, how)
    if k is None:
        raise ValueError(f"{metric} needs a budget k")
    budget = _budget(k)
    _fits(states, budget, where)
    return states.evaluate(_credit(metric, budget, tau, weights), how)


def counts_of(R: npt.ArrayLike, *, packed_n: int | None = None) -> tuple[IntArray, IntArray]:
    r"""Per-question ``(n, c)`` of a binary outcome matrix (int64 arrays),
    the bridge from matrices to the count functions.

    Examples:
        >>> n, c = counts_of([[1, 0, 1], [0, 0, 0]])
        >>> n.tolist(), c.tolist()
        ([3, 3], [2, 0])
    """
    pn = _packed_n(packed_n)
    states = _kscore.CountStates.from_matrix(_matrix(R, pn), pn, 1)
    return states.question_counts()


def question_scores(
    R: object,
    metric: Metric,
    k: int | None = None,
    *,
    tau: float | None = None,
    weights: npt.ArrayLike | None = None,
    packed_n: int | None = None,
) -> FloatArray | list[FloatArray]:
    r"""A metric per question from outcome matrices: the :mod:`kscore.eval`
    metric without the final mean.

    Args:
        R: a binary ``M x N`` matrix (1-D: one question) -> shape ``(M,)``;
            an ``L x M x N`` array -> ``(L, M)``; a list or tuple of numpy
            matrices (shapes may differ) -> a list of ``(M_j,)`` arrays.
        metric: a metric name (:data:`Metric`).
        k: the budget (``1 <= k <= N``; ``None`` for ``avg_at_n``, and for
            ``cons_at_k`` meaning k = N).
        tau: for ``g_pass_at_k_tau``. weights: for ``threshold_spectrum_at_k``.
        packed_n: the true N of matrices packed with
            ``numpy.packbits(R, axis=-1)`` (uint8; padding bits must be 0).

    Examples:
        >>> question_scores([[0, 1, 1, 0, 1], [1, 1, 0, 1, 1]], "pass_at_k", 2)
        array([0.9, 1. ])
    """
    states, layout, shape = _banks(R, _packed_n(packed_n))
    where = _matrix_where(layout, states)
    out = _matrix_values(states, where, metric, k, tau, weights, "question")
    if layout == "stack":
        return out.reshape(shape)
    if layout == "list":
        return list(np.split(out, states.offsets[1:-1]))
    return out


def model_scores(
    R: object,
    metric: Metric,
    k: int | Sequence[int] | None = None,
    *,
    tau: float | None = None,
    weights: npt.ArrayLike | None = None,
    packed_n: int | None = None,
) -> FloatArray:
    r"""One dataset value per model, all models at once.

    Args:
        R: an ``L x M x N`` array, or a list or tuple of numpy matrices of any
            shapes (one model each); a 2-D matrix is one model.
        metric, tau, weights, packed_n: as for :func:`question_scores`.
        k: a budget -> shape ``(L,)``; a sequence of budgets (a metric with a
            budget family) -> ``(L, K)``.

    Each model's value equals the :mod:`kscore.eval` function on that model.

    Examples:
        >>> import numpy as np
        >>> R = np.array([[[0, 1], [1, 1]], [[0, 0], [1, 0]]])
        >>> model_scores(R, "pass_at_k", 1)
        array([0.75, 0.25])
    """
    states, layout, _ = _banks(R, _packed_n(packed_n))
    where = _matrix_where(layout, states)
    if k is not None and not isinstance(k, (int, np.integer)):
        family = _family(metric)
        budgets = _budgets(k, states, where)
        t = _tau(tau) if family == "g_pass_at_k_tau" else 0.0
        return states.curve(family, t, budgets, "segments")
    return _matrix_values(states, where, metric, k, tau, weights, "segments")


# ---------------------------------------------------------------------------
# credible intervals from counts

CI = tuple[float, float, float, float]


def _finite_ci(
    n: object,
    c: object,
    k: object,
    metric: str,
    confidence: Any,
    bounds: Any,
    alpha0: Any,
    beta0: Any,
    tau: object = None,
    weights: object = None,
) -> CI:
    """Counts, k (``1 <= k <= n`` everywhere), priors, [moments], confidence,
    bounds: :mod:`kscore.eval`'s order."""
    states = _states(n, c, "n", "c")
    budget = _budget(k)
    _nonempty(states, "c")
    _fits(states, budget, _counts_where(n, "n"))
    credit = _credit(metric, budget, tau, weights)
    a0 = finite_positive(alpha0, name="alpha0")
    b0 = finite_positive(beta0, name="beta0")
    mu, var = states.posterior(credit, a0, b0)
    return normal_ci(mu, float(np.sqrt(var)), confidence, bounds)


def pass_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    r"""Bayesian ``(mu, sigma, lo, hi)`` of Pass@k from counts, each question
    with its own ``n``: :math:`p_i \sim \mathrm{Beta}(\alpha_0 + c_i, \beta_0 + n_i - c_i)`,
    target :math:`g(p) = 1 - (1-p)^k`,
    :math:`\mu = \frac1M\sum_i E[g(p_i)]`,
    :math:`\sigma = \frac1M\sqrt{\sum_i \mathrm{Var}[g(p_i)]}`, and the
    normal interval :math:`\mu \mp z\sigma` clipped into ``bounds``. On
    rectangular data it is ``kscore.eval.pass_at_k_ci``.

    Examples:
        >>> mu, sigma, lo, hi = pass_at_k_ci([5, 10], [3, 4], 2)
        >>> round(mu, 6), round(sigma, 6)
        (0.71337, 0.112354)
    """
    return _finite_ci(n, c, k, "pass_at_k", confidence, bounds, alpha0, beta0)


def pass_hat_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of Pass^k (``g(p) = p^k``) from counts;
    see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "pass_hat_k", confidence, bounds, alpha0, beta0)


def g_pass_at_k_tau_ci(
    n: Trials, c: npt.ArrayLike, k: int, tau: float, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of G-Pass@k_tau (at least ``j0(tau, k)``
    of k fresh draws correct) from counts; see :func:`pass_at_k_ci`."""
    validate_tau(tau)
    return _finite_ci(n, c, k, "g_pass_at_k_tau", confidence, bounds, alpha0, beta0, tau=tau)


def mg_pass_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of mG-Pass@k from counts; see
    :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "mg_pass_at_k", confidence, bounds, alpha0, beta0)


def maj_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of Maj@k (a strict majority of k fresh
    draws correct) from counts; see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "maj_at_k", confidence, bounds, alpha0, beta0)


def auc_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of AUC@k from counts; see
    :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "auc_at_k", confidence, bounds, alpha0, beta0)


def threshold_spectrum_at_k_ci(
    n: Trials, c: npt.ArrayLike, k: int, weights: npt.ArrayLike, confidence: float = 0.95,
    bounds: tuple[float, float] = (0.0, 1.0), alpha0: float = 1.0, beta0: float = 1.0,
) -> CI:
    """Bayesian ``(mu, sigma, lo, hi)`` of the threshold spectrum from counts
    (``weights``: length k, non-negative, sum <= 1); see :func:`pass_at_k_ci`."""
    return _finite_ci(n, c, k, "threshold_spectrum_at_k", confidence, bounds, alpha0, beta0,
                      weights=weights)
