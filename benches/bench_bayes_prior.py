"""Bayes@N with an R0 prior (issue 29's last item): ``bayes`` and ``bayes_ci``
on 100 x 64 three-category matrices with a shared R0 of D = 1, 4 and 16
columns, beside scorio 0.2.3, and the same calls without R0 for reference.

Both libraries take turns in one loop (``conftest.interleaved_medians``),
back to back and with 1 ms of idle time between calls; figures are medians
of single calls.

Run: ``python -m pytest benches/bench_bayes_prior.py -s`` (about a minute).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from scorio import eval as se

from kscore import eval as ke

from conftest import interleaved_medians, record

rng = np.random.default_rng(29)
M, N = 100, 64
R = rng.integers(0, 3, size=(M, N))
W3 = np.array([0.0, 0.5, 1.0])
PRIORS: dict[str, Any] = {f"R0 {M}x{d}": rng.integers(0, 3, size=(M, d)) for d in (1, 4, 16)}
PRIORS["no R0"] = None


@pytest.mark.parametrize("prior", list(PRIORS))
@pytest.mark.parametrize("name", ["bayes", "bayes_ci"])
def test_bayes_with_prior(name: str, prior: str) -> None:
    R0 = PRIORS[prior]

    def call(mod: Any) -> Any:
        return getattr(mod, name)(R, W3, R0)

    group = f"{name} {M}x{N} 3 categories, {prior}"
    kscore, scorio = interleaved_medians([lambda: call(ke), lambda: call(se)], [300, 30], rounds=6, budget_s=8.0)
    record(group, "scorio", scorio)
    record(group, "kscore", kscore)
    kscore, scorio = interleaved_medians(
        [lambda: call(ke), lambda: call(se)], [2, 1], rounds=75, gap_s=1e-3, budget_s=6.0
    )
    record(group, "kscore, 1 ms apart", kscore)
    record(group, "scorio, 1 ms apart", scorio)
