"""Output's one home (issue 34): the table of formats drives the command's
choices, a board computed with what its outputs show (``show=``) renders
every format without computing anything more, and the same bytes as a board
whose statistics the renderers compute on first use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
pytest.importorskip("rich")

import kscore  # noqa: E402
from kscore.cli import build_parser  # noqa: E402
from kscore.leaderboard import Show  # noqa: E402
from kscore.present import FORMATS, render_leaderboard  # noqa: E402
from kscore.present.formats import from_suffix, names, pair_format  # noqa: E402
from kscore.present.from_leaderboard import show_for  # noqa: E402

SAMPLE = Path(kscore.__file__).parent / "data" / "sample_results.csv.gz"


def _choices(command: str) -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    action = next(a for a in sub.choices[command]._actions if "--format" in a.option_strings)  # type: ignore[index]
    return list(action.choices or [])


def test_the_table_of_formats_is_the_commands_choices() -> None:
    assert _choices("leaderboard") == names("board") == ["table", "csv", "json", "markdown", "html"]
    assert _choices("compare") == names("comparison") == ["table", "csv", "json", "markdown"]
    assert _choices("plan") == names("plan") == ["table", "json", "markdown"]
    assert [from_suffix(p) for p in ("a.CSV", "a.json", "a.md", "a.markdown", "a.html", "a.htm", "a.txt", "a")] == \
        ["csv", "json", "markdown", "markdown", "html", "html", "table", "table"]
    assert [pair_format(p).name for p in ("p.jsonl", "p.JSON", "p.ndjson", "p.csv", "p")] == \
        ["jsonl", "jsonl", "jsonl", "csv", "csv"]


CASES: list[dict[str, Any]] = [
    {"metrics": None, "adjust": "none"},
    {"metrics": "pass@1,pass@4,bayes@N", "adjust": "simultaneous", "interval": "posterior"},
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("fmt", [f.name for f in FORMATS])
def test_a_board_computed_with_its_show_renders_alone_and_the_same(case: dict[str, Any], fmt: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    options = {k: v for k, v in case.items() if v is not None}
    needs = next(f.needs for f in FORMATS if f.name == fmt)
    wanted = show_for(needs, 5, ("auto", None), plan=True)
    plain = render_leaderboard(kscore.leaderboard(SAMPLE, **options), fmt, top=5, plan=True)
    lb = kscore.leaderboard(SAMPLE, show=wanted, **options)
    assert lb.shown is not None and lb.shown.show == wanted

    # Showing the finished board computes no statistic: each would raise here.
    from kscore.leaderboard.result import board as result_board
    from kscore.leaderboard.result import prepare as result_prepare

    def computed(*_: Any, **__: Any) -> Any:
        raise AssertionError("a statistic computed while rendering")

    for name in ("plan", "pairwise", "compare"):
        monkeypatch.setattr(result_board.Leaderboard, name, computed)
    for name in ("pair_rows", "compare_data", "leaderboard_curves"):
        monkeypatch.setattr(result_prepare, name, computed)
    assert render_leaderboard(lb, fmt, top=5, plan=True) == plain


def test_a_comparison_of_a_missing_model_is_said_after_the_warnings(tmp_path: Path) -> None:
    # The run keeps the error of what it was asked to show; it is raised when shown.
    from kscore.leaderboard import LeaderboardError
    from kscore.present.from_leaderboard import comparison_report, comparison_show

    lb = kscore.leaderboard(SAMPLE, show=comparison_show("cobalt-34b", "no-such-model"))
    assert lb.shown is not None and isinstance(lb.shown.error, LeaderboardError)
    with pytest.raises(LeaderboardError, match="no model 'no-such-model'"):
        comparison_report(lb, "cobalt-34b", "no-such-model")


def test_show_asks_only_what_the_formats_show() -> None:
    assert show_for(frozenset({"table"}), plan=True) == Show()  # (CSV: the plan is not shown)
    assert show_for(frozenset({"rows", "json", "plan"}), 3, ("top", 4), plan=True) == \
        Show(top=3, plan=True, plan_groups=True, pairs="top", pairs_top=4)
    assert show_for(frozenset({"rows", "page", "plan"}), plan=False) == Show(page=True)
