"""The long-format table every reader returns, built row by row.

Columns: ``model`` (string), ``question`` (string), ``sample`` (int64),
``outcome`` (int64 when every outcome is 0 or 1, else float64) and, when the
file names one, ``subset`` (string: a task, sub-task or category)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

COLUMNS = ("model", "question", "sample", "outcome", "subset")


@dataclass
class Rows:
    """Columns collected as Python lists, one entry per graded sample."""

    model: list[str] = field(default_factory=list)
    question: list[str] = field(default_factory=list)
    sample: list[int] = field(default_factory=list)
    outcome: list[float] = field(default_factory=list)
    subset: list[str | None] = field(default_factory=list)

    def add(self, model: str, question: str, sample: int, outcome: float, subset: str | None = None) -> None:
        """Append one graded sample."""
        self.model.append(model)
        self.question.append(question)
        self.sample.append(sample)
        self.outcome.append(outcome)
        self.subset.append(subset)

    def __len__(self) -> int:
        return len(self.model)

    def table(self) -> Any:
        """The rows as a ``pyarrow.Table`` (``subset`` only when some row has one)."""
        import pyarrow as pa

        binary = all(o == 0.0 or o == 1.0 for o in self.outcome)
        if binary:
            outcome = pa.array([int(o) for o in self.outcome], pa.int64())
        else:
            outcome = pa.array(self.outcome, pa.float64())
        columns: dict[str, Any] = {
            "model": pa.array(self.model, pa.string()),
            "question": pa.array(self.question, pa.string()),
            "sample": pa.array(self.sample, pa.int64()),
            "outcome": outcome,
        }
        if any(s is not None for s in self.subset):
            columns["subset"] = pa.array(self.subset, pa.string())
        return pa.table(columns)


def concat(tables: list[Any]) -> Any:
    """Concatenate long-format tables: a float outcome column wins over int,
    and ``subset`` is null in the rows of tables that have none."""
    import pyarrow as pa

    floats = any(pa.types.is_floating(t.schema.field("outcome").type) for t in tables)
    with_subset = any("subset" in t.column_names for t in tables)
    aligned = []
    for t in tables:
        if floats:
            t = t.set_column(t.column_names.index("outcome"), "outcome", t.column("outcome").cast(pa.float64()))
        if with_subset and "subset" not in t.column_names:
            t = t.append_column("subset", pa.nulls(t.num_rows, pa.string()))
        aligned.append(t.select([c for c in COLUMNS if c in t.column_names]))
    return pa.concat_tables(aligned)
