"""kscore.inspect's reader of inspect's ``SampleScore`` list (the compiled
one-pass ``_kscore.inspect_columns``): it returns what Python's
``[s.score.value for s in scores]`` and ``[s.sample_id for s in scores]``
return, as bytes / int64 where the values are one-letter strs / the ids ints,
and the metrics give the same numbers through either reader."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

pytest.importorskip("inspect_ai", reason="kscore.inspect needs inspect_ai (the test extra installs it)")

from inspect_ai.scorer import SampleScore, Score  # noqa: E402

from kscore import _kscore  # noqa: E402
from kscore import inspect as ki  # noqa: E402
from kscore.inspect import _samples  # noqa: E402


def python_columns(scores: list[Any]) -> tuple[list[Any], list[Any]]:
    return [s.score.value for s in scores], [s.sample_id for s in scores]


def same_columns(scores: list[Any]) -> tuple[Any, Any]:
    """The compiled reader's columns, checked against Python's reads (same
    values, same types where kept as objects)."""
    values, ids = _kscore.inspect_columns(scores)
    want_v, want_i = python_columns(scores)
    got_v = [chr(b) for b in values] if isinstance(values, bytes) else values
    got_i = ids.tolist() if isinstance(ids, np.ndarray) else ids
    assert got_v == want_v and [type(v) for v in got_v] == [type(v) for v in want_v]
    assert got_i == want_i and [type(i) for i in got_i] == [type(i) for i in want_i]
    return values, ids


def test_letters_and_int_ids_come_as_bytes_and_int64() -> None:
    scores = [SampleScore(score=Score(value=v), sample_id=i % 3 - 1) for i, v in enumerate("CICPNÿ")]
    values, ids = same_columns(scores)
    assert values == "CICPNÿ".encode("latin-1")
    assert isinstance(ids, np.ndarray) and ids.dtype == np.int64
    empty_v, empty_i = same_columns([])
    assert empty_v == b"" and isinstance(empty_i, np.ndarray) and empty_i.dtype == np.int64


@pytest.mark.parametrize("odd", [1.0, 1, True, "yes", "✓", "", [1, 0], {"a": "C"}])
def test_any_other_value_gives_the_value_objects(odd: Any) -> None:
    """A value that is not a one-letter str, at the start, in the middle or
    at the end: the list of values as Python reads them."""
    for where in (0, 3, 5):
        vals: list[Any] = list("CICIC")
        vals.insert(where, odd)
        values, _ = same_columns([SampleScore(score=Score(value=v), sample_id=j) for j, v in enumerate(vals)])
        assert isinstance(values, list)


@pytest.mark.parametrize("odd", ["7", 2**63, -(2**63) - 1, True, 1.0])
def test_any_other_id_gives_the_id_objects(odd: Any) -> None:
    for where in (0, 2, 4):
        sids: list[Any] = [5, 7, 2**63 - 1, -(2**63)]
        sids.insert(where, odd)
        # (model_construct: pydantic's validation would make True and 1.0 the int 1)
        _, ids = same_columns([SampleScore.model_construct(score=Score(value="C"), sample_id=i) for i in sids])
        assert isinstance(ids, list)


class Shadowed:
    """``score`` a property over an instance-dict entry of the same name:
    getattr gives the property, and so must the reader."""

    def __init__(self) -> None:
        self.__dict__["score"] = SimpleNamespace(value="I")
        self.sample_id = 4

    @property
    def score(self) -> Any:
        return SimpleNamespace(value="C")


class Computed:
    """``sample_id`` from ``__getattr__``, ``score`` through ``__getattribute__``."""

    def __init__(self) -> None:
        self.score = SimpleNamespace(value="P")

    def __getattr__(self, name: str) -> Any:
        if name == "sample_id":
            return "computed"
        raise AttributeError(name)

    def __getattribute__(self, name: str) -> Any:
        got = object.__getattribute__(self, name)
        return SimpleNamespace(value="N") if name == "score" else got


def test_objects_read_as_getattr_reads_them() -> None:
    """Plain objects, a property shadowing the instance dict, __getattr__
    and __getattribute__: the reader gives what getattr gives."""
    scores: list[Any] = [SimpleNamespace(score=SimpleNamespace(value="C"), sample_id=1), Shadowed(), Computed(),
                         SampleScore(score=Score(value="I"), sample_id=2)]
    values, ids = same_columns(scores)
    assert values == b"CCNI" and ids == [1, 4, "computed", 2]


def test_missing_attribute_raises_as_python_does() -> None:
    with pytest.raises(AttributeError, match="score"):
        _kscore.inspect_columns([SampleScore(score=Score(value="C"), sample_id=1), SimpleNamespace(sample_id=1)])
    with pytest.raises(TypeError):
        _kscore.inspect_columns((SampleScore(score=Score(value="C"), sample_id=1),))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(3))
def test_metrics_equal_through_either_reader(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shuffled epochs, int or str ids, letters or numbers: every metric
    gives the same dict through the compiled reader and Python's reads."""
    rng = np.random.default_rng(seed)
    q, n = 40, 6
    R = (rng.random((q, n)) < rng.uniform(0.1, 0.9, q)[:, None]).astype(int)
    kinds: list[Any] = [lambda x: "CI"[1 - x], float, int]
    for to_value in kinds:
        for to_id in (lambda i: i * 3 + 10, lambda i: f"s{i}"):
            scores = [SampleScore(score=Score(value=to_value(int(R[i, e]))), sample_id=to_id(i))
                      for i, e in (divmod(int(j), n) for j in rng.permutation(q * n))]
            metrics: list[Any] = [ki.pass_at_k([1, 4]), ki.maj_at_k(3), ki.bayes(), ki.avg_at_n()]
            _samples._last = None
            compiled = [m(scores) for m in metrics]
            _samples._last = None
            with monkeypatch.context() as mp:
                mp.setattr(_samples, "read", python_columns)
                python = [m(scores) for m in metrics]
            assert compiled == python


class Slotted:
    """No instance dict at all."""

    __slots__ = ("score", "sample_id")

    def __init__(self, value: str, sid: int) -> None:
        self.score = SimpleNamespace(value=value)
        self.sample_id = sid


def test_objects_without_a_dict_are_read_by_getattr() -> None:
    values, ids = same_columns([Slotted("C", 1), SampleScore(score=Score(value="I"), sample_id=2), Slotted("✓", 3)])
    assert values == ["C", "I", "✓"] and ids.tolist() == [1, 2, 3]
