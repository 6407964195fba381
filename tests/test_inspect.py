"""kscore.inspect inside real inspect_ai runs (docs/inspect.md).

Each test runs ``inspect_ai.eval`` offline: inspect's own ``mockllm``
provider answers, and a scorer reads each (sample, epoch) outcome from a
fixed random matrix, so the run is deterministic. The numbers inspect
reports in ``log.results.scores`` are checked against
``kscore.leaderboard`` on the written log and against scorio 0.2.3's
functions on the same matrix (per-sample estimates, then their mean and
standard error over samples computed here)."""

from __future__ import annotations

import logging
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("inspect_ai", reason="kscore.inspect needs inspect_ai (the test extra installs it)")

import scorio.eval as se  # noqa: E402
from inspect_ai import Epochs, Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import EvalLog  # noqa: E402
from inspect_ai.model import ModelOutput  # noqa: E402
from inspect_ai.scorer import Score, Target, mean, scorer  # noqa: E402
from inspect_ai.solver import Generate, TaskState, solver  # noqa: E402

import kscore  # noqa: E402
from kscore import inspect as ki  # noqa: E402
from kscore.leaderboard.stats.default_interval import interval_of  # noqa: E402

Z95 = 1.959963984540054
EPOCHS = 8
Q = 24
LETTERS = {0: "I", 1: "C", 2: "P"}


def matrix(seed: int, q: int = Q, n: int = EPOCHS, p: float | None = None) -> np.ndarray:
    """Binary outcomes, each sample with its own success rate."""
    rng = np.random.default_rng(seed)
    rates = rng.uniform(0.05, 0.95, q) if p is None else np.full(q, p)
    return (rng.random((q, n)) < rates[:, None]).astype(np.int64)


@solver
def answer_offline() -> Any:
    """The model's answer without calling it (inspect's generate() counts
    tokens with tiktoken, which downloads its tables): the target itself for
    samples whose metadata says so, else a wrong answer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        right = bool((state.metadata or {}).get("right"))
        state.output = ModelOutput.from_content(str(state.model), state.target.text if right else "wrong")
        return state

    return solve


#: The outcome matrices the scorer reads, by model name.
MATRICES: dict[str, np.ndarray] = {}


@scorer(metrics=[])
def from_matrix(letters: bool = True) -> Any:
    """The (sample, epoch) outcome of the model's matrix: "C"/"I"/"P"
    letters, or the numbers themselves."""

    async def score(state: TaskState, target: Target) -> Score:
        R = MATRICES[str(state.model)]
        v = int(R[int(state.sample_id), state.epoch - 1])
        return Score(value=LETTERS[v] if letters else v)

    return score


def run(model: str, R: np.ndarray, metrics: list[Any], log_dir: Path, epochs: Any = None,
        metadata: list[dict[str, Any]] | None = None, letters: bool = True) -> EvalLog:
    MATRICES[model] = R
    data = [Sample(input=f"q{i}", target="x", id=i, metadata=(metadata[i] if metadata else None))
            for i in range(R.shape[0])]
    task = Task(dataset=data, solver=answer_offline(), scorer=from_matrix(letters), metrics=metrics,
                epochs=epochs or R.shape[1], name="matrix_task")
    [log] = eval(task, model=model, log_dir=str(log_dir), display="none", log_format="eval")
    assert log.status == "success", log.error
    return log


def call(metric: Any, scores: list[Any]) -> Any:
    """A metric on a list of SampleScores, as inspect calls it."""
    return metric(scores)


def reported(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


def per_question(fn: Any, R: np.ndarray, *args: Any) -> np.ndarray:
    """scorio's estimate of each sample alone (a one-row matrix)."""
    out = [fn(R[i:i + 1], *args) for i in range(R.shape[0])]
    return np.array([v[0] if isinstance(v, tuple) else v for v in out], np.float64)


def over_questions(x: np.ndarray, samples: float, limits: tuple[float, float] = (0.0, 1.0)) -> tuple[
        float, float, float, float]:
    """Mean, standard error (ddof=1) and the leaderboard's default 95% interval
    (issue 36: interval_of, tested against the board in tests/test_default_interval.py)."""
    m = float(x.mean())
    s = float(x.std(ddof=1) / math.sqrt(len(x)))
    lo, hi = interval_of(x, samples, 0.95, limits)
    return m, s, lo, hi


REFERENCES: list[tuple[str, Any, tuple[Any, ...]]] = [
    ("pass@1", se.pass_at_k, (1,)),
    ("pass@4", se.pass_at_k, (4,)),
    ("pass^2", se.pass_hat_k, (2,)),
    ("g-pass@4_0.5", se.g_pass_at_k_tau, (4, 0.5)),
    ("mg-pass@4", se.mg_pass_at_k, (4,)),
    ("maj@3", se.maj_at_k, (3,)),
    ("auc@4", se.auc_at_k, (4,)),
    ("bayes@N", se.bayes, ()),
    ("avg@n", se.avg, ()),
]


def all_metrics() -> list[Any]:
    return [ki.pass_at_k([1, 4]), ki.pass_hat_k(2), ki.g_pass_at_k_tau(4, 0.5), ki.mg_pass_at_k(4), ki.maj_at_k(3),
            ki.auc_at_k(4), ki.bayes(), ki.avg_at_n()]


def test_eval_reports_the_leaderboard_and_scorio_numbers(tmp_path: Path) -> None:
    R = matrix(1)
    log = run("mockllm/model", R, all_metrics(), tmp_path)
    got = reported(log)
    board = kscore.leaderboard(log.location, metrics=[name for name, _, _ in REFERENCES])
    [row] = board.rows
    for name, fn, args in REFERENCES:
        x = per_question(fn, R, *args)
        limits = (1 / (EPOCHS + 2), (EPOCHS + 1) / (EPOCHS + 2)) if name == "bayes@N" else (0.0, 1.0)
        ref = over_questions(x, float(R.size), limits)
        value = row.values[name]
        assert value is not None
        mine = (got[name], got[f"{name}_sigma"], got[f"{name}_lo"], got[f"{name}_hi"])
        assert mine == pytest.approx((value.estimate, value.sigma, value.lo, value.hi), abs=1e-12, rel=0), name
        assert mine == pytest.approx(ref, abs=1e-12, rel=0), name
    # The dataset mean is scorio's own on the whole matrix.
    assert got["pass@4"] == pytest.approx(se.pass_at_k(R, 4), abs=1e-12)
    assert got["bayes@N"] == pytest.approx(se.bayes(R)[0], abs=1e-12)


def test_scorer_metrics_and_numeric_values(tmp_path: Path) -> None:
    """Attached with @scorer(metrics=...), values 0/1 numbers, samples in
    clusters of a metadata key (cluster-robust standard error, CR1)."""
    R = matrix(2, q=30)

    @scorer(metrics=[ki.pass_at_k(2, cluster="topic"), ki.maj_at_k(5)])
    def numeric() -> Any:
        async def score(state: TaskState, target: Target) -> Score:
            return Score(value=int(R[int(state.sample_id), state.epoch - 1]))

        return score

    meta = [{"topic": f"t{i % 7}"} for i in range(R.shape[0])]
    data = [Sample(input=f"q{i}", target="x", id=i, metadata=meta[i]) for i in range(R.shape[0])]
    [log] = eval(Task(dataset=data, solver=answer_offline(), scorer=numeric(), epochs=EPOCHS), model="mockllm/model",
                 log_dir=str(tmp_path), display="none")
    got = reported(log)
    x = per_question(se.pass_at_k, R, 2)
    cl = np.array([i % 7 for i in range(R.shape[0])])
    e = x - x.mean()
    sums = np.array([e[cl == c].sum() for c in range(7)])
    sigma = math.sqrt(7 / 6 * float((sums ** 2).sum()) / len(x) ** 2)
    assert got["pass@2"] == pytest.approx(x.mean(), abs=1e-12)
    assert got["pass@2_sigma"] == pytest.approx(sigma, abs=1e-12)
    assert (got["pass@2_lo"], got["pass@2_hi"]) == pytest.approx(interval_of(x, float(R.size), 0.95, cluster=cl),
                                                                 abs=1e-12)
    assert over_questions(per_question(se.maj_at_k, R, 5), float(R.size)) == pytest.approx(
        (got["maj@5"], got["maj@5_sigma"], got["maj@5_lo"], got["maj@5_hi"]), abs=1e-12)


def test_partial_credit_bayes_and_avg(tmp_path: Path) -> None:
    """C / P / I with w = [0, 0.5, 1]: Bayes@N against scorio's bayes on the
    category matrix (0 = I, 1 = P, 2 = C), avg@n the mean reward."""
    rng = np.random.default_rng(3)
    cats = rng.integers(0, 3, (20, 6))
    letters = np.array([0, 2, 1])[cats]  # category -> the LETTERS code (0 I, 1 C, 2 P)
    w = np.array([0.0, 0.5, 1.0])
    log = run("mockllm/model", letters, [ki.bayes(w=[0, 0.5, 1]), ki.avg_at_n(w=[0, 0.5, 1])], tmp_path)
    got = reported(log)
    assert got["bayes@N"] == pytest.approx(se.bayes(cats, w)[0], abs=1e-12)
    assert (got["bayes@N"], got["bayes@N_sigma"]) == pytest.approx(
        over_questions(per_question(se.bayes, cats, w), 1.0)[:2], abs=1e-12)
    assert (got["avg@n"], got["avg@n_sigma"]) == pytest.approx(
        over_questions(w[cats].mean(axis=1), 1.0)[:2], abs=1e-12)


def test_epoch_reducers(tmp_path: Path) -> None:
    """g_pass_at / maj_at / mg_pass_at reduce each sample's epochs to
    scorio's per-sample estimate; inspect's mean over samples is scorio's."""
    R = matrix(4)
    reducers = [ki.g_pass_at(4, 0.75), ki.maj_at(3), ki.mg_pass_at(4)]
    log = run("mockllm/model", R, [mean()], tmp_path, epochs=Epochs(EPOCHS, reducers))
    assert log.results is not None
    # (registered as kscore/<name> where kscore is installed, as the entry point needs)
    by_reducer = {str(s.reducer).removeprefix("kscore/"): s.metrics["mean"].value for s in log.results.scores}
    assert by_reducer["g_pass_at_4"] == pytest.approx(se.g_pass_at_k_tau(R, 4, 0.75), abs=1e-12)
    assert by_reducer["maj_at_3"] == pytest.approx(se.maj_at_k(R, 3), abs=1e-12)
    assert by_reducer["mg_pass_at_4"] == pytest.approx(se.mg_pass_at_k(R, 4), abs=1e-12)
    assert log.reductions is not None
    red = {str(r.reducer).removeprefix("kscore/"): {s.sample_id: s.value for s in r.samples} for r in log.reductions}
    ref = per_question(se.g_pass_at_k_tau, R, 4, 0.75)
    assert [red["g_pass_at_4"][i] for i in range(Q)] == pytest.approx(ref.tolist(), abs=1e-12)


def test_reducer_short_of_k_is_unscored() -> None:
    reduce = ki.maj_at(5)
    value: Any = reduce([Score(value="C")] * 3).value
    assert math.isnan(float(value))
    partial = reduce([Score(value="P")] * 6)  # never raises: NaN (unscored), the reason as its explanation
    partial_value: Any = partial.value
    assert math.isnan(float(partial_value)) and "score value 'P' is not 0 or 1" in str(partial.explanation)


def test_value_errors_are_one_line(tmp_path: Path) -> None:
    """Bad arguments fail when the task is defined, with one line; a score a
    metric cannot read gives NaN for its keys, never an exception."""
    from inspect_ai.scorer import SampleScore

    partial = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate("CPI")]
    got = call(ki.pass_at_k(1), partial)
    assert set(got) == {"pass@1", "pass@1_sigma", "pass@1_lo", "pass@1_hi"}
    assert all(math.isnan(v) for v in got.values())
    # Fewer epochs than k outside inspect's progress display: NaN, and a warning.
    short = [SampleScore(score=Score(value="C"), sample_id=0)] * 2
    got = call(ki.pass_at_k([1, 4]), short)
    assert got["pass@1"] == 1.0 and math.isnan(got["pass@4"]) and math.isnan(got["pass@4_sigma"])
    with pytest.raises(ValueError, match="k must be a positive integer"):
        ki.pass_at_k(0)
    with pytest.raises(ValueError, match="w needs at least two distinct"):
        ki.bayes(w=[1])
    listed = [SampleScore(score=Score(value=[1, 0]), sample_id=0)]
    assert math.isnan(call(ki.avg_at_n(), listed)["avg@n"])


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("kscore") and r.levelno == logging.WARNING]


def _why(log: EvalLog, key: str) -> Any:
    assert log.results is not None
    [found] = [m.params for s in log.results.scores for name, m in s.metrics.items() if name == key]
    return found.get("why")


def test_a_bad_score_never_interrupts_the_run(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A partial score ("P") under pass_at_k, in a real inspect run: the run
    completes (every sample logged, status success), pass@k is NaN in the
    log's results and its params say why, the other metrics keep their
    values, and one warning at the default level says it on the console."""
    from kscore.inspect import _metrics

    _metrics._warned.clear()
    R = matrix(21, q=12, n=4)
    R[5, 2] = 2  # one "P"
    with caplog.at_level(logging.WARNING):
        log = run("mockllm/partial", R, [ki.pass_at_k([1, 2]), ki.bayes(w=[0, 0.5, 1])], tmp_path)
    assert log.status == "success" and log.samples is not None and len(log.samples) == 12 * 4
    got = reported(log)
    assert math.isnan(got["pass@1"]) and math.isnan(got["pass@2_hi"])
    assert math.isfinite(got["bayes@N"]) and _why(log, "bayes@N") is None
    why = "kscore pass_at_k: score value 'P' (as a number: 0.5) is not 0 or 1"
    assert str(_why(log, "pass@1")).startswith(why) and _why(log, "pass@2_sigma") == _why(log, "pass@1")
    warned = _warnings(caplog)
    assert len(warned) == 1 and warned[0].startswith(why) and warned[0].endswith("(reported as NaN)")


def test_too_few_epochs_warns_and_reports_nan(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """epochs=1 with pass_at_k([1, 4]) and maj_at_k(3): pass@4 and maj@3 are
    NaN in the log's results (not silently missing), their params say why,
    with a warning each at the default level; with epochs=8 inspect's
    progress display meets samples short of epochs (epoch 1 of every sample
    comes first) and stays quiet: a note at info level, no warning."""
    from kscore.inspect import _metrics

    _metrics._warned.clear()
    with caplog.at_level(logging.INFO):
        log = run("mockllm/one_epoch", matrix(22, q=6, n=1), [ki.pass_at_k([1, 4]), ki.maj_at_k(3)], tmp_path,
                  epochs=1)
    got = reported(log)
    assert math.isfinite(got["pass@1"]) and math.isnan(got["pass@4"]) and math.isnan(got["maj@3"])
    assert _why(log, "pass@4") == "kscore pass_at_k: pass@4 needs at least 4 epochs per sample; some samples have 1"
    assert _why(log, "maj@3") == "kscore maj_at_k: maj@3 needs at least 3 epochs per sample; some samples have 1"
    assert sorted(_warnings(caplog)) == [
        "kscore maj_at_k: maj@3 needs at least 3 epochs per sample; some samples have 1 (reported as NaN)",
        "kscore pass_at_k: pass@4 needs at least 4 epochs per sample; some samples have 1 (reported as NaN)",
    ]
    _metrics._warned.clear()
    caplog.clear()
    with caplog.at_level(logging.INFO):
        log = run("mockllm/eight", matrix(23, q=6, n=8), [ki.pass_at_k([1, 4])], tmp_path / "eight")
    assert _warnings(caplog) == []
    # (Whether inspect's progress display asks the metric while epochs are still coming in depends on the
    # machine's speed: on a fast one the run ends before a refresh. When it does, that is a note at info
    # level, never a warning: checked above by the empty warning list.)
    assert math.isfinite(reported(log)["pass@4"]) and _why(log, "pass@4") is None


def test_string_ids_and_unscored_samples() -> None:
    """String sample ids in any order; a NaN (unscored) value is left out by
    inspect before the metric, so the metric sees what inspect passes."""
    from inspect_ai.scorer import SampleScore

    R = matrix(5, q=9, n=4)
    order = np.random.default_rng(0).permutation(R.size)
    scores = [SampleScore(score=Score(value=int(R.flat[j])), sample_id=f"id-{j // 4}") for j in order]
    got = call(ki.pass_at_k(2), scores)
    x = per_question(se.pass_at_k, R, 2)
    assert (got["pass@2"], got["pass@2_sigma"]) == pytest.approx(over_questions(x, 1.0)[:2], abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_ragged_shuffled_scores_match_the_leaderboard(seed: int) -> None:
    """Samples with different numbers of epochs (errored epochs left out),
    the scores in random order, int or str ids, a cluster key: every metric
    equals kscore.leaderboard on the same rows (with the cluster column)."""
    import pandas as pd
    from inspect_ai.scorer import SampleScore

    rng = np.random.default_rng(100 + seed)
    q = int(rng.integers(5, 60))
    n = rng.integers(4, 9, q)
    rows = [(i, j, int(rng.random() < 0.3 + 0.4 * (i % 3) / 2)) for i in range(q) for j in range(int(n[i]))]
    rows = [rows[t] for t in rng.permutation(len(rows))]
    # ids: str, or ints close together (counted in a table) or far apart (np.unique)
    as_id = (lambda i: f"s{i}") if seed % 2 else (lambda i: 1000 * i + 7) if seed == 0 else (
        lambda i: 10**12 * i - 5)
    topic = [f"t{int(x)}" for x in rng.integers(0, 6, q)]
    scores = [SampleScore(score=Score(value=LETTERS[v] if seed < 2 else v), sample_id=as_id(i),
                          sample_metadata={"topic": topic[i]}) for i, _, v in rows]
    frame = pd.DataFrame({"model": "m", "question": [str(as_id(i)) for i, _, _ in rows],
                          "sample": [j for _, j, _ in rows], "correct": [v for _, _, v in rows],
                          "topic": [topic[i] for i, _, _ in rows]})
    names = "pass@1,pass@4,pass^2,g-pass@4_0.75,mg-pass@4,maj@3,auc@4,bayes@N,avg@n"
    metrics = [ki.pass_at_k([1, 4], cluster="topic"), ki.pass_hat_k(2, cluster="topic"),
               ki.g_pass_at_k_tau(4, 0.75, cluster="topic"), ki.mg_pass_at_k(4, cluster="topic"),
               ki.maj_at_k(3, cluster="topic"), ki.auc_at_k(4, cluster="topic"), ki.bayes(cluster="topic"),
               ki.avg_at_n(cluster="topic")]
    got: dict[str, Any] = {}
    for m in metrics:
        got.update(call(m, scores))
    for clustered, board in ((True, kscore.leaderboard(frame, metrics=names, cluster="topic")),
                             (False, kscore.leaderboard(frame, metrics=names))):
        if not clustered:  # the same scores, unclustered metrics
            got = {}
            for m in [ki.pass_at_k([1, 4]), ki.pass_hat_k(2), ki.g_pass_at_k_tau(4, 0.75), ki.mg_pass_at_k(4),
                      ki.maj_at_k(3), ki.auc_at_k(4), ki.bayes(), ki.avg_at_n()]:
                got.update(call(m, scores))
        [row] = board.rows
        for name in names.split(","):
            v = row.values[name]
            assert v is not None
            assert (got[name], got[f"{name}_sigma"], got[f"{name}_lo"], got[f"{name}_hi"]) == pytest.approx(
                (v.estimate, v.sigma, v.lo, v.hi), abs=1e-12, nan_ok=True), (name, clustered)


def test_a_new_list_is_counted_anew() -> None:
    """The table kept for the next metric belongs to one list: another list
    (even of the same length) is counted again."""
    from inspect_ai.scorer import SampleScore

    first = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate("CCII")]
    second = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate("CIII")]
    m = ki.avg_at_n()
    assert call(m, first)["avg@n"] == 0.5
    assert call(m, second)["avg@n"] == 0.25
    assert call(ki.pass_at_k(1), second)["pass@1"] == 0.25
