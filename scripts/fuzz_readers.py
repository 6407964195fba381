"""Fuzz every reader of ``kscore leaderboard`` for a while (issue 29).

    PYTHONPATH=python python scripts/fuzz_readers.py --minutes 25 --seed 1 --findings fuzz-findings

Draws structure-aware tables and arrays and byte-level mutations of the real
tools' fixtures with hypothesis (tests/fuzz_readers.py holds the harness),
runs each through ``kscore leaderboard`` in a worker process killed past
``--hang`` seconds, and prints how many inputs ran, by kind, and every
finding (a traceback or catch-all error, a hang, a refusal that is not one
line naming the file, a board that differs from the file re-read another
way); each finding's input is saved under ``--findings``. The exit status
is 1 if anything was found. The short replay of the same harness runs in
CI: tests/test_fuzz_readers.py.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fuzz_readers import run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=25.0, help="run rounds until this much time has passed")
    parser.add_argument("--examples", type=int, default=300, help="inputs per driver and round")
    parser.add_argument("--seed", type=int, default=1, help="hypothesis seed of the first round (then +1)")
    parser.add_argument("--hang", type=float, default=30.0, help="seconds after which an input is a hang")
    parser.add_argument("--findings", type=Path, default=Path("fuzz-findings"), help="where inputs found are saved")
    args = parser.parse_args()
    t0 = time.monotonic()
    tally = run(args.examples, args.seed, args.findings, minutes=args.minutes, hang_s=args.hang,
                log=lambda line: print(f"[{time.monotonic() - t0:7.0f} s] {line}", flush=True))
    took = time.monotonic() - t0
    print(f"{tally.inputs} inputs in {took:.0f} s ({tally.inputs / took:.1f}/s): {tally.boards} boards, "
          f"{tally.refusals} refusals ({tally.refusals_without_line} without a line/record/row), "
          f"{tally.compared} boards compared with another reader ({tally.other_refused} the other reader refused)")
    for kind, n in sorted(tally.by_kind.items()):
        print(f"  {kind}: {n}")
    print("refusals naming no line, record, row or byte, by their first words:")
    for shape, n in sorted(tally.unplaced.items(), key=lambda x: -x[1])[:25]:
        print(f"  {n:6d}  {shape}")
    print(f"{len(tally.findings)} findings")
    for line in tally.findings:
        print(f"  {line}")
    return 1 if tally.findings else 0


if __name__ == "__main__":
    sys.exit(main())
