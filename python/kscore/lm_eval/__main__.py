"""``python -m kscore.lm_eval ARGS``: lm_eval's command line (``lm_eval ARGS``)
with kscore's metric and aggregation registered (docs/lm_eval.md).

One option of kscore's own: ``--import MODULE`` (repeatable, anywhere on the
line) imports a module before lm_eval reads its arguments, so that what it
registers (a model class with ``@register_model``, a filter, a metric) is
there when lm_eval looks it up: a module name importable from the current
folder (``mymodels``, ``pkg.models``) or a file (``path/to/models.py``).
Everything else is lm_eval's, ``--include_path`` included."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

#: kscore's option; the rest of the line is lm_eval's.
IMPORT = "--import"


def split_imports(argv: list[str]) -> tuple[list[str], list[str]]:
    """``(modules, lm_eval's arguments)`` from a command line.

    Examples:
        >>> split_imports(["run", "--import", "mylm", "--model", "mine", "--import=b.py"])
        (['mylm', 'b.py'], ['run', '--model', 'mine'])
    """
    modules: list[str] = []
    rest: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == IMPORT:
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                raise ValueError(f"{IMPORT} needs a module name or a .py file")
            modules.append(argv[i + 1])
            i += 2
            continue
        if arg.startswith(IMPORT + "="):
            modules.append(arg.split("=", 1)[1])
        else:
            rest.append(arg)
        i += 1
    return modules, rest


def import_module(name: str) -> None:
    """Import ``name``: a ``.py`` file, or a module found from the current
    folder first (as ``python -c 'import name'`` there would)."""
    if name.endswith(".py") or "/" in name or "\\" in name:
        path = Path(name)
        if not path.is_file():
            raise ImportError(f"no such file: {name}")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"cannot load {name}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))
    importlib.import_module(name)


def main() -> None:
    """Run lm_eval's command line with kscore registered and the ``--import``
    modules imported (the package's import, which runs first, answers a
    missing or incompatible lm_eval with one line on stderr and exit status 2;
    so does a module that fails to import)."""
    import kscore.lm_eval  # noqa: F401  (registers)

    try:
        modules, rest = split_imports(sys.argv[1:])
    except ValueError as exc:
        print(f"kscore: error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    for name in modules:
        try:
            import_module(name)
        except Exception as exc:  # the user's module: one line, whatever it raised
            print(f"kscore: error: {IMPORT} {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            raise SystemExit(2) from None
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *rest]
    cli_evaluate()


if __name__ == "__main__":
    main()
