"""The metric lm_eval calls on each document: its filtered responses, one per
repeat, graded against the target and tagged with the kscore metrics asked for.

lm_eval calls a ``generate_until`` metric as ``fn(references=[target],
predictions=[filtered])`` plus the keyword arguments of its ``metric_list``
entry. With a filter pipeline that keeps every repeat (no ``take_first``),
``filtered`` is the list of the document's ``repeats`` responses. Each is
graded with lm_eval's own ``exact_match`` (and its options), or, where a
filter already graded it (a bool or a 0/1 number), taken as it is."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from ..leaderboard.api import LeaderboardError, Metric, default_ks, parse_ks, parse_metrics
from ._aggregate import Outcomes

#: lm_eval's ``exact_match`` options, passed on to it.
GRADING = ("regexes_to_ignore", "ignore_case", "ignore_punctuation", "ignore_numbers")


@lru_cache(maxsize=256)
def _metrics(spec: str | None, k: str | None, n: int) -> tuple[Metric, ...]:
    """The metrics a ``metric_list`` entry names (the leaderboard's syntax),
    parsed once per (spec, k, repeats)."""
    try:
        ks = parse_ks(k)
        chosen = parse_metrics([spec] if spec else None, ks if ks is not None else default_ks(n))
    except LeaderboardError as exc:
        raise ValueError(f"kscore.lm_eval: {exc}".replace("--metric", "metrics:").replace("--k", "k:")) from None
    return tuple(chosen)


def _text(value: Any) -> str:
    """A spec given as a YAML list or a string, as one comma-separated string."""
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def grade(responses: Sequence[Any], target: Any, **options: Any) -> list[int]:
    """One 0/1 per response: lm_eval's ``exact_match`` of the response with the
    target (``options``: its ``ignore_case``, ``ignore_punctuation``,
    ``ignore_numbers``, ``regexes_to_ignore``), or the response itself where a
    filter has already graded it (a bool, or a number that is 0 or 1).

    Examples:
        >>> grade(["42", " 42", "41", True], "42")
        [1, 0, 0, 1]
        >>> grade(["Paris", "paris."], "paris", ignore_case=True, ignore_punctuation=True)
        [1, 1]
    """
    from lm_eval.api.metrics import exact_match_hf_evaluate

    out: list[int] = []
    for i, r in enumerate(responses):
        if isinstance(r, bool):
            out.append(int(r))
        elif isinstance(r, int | float):
            if r not in (0, 1) or (isinstance(r, float) and math.isnan(r)):
                raise ValueError(f"kscore.lm_eval: repeat {i} was graded {r!r}; a graded repeat must be 0 or 1")
            out.append(int(r))
        elif isinstance(r, str):
            hit = exact_match_hf_evaluate(predictions=[r], references=[str(target)], **options)["exact_match"]
            out.append(int(hit == 1.0))
        else:
            raise ValueError(f"kscore.lm_eval: repeat {i} is {str(r)[:60]!r}; "
                             "expected a response string or a 0/1 grade")
    return out


def outcomes(references: Sequence[Any] | None = None, predictions: Sequence[Any] | None = None,
             **kwargs: Any) -> dict[str, Outcomes]:
    """lm_eval's metric ``kscore``: one document's repeats graded, under the name
    of each kscore metric asked for (``metrics``: the leaderboard's names,
    e.g. ``"pass@1,pass@4,maj@4,g-pass@4_0.5,bayes@N"``, or a list; ``k``: the
    budgets ``K=k`` stands for; default ``pass@1``, ``pass@k``, ``maj@k``,
    ``bayes@N`` at k = 1, 4, 16 up to the repeats). The other keywords are
    lm_eval's ``exact_match`` options.

    Examples:
        >>> out = outcomes(references=["4"], predictions=[["4", "5", "4", "4"]], metrics="pass@2,maj@3")
        >>> {name: (list(o), o.metric.k) for name, o in out.items()}
        {'pass@2': ([1, 0, 1, 1], 2), 'maj@3': ([1, 0, 1, 1], 3)}
    """
    unknown = sorted(set(kwargs) - {"metrics", "k", *GRADING})
    if unknown:
        raise ValueError(f"kscore.lm_eval: unknown option {unknown[0]!r} of the metric 'kscore' "
                         f"(options: metrics, k, {', '.join(GRADING)})")
    if not references or not predictions or len(references) != 1 or len(predictions) != 1:
        raise ValueError("kscore.lm_eval: the metric 'kscore' scores one document at a time (a generate_until task)")
    responses = predictions[0]
    if not isinstance(responses, list | tuple):
        raise ValueError("kscore.lm_eval: the metric 'kscore' got one response per document; give the task a "
                         "filter_list that keeps every repeat (no take_first), see docs/lm_eval.md")
    if not responses:
        raise ValueError("kscore.lm_eval: a document has no responses")
    spec = kwargs.get("metrics")
    k = kwargs.get("k")
    chosen = _metrics(None if spec is None else _text(spec), None if k is None else _text(k), len(responses))
    graded = grade(responses, references[0], **{o: kwargs[o] for o in GRADING if o in kwargs})
    return {m.name: Outcomes(graded, m) for m in chosen}
