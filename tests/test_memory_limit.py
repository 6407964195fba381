"""``memory_limit`` / ``--memory-limit``: DuckDB's memory limit for the
read, spilling to a folder kscore makes and removes (on success, on an error,
and on Ctrl-C: tests/test_interrupt.py). A tiny limit on a small board
spills, and the board is the same, byte for byte in CSV, as without it
(docs/leaderboard.md, *Bounded memory*)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")
pytest.importorskip("rich")

from kscore.leaderboard import LeaderboardError, leaderboard  # noqa: E402
from kscore.leaderboard.read.session import memory_size  # noqa: E402
from kscore.present.formats import render_leaderboard  # noqa: E402
from tests.test_hostile_files import fails, kscore  # noqa: E402

#: Limits tried from the smallest: the first that is not too small for the
#: engine's own buffers (which grow with its threads) must spill this board.
LIMITS = ["40MB", "56MB", "80MB", "112MB"]


@pytest.fixture(scope="module")
def board_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """1.2M rows, 600 000 (model, question) cells: some 60 MB of hash table."""
    path = tmp_path_factory.mktemp("memory") / "results.parquet"
    duckdb.sql("COPY (SELECT 'm' || (i // 12000) AS model, 'q' || ((i // 2) % 6000) AS question, i % 2 AS sample, "
               f"CAST(hash(i) % 3 = 0 AS INTEGER) AS correct FROM range(1200000) t(i)) TO '{path}'")
    return path


@pytest.fixture
def own_tmpdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """TMPDIR for the run (tempfile reads it once: its cache is reset)."""
    import tempfile

    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return folder


def test_tiny_limit_spills_and_gives_the_same_board(board_file: Path, own_tmpdir: Path) -> None:
    want = render_leaderboard(leaderboard(board_file), "csv")
    for limit in LIMITS:
        try:
            board = leaderboard(board_file, memory_limit=limit)
        except LeaderboardError as exc:
            assert "Out of Memory" in str(exc) and f"--memory-limit {limit}" in str(exc), exc
            assert not list(own_tmpdir.iterdir())  # removed after the error too
            continue
        assert board.notes == [f"the read spilled to disk under --memory-limit {limit}"]
        assert render_leaderboard(board, "csv") == want
        assert not list(own_tmpdir.iterdir())
        return
    pytest.fail(f"every limit of {LIMITS} was too small")


def test_no_spill_folder_is_left_and_none_in_the_current_folder(board_file: Path, own_tmpdir: Path,
                                                                 tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                                 ) -> None:
    """Without a limit nothing spills here, and DuckDB's default spill folder
    (``.tmp`` in the current folder) is never used."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    board = leaderboard(board_file)
    assert not board.notes
    assert not list(own_tmpdir.iterdir()) and not list(work.iterdir())


@pytest.mark.parametrize(("given", "want"), [("512MB", "512MB"), (" 1.5 GiB ", "1.5GiB"), ("2gb", "2gb"),
                                             (10**9, "1000000000B")])
def test_memory_sizes(given: str | int, want: str) -> None:
    assert memory_size(given) == want


@pytest.mark.parametrize("bad", ["lots", "512", "-1GB", "0MB", "1 XB", "50%"])
def test_bad_memory_limit_is_one_line(bad: str, tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text("model,question,correct\na,q,1\n", encoding="utf-8")
    fails(kscore("leaderboard", path, f"--memory-limit={bad}", watch=tmp_path), "--memory-limit", repr(bad))


def test_too_small_a_limit_is_one_line(board_file: Path, own_tmpdir: Path) -> None:
    line = fails(kscore("leaderboard", board_file, "--memory-limit", "1MB"))
    assert "Out of Memory" in line and "--memory-limit 1MB" in line, line
    assert not list(own_tmpdir.iterdir())


def test_the_memory_limit_reaches_duckdb(board_file: Path) -> None:
    from kscore.leaderboard.read.session import connect, spill_folder

    with spill_folder(memory_size("300MB")) as spill:
        con: object = connect(spill)
        limit, folder = con.sql(  # type: ignore[attr-defined]
            "SELECT current_setting('memory_limit'), current_setting('temp_directory')").fetchall()[0]
        con.close()  # type: ignore[attr-defined]
    assert limit == "286.1 MiB" and folder == str(spill.path), (limit, folder)
    assert not os.path.exists(spill.path.parent)


def test_count_takes_the_limit_too(board_file: Path, own_tmpdir: Path) -> None:
    """``kscore count --memory-limit`` (``count(memory_limit=)``): the counts
    table of a spilled read equals the one read without a limit."""
    from kscore.leaderboard import count
    from kscore.leaderboard._issues import Issues

    want = count(board_file).to_arrow()
    for limit in LIMITS:
        issues = Issues()
        try:
            got = count(board_file, memory_limit=limit, issues=issues)
        except LeaderboardError:
            continue
        assert issues.notes == [f"the read spilled to disk under --memory-limit {limit}"]
        assert got.to_arrow().equals(want)
        assert not list(own_tmpdir.iterdir())
        return
    pytest.fail(f"every limit of {LIMITS} was too small")
