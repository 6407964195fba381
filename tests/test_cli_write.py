"""``kscore leaderboard`` never overwrites its input and never leaves an output
half-written: the real command in a subprocess, on real files."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("rich")

ROWS = "model,question,sample,correct\n" + "".join(
    f"{m},q{q},{s},{(q + s + i) % 2}\n" for i, m in enumerate(["a", "b", "c"]) for q in range(20) for s in range(4)
)


def kscore(*args: str | Path, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # runs in the child: a real write failure past `fsize` bytes
        if fsize is not None:
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run([sys.executable, "-m", "kscore.cli", *map(str, args)], capture_output=True, text=True,
                          check=False, timeout=120, preexec_fn=limit)


def one_line_error(res: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert res.returncode == 1, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture()
def results(tmp_path: Path) -> Path:
    path = tmp_path / "results.csv"
    path.write_text(ROWS)
    return path


@pytest.mark.parametrize("fmt", ["csv", "table", "json"])
def test_output_onto_the_input_is_refused_and_the_input_kept(results: Path, fmt: str) -> None:
    res = kscore("leaderboard", results, "--format", fmt, "--output", results)
    one_line_error(res, "--output", "is the input file", "refusing to overwrite")
    assert results.read_text() == ROWS


def test_output_through_a_symlink_or_hard_link_or_other_spelling_is_refused(results: Path) -> None:
    link = results.parent / "link.csv"
    link.symlink_to(results)
    hard = results.parent / "hard.csv"
    os.link(results, hard)
    other = results.parent / "." / ".." / results.parent.name / results.name
    for out in (link, hard, other):
        one_line_error(kscore("leaderboard", results, "--output", out), "is the input file")
    one_line_error(kscore("leaderboard", results, "--plot", link), "--plot", "is the input file")
    assert results.read_text() == ROWS and link.is_symlink()


def test_a_failed_write_leaves_the_previous_output_and_no_temporary_file(results: Path, tmp_path: Path) -> None:
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    out = tmp_path / "board.json"
    out.write_text("previous leaderboard\n")
    res = kscore("leaderboard", results, "--output", out, fsize=200)  # the JSON is longer than 200 bytes
    one_line_error(res, "cannot write", str(out))
    assert out.read_text() == "previous leaderboard\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json", "results.csv"]
    res = kscore("leaderboard", results, "--output", out)
    assert res.returncode == 0, res.stderr
    assert out.read_text().startswith("{") and sorted(p.name for p in tmp_path.iterdir()) == ["board.json",
                                                                                             "results.csv"]


def test_progress_shows_when_forced_and_not_when_piped_or_quiet(results: Path) -> None:
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    res = kscore("leaderboard", results, "--format", "csv", "--progress")
    assert res.returncode == 0, res.stderr
    assert "Reading" in res.stderr and "100%" in res.stderr
    assert res.stdout.startswith("rank,")
    piped = kscore("leaderboard", results, "--format", "csv")
    assert "Reading" not in piped.stderr
    quiet = kscore("leaderboard", results, "--format", "csv", "--progress", "--quiet")
    assert quiet.stderr == ""


def test_ctrl_c_as_the_temporary_file_is_made_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A KeyboardInterrupt the moment the temporary file exists (here: as
    its descriptor is closed) leaves no file beside the output (with
    ``tempfile.mkstemp`` outside the cleanup, one landing as it returned
    left a ``.curves.png.*.tmp``: tests/test_interrupt.py, plotting phase)."""
    from kscore.cli import _write

    real_close = os.close
    calls = []

    def close(fd: int) -> None:
        real_close(fd)
        calls.append(fd)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "close", close)  # (the module _write calls it through)
    with pytest.raises(KeyboardInterrupt):
        with _write.atomic_path(tmp_path / "board.txt"):
            pass
    assert calls and list(tmp_path.iterdir()) == []
