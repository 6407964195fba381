"""kscore.inspect's reader of inspect's ``SampleScore`` list (the compiled
one-pass ``_kscore.inspect_columns``): the values and ids Python's
``[s.score.value for s in scores]`` and ``[s.sample_id for s in scores]``
read, numbered as kscore's Python reader (a dict) numbers them, the ids as
int64 where they are ints; and the metrics give the same numbers through
either reader."""

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


def same_columns(scores: list[Any]) -> tuple[Any, ...]:
    """The compiled reader's columns, checked against kscore's Python reader
    (same codes, same distinct objects and types) and against Python's
    attribute reads (each score's value and id, as dict keys equal)."""
    got = _kscore.inspect_columns(scores)
    want = _samples.python_read(scores, "test")
    codes, distinct, ids, distinct_ids = got
    assert codes.dtype == np.int64 and ids.dtype == np.int64
    assert codes.tolist() == want[0].tolist() and ids.tolist() == want[2].tolist()
    assert distinct == want[1] and [type(v) for v in distinct] == [type(v) for v in want[1]]
    assert (distinct_ids is None) == (want[3] is None)
    if distinct_ids is not None:
        assert distinct_ids == want[3] and [type(v) for v in distinct_ids] == [type(v) for v in want[3]]
    assert [distinct[c] for c in codes.tolist()] == [s.score.value for s in scores]
    sids = ids.tolist() if distinct_ids is None else [distinct_ids[c] for c in ids.tolist()]
    assert sids == [s.sample_id for s in scores]
    return got


def test_letters_and_int_ids() -> None:
    scores = [SampleScore(score=Score(value=v), sample_id=i % 3 - 1) for i, v in enumerate("CICPNÿ")]
    codes, distinct, ids, distinct_ids = same_columns(scores)
    assert distinct == list("CIPNÿ") and codes.tolist() == [0, 1, 0, 2, 3, 4]
    assert ids.tolist() == [-1, 0, 1, -1, 0, 1] and distinct_ids is None
    codes, distinct, ids, distinct_ids = same_columns([])
    assert len(codes) == len(ids) == 0 and distinct == [] and distinct_ids is None


@pytest.mark.parametrize("odd", [1.0, 1, 0, True, 0.5, "yes", "✓", "", float("nan")])
def test_any_other_value_is_numbered(odd: Any) -> None:
    """A value that is not a one-letter str, at the start, in the middle or
    at the end: numbered as a dict numbers its keys (1, 1.0 and True one)."""
    for where in (0, 3, 5):
        vals: list[Any] = list("CICIC")
        vals.insert(where, odd)
        same_columns([SampleScore(score=Score(value=v), sample_id=j) for j, v in enumerate(vals)])
    mixed = [1, 1.0, True, "C", 0, 0.0, False, "I", 1]
    same_columns([SampleScore.model_construct(score=Score.model_construct(value=v), sample_id=0) for v in mixed])


@pytest.mark.parametrize("odd", [[1, 0], {"a": "C"}])
def test_an_unhashable_value_is_a_one_line_error(odd: Any) -> None:
    scores = [SampleScore(score=Score(value=v), sample_id=j) for j, v in enumerate(["C", odd, "I"])]
    with pytest.raises(TypeError):
        _kscore.inspect_columns(scores)
    with pytest.raises(ValueError, match="^kscore test: a score value is .*several values"):
        _samples.read(scores, "test")


@pytest.mark.parametrize("odd", ["7", 2**63, -(2**63) - 1, True, 1.0, None])
def test_any_other_id_is_numbered(odd: Any) -> None:
    for where in (0, 2, 4):
        sids: list[Any] = [5, 7, 2**63 - 1, -(2**63)]
        sids.insert(where, odd)
        # (model_construct: pydantic's validation would make True and 1.0 the int 1)
        got = same_columns([SampleScore.model_construct(score=Score(value="C"), sample_id=i) for i in sids])
        assert got[3] is not None


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
    codes, distinct, ids, distinct_ids = same_columns(scores)
    assert distinct == ["C", "N", "I"] and codes.tolist() == [0, 0, 1, 2]
    assert distinct_ids == [1, 4, "computed", 2]


def test_missing_attribute_raises_as_python_does() -> None:
    with pytest.raises(AttributeError, match="score"):
        _kscore.inspect_columns([SampleScore(score=Score(value="C"), sample_id=1), SimpleNamespace(sample_id=1)])
    with pytest.raises(TypeError):
        _kscore.inspect_columns((SampleScore(score=Score(value="C"), sample_id=1),))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(3))
def test_metrics_equal_through_either_reader(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Shuffled epochs, int or str ids, letters or numbers: every metric
    gives the same dict through the compiled reader (the metrics in turn on
    one list, as inspect calls them) and through Python's reads (each
    metric alone)."""
    rng = np.random.default_rng(seed)
    q, n = 40, 6
    R = (rng.random((q, n)) < rng.uniform(0.1, 0.9, q)[:, None]).astype(int)
    kinds: list[Any] = [lambda x: "CI"[1 - x], float, int]
    for to_value in kinds:
        for to_id in (lambda i: i * 3 + 10, lambda i: f"s{i}"):
            scores = [SampleScore(score=Score(value=to_value(int(R[i, e]))), sample_id=to_id(i))
                      for i, e in (divmod(int(j), n) for j in rng.permutation(q * n))]
            metrics: list[Any] = [ki.pass_at_k([1, 4]), ki.maj_at_k(3), ki.bayes(w=[0, 0.5, 1]), ki.bayes(),
                                  ki.avg_at_n()]
            _samples._last = _samples._last_columns = None
            compiled = [m(scores) for m in metrics]  # (one read, kept for the next metrics)
            python = []
            with monkeypatch.context() as mp:
                mp.setattr(_samples, "read", _samples.python_read)
                for m in metrics:  # (each on its own)
                    _samples._last = _samples._last_columns = None
                    python.append(m(scores))
            assert compiled == python


class Slotted:
    """No instance dict at all."""

    __slots__ = ("score", "sample_id")

    def __init__(self, value: str, sid: int) -> None:
        self.score = SimpleNamespace(value=value)
        self.sample_id = sid


def test_objects_without_a_dict_are_read_by_getattr() -> None:
    got = same_columns([Slotted("C", 1), SampleScore(score=Score(value="I"), sample_id=2), Slotted("✓", 3)])
    assert got[1] == ["C", "I", "✓"] and got[2].tolist() == [1, 2, 3]
