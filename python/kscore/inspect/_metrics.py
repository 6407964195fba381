"""kscore's metrics as inspect ``@metric``s over the unreduced epochs.

Each one reads every epoch of every sample (``@metric(scores="unreduced")``),
counts each sample's outcomes (_samples.py) and computes its estimate and
interval with the leaderboard's own code (``kscore.leaderboard``'s
per-question estimates and standard errors over questions, cluster-robust
by a sample-metadata key when ``cluster`` is given): the numbers
``kscore.leaderboard`` gives on the log. A metric reports a dict, which
inspect shows as one row each: ``<name>`` (the estimate), ``<name>_sigma``
(its standard error over questions), ``<name>_lo`` and ``<name>_hi`` (the
``confidence`` interval), with the leaderboard's names (``pass@4``,
``g-pass@4_0.5``, ``bayes@N``, ...). ``k=None`` gives the leaderboard's
default budgets, 1, 4 and 16 bounded by the fewest epochs a sample has."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from .._arrays import FloatArray
from ..leaderboard.api import Issues, compute, default_ks
from ..leaderboard.api import Metric as Spec
from ..leaderboard.api import scores as per_question
from ._samples import ToFloat, clusters, table

logger = logging.getLogger(__name__)
_warned: set[str] = set()

Ks = int | Sequence[int] | None
BINARY = np.array([0.0, 1.0])


def _ks(k: Ks, n_min: int) -> list[int]:
    if k is None:
        return default_ks(n_min)
    return [k] if isinstance(k, int) else list(k)


def _rewards(w: Sequence[float] | None, where: str) -> FloatArray:
    if w is None:
        return BINARY
    arr = np.array([float(x) for x in w])
    if len(arr) < 2 or not np.all(np.isfinite(arr)) or len(set(arr.tolist())) != len(arr):
        raise ValueError(f"kscore {where}: w needs at least two distinct finite rewards (one per outcome); got {w!r}")
    return arr


def _check(k: Ks, tau: float | None, confidence: float, where: str) -> None:
    ks = [] if k is None else ([k] if isinstance(k, int) else list(k))
    if any(not isinstance(x, int) or isinstance(x, bool) or x < 1 for x in ks) or (k is not None and not ks):
        raise ValueError(f"kscore {where}: k must be a positive integer or a list of them; got {k!r}")
    if tau is not None and not 0.0 <= tau <= 1.0:
        raise ValueError(f"kscore {where}: tau must lie in [0, 1]; got {tau!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"kscore {where}: confidence must lie in (0, 1); got {confidence!r}")


def _note_once(message: str) -> None:
    # At info level: inspect's running metrics meet short samples in every
    # run (epochs still coming in), where a warning would be noise.
    if message not in _warned:
        _warned.add(message)
        logger.info(message)


def _kscore_metric(where: str, specs: Callable[[int], list[Spec]], w: FloatArray, cluster: str | None,
                   confidence: float, to_float: ToFloat | None) -> Metric:
    """The inspect metric computing ``specs(fewest epochs)`` on the scores."""

    def run(scores: list[SampleScore]) -> dict[str, float | None]:
        if not scores:
            return {}  # (inspect asks for the empty shape: none)
        tab = table(scores, w, to_float, where)
        counts = tab.counts
        n_min = int(counts.n.min())
        chosen = specs(n_min)
        out: dict[str, float | None] = {}
        # A budget some sample lacks (inspect also shows running metrics while
        # epochs are still coming in): not computed, as on the leaderboard;
        # inspect leaves None values out of its results.
        short = [m for m in chosen if m.budget > n_min]
        for m in short:
            _note_once(f"kscore {where}: {m.name} needs at least {m.budget} epochs per sample; some samples have "
                       f"{n_min}: not computed")
            for suffix in ("", "_sigma", "_lo", "_hi"):
                out[m.name + suffix] = None
        chosen = [m for m in chosen if m.budget <= n_min]
        if not chosen:
            return out
        cl = None if cluster is None else clusters(scores, tab, cluster, where)
        sc = per_question(counts, chosen, w, cl)
        row = compute(sc, chosen, w, confidence, "questions", Issues())[0]
        for m in chosen:
            v = row.values[m.name]
            assert v is not None  # (every sample has the budget)
            out[m.name] = v.estimate
            out[f"{m.name}_sigma"] = v.sigma
            out[f"{m.name}_lo"] = v.lo
            out[f"{m.name}_hi"] = v.hi
        return out

    return run


def _budgeted(name: str, k: Ks, cluster: str | None, confidence: float, to_float: ToFloat | None) -> Metric:
    """A binary metric with a budget (pass@k, pass^k, mG-Pass@k, maj@k,
    AUC@k) at each of ``k``: one row of the core's metric table each."""
    _check(k, None, confidence, name)
    return _kscore_metric(name, lambda n: [Spec(name, x) for x in _ks(k, n)], BINARY, cluster, confidence, to_float)


@metric(scores="unreduced")
def pass_at_k(k: Ks = None, cluster: str | None = None, confidence: float = 0.95,
              to_float: ToFloat | None = None) -> Metric:
    """pass@k over the epochs (the unbiased estimator per sample), its
    standard error and interval over samples.

    ``k``: a budget or a list (default: 1, 4, 16 up to the epochs);
    ``cluster``: a sample-metadata key whose samples form a cluster
    (cluster-robust standard errors); ``to_float``: inspect's
    ``value_to_float()`` or your own (default: inspect's default mapping).

    Examples:
        >>> from inspect_ai import Task
        >>> from kscore.inspect import pass_at_k
        >>> m = pass_at_k(4)  # Task(..., metrics=[pass_at_k(4)], epochs=8)
    """
    return _budgeted("pass_at_k", k, cluster, confidence, to_float)


@metric(scores="unreduced")
def pass_hat_k(k: Ks = None, cluster: str | None = None, confidence: float = 0.95,
               to_float: ToFloat | None = None) -> Metric:
    """pass^k (all of k epochs correct), as :func:`pass_at_k`.

    Examples:
        >>> from kscore.inspect import pass_hat_k
        >>> m = pass_hat_k(2)
    """
    return _budgeted("pass_hat_k", k, cluster, confidence, to_float)


@metric(scores="unreduced")
def g_pass_at_k_tau(k: Ks = None, tau: float = 0.5, cluster: str | None = None, confidence: float = 0.95,
                    to_float: ToFloat | None = None) -> Metric:
    """G-Pass@k_tau (at least ceil(tau k) of k epochs correct), as
    :func:`pass_at_k`.

    Examples:
        >>> from kscore.inspect import g_pass_at_k_tau
        >>> m = g_pass_at_k_tau(4, 0.75)
    """
    _check(k, tau, confidence, "g_pass_at_k_tau")
    return _kscore_metric("g_pass_at_k_tau", lambda n: [Spec("g_pass_at_k_tau", x, float(tau)) for x in _ks(k, n)],
                          BINARY, cluster, confidence, to_float)


@metric(scores="unreduced")
def mg_pass_at_k(k: Ks = None, cluster: str | None = None, confidence: float = 0.95,
                 to_float: ToFloat | None = None) -> Metric:
    """mG-Pass@k (G-Pass@k_tau averaged over tau in [0.5, 1]), as
    :func:`pass_at_k`.

    Examples:
        >>> from kscore.inspect import mg_pass_at_k
        >>> m = mg_pass_at_k(4)
    """
    return _budgeted("mg_pass_at_k", k, cluster, confidence, to_float)


@metric(scores="unreduced")
def maj_at_k(k: Ks = None, cluster: str | None = None, confidence: float = 0.95,
             to_float: ToFloat | None = None) -> Metric:
    """maj@k (a strict majority of k epochs correct), as
    :func:`pass_at_k`.

    Examples:
        >>> from kscore.inspect import maj_at_k
        >>> m = maj_at_k(5)
    """
    return _budgeted("maj_at_k", k, cluster, confidence, to_float)


@metric(scores="unreduced")
def auc_at_k(k: Ks = None, cluster: str | None = None, confidence: float = 0.95,
             to_float: ToFloat | None = None) -> Metric:
    """AUC@k (the area under the pass@j curve, j = 1..k), as
    :func:`pass_at_k`.

    Examples:
        >>> from kscore.inspect import auc_at_k
        >>> m = auc_at_k(4)
    """
    return _budgeted("auc_at_k", k, cluster, confidence, to_float)


@metric(scores="unreduced")
def bayes(w: Sequence[float] | None = None, cluster: str | None = None, confidence: float = 0.95,
          to_float: ToFloat | None = None) -> Metric:
    """Bayes@N: the mean over samples of each sample's posterior mean reward
    (Dirichlet prior, one pseudo-count per outcome), its standard error and
    interval over samples. ``w``: the rewards of the outcomes (default
    ``[0, 1]``); each score value, as a number, must equal one of them
    (``w=[0, 0.5, 1]`` takes inspect's C / P / I).

    Examples:
        >>> from kscore.inspect import bayes
        >>> m = bayes(w=[0, 0.5, 1])
    """
    _check(None, None, confidence, "bayes")
    rewards = _rewards(w, "bayes")
    return _kscore_metric("bayes", lambda n: [Spec("bayes")], rewards, cluster, confidence, to_float)


@metric(scores="unreduced")
def avg_at_n(w: Sequence[float] | None = None, cluster: str | None = None, confidence: float = 0.95,
             to_float: ToFloat | None = None) -> Metric:
    """avg@n: each sample's mean reward over its epochs, averaged over
    samples, with its standard error and interval over samples (``w`` as in
    :func:`bayes`).

    Examples:
        >>> from kscore.inspect import avg_at_n
        >>> m = avg_at_n()
    """
    _check(None, None, confidence, "avg_at_n")
    rewards = _rewards(w, "avg_at_n")
    return _kscore_metric("avg_at_n", lambda n: [Spec("avg_at_n", 0)], rewards, cluster, confidence, to_float)
