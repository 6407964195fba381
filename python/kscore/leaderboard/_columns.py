"""Which columns hold the model, question, outcome and sample: given names,
or the first common spelling found (docs/leaderboard.md, *Input*)."""

from __future__ import annotations

from dataclasses import dataclass

from ._issues import Issues, LeaderboardError

#: Auto-detected column spellings, in order of preference (case-insensitive).
SPELLINGS: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_name", "system", "model_id", "modelname"),
    "question": ("question", "question_id", "problem", "problem_id", "task_id", "id", "prompt_id", "qid", "task"),
    "outcome": (
        "outcome", "correct", "is_correct", "passed", "pass", "score", "label", "reward", "result", "success", "grade",
    ),
    "sample": ("sample", "sample_idx", "sample_id", "sample_index", "attempt", "trial", "seed", "run"),
}


@dataclass
class ColumnNames:
    """Column names by role; ``None``: auto-detect (model and sample may be absent)."""

    model: str | None = None
    question: str | None = None
    outcome: str | None = None
    sample: str | None = None
    #: Question attributes to carry into the counts (``--cluster``, ``--by``).
    extra: tuple[str, ...] = ()


def shown_columns(available: list[str]) -> str:
    return ", ".join(available) if len(available) <= 20 else ", ".join(available[:20]) + ", ..."


def resolve_columns(available: list[str], given: ColumnNames, source: str, issues: Issues,
                    stem: str | None) -> ColumnNames:
    """The columns to read: the given names (which must exist) or the first
    matching common spelling. Without a model column every row is one model,
    named ``stem`` (the file's name), or each file is a model (``stem`` None)."""
    lower = {c.lower(): c for c in reversed(available)}
    shown = shown_columns(available)
    out = ColumnNames()
    for role in ("model", "question", "outcome", "sample"):
        name = getattr(given, role)
        if name is not None:
            if name not in available:
                raise LeaderboardError(f"no column '{name}' in {source} (--{role}-col); columns: {shown}")
            setattr(out, role, name)
            continue
        for spelling in SPELLINGS[role]:
            if spelling in lower and lower[spelling] not in (out.model, out.question, out.outcome):
                setattr(out, role, lower[spelling])
                break
    if out.question is None:
        raise LeaderboardError(f"no question column found in {source} (columns: {shown}); name it with --question-col")
    if out.outcome is None:
        raise LeaderboardError(f"no outcome column found in {source} (columns: {shown}); name it with --outcome-col")
    if out.model is None:
        named = f"all rows are one model, named '{stem}'" if stem else "each file is one model, named after the file"
        issues.note(f"no model column in {source}: {named} (--model-col names one)")
    return out
