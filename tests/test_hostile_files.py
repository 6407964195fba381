"""Hostile and careless files given to ``kscore leaderboard``: the command
never crashes, hangs, prints a traceback, gives a wrong number without a
word, changes an input file or leaves a partial output behind.

Every case runs the real command (``kscore.cli.main``, in this process for
speed; as a subprocess where the process itself matters: permissions, a
full standard output, ``python -m kscore``) and checks: an exit status of
1 with one line on stderr starting ``kscore: error:``, no traceback, every
input file unchanged (bytes and mtime) and no file left behind; or, for
valid but odd input, the right numbers (by hand, or kscore.eval on the
equivalent matrix). Each test is named after what it tries.

The hypothesis tests (cuts at random offsets, flipped bytes, random names)
replay ``KSCORE_FUZZ_EXAMPLES`` fixed examples each in CI (default 25); a
long local run explores new ones:
``KSCORE_FUZZ_EXAMPLES=500 python -m pytest tests/test_hostile_files.py -k fuzz``
(CONTRIBUTING.md, *Fuzzing*). Accepted outcome spellings and the messages
are documented in docs/leaderboard.md, *Ragged and dirty data* and *Output*.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kscore.eval as K

if os.name == "nt":
    pytest.skip("POSIX files: permissions, devices, named pipes, links", allow_module_level=True)
pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")
pytest.importorskip("rich")
import pyarrow.parquet as pq  # noqa: E402

from kscore.cli import main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "formats"
HEADER = ["model", "question", "sample", "correct"]
Row = tuple[str, str, int, int]
LONG_FORMATS = ["csv", "tsv", "csv.gz", "csv.zst", "jsonl", "parquet"]
EXAMPLES = int(os.environ.get("KSCORE_FUZZ_EXAMPLES", "25"))
# CI replays the same examples; a long local run (the variable set) explores new ones.
REPLAY = "KSCORE_FUZZ_EXAMPLES" not in os.environ
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=REPLAY)


# ------------------------------------------------------------------ running the command


@dataclass
class Ran:
    rc: int
    out: str
    err: str


def snapshot(folder: Path) -> dict[str, tuple[bytes | None, int, int]]:
    """Every file under ``folder``: its bytes (None when unreadable), mtime and mode."""
    out = {}
    for p in sorted(folder.rglob("*")):
        st_ = p.lstat()
        if stat.S_ISDIR(st_.st_mode):
            continue
        try:
            data = p.read_bytes() if stat.S_ISREG(st_.st_mode) else None
        except OSError:
            data = None
        out[str(p.relative_to(folder))] = (data, st_.st_mtime_ns, st_.st_mode)
    return out


@contextmanager
def unchanged(folder: Path | None, creates: tuple[str, ...] = ()) -> Iterator[None]:
    """The files under ``folder`` are the same after the block, plus ``creates``."""
    before = snapshot(folder) if folder is not None else {}
    yield
    if folder is None:
        return
    after = snapshot(folder)
    extra = sorted(set(after) - set(before) - set(creates))
    assert not extra, f"files left behind: {extra}"
    for name, value in before.items():
        if name not in creates:
            assert after.get(name) == value, f"input file {name} changed"


def kscore(*args: str | Path, watch: Path | None = None, creates: tuple[str, ...] = ()) -> Ran:
    """``kscore ARGS`` in this process; ``watch``: a folder whose files must
    not change (``creates``: the outputs the command may write there)."""
    out, err = io.StringIO(), io.StringIO()
    with unchanged(watch, creates), redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main([str(a) for a in args])
        except SystemExit as exc:  # argparse's usage errors
            rc = int(exc.code or 0)
    ran = Ran(rc, out.getvalue(), err.getvalue())
    assert "Traceback" not in ran.out + ran.err, ran
    return ran


def kscore_process(*args: str | Path, drop_root: bool = False, stdout: Any = subprocess.PIPE) -> Ran:
    """``python -m kscore ARGS`` in a fresh process; ``drop_root``: without
    root's power to read and write any file (setpriv), so that a permission
    is checked as for anyone else."""
    cmd = [sys.executable, "-m", "kscore", *map(str, args)]
    if drop_root and os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: every file is readable")
        cmd = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *cmd]
    res = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, check=False, timeout=120)
    ran = Ran(res.returncode, res.stdout or "", res.stderr)
    assert "Traceback" not in ran.out + ran.err, ran
    return ran


def fails(ran: Ran, *needles: str) -> str:
    """Exit status 1, nothing on stdout, one line on stderr starting like the
    CLI's other errors and containing every needle; never the catch-all
    for internal errors (which asks for KSCORE_DEBUG)."""
    assert ran.rc == 1, ran
    assert "KSCORE_DEBUG" not in ran.err, ran.err
    assert ran.out == "", ran
    lines = ran.err.splitlines()
    assert len(lines) == 1, ran.err
    assert lines[0].startswith("kscore: error: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def ok_or_fails(ran: Ran) -> None:
    """Either a leaderboard or one error line: never anything else."""
    if ran.rc != 0:
        fails(ran)
    else:
        assert ran.out, ran


def board(ran: Ran) -> dict[str, dict[str, str]]:
    """The CSV leaderboard on stdout, by model."""
    assert ran.rc == 0, ran
    return {r["model"]: r for r in csv.DictReader(io.StringIO(ran.out))}


# ------------------------------------------------------------------ data and files


def grid(models: list[str], questions: int = 6, samples: int = 4, seed: int = 5) -> list[Row]:
    rng = np.random.default_rng(seed)
    p = np.linspace(0.2, 0.8, len(models))
    return [
        (m, f"q{q}", s, int(rng.random() < p[i]))
        for i, m in enumerate(models)
        for q in range(questions)
        for s in range(samples)
    ]


def pass1(rows: list[Row]) -> dict[str, float]:
    """pass@1 by hand: each model's mean over questions of its share correct."""
    per: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for m, q, _, v in rows:
        per[m][q].append(v)
    return {m: sum(sum(v) / len(v) for v in qs.values()) / len(qs) for m, qs in per.items()}


def text_rows(rows: Sequence[tuple[Any, ...]], delimiter: str = ",") -> str:
    """CSV (TSV) text, a field quoted where it holds the delimiter, a quote or
    a line break (csv.writer leaves a bare "\\r" unquoted, a line break to
    every reader)."""

    def field(x: Any) -> str:
        t = str(x)
        return '"' + t.replace('"', '""') + '"' if any(c in t for c in f'{delimiter}"\r\n') else t

    return "".join(delimiter.join(map(field, r)) + "\n" for r in [tuple(HEADER), *rows])


def jsonl_rows(rows: list[Row]) -> str:
    return "".join(json.dumps(dict(zip(HEADER, r))) + "\n" for r in rows)


def zstd(data: bytes) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.CompressedOutputStream(sink, "zstd") as f:
        f.write(data)
    return bytes(sink.getvalue().to_pybytes())


def encode(rows: list[Row], fmt: str) -> bytes:
    """``rows`` as the bytes of a ``fmt`` file."""
    if fmt == "parquet":
        buf = pa.BufferOutputStream()
        pq.write_table(pa.table({h: [r[i] for r in rows] for i, h in enumerate(HEADER)}), buf)
        return bytes(buf.getvalue().to_pybytes())
    if fmt == "jsonl":
        return jsonl_rows(rows).encode()
    text = text_rows(rows, "\t" if fmt == "tsv" else ",").encode()
    if fmt == "csv.gz":
        return gzip.compress(text, mtime=0)
    if fmt == "csv.zst":
        return zstd(text)
    return text


def results(folder: Path, rows: list[Row], fmt: str, stem: str = "results") -> Path:
    path = folder / f"{stem}.{fmt}"
    path.write_bytes(encode(rows, fmt))
    return path


ROWS = grid(["alpha", "beta", "gamma"])


# ------------------------------------------------------------------ truncated and corrupt long formats


@pytest.mark.parametrize("fmt", LONG_FORMATS)
def test_zero_length_file(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"results.{fmt}"
    path.write_bytes(b"")
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "empty")


def complete_rows(rows: list[Row], fmt: str, cut: int) -> list[Row]:
    """The rows of a text file cut after ``cut`` bytes whose line is whole
    (the outcome, the last field, is one character: a row cut inside it
    has too few fields or none)."""
    at = len((text_rows([], "\t" if fmt == "tsv" else ",") if fmt != "jsonl" else "").encode())
    kept = []
    for r in rows:
        line = jsonl_rows([r]) if fmt == "jsonl" else text_rows([r], "\t" if fmt == "tsv" else ",").split("\n", 1)[1]
        at += len(line.encode()) - 1  # the line without its newline
        if at <= cut:
            kept.append(r)
        at += 1
    return kept


@FUZZ
@given(fmt=st.sampled_from(LONG_FORMATS), fraction=st.floats(0, 1, exclude_max=True))
def test_fuzz_file_cut_at_a_random_offset(fmt: str, fraction: float) -> None:
    data = encode(ROWS, fmt)
    cut = int(fraction * len(data))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / f"results.{fmt}"
        path.write_bytes(data[:cut])
        ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder)
    if fmt in ("csv.gz", "csv.zst", "parquet"):
        fails(ran, str(path))  # a compressed stream or a Parquet file cut short is never whole
        return
    ok_or_fails(ran)
    if ran.rc == 0:  # the rows before the cut, exactly
        want = pass1(complete_rows(ROWS, fmt, cut))
        got = board(ran)
        assert set(got) == set(want)
        for m, value in want.items():
            assert float(got[m]["pass@1"]) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_file_cut_at_a_row_end_and_inside_a_row(tmp_path: Path, fmt: str) -> None:
    """Cut where a row ends, the file is whole and is read as such; cut inside
    a row, the row is named (line 32: the header is line 1 of a CSV file)."""
    text = encode(ROWS, fmt)
    ends = [i for i, b in enumerate(text) if b == ord("\n")]
    path = tmp_path / f"results.{fmt}"
    path.write_bytes(text[: ends[29 if fmt == "jsonl" else 30]])
    got = board(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path))
    assert float(got["alpha"]["pass@1"]) == pytest.approx(pass1(ROWS[:30])["alpha"], rel=1e-12)
    assert set(got) == {"alpha", "beta"}
    path.write_bytes(text[: ends[30 if fmt == "jsonl" else 31] - 3])
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "line 32" if fmt != "jsonl" else "line 31")


@FUZZ
@given(
    fmt=st.sampled_from(LONG_FORMATS),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=4),
)
def test_fuzz_random_bytes_flipped(fmt: str, flips: list[tuple[float, int]]) -> None:
    data = bytearray(encode(ROWS, fmt))
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / f"results.{fmt}"
        path.write_bytes(bytes(data))
        ok_or_fails(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder))


def wide_bytes(kind: str) -> bytes:
    """A .npy array (questions x samples) or a .npz of two, as bytes."""
    R = (np.random.default_rng(1).random((6, 4)) < 0.5).astype(np.int8)
    buf = io.BytesIO()
    if kind == "npy":
        np.save(buf, R)
    else:
        (np.savez_compressed if kind == "npz-deflated" else np.savez)(buf, a=R, b=1 - R)
    return buf.getvalue()


@FUZZ
@given(
    kind=st.sampled_from(["npy", "npz", "npz-deflated"]),
    cut=st.floats(0, 1, exclude_max=True),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), max_size=3),
)
def test_fuzz_wide_array_file_cut_or_flipped(kind: str, cut: float, flips: list[tuple[float, int]]) -> None:
    """numpy, zipfile, zlib and tokenize raised their own errors on a damaged
    array file (BadZipFile, TokenError, ...), shown as internal errors."""
    data = bytearray(wide_bytes(kind))
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    if not flips:
        data = data[: int(cut * len(data))]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / f"results.{kind.split('-')[0]}"
        path.write_bytes(bytes(data))
        ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder)
    ok_or_fails(ran)


def test_gzip_header_with_a_garbage_body(tmp_path: Path) -> None:
    path = tmp_path / "results.csv.gz"
    path.write_bytes(gzip.compress(b"x")[:10] + bytes(range(256)) * 4)
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "corrupt gzip data")


def test_gzip_with_garbage_after_the_stream(tmp_path: Path) -> None:
    path = tmp_path / "results.csv.gz"
    path.write_bytes(encode(ROWS, "csv.gz") + b"trailing garbage")
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "gzip")


def test_zstd_magic_with_a_garbage_body(tmp_path: Path) -> None:
    path = tmp_path / "results.csv.zst"
    path.write_bytes(encode(ROWS, "csv.zst")[:6] + bytes(range(256)) * 4)
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "zstd")


def test_zstd_of_many_blocks_cut_short_is_refused(tmp_path: Path) -> None:
    """DuckDB read a cut .zst file as the rows before the cut, exit status 0:
    the frame walk refuses it, whatever block the cut falls in."""
    rows = grid([f"model-{i}" for i in range(8)], questions=400, samples=8)
    data = encode(rows, "csv.zst")
    whole = results(tmp_path, rows, "csv.zst", "whole")
    assert float(
        board(kscore("leaderboard", whole, "--format", "csv", "--metric", "pass@1"))["model-3"]["pass@1"]
    ) == pytest.approx(pass1(rows)["model-3"], rel=1e-12)
    for cut in (len(data) - 1, len(data) - 3, len(data) // 2, 20):
        path = tmp_path / "cut.csv.zst"
        path.write_bytes(data[:cut])
        fails(kscore("leaderboard", path, watch=tmp_path), str(path), "truncated or corrupt zstd data")


def test_compression_duckdb_does_not_read_is_refused(tmp_path: Path) -> None:
    import bz2

    path = tmp_path / "results.csv.bz2"
    path.write_bytes(bz2.compress(text_rows(ROWS).encode()))
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "bzip2 files are not read")


def test_csv_named_parquet(tmp_path: Path) -> None:
    path = tmp_path / "results.parquet"
    path.write_text(text_rows(ROWS))
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "not a readable Parquet file")


# ------------------------------------------------------------------ the evaluation tools' formats

TOOL_FILES = {
    "inspect-eval": DATA / "inspect" / "alpha.eval",
    "inspect-json": DATA / "inspect" / "beta.json",
    "inspect-scorers": DATA / "inspect_scorers.eval",
    "humaneval": DATA / "humaneval" / "alpha.jsonl_results.jsonl",
    "evalplus": DATA / "evalplus" / "alpha_eval_results.json",
    "lm_eval": next((DATA / "lm_eval" / "mock__alpha").glob("samples_kscore_gen_*.jsonl")),
    "lighteval": next((DATA / "lighteval").rglob("details_kscore_gen_*.parquet")),
}


@pytest.mark.parametrize("tool", sorted(TOOL_FILES))
def test_tool_file_zero_length(tmp_path: Path, tool: str) -> None:
    path = tmp_path / TOOL_FILES[tool].name
    path.write_bytes(b"")
    fails(kscore("leaderboard", path, watch=tmp_path), str(path))


@FUZZ
@given(tool=st.sampled_from(sorted(TOOL_FILES)), fraction=st.floats(0, 1, exclude_max=True))
def test_fuzz_tool_file_cut_at_a_random_offset(tool: str, fraction: float) -> None:
    data = TOOL_FILES[tool].read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / TOOL_FILES[tool].name
        path.write_bytes(data[: int(fraction * len(data))])
        ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder)
    if tool in ("humaneval", "lm_eval"):
        ok_or_fails(ran)  # JSON Lines cut at a line's end are whole files
    else:
        fails(ran, str(path))


@FUZZ
@given(
    tool=st.sampled_from(sorted(TOOL_FILES)),
    flips=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 7)), min_size=1, max_size=4),
)
def test_fuzz_tool_file_bytes_flipped(tool: str, flips: list[tuple[float, int]]) -> None:
    data = bytearray(TOOL_FILES[tool].read_bytes())
    for where, bit in flips:
        data[int(where * len(data))] ^= 1 << bit
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / TOOL_FILES[tool].name
        path.write_bytes(bytes(data))
        ok_or_fails(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder))


def test_tool_folder_with_an_unknown_file_warns_in_one_line(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    shutil.copytree(DATA / "humaneval", folder)
    (folder / "notes.txt").write_text("not results\n")
    ran = kscore("leaderboard", folder, "--format", "csv", "--metric", "pass@1", watch=tmp_path)
    assert set(board(ran)) == {"alpha", "beta"}
    assert ran.err.splitlines() == [f"kscore: warning: {folder}: skipped 1 unrecognised file(s): notes.txt"]
    ran = kscore("leaderboard", folder, "--strict", watch=tmp_path)
    assert ran.rc == 1 and ran.err.splitlines()[0].startswith("kscore: error: ") and ran.out == ""


# ------------------------------------------------------------------ names, lines and outcomes


@pytest.mark.parametrize("fmt", ["csv", "tsv", "csv.gz", "csv.zst", "jsonl"])
def test_invalid_utf8_in_a_model_name(tmp_path: Path, fmt: str) -> None:
    good = encode(ROWS[:8], fmt.replace(".gz", "").replace(".zst", ""))
    lines = good.split(b"\n")
    lines[3] = lines[3].replace(b"alpha", b"alph\xe9")  # Latin-1, not UTF-8
    data = b"\n".join(lines)
    data = gzip.compress(data) if fmt == "csv.gz" else zstd(data) if fmt == "csv.zst" else data
    path = tmp_path / f"results.{fmt}"
    path.write_bytes(data)
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "invalid UTF-8 at line 4", "byte 0xe9")


ODD_NAMES = [
    "gpt, large",
    'say "hi"',
    "two\nlines",
    "tab\tbed",
    "pipe|name",
    "[/]",
    "[bold]x",
    "esc\x1b[2Jape",
    "  padded  ",
    "ünïcødé ✓",
    "'quoted'",
    "back\\slash",
]


def odd_rows() -> tuple[list[Row], dict[str, np.ndarray]]:
    """Models and questions with odd names, and each model's outcome matrix."""
    rows: list[Row] = []
    mats = {}
    for i, m in enumerate(ODD_NAMES):
        R = (np.add.outer(np.arange(5), np.arange(4)) * (i + 1) % 3 == 0).astype(np.int64)
        mats[m] = R
        rows += [(m, f"{ODD_NAMES[q]} / q{q}", s, int(R[q, s])) for q in range(5) for s in range(4)]
    return rows, mats


@pytest.mark.parametrize("fmt", LONG_FORMATS)
def test_quoted_commas_and_newlines_in_names_are_read_and_shown(tmp_path: Path, fmt: str) -> None:
    rows, mats = odd_rows()
    path = results(tmp_path, rows, fmt)
    got = board(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1,bayes@N", watch=tmp_path))
    assert set(got) == set(ODD_NAMES)
    for m, R in mats.items():
        assert float(got[m]["pass@1"]) == pytest.approx(float(K.pass_at_k(R, 1)), rel=1e-12)
        assert float(got[m]["bayes@N"]) == pytest.approx(float(K.bayes(R)[0]), rel=1e-12)
        assert int(got[m]["questions"]) == 5
    doc = json.loads(kscore("leaderboard", path, "--format", "json", "--metric", "pass@1").out)
    assert {r["model"] for r in doc["models"]} == set(ODD_NAMES)
    for wide in ([], ["--wide"]):  # the compact table, the rich one
        ran = kscore("leaderboard", path, "--metric", "pass@1", *wide)
        assert ran.rc == 0 and all(ch == "\n" or ch.isprintable() for ch in ran.out), ran
        assert "two\\nlines" in ran.out and "esc\\x1b[2Jape" in ran.out and "[bold]x" in ran.out
    md = kscore("leaderboard", path, "--format", "markdown", "--metric", "pass@1").out
    assert all(ch == "\n" or ch.isprintable() for ch in md), md
    assert sum(line.startswith("| ") for line in md.splitlines()) == len(ODD_NAMES) + 2  # the head, its rule
    assert "pipe\\|name" in md and "esc\\x1b" in md
    ran = kscore("compare", "[/]", "two\nlines", path)
    assert ran.rc == 0 and "\\n" in ran.out and "\x1b" not in ran.out, ran


NAME_CHARS = st.characters(exclude_categories=["Cs"])
NAMES = st.text(NAME_CHARS, min_size=1, max_size=10).filter(lambda s: s.strip() == s and s != "")


@FUZZ
@given(
    fmt=st.sampled_from(["csv", "tsv", "jsonl", "parquet"]),
    models=st.lists(NAMES, min_size=1, max_size=4, unique=True),
    questions=st.lists(NAMES, min_size=1, max_size=4, unique=True),
    seed=st.integers(0, 1000),
)
def test_fuzz_random_names_are_read_exactly(fmt: str, models: list[str], questions: list[str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = [(m, q, s, int(rng.random() < 0.5)) for m in models for q in questions for s in range(3)]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = results(folder, rows, fmt)
        ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=folder)
    got = board(ran)
    want = pass1(rows)
    assert set(got) == set(want), ran.err
    for m, value in want.items():
        assert float(got[m]["pass@1"]) == pytest.approx(value, rel=1e-12)
        assert int(got[m]["questions"]) == len(questions)


def test_a_broken_line_in_the_middle_of_a_jsonl_file(tmp_path: Path) -> None:
    lines = jsonl_rows(ROWS).splitlines(keepends=True)
    for broken in ('{"model": "alpha", "question": "q1", "sam\n', "[1, 2]\n", "not json at all\n"):
        path = tmp_path / "results.jsonl"
        path.write_text("".join(lines[:30] + [broken] + lines[30:]))
        fails(kscore("leaderboard", path, watch=tmp_path), str(path), "line 31")


def test_a_broken_row_in_the_middle_of_a_csv_file(tmp_path: Path) -> None:
    lines = text_rows(ROWS).splitlines(keepends=True)
    path = tmp_path / "results.csv"
    path.write_text("".join(lines[:30] + ["alpha,q1\n"] + lines[30:]))
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), "line 31", "expected 4 fields, got 2")


ACCEPTED = {
    "1": 1,
    "0": 0,
    "1.0": 1,
    "0.0": 0,
    "True": 1,
    "False": 0,
    "true": 1,
    "false": 0,
    "TRUE": 1,
    "yes": 1,
    "no": 0,
    "Yes": 1,
    "t": 1,
    "f": 0,
    " 1 ": 1,
    "+1": 1,
    "-0": 0,
    "1e0": 1,
}
REJECTED = ["0.5", "-1", "2", "NaN", "nan", "", "null", "inf", "y", "n", "correct", "1/2"]


def spelled(tmp_path: Path, value: str) -> Path:
    """Model y: q1 right, q2 wrong; model x: q1 spelled ``value`` (line 4), q2 right."""
    path = tmp_path / "spelled.csv"
    path.write_text(text_rows([("y", "q1", 0, 1), ("y", "q2", 0, 0), ("x", "q1", 0, value), ("x", "q2", 0, 1)]))
    return path


@pytest.mark.parametrize("value", sorted(ACCEPTED))
def test_accepted_outcome_spelling(tmp_path: Path, value: str) -> None:
    path = spelled(tmp_path, value)
    ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", "--strict", watch=tmp_path)
    got = board(ran)
    assert ran.err == ""
    assert float(got["x"]["pass@1"]) == (ACCEPTED[value] + 1) / 2 and int(got["x"]["questions"]) == 2


@pytest.mark.parametrize("value", REJECTED)
def test_rejected_outcome_spelling_names_file_line_model_and_question(tmp_path: Path, value: str) -> None:
    path = spelled(tmp_path, value)
    ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path)
    got = board(ran)
    assert float(got["x"]["pass@1"]) == 1.0 and int(got["x"]["questions"]) == 1  # the row is skipped
    shown = "empty" if value == "" else repr(value).lower()  # as read: NaN in a number column is 'nan'
    row = next(line for line in ran.err.splitlines() if "outcome" in line)
    for needle in ("kscore: warning: ", str(path), "line 4", "model 'x'", "question 'q1'", shown, "skipped"):
        assert needle in row.lower() if needle == shown else needle in row, (needle, row)
    strict = kscore("leaderboard", path, "--strict", watch=tmp_path)
    assert strict.rc == 1 and strict.out == ""
    first = strict.err.splitlines()[0]
    for needle in ("kscore: error: ", str(path), "line 4", "model 'x'", "question 'q1'", shown):
        assert needle in first.lower() if needle == shown else needle in first, (needle, first)


JSON_VALUES: dict[str, int | None] = {
    "true": 1,
    "false": 0,
    "1": 1,
    "0": 0,
    "1.0": 1,
    "0.0": 0,
    '"yes"': 1,
    '"no"': 0,
    '"1"': 1,
    "0.5": None,
    "-1": None,
    "2": None,
    "null": None,
    '""': None,
    '"NaN"': None,
}


@pytest.mark.parametrize("value", sorted(JSON_VALUES))
def test_json_outcome_values(tmp_path: Path, value: str) -> None:
    lines = [
        f'{{"model": "{m}", "question": "{q}", "correct": {v}}}'
        for m, q, v in [("y", "q1", "1"), ("y", "q2", "0"), ("x", "q1", value), ("x", "q2", "1")]
    ]
    path = tmp_path / "spelled.jsonl"
    path.write_text("\n".join(lines) + "\n")
    ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path)
    got = board(ran)
    want = JSON_VALUES[value]
    if want is None:
        assert float(got["x"]["pass@1"]) == 1.0 and int(got["x"]["questions"]) == 1
        assert "record 3 (model 'x', question 'q1')" in ran.err, ran.err
    else:
        assert float(got["x"]["pass@1"]) == (want + 1) / 2 and int(got["x"]["questions"]) == 2
        assert ran.err == ""


def test_a_cell_whose_every_outcome_is_bad_is_dropped_and_named(tmp_path: Path) -> None:
    """DuckDB counts only-NULL conditions as NULL: those rows vanished
    without a warning, and the empty cell made the model's metrics n/a."""
    path = tmp_path / "results.csv"
    path.write_text("model,question,correct\na,q1,1\na,q2,0\nb,q1,oops\nb,q2,1\nb,q3,\nb,q3,\n")
    ran = kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path)
    got = board(ran)
    assert float(got["b"]["pass@1"]) == 1.0 and int(got["b"]["questions"]) == 1
    assert "3 rows with a missing or unparsable outcome" in ran.err and "line 4 (model 'b', question 'q1')" in ran.err
    assert "RuntimeWarning" not in ran.err


@pytest.mark.parametrize("flags", [[], ["--model-col", "who", "--question-col", "pid", "--outcome-col", "ok"]])
def test_names_that_look_like_numbers_stay_apart(tmp_path: Path, flags: list[str]) -> None:
    head = "who,pid,ok" if flags else "model,question,correct"
    path = tmp_path / "results.csv"
    path.write_text(f"{head}\n1.0,7,1\n1,7,0\n1.0,7.0,1\n1,7.0,0\n01,7,1\n01,7.0,1\n")
    got = board(kscore("leaderboard", path, *flags, "--format", "csv", "--metric", "pass@1", watch=tmp_path))
    assert {m: (float(r["pass@1"]), int(r["questions"])) for m, r in got.items()} == {
        "1.0": (1.0, 2),
        "1": (0.0, 2),
        "01": (1.0, 2),
    }


def test_bom_crlf_and_no_final_newline(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_bytes(b"\xef\xbb\xbf" + text_rows(ROWS).replace("\n", "\r\n").rstrip("\r\n").encode())
    got = board(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path))
    for m, value in pass1(ROWS).items():
        assert float(got[m]["pass@1"]) == pytest.approx(value, rel=1e-12)


# ------------------------------------------------------------------ paths


def test_a_directory_where_a_file_is_expected(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    fails(kscore("leaderboard", tmp_path / "empty", watch=tmp_path), "no results files", "empty")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "readme.md").write_text("nothing to rank\n")
    fails(kscore("leaderboard", tmp_path / "notes", watch=tmp_path), "no results files")


def test_a_named_pipe_without_a_writer(tmp_path: Path) -> None:
    """Opened, it would block forever; a pipe cannot be read twice anyway."""
    fifo = tmp_path / "results.csv"
    os.mkfifo(fifo)
    with unchanged(tmp_path):
        fails(kscore_process("leaderboard", fifo), str(fifo), "not a regular file")


def test_a_missing_file(tmp_path: Path) -> None:
    fails(kscore("leaderboard", tmp_path / "absent.csv", watch=tmp_path), "no such file", "absent.csv")


def test_a_glob_that_matches_nothing(tmp_path: Path) -> None:
    results(tmp_path, ROWS, "csv")
    fails(kscore("leaderboard", str(tmp_path / "*.parquet"), watch=tmp_path), "no files match")


def test_a_file_named_like_a_glob(tmp_path: Path) -> None:
    path = results(tmp_path, ROWS, "csv", "runs[2]")
    got = board(kscore("leaderboard", path, "--format", "csv", "--metric", "pass@1", watch=tmp_path))
    assert float(got["beta"]["pass@1"]) == pytest.approx(pass1(ROWS)["beta"], rel=1e-12)


@pytest.mark.parametrize("how", ["file", "directory", "glob"])
def test_a_file_without_read_permission(tmp_path: Path, how: str) -> None:
    folder = tmp_path / "runs"
    folder.mkdir()
    results(folder, ROWS, "csv", "a")
    locked = results(folder, ROWS, "csv", "b")
    locked.chmod(0)
    os.chmod(tmp_path, 0o755)  # the unprivileged process may enter the folders
    target = {"file": locked, "directory": folder, "glob": folder / "*.csv"}[how]
    try:
        with unchanged(tmp_path):
            fails(
                kscore_process("leaderboard", target, drop_root=True), "cannot read", str(locked), "permission denied"
            )
    finally:
        locked.chmod(0o644)


@pytest.mark.parametrize("flag", ["--output", "--plot"])
def test_output_that_is_the_input_or_a_link_to_it(tmp_path: Path, flag: str) -> None:
    path = results(tmp_path, ROWS, "csv")
    (tmp_path / "link.csv").symlink_to(path)
    for out in (path, tmp_path / "link.csv"):
        fails(kscore("leaderboard", path, flag, out, watch=tmp_path), flag, "is the input file", "refusing")


@pytest.mark.parametrize("flag", ["--output", "--plot"])
def test_output_in_a_directory_that_does_not_exist(tmp_path: Path, flag: str) -> None:
    path = results(tmp_path, ROWS, "csv")
    fails(
        kscore("leaderboard", path, flag, tmp_path / "nowhere" / "out.png", watch=tmp_path),
        "cannot write",
        "no such directory",
    )


def test_output_with_the_longest_file_name(tmp_path: Path) -> None:
    """The temporary file beside it took the name plus a prefix and suffix:
    too long a name where the output's own was allowed."""
    path = results(tmp_path, ROWS, "csv")
    name = "b" * 251 + ".csv"
    ran = kscore("leaderboard", path, "--format", "csv", "-o", tmp_path / name, watch=tmp_path, creates=(name,))
    assert ran.rc == 0 and (tmp_path / name).read_text().startswith("rank,"), ran


def test_output_through_a_dangling_link(tmp_path: Path) -> None:
    path = results(tmp_path, ROWS, "csv")
    (tmp_path / "board.csv").symlink_to(tmp_path / "gone" / "board.csv")
    fails(kscore("leaderboard", path, "-o", tmp_path / "board.csv", watch=tmp_path), "no such directory", "gone")


def test_output_that_is_a_directory(tmp_path: Path) -> None:
    path = results(tmp_path, ROWS, "csv")
    (tmp_path / "out").mkdir()
    fails(kscore("leaderboard", path, "-o", tmp_path / "out", watch=tmp_path), "cannot write", "is a directory")


def test_output_in_a_directory_that_is_not_writable(tmp_path: Path) -> None:
    path = results(tmp_path, ROWS, "csv")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    os.chmod(tmp_path, 0o755)
    try:
        with unchanged(tmp_path):
            fails(
                kscore_process("leaderboard", path, "-o", locked / "board.csv", drop_root=True),
                "cannot write",
                "permission denied",
            )
    finally:
        locked.chmod(0o755)


def device(tmp_path: Path, name: str) -> Path:
    """``/dev/<name>``, or as root a copy of its device node in ``tmp_path``:
    root may replace the real one, which a regression must not do."""
    real = Path("/dev") / name
    if os.geteuid() != 0:
        return real
    copy = tmp_path / name
    try:
        os.mknod(copy, 0o666 | stat.S_IFCHR, os.stat(real).st_rdev)
        with open(copy, "wb"):
            pass
    except OSError:
        pytest.skip(f"cannot make a copy of /dev/{name} here")
    return copy


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_output_to_dev_full(tmp_path: Path, fmt: str) -> None:
    """As root the atomic rename replaced the device node with a regular file."""
    (tmp_path / "in").mkdir()
    path = results(tmp_path / "in", ROWS, "csv")
    full = device(tmp_path, "full")
    with unchanged(path.parent):
        fails(kscore("leaderboard", path, "--format", fmt, "-o", full), "cannot write", "No space left on device")
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_output_to_dev_null_and_through_a_link(tmp_path: Path) -> None:
    path = results(tmp_path, ROWS, "csv")
    null = device(tmp_path, "null")
    assert kscore("leaderboard", path, "--format", "json", "-o", null).rc == 0
    assert stat.S_ISCHR(os.stat(null).st_mode)
    target = tmp_path / "board.json"
    target.write_text("old\n")
    (tmp_path / "latest.json").symlink_to(target)
    assert kscore("leaderboard", path, "-o", tmp_path / "latest.json", "--metric", "pass@1").rc == 0
    assert (tmp_path / "latest.json").is_symlink() and json.loads(target.read_text())["models"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_standard_output_is_full(tmp_path: Path, fmt: str) -> None:
    path = results(tmp_path, ROWS, "csv")
    with open("/dev/full", "w") as full, unchanged(tmp_path):
        fails(kscore_process("leaderboard", path, "--format", fmt, stdout=full), "No space left on device")


@pytest.mark.parametrize("case", ["cut gzip", "bad utf-8", "missing", "all outcomes bad"])
def test_compare_on_a_hostile_file(tmp_path: Path, case: str) -> None:
    path = tmp_path / ("results.csv.gz" if case == "cut gzip" else "results.csv")
    if case == "cut gzip":
        path.write_bytes(encode(ROWS, "csv.gz")[:-9])
    elif case == "bad utf-8":
        path.write_bytes(text_rows(ROWS).replace("beta", "b\udce9ta").encode("utf-8", "surrogateescape"))
    elif case == "all outcomes bad":
        path.write_text(text_rows([(m, q, s, "?") for m, q, s, _ in ROWS]))
    fails(kscore("compare", "alpha", "beta", path, watch=tmp_path), str(path))


def test_a_line_longer_than_the_reader_takes(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text(text_rows([("alpha", "q" * 3_000_000, 0, 1), *ROWS]))
    fails(kscore("leaderboard", path, watch=tmp_path), str(path))


def test_python_m_kscore_on_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "results.csv.gz"
    path.write_bytes(encode(ROWS, "csv.gz")[:-20])
    with unchanged(tmp_path):
        fails(kscore_process("leaderboard", path), str(path), "truncated or corrupt gzip data")


def test_no_nan_or_inf_in_a_board_from_odd_but_valid_rows(tmp_path: Path) -> None:
    """Ragged, missing questions, one sample: every number is finite or empty."""
    rows = ROWS[:-5] + [("delta", "q0", 0, 1)]
    path = results(tmp_path, rows, "csv")
    ran = kscore("leaderboard", path, "--format", "csv", watch=tmp_path)
    for r in board(ran).values():
        for key, value in r.items():
            if value and key not in ("rank", "model"):
                assert math.isfinite(float(value)), (key, value)


@pytest.mark.parametrize("suffix, header", [
    ("csv", "model,question,correct,correct"),       # the outcome column twice
    ("tsv", "model\tquestion\tcorrect\tModel"),       # the model column twice, in another case
    ("csv.gz", "question,model,correct,question"),   # compressed, the question column twice
])
def test_duplicated_header_column_is_refused(tmp_path: Path, suffix: str, header: str) -> None:
    """A header naming a column twice: DuckDB renames the second copy, so the
    leaderboard would read the first without a word. Refused in one line
    naming the file, the column and both positions; the file is unchanged."""
    sep = "\t" if suffix == "tsv" else ","
    body = "\n".join(sep.join(row) for row in [["a", "1", "1", "0"], ["b", "1", "0", "1"]]) + "\n"
    data = (header + "\n" + body).encode()
    path = tmp_path / f"results.{suffix}"
    path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
    names = header.split(sep)
    second, twice = next((i, n) for i, n in enumerate(names) if n.lower() in [m.lower() for m in names[:i]])
    first = [m.lower() for m in names].index(twice.lower())
    line = fails(kscore("leaderboard", path, watch=tmp_path), str(path), f"column '{twice}' twice")
    assert f"(columns {first + 1} and {second + 1})" in line


def test_distinct_header_columns_alike_are_read(tmp_path: Path) -> None:
    """Names that only look alike (``correct`` and ``correct_1``) are two
    columns: read as usual."""
    path = tmp_path / "results.csv"
    path.write_text("model,question,correct,correct_1\na,1,1,0\na,2,0,1\nb,1,1,1\nb,2,0,0\n")
    ran = kscore("leaderboard", path, "--format", "csv", watch=tmp_path)
    assert ran.rc == 0, ran
    assert board(ran)["a"]["pass@1"] == "0.5"


# ------------------------------------------------------------------ files as people write them (issue 29)

PEOPLE_ROWS = [(m, q, s, int((hash((m, q, s)) ^ 5) % 3 != 0)) for m in ("alpha", "b,eta") for q in ("7", "07", "q 3")
               for s in range(3)]
MACHINE_HEADER = ["model", "question_id", "sample_idx", "is_correct"]


def _write_delimited(path: Path, header: list[str], rows: Sequence[Row], delimiter: str, quote_header: bool = False,
                     open_: Any = open) -> None:
    with open_(path, "wt", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, delimiter=delimiter, lineterminator="\n")
        if quote_header:
            fh.write(delimiter.join(f'"{h}"' for h in header) + "\n")
        else:
            writer.writerow(header)
        writer.writerows(rows)


@pytest.mark.parametrize(("delimiter", "header", "quote_header", "suffix"), [
    (";", MACHINE_HEADER, False, "csv"),
    (";", ["Model", "Question ID", "Sample Idx", "Is Correct"], True, "csv"),
    (";", ["Model", "Question ID", "Sample Idx", "Is Correct"], False, "csv.gz"),
    (";", ["Model", "Question ID", "Sample Idx", "Is Correct"], False, "csv.zst"),
    (",", ["Model Name", "Question ID", "Sample Index", "Is Correct"], False, "csv"),
    (",", ["model-name", "question-id", "sample-idx", "is-correct"], False, "csv"),
    (",", [" MODEL_NAME ", "QuestionId", "SAMPLE_IDX", "IsCorrect"], False, "csv"),
    ("\t", ["Model Name", "Question ID", "Sample Idx", "Is Correct"], False, "csv"),
    ("|", MACHINE_HEADER, False, "txt"),
    ("\t", ["Model Name", "Question ID", "Sample Idx", "Is Correct"], False, "tsv"),
])
def test_people_files_read_as_their_machine_twin(tmp_path: Path, delimiter: str, header: list[str],
                                                 quote_header: bool, suffix: str) -> None:
    """A semicolon- (tab-, bar-) separated export and headers written for
    people read as the comma-separated, machine-named file: the same board,
    byte for byte, ids that look like numbers ('7', '07') kept apart."""
    twin = tmp_path / "twin.csv"
    _write_delimited(twin, MACHINE_HEADER, PEOPLE_ROWS, ",")
    people = tmp_path / f"people.{suffix}"
    _write_delimited(people, header, PEOPLE_ROWS, delimiter, quote_header,
                     gzip.open if suffix.endswith(".gz") else open)
    if suffix.endswith(".zst"):
        data = people.read_bytes()
        with pa.output_stream(str(people), compression="zstd") as fh:
            fh.write(data)
    want = kscore("leaderboard", twin, "--format", "csv", "--quiet")
    got = kscore("leaderboard", people, "--format", "csv", "--quiet", watch=tmp_path)
    assert got.rc == 0 and want.rc == 0, (got, want)
    assert got.out == want.out
    assert {r["questions"] for r in board(got).values()} == {"3"}  # '7', '07' and 'q 3'


def test_semicolon_file_with_decimal_commas_is_not_comma_separated(tmp_path: Path) -> None:
    """The header decides the separator: a ``0,5`` in a row of a
    semicolon-separated file is a value (a fraction: skipped with a warning
    naming it), not two fields."""
    path = tmp_path / "export.csv"
    path.write_text("Model;Question;Score\na;q1;1\na;q2;0,5\na;q3;0\n", encoding="utf-8")
    ran = kscore("leaderboard", path, "--format", "csv")
    assert board(ran)["a"]["questions"] == "2"
    assert "line 3" in ran.err and "'0,5'" in ran.err, ran.err


def test_files_separated_differently_are_refused(tmp_path: Path) -> None:
    _write_delimited(tmp_path / "a.csv", MACHINE_HEADER, PEOPLE_ROWS[:9], ",")
    _write_delimited(tmp_path / "b.csv", MACHINE_HEADER, PEOPLE_ROWS[9:], ";")
    fails(kscore("leaderboard", tmp_path, "--format", "csv"), "a.csv", "b.csv", "';'")


def test_question_id_longer_than_python_csv_field_limit(tmp_path: Path) -> None:
    """A question id past Python's csv field limit (131 072 characters): read,
    and where another row is malformed, that row is named (never "field
    larger than field limit"); a line past DuckDB's line limit is named."""
    long_id = "x" * 200_000
    good = [("a", long_id, 0, 1), ("a", "q2", 0, 0), ("b", long_id, 0, 0), ("b", "q2", 0, 0)]
    path = tmp_path / "long.csv"
    _write_delimited(path, HEADER, good, ",")
    got = board(kscore("leaderboard", path, "--format", "csv", "--quiet"))
    assert got["a"]["pass@1"] == "0.5" and got["b"]["pass@1"] == "0.0"
    # Past the sniffer's sample (20 480 rows), so that the read, not the sniffer, meets the bad row.
    filler = [("a", f"f{i}", 0, 1) for i in range(25_000)]
    with open(path, "a", encoding="utf-8") as fh:
        fh.writelines(f"{m},{q},{s},{c}\n" for m, q, s, c in filler)
        fh.write("a,q9,0,1,extra\n")
    fails(kscore("leaderboard", path, watch=tmp_path), str(path), f"line {len(good) + len(filler) + 2}",
          "expected 4 fields, got 5")
    huge = tmp_path / "huge.csv"
    _write_delimited(huge, HEADER, [*good, ("a", "y" * 3_000_000, 0, 1)], ",")
    line = fails(kscore("leaderboard", huge, watch=tmp_path), str(huge), f"line {len(good) + 2}")
    assert "field limit" not in line
    packed = tmp_path / "huge.csv.zst"  # a stream without readline
    with pa.output_stream(str(packed), compression="zstd") as fh:
        fh.write(huge.read_bytes())
    fails(kscore("leaderboard", packed, watch=tmp_path), str(packed), f"line {len(good) + 2}", "longer than")
