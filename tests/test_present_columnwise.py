"""The outputs of a 100 000-model board, written a column at a time, are the
same bytes as before.

The command's CSV writes its floats in Rust (kscore._kscore.csv_lines):
the same bytes as Python's ``repr`` of each, checked here against the
interpreter's own ``repr`` on millions of doubles of every kind (random bit
patterns: subnormals, huge and tiny; values near the layout's switches at
1e-4 and 1e16; integers; the statistics' usual values in [0, 1]) and on
exact decimal ties (a double halfway between two shortest strings, where
``repr`` keeps the even last digit: Rust's own shortest digits round up),
and the whole CSV against a writer with a ``repr`` per cell. The JSON
document is written by one recursive pass: the same text as
``json.dumps(doc, indent=2)`` on documents of every kind and on real
boards."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

import kscore
from kscore._kscore import csv_lines
from kscore.leaderboard.api import Value
from kscore.present.formats import render_leaderboard
from kscore.present.model import Board, Estimate, Estimates
from kscore.present.tabular import csv_field, dumps, render_csv


def _python(values: np.ndarray) -> str:
    return "".join(("" if x != x else repr(x)) + "\n" for x in values.tolist())


def _ties(rng: np.random.Generator, n: int) -> np.ndarray:
    """Doubles ``M / 2^f`` (``M`` odd, 38-53 bits): their decimal expansions
    end in a 5, many of them one digit past their shortest strings (a tie)."""
    f = rng.integers(1, 12, n)
    b = rng.integers(38, 54, n)
    m = (rng.integers(0, 2**62, n, dtype=np.int64) % (2**b)) | (2 ** (b - 1)) | 1
    out: np.ndarray = m.astype(np.float64) / 2.0**f  # (exact: M < 2^53)
    return out


def _doubles(rng: np.random.Generator, n: int) -> np.ndarray:
    bits = rng.integers(0, 2**64, size=n, dtype=np.uint64).view(np.float64)  # every exponent, both signs
    bits = bits[~np.isnan(bits)]
    unit = rng.random(n)
    near = np.concatenate([10.0 ** rng.uniform(-6, -3, n // 4), 10.0 ** rng.uniform(14, 18, n // 4)])
    ints = np.round(rng.uniform(-1e17, 1e17, n // 4))
    short = np.round(rng.random(n // 4), rng.integers(1, 6))  # few digits: 0.125, 0.5
    stats = np.concatenate([rng.integers(0, 81, n // 4) / 80.0, np.sqrt(rng.random(n // 4)) / 7.0])
    ties = _ties(rng, n // 2)
    return np.concatenate([bits, unit, -unit, near, ints, short, stats, ties, -ties])


@pytest.mark.parametrize("seed", [0, 1])
def test_floats_are_python_repr(seed: int) -> None:
    values = _doubles(np.random.default_rng(seed), 200_000)
    assert csv_lines([values]) == _python(values)


def _is_tie(x: float) -> bool:
    """Whether ``x``'s exact expansion is one digit longer than ``repr``'s
    (positional) digits and ends in 5: halfway between two shortest strings."""
    r = repr(x)
    if "e" in r:
        return False
    shown = (r[:-2] if r.endswith(".0") else r).replace(".", "").replace("-", "").lstrip("0").rstrip("0")
    exact = str(abs(Decimal(x))).replace(".", "").lstrip("0")
    return len(exact) == len(shown) + 1 and exact.endswith("5")


def test_exact_decimal_ties_keep_the_even_digit() -> None:
    values = _ties(np.random.default_rng(7), 20_000)
    ties = np.array([x for x in values.tolist() if _is_tie(x)])
    assert len(ties) > 1000  # (the set holds ties: the case Rust's own digits round up)
    assert sum(int(repr(x)[-1]) % 2 for x in ties.tolist()) == 0  # repr keeps the even digit
    assert csv_lines([ties]) == _python(ties)
    assert csv_lines([-ties]) == _python(-ties)
    # written down from the interpreter: 77600379662.828125 is halfway between ...2812 and ...2813
    assert csv_lines([np.array([77600379662.828125, 1125899906842624.25, 1125899906842624.75])]) == \
        "77600379662.82812\n1125899906842624.2\n1125899906842624.8\n"


def test_float_edges() -> None:
    edges = [0.0, -0.0, 1.0, -1.0, 0.1, 1e-4, 9.999999999999999e-05, 1e-5, 1e15, 9999999999999998.0, 1e16, 1e22,
             5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, math.inf, -math.inf, math.nan, 0.3,
             0.30000000000000004, 2.0**-1074, 123456789.0, 1.5e-7, 1e100, 1e-100, 2.0**53, 2.0**53 + 2, 2.0**63]
    values = np.array(edges)
    assert csv_lines([values]) == _python(values)


def test_columns_joined() -> None:
    assert csv_lines([]) == ""
    ints = np.array([3, -(2**63)], np.int64)
    assert csv_lines([["a", '"b,c"'], np.array([0.5, math.nan]), ints, ["1", ""]]) == 'a,0.5,3,1\n"b,c",,,\n'
    with pytest.raises(ValueError, match="lengths"):
        csv_lines([["a"], np.array([0.5, 1.5])])
    with pytest.raises(TypeError):
        csv_lines([["a", 1]])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        csv_lines([np.array([1, 2], np.int32)])  # type: ignore[list-item]  # (int32: refused)


def _reference_csv(table: dict[str, list[Any]]) -> str:
    """The CSV written independently of present/tabular.py: a ``repr`` per float cell."""
    def field(x: object, kind: type | None) -> str:
        if kind is float:
            return "" if x is None or x != x else repr(x)
        return csv_field(x) if kind is str else ("" if x is None else str(x))

    kinds = [next((type(x) for x in v if x is not None), None) for v in table.values()]
    lines = [",".join(csv_field(k) for k in table)]
    for row in zip(*table.values()):
        lines.append(",".join(field(x, k) for x, k in zip(row, kinds)))
    return "\n".join(lines) + "\n"


def test_render_csv_as_a_repr_per_cell() -> None:
    rng = np.random.default_rng(3)
    n = 2000
    est = rng.random(n).tolist()
    est[5] = None
    sigma = (rng.random(n) / 50).tolist()
    sigma[7] = math.nan
    table = {
        "rank": [str(i + 1) for i in range(n)],
        "rank_lo": [i + 1 if i != 3 else None for i in range(n)],
        "model": [f'm,{i}' if i % 7 == 0 else f'q"{i}' if i % 11 == 0 else f"m{i}" for i in range(n)],
        "accuracy": est,
        "x_sigma": sigma,
        "odd": [1.5, 2, *([0.25] * (n - 2))],  # (an int among floats: repr of each, as before)
        "npf": [np.float64(0.1)] * n,  # (a float subclass: str of each, as before)
        "none": [None] * n,
        "inf": [math.inf, -math.inf, -0.0, *([1e-7] * (n - 3))],
        "ints": [i * 7 - 500 for i in range(n)],
        "ties": _ties(rng, n).tolist(),
        "quoted_none": ['a,"b"', None, *([f"m{i}" for i in range(n - 2)])],
        "names_none": [None, *([f"m{i}" for i in range(n - 1)])],
        "bools": [True, False, *([True] * (n - 2))],
        "huge": [2**70, None, *([1] * (n - 2))],
    }
    board = Board("t", [f"m{i}" for i in range(n)], [None] * n, [], table=table)
    assert render_csv(board) == _reference_csv(table)
    assert render_csv(Board("t", [], [], [], table={})) == "\n"


def test_dumps_is_json_indent_2() -> None:
    rng = np.random.default_rng(5)
    docs: list[Any] = [
        {}, [], None, True, 0, -3, 2**70, 0.1, -0.0, math.nan, math.inf, -math.inf, "", "é\u2028\x1b\"q\"\n",
        {"a": [], "b": {}, "c": [[], {}], "d": (1, 2.5, None), "e": [True, False, None]},
        {"models": [{"rank": "1-2", "rank_range": [1, 2], "model": 'm,"x"|é', "questions": 20, "samples": [4, 4],
                     "accuracy": 0.25, "metrics": {"pass@1": {"estimate": 0.25, "sigma": None, "lo": 0.1,
                                                              "hi": 0.4}, "maj@4": None}}] * 3,
         "nested": [[[1]], [{"x": [{}]}]], "np": np.float64(0.1), "sub": OrderedDict(z=1, a=2)},
        {"floats": (rng.random(1000) ** 9 * 10.0 ** rng.integers(-30, 30, 1000)).tolist()},
    ]
    for doc in docs:
        assert dumps(doc) == json.dumps(doc, indent=2)
    # what it leaves to json: other keys (json's own spelling) and types json refuses (json's error)
    other = {2: "a", 2.5: [None], False: {}, None: 0}
    assert dumps(other) == json.dumps(other, indent=2)
    with pytest.raises(TypeError):
        dumps({"a": np.int64(1)})


@pytest.mark.parametrize("kw", [{}, {"interval": "posterior", "adjust": "holm"},
                                {"metrics": "pass@1,pass@2,bayes@N,cons@n", "k": "1,2"}])
def test_board_json_is_json_indent_2(kw: dict[str, Any]) -> None:
    """The command's JSON of the shipped sample, read back and written by json itself, is the same text."""
    lb = kscore.leaderboard(_sample(), **kw)
    text = render_leaderboard(lb, "json", pairwise=("all", None), plan=True)
    assert text == json.dumps(json.loads(text), indent=2) + "\n"


def _sample() -> str:
    from importlib import resources

    return str(resources.files("kscore.data").joinpath("sample_results.csv.gz"))


@pytest.mark.parametrize("kw", [{}, {"interval": "posterior"}, {"metrics": "pass@1,cons@n,bayes@N"}])
def test_columns_are_the_rows(kw: dict[str, Any]) -> None:
    """Leaderboard.columns() (a column at a time) against the rows read one by one."""
    lb = kscore.leaderboard(_sample(), **kw)
    lb.rows[1].values[lb.metrics[0].name] = None  # (a metric not computed for a model)
    lb.rows[2].rank = None
    want: dict[str, list[Any]] = {"rank": [], "rank_lo": [], "rank_hi": [], "model": [], "questions": [],
                                  "samples_min": [], "samples_max": [], "accuracy": []}
    for r in lb.rows:
        want["rank"].append("-" if r.rank is None else f"{r.rank[0]}" if r.rank[0] == r.rank[1] else
                            f"{r.rank[0]}-{r.rank[1]}")
        want["rank_lo"].append(None if r.rank is None else r.rank[0])
        want["rank_hi"].append(None if r.rank is None else r.rank[1])
        for key, attr in (("model", "model"), ("questions", "questions"), ("samples_min", "n_min"),
                          ("samples_max", "n_max"), ("accuracy", "accuracy")):
            want[key].append(getattr(r, attr))
    suffixes = ["", "_sigma", "_lo", "_hi"] + (["_posterior_mean"] if lb.interval == "posterior" else [])
    for m in lb.metrics:
        for suffix in suffixes:
            attr = {"": "estimate"}.get(suffix, suffix[1:])
            want[m.name + suffix] = [None if r.values.get(m.name) is None else getattr(r.values[m.name], attr)
                                     for r in lb.rows]
    got = lb.columns()
    assert list(got) == list(want)
    assert repr(got) == repr(want)  # (NaN where NaN, None where None)


def _with_subjects() -> Any:
    """A board with a ``subject`` column (``by``), a model missing questions."""
    import pandas as pd

    rng = np.random.default_rng(6)
    rows = [(f"m{m}", q, s, int(rng.random() < 0.2 + 0.1 * m), ["a", "b", "c"][q % 3])
            for m in range(6) for q in range(30 if m else 20) for s in range(4)]
    return pd.DataFrame(rows, columns=["model", "question", "sample", "correct", "subject"])


@pytest.mark.parametrize("kw", [{}, {"interval": "posterior"}, {"metrics": "pass@1,pass@32,cons@n,bayes@N"},
                                {"by": "subject"}])
def test_columns_as_arrays_are_the_lists(kw: dict[str, Any]) -> None:
    """columns(arrays=True) (the command's CSV: metrics as float64 arrays
    read from the board's columns) holds the lists' numbers, NaN where they
    have None, and the CSV written of either is the same text; a value
    held by a row (assigned through it) is read from it."""
    lb = kscore.leaderboard(_with_subjects() if "by" in kw else _sample(), **kw)
    for _ in range(2):
        lists, arrays = lb.columns(groups=True), lb.columns(groups=True, arrays=True)
        assert list(arrays) == list(lists)
        for key, want in lists.items():
            got = arrays[key]
            if isinstance(got, np.ndarray):
                assert got.dtype == np.float64 and len(got) == len(want)
                assert repr(got.tolist()) == repr([math.nan if x is None else x for x in want])
            else:
                assert repr(got) == repr(want)
        assert any(isinstance(v, np.ndarray) for v in arrays.values())
        csv = render_csv(Board("t", [], [], [], table=arrays))
        assert csv == render_csv(Board("t", [], [], [], table=lists)) == _reference_csv(lists)
        lb.rows[1].values[lb.metrics[0].name] = Value(0.5, 0.25, 0.125, 0.75)  # (then read from the row)


def test_rank_labels_are_rank_label() -> None:
    """stats/rank.py rank_labels (maps and one choice over arrays) against
    rank_label of each row: single ranks, ranges, None."""
    from kscore.leaderboard.api import ModelRow, rank_label
    from kscore.leaderboard.stats.rank import rank_labels

    rng = np.random.default_rng(4)
    lo = rng.integers(1, 2000, 5000)
    hi = lo + rng.integers(0, 3, 5000) * rng.integers(0, 300, 5000)
    ranks: list[tuple[int, int] | None] = list(zip(lo.tolist(), hi.tolist()))
    cases: list[list[tuple[int, int] | None]] = [ranks, [(3, 3)] * 10, [(1, 2)] * 10, [], [None, *ranks[:50]],
                                                 ranks[:50] + [None]]
    for given in cases:
        rows = [ModelRow("m", 1, 1, 1, 0.5, {}, r) for r in given]
        assert rank_labels(given) == [rank_label(r) for r in rows]
    assert {"1", "1-2"} <= set(rank_labels([(1, 1), (1, 2)]))


def _read_by_row(lb: Any) -> dict[str, list[Any]]:
    """The metrics' columns read a row and a Value at a time."""
    suffixes = ["", "_sigma", "_lo", "_hi"] + (["_posterior_mean"] if lb.interval == "posterior" else [])
    out: dict[str, list[Any]] = {}
    for m in lb.metrics:
        for suffix in suffixes:
            attr = {"": "estimate"}.get(suffix, suffix[1:])
            out[m.name + suffix] = [None if r.values.get(m.name) is None else getattr(r.values[m.name], attr)
                                    for r in lb.rows]
    return out


@pytest.mark.parametrize("kw", [{}, {"interval": "posterior"}, {"interval": "normal"}, {"interval": "wilson"},
                                {"metrics": "pass@1,pass@32,cons@n,bayes@N"}])
def test_columns_before_any_row_is_read(kw: dict[str, Any]) -> None:
    """The values' columns (stats/values.py ModelTable), read before any row
    made a Value, are the Values the rows make when read afterwards; then
    a Value changed through its row, one assigned and one deleted show in
    the columns."""
    lb = kscore.leaderboard(_sample(), **kw)
    table = lb.rows[0].values._table  # type: ignore[attr-defined]
    got = lb.columns()
    assert table.held.get(lb.metrics[-1].name) is None  # (no row read: the columns were)
    want = _read_by_row(lb)
    assert repr({k: got[k] for k in want}) == repr(want)
    if "pass@32" in kw.get("metrics", ""):
        assert set(got["pass@32"]) == {None}  # (16 samples per question: not computed)
    name = lb.metrics[0].name
    lb.rows[0].values[name].lo = -1.0  # type: ignore[union-attr]
    lb.rows[1].values[name] = Value(0.5, 0.25, 0.125, 0.75)
    del lb.rows[2].values[name]
    after = lb.columns()
    assert after[name + "_lo"][:3] == [-1.0, 0.125, None]
    assert after[name][1:3] == [0.5, None]
    assert after[name + "_lo"][3:] == got[name + "_lo"][3:]
    assert repr({k: after[k] for k in want}) == repr(_read_by_row(lb))


def test_row_values_is_a_dict_of_values() -> None:
    """A row's values behave as the dict they were: keys in metric order,
    get/in/len/iteration/equality/assignment/deletion, the same Value
    object at each read."""
    lb = kscore.leaderboard(_sample(), metrics="pass@1,pass@4,bayes@N")
    v = lb.rows[0].values
    names = [m.name for m in lb.metrics]
    assert list(v) == names and len(v) == 3 and names[1] in v and "x" not in v and not v.__contains__(3)
    assert v[names[0]] is v[names[0]] and v.get("x") is None
    plain = dict(v.items())
    assert v == plain and plain == v and repr(v) == repr(plain)
    v["extra"] = None
    assert list(v) == [*names, "extra"] and v["extra"] is None
    del v[names[1]]
    assert names[1] not in v and list(v) == [names[0], names[2], "extra"]
    with pytest.raises(KeyError):
        v[names[1]]
    with pytest.raises(KeyError):
        del v["x"]
    v[names[1]] = Value(0.5, 0.1, 0.3, 0.7)
    assert v[names[1]] == Value(0.5, 0.1, 0.3, 0.7)


def test_sorted_from_the_columns_as_by_the_key() -> None:
    """stats/rank.py sort_rows: the columns' order (numpy) is the key's
    order (Python's sort of (has it, -estimate, name)), models without the
    metric last; with a value read through a row, the key's own."""
    from kscore.leaderboard.stats.rank import scored_models, sort_rows

    lb = kscore.leaderboard(_sample(), metrics="pass@1,pass@32")
    rng = np.random.default_rng(2)
    for metric in lb.metrics:
        rows = [lb.rows[j] for j in rng.permutation(len(lb.rows))]
        got = sort_rows(rows, metric)

        def key(r: Any, name: str = metric.name) -> tuple[int, float, str]:
            x = r.values.get(name)
            return (0, -x.estimate, r.model) if x is not None else (1, 0.0, r.model)

        models = scored_models(rows, metric)
        assert [r.model for r in got] == [r.model for r in sorted(rows, key=key)]
        assert models == [r.model for r in rows if r.values.get(metric.name) is not None]


def test_sorted_with_ties_as_by_the_key() -> None:
    """sort_rows on rows in name order (their positions break ties) and
    permuted (the names do): Python's sort of (has it, -estimate, name),
    models with equal estimates in name order."""
    import pandas as pd

    from kscore.leaderboard.stats.rank import sort_rows

    rows = [(f"m{m:02d}", q, s, int((q + s + m // 4) % 3 == 0)) for m in range(24) for q in range(6) for s in range(2)]
    lb = kscore.leaderboard(pd.DataFrame(rows, columns=["model", "question", "sample", "correct"]), metrics="pass@1")
    name = lb.sort.name

    def key(r: Any) -> tuple[int, float, str]:
        x = r.values.get(name)
        return (0, -x.estimate, r.model) if x is not None else (1, 0.0, r.model)

    by_name = sorted(lb.rows, key=lambda r: r.model)
    rng = np.random.default_rng(8)
    for given in (by_name, [by_name[j] for j in rng.permutation(len(by_name))]):
        got = sort_rows(given, lb.sort)
        assert [r.model for r in got] == [r.model for r in sorted(given, key=key)]
    estimates = {v.estimate for r in lb.rows if (v := r.values[name]) is not None}
    assert len(estimates) < len(lb.rows) // 2  # (ties decided by the names)


def test_estimates_are_the_estimates() -> None:
    """present/model.py Estimates: the Estimate of each entry, slices, equality."""
    est = Estimates([0.5, None, 0.25], [0.4, 0.1, None], [0.6, 0.9, None], None, [0.55, None, None])
    want = [Estimate(0.5, 0.4, 0.6, None, 0.55), None, Estimate(0.25, None, None, None, None)]
    assert list(est) == want and est == want and len(est) == 3
    assert est[1:] == want[1:] and est[-1] == want[-1]
    assert est != want[:2] and est != "abc"


def test_dumps_lists_of_rows_as_json() -> None:
    """Lists of dicts of one shape (the pairs' rows) are written a column at
    a time: the text of json.dumps(indent=2) on rows of every kind of value,
    shapes that differ, and columns of floats (the core's repr) with NaN,
    infinities and None."""
    rng = np.random.default_rng(11)
    values: list[Any] = [None, 1, -3, 2.5, math.nan, math.inf, -math.inf, "x\n", "é", True, False, [1, 2], [],
                         {}, {"k": [1.5, None]}, [True, 3], 0.1, -0.0, 1e300, 2**70]
    for _ in range(300):
        n = int(rng.choice([0, 1, 15, 16, 17, 100]))
        keys = list(rng.choice(["a", "b", "c", 'é"x'], int(rng.integers(1, 4)), replace=False))
        rows = [{str(k): values[int(rng.integers(0, len(values)))] for k in keys} for _ in range(n)]
        if n and rng.random() < 0.2:
            rows[-1] = dict(reversed(list(rows[-1].items())))
        doc = {"rows": rows, "x": [rows, rows[:3]]}
        assert dumps(doc) == json.dumps(doc, indent=2)
    floats = rng.random(500).tolist()
    for bad in ([None], [math.nan], [math.inf], [None, math.nan]):
        column = floats + bad
        rows = [{"v": x, "w": 1} for x in column]
        assert dumps({"r": rows}) == json.dumps({"r": rows}, indent=2)
