"""What the board shows of each model: its row and each metric's value."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Value:
    """One metric of one model.

    ``estimate``: the classic value people report (the mean over questions of
    the unbiased per-question estimator; Bayes@N's posterior mean), which the
    board shows and ranks by. ``sigma``, ``lo``, ``hi``: the standard error
    and interval of the board's ``interval`` (``questions``: over the
    sampling of questions; ``posterior``: the Bayesian posterior sd and
    credible interval, conditional on the questions; NaN where the metric
    has no posterior, cons@k). ``posterior_mean``: the centre of the
    posterior interval (``posterior`` only), which need not equal the
    estimate."""

    estimate: float
    sigma: float
    lo: float
    hi: float
    posterior_mean: float | None = None


@dataclass
class ModelRow:
    """One model: its questions, samples per question (min, max), mean
    reward per sample (``accuracy``), its metrics (None where not computed)
    and its rank range (best, worst) by the sorted metric."""

    model: str
    questions: int
    n_min: int
    n_max: int
    accuracy: float
    values: dict[str, Value | None]
    rank: tuple[int, int] | None = None
