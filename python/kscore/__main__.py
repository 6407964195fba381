"""``python -m kscore``: an alias of ``kscore leaderboard`` (arguments are
passed on: ``python -m kscore leaderboard results.csv``; with none it ranks
the sample results shipped in the package).

Without the ``cli`` extra (pyarrow, rich) it falls back to printing every
kscore.eval metric on the sample outcome matrix shipped in the package (see
scripts/make_sample_outcomes.py), which needs numpy only.
"""

from __future__ import annotations

import sys
from importlib import resources
from importlib.util import find_spec


def plain() -> None:
    """Every kscore.eval point metric on the shipped sample outcome matrix
    (kscore.eval imported here: ``python -m kscore leaderboard`` needs none of it)."""
    import numpy as np

    from . import eval as ke

    with resources.files("kscore.data").joinpath("sample_outcomes.npz").open("rb") as fh:
        data = np.load(fh)
        R, w = data["binary"], data["w"]
    m, n = R.shape
    print(f"kscore sample: {m} questions x {n} samples (binary), graded 0/1/2 with w = {w.tolist()}\n")
    rows: list[tuple[str, list[float]]] = []
    ks = [1, 4, n]
    rows.append(("pass@k", [ke.pass_at_k(R, k) for k in ks]))
    rows.append(("pass^k", [ke.pass_hat_k(R, k) for k in ks]))
    rows.append(("G-Pass@k tau=0.5", [ke.g_pass_at_k_tau(R, k, 0.5) for k in ks]))
    rows.append(("mG-Pass@k", [ke.mg_pass_at_k(R, k) for k in ks]))
    rows.append(("maj@k", [ke.maj_at_k(R, k) for k in ks]))
    rows.append(("AUC@k", [ke.auc_at_k(R, k) for k in ks]))
    rows.append(("spectrum@k (uniform)", [ke.threshold_spectrum_at_k(R, k, np.full(k, 1.0 / k)) for k in ks]))
    rows.append(("Geom@k", [ke.geom_at_k(R, k) for k in ks]))
    rows.append(("GeomDS@k", [ke.geom_ds_at_k(R, k) for k in ks]))
    rows.append(("GeoSpectrum@k lam=0.3", [ke.geo_spectrum_at_k(R, k, 0.3) for k in ks]))
    rows.append(("GeoSpectrum*@k", [ke.geo_spectrum_star_at_k(R, k) for k in ks]))
    width = max(len(name) for name, _ in rows)
    print(" " * width + "".join(f"{'k=' + str(k):>12}" for k in ks))
    for name, values in rows:
        print(name.ljust(width) + "".join(f"{v:12.6f}" for v in values))


def has_cli_extra() -> bool:
    try:
        return find_spec("pyarrow") is not None and find_spec("rich") is not None
    except (ImportError, ValueError):  # a module blocked with sys.modules[name] = None
        return False


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not has_cli_extra():
        if args:
            print("kscore: error: the command line needs the cli extra: pip install 'kscore[cli]'", file=sys.stderr)
            return 1
        plain()
        return 0
    from .cli import main as cli_main

    return cli_main(args or ["leaderboard"])


if __name__ == "__main__":
    if has_cli_extra():  # Ctrl-C ends the command at once, shutdown included (kscore.cli.entry)
        from .cli import entry

        entry(sys.argv[1:] or ["leaderboard"])
    sys.exit(main())
