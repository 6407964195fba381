"""kscore.arena against references written here (tests/arena_reference.py):
ratings within 1e-6 Elo of the fully converged maximum on skewed boards,
sandwiches equal to arena-rank's formula and to the pseudo-inverse one,
clustered and style-controlled fits, the prior where the maximum does not
exist, refusals, the bootstrap, fragility and simultaneous rank sets."""

from __future__ import annotations

import math

import numpy as np
import pytest

import kscore
from kscore import _kscore
from kscore.arena import ArenaError
from tests.arena_reference import (
    ELO,
    arena_rank_sandwich,
    newton_bt,
    newton_style,
    pinv_sandwich,
    scipy_bt,
    simulate,
)

pytest.importorskip("pyarrow")

WORD = {1.0: "model_a", 0.0: "model_b", 0.5: "tie"}


def frame(a: np.ndarray, b: np.ndarray, y: np.ndarray, L: int, **extra: object) -> dict[str, object]:
    names = [f"m{k:03d}" for k in range(L)]
    return {"model_a": [names[i] for i in a], "model_b": [names[i] for i in b],
            "winner": [WORD[v] for v in y], **extra}


def by_name(board: kscore.arena.ArenaBoard) -> dict[str, float]:  # type: ignore[name-defined]
    return dict(zip(board.models, board.rating.tolist()))


def skewed(seed: int = 1, L: int = 30, N: int = 60_000, skew: float = 1.6) -> dict[str, np.ndarray]:
    return simulate(np.random.default_rng(seed), L, N, spread=1.2, tie=0.2, skew=skew)


@pytest.mark.parametrize("seed", [1, 2])
def test_ratings_match_the_converged_maximum_on_skewed_boards(seed: int) -> None:
    s = skewed(seed)
    L = 30
    used = np.union1d(s["a"], s["b"])
    assert len(used) == L
    res = kscore.arena(frame(s["a"], s["b"], s["y"], L), fragility=False)
    ref = newton_bt(L, s["a"], s["b"], s["y"])
    got = by_name(res.board)
    want = {f"m{k:03d}": 1000.0 + ELO * ref[k] for k in range(L)}
    assert max(abs(got[m] - want[m]) for m in want) < 1e-6
    # and scipy's L-BFGS-B with the analytic gradient to gtol 1e-12 agrees with both
    sp = scipy_bt(L, s["a"], s["b"], s["y"])
    assert np.max(np.abs(ELO * (sp - ref))) < 1e-4
    # skewed: the top models are in most battles, the rarest in a few hundred
    counts = np.bincount(s["a"], minlength=L) + np.bincount(s["b"], minlength=L)
    assert counts.max() > 50 * counts.min()


def test_sandwich_is_arena_ranks_formula_with_its_ridge_and_the_pseudo_inverse_without() -> None:
    s = skewed(3, L=20, N=30_000)
    L = 20
    th = newton_bt(L, s["a"], s["b"], s["y"])
    want = arena_rank_sandwich(L, s["a"], s["b"], s["y"], th) * ELO ** 2
    res = kscore.arena(frame(s["a"], s["b"], s["y"], L), ridge=1e-5, fragility=False)
    order = [int(m[1:]) for m in res.board.models]
    got = res.board.se ** 2
    assert np.max(np.abs(got / want[order] - 1)) < 1e-6
    res0 = kscore.arena(frame(s["a"], s["b"], s["y"], L), fragility=False)
    V = pinv_sandwich(L, s["a"], s["b"], s["y"], th) * ELO ** 2
    assert np.max(np.abs(res0.board.se ** 2 / np.diag(V)[order] - 1)) < 1e-6
    assert res0.board.covariance is not None
    assert np.max(np.abs(res0.board.covariance - V[np.ix_(order, order)])) < 1e-8 * np.max(np.abs(V))
    # the ridge shrinks: the rarest models' variances the most
    assert np.all(want <= np.diag(V) * (1 + 1e-12))


def test_clustered_sandwich_and_bootstrap_by_prompt() -> None:
    rng = np.random.default_rng(5)
    s = simulate(rng, 12, 20_000, tie=0.1, skew=0.8, prompts=800, prompt_sd=0.8)
    L = 12
    f = frame(s["a"], s["b"], s["y"], L, question_id=[f"p{q}" for q in s["prompt"]])
    res = kscore.arena(f, fragility=False)
    th = newton_bt(L, s["a"], s["b"], s["y"])
    V = pinv_sandwich(L, s["a"], s["b"], s["y"], th, s["prompt"]) * ELO ** 2
    order = [int(m[1:]) for m in res.board.models]
    assert np.max(np.abs(res.board.se ** 2 / np.diag(V)[order] - 1)) < 1e-6
    unclustered = pinv_sandwich(L, s["a"], s["b"], s["y"], th) * ELO ** 2
    assert np.mean(np.diag(V) / np.diag(unclustered)) > 1.2  # the prompts' effects widen the intervals
    boot = kscore.arena(f, intervals="bootstrap", rounds=200, fragility=False)
    assert boot.options["bootstrap_by"] == "prompt"
    ratio = boot.board.se / res.board.se
    assert 0.8 < float(np.median(ratio)) < 1.25
    again = kscore.arena(f, intervals="bootstrap", rounds=200, fragility=False)
    assert np.array_equal(again.board.lo, boot.board.lo)  # seeded: the same rounds


def test_bootstrap_rounds_do_not_depend_on_threads() -> None:
    s = skewed(7, L=10, N=5000)
    outcome = np.rint(2 * s["y"]).astype(np.uint8)
    board = _kscore.battle_board(10, s["a"].astype(np.uint32), s["b"].astype(np.uint32), outcome)
    th, _ = board.fit()
    one, _ = board.bootstrap(th, 50, 3)
    old = _kscore._set_parallel_grain(1)
    try:
        many, _ = board.bootstrap(th, 50, 3)
    finally:
        _kscore._set_parallel_grain(old)
    assert np.array_equal(one, many)


def test_style_control_matches_the_penalised_maximum() -> None:
    rng = np.random.default_rng(11)
    L, N = 8, 8000
    s = simulate(rng, L, N, tie=0.0, skew=0.5, style=0.7)
    x = s["x"] + 0.3 * (s["a"] - s["b"]) / L  # style correlated with the models
    res = kscore.arena(frame(s["a"], s["b"], s["y"], L, length=x), style=["length"], fragility=False)
    X = ((x - x.mean()) / x.std())[:, None]
    th, be = newton_style(L, s["a"], s["b"], s["y"], X, 1.0)
    got = by_name(res.board)
    assert max(abs(got[f"m{k:03d}"] - (1000 + ELO * th[k])) for k in range(L)) < 1e-6
    assert res.board.style is not None
    assert abs(res.board.style["length"][0] - be[0]) < 1e-9
    assert res.without_style is not None and res.without_style.style is None


def test_a_model_that_only_wins_gets_the_stated_prior() -> None:
    a = np.array([0, 0, 0, 1, 2, 1, 2] * 3)
    b = np.array([3, 1, 2, 2, 1, 3, 3] * 3)
    y = np.array([1.0, 1.0, 1.0, 1.0, 0.5, 0.0, 1.0] * 3)
    res = kscore.arena(frame(a, b, y, 4), fragility=False)
    assert all(math.isfinite(v) for v in res.board.rating)
    assert res.board.models[0] == "m000"
    assert any("do not exist" in n and "m000 (only wins)" in n for n in res.board.notes)
    sd = 400.0 / ELO
    th = newton_bt(4, a, b, y, precision=1 / sd ** 2)
    assert abs(res.board.rating[0] - (1000 + ELO * th[0])) < 1e-6
    assert res.board.rating[0] - 1000 < 1500  # not -3800, not inf


def test_disconnected_boards_are_refused_naming_the_groups() -> None:
    a, b, y = np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2]), np.array([1.0, 1.0, 0.0, 1.0])
    with pytest.raises(ArenaError, match=r"2 groups .*\{m000, m001\}; \{m002, m003\}"):
        kscore.arena(frame(a, b, y, 4))


def test_anchor_and_scale() -> None:
    s = skewed(4, L=10, N=4000)
    f = frame(s["a"], s["b"], s["y"], 10)
    res = kscore.arena(f, anchor=("m003", 1114.0), fragility=False)
    got = by_name(res.board)
    assert got["m003"] == 1114.0
    plain = by_name(kscore.arena(f, fragility=False).board)
    assert max(abs((got[m] - got["m003"]) - (plain[m] - plain["m003"])) for m in got) < 1e-9
    i = res.board.models.index("m003")
    assert res.board.se[i] == 0.0


def test_lmarena_rank_and_simultaneous_sets_and_win_probabilities() -> None:
    s = skewed(6, L=15, N=20_000)
    res = kscore.arena(frame(s["a"], s["b"], s["y"], 15), fragility=False)
    b = res.board
    for i in range(15):
        assert b.rank[i] == 1 + sum(1 for j in range(15) if b.lo[j] > b.hi[i])
        assert b.rank_lo[i] <= i + 1 <= b.rank_hi[i]
    assert b.could_be_best[0] == b.models[0]
    d = (b.rating[0] - b.rating[1]) / ELO
    assert abs(b.win_prob[0, 1] - 1 / (1 + math.exp(-d))) < 1e-15
    assert np.allclose(b.win_prob + b.win_prob.T, 1.0)


def test_fragility_exact_on_a_small_board() -> None:
    # three models, a narrow lead: brute force over every removal agrees
    a = np.array([0] * 6 + [1] * 6 + [0] * 4)
    b = np.array([1] * 6 + [2] * 6 + [2] * 4)
    y = np.array([1, 1, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0], dtype=float)
    res = kscore.arena(frame(a, b, y, 3))
    f = res.board.fragility
    assert f is not None and f.exact and f.removed is not None
    # brute force: every multiset of f.removed - 1 battles leaves #1 in place
    import itertools

    base = res.board.models[0]
    rows = list(range(len(a)))
    for k in range(1, f.removed):
        for drop in itertools.combinations(rows, k):
            keep = np.setdiff1d(rows, drop)
            if len(np.union1d(a[keep], b[keep])) < 3:
                continue
            th = newton_bt(3, a[keep], b[keep], y[keep], precision=1 / (400.0 / ELO) ** 2)
            assert f"m{int(np.argmax(th)):03d}" == base
    assert sum(x[3] for x in f.battles) == f.removed


def test_bad_rows_are_counted_or_refused_with_file_and_line(tmp_path: object) -> None:
    from pathlib import Path

    p = Path(str(tmp_path)) / "battles.csv"
    p.write_text("model_a,model_b,winner\nx,y,model_a\ny,z,tie\nz,x,model_b\nx,x,model_a\nx,y,maybe\n,y,tie\n"
                 "y,x,tie (bothbad)\n")
    res = kscore.arena(str(p), fragility=False)
    text = " | ".join(res.warnings)
    assert "1 battle(s) with a model against itself skipped" in text and "line 5" in text
    assert "winner outside" in text and "line 6" in text
    assert "missing model name" in text and "line 7" in text
    assert sum(int(x) for x in res.board.battles) == 2 * 4
    with pytest.raises(ArenaError, match=r"battles.csv, line 5: a model against itself"):
        kscore.arena(str(p), strict=True)
