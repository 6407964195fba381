"""``python -m kscore.lm_eval ARGS``: lm_eval's command line (``lm_eval ARGS``)
with kscore's metric and aggregation registered (docs/lm_eval.md)."""

from __future__ import annotations

import sys


def main() -> None:
    """Run lm_eval's command line with kscore registered (the package's
    import, which runs first, answers a missing or incompatible lm_eval with
    one line on stderr and exit status 2)."""
    from lm_eval.__main__ import cli_evaluate

    import kscore.lm_eval  # noqa: F401  (registers)

    sys.argv[0] = "lm_eval"
    cli_evaluate()


if __name__ == "__main__":
    main()
