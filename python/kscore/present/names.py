"""Model names shortened to a width, never ambiguously.

Model names are long and alike (``org/model-7b-instruct-v0.3-dpo-seed1`` and
``...-seed2``, often a date and ``-final`` after each): cutting the end would
show two models as the same text, and cutting the middle keeps parts every
name shares. A name that does not fit keeps, of its words (split at
``-_/:@+``, spaces and dots not between digits), those where it differs from
the names most like it, then as many others as fit: those between them, its
first word (its organisation, up to a ``/``), the words before them, after
them; each run of words left out is one ``…``, and the end that every name
to shorten shares (``-instruct-2025-01-01-final``) is never shown::

    acme/llama-3-70b-instruct-2025-01-01-final  ->  acme/llama-3-70b…   (20)
    organisation-1/very-long-family-name-13b-instruct-v1-preview-2026-11
        ->  …name-13b-instruct-v1…   (24, among 200 alike)

A name with no similar name, or whose differing words do not fit, is cut in
the middle (``org/model-7…-seed1``); where two texts would still read the
same, the cut moves to keep the part where they differ, with a second
ellipsis if needed. Only when two names cannot be told apart in the width at
all (a width too small for their difference) does a numeric suffix ``~1``,
``~2`` keep them distinct.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

ELLIPSIS = "…"
#: Where a name splits into words: runs of ``-_/:@+``, spaces, and dots but
#: a dot between digits (``Qwen2.5``, ``v0.3`` are one word).
SEPARATORS = re.compile(r"((?:[-_/:@+\s]|(?<!\d)\.|\.(?!\d))+)")
#: Up to this many names, every two are compared to find where each differs
#: from the others; beyond, names are cut in the middle.
ALL_PAIRS = 2000


def shorten_names(names: Sequence[str], width: int) -> list[str]:
    """Each name at most ``width`` characters, all results distinct when the
    names are (names that fit are kept whole).

    >>> shorten_names(["org/model-7b-instruct-seed1", "org/model-7b-instruct-seed2", "tiny"], 12)
    ['org/…seed1', 'org/…seed2', 'tiny']
    >>> shorten_names([f"acme/llama-3-{s}-instruct-2025-01-01-final" for s in ("8b", "70b")], 20)
    ['acme/llama-3-8b…', 'acme/llama-3-70b…']
    """
    if width < 1:
        raise ValueError(f"width must be at least 1; got {width}")
    out = list(names)
    long = [i for i, name in enumerate(names) if len(name) > width]
    if long:
        regions = _regions(tuple(names))
        # The end every name to shorten shares (``-instruct-2025-01-01-final``)
        # tells none apart: never shown.
        shared = len(os.path.commonprefix([names[i][::-1] for i in long])) if len(long) > 1 else 0
        for i in long:
            out[i] = _condensed(names[i], regions[i], width, shared) or _middle(names[i], width)
    for _ in range(4):  # each round resolves a collision group; a few suffice
        groups = _collisions(names, out)
        if not groups:
            return out
        shown = Counter(out)
        for group in groups:
            _separate(names, out, group, width, shown)
    shown = Counter(out)
    for group in _collisions(names, out):
        _number(out, group, width, shown)
    return out


@lru_cache(maxsize=1 << 18)  # (100 000 names are split twice: by _regions, then by _condensed)
def _words(name: str) -> tuple[list[str], list[str], list[int]]:
    """``name``'s words, the separators between them (one fewer) and each
    word's first character's position; a name starting or ending with a
    separator has an empty first or last word."""
    parts = SEPARATORS.split(name)
    words, seps = parts[0::2], parts[1::2]
    starts, pos = [], 0
    for j, word in enumerate(words):
        starts.append(pos)
        pos += len(word) + (len(seps[j]) if j < len(seps) else 0)
    return words, seps, starts


@lru_cache(maxsize=16)
def _regions(names: tuple[str, ...]) -> list[list[tuple[int, int]]]:
    """For each name, the smallest runs of its words (first, last word
    index) where it differs from another name: whatever else is dropped,
    something of each must show for the name to read differently from that
    name. Every two names are compared (with numpy, a block of names at a
    time); beyond :data:`ALL_PAIRS` names, none (the names are cut in the
    middle). Cached: a plot measures the same names at several widths."""
    distinct = sorted(set(names))
    n = len(distinct)
    if n < 2:
        return [[] for _ in names]
    if n > ALL_PAIRS:
        near = _neighbour_regions(distinct)
        return [near[name] for name in names]
    lengths, width, ahead, behind = _code_rows(distinct)
    block = max(1, 4_000_000 // (n * width))
    found: dict[str, list[tuple[int, int]]] = {}
    for lo in range(0, n, block):
        rows = slice(lo, min(n, lo + block))
        # First differing position from the start and from the end (names
        # are distinct, and the padding differs from every character).
        prefix = np.argmax(ahead[rows, None, :] != ahead[None, :, :], axis=2)
        suffix = np.argmax(behind[rows, None, :] != behind[None, :, :], axis=2)
        own = lengths[rows, None]
        a = prefix
        b = own - np.minimum(suffix, np.minimum(own, lengths[None, :]) - a)
        # Where the other name has more characters and this one none: the
        # characters either side of that place.
        empty = a == b
        a, b = np.where(empty, np.maximum(a - 1, 0), a), np.where(empty, np.minimum(a + 1, own), b)
        pairs = a * width + b
        for k, j in enumerate(range(rows.start, rows.stop)):
            name = distinct[j]
            words, _, starts = _words(name)
            spans = {_differing_words(words, starts, int(x) // width, int(x) % width)
                     for x in np.unique(np.delete(pairs[k], j))}
            found[name] = [s for s in spans if not any(t != s and s[0] <= t[0] and t[1] <= s[1] for t in spans)]
    return [found[name] for name in names]


def _code_rows(distinct: list[str]) -> tuple[npt.NDArray[np.int64], int, npt.NDArray[np.uint32],
                                             npt.NDArray[np.uint32]]:
    """The names' lengths, the row width (the longest + 1), and each name's
    code points forwards and reversed, one row each, padded with a value
    above every code point (no character equals it)."""
    lengths = np.array([len(name) for name in distinct], dtype=np.int64)
    width = int(lengths.max()) + 1
    pad = 0x110000
    ahead = np.full((len(distinct), width), pad, dtype=np.uint32)
    behind = np.full((len(distinct), width), pad, dtype=np.uint32)
    # (every name's code points at once: one encoding of them all, scattered to their rows)
    codes = np.frombuffer("".join(distinct).encode("utf-32-le"), dtype=np.uint32)
    row = np.repeat(np.arange(len(distinct)), lengths)
    col = np.arange(len(codes)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ahead[row, col] = codes
    behind[row, lengths[row] - 1 - col] = codes
    return lengths, width, ahead, behind


#: Beyond :data:`ALL_PAIRS` names, each is compared with this many
#: neighbours either side in sorted order and in the order of the reversed
#: names.
NEIGHBOURS = 2


def _neighbour_regions(distinct: list[str]) -> dict[str, list[tuple[int, int]]]:
    """:func:`_regions` from the names most like each instead of all: the
    names sorted (sorted, the longest common prefixes are neighbours) and
    sorted by their reversed text (the longest common suffixes). A name
    differing from all others only where no neighbour shows it keeps a
    shorter region than the all-pairs one; the collision rounds of
    :func:`shorten_names` still make every text distinct. 10 000 names:
    a few vectorised passes instead of n^2 comparisons."""
    n = len(distinct)
    lengths, width, ahead, behind = _code_rows(distinct)
    back = np.array(sorted(range(n), key=[name[::-1] for name in distinct].__getitem__))
    others = []  # (name, other) index pairs: neighbours in either order
    for order in (np.arange(n), back):
        for k in range(1, NEIGHBOURS + 1):
            x, y = order[:-k], order[k:]
            others += [np.stack([x, y], axis=1), np.stack([y, x], axis=1)]
    both = np.concatenate(others).astype(np.int64)
    code = np.sort(both[:, 0] * n + both[:, 1])  # (the pairs sorted as np.unique(axis=0) sorts them)
    code = code[np.r_[True, code[1:] != code[:-1]]]  # (np.unique's result; its hash table took seconds)
    i, o = code // n, code % n
    # The first differing character from either end is the same both ways, and every pair is here both
    # ways: measured once per two pairs (of 100 000 names, 800 000 rows of characters compared, not 1.6 million).
    half = i < o
    at = np.searchsorted(code[half], np.where(half, code, o * n + i))
    first, other = i[half], o[half]
    prefix = np.argmax(ahead[first] != ahead[other], axis=1)[at]
    suffix = np.argmax(behind[first] != behind[other], axis=1)[at]
    own = lengths[i]
    a = prefix
    b = own - np.minimum(suffix, np.minimum(own, lengths[o]) - a)
    empty = a == b  # (the other name has more characters here: the ones either side)
    a, b = np.where(empty, np.maximum(a - 1, 0), a), np.where(empty, np.minimum(a + 1, own), b)
    cuts = [0, *(np.flatnonzero(np.diff(i)) + 1).tolist(), len(i)]
    # Each pair's words (_word_span) once per distinct (shape, a, b): names of a sweep share a few shapes.
    shape_id: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    sid = np.array([shape_id.setdefault(_shape(name), len(shape_id)) for name in distinct], np.int64)
    shapes = list(shape_id)
    key = (sid[i] * width + a) * width + b
    keys, inverse = np.unique(key, return_inverse=True)
    spans_of = [_word_span(shapes[k // (width * width)], k // width % width, k % width) for k in keys.tolist()]
    span_list = [spans_of[k] for k in inverse.ravel().tolist()]
    found: dict[str, list[tuple[int, int]]] = {}
    i_list = i.tolist()
    for k in range(len(cuts) - 1):  # (each name's pairs: i is sorted)
        lo, hi = cuts[k], cuts[k + 1]
        found[distinct[i_list[lo]]] = _smallest(frozenset(span_list[lo:hi]))
    return found


@lru_cache(maxsize=1 << 12)
def _smallest(spans: frozenset[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans holding no other span (where a name must show something:
    within a larger one, showing the smaller suffices)."""
    return [s for s in spans if not any(t != s and s[0] <= t[0] and t[1] <= s[1] for t in spans)]


def _shape(name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The lengths of ``name``'s words and their starts: all that
    :func:`_differing_words` reads of it."""
    lengths, _, starts = _layout(_template(name))
    return lengths, starts


#: ASCII digits to ``0``, as a table of bytes: a name's template (:func:`_template`).
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def _template(name: str) -> str:
    """``name`` with every ASCII digit a ``0``: its words split where the
    name's do (the separators hold no digit, and a dot's neighbour stays a
    digit or not), so names of a sweep, alike but for their digits, share
    one template and are split once (:func:`_layout`). A name with other
    characters than ASCII is its own template (``\\d`` matches every
    decimal digit)."""
    return name.encode().translate(_ZEROS).decode() if name.isascii() else name  # (bytes: a table in C)


@lru_cache(maxsize=1 << 16)
def _layout(template: str) -> tuple[tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """The lengths of the words of the names of this :func:`_template`, the
    separators between them and each word's start."""
    words, seps, starts = _words(template)
    return tuple(map(len, words)), tuple(seps), tuple(starts)


@lru_cache(maxsize=1 << 16)
def _word_span(shape: tuple[tuple[int, ...], tuple[int, ...]], a: int, b: int) -> tuple[int, int]:
    """:func:`_differing_words` of a name of this shape (names of a sweep
    share a few shapes: computed once each)."""
    return _differing_words(["x" * n for n in shape[0]], list(shape[1]), a, b)


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of ``a`` and ``b``."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # by halves: slices compare at C speed
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if a[:mid] == b[:mid] else (lo, mid - 1)
    return lo


def _differing_words(words: list[str], starts: list[int], a: int, b: int) -> tuple[int, int]:
    """The words (first, last index) overlapping the characters ``a`` to
    ``b`` of a name split into ``words`` starting at ``starts``: where it
    differs from another name; the words either side when only separators
    differ."""
    first = bisect_right(starts, a) - 1  # the word (or the separator after it) holding a
    if first >= 0 and a >= starts[first] + len(words[first]):
        first += 1  # a falls in the separator after it
    last = bisect_left(starts, b) - 1  # the last word starting before b
    hit = [j for j in range(max(0, first), last + 1) if words[j]]
    if not hit:  # only separators differ: the words either side of them
        hit = [j for j in (first - 1, last + 1) if 0 <= j < len(words)]
    return (min(hit), max(hit)) if hit else (0, len(words) - 1)


def _render(words: list[str], seps: list[str], kept: set[int]) -> str:
    """The kept words with the separators between two kept ones (a ``/``
    beside a kept word too), each run of left-out words one ellipsis."""
    out: list[str] = []
    for j, word in enumerate(words):
        if j in kept:
            out.append(word)
        elif not out or out[-1] != ELLIPSIS:
            out.append(ELLIPSIS)
        if j < len(seps) and j in kept:
            if j + 1 in kept:
                out.append(seps[j])
            elif "/" in seps[j]:
                out.append("/")  # org/…
    return "".join(out)


def _stab(words: list[str], regions: list[tuple[int, int]]) -> set[int]:
    """A few words that show something of every region: a region's first and
    last words hold its first and last differing characters (the words
    between may be shared), so one of them is kept: the word ending the most
    regions not yet shown first, then the nearest to the words kept (fewer
    ellipses), then the last."""
    left = set(regions)
    kept: set[int] = set()
    while left:
        count: dict[int, int] = defaultdict(int)
        for a, b in left:
            for j in {a, b}:
                count[j] += 1
        best = max(count, key=lambda j: (count[j], -min((abs(j - k) for k in kept), default=0), j))
        kept.add(best)
        left = {(a, b) for a, b in left if best not in (a, b)}
    return kept


def _condensed(name: str, regions: list[tuple[int, int]], width: int, shared: int = 0) -> str | None:
    """``name`` with a word of each of its ``regions`` (:func:`_stab`), then
    as many others as fit in ``width``: the words between those, the first
    word (through an ``org/``), the words just before them, just after (but
    never one in its last ``shared`` characters, an end all names share),
    some of those between; None when the regions' words alone do not fit."""
    if not name.isascii():  # (a word may be an ellipsis itself: _render tells it from one it writes)
        words, seps_l, _ = _words(name)
        found = _kept_words(tuple(map(len, words)), tuple(seps_l), tuple(regions), width, shared)
        return None if found is None else _render(words, seps_l, set(found))
    lengths, seps, starts = _layout(_template(name))
    kept = _kept_words(lengths, seps, tuple(regions), width, shared)
    if kept is None:
        return None
    # (:func:`_render`'s text as slices of the name and literals, made once per layout and words kept)
    return "".join([p if isinstance(p, str) else name[p[0]:p[1]] for p in _pieces(lengths, seps, starts, kept)])


@lru_cache(maxsize=1 << 16)
def _pieces(lengths: tuple[int, ...], seps: tuple[str, ...], starts: tuple[int, ...], kept: frozenset[int]
            ) -> tuple[str | tuple[int, int], ...]:
    """What :func:`_render` writes of a name of this layout with the words
    ``kept``: each word or separator kept as its (start, end) in the name
    (runs of them one slice), an ellipsis or a ``/`` as text."""
    out: list[str | tuple[int, int]] = []

    def add(a: int, b: int) -> None:
        last = out[-1] if out else None
        if isinstance(last, tuple) and last[1] == a:
            out[-1] = (last[0], b)
        else:
            out.append((a, b))

    for j, n in enumerate(lengths):
        if j in kept:
            add(starts[j], starts[j] + n)
        elif not out or out[-1] != ELLIPSIS:
            out.append(ELLIPSIS)
        if j < len(seps) and j in kept:
            if j + 1 in kept:
                add(starts[j] + n, starts[j] + n + len(seps[j]))
            elif "/" in seps[j]:
                out.append("/")  # org/…
    return tuple(out)


@lru_cache(maxsize=1 << 16)
def _kept_words(lengths: tuple[int, ...], seps: tuple[str, ...], regions: tuple[tuple[int, int], ...], width: int,
                shared: int) -> frozenset[int] | None:
    """The words :func:`_condensed` keeps: what it reads of a name is the
    lengths of its words and its separators, so names of a sweep (one shape,
    other digits) are condensed once per shape."""
    words = ["x" * n for n in lengths]
    seps_l = list(seps)
    starts, pos = [], 0
    for j, n in enumerate(lengths):
        starts.append(pos)
        pos += n + (len(seps_l[j]) if j < len(seps_l) else 0)
    name_len = pos
    if list(regions) in ([], [(0, len(words) - 1)]):
        return None  # no other name, or none sharing a word: nothing to leave out first
    kept = _stab(words, list(regions))
    if len(_render(words, seps_l, kept)) > width:
        return None

    def add(more: Sequence[int]) -> bool:
        trial = kept | set(more)
        if len(_render(words, seps_l, trial)) > width:
            return False
        kept.update(more)
        return True

    first, last = min(kept), max(kept)
    gaps = [list(range(a + 1, b)) for a, b in zip(sorted(kept), sorted(kept)[1:]) if b > a + 1]
    for gap in sorted(gaps, key=lambda g: sum(len(words[j]) + 1 for j in g)):
        add(gap)
    if first > 0:  # the first word, or the words before a "/" (an organisation)
        org = next((j for j, sep in enumerate(seps[:first]) if "/" in sep), 0)
        add(range(0, min(org, first - 1) + 1))
    tail = next((j for j, start in enumerate(starts) if start >= name_len - shared), len(words))
    # Outwards word by word until one does not fit, then into the gaps left:
    # always a word beside one kept (never a lone word between two ellipses).
    for side, outwards in ((range(first - 1, -1, -1), True), (range(last + 1, max(last + 1, tail)), True),
                           (range(first, last), False)):
        for j in side:
            if j not in kept and (j - 1 in kept or j + 1 in kept) and not add([j]) and outwards:
                break
    return frozenset(kept)


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
    shown = Counter(out)  # (counted in C: most texts are shown once, and only the others are gathered)
    twice = {text for text, k in shown.items() if k > 1}
    if not twice:
        return []
    by_text: dict[str, list[int]] = defaultdict(list)
    for i, text in enumerate(out):
        if text in twice:
            by_text[text].append(i)
    return [g for g in by_text.values() if len(g) > 1 and len({names[i] for i in g}) > 1]  # (100 000 groups of 1)


def _separate(names: Sequence[str], out: list[str], group: list[int], width: int, shown: Counter[str]) -> None:
    """Re-cut a group of colliding names so that each shows where it differs
    from the others: by moving the single cut, else by keeping only the
    tokens where they differ (``org…8b…dpo…03``), else with a window around
    the first differing character between two ellipses. ``shown``: how many
    times each text is shown (kept up to date)."""
    members = [names[i] for i in group]
    distinct = len(set(members))
    own = Counter(out[i] for i in group)

    def fits(texts: list[str]) -> bool:
        return len(set(texts)) == distinct and not any(shown[t] > own[t] for t in texts)

    for head in range(width):
        texts = [_middle(n, width, head) for n in members]
        if fits(texts):
            break
    else:
        texts = _differing_tokens(members, width)
        if not fits(texts):
            texts = [_window(n, [m for m in members if m != n], width) for n in members]
    for i, text in zip(group, texts):
        shown[out[i]] -= 1
        shown[text] += 1
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


def _number(out: list[str], group: list[int], width: int, shown: Counter[str]) -> None:
    """Last resort: ``~1``, ``~2``, ... replace the end of each text, with
    numbers that no other text shows (``shown``: how many times each text
    is shown, kept up to date)."""
    own = Counter(out[i] for i in group)  # the texts of the group not yet numbered
    n = 0
    for i in group:
        while True:
            n += 1
            tag = f"~{n}"
            text = out[i][: max(0, width - len(tag))] + tag
            if len(text) > width or shown[text] <= own[text]:
                break  # (a width narrower than the number: cut, not distinct)
        text = text[-width:]
        own[out[i]] -= 1
        shown[out[i]] -= 1
        shown[text] += 1
        out[i] = text
