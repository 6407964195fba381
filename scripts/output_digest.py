"""Every output of every format, for byte-identity checks (issue 34).

Renders, for each of a list of boards, every output kscore makes: the
command line's default (compact) table and its ``--wide`` rich table (to a
file and to standard output), ``--format csv/json/markdown/html``, the
plots (``--plot``/``--plot-intervals``, PNG and SVG), ``--pairwise`` and
``--pairwise-output`` (CSV and JSON Lines), ``--plan``, ``--adjust
holm/simultaneous``, ``--interval posterior/wilson``, ``--by`` groups,
``--cluster``, graded outcomes, ``--top``, ``kscore compare``, ``kscore
plan`` and ``kscore count``; and from Python, the Arrow/pandas/polars
conversions of the Leaderboard and of its Counts (written as their content:
schema and values, so that a new library version's byte layout does not
count) and the renderers of ``kscore.present`` (text, Markdown, HTML).
Each command's standard error (notes, warnings, errors) and exit status is
kept too, under ``<name>.stderr``.

Boards (made once into ``--work``, then reused, so that two runs read the
same bytes):

* ``sample``: the shipped sample (python/kscore/data/sample_results.csv.gz,
  as the command line reads it without FILE);
* ``models``: a 10 000-model board as benches/bench_models.py makes it
  (10 000 models x 100 questions x 4 samples, Parquet);
* ``ragged``: a small CSV board with models missing questions, ragged
  samples per question, a ``subject`` (``--by``) and a ``passage``
  (``--cluster``) column, graded outcomes (``grade``: 0, 1, 2) and model
  names with commas, quotes, pipes, brackets, non-ASCII letters and a
  terminal escape;
* ``models100k`` (only when named in ``--boards``): benches/bench_models.py's
  100 000 models x 20 questions x 4 samples (Parquet), the formats of the
  command (table, CSV, JSON, Markdown, HTML, ``--top``; not the wide table:
  rich lays 100 000 rows out in minutes);
* ``rows100m`` (only with ``--rows100m``: writing it takes minutes and
  some 1 GB): benches/bench_rows.py's 100 models x 100 000 questions x 10
  samples, the formats that scale (table, CSV, JSON, Markdown, HTML,
  pairwise output, plan).

Run (from the repository root; the interpreter decides which kscore is
rendered)::

    python scripts/output_digest.py /tmp/out-before            # sample, models, ragged
    python scripts/output_digest.py /tmp/out-after --boards sample,ragged
    python scripts/output_digest.py --compare /tmp/out-before /tmp/out-after

The folder holds ``<board>/<output>`` files and ``DIGEST.txt``: one line per
file, ``sha256 size path``. ``--compare A B`` compares the two digests and
prints, for each file that differs, the first lines that differ; exit
status 0 when every file present in both is equal and none is missing.

Plots: the SVG is written with a fixed hash salt and no date and the PNG
by Agg with no date, so both are byte-deterministic for one matplotlib
and one font set (the script renders each plot twice and marks a plot
whose two renderings differ as ``nondeterministic`` in the digest, where
``--compare`` reports it apart); PDF is left out (its bytes hold an id made
from the time).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import io
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_BOARDS = "sample,models,ragged"

# ---------------------------------------------------------------------------------------------- boards


#: Where the boards are kept (``--work``).
WORK = Path("/tmp/kscore-digest-boards")


def sample_path() -> Path:
    """The shipped sample of the kscore being rendered, copied into
    :data:`WORK` (its path is the board's title: the same in every run)."""
    import kscore

    path = WORK / "sample_results.csv.gz"
    shipped = Path(kscore.__file__).parent / "data" / "sample_results.csv.gz"
    if not path.exists() or path.read_bytes() != shipped.read_bytes():
        shutil.copyfile(shipped, path)
    return path


def make_models(work: Path) -> tuple[Path, list[str]]:
    """benches/bench_models.py's 10 000-model board (its own generator, seed
    0) and its models' names."""
    import numpy as np

    sys.path.insert(0, str(ROOT / "benches"))
    from bench_models import model_names, write_board

    path = work / "board_10000x100x4.parquet"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        write_board(tmp, 10_000, 100, 4)
        tmp.rename(path)
    return path, model_names(10_000, np.random.default_rng(0))


#: Model names of the ragged board: the characters every format must escape or quote.
RAGGED_NAMES = [
    "orion-70b-instruct", "cobalt-34b", "cobalt-34b-preview", "lab,comma \"quoted\" model", "pipe|model_with*md*",
    "[/]bracketed [bold]markup", "modèle-ünïcode-7b", "escape\x1b[31mred-3b", "org/very-long-family-name-70b-"
    "instruct-v2-preview-2026-11", "org/very-long-family-name-70b-instruct-v3-preview-2026-11", "tiny-1b",
    "few-questions-2b", "pico-0.5b", "random-ish",
]


def make_ragged(work: Path) -> Path:
    """A CSV board with every irregularity the outputs must show: models
    missing questions (one answers 40 of 120), 3-8 samples per question,
    subjects and passages, graded outcomes, hostile names (seeded)."""
    import csv

    import numpy as np

    path = work / "ragged.csv"
    if path.exists():
        return path
    rng = np.random.default_rng(34)
    n_q = 120
    subject = [["algebra", "geometry", "proofs", "words, with comma"][q % 4] for q in range(n_q)]
    passage = [f"p{q // 4:02d}" for q in range(n_q)]
    difficulty = rng.normal(0.0, 1.3, n_q)
    ability = np.linspace(1.8, -1.6, len(RAGGED_NAMES)) + rng.normal(0, 0.05, len(RAGGED_NAMES))
    ability[2] = ability[1] + 0.01  # a near tie
    rows: list[list[Any]] = []
    for m, name in enumerate(RAGGED_NAMES):
        for q in range(n_q):
            if name == "few-questions-2b" and q >= 40:
                continue
            if m % 3 == 1 and rng.random() < 0.1:
                continue  # a question this model lacks
            p = 1.0 / (1.0 + math.exp(-(ability[m] - difficulty[q])))
            for s in range(int(rng.integers(3, 9))):
                u = rng.random()
                grade = 2 if u < p else (1 if u < p + (1 - p) * 0.3 else 0)
                rows.append([name, f"q{q:03d}", s, int(grade == 2), grade, subject[q], passage[q]])
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["model", "question_id", "sample", "correct", "grade", "subject", "passage"])
        w.writerows(rows)
    tmp.rename(path)
    return path


def make_models100k(work: Path) -> Path:
    """benches/bench_models.py's 100 000-model board (its own generator, seed 0)."""
    sys.path.insert(0, str(ROOT / "benches"))
    from bench_models import write_board

    path = work / "board_100000x20x4.parquet"
    if not path.exists():
        tmp = path.with_suffix(".tmp")
        write_board(tmp, 100_000, 20, 4)
        tmp.rename(path)
    return path


def make_rows100m(work: Path) -> Path:
    """benches/bench_rows.py's 100M-row board (bench_leaderboard.write_dataset, seed 3)."""
    raw = work / "rows100m" / "raw"
    if not raw.is_dir() or len(list(raw.glob("*.parquet"))) != 100:
        sys.path.insert(0, str(ROOT / "benches"))
        from bench_leaderboard import write_dataset

        write_dataset(raw, 100, 100_000, 10)
    return raw


# ---------------------------------------------------------------------------------------------- runs


class Out:
    """One board's output folder and the runs that fill it."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.times: list[tuple[str, float]] = []

    def path(self, name: str) -> str:
        return str(self.folder / name)

    def cli(self, name: str, argv: list[str], stdout: bool = False) -> None:
        """``kscore ARGV`` in this process; ``{out}`` in ARGV is replaced by
        files named ``name`` + their own suffix. With ``stdout``, standard
        output is kept as ``name``. Standard error and the exit status are
        kept as ``name.stderr``."""
        from kscore.cli import main

        argv = [a.replace("{dir}", str(self.folder)) for a in argv]
        out, err = io.StringIO(), io.StringIO()
        t0 = time.perf_counter()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc: Any = main(argv)
            except SystemExit as exc:  # argparse
                rc = exc.code
        self.times.append((name, time.perf_counter() - t0))
        if stdout:
            (self.folder / name).write_text(out.getvalue(), encoding="utf-8")
        text = err.getvalue()
        if text or rc != 0:
            shown = text.replace(str(self.folder), "{dir}")
            (self.folder / f"{name}.stderr").write_text(f"exit {rc}\n{shown}", encoding="utf-8")

    def text(self, name: str, make: Callable[[], str | bytes]) -> None:
        t0 = time.perf_counter()
        value = make()
        self.times.append((name, time.perf_counter() - t0))
        data = value.encode("utf-8") if isinstance(value, str) else value
        (self.folder / name).write_bytes(data)


def leaderboard_runs(o: Out, files: list[str], *, big: bool = False, plots_top: int | None = None,
                     compare: tuple[str, str] | None = None, extra: list[str] | None = None,
                     simultaneous: bool = True, again: bool = True) -> None:
    """Every leaderboard output of one board (``files``: the CLI's FILE
    arguments, empty for the shipped sample)."""
    L = ["leaderboard", *files, *(extra or [])]
    d = "{dir}/"
    # the default table, the wide table, every --format; to files and to standard output
    o.cli("table.txt", [*L, "-o", d + "table.txt"])
    o.cli("table.stdout.txt", L, stdout=True)
    o.cli("wide.txt", [*L, "--wide", "-o", d + "wide.txt"])
    o.cli("wide.stdout.txt", [*L, "--wide"] + (["--top", "300"] if big else []), stdout=True)
    for suffix in ("csv", "json", "md", "html"):
        o.cli(f"board.{suffix}", [*L, "-o", d + f"board.{suffix}"])
    o.cli("board.stdout.csv", [*L, "--format", "csv"], stdout=True)
    o.cli("board.stdout.json", [*L, "--format", "json"], stdout=True)
    o.cli("board.stdout.md", [*L, "--format", "markdown"], stdout=True)
    o.cli("table.format.txt", [*L, "--format", "table", "-o", d + "table.format.txt"])
    # --top
    for suffix in ("txt", "csv", "json", "md", "html"):
        o.cli(f"top3.{suffix}", [*L, "--top", "3", "-o", d + f"top3.{suffix}"])
    o.cli("top3.wide.txt", [*L, "--top", "3", "--wide", "-o", d + "top3.wide.txt"])
    # --plan in every format that takes it
    for suffix in ("txt", "json", "md", "html"):
        o.cli(f"plan-flag.{suffix}", [*L, "--plan", "-o", d + f"plan-flag.{suffix}"])
    o.cli("plan-flag.wide.txt", [*L, "--plan", "--wide", "--top", "50", "-o", d + "plan-flag.wide.txt"])
    # adjustments of the rank ranges and the other intervals
    variants = [("holm", ["--adjust", "holm"]), ("posterior", ["--interval", "posterior"]),
                ("wilson", ["--interval", "wilson"])]
    if simultaneous:
        variants.insert(1, ("simultaneous", ["--adjust", "simultaneous"]))
    for tag, flags in variants:
        for suffix in ("txt", "csv", "json", "md", "html"):
            o.cli(f"{tag}.{suffix}", [*L, *flags, "-o", d + f"{tag}.{suffix}"])
        if not big or tag == "simultaneous":  # (rich draws 10 000 rows in minutes: the caption's variants only)
            o.cli(f"{tag}.wide.txt", [*L, *flags, "--wide", "-o", d + f"{tag}.wide.txt"])
    o.cli("posterior-holm.txt", [*L, "--interval", "posterior", "--adjust", "holm", "-o", d + "posterior-holm.txt"])
    o.cli("confidence90.txt", [*L, "--confidence", "0.9", "-o", d + "confidence90.txt"])
    o.cli("confidence90.json", [*L, "--confidence", "0.9", "-o", d + "confidence90.json"])
    # metric choices
    metric = ["--metric", "pass@1,pass@k,pass^k,maj@k,g-pass@k_0.5,mg-pass@k,auc@k,max@k,avg@n,cons@n,bayes@N",
              "--k", "1,2", "--sort", "pass@2"]
    for suffix in ("txt", "csv", "json", "md", "html"):
        o.cli(f"metrics.{suffix}", [*L, *metric, "-o", d + f"metrics.{suffix}"])
    if not big:
        o.cli("metrics.wide.txt", [*L, *metric, "--wide", "-o", d + "metrics.wide.txt"])
    # paired comparisons in JSON and streamed (on a big board every pair is 50M rows: the first 300 models' instead)
    for which in (["all"], ["adjacent"], ["top", "3"], ["none"]) if not big else (
            ["adjacent"], ["top", "300"], ["none"]):
        tag = "-".join(which)
        o.cli(f"pairwise-{tag}.json", [*L, "--pairwise", *which, "-o", d + f"pairwise-{tag}.json"])
        o.cli(f"pairs-{tag}.csv", [*L, "--pairwise", *which, "--pairwise-output", d + f"pairs-{tag}.csv",
                                   "-o", d + f"pairs-{tag}.board.csv"])
        o.cli(f"pairs-{tag}.jsonl", [*L, "--pairwise", *which, "--pairwise-output", d + f"pairs-{tag}.jsonl",
                                     "-o", d + f"pairs-{tag}.board.txt"])
    o.cli("pairs-auto.csv", [*L, "--pairwise-output", d + "pairs-auto.csv", "-o", d + "pairs-auto.board.csv"])
    o.cli("pairs-holm.jsonl", [*L, "--adjust", "holm", "--pairwise-output", d + "pairs-holm.jsonl",
                               "-o", d + "pairs-holm.board.csv"])
    # plots (PNG, SVG), each rendered twice (``again``) to check that its bytes are deterministic
    top = ["--top", str(plots_top)] if plots_top else []
    for run in ("", ".again") if again else ("",):
        o.cli(f"curves{run}.png", [*L, *top, "--plot", d + f"curves{run}.png", "-o", d + f"curves{run}.board.txt"])
        o.cli(f"curves{run}.svg", [*L, *top, "--plot", d + f"curves{run}.svg", "-o", d + f"curves{run}.board.txt"])
        o.cli(f"intervals{run}.png", [*L, *top, "--plot-intervals", d + f"intervals{run}.png",
                                      "-o", d + f"intervals{run}.board.txt"])
        o.cli(f"intervals{run}.svg", [*L, *top, "--plot-intervals", d + f"intervals{run}.svg",
                                      "-o", d + f"intervals{run}.board.txt"])
    o.cli("posterior-curves.svg", [*L, *top, "--interval", "posterior", "--plot", d + "posterior-curves.svg",
                                   "--plot-intervals", d + "posterior-intervals.svg", "-o", d + "posterior.plots.txt"])
    # kscore compare and kscore plan
    if compare is not None:
        a, b = compare
        C = ["compare", a, b, *files, *(extra or [])]
        o.cli("compare.txt", [*C, "-o", d + "compare.txt"])
        o.cli("compare.stdout.txt", C, stdout=True)
        for suffix in ("csv", "json", "md"):
            o.cli(f"compare.{suffix}", [*C, "-o", d + f"compare.{suffix}"])
        o.cli("compare-metrics.md", [*C, "--metric", "pass@1,maj@4", "--interval", "posterior",
                                     "-o", d + "compare-metrics.md"])
        o.cli("compare-unknown.txt", ["compare", a, "no-such-model", *files, "-o", d + "compare-unknown.txt"])
        o.cli("compare.html", [*C, "-o", d + "compare.html"])  # (a suffix compare has no format of: Markdown)
        o.cli("compare-format-html.txt", [*C, "--format", "html"], stdout=True)
    P = ["plan", *files[:1], *(extra or [])] if len(files) <= 1 else None
    if P is not None:
        o.cli("plan.txt", [*P, "-o", d + "plan.txt"])
        o.cli("plan.stdout.txt", P, stdout=True)
        o.cli("plan.json", [*P, "-o", d + "plan.json"])
        o.cli("plan.md", [*P, "-o", d + "plan.md"])
        o.cli("plan-power.txt", [*P, "--power", "0.9", "--sort", "pass@1", "-o", d + "plan-power.txt"])
        o.cli("plan.csv", [*P, "-o", d + "plan.csv"])  # (refused: plan writes no CSV)
    if big:  # (refused: every pair of 10 000 models in memory)
        o.cli("pairwise-all-big.json", [*L, "--pairwise", "all", "-o", d + "pairwise-all-big.json"])


def api_runs(o: Out, source: str, tag: str, **kw: Any) -> None:
    """The Python API's conversions and the present/ renderers of ``kscore.leaderboard(source, **kw)``."""
    import kscore
    from kscore.present import render_html, render_markdown, render_text
    from kscore.present.from_leaderboard import board_from_leaderboard, page_board, table_board

    lb = kscore.leaderboard(source, **kw)
    o.text(f"api-{tag}.arrow.txt", lambda: arrow_content(lb.to_arrow()))
    o.text(f"api-{tag}.pandas.txt", lambda: pandas_content(lb.to_pandas()))
    o.text(f"api-{tag}.polars.txt", lambda: polars_content(lb.to_polars()))
    o.text(f"api-{tag}.columns.txt", lambda: content(lb.columns()))
    if lb.by is not None:
        o.text(f"api-{tag}.arrow-groups.txt", lambda: arrow_content(lb.to_arrow(groups=True)))
        o.text(f"api-{tag}.pandas-groups.txt", lambda: pandas_content(lb.to_pandas(groups=True)))
        o.text(f"api-{tag}.polars-groups.txt", lambda: polars_content(lb.to_polars(groups=True)))
    o.text(f"api-{tag}.counts-arrow.txt", lambda: arrow_content(lb.counts.to_arrow()))
    o.text(f"api-{tag}.counts-pandas.txt", lambda: pandas_content(lb.counts.to_pandas()))
    o.text(f"api-{tag}.counts-polars.txt", lambda: polars_content(lb.counts.to_polars()))
    o.text(f"api-{tag}.present-text.txt", lambda: render_text(board_from_leaderboard(lb), width=80))
    o.text(f"api-{tag}.present-text-120.txt", lambda: render_text(board_from_leaderboard(lb), width=120))
    o.text(f"api-{tag}.present-text-wide.txt", lambda: render_text(board_from_leaderboard(lb), wide=True))
    o.text(f"api-{tag}.present-table.md", lambda: render_markdown(table_board(lb)))
    o.text(f"api-{tag}.present-top5.md", lambda: render_markdown(table_board(lb, 5)))
    o.text(f"api-{tag}.present-page.html", lambda: render_html(page_board(lb)))


def content(value: Any) -> str:
    """A value as JSON with every float written exactly (``repr``)."""
    return json.dumps(value, default=repr, indent=1, allow_nan=True) + "\n"


def arrow_content(table: Any) -> str:
    return f"schema:\n{table.schema.to_string(show_schema_metadata=True)}\n" + content(table.to_pydict())


def pandas_content(df: Any) -> str:
    cols = {str(c): [None if isinstance(v, float) and math.isnan(v) else v for v in df[c].tolist()]
            for c in df.columns}
    return f"dtypes:\n{df.dtypes.to_string()}\nindex: {df.index!r}\n" + content(cols)


def polars_content(df: Any) -> str:
    return f"schema: {df.schema!r}\n" + content(df.to_dict(as_series=False))


def count_runs(o: Out, files: list[str], extra: list[str] | None = None) -> None:
    """``kscore count`` to CSV (bytes) and Parquet (content)."""
    import pyarrow.parquet as pq

    d = "{dir}/"
    o.cli("count.csv", ["count", *files, *(extra or []), "-o", d + "count.csv"])
    o.cli("count.parquet", ["count", *files, *(extra or []), "-o", d + "count.parquet"])
    pq_path = o.folder / "count.parquet"
    if pq_path.exists():
        meta = pq.read_metadata(pq_path)
        kv = {k.decode(): v.decode() for k, v in (meta.metadata or {}).items() if k != b"ARROW:schema"}
        table = pq.read_table(pq_path)
        o.text("count.parquet.txt", lambda: arrow_content(table) + content(kv).replace(str(o.folder), "{dir}"))
        pq_path.unlink()


# ---------------------------------------------------------------------------------------------- boards' runs


def run_sample(o: Out) -> None:
    sample = str(sample_path())
    leaderboard_runs(o, [], compare=("cobalt-34b", "cobalt-34b-preview"))
    o.cli("file.txt", ["leaderboard", sample, "-o", "{dir}/file.txt"])
    o.cli("file.json", ["leaderboard", sample, "-o", "{dir}/file.json"])
    o.cli("strict.txt", ["leaderboard", "--strict", "-o", "{dir}/strict.txt"])
    o.cli("quiet.txt", ["leaderboard", "--quiet", "-o", "{dir}/quiet.txt"])
    o.cli("bad-flag.txt", ["leaderboard", "--top", "0", "-o", "{dir}/bad-flag.txt"])
    o.cli("bad-format.txt", ["leaderboard", "--format", "yaml"], stdout=True)
    o.cli("suffix.htm", ["leaderboard", "-o", "{dir}/suffix.htm"])
    o.cli("suffix.markdown", ["leaderboard", "-o", "{dir}/suffix.markdown"])
    o.cli("suffix.unknown", ["leaderboard", "-o", "{dir}/suffix.unknown"])
    for command in ("leaderboard", "compare", "plan", "count"):
        o.cli(f"help-{command}.txt", [command, "--help"], stdout=True)
    o.cli("help.txt", [], stdout=True)
    count_runs(o, [sample])
    api_runs(o, sample, "default")
    api_runs(o, sample, "posterior", interval="posterior", adjust="holm")
    api_runs(o, sample, "simultaneous", adjust="simultaneous", metrics="pass@1,pass@4,bayes@N")


def run_models(o: Out, simultaneous: bool) -> None:
    board, names = make_models(WORK)
    path = str(board)
    leaderboard_runs(o, [path], big=True, plots_top=30, simultaneous=simultaneous, compare=(names[0], names[1]))
    count_runs(o, [path])
    api_runs(o, path, "default")


def run_ragged(o: Out) -> None:
    path = str(make_ragged(WORK))
    names = ("cobalt-34b", "cobalt-34b-preview")
    leaderboard_runs(o, [path], compare=names)
    d = "{dir}/"
    for tag, flags in (("by", ["--by", "subject"]), ("cluster", ["--cluster", "passage"]),
                       ("by-cluster", ["--by", "subject", "--cluster", "passage"]),
                       ("graded", ["--outcome-col", "grade", "--weights", "0,0.5,1"])):
        sub = Out(o.folder / tag)
        leaderboard_runs(sub, [path], extra=flags, compare=names, simultaneous=tag != "graded", again=False)
        o.times += sub.times
    for suffix in ("txt", "csv", "json", "md", "html"):
        o.cli(f"by-posterior.{suffix}", ["leaderboard", path, "--by", "subject", "--interval", "posterior",
                                         "-o", d + f"by-posterior.{suffix}"])
    o.cli("by-top2-plan.md", ["leaderboard", path, "--by", "subject", "--top", "2", "--plan",
                              "-o", d + "by-top2-plan.md"])
    o.cli("two-files.csv", ["leaderboard", path, str(sample_path()), "-o", d + "two-files.csv"])
    count_runs(o, [path], ["--cluster", "passage", "--by", "subject"])
    api_runs(o, path, "default")
    api_runs(o, path, "by-cluster", by="subject", cluster="passage")
    api_runs(o, path, "graded", outcome_col="grade", weights=[0, 0.5, 1], interval="posterior")


def run_rows100m(o: Out) -> None:
    raw = make_rows100m(WORK)
    glob = str(raw / "*.parquet")
    d = "{dir}/"
    L = ["leaderboard", glob]
    o.cli("table.txt", [*L, "-o", d + "table.txt"])
    o.cli("wide.txt", [*L, "--wide", "-o", d + "wide.txt"])
    for suffix in ("csv", "json", "md", "html"):
        o.cli(f"board.{suffix}", [*L, "-o", d + f"board.{suffix}"])
    o.cli("pairs.csv", [*L, "--pairwise-output", d + "pairs.csv", "--plan", "-o", d + "plan-flag.txt"])


def run_models100k(o: Out) -> None:
    path = str(make_models100k(WORK))
    d = "{dir}/"
    L = ["leaderboard", path]
    o.cli("table.txt", [*L, "-o", d + "table.txt"])
    o.cli("table.stdout.txt", L, stdout=True)
    for suffix in ("csv", "json", "md", "html"):
        o.cli(f"board.{suffix}", [*L, "-o", d + f"board.{suffix}"])
    o.cli("board.stdout.csv", [*L, "--format", "csv"], stdout=True)
    for suffix in ("txt", "csv", "json", "md", "html"):
        o.cli(f"top3.{suffix}", [*L, "--top", "3", "-o", d + f"top3.{suffix}"])
    for suffix in ("csv", "json"):
        o.cli(f"wilson.{suffix}", [*L, "--interval", "wilson", "-o", d + f"wilson.{suffix}"])
    api_runs(o, path, "default")


BOARDS: dict[str, Callable[..., None]] = {"sample": run_sample, "models": run_models, "ragged": run_ragged,
                                          "models100k": run_models100k, "rows100m": run_rows100m}


# ---------------------------------------------------------------------------------------------- digest


def files_under(folder: Path) -> Iterator[Path]:
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.name != "DIGEST.txt" and p.name != "TIMES.txt":
            yield p


def digest(folder: Path) -> list[str]:
    """``sha256 size path [nondeterministic]`` per file (a plot whose two
    renderings differ is marked)."""
    lines = []
    hashes = {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in files_under(folder)}
    for p in files_under(folder):
        rel = p.relative_to(folder).as_posix()
        if ".again." in rel:
            continue
        again = rel.replace(".png", ".again.png").replace(".svg", ".again.svg")
        mark = " nondeterministic" if again != rel and again in hashes and hashes[again] != hashes[rel] else ""
        lines.append(f"{hashes[rel]} {p.stat().st_size} {rel}{mark}")
    return lines


def read_digest(folder: Path) -> dict[str, tuple[str, str]]:
    out = {}
    for line in (folder / "DIGEST.txt").read_text().splitlines():
        parts = line.split(" ")
        out[parts[2]] = (parts[0], " ".join(parts[3:]))
    return out


def compare(a: Path, b: Path, shown: int = 12) -> int:
    da, db = read_digest(a), read_digest(b)
    both = sorted(set(da) & set(db))
    equal = [k for k in both if da[k][0] == db[k][0]]
    differ = [k for k in both if da[k][0] != db[k][0]]
    flaky = [k for k in differ if "nondeterministic" in da[k][1] + db[k][1]]
    differ = [k for k in differ if k not in flaky]
    only_a, only_b = sorted(set(da) - set(db)), sorted(set(db) - set(da))
    print(f"{len(both)} files in both: {len(equal)} equal, {len(differ)} differ, {len(flaky)} nondeterministic "
          f"(differ; not counted); {len(only_a)} only in {a}, {len(only_b)} only in {b}")
    for k in differ:
        print(f"\n--- differs: {k}")
        pa, pb = a / k, b / k
        if k.endswith((".png",)):
            print(f"  binary: {pa.stat().st_size} vs {pb.stat().st_size} bytes")
            continue
        ta = pa.read_text(encoding="utf-8", errors="replace").splitlines()
        tb = pb.read_text(encoding="utf-8", errors="replace").splitlines()
        diff = list(difflib.unified_diff(ta, tb, str(pa), str(pb), lineterm="", n=1))
        for line in diff[:shown]:
            print("  " + (line if len(line) < 300 else line[:300] + " ..."))
        if len(diff) > shown:
            print(f"  ... {len(diff) - shown} more diff lines")
    for k in flaky:
        print(f"nondeterministic (differs between two renderings of one run): {k}")
    for k in only_a:
        print(f"only in {a}: {k}")
    for k in only_b:
        print(f"only in {b}: {k}")
    return 0 if not differ and not only_a and not only_b else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", nargs="?", type=Path, help="the folder to write (emptied first)")
    ap.add_argument("--boards", default=DEFAULT_BOARDS, help=f"comma-separated, of {', '.join(BOARDS)} "
                                                             f"(default {DEFAULT_BOARDS})")
    ap.add_argument("--rows100m", action="store_true", help="add the 100M-row board (minutes to write, once)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/kscore-digest-boards"),
                    help="where the generated boards are kept between runs")
    ap.add_argument("--no-simultaneous-models", action="store_true",
                    help="leave --adjust simultaneous out on the 10 000-model board (its bootstrap: minutes)")
    ap.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two output folders")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.out is None:
        ap.error("give an output folder, or --compare A B")
    import kscore

    os.environ.pop("KSCORE_TIMING", None)
    os.environ["COLUMNS"] = "80"
    out: Path = args.out
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    global WORK
    WORK = args.work.resolve()
    WORK.mkdir(parents=True, exist_ok=True)
    boards = [b for b in args.boards.split(",") if b]
    if args.rows100m and "rows100m" not in boards:
        boards.append("rows100m")
    times: list[str] = [f"kscore {kscore.__version__} from {Path(kscore.__file__).parent}; "
                        f"load average at start {os.getloadavg()[0]:.2f}"]
    for name in boards:
        t0 = time.perf_counter()
        o = Out(out / name)
        if name == "models":
            run_models(o, simultaneous=not args.no_simultaneous_models)
        else:
            BOARDS[name](o)
        times.append(f"{name}: {time.perf_counter() - t0:.1f} s")
        times += [f"  {n}: {t:.2f} s" for n, t in o.times]
        print(f"{name}: {time.perf_counter() - t0:.1f} s", flush=True)
    lines = digest(out)
    (out / "DIGEST.txt").write_text("\n".join(lines) + "\n")
    times.append(f"load average at end {os.getloadavg()[0]:.2f}")
    (out / "TIMES.txt").write_text("\n".join(times) + "\n")
    print(f"{len(lines)} files digested in {out / 'DIGEST.txt'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
