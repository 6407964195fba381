"""kscore.inspect's metrics on 100,000 samples x 10 epochs (issue 25's
target: under 50 ms of the metrics' own work), beside inspect's own.

The ``SampleScore`` list is built as inspect builds it for an unreduced
metric (``_eval/task/run.py``: a ``Score`` per sample and epoch, the sample
id, its metadata, the scorer's name; "C"/"I" values, the epochs of a sample
not adjacent: inspect appends scores as samples finish). Only the metric
calls are timed, each the way inspect calls it (``metric(list)``), the
implementations taking turns (conftest.interleaved_medians):

* ``kscore``: one metric, ``pass_at_k(4)``, its counts table built afresh
  (the whole cost of the metric on the list);
* its two parts: reading every score's ``.score.value`` and ``.sample_id``
  (``_samples.read``: one pass in the compiled module), and kscore's own
  work after the reads (the same call on columns read beforehand: the
  values' categories, the grouping of epochs by sample, the counts table,
  the estimate and its interval);
* the same metric reading the scores in Python (``_samples.python_read``,
  the reader of a sequence that is not a list);
* the floor of a metric of the scores written in Python: reading
  ``.score.value`` and ``.sample_id`` of every score (two list
  comprehensions), and the loop inspect itself runs over the list before
  calling its metrics;
* kscore, eight metrics: pass@k, pass^k, G-Pass, mG-Pass, maj, AUC, Bayes@N,
  avg@n, called in turn on the same list as inspect does (the table is
  built once and kept for the next metric);
* inspect ``accuracy()`` + ``stderr()`` on the same unreduced list (the
  cheapest metric pair inspect has, no epochs structure);
* inspect's route to pass@k today: ``reduce_scores`` with ``pass_at(4)``,
  then ``accuracy()`` + ``stderr()`` of the reduced scores.

Run: ``python -m pytest benches/bench_inspect.py -s`` (about a minute to
build the list, ~1.5 GB) or ``python benches/bench_inspect.py``."""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from typing import Any

import pytest

inspect_ai = pytest.importorskip("inspect_ai")

from inspect_ai.scorer import SampleScore, Score, accuracy, stderr  # noqa: E402
from inspect_ai.scorer._reducer import pass_at  # noqa: E402

from kscore import inspect as ki  # noqa: E402
from kscore.inspect import _samples  # noqa: E402

from conftest import interleaved_medians, record  # noqa: E402

N_SAMPLES, EPOCHS = 100_000, 10


def sample_scores(n: int = N_SAMPLES, epochs: int = EPOCHS, seed: int = 0) -> list[SampleScore]:
    rng = random.Random(seed)
    rates = [rng.random() for _ in range(n)]
    meta = [{"topic": f"t{i % 50}"} for i in range(n)]
    return [SampleScore(score=Score(value="C" if rng.random() < rates[i] else "I", answer="x"), sample_id=i,
                        sample_metadata=meta[i], scorer="match")
            for _ in range(epochs) for i in range(n)]


def workloads(scores: list[SampleScore]) -> dict[str, Callable[[], Any]]:
    one: Any = ki.pass_at_k(4)
    eight: list[Any] = [ki.pass_at_k([1, 4]), ki.pass_hat_k(4), ki.g_pass_at_k_tau(4, 0.5), ki.mg_pass_at_k(4),
             ki.maj_at_k(5), ki.auc_at_k(4), ki.bayes(), ki.avg_at_n()]
    acc: Any = accuracy()
    err: Any = stderr()
    reducer = pass_at(4)

    def python_read(scores: Sequence[Any]) -> tuple[list[Any], list[Any]]:
        # The floor in Python: the two attribute reads per score every metric
        # of the scores makes (inspect's own loop before any metric reads one).
        return [s.score.value for s in scores], [s.sample_id for s in scores]

    def fresh() -> None:
        _samples._last = _samples._last_columns = None  # (no list kept from a previous call)

    def kscore_one() -> Any:
        fresh()
        return one(scores)

    def kscore_read() -> Any:
        return _samples.read(scores, "bench")

    columns = _samples.read(scores, "bench")

    def kscore_own() -> Any:
        # The metric with its reads done beforehand: kscore's own work.
        fresh()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_samples, "read", lambda *_: columns)
            return one(scores)

    def kscore_python_reads() -> Any:
        fresh()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_samples, "read", _samples.python_read)
            return one(scores)

    def kscore_eight() -> Any:
        fresh()
        return [m(scores) for m in eight]

    def read_only() -> Any:
        return python_read(scores)

    def inspect_nan_filter() -> Any:
        # What inspect itself runs over the list before calling any metric
        # (results.py, scorer_for_metrics: unscored values left out).
        return [s for s in scores if not isinstance(s.score.value, float) or not math.isnan(s.score.value)]

    def inspect_unreduced() -> Any:
        return acc(scores), err(scores)

    def inspect_pass_at() -> Any:
        from inspect_ai._eval.task.results import reduce_scores

        reduced = reduce_scores(scores, reducer=reducer)
        return acc(reduced), err(reduced)

    return {"kscore": kscore_one, "kscore: reading the scores (compiled, one pass)": kscore_read,
            "kscore: own work after the reads": kscore_own,
            "kscore, reading in Python (no compiled reader)": kscore_python_reads,
            "kscore (8 metrics)": kscore_eight, "read .score.value, .sample_id in Python": read_only,
            "inspect's NaN filter before metrics": inspect_nan_filter,
            "inspect accuracy+stderr (unreduced)": inspect_unreduced,
            "inspect pass_at(4) reducer + accuracy+stderr": inspect_pass_at}


def measure(rounds: int = 5) -> dict[str, float]:
    scores = sample_scores()
    fns = workloads(scores)
    times = interleaved_medians(list(fns.values()), [1] * len(fns), rounds=rounds, budget_s=120.0)
    return dict(zip(fns, times))


def test_inspect_metrics_1e5_samples_x10() -> None:
    group = f"kscore.inspect metrics, {N_SAMPLES:,} samples x {EPOCHS} epochs"
    for name, seconds in measure().items():
        record(group, name, seconds)


if __name__ == "__main__":
    for name, seconds in measure(int(sys.argv[1]) if len(sys.argv) > 1 else 5).items():
        print(f"{name:<48} {seconds * 1e3:9.1f} ms")
