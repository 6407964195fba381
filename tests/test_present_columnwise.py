"""The outputs of a 100 000-model board, written a column at a time, are the
same bytes as before.

The CSV against a writer with a ``repr`` per cell. The JSON document is
written by one recursive pass: the same text as ``json.dumps(doc,
indent=2)`` on documents of every kind and on real boards."""

from __future__ import annotations

import json
import math
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import kscore
from kscore.present.formats import render_leaderboard
from kscore.present.model import Board
from kscore.present.tabular import csv_field, dumps, render_csv


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
