"""lighteval details: ``details/<model>/<date>/details_<task>_<date>.parquet``.

Schema: huggingface/lighteval, ``src/lighteval/logging/info_loggers.py``
(``DetailsLogger.Detail``: ``doc``, ``model_response``, ``metric``, the metric
scores of one document as a dict), ``src/lighteval/tasks/requests.py``
(``Doc``: ``query``, ``choices``, ``gold_index``, ``id``, ``task_name``,
``num_samples``, ...), ``src/lighteval/models/model_output.py``
(``ModelResponse``) and ``src/lighteval/logging/evaluation_tracker.py``
(``save()`` / ``save_details()``: ``Dataset.from_list([asdict(detail)])``,
columns sorted, written with ``to_parquet`` to
``<output_dir>/details/<model_name>/<date_id>/details_<task>_<date_id>.parquet``).
Checked against lighteval 0.13.0.

What is read: one row per document: question ``<task>/<doc.id>`` (the row's
position in the file when ``doc.id`` is empty, as many task prompts leave
it; lighteval writes documents in dataset order), subset the task (from the
file name, e.g. ``lighteval|gsm8k|0``), sample 0, outcome the value of one
metric (``score=``; default: the first field of the ``metric`` struct). The
model is the path between ``details/`` and the date folder (lighteval's
``model_name``, ``org/name``), else the grandparent folder's name, or ``model=``.

What it does not hold: per-sample outcomes of sampled generations. With
``num_samples`` > 1 (pass@k, maj@k, avg@n metrics) ``model_response.text``
keeps every generation but ``metric`` holds only the per-document value the
metric computed from them (e.g. ``pass@k:k=1&n=16`` = 0.25), which is read as
a numeric outcome; the n individual pass/fail outcomes are not in the file.
Corpus-level metrics (bleu, chrf, ...) log per-document inputs, not scores,
and are refused.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ._io import fail, head
from ._table import Rows

NAME = "lighteval"

_FILE = re.compile(r"^details_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.parquet$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T")

#: Rows read at a time.
_BATCH = 4096


def sniff(path: Path) -> bool:
    """A ``details_*.parquet`` file (Parquet magic) whose schema has ``doc`` and
    ``metric`` (read from the footer only)."""
    name = path.name
    if not (name.startswith("details_") and name.endswith(".parquet")) or head(path, 4) != b"PAR1":
        return False
    try:
        import pyarrow.parquet as pq

        names = set(pq.read_schema(path).names)
    except Exception:  # any unreadable footer means "not this format"
        return False
    return {"doc", "metric"} <= names


def read(path: Path, score: str | None = None, model: str | None = None) -> Any:
    """The per-document outcomes of one lighteval details file."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    match = _FILE.match(path.name)
    task = match.group("task") if match else path.stem.removeprefix("details_")
    name = model or _model(path)
    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except (pa.ArrowException, OSError) as exc:
        raise fail(path, f"not a readable Parquet file (truncated or corrupt: {exc})") from None
    for column in ("doc", "metric"):
        if column not in schema.names or not pa.types.is_struct(schema.field(column).type):
            raise fail(path, f"no '{column}' struct column (not a lighteval details file)")
    metrics = [f.name for f in schema.field("metric").type]
    doc_fields = [f.name for f in schema.field("doc").type]
    metric = score if score is not None else (metrics[0] if metrics else None)
    if metric is None or metric not in metrics:
        raise fail(path, f"no metric '{metric}' (metrics: {', '.join(metrics) or 'none'})")
    rows = Rows()
    position = 0
    try:
        for batch in pf.iter_batches(batch_size=_BATCH, columns=["doc", "metric"]):
            values = pc.struct_field(batch.column("metric"), metric).to_pylist()
            ids = pc.struct_field(batch.column("doc"), "id").to_pylist() if "id" in doc_fields else [None] * len(values)
            for doc_id, value in zip(ids, values):
                if isinstance(value, bool):
                    value = float(value)
                if not isinstance(value, int | float) or not math.isfinite(value):
                    raise fail(path, f"row {position}: metric '{metric}' is {str(value)[:60]!r}, not a per-document"
                                     " score (a corpus-level metric's inputs?)")
                question = str(doc_id) if doc_id not in (None, "") else str(position)
                rows.add(name, f"{task}/{question}", 0, float(value), task)
                position += 1
    except (pa.ArrowException, OSError) as exc:
        raise fail(path, f"corrupt Parquet data ({exc})") from None
    if not rows:
        raise fail(path, "no documents (empty file)")
    return rows.table()


def _model(path: Path) -> str:
    """lighteval's model name from ``.../details/<model_name>/<date>/file``."""
    parts = path.parent.parts
    if "details" in parts:
        start = len(parts) - 1 - parts[::-1].index("details")
        inner = list(parts[start + 1:])
        if inner and _DATE.match(inner[-1]):
            inner = inner[:-1]
        if inner:
            return "/".join(inner)
    parent = path.parent
    if _DATE.match(parent.name) and parent.parent.name:
        return parent.parent.name
    return parent.name or path.stem
