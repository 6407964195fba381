"""kscore.present: names shortened without ambiguity, tables that fit."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kscore.present import Column, cell, fit, shorten_names

ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789-_./"


@st.composite
def similar_names(draw: st.DrawFn) -> list[str]:
    """Long names that share a prefix and a suffix and differ anywhere."""
    prefix = draw(st.text(ALPHABET, min_size=0, max_size=30))
    suffix = draw(st.text(ALPHABET, min_size=0, max_size=30))
    middles = draw(st.lists(st.text(ALPHABET, min_size=0, max_size=12), min_size=1, max_size=40, unique=True))
    return [prefix + m + suffix for m in middles]


@settings(max_examples=300, deadline=None)
@given(names=similar_names(), width=st.integers(1, 40))
def test_shortened_names_fit_and_stay_distinct(names: list[str], width: int) -> None:
    check_shortened(names, width)


def check_shortened(names: list[str], width: int) -> None:
    """Every shortened name fits, no two are the same (from 4 characters
    on), and a name that fits is kept whole."""
    out = shorten_names(names, width)
    assert all(len(s) <= width for s in out), out
    if width >= 4 or len(names) <= 1:
        assert len(set(out)) == len(out), (names, out)
    for name, short in zip(names, out):
        if len(name) <= width:
            assert short == name


def test_names_differing_only_in_the_middle() -> None:
    names = [f"organisation/very-long-family-name-{v}-instruct-preview-2026-11" for v in ("7b", "8b", "70b")]
    out = shorten_names(names, 24)
    assert len(set(out)) == 3 and all(len(s) <= 24 for s in out)
    for short, v in zip(out, ("7b", "8b", "70b")):
        assert v in short, out  # the differing part is visible


def test_same_name_twice_stays_the_same_text() -> None:
    assert shorten_names(["model-a", "model-a"], 4) == ["mo…a", "mo…a"]


def test_fit_never_cuts_a_value() -> None:
    names = [f"lab/model-{i:03d}-with-a-long-descriptive-suffix" for i in range(30)]
    cols = [Column("rank", [f"{i + 1}-{i + 3}" for i in range(30)], importance=0),
            Column("model", names, right=False, names=True),
            *[Column(f"metric{j}@8", [cell(0.5 + i / 100, 0.0123) for i in range(30)], importance=j + 1)
              for j in range(6)]]
    out = fit(cols, 80)
    assert all(len(line) <= 80 for line in out.lines)
    body = "\n".join(out.lines)
    for j in range(6):
        header = f"metric{j}@8"
        if header in out.hidden:
            assert header not in body
        else:
            assert header in out.lines[0]
            assert all(cell(0.5 + i / 100, 0.0123) in body for i in range(30))
    assert out.hidden, "six metrics of 12 characters cannot all fit in 80 columns beside the names"
    start = out.lines[0].index("model")
    shown = [line[start:].split("  ")[0] for line in out.lines[1:]]
    assert len(set(shown)) == 30 and all(s.startswith("lab/") for s in shown), shown


# ------------------------------------------------------------------ long shared prefixes and suffixes

UNICODE = "aeiouxyzé漢字模型ü🚀-_./ "


@st.composite
def related_names(draw: st.DrawFn) -> list[str]:
    """Long names sharing a prefix and a suffix (unicode among them), some
    of them prefixes of others (``model``, ``model-v2``, ``model-v2-final``)."""
    alphabet = draw(st.sampled_from([ALPHABET, UNICODE]))
    prefix = draw(st.text(alphabet, max_size=30))
    suffix = draw(st.text(alphabet, max_size=30))
    middles = draw(st.lists(st.text(alphabet, max_size=12), min_size=1, max_size=30, unique=True))
    names = [prefix + m + suffix for m in middles]
    extended = draw(st.lists(st.tuples(st.integers(0, len(names) - 1), st.text(alphabet, min_size=1, max_size=8)),
                             max_size=6))
    return list(dict.fromkeys(names + [names[i] + more for i, more in extended]))


@settings(max_examples=300, deadline=None)
@given(names=related_names(), width=st.integers(1, 40))
def test_related_names_fit_and_stay_distinct(names: list[str], width: int) -> None:
    check_shortened(names, width)


SUFFIX = "-instruct-2025-01-01-final"
VARIANTS = [f"{size}-{tune}-seed{seed}" for size in ("7b", "8b", "70b") for tune in ("dpo", "sft")
            for seed in (1, 2, 3)]


def shows(short: str, *parts: str) -> bool:
    return all(p in short for p in parts)


@pytest.mark.parametrize("width", [16, 20, 24, 32])
def test_a_long_shared_suffix_is_left_out(width: int) -> None:
    """Names differing only in the middle with a long common suffix show
    where they differ, not the suffix they all share."""
    names = [f"acme/model-{v}{SUFFIX}" for v in VARIANTS]
    out = shorten_names(names, width)
    assert len(set(out)) == len(names) and all(len(s) <= width for s in out), out
    for short, v in zip(out, VARIANTS):
        assert shows(short, *v.split("-")), (v, short)  # size, tuning and seed: every differing word
        assert "final" not in short and "2025" not in short, short  # shared by all: never shown
        assert short.endswith("…")
    if width >= 20:
        assert all(s.startswith("acme/") for s in out), out  # the organisation, where there is room


@pytest.mark.parametrize("width", [12, 20])
def test_a_long_shared_prefix_is_left_out(width: int) -> None:
    tails = ["alpha", "beta", "gamma-2", "delta-long-tail-3"]
    names = [f"a-very-long-organisation-name/shared-family-name-{t}" for t in tails]
    out = shorten_names(names, width)
    assert len(set(out)) == len(names) and all(len(s) <= width for s in out), out
    for short, t in zip(out, tails):
        if len(t) < width - 2:
            assert short.endswith(t), (t, short)  # the differing end whole
        assert "organisation-name" not in short and "shared-family" not in short, short


def test_long_shared_prefix_and_suffix() -> None:
    names = [f"organisation/very-long-family-name-{v}{SUFFIX}" for v in VARIANTS]
    out = shorten_names(names, 24)
    assert len(set(out)) == len(names) and all(len(s) <= 24 for s in out), out
    for short, v in zip(out, VARIANTS):
        assert shows(short, *v.split("-")) and "final" not in short and "very-long" not in short, (v, short)


def test_unicode_names() -> None:
    names = [f"研究所/模型-{size}-指令微调-2025年-最终版" for size in ("七十亿", "八十亿", "一百三十亿")]
    names += [f"équipe-été/modèle-{v}-réglé-über-lang-🚀" for v in ("α", "β", "γγ")]
    out = shorten_names(names, 14)
    assert len(set(out)) == len(names) and all(len(s) <= 14 for s in out), out
    for short, part in zip(out, ["七十亿", "八十亿", "一百三十亿", "α", "β", "γγ"]):
        assert part in short, (part, short)


@pytest.mark.parametrize("width", range(4, 24))
def test_names_that_are_prefixes_of_each_other(width: int) -> None:
    names = ["model", "model-v2", "model-v2-final", "model-v2-final-2", "model-v2-final-2-fixed",
             "model-v2-final-2-fixed-again-for-real"]
    out = shorten_names(names, width)
    assert len(set(out)) == len(names) and all(len(s) <= width for s in out), out
    assert all(s == n for s, n in zip(out, names) if len(n) <= width)


@pytest.mark.parametrize("width", [20, 24, 30])
def test_two_hundred_long_similar_names(width: int) -> None:
    """200 names alike but for an organisation, a size and a version, and a
    long shared suffix: every one shown differently, with its size and its
    version (what tells it from the names most like it)."""
    sizes = ["7b", "8b", "13b", "70b", "405b"]
    names = [f"organisation-{i % 3}/very-long-family-name-{sizes[i % 5]}-instruct-v{i // 5}-preview-2026-11"
             for i in range(200)]
    out = shorten_names(names, width)
    assert len(set(out)) == 200 and all(len(s) <= width for s in out)
    for i, short in enumerate(out):
        assert f"{sizes[i % 5]}-" in short or f"-{sizes[i % 5]}" in short, short
        assert f"v{i // 5}…" in short or f"v{i // 5}-" in short, short
        assert "2026" not in short and "very-long" not in short, short


# A name's words are split once per template (its ASCII digits as 0) and condensed as slices of it
# (kscore.present.names._layout/_pieces): the same text as splitting the name itself and rendering its words.
_SWEEP_CHARS = st.sampled_from(list("ab09.5-_/:@+ .x7"))


@settings(max_examples=300, deadline=None)
@given(st.text(_SWEEP_CHARS, min_size=1, max_size=30), st.integers(4, 30), st.integers(0, 6))
def test_template_layout_matches_the_names_own_words(name: str, width: int, shared: int) -> None:
    from kscore.present import names as nm

    words, seps, starts = nm._words(name)
    assert nm._shape(name) == (tuple(map(len, words)), tuple(starts))
    for regions in ([(0, 0)], [(len(words) - 1, len(words) - 1)], [(0, 0), (len(words) // 2, len(words) - 1)]):
        kept = nm._kept_words(tuple(map(len, words)), tuple(seps), tuple(regions), width, shared)
        want = None if kept is None else nm._render(words, seps, set(kept))
        assert nm._condensed(name, regions, width, shared) == want


def test_neighbour_regions_of_many_sweep_names() -> None:
    # Past ALL_PAIRS names each is compared with its neighbours (measured once per two pairs):
    # the regions of a pair of names that differ in one word hold that word.
    from kscore.present import names as nm

    names = sorted({f"sweep-{i % 7}/qwen-7b-lr{i % 3}e-6-seed{i % 5}-step{i:05d}" for i in range(3000)})
    found = nm._neighbour_regions(names)
    assert set(found) == set(names)
    for name in names[:50]:
        assert found[name] and all(0 <= a <= b < len(nm._words(name)[0]) for a, b in found[name])
    # Two names differing only in the step: the step (the last word) is where they differ.
    pair = nm._neighbour_regions(["a-b-step00001", "a-b-step00002"] + [f"z{i}-q" for i in range(3)])
    assert pair["a-b-step00001"] == [(2, 2)]
