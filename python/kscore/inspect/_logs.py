"""Paired comparisons, Holm's correction and power from inspect logs
(what inspect_ai #4206 asked for, as an extension).

Every log is read as the leaderboard reads it (``kscore.formats``'
inspect reader: one row per sample and epoch, the scorer's value mapped as
inspect's ``value_to_float()`` maps it), the logs' rows go to one
``kscore.leaderboard`` board, and the comparisons are the board's own
(``Leaderboard.compare`` / ``Leaderboard.pairwise``: the mean paired
difference over the samples both logs scored, its standard error, interval
and two-sided p-value; Holm's step-down over all pairs). Nothing here
re-implements a statistic.

Power: :func:`power` is the board's own design plan
(``Leaderboard.plan``, docs/rankings.md, *Plan*): for each adjacent pair the
smallest difference a two-sided paired test at ``1 - confidence`` detects
with the power asked for, ``(z_{1-alpha/2} + z_power) * se`` (``se`` the
paired standard error of the mean difference), the split of the per-sample
differences' variance into its parts between samples and within them (the
sampling of answers over epochs), and the samples or epochs per sample that
would make the observed difference detectable."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..formats.api import concat, read_inspect_log, samples_table
from ..leaderboard.api import Comparison, Leaderboard, Pairwise, Plan, leaderboard

#: A log: an ``inspect_ai.log.EvalLog`` (with its samples, or read from its
#: ``location``) or the path of a ``.eval`` / ``.json`` log.
LogLike = Any


def _rows_of(log: LogLike, score: str | None) -> tuple[Any, str, str]:
    """A log's long-format rows, its model and task."""
    if isinstance(log, str | os.PathLike):
        path = Path(os.fspath(log))
        if not path.is_file():
            raise ValueError(f"{path}: no such inspect log")
        table = read_inspect_log(path, score)
        models = set(table.column("model").to_pylist())
        # (the reader puts the task in ``subset``; a task name may hold a "/", so not from the question)
        return table, str(models.pop()), str(table.column("subset")[0])
    spec = getattr(log, "eval", None)
    if spec is None or not hasattr(spec, "model") or not hasattr(spec, "task"):
        raise TypeError(f"kscore.inspect: expected an inspect_ai EvalLog or a log path; got {type(log).__name__}")
    samples = getattr(log, "samples", None)
    if samples is None:  # (read with header_only): read the file it came from
        location = getattr(log, "location", None)
        if location and Path(str(location)).is_file():
            return _rows_of(str(location), score)
        raise ValueError(f"kscore.inspect: the EvalLog of {spec.task} ({spec.model}) has no samples and no log file; "
                         "read it with read_eval_log(path) (not header_only)")
    where = Path(str(getattr(log, "location", None) or f"EvalLog {spec.task}"))
    # The reader's own checks on the samples as the log file holds them.
    plain = [{"id": s.id, "epoch": s.epoch, "error": s.error,
              "scores": {k: {"value": v.value} for k, v in (s.scores or {}).items()}} for s in samples]
    scorers = [{"name": s.name} for s in (spec.scorers or [])]
    table = samples_table(where, spec.model, spec.task, {"scorers": scorers}, plain, score)
    return table, str(spec.model), str(spec.task)


def board(logs: Sequence[LogLike], *, metric: str = "pass@1", score: str | None = None, confidence: float = 0.95,
          names: Sequence[str] | None = None) -> tuple[Leaderboard, list[str]]:
    """One ``kscore.leaderboard`` of the logs (same task, a model each) on
    ``metric`` (a leaderboard metric name: ``pass@1``, ``pass@4``,
    ``maj@5``, ``bayes@N``, ...), and each log's label on it. ``names``: a
    label per log (default: its model; the same model twice is told apart
    by its position). ``score``: the scorer (default: the log's first)."""
    logs = list(logs)
    if len(logs) < 2:
        raise ValueError(f"kscore.inspect: compare needs at least two logs; got {len(logs)}")
    if names is not None and (len(names) != len(logs) or len(set(names)) != len(names)):
        raise ValueError("kscore.inspect: names needs one distinct label per log")
    read = [_rows_of(x, score) for x in logs]
    tasks = sorted({t for _, _, t in read})
    if len(tasks) > 1:
        raise ValueError(f"kscore.inspect: the logs are of different tasks ({', '.join(tasks)}); paired comparisons "
                         "need the same samples")
    labels = list(names) if names is not None else [m for _, m, _ in read]
    if names is None and len(set(labels)) < len(labels):
        labels = [f"{m} [{i + 1}]" for i, m in enumerate(labels)]
    import pyarrow as pa

    tables = [t.set_column(0, "model", pa.array([lab] * t.num_rows, pa.string())) for (t, _, _), lab in
              zip(read, labels)]
    return leaderboard(concat(tables), metrics=metric, confidence=confidence), labels


def compare(a: LogLike, b: LogLike, *, metric: str = "pass@1", score: str | None = None,
            confidence: float = 0.95) -> Comparison:
    """Log ``a`` minus log ``b`` (same task, two models) on ``metric``: the
    mean paired difference over the samples both scored, its standard
    error, ``confidence`` interval and two-sided p-value (one test).

    Examples:
        >>> from kscore.inspect import compare
        >>> c = compare("logs/a.eval", "logs/b.eval", metric="pass@1")  # doctest: +SKIP
        >>> c.diff, c.lo, c.hi, c.p  # doctest: +SKIP
    """
    lb, (first, second) = board([a, b], metric=metric, score=score, confidence=confidence)
    return lb.compare(first, second)


def compare_all(logs: Sequence[LogLike], *, metric: str = "pass@1", score: str | None = None,
                confidence: float = 0.95, names: Sequence[str] | None = None) -> Pairwise:
    """Every pair of logs (same task, a model each) on ``metric``: the
    board's :class:`~kscore.leaderboard.Pairwise` matrices in the board's
    order (best first) with raw and Holm-adjusted p-values (``p_holm``:
    Holm's step-down over all the pairs).

    Examples:
        >>> from kscore.inspect import compare_all
        >>> pw = compare_all(["a.eval", "b.eval", "c.eval"])  # doctest: +SKIP
        >>> pw.models, pw.p_holm  # doctest: +SKIP
    """
    lb, _ = board(logs, metric=metric, score=score, confidence=confidence, names=names)
    return lb.pairwise()


def power(logs: Sequence[LogLike], *, metric: str = "pass@1", score: str | None = None, confidence: float = 0.95,
          target: float = 0.8, names: Sequence[str] | None = None) -> Plan:
    """The design plan of the logs' board on ``metric`` at power ``target``
    (``Leaderboard.plan``): per model, the variance of its per-sample
    estimates within samples (over epochs) and between samples; per adjacent
    pair (board order), the minimum detectable difference
    (``pairs[i].detectable``), that difference with unlimited epochs
    (``floor``), and the samples (``questions_needed``) or epochs per sample
    (``samples_needed``) that would make the observed difference detectable.

    Examples:
        >>> from kscore.inspect import power
        >>> plan = power(["a.eval", "b.eval"])  # doctest: +SKIP
        >>> plan.pairs[0].detectable, plan.lines()  # doctest: +SKIP
    """
    lb, _ = board(logs, metric=metric, score=score, confidence=confidence, names=names)
    return lb.plan(power=target)
