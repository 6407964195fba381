"""kscore.aggregate against scorio.aggregate 0.2.3 on random candidate pools.

Every rule, every option, one question and many; answers as int, float (NaN),
string ("" unparsable) and bool arrays and as lists with None, "", NaN and mixed
types (1 == 1.0 == True is one answer in both); scores with ties, NaN and inf.
The selection, its index and its score must be scorio's exactly (same type too).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from kscore import aggregate as K

scorio_aggregate = pytest.importorskip("scorio.aggregate")

RULES: dict[str, list[dict[str, Any]]] = {
    "weighted_majority_vote": [{}, {"aggregate": "mean"}],
    "softmax_weighted_vote": [{}, {"temperature": 0.1}, {"temperature": float("inf")}],
    "rank_weighted_vote": [{}, {"p": 0.0}, {"p": 2.0}, {"p": 0.5}, {"p": 40.0}],
    "logit_weighted_vote": [{"transform": "linear"}, {"transform": "linear", "threshold": 0.3}],
    "filtered_vote": [{}, {"keep": 1}, {"keep": 3}, {"keep": 1.0, "weighted": False}, {"keep": 0.07}],
    "best_of_n": [{}],
    "majority_of_the_bests": [{}, {"m": 1}, {"m": 3}, {"m": 40}],
    "best_of_majority": [
        {},
        {"alpha": 0.3},
        {"alpha": 1.0, "aggregate": "sum"},
        {"aggregate": "max"},
        {"alpha": 0.5, "aggregate": "max"},
    ],
}


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type; NaN equals NaN; arrays element by element."""
    if isinstance(a, tuple):
        return isinstance(b, tuple) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return (
            isinstance(b, np.ndarray)
            and a.dtype == b.dtype
            and a.shape == b.shape
            and all(same(x, y) for x, y in zip(a.tolist(), b.tolist()))
        )
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def boards(seed: int) -> Any:
    rng = np.random.default_rng(seed)
    for _ in range(40):
        m = int(rng.integers(1, 6))
        n = int(rng.integers(1, 9))
        kinds = int(rng.integers(1, 5))
        ids = rng.integers(0, kinds, size=(m, n))
        style = rng.integers(0, 8)
        answers: Any
        if style == 0:
            answers = ids
        elif style == 1:
            answers = np.array(["", "A", "B", "C", "D"])[ids]
        elif style == 2:
            answers = np.where(ids == 0, np.nan, ids * 0.5)
        elif style == 3:
            answers = ids.astype(bool)
        elif style == 4:
            pick = [None, "", "x", 1, 1.0, True, float("nan"), "y", 2]
            answers = [[pick[int(v)] for v in rng.integers(0, len(pick), size=n)] for _ in range(m)]
        elif style == 5:
            answers = [["ab"[int(v) % 2] + str(int(v)) for v in row] for row in ids]
        elif style == 6:  # str and None: the fixed-width path
            answers = [[None if v == 0 else f"s{int(v)}" for v in row] for row in ids]
        else:  # Python ints, and floats with -0.0 and 0.0 (one answer, the first returned)
            answers = [[int(v) for v in row] for row in ids] if rng.random() < 0.5 else [
                [[-0.0, 0.0, 1.5, float("nan")][int(v) % 4] for v in row] for row in ids
            ]
        scores = np.round(rng.random((m, n)), int(rng.integers(0, 3)))
        if rng.random() < 0.2:
            scores[rng.random((m, n)) < 0.2] = np.nan
        if rng.random() < 0.1:
            scores[rng.random((m, n)) < 0.2] = np.inf
        single = rng.random() < 0.3
        if single:
            answers = answers[0] if not isinstance(answers, np.ndarray) else answers[0]
            scores = scores[0]
        yield answers, scores


@pytest.mark.parametrize("seed", range(6))
def test_majority_vote(seed: int) -> None:
    for answers, _ in boards(seed):
        for ri in (False, True):
            want = scorio_aggregate.majority_vote(answers, return_index=ri)
            assert same(K.majority_vote(answers, return_index=ri), want)


@pytest.mark.parametrize("rule", sorted(RULES))
@pytest.mark.parametrize("seed", range(6))
def test_score_rules(rule: str, seed: int) -> None:
    mine, theirs = getattr(K, rule), getattr(scorio_aggregate, rule)
    for answers, scores in boards(seed):
        for options in RULES[rule]:
            for extra in ({}, {"return_index": True, "return_score": True}, {"return_score": True}):
                got = mine(answers, scores, **options, **extra)
                want = theirs(answers, scores, **options, **extra)
                assert same(got, want), (rule, options, extra, answers, scores, got, want)


@pytest.mark.parametrize("seed", range(4))
def test_logit_in_unit_interval(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(30):
        m, n = int(rng.integers(1, 5)), int(rng.integers(1, 9))
        answers = rng.integers(0, 3, size=(m, n))
        scores = np.clip(np.round(rng.random((m, n)), 2), 0.01, 0.99)
        for threshold in (0.5, 0.2, 0.9):
            got = K.logit_weighted_vote(answers, scores, threshold=threshold, return_index=True)
            want = scorio_aggregate.logit_weighted_vote(answers, scores, threshold=threshold, return_index=True)
            assert same(got, want)


def test_large_batch_equals_row_by_row() -> None:
    """A 2,000 x 64 batch of ids: the whole call equals scorio's."""
    rng = np.random.default_rng(7)
    answers = rng.integers(0, 6, size=(2000, 64))
    scores = np.round(rng.random((2000, 64)), 2)
    for rule in RULES:
        got = getattr(K, rule)(answers, scores, **RULES[rule][0], return_index=True)
        want = getattr(scorio_aggregate, rule)(answers, scores, **RULES[rule][0], return_index=True)
        assert same(got, want), rule
    assert same(K.majority_vote(answers, return_index=True), scorio_aggregate.majority_vote(answers, return_index=True))


def test_powers_past_two_to_the_53_are_exact() -> None:
    """Borda p=12 and MoB m=20 on 64 candidates: Python ints (scorio) and the replay agree."""
    rng = np.random.default_rng(3)
    answers = rng.integers(0, 4, size=(50, 64))
    scores = np.round(rng.random((50, 64)), 1)
    for rule, options in (("rank_weighted_vote", {"p": 12.0}), ("majority_of_the_bests", {"m": 20})):
        got = getattr(K, rule)(answers, scores, **options, return_index=True)
        want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True)
        assert same(got, want), rule


ERRORS = [
    ("majority_vote", (np.zeros((2, 2, 2)),), {}),
    ("majority_vote", ([[]],), {}),
    ("weighted_majority_vote", (["a"], None), {}),
    ("weighted_majority_vote", (["a", "b"], [1.0]), {}),
    ("weighted_majority_vote", (["a"], [1.0]), {"aggregate": "max"}),
    ("softmax_weighted_vote", (["a"], [1.0]), {"temperature": 0.0}),
    ("rank_weighted_vote", (["a"], [1.0]), {"p": -1.0}),
    ("rank_weighted_vote", (["a"], [1.0]), {"p": float("inf")}),
    ("logit_weighted_vote", (["a"], [1.0]), {"transform": "probit"}),
    ("logit_weighted_vote", (["a"], [0.5]), {"threshold": 1.0}),
    ("logit_weighted_vote", (["a", "b"], [0.5, 1.0]), {}),
    ("filtered_vote", (["a"], [1.0]), {"keep": True}),
    ("filtered_vote", (["a"], [1.0]), {"keep": 0}),
    ("filtered_vote", (["a"], [1.0]), {"keep": 1.5}),
    ("majority_of_the_bests", (["a"], [1.0]), {"m": 0}),
    ("majority_of_the_bests", (["a"], [1.0]), {"m": 2.0}),
    ("majority_of_the_bests", (["a"], [1.0]), {"m": True}),
    ("best_of_majority", (["a"], [1.0]), {"alpha": 1.5}),
    ("best_of_majority", (["a"], [1.0]), {"aggregate": "median"}),
    ("best_of_n", (["a", "b"], [1.0, 2.0, 3.0]), {}),
]


@pytest.mark.parametrize(("rule", "args", "kwargs"), ERRORS)
def test_errors_are_scorios(rule: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(Exception) as theirs:
        getattr(scorio_aggregate, rule)(*args, **kwargs)
    with pytest.raises(type(theirs.value)) as mine:
        getattr(K, rule)(*args, **kwargs)
    assert str(mine.value) == str(theirs.value)


def test_mob_is_an_alias() -> None:
    assert K.mob is K.majority_of_the_bests


def test_unhashable_answer_raises_like_scorio() -> None:
    answers = np.empty((1, 2), dtype=object)
    answers[0, 0], answers[0, 1] = [1], [1]
    with pytest.raises(TypeError) as theirs:
        scorio_aggregate.majority_vote(answers)
    with pytest.raises(TypeError) as mine:
        K.majority_vote(answers)
    assert str(mine.value) == str(theirs.value)


TYPED = ["int8", "uint16", "int32", "float32", "float16", "float64", "U1", "U12"]


@pytest.mark.parametrize("dtype", TYPED)
def test_typed_arrays_of_every_width(dtype: str) -> None:
    """Answers as arrays of each width the core groups (one integer key up to 8 bytes,
    bytes past it; floats with NaN and -0.0 beside 0.0; "" unparsable): every rule's
    selection, index and score equal scorio's, on batches with tied and NaN scores."""
    rng = np.random.default_rng(sum(map(ord, dtype)))
    for _ in range(6):
        m, n = int(rng.integers(1, 40)), int(rng.integers(1, 20))
        ids = rng.integers(0, 5, size=(m, n))
        answers: Any
        if dtype.startswith("U"):
            short, long = ["", "a", "b", "c", "d"], ["", "answer 1", "answer 22", "x" * 12, "é"]
            words = np.array(short if dtype == "U1" else long)
            answers = words[ids].astype(dtype)
        elif dtype.startswith("float"):
            answers = np.array([np.nan, -0.0, 0.0, 1.5, -2.25])[ids].astype(dtype)
        else:
            answers = (ids - (2 if dtype.startswith("int") else 0)).astype(dtype)
        scores = np.round(rng.random((m, n)), 1)
        if rng.random() < 0.3:
            scores[rng.random((m, n)) < 0.1] = np.nan
        for rule in RULES:
            for options in RULES[rule]:
                got = getattr(K, rule)(answers, scores, **options, return_index=True, return_score=True)
                want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True, return_score=True)
                assert same(got, want), (dtype, rule, options)
        got = K.majority_vote(answers, return_index=True)
        assert same(got, scorio_aggregate.majority_vote(answers, return_index=True)), dtype


def test_large_batch_ties_and_logit() -> None:
    """1,000 x 48 ids with scores on a coarse grid (many ties: the rank rules' order
    decides), every option of every rule, and the logit weights on (0, 1) scores."""
    rng = np.random.default_rng(11)
    answers = rng.integers(0, 5, size=(1000, 48))
    scores = np.round(rng.random((1000, 48)), 1)
    for rule in RULES:
        for options in RULES[rule]:
            got = getattr(K, rule)(answers, scores, **options, return_index=True)
            want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True)
            assert same(got, want), (rule, options)
    unit = np.clip(scores, 0.05, 0.95)
    for threshold in (0.5, 0.3):
        got = K.logit_weighted_vote(answers, unit, threshold=threshold, return_index=True)
        want = scorio_aggregate.logit_weighted_vote(answers, unit, threshold=threshold, return_index=True)
        assert same(got, want), threshold


@pytest.mark.parametrize("style", ["ids", "str array", "mixed list"])
def test_fused_batch_with_replayed_rows(style: str) -> None:
    """One batch where a few rows hold NaN or inf scores among tied ones: the core's
    fused pass flags those rows and they are replayed step by step, the rest are
    counted in the core; every rule and option equals scorio on the whole batch
    (the replayed rows spliced back in place)."""
    rng = np.random.default_rng(sum(map(ord, style)))
    m, n = 300, 16
    ids = rng.integers(0, 4, size=(m, n))
    scores = np.round(rng.random((m, n)), 1)
    odd = rng.random(m) < 0.08
    scores[odd & (rng.random(m) < 0.5), 3] = np.nan
    scores[odd & (rng.random(m) < 0.5), 5] = np.inf
    scores[odd & (rng.random(m) < 0.5), 7] = -np.inf
    answers: Any
    if style == "ids":
        answers = ids
    elif style == "str array":
        answers = np.array(["", "alpha", "beta", "gamma"])[ids]
    else:  # one answer written as 1, 1.0 and True: grouped by Python's dict
        pick: list[Any] = [None, 1, 1.0, True, "x", 2]
        answers = [[pick[int(v)] for v in rng.integers(0, len(pick), size=n)] for _ in range(m)]
    for rule in RULES:
        for options in RULES[rule]:
            got = getattr(K, rule)(answers, scores, **options, return_index=True, return_score=True)
            want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True, return_score=True)
            assert same(got, want), (style, rule, options)
    assert same(K.majority_vote(answers, return_index=True), scorio_aggregate.majority_vote(answers, return_index=True))
    finite = np.where(np.isfinite(scores), scores, 0.5)
    for threshold in (0.5, 0.3):  # the logit transform on (0, 1) scores
        unit = np.clip(finite, 0.05, 0.95)
        got = K.logit_weighted_vote(answers, unit, threshold=threshold, return_index=True)
        want = scorio_aggregate.logit_weighted_vote(answers, unit, threshold=threshold, return_index=True)
        assert same(got, want), threshold


@pytest.mark.parametrize("chars", range(1, 11))
def test_string_arrays_of_every_length(chars: int) -> None:
    """numpy string arrays of 1 to 10 characters (up to 8: one integer key read from the
    UCS-4 words; past 8 or with a character past 255: hashed bytes), few distinct
    strings sharing prefixes, "" unparsable, tied and NaN scores: every rule's
    selection, index and score equal scorio's."""
    rng = np.random.default_rng(100 + chars)
    alphabet = ["a", "b", "é", "ÿ"] + (["Ω", "😀"] if chars % 3 == 0 else [])
    words = [""] + ["".join(rng.choice(alphabet, size=int(rng.integers(1, chars + 1)))) for _ in range(5)]
    words += [words[1][:-1] or "a", words[2] + "a" if len(words[2]) < chars else words[2]]
    for _ in range(3):
        m, n = int(rng.integers(1, 30)), int(rng.integers(1, 24))
        answers = np.array(words)[rng.integers(0, len(words), size=(m, n))].astype(f"U{chars}")
        scores = np.round(rng.random((m, n)), 1)
        if rng.random() < 0.5:
            scores[rng.random((m, n)) < 0.1] = np.nan
        for rule in RULES:
            for options in RULES[rule]:
                got = getattr(K, rule)(answers, scores, **options, return_index=True, return_score=True)
                want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True, return_score=True)
                assert same(got, want), (chars, rule, options)
        got = K.majority_vote(answers, return_index=True)
        assert same(got, scorio_aggregate.majority_vote(answers, return_index=True)), chars


@pytest.mark.parametrize("chars", [1, 3, 8])
def test_string_arrays_with_many_distinct_strings(chars: int) -> None:
    """Rows of 15 to 40 distinct strings (the lanes' keys hold a row's first 16 distinct
    strings; a row with more is grouped another way), "" and ties among them, a
    character past 255 in some rows: every rule equals scorio, and the chosen strings
    are equal ``str`` objects (one made per distinct string) or None."""
    rng = np.random.default_rng(7 + chars)
    letters = [chr(c) for c in range(97, 123)] + [chr(c) for c in range(192, 256)]
    pool = [""] + sorted({"".join(rng.choice(letters, size=chars)) for _ in range(200)})
    for distinct in (15, 16, 17, 40):
        words = np.array(pool[: distinct + 1] + ["Ω" * chars])
        m, n = 12, 48
        ids = rng.integers(0, distinct + 1, size=(m, n))
        ids[0] = np.arange(n) % (distinct + 1)  # every one of them in row 0
        ids[1, :] = 0  # a row of "" only: None chosen
        ids[2, 5] = distinct + 1  # one character past 255
        answers = words[ids].astype(f"U{chars}")
        scores = np.round(rng.random((m, n)), 1)
        for rule in RULES:
            for options in RULES[rule]:
                got = getattr(K, rule)(answers, scores, **options, return_index=True, return_score=True)
                want = getattr(scorio_aggregate, rule)(answers, scores, **options, return_index=True, return_score=True)
                assert same(got, want), (chars, distinct, rule, options)
        got = K.majority_vote(answers, return_index=True)
        assert same(got, scorio_aggregate.majority_vote(answers, return_index=True)), (chars, distinct)


def test_chosen_strings_of_any_byte_order_and_code_point() -> None:
    """The chosen strings made from a string array's bytes: big-endian arrays, embedded
    NULs, lone surrogates and astral characters give scorio's values."""
    words = ["a\x00b", "ab", "\ud800x", "😀😀", "Ā", "", "zz"]
    rng = np.random.default_rng(3)
    ids = rng.integers(0, len(words), size=(30, 9))
    for dtype in ("<U4", ">U4", "<U2"):
        answers = np.array(words, dtype=dtype)[ids]
        scores = rng.random(ids.shape)
        for rule, args in (("majority_vote", (answers,)), ("best_of_n", (answers, scores))):
            got = getattr(K, rule)(*args, return_index=True)
            want = getattr(scorio_aggregate, rule)(*args, return_index=True)
            assert same(got, want), (dtype, rule)


@pytest.mark.parametrize("dtype", ["<U3", "float64", "int64"])
def test_best_of_n_when_the_best_scored_answers_are_unparsable(dtype: str) -> None:
    """Best-of-N reads the answers of the best-scored columns first: rows whose 0 to 7
    best scores (ties among them, NaN and -inf scores too) belong to unparsable
    answers ("" or NaN) give scorio's selection, index and score."""
    rng = np.random.default_rng(11)
    m, n = 60, 12
    scores = np.round(rng.random((m, n)), 1)
    scores[rng.random((m, n)) < 0.1] = np.nan
    scores[rng.random((m, n)) < 0.05] = -np.inf
    ids = rng.integers(1, 4, size=(m, n))
    order = np.argsort(-np.nan_to_num(scores, nan=-2.0), axis=1, kind="stable")
    for r in range(m):
        ids[r, order[r, : r % 8]] = 0  # the r % 8 best-scored answers unparsable
    ids[-1] = 0  # nothing parsable
    if dtype == "<U3":
        answers: Any = np.array(["", "a", "bb", "ccc"], dtype=dtype)[ids]
    elif dtype == "float64":
        answers = np.where(ids == 0, np.nan, ids * 1.5)
    else:
        answers = ids
    got = K.best_of_n(answers, scores, return_index=True, return_score=True)
    want = scorio_aggregate.best_of_n(answers, scores, return_index=True, return_score=True)
    assert same(got, want), dtype
