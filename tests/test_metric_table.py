"""The core's metric table is the one list of finite-bank metrics: the
Python ``Literal`` types of kscore.counts, its dispatch and the curve
families all come from it (or are checked against it)."""

from __future__ import annotations

import typing

import numpy as np
import pytest

import kscore.counts as kc
from kscore import _kscore
from kscore import eval as ke

TABLE = _kscore.metric_table()
NAMES = {name for name, _, _ in TABLE}


def test_literal_types_list_the_table() -> None:
    curve = set(typing.get_args(kc.CurveMetric))
    every: set[str] = set()
    for arg in typing.get_args(kc.Metric):
        every |= set(typing.get_args(arg)) or {arg}
    with_curve = {name for name, _, needs in TABLE if needs != "weights"}
    assert curve == with_curve
    # Metric adds the harness metrics, which are not finite-bank credits.
    assert every == NAMES | {"avg_at_n", "cons_at_k"}


def test_aliases_name_their_canonical_metric() -> None:
    canonical = {name: c for name, c, _ in TABLE}
    assert canonical["unanimous_at_k"] == canonical["g_pass_at_k"] == "pass_hat_k"
    assert all(canonical[c] == c for c in canonical.values())


@pytest.mark.parametrize("name", sorted(NAMES))
def test_every_name_scores_as_its_eval_function(name: str) -> None:
    rng = np.random.default_rng(5)
    R = (rng.random((40, 12)) < rng.random((40, 1))).astype(np.int8)
    needs = dict((n, x) for n, _, x in TABLE)[name]
    extra: dict[str, typing.Any] = {}
    args: tuple[typing.Any, ...] = ()
    if needs == "tau":
        extra, args = {"tau": 0.4}, (0.4,)
    elif needs == "weights":
        extra = {"weights": np.full(5, 0.2)}
        args = (np.full(5, 0.2),)
    got = float(np.mean(kc.question_scores(R, name, 5, **extra)))  # type: ignore[arg-type]
    assert got == pytest.approx(getattr(ke, name)(R, 5, *args), rel=1e-13)


def test_unknown_names_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown metric 'pass@k'"):
        _kscore.Credit.of("pass@k", 3)
    with pytest.raises(ValueError, match="no budget family"):
        kc.curve(10, [3, 4], "threshold_spectrum_at_k")  # type: ignore[arg-type]
