"""CSV/TSV and JSON Lines files counted in the Rust core (read/text_rows.py)
give the counts DuckDB's query gives, read whole or cut into byte ranges,
plain or compressed, on any thread count; and hand over to DuckDB, with the
same result and warnings, on every line the core does not read as DuckDB
would (quotes, blank lines, outcomes it does not take, repeated samples)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

from kscore.leaderboard import ColumnNames  # noqa: E402
from kscore.leaderboard._issues import Issues  # noqa: E402
from kscore.leaderboard.read import aggregate, text_rows  # noqa: E402
from kscore.leaderboard.read import direct as direct_count  # noqa: E402
from kscore.leaderboard.read.reader import read_counts  # noqa: E402
from kscore.leaderboard.runtime import threads as thread_count  # noqa: E402


def both(source: Any, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> tuple[Any, Any, Issues, Issues, list[str]]:
    """The counts and issues with the direct count and with DuckDB's query only,
    and what the direct count said."""
    seen: list[str] = []
    real = direct_count.count_rows

    def spy(*a: Any) -> Any:
        out = real(*a)
        seen.append(out if isinstance(out, str) else "counted")
        return out

    monkeypatch.setattr(aggregate, "count_rows", spy)
    issues_direct = Issues()
    direct, _ = read_counts(source, issues=issues_direct, **kw)
    monkeypatch.setattr(direct_count, "ENABLED", False)
    issues_duck = Issues()
    duck, _ = read_counts(source, issues=issues_duck, **kw)
    monkeypatch.setattr(direct_count, "ENABLED", True)
    return direct, duck, issues_direct, issues_duck, seen


def same(a: Any, b: Any) -> None:
    assert a.models == b.models and a.questions == b.questions
    assert np.array_equal(a.model, b.model) and np.array_equal(a.question, b.question)
    assert a.categories.shape == b.categories.shape and np.array_equal(a.categories, b.categories)
    assert a.attributes == b.attributes


def rows(seed: int, n_models: int = 4, n_questions: int = 40, n: int = 6, categories: int = 2) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for m in range(n_models):
        for q in range(n_questions):
            if rng.random() < 0.15:
                continue
            for s in rng.permutation(n)[: int(rng.integers(1, n + 1))]:
                out.append({"model": f"model-{m}" if m % 2 else f"m é{m}", "question": f"q{(q * 7) % 53:03d}",
                            "sample": int(s), "correct": int(rng.integers(0, categories)),
                            "topic": f"t{q % 3}"})
    order = rng.permutation(len(out))
    return [out[i] for i in order]


def write_csv(path: Path, data: list[dict[str, Any]], sep: str = ",", quote: bool = False, keys: Any = None) -> Path:
    keys = keys or list(data[0])
    q = (lambda v: f'"{v}"' if isinstance(v, str) else str(v)) if quote else str
    text = sep.join(keys) + "\n" + "".join(sep.join(q(r[k]) for k in keys) + "\n" for r in data)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["csv", "quoted csv", "tsv", "csv.gz", "jsonl", "jsonl.zst"])
def test_direct_counts_equal_duckdbs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str) -> None:
    data = rows(seed)
    if kind.startswith("jsonl"):
        path = tmp_path / "r.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        if kind.endswith(".zst"):
            import pyarrow as pa_

            with pa_.CompressedOutputStream(str(tmp_path / "r.jsonl.zst"), "zstd") as out:
                out.write(path.read_bytes())
            path.unlink()
            path = tmp_path / "r.jsonl.zst"
    else:
        name = {"tsv": "r.tsv", "csv.gz": "r.csv.gz"}.get(kind, "r.csv")
        path = write_csv(tmp_path / name, data, "\t" if kind == "tsv" else ",", quote=kind == "quoted csv")
    direct, duck, _, _, seen = both(path, monkeypatch, names=ColumnNames(extra=("topic",)))
    assert seen == ["counted"]
    same(direct, duck)


@pytest.mark.parametrize("threads", [1, 3])
def test_byte_ranges_and_many_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, threads: int) -> None:
    """Files cut into ranges of a few hundred bytes (lines across every cut),
    read on several threads: the same counts."""
    monkeypatch.setattr(text_rows, "UNIT", 337)
    monkeypatch.setattr(text_rows, "CHUNK", 101)
    monkeypatch.setattr(thread_count, "_CHOSEN", threads)
    data = rows(5, n_models=6)
    folder = tmp_path / "runs"
    folder.mkdir()
    for m in sorted({r["model"] for r in data}):
        mine = [{k: v for k, v in r.items() if k != "model"} for r in data if r["model"] == m]
        write_csv(folder / f"{m.replace(' é', '')}.csv", mine)
    direct, duck, _, _, seen = both(str(folder / "*.csv"), monkeypatch)
    assert seen == ["counted"]
    same(direct, duck)
    jsonl = tmp_path / "all.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in data))
    direct, duck, _, _, seen = both(jsonl, monkeypatch)
    assert seen == ["counted"]
    same(direct, duck)


def test_sample_ids_past_64_and_outcome_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = rows(6, n=3, categories=3)
    for i, r in enumerate(data):
        r["sample"] = r["sample"] * 300 + i % 2 * 0  # ids 0, 300, 600: the bitmask grows
    path = write_csv(tmp_path / "r.csv", data)
    direct, duck, _, _, seen = both(path, monkeypatch, n_categories=3)
    assert seen == ["counted"]
    same(direct, duck)
    words = rows(7)
    for r in words:
        r["correct"] = ["no", "Yes", "0", "1"][r["correct"] + 2 * (r["sample"] % 2)]  # (DuckDB: VARCHAR)
    path = write_csv(tmp_path / "w.csv", words)
    direct, duck, _, _, seen = both(path, monkeypatch)
    assert seen == ["counted"]
    same(direct, duck)


@pytest.mark.parametrize("problem", ["blank line", "quote inside", "outcome 2", "outcome 0.5", "repeat", "empty id",
                                     "spaces", "short line", "newline in quotes", "two topics"])
def test_lines_it_does_not_take_hand_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, problem: str) -> None:
    data = rows(8)
    path = write_csv(tmp_path / "r.csv", data)
    lines = path.read_text().splitlines(keepends=True)
    k = 7
    if problem == "blank line":
        lines.insert(k, "\n")
    elif problem == "quote inside":
        lines[k] = lines[k].replace("q0", 'q"0', 1) if "q0" in lines[k] else lines[k].replace(",", ',"x"y', 1)
    elif problem == "outcome 2":
        lines[k] = lines[k].rsplit(",", 2)[0] + ",2," + lines[k].rsplit(",", 1)[1]
    elif problem == "outcome 0.5":
        lines[k] = lines[k].rsplit(",", 2)[0] + ",0.5," + lines[k].rsplit(",", 1)[1]
    elif problem == "repeat":
        lines.append(lines[k])
    elif problem == "empty id":
        lines[k] = "," + lines[k].split(",", 1)[1]
    elif problem == "spaces":
        lines[k] = lines[k].replace(",", ", ", 1)
    elif problem == "short line":
        lines[k] = lines[k].rsplit(",", 1)[0] + "\n"
    elif problem == "newline in quotes":
        lines[k] = '"a\nb",' + lines[k].split(",", 1)[1]
    else:
        lines[k] = lines[k].rsplit(",", 1)[0] + ",t9\n"
    path.write_text("".join(lines))
    kw: dict[str, Any] = {"names": ColumnNames(extra=("topic",))} if problem == "two topics" else {}
    try:
        direct, duck, warned, warned_duck, seen = both(path, monkeypatch, **kw)
    except Exception as exc:  # noqa: BLE001 - DuckDB refuses the file: so must both ways
        monkeypatch.setattr(direct_count, "ENABLED", True)
        with pytest.raises(type(exc)):
            read_counts(path, issues=Issues(), **kw)
        return
    assert seen and seen[0] != "counted", seen
    same(direct, duck)
    assert warned.warnings == warned_duck.warnings
