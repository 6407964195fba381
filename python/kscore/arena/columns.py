"""Column spellings and winner values of the battle files people have
(docs/arena.md, *Formats*): one table each, so that a new spelling is one
entry."""

from __future__ import annotations

#: Each role's accepted column names, first match wins (compared without
#: case, spaces, dashes or underscores).
SPELLINGS: dict[str, tuple[str, ...]] = {
    "model_a": ("model_a", "modela", "model_1", "model1", "a", "left", "left_model", "player_a", "competitor_a",
                "system_a"),
    "model_b": ("model_b", "modelb", "model_2", "model2", "b", "right", "right_model", "player_b", "competitor_b",
                "system_b"),
    "winner": ("winner", "outcome", "result", "label", "preference", "verdict", "choice", "score"),
    "weight": ("weight", "weights", "battle_weight"),
    "prompt": ("question_id", "prompt_id", "uid", "conversation_id", "conv_id", "prompt", "question", "qid", "id"),
}

#: Winner values and the result of model_a they mean (1 win, 0.5 tie, 0
#: loss). LMArena's dumps write model_a, model_b, tie and "tie (bothbad)"
#: (the 140k release: both_bad); people write A/B, 1/0/0.5, left/right.
WINNERS: dict[str, float] = {
    "model_a": 1.0, "a": 1.0, "1": 1.0, "1.0": 1.0, "left": 1.0, "a>b": 1.0, "win": 1.0, "model_1": 1.0,
    "model_b": 0.0, "b": 0.0, "0": 0.0, "0.0": 0.0, "right": 0.0, "b>a": 0.0, "a<b": 0.0, "loss": 0.0,
    "lose": 0.0, "model_2": 0.0,
    "tie": 0.5, "tie (bothbad)": 0.5, "tie(bothbad)": 0.5, "both_bad": 0.5, "bothbad": 0.5, "both bad": 0.5,
    "draw": 0.5, "0.5": 0.5, "a=b": 0.5, "b=a": 0.5, "equal": 0.5, "tie_bothbad": 0.5, "both_good": 0.5,
}

#: LMArena's 55k/100k releases: one-hot winner columns instead of winner.
ONE_HOT = ("winner_model_a", "winner_model_b", "winner_tie")

#: arena-hard-auto's verdict labels (its show_result.py): the result of the
#: game's assistant A, and how many battles a verdict counts (a strong one,
#: ``>>``, counts 3).
VERDICTS: dict[str, tuple[float, int]] = {
    "A>>B": (1.0, 3), "A>B": (1.0, 1), "A=B": (0.5, 1), "A<B": (0.0, 1), "A<<B": (0.0, 3),
    "B<<A": (1.0, 3), "B<A": (1.0, 1), "B=A": (0.5, 1), "B>A": (0.0, 1), "B>>A": (0.0, 3),
}

#: LMArena's style features (the conv_metadata counts, as arena-rank's
#: example and FastChat's style control use them): name -> the two answers'
#: fields (a dict of counts is summed).
STYLE_METADATA: dict[str, tuple[str, str]] = {
    "sum_assistant_tokens": ("sum_assistant_a_tokens", "sum_assistant_b_tokens"),
    "header_count": ("header_count_a", "header_count_b"),
    "bold_count": ("bold_count_a", "bold_count_b"),
    "list_count": ("list_count_a", "list_count_b"),
}


def squash(name: str) -> str:
    """A column name compared without case, spaces, dashes or underscores.

    >>> squash("Model-A"), squash("model a")
    ('modela', 'modela')
    """
    return "".join(ch for ch in name.lower() if ch not in " -_")


def find(columns: list[str], role: str, given: str | None) -> str | None:
    """The column playing ``role``: ``given`` (must exist), else the first
    spelling present.

    >>> find(["Model A", "model_b", "Winner"], "model_a", None)
    'Model A'
    """
    if given is not None:
        if given not in columns:
            raise KeyError(given)
        return given
    by = {squash(c): c for c in reversed(columns)}
    for spelling in SPELLINGS[role]:
        if squash(spelling) in by:
            return by[squash(spelling)]
    return None
