"""Model names shortened to a width, in the middle, never ambiguously.

Model names are long and alike (``org/model-7b-instruct-v0.3-dpo-seed1`` and
``...-seed2``): cutting the end would show two models as the same text. A
name is cut in the middle (``org/model-7…-seed1``), and where two cut names
would still read the same, the cut moves to keep the part where they differ,
with a second ellipsis if needed. Only when two names cannot be told apart in
the width at all (a width too small for their difference) does a numeric
suffix ``~1``, ``~2`` keep them distinct.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

ELLIPSIS = "…"


def shorten_names(names: Sequence[str], width: int) -> list[str]:
    """Each name at most ``width`` characters, all results distinct when the
    names are (names that fit are kept whole).

    >>> shorten_names(["org/model-7b-instruct-seed1", "org/model-7b-instruct-seed2", "tiny"], 12)
    ['org/mo…seed1', 'org/mo…seed2', 'tiny']
    """
    if width < 1:
        raise ValueError(f"width must be at least 1; got {width}")
    out = [_middle(name, width) for name in names]
    for _ in range(4):  # each round resolves a collision group; a few suffice
        groups = _collisions(names, out)
        if not groups:
            return out
        for group in groups:
            _separate(names, out, group, width)
    for group in _collisions(names, out):
        _number(out, group, width)
    return out


def _middle(name: str, width: int, head: int | None = None) -> str:
    """``name`` cut in the middle to ``width`` (``head`` characters kept in
    front, the rest from the end)."""
    if len(name) <= width:
        return name
    if width == 1:
        return ELLIPSIS
    keep = width - 1
    front = (keep + 1) // 2 if head is None else max(0, min(head, keep))
    back = keep - front
    return name[:front] + ELLIPSIS + (name[len(name) - back:] if back else "")


def _collisions(names: Sequence[str], out: list[str]) -> list[list[int]]:
    """Groups of positions whose distinct names show the same text."""
    by_text: dict[str, list[int]] = defaultdict(list)
    for i, text in enumerate(out):
        by_text[text].append(i)
    return [g for g in by_text.values() if len({names[i] for i in g}) > 1]


def _separate(names: Sequence[str], out: list[str], group: list[int], width: int) -> None:
    """Re-cut a group of colliding names so that each shows where it differs
    from the others: by moving the single cut, else by keeping only the
    tokens where they differ (``org…8b…dpo…03``), else with a window around
    the first differing character between two ellipses."""
    members = [names[i] for i in group]
    distinct = len(set(members))
    taken = {text for j, text in enumerate(out) if j not in group}

    def fits(texts: list[str]) -> bool:
        return len(set(texts)) == distinct and not taken.intersection(texts)

    for head in range(width):
        texts = [_middle(n, width, head) for n in members]
        if fits(texts):
            break
    else:
        texts = _differing_tokens(members, width)
        if not fits(texts):
            texts = [_window(n, [m for m in members if m != n], width) for n in members]
    for i, text in zip(group, texts):
        out[i] = text


def _differing_tokens(members: Sequence[str], width: int) -> list[str]:
    """Names split at ``-_/.:`` into tokens; where every name has the same
    number of tokens, runs of tokens all names share become one ellipsis
    (the first token is kept for context when there is room)."""
    split = [re.split(r"([-_/.:])", n) for n in members]
    if len({len(s) for s in split}) != 1:
        return [_middle(n, width) for n in members]
    same = [len({s[j] for s in split}) == 1 for j in range(len(split[0]))]
    out = []
    for tokens in split:
        parts: list[str] = []
        for j, tok in enumerate(tokens):
            if j % 2 == 1:  # a separator: kept between two differing tokens
                if not same[j - 1] and j + 1 < len(tokens) and not same[j + 1]:
                    parts.append(tok)
            elif not same[j]:
                parts.append(tok)
            elif not parts or parts[-1] != ELLIPSIS:
                parts.append(ELLIPSIS)
        text = "".join(parts)
        if same[0] and len(tokens[0]) + len(text) - 1 <= width and text.startswith(ELLIPSIS):
            text = tokens[0] + text
        out.append(_middle(text, width))
    return out


def _window(name: str, others: Sequence[str], width: int) -> str:
    """``head…middle…tail`` with the middle around the first character where
    ``name`` differs from the nearest of ``others``."""
    if len(name) <= width or width < 7:
        return _middle(name, width)
    split = max(_common_prefix(name, o) for o in others)
    front, back = 2, 2
    span = width - front - back - 2
    start = max(front, min(split - span // 2, len(name) - back - span))
    middle = name[start:start + span]
    return name[:front] + ELLIPSIS + middle + ELLIPSIS + name[len(name) - back:]


def _common_prefix(a: str, b: str) -> int:
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return i


def _number(out: list[str], group: list[int], width: int) -> None:
    """Last resort: ``~1``, ``~2``, ... replace the end of each text, with
    numbers that no other text shows."""
    taken = {text for j, text in enumerate(out) if j not in group}
    n = 0
    for i in group:
        while True:
            n += 1
            tag = f"~{n}"
            text = out[i][: max(0, width - len(tag))] + tag
            if text not in taken:
                break
        taken.add(text)
        out[i] = text[-width:]
