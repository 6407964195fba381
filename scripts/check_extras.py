"""Every extra the docs tell users to install, resolved by a given pip.

    python scripts/check_extras.py PIP [EXTRA ...]

For each extra named in a ``pip install '...kscore[EXTRA]...'`` line of
README.md or docs/*.md (or the EXTRAs given), runs ``PIP install --dry-run
--report`` on this project with that extra, spelled as the docs spell it,
and fails unless pip took the extra: no "does not provide the extra"
warning, the extra among kscore's requested extras in pip's report (pips
from 23.1 report them), and every requirement of the extra
(pyproject.toml) among what pip would install. ``--dry-run`` resolves against the index with the project's
metadata (maturin writes it without compiling) and installs nothing.
.ci/run runs it with the oldest pip of a supported Python's fresh venv
(pip 23.0.1, Python 3.10's ensurepip); pip 23.x compares the extra as
typed with the wheel's metadata, so an extra whose name is not already in
PEP 685's normal form (``lm_eval``) is refused there.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: ``pip install 'kscore[a,b]'`` (any quoting) in the docs.
INSTALL = re.compile(r"pip install ['\"]?kscore\[([^\]]+)\]")
#: A requirement's name (PEP 508), normalized (PEP 503).
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def documented() -> list[str]:
    """The extras the README and docs pages tell users to install, in order."""
    found: dict[str, None] = {}
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for match in INSTALL.finditer(page.read_text(encoding="utf-8")):
            found.update(dict.fromkeys(x.strip() for x in match.group(1).split(",")))
    return list(found)


def declared() -> dict[str, list[str]]:
    """pyproject.toml's extras and their requirements' names (normalized)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out: dict[str, list[str]] = {}
    for extra, reqs in project.get("optional-dependencies", {}).items():
        names = [m.group(1) for r in reqs if (m := NAME.match(r))]
        out[extra] = [normalize(n) for n in names]
    return out


def check(pip: str, extra: str, requires: list[str]) -> str:
    """One extra through ``pip``: '' if taken, else why not."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        done = subprocess.run([pip, "install", "--dry-run", "--quiet", "--disable-pip-version-check",
                               "--report", str(report), f".[{extra}]"], cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            return f"pip failed ({done.returncode}): {done.stderr.strip().splitlines()[-1:]}"
        # Only kscore's own extra counts: pip also warns when a candidate it tried on the way (a dependency's
        # older or newer release) lacks an extra something asked of it ('huggingface-hub 2.4.0 does not provide
        # the extra hf_xet' while resolving lighteval), which says nothing about the spelling of ours.
        refused = [line.strip() for line in done.stderr.splitlines()
                   if "does not provide the extra" in line and re.search(r"\bkscore\b", line)]
        if refused:
            return refused[0]
        items = json.loads(report.read_text())["install"]
    names = {normalize(i["metadata"]["name"]) for i in items}
    [me] = [i for i in items if normalize(i["metadata"]["name"]) == "kscore"]
    if "requested_extras" in me and extra not in (me["requested_extras"] or []):  # (pip >= 23.1 reports them)
        return f"kscore's requested extras are {me['requested_extras']}"
    missing = [r for r in requires if r not in names]
    if missing:
        return f"pip would not install {', '.join(missing)}"
    return ""


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    pip, wanted = argv[0], argv[1:] or documented()
    version = subprocess.run([pip, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
    extras = declared()
    failed = 0
    for extra in wanted:
        if extra not in extras:
            print(f"FAIL kscore[{extra}]: the docs name it, pyproject.toml has no such extra ({', '.join(extras)})")
            failed += 1
            continue
        why = check(pip, extra, extras[extra])
        print(f"{'FAIL' if why else 'ok  '} kscore[{extra}] with pip {version}" + (f": {why}" if why else ""),
              flush=True)
        failed += bool(why)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
