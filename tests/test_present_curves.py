"""The curves' line and band describe one estimate, the table's
(kscore.leaderboard.result.curves): with the ``questions`` interval the line is the
classic estimate and the band its interval over questions (clustered with
``cluster``), equal to the pass@k cells at their k; with ``posterior`` the
line is the posterior mean and the band its credible interval, equal to the
cells' posterior mean and interval."""

from __future__ import annotations

import numpy as np
import pytest

import kscore
from kscore.present.from_leaderboard import board_from_leaderboard

pa = pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)


def _table(seed: int = 3) -> object:
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(4):
        for q in range(60):
            p = float(np.clip(0.25 + 0.15 * m + rng.normal(0, 0.25), 0.0, 1.0))
            rows += [(f"model-{m}", f"q{q}", f"passage-{q // 6}", s, int(rng.random() < p)) for s in range(8)]
    cols = list(zip(*rows))
    return pa.table({"model": cols[0], "question": cols[1], "passage": cols[2], "sample": cols[3],
                     "correct": cols[4]})


@pytest.mark.parametrize("cluster", [None, "passage"])
def test_questions_curves_are_the_cells(cluster: str | None) -> None:
    lb = kscore.leaderboard(_table(), metrics="pass@1,pass@4,pass@8", cluster=cluster)
    b = board_from_leaderboard(lb, curves=True)
    assert b.curves is not None
    clustered = ", clustered by passage" if cluster else ""
    assert b.curve_note.endswith(f"band: its 95% interval over questions{clustered}")
    for r, c in zip(lb.rows, b.curves):
        assert c is not None and c.k == list(range(1, 9))
        for k in (1, 4, 8):
            v = r.values[f"pass@{k}"]
            assert v is not None
            i = c.k.index(k)
            assert (c.value[i], c.lo[i], c.hi[i]) == pytest.approx((v.estimate, v.lo, v.hi), rel=1e-12, abs=1e-14)
            assert c.lo[i] <= c.value[i] <= c.hi[i]


def test_posterior_curves_are_the_posterior_mean_and_its_band() -> None:
    lb = kscore.leaderboard(_table(), metrics="pass@1,pass@8", interval="posterior")
    b = board_from_leaderboard(lb, curves=True)
    assert b.curves is not None and b.curve_note.startswith("line: the posterior mean of pass@k")
    for r, c in zip(lb.rows, b.curves):
        assert c is not None
        for k in (1, 8):
            v = r.values[f"pass@{k}"]
            assert v is not None and v.posterior_mean is not None
            i = c.k.index(k)
            # (the same posterior: each model's draws are seeded by what its posterior depends on)
            assert (c.value[i], c.lo[i], c.hi[i]) == pytest.approx((v.posterior_mean, v.lo, v.hi), rel=1e-12)
            assert c.lo[i] <= c.value[i] <= c.hi[i]
