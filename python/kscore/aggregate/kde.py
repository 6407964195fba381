r"""KDE-calibrated weighted voting (Kuang et al., 2025, Sec. 4.1): scorio.aggregate's
``KDEVoteCalibration``, ``fit_kde_vote_calibration`` and ``kde_weighted_vote``.

The calibration is scorio 0.2.3's (``scorio/aggregate/calibration.py``): the same
fields, checks, messages, Scott bandwidths and quantile bins (the same numpy calls, so
the same fitted state). The vote differs in how it is computed, not in what: scorio
evaluates the two Gaussian KDEs one query at a time (a ``logsumexp`` over the
calibration samples per candidate) and groups one question at a time; here every valid
candidate of every question is one block of queries (a matrix of standardised
distances, scipy's ``logsumexp`` arithmetic per row) and the groups come from the
shared answer pools (:mod:`._pool`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import FloatArray, IntArray
from ._pool import Pool, pack, pool

__all__ = ["KDEVoteCalibration", "fit_kde_vote_calibration", "kde_weighted_vote"]

#: Cells of one (queries x samples) block of the KDE.
_CELLS = 2_000_000


def _readonly_vector(values: Any, *, name: str) -> FloatArray:
    array = np.array(values, dtype=float, copy=True)
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}.")
    array.setflags(write=False)
    return array


def _probability_scores(values: Any, *, name: str) -> FloatArray:
    scores = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(scores)) or not np.all((scores > 0.0) & (scores < 1.0)):
        raise ValueError(f"{name} must all be finite and strictly in (0, 1).")
    return scores


def _logit(values: FloatArray) -> FloatArray:
    out: FloatArray = np.log(values) - np.log1p(-values)
    return out


def _log_gaussian_kde(query_logits: FloatArray, samples: FloatArray, bandwidth: float) -> FloatArray:
    """The log density of a 1-D Gaussian KDE at every query: blocks of queries x
    samples, each row's ``logsumexp`` as scipy computes it (the maxima taken out of
    the sum, then ``log1p``)."""
    query = np.asarray(query_logits, dtype=float)
    # Each distinct query once (scores are often rounded: many repeat).
    flat, inverse = np.unique(query.reshape(-1), return_inverse=True)
    out = np.empty(flat.size)
    normalizer = math.log(samples.size * bandwidth * math.sqrt(2.0 * math.pi))
    step = max(1, _CELLS // max(1, samples.size))
    for start in range(0, flat.size, step):
        q = flat[start : start + step]
        standardized = (q[:, None] - samples[None, :]) / bandwidth
        a = -0.5 * standardized**2
        top = a.max(axis=1)
        at_top = a == top[:, None]
        count = at_top.sum(axis=1)
        rest = np.where(at_top, 0.0, np.exp(a - top[:, None])).sum(axis=1)
        out[start : start + step] = (np.log1p(rest / count) + np.log(count) + top) - normalizer
    return out[inverse.ravel()].reshape(query.shape)


@dataclass(frozen=True, eq=False)
class KDEVoteCalibration:
    """Fitted state for KDE weighted voting: calibration logits of correct and
    incorrect responses, their Gaussian bandwidths, and a binned correctness
    calibrator (``bin_edges`` from -inf to +inf, ``bin_probability``). Arrays are
    read-only copies. Build it with :func:`fit_kde_vote_calibration`."""

    correct_logits: FloatArray
    incorrect_logits: FloatArray
    correct_bandwidth: float
    incorrect_bandwidth: float
    bin_edges: FloatArray
    bin_probability: FloatArray
    kernel: str = "gaussian"
    binning: str = "quantile"

    def __post_init__(self) -> None:
        correct = _readonly_vector(self.correct_logits, name="correct_logits")
        incorrect = _readonly_vector(self.incorrect_logits, name="incorrect_logits")
        edges = _readonly_vector(self.bin_edges, name="bin_edges")
        probabilities = _readonly_vector(self.bin_probability, name="bin_probability")

        if correct.size == 0 or incorrect.size == 0:
            raise ValueError("KDE calibration needs correct and incorrect samples.")
        if not np.all(np.isfinite(correct)) or not np.all(np.isfinite(incorrect)):
            raise ValueError("KDE logit samples must all be finite.")
        if (
            not math.isfinite(float(self.correct_bandwidth))
            or float(self.correct_bandwidth) <= 0.0
            or not math.isfinite(float(self.incorrect_bandwidth))
            or float(self.incorrect_bandwidth) <= 0.0
        ):
            raise ValueError("KDE bandwidths must be finite and > 0.")
        if edges.size != probabilities.size + 1 or edges.size < 2:
            raise ValueError("bin_edges must contain exactly one more value than bins.")
        if not math.isinf(edges[0]) or edges[0] >= 0.0:
            raise ValueError("bin_edges must start at -inf.")
        if not math.isinf(edges[-1]) or edges[-1] <= 0.0:
            raise ValueError("bin_edges must end at +inf.")
        if not np.all(np.diff(edges) > 0.0):
            raise ValueError("bin_edges must be strictly increasing.")
        if not np.all(np.isfinite(probabilities)) or not np.all((probabilities >= 0.0) & (probabilities <= 1.0)):
            raise ValueError("bin_probability values must be finite and in [0, 1].")
        if self.kernel != "gaussian":
            raise ValueError("only the implemented 'gaussian' kernel is valid.")
        if self.binning != "quantile":
            raise ValueError("only the implemented 'quantile' binning is valid.")

        object.__setattr__(self, "correct_logits", correct)
        object.__setattr__(self, "incorrect_logits", incorrect)
        object.__setattr__(self, "bin_edges", edges)
        object.__setattr__(self, "bin_probability", probabilities)
        object.__setattr__(self, "correct_bandwidth", float(self.correct_bandwidth))
        object.__setattr__(self, "incorrect_bandwidth", float(self.incorrect_bandwidth))

    @property
    def n_bins(self) -> int:
        """Number of fitted correctness-calibration bins."""
        return int(self.bin_probability.size)

    def calibrated_probability(self, scores: Any) -> FloatArray:
        """Each score's fitted-bin correctness probability (any shape)."""
        values = _probability_scores(scores, name="scores")
        indices = np.searchsorted(self.bin_edges[1:-1], values, side="right")
        out: FloatArray = self.bin_probability[indices]
        return out

    def log_density_ratio(self, scores: Any) -> FloatArray:
        """``log f1(p) - log f0(p)`` of the two KDEs (over logits) at each score."""
        values = _probability_scores(scores, name="scores")
        logits = _logit(values)
        log_correct = _log_gaussian_kde(logits, self.correct_logits, self.correct_bandwidth)
        log_incorrect = _log_gaussian_kde(logits, self.incorrect_logits, self.incorrect_bandwidth)
        out: FloatArray = log_correct - log_incorrect
        return out

    def weights(self, scores: Any, *, n_answers: int) -> FloatArray:
        """One response pool's vote weights
        ``log f1 - log f0 + log q + log(m - 1) - log(1 - q)`` (``q``: the pool's mean
        calibrated probability; ``q`` of 0 or 1 gives -inf or +inf offsets)."""
        if isinstance(n_answers, bool) or not isinstance(n_answers, (int, np.integer)):
            raise ValueError(f"n_answers must be an integer >= 2; got {n_answers!r}.")
        if int(n_answers) < 2:
            raise ValueError("n_answers must be >= 2 for the KDE weight formula.")
        values = _probability_scores(scores, name="scores")
        if values.ndim != 1 or values.size == 0:
            raise ValueError("scores must be a nonempty 1D response pool.")
        q_hat = float(np.mean(self.calibrated_probability(values)))
        if q_hat == 0.0:
            offset = float("-inf")
        elif q_hat == 1.0:
            offset = float("inf")
        else:
            offset = math.log(q_hat) + math.log(int(n_answers) - 1) - math.log1p(-q_hat)
        out: FloatArray = self.log_density_ratio(values) + offset
        return out


def _resolve_bandwidth(samples: FloatArray, specification: Any, label: str) -> float:
    if isinstance(specification, str):
        if specification != "scott":
            raise ValueError("bandwidth must be a positive number, pair, or 'scott'.")
        if samples.size < 2:
            raise ValueError(
                f"Scott bandwidth for {label} needs at least two samples; supply an explicit bandwidth instead."
            )
        sd = float(np.std(samples, ddof=1))
        if not math.isfinite(sd) or sd <= 0.0:
            raise ValueError(
                f"Scott bandwidth is undefined for constant {label} logits; "
                "supply an explicit positive bandwidth instead."
            )
        return float(sd * samples.size ** (-1.0 / 5.0))
    try:
        value = float(specification)
    except (TypeError, ValueError) as exc:
        raise ValueError("bandwidth must be a positive number, pair, or 'scott'.") from exc
    if not math.isfinite(value) or value <= 0.0:
        raise ValueError(f"bandwidth must be finite and > 0; got {specification!r}.")
    return value


def _bandwidth_specifications(bandwidth: Any) -> tuple[Any, Any]:
    if isinstance(bandwidth, np.ndarray) and bandwidth.ndim == 0:
        scalar = bandwidth.item()
        return scalar, scalar
    if isinstance(bandwidth, (tuple, list, np.ndarray)):
        if len(bandwidth) != 2:
            raise ValueError("a bandwidth sequence must be (correct, incorrect).")
        return bandwidth[0], bandwidth[1]
    return bandwidth, bandwidth


def fit_kde_vote_calibration(
    scores: Any,
    correct: Any,
    *,
    n_bins: int = 10,
    bandwidth: Any = "scott",
) -> KDEVoteCalibration:
    """Fit the two class KDEs (over logits; Scott's rule per class by default, one
    number shared, or a ``(correct, incorrect)`` pair) and ``n_bins`` equal-frequency
    bins of correctness (repeated boundaries collapsed) from labelled scalar scores."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)):
        raise ValueError(f"n_bins must be an integer >= 1; got {n_bins!r}.")
    if int(n_bins) < 1:
        raise ValueError(f"n_bins must be >= 1; got {n_bins}.")

    score_array = _probability_scores(scores, name="scores")
    correct_array = np.asarray(correct)
    if correct_array.shape != score_array.shape:
        raise ValueError(
            f"scores and correct must have the same shape; got {score_array.shape} and {correct_array.shape}."
        )
    try:
        numeric = correct_array.astype(float)
    except (TypeError, ValueError) as exc:
        raise ValueError("correct must contain only boolean or 0/1 values.") from exc
    if not np.all(np.isfinite(numeric)) or not np.all((numeric == 0.0) | (numeric == 1.0)):
        raise ValueError("correct must contain only boolean or 0/1 values.")

    flat_scores = score_array.reshape(-1)
    flat_correct = numeric.reshape(-1).astype(bool)
    if flat_scores.size == 0:
        raise ValueError("need at least one calibration response.")
    if not np.any(flat_correct) or np.all(flat_correct):
        raise ValueError("KDE calibration needs correct and incorrect responses.")

    logits = _logit(flat_scores)
    correct_logits = logits[flat_correct]
    incorrect_logits = logits[~flat_correct]
    correct_spec, incorrect_spec = _bandwidth_specifications(bandwidth)
    correct_bandwidth = _resolve_bandwidth(correct_logits, correct_spec, "correct-class")
    incorrect_bandwidth = _resolve_bandwidth(incorrect_logits, incorrect_spec, "incorrect-class")

    # Observed values as boundaries: no bin without data on small or discrete sets.
    quantiles = np.quantile(flat_scores, np.linspace(0.0, 1.0, int(n_bins) + 1), method="nearest")
    internal = np.unique(quantiles[1:-1])
    internal = internal[(internal > float(np.min(flat_scores))) & (internal < float(np.max(flat_scores)))]
    edges = np.concatenate(([-np.inf], internal, [np.inf]))
    indices = np.searchsorted(edges[1:-1], flat_scores, side="right")
    size = np.bincount(indices, minlength=edges.size - 1)
    hits = np.bincount(indices, weights=flat_correct.astype(float), minlength=edges.size - 1)
    # scorio takes np.mean of each bin's booleans: hits / size is that quotient.
    probabilities = hits / size

    return KDEVoteCalibration(
        correct_logits=correct_logits,
        incorrect_logits=incorrect_logits,
        correct_bandwidth=correct_bandwidth,
        incorrect_bandwidth=incorrect_bandwidth,
        bin_edges=edges,
        bin_probability=probabilities,
    )


def kde_weighted_vote(
    answers: Any,
    scores: Any,
    calibration: KDEVoteCalibration,
    *,
    return_index: bool = False,
    return_score: bool = False,
) -> Any:
    """Per question, the answer group with the largest sum of KDE weights
    (:meth:`KDEVoteCalibration.weights`, ``q`` and ``m`` over the question's valid
    candidates); ties to the earliest appearance. At ``q`` of exactly 1 (0) the larger
    (smaller) group wins, its summed log density ratio breaking count ties (scorio's
    limits). One answer: it wins."""
    if not isinstance(calibration, KDEVoteCalibration):
        raise TypeError("calibration must be a KDEVoteCalibration.")
    p = pool(answers, scores, require_scores=True)
    assert p.scores is not None
    valid = p.valid
    bad = valid & ~((p.scores > 0.0) & (p.scores < 1.0))
    if bad.any():
        raise ValueError("valid scores must all be finite and strictly in (0, 1).")
    answer, rep = _winners(p, calibration)
    return pack(p, (answer, rep), return_index=return_index, return_score=return_score)


def _winners(p: Pool, calibration: KDEVoteCalibration) -> tuple[IntArray, IntArray]:
    assert p.scores is not None
    m, n = p.shape
    valid = p.valid
    rows = np.arange(m)
    groups = (p.codes.max(axis=1, initial=-1) + 1).astype(np.int64)
    size = valid.sum(axis=1)
    values = p.scores[valid]
    ratio = np.zeros((m, n))
    ratio[valid] = calibration.log_density_ratio(values) if values.size else values
    calibrated = np.zeros((m, n))
    calibrated[valid] = calibration.calibrated_probability(values) if values.size else values
    q_hat = calibrated.sum(axis=1) / np.maximum(size, 1)
    # Each group's count and summed ratio (column order), keyed row * N + code.
    key = (rows[:, None] * n + p.codes)[valid]
    count = np.bincount(key, minlength=m * n).reshape(m, n).astype(float)
    ratio_sum = np.bincount(key, weights=ratio[valid], minlength=m * n).reshape(m, n)
    present = np.arange(n)[None, :] < groups[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        offset = np.log(q_hat) + np.log(np.maximum(groups - 1, 1)) - np.log1p(-q_hat)
    one = (q_hat == 1.0)[:, None]
    zero = (q_hat == 0.0)[:, None]
    with np.errstate(invalid="ignore"):  # inf offsets at q of 0 or 1: those rows take the limit rule
        weighed = ratio_sum + count * offset[:, None]
    primary = np.where(one, count, np.where(zero, -count, weighed))
    secondary = np.where(one | zero, ratio_sum, 0.0)
    primary = np.where(present, primary, -np.inf)
    best = primary.max(axis=1, initial=-np.inf)
    tie = present & (primary == best[:, None])
    secondary = np.where(tie, secondary, -np.inf)
    win = np.argmax(secondary, axis=1)  # the first of the best: the earliest appearance
    win = np.where(groups == 1, 0, win)
    member = (p.codes == win[:, None]) & (groups > 0)[:, None]
    cols = np.broadcast_to(np.arange(n), (m, n))
    has = groups > 0
    first = np.where(has, np.where(member, cols, n).min(axis=1), -1)
    rep = np.where(has, np.argmax(np.where(member, p.scores, -np.inf), axis=1), -1)
    return first.astype(np.int64), rep.astype(np.int64)
