"""``kscore plan`` and ``kscore leaderboard --plan``: the plan's numbers in
every output, in words, and bad input as one line."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("rich")
pytest.importorskip("duckdb")

import kscore  # noqa: E402
from kscore.cli import main  # noqa: E402


def sample_board() -> kscore.Leaderboard:
    with resources.as_file(resources.files("kscore.data").joinpath("sample_results.csv.gz")) as path:
        return kscore.leaderboard(path)


def test_plan_json_equals_the_python_plan(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--format", "json", "--power", "0.9"]) == 0
    doc = json.loads(capsys.readouterr().out)
    want = sample_board().plan(power=0.9).to_dict()
    assert doc["plan"] == json.loads(json.dumps(want))
    assert doc["plan"]["power"] == 0.9 and len(doc["plan"]["pairs"]) == 7


def test_plan_text_and_markdown_say_it_in_words(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["plan"]) == 0
    text = capsys.readouterr().out
    assert "answer sampling" in text and "more questions buy more" in text and "most influential" in text
    out = tmp_path / "plan.md"
    assert main(["plan", "-o", str(out)]) == 0 and out.read_text().startswith("## kscore plan")
    assert "\n- orion-70b-instruct over cobalt-34b:" in out.read_text()


def test_leaderboard_plan_in_json_markdown_and_html(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["leaderboard", "--plan", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["plan"]["metric"] == doc["sort"] and len(doc["plan"]["models"]) == len(doc["models"])
    assert main(["leaderboard", "--format", "json"]) == 0
    assert "plan" not in json.loads(capsys.readouterr().out)
    page = tmp_path / "board.html"
    assert main(["leaderboard", "--plan", "-o", str(page)]) == 0
    html = page.read_text()
    assert "<h2>Plan: plan on bayes@N" in html and html.count("<li>") == 8 + 7
    assert main(["leaderboard", "--plan", "--format", "markdown"]) == 0
    assert "adjacent pairs" in capsys.readouterr().out


def test_bad_power_and_wilson_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", "--power", "1"]) == 1
    err = capsys.readouterr().err
    assert err == "kscore: error: --power must lie in (0, 1); got 1.0\n"
    assert main(["leaderboard", "--interval", "wilson", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["interval"] == "wilson" and "Wilson" in doc["interval_meaning"]
