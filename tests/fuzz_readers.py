"""Fuzzing every reader of ``kscore leaderboard`` (issue 29).

Two kinds of input, both drawn by hypothesis (so that a seed and an example
budget replay the same inputs):

* **structure-aware**: a long-format table of odd ids (quotes, separators,
  newlines, numbers that look alike, non-ASCII), outcome spellings (good and
  bad) and headers as people write them, written as CSV (comma, semicolon,
  tab, bar), TSV, gzip CSV, JSON Lines or Parquet; and ``.npy``/``.npz``
  arrays of every dtype and shape.
* **byte-level**: the real tools' fixtures (tests/data/formats: inspect_ai
  logs, human-eval and evalplus results, lm-eval samples, lighteval details)
  and one file of each long format, with bytes flipped, cut, repeated,
  deleted or replaced by tokens that matter to a parser (quotes, separators,
  line ends, a BOM, NaN, huge numbers).

Each input runs the real command (``kscore.cli.main``) in a worker process
that is killed past a time limit (a hang). The outcome must be a board, or
one line ``kscore: error: ...`` naming the file (never the catch-all that
asks for KSCORE_DEBUG, never a traceback), and where the file still parses
its board must be the board of the same file re-read another way: Python's
``csv``/``json`` modules, pyarrow's Parquet reader or numpy (for generated
tables, the table as written). A difference is a finding, saved with the
input under the findings folder.

The long run: ``python scripts/fuzz_readers.py --minutes 25`` (docs:
CONTRIBUTING.md, *Fuzzing*); the replay in CI: tests/test_fuzz_readers.py.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import multiprocessing as mp
import shutil
import tempfile
import time
import traceback
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import strategies as st

DATA = Path(__file__).resolve().parent / "data" / "formats"
#: Seconds one input may take before it counts as a hang (tiny inputs take
#: 0.05 s; a loaded 2-core machine is given a wide margin).
HANG_S = 30.0

# ------------------------------------------------------------------ structure-aware tables

IDS = ["alpha", "b,eta", 'g"amma', "d;elta", "tab\tbed", "new\nline", "cr\rret", " padded ", "ünï", "7", "07",
       "7.0", "1e3", "NULL", "null", "NaN", "true", "#hash", "-", "'q'", "x" * 300, "\\", "a|b", "=1+1"]
OUTCOMES = ["0", "1", "1", "0", "true", "False", " yes ", "no", "T", "0.5", "-1", "2", "NaN", "inf", "", "null",
            "1.0", "1e0", "+1", "-0", "x", "01", " 1", "1 "]
SPELLINGS = {
    "model": ["model", "Model", "Model Name", "model-name", "MODEL_ID", "system"],
    "question": ["question", "Question ID", "question-id", "task_id", "QID", "Problem"],
    "sample": ["sample", "Sample Idx", "attempt", "seed"],
    "outcome": ["correct", "Is Correct", "is-correct", "passed", "Score", "reward"],
}
LONG_KINDS = ["csv", "csv;", "csv\t", "csv|", "tsv", "csv.gz", "csv;.zst", "jsonl", "parquet"]


@dataclass
class Table:
    """A generated long-format table: header (by role) and rows of text (or
    None for a missing value, JSON null)."""

    header: dict[str, str]
    rows: list[dict[str, str | None]]
    kind: str


@st.composite
def tables(draw: st.DrawFn) -> Table:
    roles = ["model", "question", "outcome"] + (["sample"] if draw(st.booleans()) else [])
    header = {r: draw(st.sampled_from(SPELLINGS[r])) for r in roles}
    order = draw(st.permutations(roles))
    header = {r: header[r] for r in order}
    n = draw(st.integers(1, 30))
    text = st.one_of(st.sampled_from(IDS), st.text(min_size=0, max_size=8))
    rows = []
    models = draw(st.lists(text, min_size=1, max_size=3))
    questions = draw(st.lists(text, min_size=1, max_size=4))
    for _ in range(n):
        row: dict[str, str | None] = {
            "model": draw(st.sampled_from(models)), "question": draw(st.sampled_from(questions)),
            "outcome": draw(st.sampled_from(OUTCOMES)),
        }
        if "sample" in roles:
            row["sample"] = draw(st.sampled_from(["0", "1", "2", "3", "01", "", "-1", "x"]))
        rows.append(row)
    return Table(header, rows, draw(st.sampled_from(LONG_KINDS)))


def _clean(value: str | None) -> str | None:
    # Text files carry no surrogates or NULs (they are not UTF-8 / end a C string).
    if value is None:
        return None
    return value.encode("utf-8", "replace").decode("utf-8").replace("\x00", "")


def write_table(t: Table, folder: Path) -> Path:
    """``t`` written in its kind; returns the path."""
    roles = list(t.header)
    names = [t.header[r] for r in roles]
    rows = [[_clean(r.get(role)) for role in roles] for r in t.rows]
    if t.kind.startswith("csv") or t.kind == "tsv":
        suffix = {"csv.gz": "csv.gz", "tsv": "tsv", "csv;.zst": "csv.zst"}.get(t.kind, "csv")
        delim = {"csv;": ";", "csv\t": "\t", "csv|": "|", "tsv": "\t", "csv;.zst": ";"}.get(t.kind, ",")
        path = folder / f"results.{suffix}"
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter=delim, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        writer.writerow(names)
        writer.writerows([["" if v is None else v for v in row] for row in rows])
        data = buf.getvalue().encode("utf-8")
        if suffix.endswith(".zst"):
            import pyarrow as pa

            with pa.output_stream(str(path), compression="zstd") as fh:
                fh.write(data)
        else:
            path.write_bytes(gzip.compress(data, mtime=0) if suffix.endswith(".gz") else data)
        return path
    if t.kind == "jsonl":
        path = folder / "results.jsonl"
        with open(path, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps(dict(zip(names, row))) + "\n")
        return path
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = folder / "results.parquet"
    pq.write_table(pa.table({n: pa.array([r[i] for r in rows], pa.string()) for i, n in enumerate(names)}), path)
    return path


@st.composite
def arrays(draw: st.DrawFn) -> tuple[str, dict[str, np.ndarray]]:
    dtype = draw(st.sampled_from(["bool", "int8", "uint8", "int64", "float32", "float64", "float16", "complex64",
                                  "U3", "object-free"]))
    ndim = draw(st.sampled_from([0, 1, 2, 2, 2, 3, 4]))
    shape = tuple(draw(st.integers(0, 5)) for _ in range(ndim))
    size = int(np.prod(shape)) if shape else 1
    values = draw(st.lists(st.sampled_from([0.0, 1.0, 1.0, 0.0, 2.0, -1.0, 0.5, math.nan, math.inf]),
                           min_size=size, max_size=size))
    raw = np.array(values, dtype=np.float64).reshape(shape)
    if dtype == "U3":
        a = raw.astype("U3")
    elif dtype == "object-free" or dtype == "bool":
        a = np.nan_to_num(raw) > 0.5
    elif dtype.startswith(("int", "uint")):
        a = np.nan_to_num(raw, posinf=1, neginf=0).astype(dtype)
    else:
        a = raw.astype(dtype)
    many = draw(st.booleans())
    return ("npz" if many else "npy"), ({"m1": a, "m2": a[::-1] if a.ndim else a} if many else {"arr": a})


def write_arrays(kind: str, items: dict[str, np.ndarray], folder: Path) -> Path:
    path = folder / f"model.{kind}"
    if kind == "npy":
        np.save(path, items["arr"])
    else:
        np.savez(path, m1=items["m1"], m2=items["m2"])
    return path


# ------------------------------------------------------------------ byte-level mutation of real files

TOKENS = [b'"', b",", b";", b"\t", b"\n", b"\r\n", b"\r", b"\x00", b"\xef\xbb\xbf", b"\xff", b"NaN", b"-1",
          b"1e400", b"null", b"{", b"}", b"[", b"]", b":", b"\\", b"'", b"#", b" ", b"0", b"1", b"true",
          b"9" * 30, b"\xe9"]


def seeds() -> list[Path]:
    """The files mutated: every fixture a real tool wrote (a folder tool's
    file is mutated inside a copy of its folder) and one file per long format."""
    files = [p for p in sorted(DATA.rglob("*")) if p.is_file() and p.suffix not in (".py",)
             and p.name != "expected.json"]
    return files


def long_seed(kind: str, folder: Path) -> Path:
    rows = [{"model": m, "question": f"q{q}", "sample": str(s), "outcome": str(int((q * 7 + s * 3 + len(m)) % 4 > 0))}
            for m in ("alpha", "beta") for q in range(4) for s in range(3)]
    header = {"model": "model", "question": "question", "sample": "sample", "outcome": "correct"}
    return write_table(Table(header, rows, kind), folder)  # type: ignore[arg-type]


@st.composite
def mutations(draw: st.DrawFn, size: int) -> list[tuple[str, int, int, bytes]]:
    ops = []
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["flip", "delete", "insert", "token", "repeat", "cut", "replace"]))
        at = draw(st.integers(0, max(size - 1, 0)))
        length = draw(st.integers(1, 64))
        blob = draw(st.sampled_from(TOKENS)) if op in ("token", "replace") else draw(st.binary(min_size=1,
                                                                                                 max_size=8))
        ops.append((op, at, length, blob))
    return ops


def mutate(data: bytes, ops: list[tuple[str, int, int, bytes]]) -> bytes:
    b = bytearray(data)
    for op, at, length, blob in ops:
        at = min(at, len(b))
        if op == "flip" and b:
            b[min(at, len(b) - 1)] ^= 1 << (length % 8)
        elif op == "delete":
            del b[at:at + length]
        elif op in ("insert", "token"):
            b[at:at] = blob
        elif op == "repeat":
            b[at:at] = b[at:at + length]
        elif op == "cut":
            del b[at:]
        elif op == "replace":
            b[at:at + len(blob)] = blob
    return bytes(b)


def place_mutated(seed: Path, data: bytes, folder: Path) -> Path:
    """The mutated file where the reader finds it: a file of a tool's folder
    (lm-eval, lighteval, ...) in a copy of that folder, else alone."""
    rel = seed.relative_to(DATA)
    top = rel.parts[0]
    if len(rel.parts) > 1 and top in ("lm_eval", "lighteval"):
        shutil.copytree(DATA / top, folder / top)
        (folder / rel).write_bytes(data)
        return folder / top
    path = folder / seed.name
    path.write_bytes(data)
    return path


# ------------------------------------------------------------------ running one input


@dataclass
class Outcome:
    rc: int
    out: str
    err: str
    seconds: float
    other: str | None = None  # the board re-read another way (CSV), or None
    other_error: str | None = None


def run_kscore(path: str) -> tuple[int, str, str]:
    from kscore.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = main(["leaderboard", path, "--format", "csv"])
        except SystemExit as exc:
            rc = int(exc.code or 0)
        except BaseException:  # noqa: BLE001 - what escapes main() is a finding
            err.write("Traceback (escaped main)\n" + traceback.format_exc())
            rc = -1
    return rc, out.getvalue(), err.getvalue()


def board_csv(source: Any) -> str:
    from kscore.leaderboard import leaderboard
    from kscore.present.formats import render_leaderboard

    return render_leaderboard(leaderboard(source), "csv")


def _text_table(header: list[str], rows: list[list[str | None]]) -> Any:
    import pyarrow as pa

    cols: dict[str, Any] = {}
    for i, name in enumerate(header):
        values = [r[i] for r in rows]
        cols[name] = values
    return pa.table({n: pa.array(v, pa.string()) for n, v in cols.items()})


def _json_text(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v, separators=(",", ":"))
    return str(v)


def reread(path: Path) -> Any:
    """The file read another way, as a table of text (a missing value None),
    or ``None`` where this format has no second reader. Without a model
    column, the file's rows are one model named after the file, as kscore
    names them."""
    table = _reread(path)
    if table is None:
        return None
    from kscore.leaderboard.read.columns import SPELLINGS, find_spelling

    if not any(find_spelling(table.column_names, s) for s in SPELLINGS["model"]):
        table = table.append_column("model", __import__("pyarrow").array([path.name.split(".")[0]] * table.num_rows))
    return table


def _reread(path: Path) -> Any:
    from kscore.leaderboard.read.compressed import open_binary
    from kscore.leaderboard.read.source import format_of, sniff_delimiter

    kind = format_of(path.name) if path.is_file() else None
    if kind in ("csv", "tsv"):
        delim = "\t" if kind == "tsv" else sniff_delimiter(path)
        with io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", newline="") as fh:
            csv.field_size_limit(2**31 - 1)
            rows = list(csv.reader(fh, delimiter=delim, doublequote=True, strict=True))
        header, body = rows[0], [r for r in rows[1:] if r]
        if any(len(r) != len(header) for r in body):
            raise ValueError("ragged rows")
        return _text_table(header, [[v if v != "" else None for v in r] for r in body])
    if kind == "jsonl":
        records = []
        with open(path, encoding="utf-8-sig") as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    if not isinstance(obj, dict):
                        raise ValueError("not an object")
                    records.append(obj)
        names = list(dict.fromkeys(k for r in records for k in r))
        return _text_table(names, [[_json_text(r.get(n)) for n in names] for r in records])
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path)
    if kind in ("npy", "npz"):
        return wide_table(path)
    return None


def wide_table(path: Path) -> Any:
    """An .npy/.npz file as the long-format rows it stands for (model,
    question, sample, outcome; NaN samples left out), by numpy alone."""
    import pyarrow as pa

    loaded = np.load(path, allow_pickle=False)
    items = [(path.name.split(".")[0], loaded)] if isinstance(loaded, np.ndarray) else \
        [(k, loaded[k]) for k in loaded.files]
    models, questions, samples, outcomes = [], [], [], []
    for key, a in items:
        parts = [(key, a)] if a.ndim == 2 else [(f"{'model' if isinstance(loaded, np.ndarray) else key}[{i}]", a[i])
                                                for i in range(a.shape[0])] if a.ndim == 3 else None
        if parts is None or not (np.issubdtype(a.dtype, np.number) or a.dtype == np.bool_) \
                or np.iscomplexobj(a):
            raise ValueError("not a wide array")
        for name, x in parts:
            for (q, s), v in np.ndenumerate(x.astype(np.float64)):
                if not math.isnan(v):
                    models.append(name)
                    questions.append(str(q))
                    samples.append(s)
                    outcomes.append(v)
    return pa.table({"model": models, "question": questions, "sample": pa.array(samples, pa.int64()),
                     "correct": pa.array(outcomes, pa.float64())})


def run_input(path: str, compare: bool) -> Outcome:
    t0 = time.perf_counter()
    rc, out, err = run_kscore(path)
    outcome = Outcome(rc, out, err, time.perf_counter() - t0)
    if compare and rc == 0:
        try:
            table = reread(Path(path))
            if table is not None:
                outcome.other = board_csv(table)
        except Exception as exc:  # noqa: BLE001 - the other reader refused it: noted, not a finding
            outcome.other_error = f"{type(exc).__name__}: {str(exc)[:200]}"
    return outcome


# ------------------------------------------------------------------ a worker process that may hang


def _serve(conn: Any) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        job = conn.recv()
        if job is None:
            return
        conn.send(run_input(*job))


class Worker:
    """Runs inputs in a child process; one that runs past ``HANG_S`` is
    killed (a hang, a finding) and a fresh child started."""

    def __init__(self, hang_s: float = HANG_S) -> None:
        self.hang_s = hang_s
        self._ctx = mp.get_context("spawn")
        self._start()

    def _start(self) -> None:
        self.conn, child = self._ctx.Pipe()
        self.proc = self._ctx.Process(target=_serve, args=(child,), daemon=True)
        self.proc.start()

    def run(self, path: Path, compare: bool) -> Outcome | None:
        """The outcome, or None for a hang (or a crash of the process)."""
        self.conn.send((str(path), compare))
        if self.conn.poll(self.hang_s):
            try:
                result: Outcome = self.conn.recv()
                return result
            except EOFError:
                pass
        self.proc.kill()
        self.proc.join()
        self._start()
        return None

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()


# ------------------------------------------------------------------ judging an outcome


@dataclass
class Tally:
    """What a run saw: inputs by kind and result, and the findings."""

    inputs: int = 0
    boards: int = 0
    refusals: int = 0
    compared: int = 0
    other_refused: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)
    refusals_without_line: int = 0
    #: The refusals that name no line, record, row or byte, by their words
    #: (the file's name taken out): what a reader could not place.
    unplaced: dict[str, int] = field(default_factory=dict)


def judge(path: Path, outcome: Outcome | None, expected: str | None = None) -> str | None:
    """What is wrong with ``outcome`` for the input at ``path`` (None: nothing).
    ``expected``: the board the input must give, where known."""
    if outcome is None:
        return f"hang or crash: more than {HANG_S:.0f} s or the worker died"
    text = outcome.out + outcome.err
    if "Traceback" in text or "KSCORE_DEBUG" in outcome.err:
        return "internal error: " + outcome.err.strip().splitlines()[-1][:300]
    if outcome.rc == 1:
        lines = [ln for ln in outcome.err.splitlines() if ln.startswith("kscore: error:")]
        if len(lines) != 1 or outcome.out:
            return f"refusal not one line: {outcome.err[:300]!r}"
        names = {path.name, str(path), path.parent.name}
        if not any(n in lines[0] for n in names):
            return f"refusal does not name the file: {lines[0][:300]}"
        return None
    if outcome.rc != 0:
        return f"exit status {outcome.rc}: {outcome.err[:300]!r}"
    if expected is not None and outcome.out != expected:
        return f"board differs from the table as written:\n{outcome.out}\n--- expected ---\n{expected}"
    if outcome.other is not None and outcome.out != outcome.other:
        return f"board differs from the file re-read another way:\n{outcome.out}\n--- re-read ---\n{outcome.other}"
    return None


def record(tally: Tally, kind: str, path: Path, outcome: Outcome | None, problem: str | None,
           findings: Path | None) -> None:
    tally.inputs += 1
    tally.by_kind[kind] = tally.by_kind.get(kind, 0) + 1
    if outcome is not None:
        tally.boards += outcome.rc == 0
        tally.refusals += outcome.rc == 1
        tally.compared += outcome.other is not None
        tally.other_refused += outcome.other_error is not None
        if outcome.rc == 1 and not any(w in outcome.err for w in ("line", "record", "row", "byte")):
            tally.refusals_without_line += 1
            text = outcome.err.strip().replace(str(path), "FILE").replace(path.name, "FILE")
            shape = " ".join(w for w in text.removeprefix("kscore: error: ").split()[:6])
            tally.unplaced[shape] = tally.unplaced.get(shape, 0) + 1
    if problem is None:
        return
    tally.findings.append(f"{kind}: {problem.splitlines()[0]}")
    if findings is not None:
        at = findings / f"{len(tally.findings):04d}-{kind.replace('/', '_')}"
        at.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            shutil.copytree(path, at / path.name, dirs_exist_ok=True)
        else:
            shutil.copy(path, at / path.name)
        (at / "problem.txt").write_text(problem + "\n\n" + (outcome.err if outcome else ""), encoding="utf-8")


# ------------------------------------------------------------------ the two hypothesis drivers


def check_generated(worker: Worker, tally: Tally, findings: Path | None) -> Callable[..., None]:
    """A function of one drawn input (a table or arrays) for hypothesis."""

    def check(case: Any) -> None:
        with tempfile.TemporaryDirectory(prefix="kscore-fuzz-") as tmp:
            folder = Path(tmp)
            if isinstance(case, Table):
                path, kind = write_table(case, folder), f"table/{case.kind!r}"
                names = [case.header[r] for r in case.header]
                # An empty field of a text file is missing (DuckDB's NULL); in
                # JSON and Parquet an empty string is a value.
                empty_is_null = case.kind not in ("jsonl", "parquet")
                rows = [[r.get(role) if r.get(role) != "" or not empty_is_null else None for role in case.header]
                        for r in case.rows]
                rows = [[_clean(v) for v in row] for row in rows]
                expected_table: Any = _text_table(names, rows)
            else:
                kind_, items = case
                path, kind = write_arrays(kind_, items, folder), f"arrays/{kind_}"
                expected_table = None
            outcome = worker.run(path, compare=expected_table is None)
            expected = None
            if outcome is not None and outcome.rc == 0 and expected_table is not None:
                try:
                    expected = board_csv(expected_table)
                except Exception as exc:  # noqa: BLE001 - the table as written is refused: the file must be too
                    expected = f"(refused: {exc})"
            record(tally, kind, path, outcome, judge(path, outcome, expected), findings)

    return check


def check_mutated(worker: Worker, tally: Tally, findings: Path | None, seed_files: list[Path],
                  long_dir: Path) -> Callable[..., None]:
    def check(data: st.DataObject) -> None:
        pool = seed_files + sorted(long_dir.iterdir())
        seed = data.draw(st.sampled_from(pool), label="seed")
        original = seed.read_bytes()
        ops = data.draw(mutations(len(original)), label="mutations")
        with tempfile.TemporaryDirectory(prefix="kscore-fuzz-") as tmp:
            if seed.parent == long_dir:
                path = Path(tmp) / seed.name
                path.write_bytes(mutate(original, ops))
            else:
                path = place_mutated(seed, mutate(original, ops), Path(tmp))
            outcome = worker.run(path, compare=True)
            kind = f"mutated/{seed.name if seed.parent == long_dir else seed.relative_to(DATA).parts[0]}"
            record(tally, kind, path, outcome, judge(path, outcome), findings)

    return check


def make_long_seeds(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for kind in ("csv", "csv;", "tsv", "csv.gz", "csv;.zst", "jsonl", "parquet"):
        sub = folder / kind.replace(";", "semi")
        sub.mkdir(exist_ok=True)
        p = long_seed(kind, sub)
        shutil.move(p, folder / (("semi-" if kind == "csv;" else "") + p.name))
        sub.rmdir()
    np.save(folder / "wide.npy", (np.arange(24).reshape(4, 6) % 3 == 0))
    np.savez(folder / "wide.npz", a=(np.arange(24).reshape(4, 6) % 3 == 0), b=np.ones((4, 6)))
    return folder


def run(examples: int, seed: int | None, findings: Path | None, minutes: float | None = None,
        hang_s: float = HANG_S, log: Callable[[str], None] | None = None) -> Tally:
    """Run the three drivers (tables, arrays, mutated files), ``examples``
    inputs each (or until ``minutes`` have passed, in rounds); the tally."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    tally = Tally()
    worker = Worker(hang_s)
    deadline = None if minutes is None else time.monotonic() + 60 * minutes
    try:
        with tempfile.TemporaryDirectory(prefix="kscore-fuzz-seeds-") as tmp:
            long_dir = make_long_seeds(Path(tmp))
            drivers = [
                (st.one_of(tables(), arrays()), check_generated(worker, tally, findings)),
                (st.data(), check_mutated(worker, tally, findings, seeds(), long_dir)),
            ]
            round_ = 0
            while True:
                for strategy, fn in drivers:
                    conf = settings(max_examples=examples, deadline=None, database=None,
                                    suppress_health_check=list(HealthCheck), phases=[Phase.generate],
                                    derandomize=seed is None)
                    test = conf(given(strategy)(fn))
                    if seed is not None:
                        test = hseed(seed + round_)(test)
                    test()
                round_ += 1
                if log is not None:
                    log(f"round {round_}: {tally.inputs} inputs, {len(tally.findings)} findings")
                if deadline is None or time.monotonic() > deadline:
                    break
    finally:
        worker.close()
    return tally
