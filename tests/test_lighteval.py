"""kscore.lighteval inside a real lighteval 0.13 pipeline (offline: a local
JSONL dataset, a scripted model through lighteval's ``custom`` backend).

lighteval depends on torch, so it is not in the test extra; these tests skip
without it (`pip install '.[lighteval]'` installs it; .ci/run runs them).

The numbers lighteval reports for kscore's metrics (values and standard
errors) are checked against scorio 0.2.3 on the outcome matrix the scripted
model was told to produce (per-question values from scorio, their standard
deviation from ``statistics``), and against ``kscore.leaderboard`` on that
matrix. The metric class is also run on lighteval's own ``Doc`` /
``ModelResponse`` with lighteval's math scorer, ``--custom-tasks
kscore.lighteval`` is loaded by lighteval's task registry, and
docs/lighteval.md is run as written.
"""

from __future__ import annotations

import json
import math
import os
import re
import statistics
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scorio.eval as se

pytest.importorskip("lighteval", reason="pip install '.[lighteval]' (torch) installs lighteval")

import lighteval  # noqa: E402
from lighteval.models.model_output import ModelResponse  # noqa: E402
from lighteval.tasks.requests import Doc  # noqa: E402

import kscore  # noqa: E402
import kscore.lighteval as kl  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}
SPECS = "pass@1,pass@3,pass^2,g-pass@4_0.5,g-pass@6_1,mg-pass@4,maj@3,auc@4,bayes@N"
M, N = 24, 6


def scorio_value(R: np.ndarray, spec: str) -> float:
    """scorio's value of a leaderboard metric name on an outcome matrix."""
    if spec == "bayes@N":
        return float(se.bayes(R)[0])
    m = re.fullmatch(r"(pass\^|pass@|g-pass@|mg-pass@|maj@|auc@)(\d+)(?:_([\d.]+))?", spec)
    assert m, spec
    stem, k = m[1], int(m[2])
    if stem == "g-pass@":
        return float(se.g_pass_at_k_tau(R, k, float(m[3])))
    fn = {"pass@": se.pass_at_k, "pass^": se.pass_hat_k, "mg-pass@": se.mg_pass_at_k, "maj@": se.maj_at_k,
          "auc@": se.auc_at_k}[stem]
    return float(fn(R, k))


def expected(R: np.ndarray, spec: str) -> tuple[float, float]:
    rows = [scorio_value(R[i:i + 1], spec) for i in range(len(R))]
    return scorio_value(R, spec), statistics.stdev(rows) / math.sqrt(len(rows))


@pytest.fixture(scope="module")
def offline() -> Iterator[None]:
    """lighteval 0.13 imports every task module of its own when it builds its
    task registry, and ``tasks/tiny_benchmarks.py`` then downloads
    ``tinyBenchmarks.pkl`` from GitHub unless the file is there (it is only
    read by the tinyBenchmarks tasks): offline, an empty file stands in for the
    time of the tests."""
    placeholder = Path(lighteval.__file__).parent / "tasks" / "tasks" / "tinyBenchmarks.pkl"
    made = not placeholder.exists()
    if made:
        placeholder.write_bytes(b"")
    saved = {k: os.environ.get(k) for k in OFFLINE}
    os.environ.update(OFFLINE)
    yield
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    if made:
        placeholder.unlink()


@pytest.fixture(scope="module")
def board() -> np.ndarray:
    rng = np.random.default_rng(4)
    p = rng.uniform(0, 1, M)
    p[:3] = [0.0, 1.0, 0.5]
    return (rng.uniform(size=(M, N)) < p[:, None]).astype(np.int64)


MODEL = '''"""A model for lighteval's custom backend that plays script.json: sample j
of question i is right where the script says 1."""
import json
import re
from pathlib import Path

from lighteval.models.abstract_model import LightevalModel
from lighteval.models.model_output import ModelResponse
from lighteval.utils.cache_management import SampleCache

SCRIPT = json.loads((Path(__file__).parent / "script.json").read_text())


class ScriptedModel(LightevalModel):
    def __init__(self, config):
        self.config = config
        self._cache = SampleCache(config)

    def greedy_until(self, docs):
        out = []
        for doc in docs:
            i = int(re.search(r"q(\\d+)", doc.query)[1])
            right = doc.choices[doc.gold_index]
            out.append(ModelResponse(text=[f"  {right} " if hit else "nope" for hit in SCRIPT[i][: doc.num_samples]]))
        return out

    def loglikelihood(self, docs):
        raise NotImplementedError

    def loglikelihood_rolling(self, docs):
        raise NotImplementedError

    @property
    def tokenizer(self):
        return None

    @property
    def add_special_tokens(self):
        return False

    @property
    def max_length(self):
        return 4096
'''

TASKS = '''from lighteval.tasks.lighteval_task import LightevalTaskConfig
from lighteval.tasks.requests import Doc

from kscore.lighteval import sampling_metric


def prompt(line, task_name=None):
    return Doc(task_name=task_name, query=f"Q: {line['question']}\\nA:", choices=[line["answer"]], gold_index=0)


TASKS_TABLE = [LightevalTaskConfig(name="kscore_toy", prompt_function=prompt, hf_repo=DATA, hf_subset="default",
                                   evaluation_splits=["test"], generation_size=16,
                                   metrics=[sampling_metric(SPECS, n=N)])]
'''


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory, board: np.ndarray, offline: None) -> dict[str, Any]:
    from lighteval.logging.evaluation_tracker import EvaluationTracker
    from lighteval.models.custom.custom_model import CustomModelConfig
    from lighteval.pipeline import ParallelismManager, Pipeline, PipelineParameters

    tmp = tmp_path_factory.mktemp("lighteval_run")
    (tmp / "data").mkdir()
    with (tmp / "data" / "test.jsonl").open("w") as f:
        for i in range(M):
            f.write(json.dumps({"question": f"q{i}", "answer": f"ans{3 * i + 1}"}) + "\n")
    (tmp / "script.json").write_text(json.dumps(board.tolist()))
    (tmp / "scripted_model.py").write_text(MODEL)
    (tmp / "toy_tasks.py").write_text(f"DATA, SPECS, N = {str(tmp / 'data')!r}, {SPECS!r}, {N}\n" + TASKS)
    tracker = EvaluationTracker(output_dir=str(tmp / "out"), save_details=True)
    params = PipelineParameters(launcher_type=ParallelismManager.CUSTOM,
                                custom_tasks_directory=str(tmp / "toy_tasks.py"))
    pipeline = Pipeline(tasks="kscore_toy|0", pipeline_parameters=params, evaluation_tracker=tracker,
                        model_config=CustomModelConfig(model_name="scripted",
                                                       model_definition_file_path=str(tmp / "scripted_model.py")))
    pipeline.evaluate()  # type: ignore[no-untyped-call,unused-ignore]
    pipeline.save_and_push_results()  # type: ignore[no-untyped-call,unused-ignore]
    results: dict[str, Any] = pipeline.get_results()[  # type: ignore[no-untyped-call,unused-ignore]
        "results"]["kscore_toy:0"]
    return results


@pytest.mark.parametrize("spec", SPECS.split(","))
def test_reported_values_are_scorio(real_run: dict[str, Any], board: np.ndarray, spec: str) -> None:
    value, se_ = expected(board, spec)
    assert real_run[spec] == pytest.approx(value, rel=1e-12, abs=1e-14)
    assert real_run[f"{spec}_stderr"] == pytest.approx(se_, rel=1e-12, abs=1e-14)


def test_reported_values_are_the_leaderboards(real_run: dict[str, Any], board: np.ndarray) -> None:
    pytest.importorskip("duckdb")
    import pandas as pd

    rows = [("scripted", i, j, int(board[i, j])) for i in range(M) for j in range(N)]
    df = pd.DataFrame(rows, columns=["model", "question", "sample", "outcome"])
    [row] = kscore.leaderboard(df, metrics=SPECS).rows
    for spec in SPECS.split(","):
        v = row.values[spec]
        assert v is not None
        assert real_run[spec] == pytest.approx(v.estimate, rel=1e-12, abs=1e-14), spec
        assert real_run[f"{spec}_stderr"] == pytest.approx(v.sigma, rel=1e-12, abs=1e-14), spec


def test_custom_tasks_module_loads(offline: None) -> None:
    """``--custom-tasks kscore.lighteval``: lighteval's registry finds the
    ready tasks, with kscore's metric and 16 samples per problem."""
    from lighteval.tasks.registry import Registry

    registry = Registry(tasks="aime24_kscore|0,math_500_kscore|0", custom_tasks="kscore.lighteval")
    tasks = registry.load_tasks()
    assert sorted(tasks) == ["aime24_kscore|0", "math_500_kscore|0"]
    for task in tasks.values():
        [metric] = task.metrics
        assert isinstance(metric.sample_level_fn, kl.KscoreSampling)
        assert metric.metric_name == kl.METRICS.split(",")
        assert max(task.num_samples) == kl.N


def test_extend_enum() -> None:
    from lighteval.metrics.metrics import Metrics

    assert isinstance(Metrics.kscore.value.sample_level_fn, kl.KscoreSampling)
    assert Metrics.kscore.value.metric_name == ["pass@1", "pass@4", "pass@16", "maj@16", "bayes@N"]
    assert Metrics.kscore_math.value.metric_name == kl.METRICS.split(",")


def test_metric_on_lightevals_types() -> None:
    """The sample-level computation on lighteval's Doc and ModelResponse,
    exact match (stripped) and lighteval's math extraction, against scorio."""
    doc = Doc(query="2 + 2?", choices=["4"], gold_index=0)
    m = kl.sampling_metric("pass@2,maj@3,bayes@N", n=4)
    out = m.compute_sample(doc=doc, model_response=ModelResponse(text=["4", " 4 ", "5", "four", "4"]))
    R = np.array([[1, 1, 0, 0]])
    assert out == pytest.approx({s: scorio_value(R, s) for s in ("pass@2", "maj@3", "bayes@N")}, rel=1e-12)
    math_doc = Doc(query="x?", choices=["$\\frac{1}{2}$"], gold_index=0)
    out = kl.math_metric("pass@1", n=3).compute_sample(
        doc=math_doc, model_response=ModelResponse(text=["so \\boxed{0.5}", "\\boxed{1/2}", "\\boxed{2}"]))
    assert out == {"pass@1": pytest.approx(2 / 3, rel=1e-12)}


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"metrics": "pass@x", "n": 4}, r"unknown metric 'pass@x'"),
    ({"metrics": "pass@8", "n": 4}, r"pass@8 needs at least 8 samples per document; n is 4"),
    ({"metrics": "pass@1", "n": 0}, r"n \(samples per document\) must be a positive integer"),
    ({"metrics": "g-pass@2_2", "n": 4}, r"tau must be a number in \[0, 1\]"),
])
def test_bad_parameters(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message) as e:
        kl.sampling_metric(**kwargs)
    assert str(e.value).startswith("kscore.lighteval: ") and "\n" not in str(e.value)


def test_bad_documents() -> None:
    m = kl.sampling_metric("pass@1", n=3)
    with pytest.raises(ValueError, match="exactly one gold answer; it has 2"):
        m.compute_sample(doc=Doc(query="q", choices=["a", "b"], gold_index=[0, 1]),
                         model_response=ModelResponse(text=["a", "a", "a"]))
    lowered = kl.sampling_metric("pass@3", n=3)(sample_params={"n": 2})  # lighteval's way to change n
    with pytest.raises(ValueError, match="pass@3 needs at least 3 samples per document; n is 2"):
        lowered.compute_sample(doc=Doc(query="q", choices=["a"], gold_index=0),
                               model_response=ModelResponse(text=["a", "b"]))
    with pytest.raises(ValueError, match="a document has 2 samples; n is 3"):
        m.compute_sample(doc=Doc(query="q", choices=["a"], gold_index=0), model_response=ModelResponse(text=["a", "b"]))


@pytest.mark.parametrize(("installed", "ok"), [("0.13.0", True), ("0.13.5", True), ("0.12.2", False),
                                                ("0.14.0", False), ("1.0.0", False)])
def test_version_check(installed: str, ok: bool) -> None:
    from kscore.lighteval._compat import check

    if ok:
        assert check(installed) == installed
    else:
        with pytest.raises(ImportError, match=rf"^kscore.lighteval needs lighteval>=0.13,<0.14 \(found {installed}\): "
                                              r"pip install 'kscore\[lighteval\]'$"):
            check(installed)


def test_docstring_examples() -> None:
    import doctest

    from kscore.lighteval import _compat, _metric, _tasks

    for mod in (_compat, _metric, _tasks):
        result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0 and result.attempted > 0, mod.__name__


def _blocks(page: str, lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", page, re.S)


def test_docs_page_runs_as_written(tmp_path: Path, offline: None) -> None:
    """docs/lighteval.md: its data, task and model files and its command, in an
    empty folder; lighteval's table equals the page's."""
    page = (ROOT / "docs" / "lighteval.md").read_text()
    # a file's block may carry a docs-test mark (tests/test_docs.py) between its name and its fence
    files = re.findall(r"`([\w/.]+)`:\n\n(?:<!--[^>]*-->\n)?```\w+\n(.*?)```", page, re.S)
    assert {name for name, _ in files} == {"data/test.jsonl", "kscore_tasks.py", "scripted_model.py"}
    for name, text in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    [command] = [b for b in _blocks(page, "bash") if "lighteval custom" in b]
    argv = command.replace("\\\n", " ").split()
    assert argv[0] == "lighteval"
    env = {**os.environ, **OFFLINE, "PYTHONPATH": os.pathsep.join(sys.path)}
    main = "import sys; from lighteval.__main__ import app; sys.argv[0] = 'lighteval'; app()"
    done = subprocess.run([sys.executable, "-c", main, *[a.strip("'\"") for a in argv[1:]]], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=500)
    assert done.returncode == 0, done.stderr[-3000:]
    [results_file] = (tmp_path / "out").rglob("results_*.json")
    results = json.loads(results_file.read_text())["results"]["kscore_demo|0"]
    table = [b for b in _blocks(page, "text") if "kscore_demo" in b][0]
    shown = 0
    for line in table.splitlines()[2:]:
        cells = [c.strip() for c in line.split("|")]
        if cells[1] == "kscore_demo:0":
            shown = 1
        if shown and cells[3]:
            assert results[cells[3]] == pytest.approx(float(cells[4]), abs=5e-5), cells[3]
            assert results[f"{cells[3]}_stderr"] == pytest.approx(float(cells[6]), abs=5e-5), cells[3]
    assert shown
