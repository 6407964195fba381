"""Print Markdown tables from a run of bench_small.py.

``KSCORE_BENCH_JSON=small.json python -m pytest benches/bench_small.py``
then ``python benches/small_table.py small.json`` (every table and the
targets met), or ``python benches/small_table.py --readme small.json``
(the README's table).
"""

from __future__ import annotations

import json
import sys


def us(t: float) -> str:
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms"


SHAPES = ("30x64", "500x8", "164x200", "5000x16")


def readme_table(res: dict[str, dict[str, float]]) -> list[str]:
    """The README's table: one row per function, kscore / scorio (ratio)
    per shape, back to back; then the several-k-in-a-row workloads."""
    cells: dict[str, dict[str, str]] = {}
    for group, rows in res.items():
        if "scorio" not in rows or "vs count_nonzero" in group:
            continue
        name, shape, *rest = group.split()
        label = f"`{name}`"
        if "in a row" in group:
            label += f", k = {rest[0].removeprefix('k=').replace(',', ', ')} in a row"
        s, k = rows["scorio"], rows["kscore"]
        cells.setdefault(label, {})[shape] = f"{us(k)} / {us(s)} ({s / k:.0f}x)"
    head = "| function | 30 x 64, k = 8 | 500 x 8, k = 4 | 164 x 200, k = 10 | 5000 x 16, k = 4 |"
    lines = [head, "|---|---|---|---|---|"]
    order = sorted(cells, key=lambda label: "in a row" in label)  # stable: run order within each part
    for label in order:
        lines.append(f"| {label} | " + " | ".join(cells[label].get(shape, "") for shape in SHAPES) + " |")
    return lines


def main(path: str) -> None:
    res: dict[str, dict[str, float]] = json.load(open(path))
    print("| function | shape | scorio | kscore | ratio | scorio, 1 ms apart | kscore, 1 ms apart | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for group, rows in res.items():
        if "vs count_nonzero" in group or "scorio" not in rows:
            continue
        name, _, shape = group.partition(" ")
        s, k = rows["scorio"], rows["kscore"]
        spaced = rows.get("kscore, 1 ms apart")
        s_spaced = rows.get("scorio, 1 ms apart", s)
        cells = [name, shape, us(s), us(k), f"{s / k:.1f}x"]
        cells += [us(s_spaced), us(spaced), f"{s_spaced / spaced:.1f}x"] if spaced else ["", "", ""]
        print("| " + " | ".join(cells) + " |")
    print()
    print("| function | matrix | count_nonzero | kscore | ratio "
          "| count_nonzero, 1 ms apart | kscore, 1 ms apart | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for group, rows in res.items():
        if "vs count_nonzero" not in group:
            continue
        name, _, rest = group.partition(" ")
        matrix = rest.replace(" vs count_nonzero", "")
        c, k = rows["count_nonzero"], rows["kscore"]
        cs, ks = rows["count_nonzero, 1 ms apart"], rows["kscore, 1 ms apart"]
        print(f"| {name} | {matrix} | {us(c)} | {us(k)} | {k / c:.1f}x | {us(cs)} | {us(ks)} | {ks / cs:.1f}x |")
    for group, rows in res.items():
        if group.startswith("estimate_pass_at_k"):
            print()
            print(f"{group}: " + ", ".join(f"{n} {us(t)}" for n, t in rows.items()))
    print()
    for line in targets(res):
        print(line)


def targets(res: dict[str, dict[str, float]]) -> list[str]:
    """Issue 9's targets, cell by cell: at least 10x scorio for a point
    metric and 20x for an interval (back to back), within 2x of
    np.count_nonzero for a point metric on a small matrix (back to back and
    1 ms apart), within 3x of it for estimate_pass_at_k."""
    checks: list[tuple[bool, str]] = []
    for group, rows in res.items():
        if "vs count_nonzero" in group or group.startswith("estimate_pass_at_k"):
            bound = 2.0 if "vs count_nonzero" in group else 3.0
            for label in ("", ", 1 ms apart"):
                floor = next(t for name, t in rows.items() if "count_nonzero" in name and name.endswith(label)
                             and (label or "apart" not in name))
                ratio = rows["kscore" + label] / floor
                checks.append((ratio <= bound, f"{group}{label}: {ratio:.2f}x count_nonzero (at most {bound:g}x)"))
        elif "scorio" in rows:
            need = 20.0 if group.split()[0].endswith("_ci") else 10.0
            ratio = rows["scorio"] / rows["kscore"]
            checks.append((ratio >= need, f"{group}: {ratio:.1f}x scorio (at least {need:g}x)"))
    met = sum(ok for ok, _ in checks)
    return [f"targets met: {met} of {len(checks)} cells"] + ["  miss: " + text for ok, text in checks if not ok]

if __name__ == "__main__":
    if sys.argv[1] == "--readme":
        print("\n".join(readme_table(json.load(open(sys.argv[2])))))
    else:
        main(sys.argv[1])
