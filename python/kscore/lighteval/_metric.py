"""kscore's metrics as one lighteval sample-level metric: each document's
samples graded (lighteval's own normalisation and scoring), every kscore
metric asked for computed from the document's ``(n, c)`` counts by the
leaderboard's kernel, and averaged over documents by lighteval with its
standard error.

lighteval gives an aggregation whose name contains ``mean`` the closed-form
standard error of a mean (``lighteval.metrics.utils.stderr``:
``mean_stderr``, the sample standard deviation over the square root of the
number of documents) and bootstraps every other; kscore's aggregation is such
a mean, so its standard error is ``kscore.leaderboard``'s sigma over
questions, without a bootstrap."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from lighteval.metrics.metrics_sample import SampleLevelComputation, SamplingMetric
from lighteval.metrics.utils.metric_utils import SampleLevelMetricGrouping
from lighteval.models.model_output import ModelResponse
from lighteval.tasks.requests import Doc, SamplingMethod

from ..leaderboard.api import LeaderboardError, Metric, default_ks, parse_ks, parse_metrics, question_estimates

#: The metrics when none are named: the leaderboard's default (pass@1, pass@k
#: for k = 4, 16 up to n, maj@ the largest k, Bayes@N).
DEFAULT = None
_BINARY = np.array([0.0, 1.0])


def kscore_mean(values: Sequence[float]) -> float:
    """The mean over documents of their estimates (lighteval's corpus-level
    function; its name gives it lighteval's closed-form ``mean_stderr``).

    Examples:
        >>> kscore_mean([0.25, 0.75, 1.0])
        0.6666666666666666
    """
    return float(np.mean(np.asarray(values, dtype=np.float64)))


class KscoreSampling(SamplingMetric, SampleLevelComputation):  # type: ignore[misc,unused-ignore]
    """The sample-level computation: grade the first ``n`` samples of a
    document (lighteval's ``SamplingMetric`` scoring: ``normalize``,
    ``strip_strings``, ``sample_scoring_function``), then each metric of
    ``metrics`` (kscore leaderboard names) on the document's counts.

    ``k``: the budgets ``K = k`` stands for in ``metrics`` (default 1, 4, 16
    up to ``n``)."""

    def __init__(self, metrics: str | Sequence[str] | None = DEFAULT, n: int = 16, k: Sequence[int] | None = None,
                 **scoring: Any) -> None:
        super().__init__(**scoring)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"kscore.lighteval: n (samples per document) must be a positive integer; got {n!r}")
        spec = None if metrics is None else [metrics] if isinstance(metrics, str) else list(metrics)
        try:
            ks = parse_ks(k)
            chosen = parse_metrics(spec, ks if ks is not None else default_ks(n))
        except LeaderboardError as exc:
            raise ValueError(f"kscore.lighteval: {exc}".replace("--metric", "metrics").replace("--k", "k")) from None
        short = [m for m in chosen if m.budget > n]
        if short:
            raise ValueError(f"kscore.lighteval: {short[0].name} needs at least {short[0].budget} samples per "
                             f"document; n is {n}")
        self.n = n
        self.metrics: tuple[Metric, ...] = tuple(chosen)
        self.metric_names = [m.name for m in chosen]
        self.attribute_must_be_set = ["n"]

    def num_samples(self) -> int:
        """The samples lighteval generates per document."""
        return self.n

    def outcomes(self, doc: Doc, model_response: ModelResponse) -> list[int]:
        """One 0/1 per sample: the first ``n`` samples scored against the
        document's single gold answer, as lighteval's ``PassAtK`` scores them."""
        golds = doc.get_golds()  # type: ignore[no-untyped-call,unused-ignore]
        if len(golds) != 1:
            raise ValueError(f"kscore.lighteval: a document needs exactly one gold answer; it has {len(golds)}")
        predictions = model_response.final_text
        if len(predictions) < self.n:
            raise ValueError(f"kscore.lighteval: a document has {len(predictions)} samples; n is {self.n}")
        gold_doc = Doc(choices=[self.preprocess(g) for g in doc.choices], query=doc.query, gold_index=doc.gold_index)
        out: list[int] = []
        for i, pred in enumerate(predictions[: self.n]):
            score = self.compute_score(gold_doc, ModelResponse(text=[self.preprocess(pred)]))
            if score not in (0, 1):
                raise ValueError(f"kscore.lighteval: sample {i} was scored {score!r}; kscore's metrics need 0 or 1")
            out.append(int(score))
        return out

    def compute(self, doc: Doc, model_response: ModelResponse, **kwargs: Any) -> dict[str, float]:
        """Each metric's estimate on this document."""
        graded = self.outcomes(doc, model_response)
        n, c = len(graded), sum(graded)
        short = [m for m in self.metrics if m.budget > n]
        if short:  # n lowered after construction (lighteval's sample_params): refuse rather than report NaN
            raise ValueError(f"kscore.lighteval: {short[0].name} needs at least {short[0].budget} samples per "
                             f"document; n is {n}")
        cats = np.array([[n - c, c]], dtype=np.int64)
        return {m.name: float(question_estimates(cats, m, _BINARY)[0]) for m in self.metrics}


def sampling_metric(metrics: str | Sequence[str] | None = DEFAULT, n: int = 16, k: Sequence[int] | None = None,
                    sample_scoring_function: Callable[[Doc, ModelResponse], float] | str | None = None,
                    normalize: Callable[[str], str] | str | None = None,
                    strip_strings: bool = True) -> SampleLevelMetricGrouping:
    """A lighteval metric (put it in a ``LightevalTaskConfig``'s ``metrics``)
    reporting each of ``metrics`` (kscore leaderboard names: ``pass@K``,
    ``pass^K``, ``g-pass@K_TAU``, ``mg-pass@K``, ``maj@K``, ``auc@K``,
    ``cons@K``, ``avg@n``, ``bayes@N``) from ``n`` samples per document, with
    its standard error over documents. Scoring as lighteval's ``PassAtK``:
    exact match by default, or ``sample_scoring_function``.

    Examples:
        >>> m = sampling_metric("pass@1,pass@4,g-pass@4_0.5,bayes@N", n=4)
        >>> m.metric_name, m.sample_level_fn.num_samples()
        (['pass@1', 'pass@4', 'g-pass@4_0.5', 'bayes@N'], 4)
    """
    fn = KscoreSampling(metrics, n=n, k=k, sample_scoring_function=sample_scoring_function, normalize=normalize,
                        strip_strings=strip_strings)
    names = list(fn.metric_names)
    return SampleLevelMetricGrouping(
        metric_name=names,
        # lighteval types higher_is_better as callables; its own metrics pass bools.
        higher_is_better=dict.fromkeys(names, True),  # type: ignore[arg-type,unused-ignore]
        category=SamplingMethod.GENERATIVE,
        sample_level_fn=fn,
        corpus_level_fn=dict.fromkeys(names, kscore_mean),
    )
