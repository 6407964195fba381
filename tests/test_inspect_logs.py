"""kscore.inspect from inspect logs: paired comparisons, Holm, power
(inspect_ai #4206), the entry point, ``inspect score --metric`` by name,
the version check and the examples of kscore.inspect's docstrings.

The logs come from real ``inspect_ai.eval`` runs (tests/test_inspect.py's
offline task); the references are computed here from scorio 0.2.3's
per-sample estimates and scipy's normal quantiles."""

from __future__ import annotations

import doctest
import importlib
import importlib.metadata
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("inspect_ai", reason="kscore.inspect needs inspect_ai (the test extra installs it)")

import scorio.eval as se  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log  # noqa: E402
from scipy.stats import norm  # noqa: E402

import kscore  # noqa: E402
from kscore import inspect as ki  # noqa: E402

from .test_inspect import matrix, per_question, reported, run  # noqa: E402

Q = 40


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[EvalLog, np.ndarray]]:
    """Three models on the same 40 samples, 6 epochs: b is a with about one
    outcome in six flipped towards wrong, c independent of both."""
    rng = np.random.default_rng(7)
    A = matrix(11, q=Q, n=6)
    B = np.where(rng.random(A.shape) < 1 / 6, 0, A)
    C = matrix(12, q=Q, n=6)
    out = {}
    for name, R in (("a", A), ("b", B), ("c", C)):
        out[name] = (run(f"mockllm/{name}", R, [ki.pass_at_k(1)], tmp_path_factory.mktemp(name)), R)
    return out


def reference(Ra: np.ndarray, Rb: np.ndarray, k: int = 1) -> tuple[float, float, float]:
    """Mean paired difference of scorio's per-sample pass@k, its standard
    error (ddof=1) and the two-sided normal p-value."""
    d = per_question(se.pass_at_k, Ra, k) - per_question(se.pass_at_k, Rb, k)
    diff, sigma = float(d.mean()), float(d.std(ddof=1) / math.sqrt(len(d)))
    return diff, sigma, float(2 * norm.sf(abs(diff / sigma)))


def test_compare_two_logs(logs: dict[str, tuple[EvalLog, np.ndarray]], tmp_path: Path) -> None:
    (la, A), (lb, B) = logs["a"], logs["b"]
    diff, sigma, p = reference(A, B)
    for a, b in ((la, lb), (la.location, lb.location), (read_eval_log(la.location, header_only=True), lb)):
        c = ki.compare(a, b)
        assert (c.a, c.b) == ("mockllm/a", "mockllm/b")
        assert (c.diff, c.sigma, c.p) == pytest.approx((diff, sigma, p), abs=1e-12)
        z = norm.ppf(0.975)
        assert (c.lo, c.hi) == pytest.approx((diff - z * sigma, diff + z * sigma), abs=1e-12)
        assert c.questions == Q
    # The same as the leaderboard's own compare on the two logs' rows.
    for log in (la, lb):
        shutil.copy(log.location, tmp_path)
    board = kscore.leaderboard(str(tmp_path), metrics="pass@1")
    ref = board.compare("mockllm/a", "mockllm/b")
    assert (ki.compare(la, lb).diff, ki.compare(la, lb).p) == pytest.approx((ref.diff, ref.p), abs=1e-12)
    # a .json log (inspect's other format) reads the same
    json_a = tmp_path / "a.json"
    write_eval_log(la, str(json_a))
    assert (ki.compare(json_a, lb.location).diff, ki.compare(json_a, lb.location).p) == pytest.approx((diff, p),
                                                                                                   abs=1e-12)
    # a larger budget, and the other order
    c4 = ki.compare(lb, la, metric="pass@4")
    assert (c4.diff, c4.sigma, c4.p) == pytest.approx(reference(B, A, 4), abs=1e-12)


def test_compare_all_is_holm_adjusted(logs: dict[str, tuple[EvalLog, np.ndarray]]) -> None:
    pw = ki.compare_all([logs[x][0] for x in "abc"])
    R = {f"mockllm/{x}": logs[x][1] for x in "abc"}
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    ps = []
    for i, j in pairs:
        diff, sigma, p = reference(R[pw.models[i]], R[pw.models[j]])
        assert (pw.diff[i, j], pw.sigma[i, j], pw.p[i, j]) == pytest.approx((diff, sigma, p), abs=1e-12)
        ps.append(p)
    # Holm's step-down, written out: the sorted p-values times m, m-1, ..., running maximum, capped at 1.
    order = np.argsort(ps)
    adjusted = np.minimum(1.0, np.maximum.accumulate(np.array(ps)[order] * np.array([3, 2, 1])))
    holm = np.empty(3)
    holm[order] = adjusted
    assert [pw.p_holm[i, j] for i, j in pairs] == pytest.approx(holm.tolist(), abs=1e-12)


def within(R: np.ndarray) -> np.ndarray:
    """Each sample's variance of its pass@1 over the epochs (s^2 / n, s^2
    with ddof=1), the within part Miller's section 3 uses."""
    out: np.ndarray = R.var(axis=1, ddof=1) / R.shape[1]
    return out


def test_power_is_the_boards_plan(logs: dict[str, tuple[EvalLog, np.ndarray]]) -> None:
    """power() is Leaderboard.plan on the logs' board: the detectable
    difference (z_{0.975} + z_{0.8}) se of the paired standard error, the
    variance within samples (over epochs) and between, the samples needed."""
    (la, A), (lb, B) = logs["a"], logs["b"]
    plan = ki.power([la, lb], confidence=0.95, target=0.8)
    [pair] = plan.pairs
    upper, lower = (A, B) if pair.upper == "mockllm/a" else (B, A)
    diff, sigma, _ = reference(upper, lower)
    factor = norm.ppf(0.975) + norm.ppf(0.8)
    assert (pair.diff, pair.se) == pytest.approx((diff, sigma), abs=1e-12)
    assert pair.detectable == pytest.approx(factor * sigma, abs=1e-12)
    d = per_question(se.pass_at_k, upper, 1) - per_question(se.pass_at_k, lower, 1)
    w = float((within(upper) + within(lower)).mean())
    assert pair.within == pytest.approx(w, abs=1e-12)
    assert pair.between == pytest.approx(max(float(d.var(ddof=1)) - w, 0.0), abs=1e-12)
    if not pair.resolved:
        assert pair.questions_needed == math.ceil(Q * (factor * sigma / diff) ** 2 - 1e-9)
    spread = {m.model: m for m in plan.models}
    assert spread["mockllm/a"].within == pytest.approx(float(within(A).mean()), abs=1e-12)
    assert plan.lines()  # the plan in words


def test_power_words_when_every_pair_is_detectable(logs: dict[str, tuple[EvalLog, np.ndarray]],
                                                   tmp_path: Path) -> None:
    """Two models far apart (a, and one always wrong): the one pair is
    detectable, and the summary says so without "buy more for 0 and ... 0"."""
    zero = run("mockllm/zero", np.zeros((Q, 6), np.int64), [ki.pass_at_k(1)], tmp_path)
    plan = ki.power([logs["a"][0], zero])
    assert [p.resolved for p in plan.pairs] == [True]
    summary = plan.lines()[1]
    assert "1 of 1 adjacent pairs differ by at least what the board detects at 80% power; nothing more to buy;" \
        in summary
    assert "for 0" not in summary


def test_log_errors_are_one_line(logs: dict[str, tuple[EvalLog, np.ndarray]], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="at least two logs"):
        ki.compare_all([logs["a"][0]])
    with pytest.raises(ValueError, match="no such inspect log"):
        ki.compare(tmp_path / "missing.eval", logs["a"][0])
    with pytest.raises(TypeError, match="expected an inspect_ai EvalLog or a log path"):
        ki.compare(3, logs["a"][0])
    other = run("mockllm/a", matrix(3, q=5, n=6), [ki.pass_at_k(1)], tmp_path)
    other_task = other.model_copy(update={"eval": other.eval.model_copy(update={"task": "another_task"})})
    with pytest.raises(ValueError, match="different tasks"):
        ki.compare(other_task, logs["b"][0])
    # the same model twice is told apart
    c = ki.compare(logs["a"][0], logs["a"][0])
    assert (c.a, c.b, c.diff) == ("mockllm/a [1]", "mockllm/a [2]", 0.0)


def test_entry_point_is_installed() -> None:
    """pyproject's [project.entry-points.inspect_ai] kscore, as installed."""
    eps = importlib.metadata.entry_points(group="inspect_ai")
    ours = [ep for ep in eps if ep.name == "kscore"]
    assert ours, "no inspect_ai entry point 'kscore': reinstall kscore (pip install -e .) after pulling"
    assert ours[0].value == "kscore.inspect._registry"


def _python(code: str, cwd: Path) -> str:
    env = {**os.environ, "INSPECT_LOG_LEVEL": "warning"}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_inspect_finds_metrics_by_name_through_the_entry_point(tmp_path: Path) -> None:
    """A fresh interpreter that never imports kscore: inspect's registry
    lookup of kscore/<name> loads the entry point."""
    out = _python(
        "import sys\n"
        "from inspect_ai._eval.loader import metric_from_spec\n"
        "from inspect_ai.scorer._metric import MetricSpec\n"
        "from inspect_ai._util.registry import registry_info, registry_lookup\n"
        "assert 'kscore.inspect' not in sys.modules\n"
        "m = metric_from_spec(MetricSpec('kscore/g_pass_at_k_tau'))\n"
        "r = registry_lookup('score_reducer', 'kscore/maj_at')\n"
        "print(registry_info(m).name, registry_info(m).metadata['scores'], r is not None,"
        " 'kscore.inspect' in sys.modules)\n", tmp_path)
    assert out.split() == ["kscore/g_pass_at_k_tau", "unreduced", "True", "True"]


def test_inspect_score_cli_with_kscore_metric(tmp_path: Path) -> None:
    """``inspect score LOG --metric kscore/pass_at_k --metric kscore/bayes``
    re-scores a log (inspect's own match() scorer) with kscore's metrics by
    name; the numbers are the leaderboard's on the re-scored log."""
    pattern = matrix(21, q=12, n=4)
    out = _python(
        "import numpy as np\n"
        "from inspect_ai import Task, eval\n"
        "from inspect_ai.dataset import Sample\n"
        "from inspect_ai.model import ModelOutput\n"
        "from inspect_ai.scorer import match\n"
        "from inspect_ai.solver import solver\n"
        "@solver\n"
        "def answer():\n"
        "    async def solve(state, generate):\n"
        "        right = state.metadata['pattern'][state.epoch - 1]\n"
        "        state.output = ModelOutput.from_content(str(state.model), state.target.text if right else 'no')\n"
        "        return state\n"
        "    return solve\n"
        f"P = {pattern.tolist()!r}\n"
        "data = [Sample(input=f'q{i}', target='yes', id=i, metadata={'pattern': p}) for i, p in enumerate(P)]\n"
        "[log] = eval(Task(dataset=data, solver=answer(), scorer=match(), epochs=4), model='mockllm/model',"
        " log_dir='logs', display='none')\n"
        "print(log.location)\n", tmp_path)
    location = out.strip().splitlines()[-1]
    # docs/inspect.md's command as written, with no terminal (stdin closed: a prompt would stop it)
    text = (Path(__file__).parent.parent / "docs" / "inspect.md").read_text()
    [line] = [x for x in text.splitlines() if x.startswith("inspect score ")]
    args = [location if a == "logs/<log>.eval" else a for a in line.split()[1:]]
    done = subprocess.run([str(Path(sys.executable).parent / "inspect"), *args, "--display", "none"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    rescored = tmp_path / "logs" / "rescored.eval"
    got = reported(read_eval_log(str(rescored)))
    board = kscore.leaderboard(str(rescored), metrics="pass@1,pass@4,bayes@N")
    for name in ("pass@1", "pass@4", "bayes@N"):  # k=None: the leaderboard's default budgets 1, 4 (16 > 4 epochs)
        value = board.rows[0].values[name]
        assert value is not None
        assert (got[name], got[f"{name}_sigma"]) == pytest.approx((value.estimate, value.sigma), abs=1e-12)
    assert got["pass@4"] == pytest.approx(se.pass_at_k(pattern, 4), abs=1e-12)
    assert "pass@16" not in got


def test_old_inspect_gets_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """An inspect_ai whose @metric has no scores= (before unreduced metrics)."""
    import inspect_ai.scorer

    from kscore.inspect import _require

    def metric(name: object = None) -> object:  # the old decorator's signature
        return name

    monkeypatch.setattr(inspect_ai.scorer, "metric", metric)
    with pytest.raises(ImportError) as info:
        _require.check()
    message = str(info.value)
    assert "\n" not in message
    assert "needs inspect_ai >= 0.3.241" in message and "pip install" in message


def test_docs_page_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    """docs/inspect.md's Python blocks, in order, in an empty folder; the
    numbers they print are the leaderboard's on the logs they write."""
    text = (Path(__file__).parent.parent / "docs" / "inspect.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    ns: dict[str, Any] = {"__name__": "docs_inspect"}
    for block in blocks:
        exec(compile(block, "docs/inspect.md", "exec"), ns)
    printed = capsys.readouterr().out
    assert "detectable at 80% power" in printed and "mockllm/a - mockllm/b" in printed
    board = kscore.leaderboard("logs", metrics="pass@1,pass@4,maj@5,g-pass@4_0.5,bayes@N")
    got = reported(ns["log_a"])
    row = next(r for r in board.rows if r.model == "mockllm/a")
    for name in ("pass@1", "pass@4", "maj@5", "g-pass@4_0.5", "bayes@N"):
        value = row.values[name]
        assert value is not None
        assert (got[name], got[f"{name}_sigma"]) == pytest.approx((value.estimate, value.sigma), abs=1e-12)
    ref = board.compare("mockllm/a", "mockllm/b", "pass@1")
    assert ns["pair"].detectable == pytest.approx(board.plan("pass@1").pairs[0].detectable, abs=1e-12)
    assert (ns["c"].diff, ns["c"].p) == pytest.approx((ref.diff, ref.p), abs=1e-12)
    assert ns["pw"].models[0] != ns["pw"].models[1]
    # The log records kscore's metrics as specs (kscore/pass_at_k with its k, ...): `inspect score` in a
    # fresh process re-creates them by name through the entry point, with the same numbers.
    done = subprocess.run([str(Path(sys.executable).parent / "inspect"), "score", ns["log_a"].location,
                           "--action", "overwrite", "--output-file", "rescored.eval", "--display", "none"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    again = read_eval_log("rescored.eval")
    assert again.results is not None and ns["log_a"].results is not None

    def keyed(scores: list[Any]) -> dict[tuple[str, str | None, str], float]:
        return {(s.name, s.reducer, k): m.value for s in scores for k, m in s.metrics.items()}

    before, after = keyed(ns["log_a"].results.scores), keyed(again.results.scores)
    assert before.keys() == after.keys() and len(before) == 22
    assert [after[k] for k in before] == pytest.approx(list(before.values()), abs=1e-12)


@pytest.mark.parametrize("name", ["kscore.inspect", "kscore.inspect._metrics", "kscore.inspect._reducers",
                                  "kscore.inspect._logs"])
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
