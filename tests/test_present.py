"""kscore.present: names shortened without ambiguity, tables that fit."""

from __future__ import annotations

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
