"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<date>.jsonl``.

Schema: EleutherAI/lm-evaluation-harness, ``lm_eval/evaluator.py``
(``evaluate()``, the ``example`` dict built per document and filter: ``doc_id``,
``doc``, ``target``, ``arguments``, ``resps``, ``filtered_resps``, ``filter``,
``metrics`` (the metric names), the hashes, then one key per metric with its
per-document value) and ``lm_eval/loggers/evaluation_tracker.py``
(``save_results_samples()``: the file name, one JSON object a line;
``save_results_aggregated()``: ``results_<date>.json`` beside it, with
``model_name``). Checked against lm_eval 0.4.13.

What is read: one row per document: question ``<task>/<doc_id>``, subset the
task (from the file name), sample 0, outcome the value of one metric under one
filter, named as lm_eval names it in its results, ``"<metric>,<filter>"``
(e.g. ``"acc,none"``, ``"exact_match,strict-match"``); default: the first
metric of the first line with that line's filter. Lines of other filters are
skipped (each document appears once per filter). The model comes from the
``results_<date>.json`` written with the samples (same date): the name in its
``config.model_args`` (``pretrained=``, ``model=``, ... as lm_eval picks its
``model_name``), else ``config.model`` (``dummy``, or the class of a model
object): lm_eval's ``model_name`` is then a random folder id (``qdpv68r5``),
used only when nothing else names the model; without a results file, the
directory's name (lm_eval's sanitized model name, ``/`` -> ``__``); or
``model=``.

A metric whose per-document value is a list of numbers (``kscore.lm_eval``'s
metrics: the document's outcome on each repeat) is read as samples 0..n-1.

What it does not hold otherwise: more than one outcome per document. Multiple-choice
``acc`` / ``acc_norm`` are one loglikelihood ranking per document; with
``repeats: n`` the harness keeps all n responses in ``resps`` but scores only
the filtered one (``take_first``, ``majority_vote``, ...), so the per-repeat
outcomes kscore's pass@k needs are not in the file (a task's own pass@k-style
metric, e.g. a per-document fraction, is read as the numeric outcome it is).
Metrics aggregated over the corpus (bleu, chrf, ter, mcc, f1) log per-document
inputs, not scores; they are refused.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ._io import fail, first_json_line, head, jsonl, read_json
from ._table import Rows

NAME = "lm_eval"

_FILE = re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl$")
_RESULTS_HEAD = re.compile(rb'^\s*\{\s*"(results|config_general)"\s*:')


def sniff(path: Path) -> bool:
    """A ``.jsonl`` file whose first object has ``doc_id``, ``filter`` and ``metrics``."""
    if not path.name.lower().endswith(".jsonl"):
        return False
    first = first_json_line(path)
    return first is not None and {"doc_id", "filter", "metrics"} <= first.keys()


def is_companion(path: Path) -> bool:
    """An aggregated ``results_<date>.json`` (lm_eval's, or lighteval's opening
    with ``config_general``): no per-sample outcomes."""
    return path.name.endswith(".json") and bool(_RESULTS_HEAD.match(head(path, 512)))


def read(path: Path, score: str | None = None, model: str | None = None) -> Any:
    """The per-document outcomes of one lm_eval samples file."""
    match = _FILE.match(path.name)
    task = match.group("task") if match else path.stem.removeprefix("samples_")
    name = model or _model(path, match.group("date") if match else None)
    metric = filter_ = None
    if score is not None:
        metric, _, filter_ = score.partition(",")
        filter_ = filter_ or "none"
    rows = Rows()
    for line, obj in jsonl(path):
        if "doc_id" not in obj or "filter" not in obj:
            raise fail(path, "no doc_id / filter (not an lm_eval samples line)", line)
        if metric is None:
            names = obj.get("metrics")
            if not isinstance(names, list) or not names:
                raise fail(path, "no metrics list to choose the outcome from", line)
            metric, filter_ = str(names[0]), str(obj["filter"])
        if obj["filter"] != filter_:
            continue
        if metric not in obj:
            raise fail(path, f"no metric '{metric}' (metrics: {', '.join(map(str, obj.get('metrics') or []))})", line)
        value = obj[metric]
        # kscore.lm_eval's metrics log a document's outcomes, one per repeat.
        values = value if isinstance(value, list) and value else [value]
        for sample, v in enumerate(values):
            if isinstance(v, bool):
                v = float(v)
            if not isinstance(v, int | float) or not math.isfinite(v):
                raise fail(path, f"metric '{metric}' is {str(value)[:60]!r}, not a per-document score"
                                 " (a corpus-level metric's inputs?)", line)
            rows.add(name, f"{task}/{obj['doc_id']}", sample, float(v), task)
    if not rows:
        raise fail(path, f"no lines with filter '{filter_}'" if filter_ else "no samples (empty file)")
    return rows.table()


#: The ``model_args`` keys lm_eval takes its ``model_name`` from, in its order
#: (lm_eval/loggers/evaluation_tracker.py, ``GeneralConfigTracker._get_model_name``).
_NAME_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def _named_in(args: Any) -> str | None:
    """The model's name in lm_eval's ``model_args`` (a dict or ``k=v,...``)."""
    if isinstance(args, dict):
        for key in _NAME_KEYS:
            if args.get(key):
                return str(args[key])
    elif isinstance(args, str):
        pairs = dict(part.split("=", 1) for part in args.split(",") if "=" in part)
        for key in _NAME_KEYS:
            if pairs.get(key):
                return pairs[key]
    return None


def _model(path: Path, date: str | None) -> str:
    """The model of the results file of the same run (see the module
    docstring), else the directory name."""
    if date is not None:
        for results in sorted(path.parent.glob(f"*_{date}.json")):
            if not is_companion(results):
                continue
            doc = read_json(results)
            if not isinstance(doc, dict):
                continue
            config = doc.get("config")
            config = config if isinstance(config, dict) else {}
            named = _named_in(config.get("model_args"))
            if named:
                return named
            source = config.get("model")
            if isinstance(source, str) and source:
                return source
            if isinstance(doc.get("model_name"), str) and doc["model_name"]:
                return str(doc["model_name"])
    return path.parent.name or path.stem
