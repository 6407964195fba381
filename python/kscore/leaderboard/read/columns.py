"""Which columns hold the model, question, outcome and sample: given names,
or the first common spelling found (docs/leaderboard.md, *Input*)."""

from __future__ import annotations

import re
from pathlib import Path

from .._issues import Issues, LeaderboardError
from .._options import ColumnNames

#: Auto-detected column spellings, in order of preference (compared by
#: :func:`spelling_key`: ``Question ID``, ``question-id`` and ``QuestionId``
#: are ``question_id``).
SPELLINGS: dict[str, tuple[str, ...]] = {
    "model": ("model", "model_name", "system", "model_id", "modelname"),
    "question": ("question", "question_id", "problem", "problem_id", "task_id", "id", "prompt_id", "qid", "task"),
    "outcome": (
        "outcome", "correct", "is_correct", "passed", "pass", "score", "label", "reward", "result", "success", "grade",
    ),
    "sample": ("sample", "sample_idx", "sample_id", "sample_index", "attempt", "trial", "seed", "run"),
}


_SEPARATORS = re.compile(r"[\s_\-]+")


def spelling_key(name: str) -> str:
    """A column name as the auto-detection compares it: lower case, without
    spaces, hyphens or underscores (headers written for people, ``Model
    Name,Question ID,Is Correct``, name the columns ``model_name``,
    ``question_id`` and ``is_correct``).

    Examples:
        >>> spelling_key(" Question ID"), spelling_key("is-correct"), spelling_key("Model_Name")
        ('questionid', 'iscorrect', 'modelname')
    """
    return _SEPARATORS.sub("", name.lower())


#: The spellings of the model and question ids, by :func:`spelling_key`
#: (read as text from CSV: as numbers, '1' and '1.0' would be one id).
ID_KEYS = frozenset(spelling_key(s) for role in ("model", "question") for s in SPELLINGS[role])


def find_spelling(available: list[str], spelling: str, taken: tuple[str | None, ...] = ()) -> str | None:
    """The first column of ``available`` that is ``spelling``: the same
    name in any case first, else the same :func:`spelling_key`; None if no
    column (not in ``taken``) matches."""
    free = [c for c in available if c not in taken]
    exact = next((c for c in free if c.lower() == spelling), None)
    if exact is not None:
        return exact
    key = spelling_key(spelling)
    return next((c for c in free if spelling_key(c) == key), None)


#: Column names that look like a grouping of the questions (by
#: :func:`spelling_key`): without ``--cluster`` the leaderboard checks the
#: design effect of each such column it finds (stats/cluster_check.py).
GROUPINGS = frozenset(spelling_key(x) for x in (
    "subject", "category", "source", "passage", "passage_id", "topic", "domain", "dataset", "document",
    "document_id", "doc_id", "context", "context_id", "group", "group_id", "template", "template_id", "article",
    "story", "paper", "repo", "repository", "file", "section", "chapter", "book", "skill", "subset", "subtask",
    "benchmark", "cluster", "family", "parent", "parent_id", "conversation", "conversation_id", "image", "video"))


def grouping_columns(available: list[str], taken: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The columns of ``available`` that look like a grouping of the
    questions (:data:`GROUPINGS`), less ``taken`` and any spelling of the
    model, question, outcome or sample.

    Examples:
        >>> grouping_columns(["model", "question", "correct", "Subject", "source_doc", "task"])
        ('Subject',)
    """
    roles = {spelling_key(x) for spellings in SPELLINGS.values() for x in spellings}
    return tuple(a for a in available if spelling_key(a) in GROUPINGS and spelling_key(a) not in roles
                 and a not in taken)


def text_ids(columns: list[tuple[str, str]], names: ColumnNames, files: list[Path]) -> dict[str, str]:
    """The columns of CSV/TSV files to read as text: the model and question
    ids (by their spellings, or as given) and the question attributes, but
    not the folder values of hive partitions. (Read as numbers, '1' and
    '1.0', or '7' and '07', would be one model or question.)"""
    hive = {part.split("=", 1)[0] for f in files for part in f.parts[:-1] if "=" in part}
    given = {names.model, names.question, *names.extra}
    return {n: "VARCHAR" for n, _ in columns if (spelling_key(n) in ID_KEYS or n in given) and n not in hive}


def shown_columns(available: list[str]) -> str:
    return ", ".join(available) if len(available) <= 20 else ", ".join(available[:20]) + ", ..."


def resolve_columns(available: list[str], given: ColumnNames, source: str, issues: Issues,
                    stem: str | None) -> ColumnNames:
    """The columns to read: the given names (which must exist) or the first
    matching common spelling. Without a model column every row is one model,
    named ``stem`` (the file's name), or each file is a model (``stem`` None)."""
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
            found = find_spelling(available, spelling, (out.model, out.question, out.outcome))
            if found is not None:
                setattr(out, role, found)
                break
    if out.question is None:
        raise LeaderboardError(f"no question column found in {source} (columns: {shown}); name it with --question-col")
    if out.outcome is None:
        raise LeaderboardError(f"no outcome column found in {source} (columns: {shown}); name it with --outcome-col")
    if out.model is None:
        named = f"all rows are one model, named '{stem}'" if stem else "each file is one model, named after the file"
        issues.note(f"no model column in {source}: {named} (--model-col names one)")
    return out
