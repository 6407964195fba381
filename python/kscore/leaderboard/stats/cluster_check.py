"""A warning where the questions come in groups the intervals do not know
of (issue 36; docs/leaderboard.md, *Intervals*).

Without ``--cluster`` the intervals and paired tests take the questions as
independent. Where they come in groups (passages, source documents,
subjects, templates) that share a difficulty, the standard errors are too
small and the intervals cover far less than they say (62% instead of 95%
with 10 clusters of 10 questions: docs/rankings.md). So for every column
the reader carried because its name looks like a grouping of the questions
(read/columns.py, ``GROUPINGS``), the leaderboard compares each model's
standard error of the sorted metric with that column as clusters and
without: where the median ratio over the models (the design effect on the
standard error) is :data:`LIMIT` or more, a warning names the column and the
flag that takes it into account."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from .intervals import group_se

#: The design effect on the standard error (clustered / independent, median
#: over the models) from which the leaderboard warns.
LIMIT = 1.5


def design_effect(x: FloatArray, model: IntArray, question: IntArray, groups: npt.NDArray[np.int64],
                  models: int) -> float:
    """The median over models of the ratio of the cluster-robust standard
    error of the mean of ``x`` with the questions' ``groups`` as clusters to
    the one without (NaN where no model has two groups)."""
    ok = ~np.isnan(x)
    x, model, question = x[ok], model[ok], question[ok]
    _, se0, _ = group_se(x, model, models, None)
    _, se1, _ = group_se(x, model, models, groups[question])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = se1 / se0
    ratio = ratio[np.isfinite(ratio) & (se0 > 0)]
    return float(np.median(ratio)) if len(ratio) else float("nan")


def grouping_warnings(attributes: dict[str, list[str | None]], columns: tuple[str, ...], x: FloatArray,
                      model: IntArray, question: IntArray, models: int, metric: str) -> list[str]:
    """One warning per column of ``columns`` (question attributes) whose
    design effect on the standard error of ``metric`` (per-row estimates
    ``x``) is :data:`LIMIT` or more; columns with fewer than two groups, or
    about one question per group, are left alone."""
    out = []
    for col in columns:
        values = attributes[col]
        known = [v for v in values if v is not None]
        n_groups = len(set(known))
        if n_groups < 2 or n_groups > len(known) / 2:
            continue
        codes: dict[object, int] = {}
        groups = np.array([codes.setdefault(v if v is not None else (None, i), len(codes))
                           for i, v in enumerate(values)], np.int64)
        deff = design_effect(x, model, question, groups, models)
        if deff >= LIMIT:
            out.append(f"column {col!r} groups the questions ({n_groups} groups) and its groups differ: the "
                       f"standard errors of {metric} with --cluster {col} are {deff:.1f}x as large (median over "
                       f"the models); the intervals and paired tests here take the questions as independent: pass "
                       f"--cluster {col} (cluster={col!r})")
    return out
