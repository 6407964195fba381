"""inspect_ai evaluation logs: ``.eval`` (a ZIP archive) and ``.json``.

Schema: ``EvalLog`` / ``EvalSample`` / ``EvalSampleSummary`` / ``Score`` in
UKGovernmentBEIS/inspect_ai, ``src/inspect_ai/log/_log.py`` and
``src/inspect_ai/scorer/_metric.py``; the ``.eval`` layout (``header.json``,
``summaries.json``, ``_journal/summaries/<n>.json``, ``samples/<id>_epoch_<n>.json``)
in ``src/inspect_ai/log/_recorders/eval.py``. Checked against inspect_ai 0.3.285.

What is read: the model (``eval.model``), the task (``eval.task``), and one
row per sample and epoch: question ``<task>/<sample id>``, sample = the epoch
(1-based, as inspect numbers them), outcome = the value of one scorer mapped
to a number as inspect's own ``value_to_float()`` maps it: ``"C"`` -> 1,
``"P"`` -> 0.5, ``"I"`` and ``"N"`` -> 0, numbers and booleans as numbers,
the strings yes/true -> 1 and no/false -> 0, numeric strings as numbers.
Where inspect would log a warning and score 0 (any other string, a list or a
dict value), this reader raises instead.

A ``.eval`` log is read from its sample summaries (``summaries.json``, or the
journal's ``_journal/summaries/*.json`` of a log still running), which carry
the scores but not the messages; a ``.json`` log is one JSON document and is
parsed whole, messages and events included.

What it does not hold: samples that ended in an error have no score (inspect
leaves them out of its metrics; they are skipped here with a warning); the
epoch reduction (``reductions``) is inspect's own per-sample summary and is not
read, since kscore wants the unreduced epochs. A score whose value is a dict
(several named values) or a list is not one outcome and is refused.
"""

from __future__ import annotations

import math
import re
import warnings
import zipfile
from pathlib import Path
from typing import Any

from ._io import fail, head, open_zip, parse_json, read_json, zip_member
from ._table import Rows

NAME = "inspect"

_JSON_HEAD = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:')
_JOURNAL = re.compile(r"^_journal/summaries/(\d+)\.json$")


def sniff(path: Path) -> bool:
    """An inspect log: a ZIP ``.eval`` file, or a ``.json`` file that opens
    with inspect's ``{"version": N, "status": ...`` header."""
    name = path.name.lower()
    if name.endswith(".eval"):
        return head(path, 4) == b"PK\x03\x04"
    if name.endswith(".json"):
        return bool(_JSON_HEAD.match(head(path, 512)))
    return False


def to_float(value: Any) -> float | None:
    """inspect_ai's default ``value_to_float()`` (``scorer/_metric.py``), with
    None where inspect would warn and return 0."""
    if value == "C":
        return 1.0
    if value == "P":
        return 0.5
    if value == "I" or value == "N":
        return 0.0
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            number = float(low)
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def read(path: Path, score: str | None = None, model: str | None = None) -> Any:
    """The graded samples of one inspect log as a long-format table.

    ``score`` names the scorer to read (default: the log's first scorer);
    ``model`` overrides the model named in the log."""
    if path.name.lower().endswith(".eval"):
        header, samples = _read_eval(path)
    else:
        header = read_json(path)
        if not isinstance(header, dict):
            raise fail(path, "not an inspect log (expected a JSON object)")
        samples = header.get("samples") or []
    spec = header.get("eval")
    if not isinstance(spec, dict) or not isinstance(spec.get("model"), str) or not isinstance(spec.get("task"), str):
        raise fail(path, "not an inspect log: no eval.model / eval.task in the header")
    if not isinstance(samples, list):
        raise fail(path, "samples is not a list")
    task: str = spec["task"]
    return samples_table(path, model or spec["model"], task, spec, samples, score)


def samples_table(path: Path, model: str, task: str, spec: dict[str, Any], samples: list[Any],
                  score: str | None = None) -> Any:
    """A log's samples (as the log file holds them) as a long-format table:
    ``spec`` is the log's ``eval`` header (its ``scorers``), ``score`` the
    scorer to read (default: the log's first); also for an inspect_ai
    ``EvalLog`` in memory (kscore.inspect)."""
    scorer = score or _first_scorer(spec, samples)
    return _rows(path, model, task, scorer, samples).table()


def _read_eval(path: Path) -> tuple[dict[str, Any], list[Any]]:
    """The header and the sample summaries of a ``.eval`` archive."""
    with open_zip(path) as archive:
        names = set(archive.namelist())
        header_name = "header.json" if "header.json" in names else "_journal/start.json"
        if header_name not in names:
            raise fail(path, "not an inspect .eval log: no header.json or _journal/start.json")
        header = parse_json(path, zip_member(path, archive, header_name), header_name)
        if not isinstance(header, dict):
            raise fail(path, f"{header_name} is not a JSON object")
        if "summaries.json" in names:
            summaries = _member_list(path, archive, "summaries.json")
        else:
            journal = sorted((int(m.group(1)), n) for n in names if (m := _JOURNAL.match(n)))
            summaries = [s for _, n in journal for s in _member_list(path, archive, n)]
    return header, summaries


def _member_list(path: Path, archive: zipfile.ZipFile, name: str) -> list[Any]:
    value = parse_json(path, zip_member(path, archive, name), name)
    if not isinstance(value, list):
        raise fail(path, f"{name} is not a JSON list")
    return value


def _first_scorer(spec: dict[str, Any], samples: list[Any]) -> str:
    """The scorer a log reports first: ``eval.scorers[0].name``, else the
    first key of the first scored sample."""
    scorers = spec.get("scorers")
    first = scorers[0] if isinstance(scorers, list) and scorers else None
    if isinstance(first, dict) and isinstance(first.get("name"), str):
        return str(first["name"])
    for s in samples:
        if isinstance(s, dict) and isinstance(s.get("scores"), dict) and s["scores"]:
            return str(next(iter(s["scores"])))
    return "(none)"


def _rows(path: Path, model: str, task: str, scorer: str, samples: list[Any]) -> Rows:
    rows = Rows()
    errored: list[str] = []
    for i, s in enumerate(samples):
        if not isinstance(s, dict) or "id" not in s or "epoch" not in s:
            raise fail(path, f"sample {i}: not a sample (needs id and epoch)")
        where = f"sample {s['id']!r} epoch {s['epoch']!r}"
        epoch = s["epoch"]
        if not isinstance(epoch, int) or isinstance(epoch, bool):
            raise fail(path, f"{where}: epoch is not an integer")
        scores = s.get("scores")
        if not scores:
            if s.get("error"):
                errored.append(f"{s['id']}/{epoch}")
                continue
            raise fail(path, f"{where}: no scores")
        if not isinstance(scores, dict):
            raise fail(path, f"{where}: scores is not an object")
        if scorer not in scores:
            raise fail(path, f"{where}: no score '{scorer}' (scores: {', '.join(map(str, scores))})")
        entry = scores[scorer]
        value = entry.get("value") if isinstance(entry, dict) else None
        if isinstance(value, dict | list):
            kind = "a dict" if isinstance(value, dict) else "a list"
            raise fail(path, f"{where}: score '{scorer}' value is {kind} ({str(value)[:60]}), several values"
                             " rather than one outcome")
        outcome = to_float(value)
        if outcome is None:
            raise fail(path, f"{where}: score '{scorer}' value {value!r} is not C/I/P/N, a number or yes/no")
        rows.add(model, f"{task}/{s['id']}", epoch, outcome, task)
    if errored:
        shown = ", ".join(errored[:5]) + (", ..." if len(errored) > 5 else "")
        warnings.warn(f"{path}: {len(errored)} sample(s) ended in an error and have no score, skipped: {shown}",
                      stacklevel=3)
    if not rows:
        raise fail(path, "no scored samples")
    return rows
