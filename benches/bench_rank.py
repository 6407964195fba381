"""kscore.rank beside scorio.rank 0.2.3: every ranker on a 20-model board
(AIME-like, 30 questions x 64 trials) and a 200-model board (MATH-500-like,
500 x 8), medians of single calls, both libraries taking turns in one loop
(``conftest.interleaved_medians``). ``bayes`` also with a shared R0 and a
quantile; ``thompson`` at its default 10,000 draws.

Run: ``python -m pytest benches/bench_rank.py`` (about a minute; scorio's
thompson takes a few seconds a call on 200 models).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from scorio import rank as sr

import kscore.rank as kr

from conftest import interleaved_medians, record

rng = np.random.default_rng(28)

BOARDS = {  # name: (L, M, N, k)
    "20 models 30x64": (20, 30, 64, 8),
    "200 models 500x8": (200, 500, 8, 4),
}


def board(L: int, M: int, N: int) -> np.ndarray:
    skill = rng.uniform(0.2, 0.8, size=(L, 1, 1))
    ease = rng.normal(0.0, 0.2, size=(1, M, 1))
    return (rng.random((L, M, N)) < np.clip(skill + ease, 0.0, 1.0)).astype(np.int64)


TENSORS = {name: board(L, M, N) for name, (L, M, N, _) in BOARDS.items()}


def calls(R: np.ndarray, k: int) -> dict[str, Callable[[Any], Any]]:
    R0 = rng.integers(0, 2, size=(R.shape[1], 4))
    return {
        "avg": lambda m: m.avg(R),
        "bayes": lambda m: m.bayes(R),
        "bayes R0 quantile=0.05": lambda m: m.bayes(R, np.array([0.0, 1.0]), R0, 0.05),
        "pass_at_k": lambda m: m.pass_at_k(R, k),
        "pass_hat_k": lambda m: m.pass_hat_k(R, k),
        "g_pass_at_k_tau": lambda m: m.g_pass_at_k_tau(R, k, 0.5),
        "mg_pass_at_k": lambda m: m.mg_pass_at_k(R, k),
        "thompson": lambda m: m.thompson(R),
    }


NAMES = list(calls(TENSORS["20 models 30x64"], 8))


@pytest.mark.parametrize("shape", list(BOARDS))
@pytest.mark.parametrize("name", NAMES)
def test_rankers(name: str, shape: str) -> None:
    k = BOARDS[shape][3]
    fn = calls(TENSORS[shape], k)[name]
    slow = name == "thompson" or shape.startswith("200")
    n_ours, n_theirs, rounds = ((3, 1, 3) if name == "thompson" else (20, 2, 4)) if slow else (100, 10, 5)
    ours, theirs = interleaved_medians(
        [lambda: fn(kr), lambda: fn(sr)], [n_ours, n_theirs], rounds=rounds, budget_s=15.0
    )
    group = f"rank.{name} {shape}"
    record(group, "scorio", theirs)
    record(group, "kscore", ours)
