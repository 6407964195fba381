"""kscore.lm_eval inside a real lm-evaluation-harness run (the ``lm_eval``
package of the test extra, offline: a local JSONL dataset and a scripted
model, or lm_eval's own ``dummy``).

The numbers lm_eval reports for the metric ``kscore`` (values and standard
errors) are checked against scorio 0.2.3 on the outcome matrix the scripted
model was told to produce (the per-question values, and their standard
deviation over questions, from ``statistics``), and against
``kscore.leaderboard`` on the ``--log_samples`` file the run wrote. The page
docs/lm_eval.md is run as written.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scorio.eval as se

pytest.importorskip("lm_eval", reason="the test extra installs lm_eval")

import lm_eval  # noqa: E402
from lm_eval.api.model import LM  # noqa: E402
from lm_eval.loggers import EvaluationTracker  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

import kscore  # noqa: E402
import kscore.lm_eval as kle  # noqa: E402
from kscore.leaderboard import Metric  # noqa: E402
from kscore.leaderboard.stats.default_interval import interval_of  # noqa: E402

Z95 = 1.959963984540054

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
SPECS = "pass@1,pass@3,pass^2,g-pass@4_0.5,g-pass@6_1,mg-pass@4,maj@3,auc@4,bayes@N"
M, N = 30, 6


def _per_question(spec: str) -> Callable[[np.ndarray], float]:
    """scorio's value of a leaderboard metric name on an outcome matrix."""
    if spec == "bayes@N":
        return lambda R: float(se.bayes(R)[0])
    m = re.fullmatch(r"(pass|pass\^|g-pass|mg-pass|maj|auc)[@]?(\d+)(?:_([\d.]+))?", spec.replace("^", "^@"))
    assert m, spec
    stem, k, tau = m[1], int(m[2]), m[3]
    fn = {"pass": se.pass_at_k, "pass^": se.pass_hat_k, "mg-pass": se.mg_pass_at_k, "maj": se.maj_at_k,
          "auc": se.auc_at_k}.get(stem)
    if stem == "g-pass":
        return lambda R: float(se.g_pass_at_k_tau(R, k, float(tau)))
    assert fn is not None
    return lambda R: float(fn(R, k))


def expected(R: np.ndarray, spec: str) -> tuple[float, float]:
    """(value, stderr): the metric on the whole matrix from scorio, and the
    half-width over z of the leaderboard's default 95% interval of scorio's
    value on each row (kscore.lm_eval's stderr since issue 36: lm_eval's
    +- 1.96 stderr is then as wide as the leaderboard's interval)."""
    f = _per_question(spec)
    rows = [f(R[i:i + 1]) for i in range(len(R))]
    limits = (1 / (R.shape[1] + 2), (R.shape[1] + 1) / (R.shape[1] + 2)) if spec == "bayes@N" else (0.0, 1.0)
    lo, hi = interval_of(np.array(rows), float(R.size), 0.95, limits)
    return f(R), (hi - lo) / (2 * Z95)


class Scripted(LM):  # type: ignore[misc]
    """A model that answers the i-th request of a prompt with the i-th
    response of its script (lm_eval sends the repeats of a document one
    after another, in order)."""

    def __init__(self, script: Callable[[str, int], str]) -> None:
        super().__init__()
        self.script = script
        self.calls: dict[str, int] = defaultdict(int)

    def generate_until(self, requests: list[Any], disable_tqdm: bool = False) -> list[str]:
        out = []
        for r in requests:
            prompt = r.arguments[0]
            out.append(self.script(prompt, self.calls[prompt]))
            self.calls[prompt] += 1
        return out

    def loglikelihood(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError

    def loglikelihood_rolling(self, requests: list[Any], disable_tqdm: bool = False) -> list[Any]:
        raise NotImplementedError


TASK = """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{prefix} {{{{question}}}}\\nA:"
doc_to_target: "{{{{answer}}}}"
repeats: {repeats}
generation_kwargs:
  until: ["\\n"]
{filters}metric_list:
{metrics}
"""
KEEP_ALL = "filter_list:\n  - name: all\n    filter: []\n"


def write_task(folder: Path, name: str, prefix: str, metrics: str, filters: str = KEEP_ALL,
               repeats: int = N) -> None:
    (folder / f"{name}.yaml").write_text(TASK.format(name=name, data=folder / "data.jsonl", prefix=prefix,
                                                     repeats=repeats, filters=filters, metrics=metrics))


@pytest.fixture(scope="module")
def board() -> np.ndarray:
    """The outcome matrix the scripted model plays: every question its own
    success rate, a few questions always or never right."""
    rng = np.random.default_rng(25)
    p = rng.uniform(0, 1, M)
    p[:3] = [0.0, 1.0, 0.5]
    return (rng.uniform(size=(M, N)) < p[:, None]).astype(np.int64)


def answer(i: int) -> str:
    return f"ans{7 * i + 3}"


def run(tmp: Path, R: np.ndarray, tasks: list[str], bootstrap_iters: int = 1000) -> tuple[dict[str, Any], Path]:
    """Run the tasks in ``tmp`` with a model that plays ``R`` (prefix ``Case:``
    answers right in upper case), save like ``lm_eval --log_samples``."""

    def script(prompt: str, call: int) -> str:
        i = int(re.search(r"q(\d+)", prompt)[1])  # type: ignore[index]
        if not R[i, call]:
            return f"wrong{i}"
        return answer(i).upper() if prompt.startswith("Case:") else answer(i)

    tracker = EvaluationTracker(output_path=str(tmp / "out"))
    res = lm_eval.simple_evaluate(model=Scripted(script), tasks=tasks, task_manager=TaskManager(include_path=str(tmp)),
                                  log_samples=True, evaluation_tracker=tracker, bootstrap_iters=bootstrap_iters)
    assert res is not None
    tracker.save_results_aggregated(results=res, samples=res["samples"])
    for task in res["configs"]:
        tracker.save_results_samples(task_name=task, samples=res["samples"][task])
    return res, tmp / "out"


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory, board: np.ndarray) -> tuple[dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("lm_eval_run")
    with (tmp / "data.jsonl").open("w") as f:
        for i in range(M):
            f.write(json.dumps({"question": f"q{i}", "answer": answer(i)}) + "\n")
    kscore_entry = f"  - metric: kscore\n    aggregation: kscore\n    higher_is_better: true\n    metrics: {SPECS}\n"
    write_task(tmp, "kscore_toy", "Q:", kscore_entry)
    # Answers in capitals, graded with exact_match's ignore_case; K = k for each k.
    write_task(tmp, "kscore_case", "Case:", "  - metric: kscore\n    metrics: pass@k\n    k: [1, 2, 5]\n"
                                            "    ignore_case: true\n")
    # lm_eval's own exact_match on the first repeat: its standard error must stay lm_eval's.
    write_task(tmp, "kscore_first", "First:", "  - metric: exact_match\n    aggregation: mean\n"
                                              "    higher_is_better: true\n", filters="")
    with pytest.MonkeyPatch.context() as mp:
        for k, v in OFFLINE.items():
            mp.setenv(k, v)
        return run(tmp, board, ["kscore_toy", "kscore_case", "kscore_first"])


@pytest.mark.parametrize("spec", SPECS.split(","))
def test_reported_values_are_scorio(real_run: tuple[dict[str, Any], Path], board: np.ndarray, spec: str) -> None:
    results = real_run[0]["results"]["kscore_toy"]
    value, se_ = expected(board, spec)
    assert results[f"{spec},all"] == pytest.approx(value, rel=1e-12, abs=1e-14)
    assert results[f"{spec}_stderr,all"] == pytest.approx(se_, rel=1e-12, abs=1e-14)


def test_k_list_and_grading_options(real_run: tuple[dict[str, Any], Path], board: np.ndarray) -> None:
    results = real_run[0]["results"]["kscore_case"]
    for k in (1, 2, 5):
        value, se_ = expected(board, f"pass@{k}")
        assert results[f"pass@{k},all"] == pytest.approx(value, rel=1e-12, abs=1e-14)
        assert results[f"pass@{k}_stderr,all"] == pytest.approx(se_, rel=1e-12, abs=1e-14)


def test_lm_evals_own_stderr_unchanged(real_run: tuple[dict[str, Any], Path], board: np.ndarray) -> None:
    """take_first + exact_match + mean: lm_eval's value and mean_stderr."""
    results = real_run[0]["results"]["kscore_first"]
    first = board[:, 0].astype(float)
    assert results["exact_match,none"] == pytest.approx(first.mean(), rel=1e-12)
    assert results["exact_match_stderr,none"] == pytest.approx(statistics.stdev(first) / math.sqrt(M), rel=1e-12)


def test_leaderboard_on_the_logged_samples(real_run: tuple[dict[str, Any], Path]) -> None:
    """``kscore.leaderboard`` on the run's samples file: same values, same sigma."""
    pytest.importorskip("duckdb")
    results = real_run[0]["results"]["kscore_toy"]
    [samples] = real_run[1].rglob("samples_kscore_toy_*.jsonl")
    first = json.loads(samples.read_text().splitlines()[0])
    assert first["pass@1"] == first["bayes@N"] and len(first["pass@1"]) == N  # the outcomes, one per repeat
    for spec in SPECS.split(","):
        lb = kscore.leaderboard(samples, metrics=SPECS, input_format="lm_eval")
        [row] = lb.rows
        v = row.values[spec]
        assert v is not None
        assert v.estimate == pytest.approx(results[f"{spec},all"], rel=1e-12, abs=1e-14), spec
        assert (v.hi - v.lo) / (2 * Z95) == pytest.approx(results[f"{spec}_stderr,all"], rel=1e-12, abs=1e-14), spec


def test_no_stderr_when_bootstrap_is_off() -> None:
    from lm_eval.api.metrics import mean, mean_stderr
    from lm_eval.evaluator_utils import stderr_for_metric

    assert stderr_for_metric(kle.aggregate, 0) is None
    assert stderr_for_metric(kle.aggregate, 100) is kle.standard_error
    assert stderr_for_metric(mean, 100) is mean_stderr


def test_take_first_only_is_skipped_with_a_warning(tmp_path: Path, board: np.ndarray,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    """lm_eval's default take_first (one response per document): kscore's
    metrics report nothing there and say once what to change; the run ends."""
    from kscore.lm_eval import _outcomes

    _outcomes._warned.clear()
    (tmp_path / "data.jsonl").write_text(json.dumps({"question": "q0", "answer": answer(0)}) + "\n")
    write_task(tmp_path, "kscore_first_only", "Q:", "  - metric: kscore\n    aggregation: kscore\n", filters="")
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    with caplog.at_level(logging.WARNING):
        res, _ = run(tmp_path, board, ["kscore_first_only"])
    assert not [key for key in res["results"]["kscore_first_only"] if "@" in key or "^" in key]
    assert [r.getMessage() for r in caplog.records if r.name.startswith("kscore")] == [_outcomes.ONE_RESPONSE]


def test_one_response_pipeline_beside_kscores(tmp_path: Path, board: np.ndarray, monkeypatch: pytest.MonkeyPatch,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """A task with a take_first pipeline beside the all-repeats one (and
    lm_eval's exact_match): the run ends, the one-response pipeline is
    reported as lm_eval reports it, kscore's metrics score the all-repeats
    pipeline (scorio's numbers) and skip the other with one warning."""
    from kscore.lm_eval import _outcomes

    _outcomes._warned.clear()
    with (tmp_path / "data.jsonl").open("w") as f:
        for i in range(M):
            f.write(json.dumps({"question": f"q{i}", "answer": answer(i)}) + "\n")
    filters = KEEP_ALL + "  - name: first\n    filter:\n      - function: take_first\n"
    write_task(tmp_path, "kscore_two", "Q:", "  - metric: kscore\n    aggregation: kscore\n    higher_is_better: true\n"
               "    metrics: pass@1,pass@4\n  - metric: exact_match\n    aggregation: mean\n"
               "    higher_is_better: true\n", filters=filters)
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    with caplog.at_level(logging.WARNING):
        res, _ = run(tmp_path, board, ["kscore_two"])
    got = res["results"]["kscore_two"]
    assert got["exact_match,first"] == pytest.approx(float(board[:, 0].mean()), abs=1e-15)  # the first repeat
    for spec in ("pass@1", "pass@4"):
        value, se_ = expected(board, spec)
        assert got[f"{spec},all"] == pytest.approx(value, abs=1e-12)
        assert got[f"{spec}_stderr,all"] == pytest.approx(se_, abs=1e-12)
        assert f"{spec},first" not in got
    assert [r.getMessage() for r in caplog.records if r.name.startswith("kscore")] == [_outcomes.ONE_RESPONSE]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"metrics": "pass@x"}, r"unknown metric 'pass@x'"),
    ({"metrics": "pass@1", "strict": True}, r"unknown option 'strict'"),
    ({"metrics": "g-pass@2_1.5"}, r"tau must be a number in \[0, 1\]"),
    ({"metrics": "pass@1", "k": "0"}, r"k: takes positive integers"),
])
def test_bad_options(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as e:
        kle.outcomes(references=["1"], predictions=[["1", "2"]], **kwargs)
    assert str(e.value).startswith("kscore.lm_eval: ") and "\n" not in str(e.value)


def test_bad_repeats_and_items() -> None:
    four = kle.outcomes(references=["1"], predictions=[["1", "2", "1", "1"]], metrics="pass@3")["pass@3"]
    two = kle.outcomes(references=["1"], predictions=[["1", "2"]], metrics="pass@3")["pass@3"]
    with pytest.raises(ValueError, match="pass@3 needs at least 3 repeats per document; document 1 has 2"):
        kle.aggregate([four, two])
    with pytest.raises(ValueError, match="not the repeat outcomes"):
        kle.aggregate([1.0, 0.0])
    with pytest.raises(ValueError, match="a graded repeat must be 0 or 1"):
        kle.outcomes(references=["1"], predictions=[[0.5, 1]])
    with pytest.raises(ValueError, match="holds"):
        kle.aggregate([four, kle.Outcomes([1, 1, 1, 1], Metric("pass_at_k", 2))])


def test_outcomes_survive_pickling() -> None:
    """lm_eval gathers per-document values across ranks by pickling them."""
    import pickle

    o = kle.outcomes(references=["1"], predictions=[["1", "2", "1"]], metrics="g-pass@3_0.5")["g-pass@3_0.5"]
    back = pickle.loads(pickle.dumps(o))
    assert type(back) is kle.Outcomes and back == [1, 0, 1] and back.metric == Metric("g_pass_at_k_tau", 3, 0.5)
    assert kle.aggregate([back, o]) == kle.aggregate([o, o])


def test_graded_repeats_and_exact_match_options() -> None:
    out = kle.outcomes(references=[4], predictions=[[True, 0, 1.0, "4", " 4"]], metrics="pass@1")["pass@1"]
    assert list(out) == [1, 0, 1, 1, 0]
    out = kle.outcomes(references=["Paris"], predictions=[["paris!", "PARIS", "Lyon"]], metrics="pass@1",
                       ignore_case=True, ignore_punctuation=True)["pass@1"]
    assert list(out) == [1, 1, 0]


@pytest.mark.parametrize(("installed", "ok"), [("0.4.12", True), ("0.4.13", True), ("0.4.11", False),
                                                ("0.4.9.2", False), ("0.5.0", False), ("0.5.0.dev0", False)])
def test_version_check(installed: str, ok: bool) -> None:
    from kscore.lm_eval._compat import check

    if ok:
        assert check(installed) == installed
    else:
        with pytest.raises(ImportError, match=rf"^kscore.lm_eval needs lm_eval>=0.4.12,<0.5 \(found {installed}\): "
                                              r"pip install 'kscore\[lm-eval\]'$"):
            check(installed)


def test_docstring_examples() -> None:
    import doctest

    from kscore.lm_eval import _aggregate, _compat, _outcomes

    for mod in (_aggregate, _compat, _outcomes):
        result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, mod.__name__


def _blocks(page: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page, re.S)


def test_docs_page_runs_as_written(tmp_path: Path) -> None:
    """docs/lm_eval.md: its data, task YAML and commands, run in an empty
    folder; lm_eval's results equal the page's table and the leaderboard's."""
    pytest.importorskip("duckdb")
    page = (ROOT / "docs" / "lm_eval.md").read_text()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "demo.jsonl").write_text(_blocks(page, "json")[0])
    (tmp_path / "tasks" / "kscore_demo.yaml").write_text(_blocks(page, "yaml")[0])
    env = {**os.environ, **OFFLINE, "PYTHONPATH": os.pathsep.join(sys.path)}
    commands = _blocks(page, "bash")[1].strip().splitlines()
    for line in commands:
        argv = line.split()
        tool = {"python": [sys.executable], "lm_eval": [str(Path(sys.executable).parent / "lm_eval")],
                "kscore": [sys.executable, "-m", "kscore"]}[argv[0]]
        argv = [*tool, *argv[1:]]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
    table = _blocks(page, "text")[0]
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["kscore_demo"]
    [samples] = (tmp_path / "out").rglob("samples_kscore_demo_*.jsonl")
    [row] = kscore.leaderboard(samples, metrics="pass@1,pass@2,pass^2,g-pass@4_0.5,mg-pass@4,maj@4,bayes@N").rows
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.split("|")]
        name, value, stderr = cells[5], float(cells[7]), float(cells[9])
        assert results[f"{name},all-repeats"] == pytest.approx(value, abs=5e-5)
        assert results[f"{name}_stderr,all-repeats"] == pytest.approx(stderr, abs=5e-5)
        v = row.values[name]
        assert v is not None
        assert v.estimate == pytest.approx(results[f"{name},all-repeats"], rel=1e-12)
        assert (v.hi - v.lo) / (2 * Z95) == pytest.approx(results[f"{name}_stderr,all-repeats"], rel=1e-12)


def test_docs_python_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = (ROOT / "docs" / "lm_eval.md").read_text()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "demo.jsonl").write_text(_blocks(page, "json")[0])
    (tmp_path / "tasks" / "kscore_demo.yaml").write_text(_blocks(page, "yaml")[0])
    monkeypatch.chdir(tmp_path)
    for k, v in OFFLINE.items():
        monkeypatch.setenv(k, v)
    code = _blocks(page, "python")[0]
    printed = re.search(r"print\((.*)\)\s*#\s*(\S+)", code)
    assert printed
    scope: dict[str, Any] = {}
    exec(code.replace(printed[0], f"_value = {printed[1]}"), scope)
    assert scope["_value"] == pytest.approx(float(printed[2]), rel=1e-12)


MY_MODELS = '''
from lm_eval.api.model import LM
from lm_eval.api.registry import register_model


@register_model("kscore_test_mine")
class Mine(LM):
    """Says "lol", and "4" to "2 + 2?": three of the demo's four right."""

    def __init__(self, **kwargs):
        super().__init__()

    def generate_until(self, requests, disable_tqdm=False):
        return ["4" if "2 + 2" in r.arguments[0] else "lol" for r in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        raise NotImplementedError

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError
'''


def test_command_line_imports_a_users_model(tmp_path: Path) -> None:
    """``python -m kscore.lm_eval run --import my_models --model mine``:
    the user's registered LM runs the docs' task (3 of 4 right, where
    lm_eval's dummy gets 2); the leaderboard names the model by its
    ``--model``; a module that fails to import is one line, exit status 2."""
    pytest.importorskip("duckdb")
    page = (ROOT / "docs" / "lm_eval.md").read_text()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "demo.jsonl").write_text(_blocks(page, "json")[0])
    (tmp_path / "tasks" / "kscore_demo.yaml").write_text(_blocks(page, "yaml")[0])
    (tmp_path / "my_models.py").write_text(MY_MODELS)
    env = {**os.environ, **OFFLINE, "PYTHONPATH": os.pathsep.join(sys.path)}
    base = [sys.executable, "-m", "kscore.lm_eval", "run", "--tasks", "kscore_demo", "--include_path", "tasks"]
    done = subprocess.run([*base, "--import", "my_models", "--model", "kscore_test_mine", "--log_samples",
                           "--output_path", "out"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    assert json.loads(results_file.read_text())["results"]["kscore_demo"]["pass@1,all-repeats"] == 0.75
    board = kscore.leaderboard(tmp_path / "out", metrics="pass@1")
    assert [(r.model, r.values["pass@1"].estimate) for r in board.rows] == [("kscore_test_mine", 0.75)]  # type: ignore[union-attr]
    bad = subprocess.run([*base, "--import", "no_such_models", "--model", "kscore_test_mine"], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2
    assert bad.stderr == ("kscore: error: --import no_such_models: ModuleNotFoundError: "
                          "No module named 'no_such_models'\n")
