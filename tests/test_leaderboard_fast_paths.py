"""The leaderboard's shortcuts give what the general code gives: metrics
evaluated per distinct state equal every row evaluated, the full grid of the
pairwise comparisons equals the scatter, rows already ordered by model are
grouped as sorting would, and the pairwise products run on one BLAS thread
(docs/leaderboard.md, *Speed*)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kscore
from kscore.leaderboard import Counts
from kscore.leaderboard._spec import parse_metrics
from kscore.leaderboard.read.arrow import codes, codes_of, order_cells
from kscore.leaderboard.runtime.blas import one_thread
from kscore.leaderboard.stats.compare import dense
from kscore.leaderboard.stats.estimates import question_estimates
from kscore.leaderboard.stats.intervals import column_sums, grid_se, group_se, group_se_tabled
from kscore.leaderboard.stats.scores import Scores, by_model, scores
from kscore.leaderboard.stats.states import distinct_states, min_max, per_model, row_sums


def grid(n_models: int, n_questions: int, n: int, categories: int, seed: int) -> Counts:
    rng = np.random.default_rng(seed)
    cats = rng.multinomial(n, np.full(categories, 1 / categories), size=n_models * n_questions).astype(np.int64)
    m = np.repeat(np.arange(n_models), n_questions)
    q = np.tile(np.arange(n_questions), n_models)
    return Counts([f"m{i}" for i in range(n_models)], [f"q{i}" for i in range(n_questions)], m, q, cats)


@pytest.mark.parametrize(("n", "categories"), [(10, 2), (7, 3), (3, 5), (100_000, 3)])
def test_distinct_states_rebuild_every_row(n: int, categories: int) -> None:
    cats = grid(5, 40, n, categories, seed=n).categories
    st = distinct_states(cats)
    assert np.array_equal(st.cats[st.of_row], cats)
    assert np.array_equal(st.n, cats.sum(axis=1)) and np.array_equal(row_sums(st.cats), st.cats.sum(axis=1))
    assert len(np.unique(st.cats, axis=0)) == len(st.cats)  # distinct


def _key_order(cats: np.ndarray) -> list[tuple[int, ...]]:
    """The states' order of the key of (n, every category but the last) in
    one radix: the later categories more significant, n the least."""
    rows = {tuple(int(v) for v in r) for r in cats}
    return sorted(rows, key=lambda r: (*reversed(r[:-1]), sum(r)))


@pytest.mark.parametrize(("categories", "top", "rows"), [(1, 9, 500), (2, 10, 5000), (3, 40, 2000), (4, 6, 70_000),
                                                         (3, 100_000, 300)])
def test_distinct_states_numbered_by_their_key(categories: int, top: int, rows: int) -> None:
    # In steps of CHUNK rows (70 000: two), a byte per row; the table's states
    # in the order of the key of (n, categories but the last), np.unique's
    # order past its size (the last case). (3, 40): the sum of the categories'
    # largest is past the table's size, n's largest is not.
    from kscore.leaderboard.stats.states import CHUNK

    rng = np.random.default_rng(categories * top)
    cats = np.zeros((rows, categories), np.int64)
    which = rng.integers(0, categories, rows)
    cats[np.arange(rows), which] = rng.integers(0, top + 1, rows)
    if categories > 1:
        cats[::3] = rng.multinomial(top, np.full(categories, 1 / categories), size=len(cats[::3]))
    st = distinct_states(np.asfortranarray(cats) if categories % 2 else cats)
    assert np.array_equal(st.cats[st.of_row], cats) and np.array_equal(st.n, cats.sum(axis=1))
    uniq = [tuple(r) for r in st.cats.tolist()]
    if (top + 1) ** categories <= 4 * rows + (1 << 16):
        assert uniq == _key_order(cats) and st.of_row.dtype.itemsize <= 2
    else:
        assert uniq == [tuple(r) for r in np.unique(cats, axis=0).tolist()]
    assert rows < CHUNK or len(st.of_row) == rows


@pytest.mark.parametrize(("n_models", "n_questions"), [(2, 70_001), (700, 300), (3, 1)])
def test_per_model_on_the_grid_in_steps_equals_the_cells(n_models: int, n_questions: int) -> None:
    counts = grid(n_models, n_questions, 4, 3, seed=n_models)
    st = distinct_states(counts.categories)
    S, L, Q = len(st.cats), n_models, n_questions
    m, q = counts.model, counts.question
    pm = per_model(st, m, q, L, Q)
    table = np.bincount(m * S + st.of_row, minlength=L * S).reshape(L, S)
    assert pm.table is not None and np.array_equal(pm.table, table)
    assert pm.grid is not None and pm.grid_t is not None and pm.cell is None
    assert np.array_equal(pm.grid, st.of_row.reshape(L, Q)) and np.array_equal(pm.grid_t, st.of_row.reshape(L, Q).T)
    # The same rows with two of the last model's swapped: no grid, the same table.
    swap = np.arange(len(m))
    swap[[-1, -2]] = swap[[-2, -1]] if Q > 1 else swap[[-1, -2]]
    if Q > 1:
        other = per_model(distinct_states(counts.categories[swap]), m[swap], q[swap], L, Q)
        assert other.grid is None and other.grid_t is None and other.cell is not None
        assert other.table is not None and np.array_equal(other.table, table)


@pytest.mark.parametrize(("n_models", "n_questions", "categories", "n"), [(30, 2000, 2, 10), (7, 70_001, 3, 4),
                                                                        (40, 500, 4, 6), (30, 2000, 3, 40)])
def test_core_states_and_grid_table_equal_the_numpy_passes(monkeypatch: pytest.MonkeyPatch, n_models: int,
                                                         n_questions: int, categories: int, n: int) -> None:
    # The core's passes on every thread (cell_states, grid_table, split to the
    # finest grain too) give the numpy passes' states, numbers and table; off
    # the grid (two cells swapped) the core declines and the cells are counted.
    import kscore._kscore as core
    from kscore.leaderboard.stats import states as states_mod

    counts = grid(n_models, n_questions, n, categories, seed=n_models + n)
    m, q, L, Q = counts.model, counts.question, n_models, n_questions
    swap = np.arange(len(m))
    swap[[5, 6]] = swap[[6, 5]]
    results = []
    for mode in ("core", "split", "numpy"):
        with monkeypatch.context() as mp:
            if mode == "numpy":
                mp.setattr(states_mod, "_kscore", object())
            old = core._set_parallel_grain(1 if mode == "split" else 0)
            try:
                st = distinct_states(counts.categories)
                pm = per_model(st, m, q, L, Q)
                off = per_model(distinct_states(counts.categories[swap]), m[swap], q[swap], L, Q)
            finally:
                core._set_parallel_grain(old)
        assert pm.grid is not None and off.grid is None and off.table is not None
        results.append((st, pm, off))
    (st0, pm0, off0), *rest = results
    assert np.array_equal(st0.cats[st0.of_row], counts.categories)
    for st, pm, off in rest:
        assert np.array_equal(st.cats, st0.cats) and np.array_equal(st.of_row, st0.of_row)
        assert st.of_row.dtype == st0.of_row.dtype
        assert pm.table is not None and pm0.table is not None and np.array_equal(pm.table, pm0.table)
        assert pm.grid is not None and pm0.grid is not None and np.array_equal(pm.grid, pm0.grid)
        assert off.table is not None and off0.table is not None and np.array_equal(off.table, off0.table)
    table = np.bincount(m * len(st0.cats) + st0.of_row, minlength=L * len(st0.cats)).reshape(L, -1)
    assert pm0.table is not None and np.array_equal(pm0.table, table)


def test_metrics_per_state_equal_every_row_evaluated() -> None:
    counts = grid(4, 30, 6, 3, seed=1)
    w = np.array([0.0, 0.3, 0.7])
    metrics = parse_metrics(["pass@k,pass^k,g-pass@4_0.5,mg-pass@4,maj@k,cons@n,avg@n,auc@4,max@4,bayes@N,pass@8"],
                            [1, 4])
    sc = scores(counts, metrics, w, None)
    for metric in metrics:
        every_row = question_estimates(counts.categories, metric, w)
        assert np.array_equal(sc.x[metric.name], every_row, equal_nan=True), metric.name


def test_full_grid_equals_the_scatter() -> None:
    counts = grid(6, 50, 5, 2, seed=2)
    metrics = parse_metrics(["pass@2"], [2])
    sc = scores(counts, metrics, np.array([0.0, 1.0]), np.arange(len(counts.model)) % 50 // 7)
    order = ["m3", "m0", "m5", "m1", "m4", "m2"]
    fast = dense(sc, "pass@2", order)
    # The same rows shuffled: not the grid's order, so the scatter runs.
    perm = np.random.default_rng(0).permutation(len(counts.model))
    c = counts
    shuffled = Scores(Counts(c.models, c.questions, c.model[perm], c.question[perm], c.categories[perm]),
                      {k: v[perm] for k, v in sc.x.items()}, None if sc.cluster is None else sc.cluster[perm])
    slow = dense(shuffled, "pass@2", order)
    for a, b in zip(fast, slow):
        assert a is not None and b is not None and np.array_equal(a, b)


def test_dense_rows_of_any_models_from_the_grid_equal_the_scatter() -> None:
    counts = grid(7, 40, 6, 2, seed=4)
    sc = scores(counts, parse_metrics(["pass@2"], [2]), np.array([0.0, 1.0]), None)
    assert sc.per_model().grid is not None
    c = counts
    perm = np.random.default_rng(5).permutation(len(c.model))
    shuffled = Scores(Counts(c.models, c.questions, c.model[perm], c.question[perm], c.categories[perm]),
                      {k: v[perm] for k, v in sc.x.items()}, None)
    for models in (["m6", "m2"], ["m0", "m5", "m1", "m3"], ["m4"]):
        fast, slow = dense(sc, "pass@2", models), dense(shuffled, "pass@2", models)
        assert all(np.array_equal(a, b) for a, b in zip(fast[:2], slow[:2])) and fast[2] is slow[2] is None


def test_rows_ordered_by_model_group_as_sorting_would() -> None:
    counts = grid(5, 20, 4, 2, seed=3)
    keep = np.ones(len(counts.model), bool)
    keep[20:40] = False  # a model without rows
    keep[41::3] = False  # and ragged ones
    c = Counts(counts.models, counts.questions, counts.model[keep], counts.question[keep], counts.categories[keep])
    perm = np.random.default_rng(1).permutation(len(c.model))
    shuffled = Counts(c.models, c.questions, c.model[perm], c.question[perm], c.categories[perm])
    fast, slow = by_model(c), by_model(shuffled)
    assert [m for m, _ in fast] == [m for m, _ in slow] == [0, 2, 3, 4]
    for (_, a), (_, b) in zip(fast, slow):
        assert np.array_equal(a, np.sort(perm[b]))
    n = c.categories.sum(axis=1) - (np.arange(len(c.model)) % 3)
    lo, hi = min_max(c.model, n, 5)
    lo2, hi2 = min_max(shuffled.model, n[perm], 5)
    assert np.array_equal(lo, lo2) and np.array_equal(hi, hi2)


def test_pairwise_products_run_on_one_blas_thread() -> None:
    threadpoolctl = pytest.importorskip("threadpoolctl")
    pytest.importorskip("duckdb")  # the leaderboard's engine (cli extra)
    with one_thread(1e12):
        assert all(x["num_threads"] == 1 for x in threadpoolctl.threadpool_info() if x["user_api"] == "blas")
    board = kscore.leaderboard(grid(20, 2000, 4, 2, seed=4), metrics="pass@1")
    assert board.pairs is not None and board.pairs.sigma.shape == (20, 20)


@pytest.mark.parametrize("shape", ["grid", "ragged", "repeated"])
def test_cells_ordered_by_placing_equal_the_sort(shape: str) -> None:
    rng = np.random.default_rng(5)
    L, Q = 7, 30
    m = np.repeat(np.arange(L), Q)
    q = np.tile(np.arange(Q), L)
    if shape == "ragged":
        keep = rng.random(L * Q) < 0.8
        m, q = m[keep], q[keep]
    if shape == "repeated":  # a key twice, one missing: as many cells as the grid, not the grid
        q = q.copy()
        q[5] = q[4]
    perm = rng.permutation(len(m))
    m, q = m[perm], q[perm]
    cols = [rng.integers(0, 9, len(m)), rng.integers(-1, 3, len(m))]
    got_m, got_q, got = order_cells(m, q, Q, cols)
    order = np.lexsort((q, m))
    assert np.array_equal(got_m, m[order]) and np.array_equal(got_q, q[order])
    if shape != "repeated":  # (repeated keys: which of the two comes first is not defined)
        assert got.shape == (2, len(m))
        for a, b in zip(got, cols):
            assert np.array_equal(a, b[order])


def test_tabled_interval_equals_group_se() -> None:
    rng = np.random.default_rng(6)
    values = rng.random(9)
    values[3] = np.nan  # a state short of the budget: its models get NaN
    group = np.sort(rng.integers(0, 12, 5000))
    which = rng.integers(0, 9, 5000)
    which[group == 4] = np.where(which[group == 4] == 3, 0, which[group == 4])  # model 4: no NaN
    x = values[which]
    cnt = np.bincount(group, minlength=12)
    mean, se = group_se_tabled(x, values, group * 9 + which, group, cnt)
    for g in range(12):
        rows = group == g
        if not np.isnan(x[rows]).any():
            want_mean, want_se, _ = group_se(x[rows], np.zeros(rows.sum(), np.int64), 1, None)
            assert mean[g] == want_mean[0] and se[g] == want_se[0]


@pytest.mark.parametrize("n_models", [6, 200_000])  # the (model, state) table, and the rows (a table too large)
def test_per_model_from_the_state_table_equals_the_rows(n_models: int) -> None:
    rng = np.random.default_rng(7)
    m = np.sort(rng.choice([0, 1, 2, 4, 5, n_models - 1], 3000))  # model 3: no rows
    cats = np.stack([rng.integers(0, 4, 3000), rng.integers(0, 5, 3000), rng.integers(1, 3, 3000)], axis=1)
    st = distinct_states(cats)
    pm = per_model(st, m, np.arange(3000) % 7, n_models, 7)
    assert (pm.cell is None) == (n_models > 6)
    n = cats.sum(axis=1)
    lo, hi = min_max(m, n, n_models)
    assert np.array_equal(pm.count, np.bincount(m, minlength=n_models))
    assert np.array_equal(pm.n_min, lo) and np.array_equal(pm.n_max, hi) and pm.samples == int(n.sum())
    assert pm.n_min[3] == pm.n_max[3] == 0
    if pm.table is not None:  # (rows ordered by model: each one's run of rows)
        assert pm.starts is not None and np.array_equal(np.diff(pm.starts), pm.count) and pm.starts[-1] == len(m)


@pytest.mark.parametrize("n_models", [2, 3, 50])
def test_grid_column_sums_equal_bincount(n_models: int) -> None:
    rng = np.random.default_rng(n_models)
    Q, values = 997, rng.random(13) * 3 - 1
    values[5] = np.nan
    which = rng.integers(0, 13, (n_models, Q))
    which[0] = np.where(which[0] == 5, 4, which[0])  # model 0: no NaN
    m = np.repeat(np.arange(n_models), Q)
    cnt = np.full(n_models, Q)
    want = group_se_tabled(values[which.ravel()], values, m * 13 + which.ravel(), m, cnt)
    states_t = np.ascontiguousarray(which.T)
    got = grid_se(values, states_t.astype(np.int8), cnt)
    for a, b in zip(got, want):
        assert np.array_equal(a, b, equal_nan=True)


def test_codes_on_threads_equal_one_by_one() -> None:
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(8)
    n = 150_000  # past the size that takes threads
    table = pa.table({"m": pa.array([f"m{i}" for i in rng.integers(0, 50, n)]),
                      "q": pa.array([None if i == 7 else f"q{i}" for i in rng.integers(0, 3000, n)])})
    got = codes_of(table, ["m", "q"])
    for (names, code), name in zip(got, ["m", "q"]):
        want_names, want_code = codes(table, name)
        assert names == want_names and np.array_equal(code, want_code)
    assert (got[1][1] == -1).any()


def test_a_quiet_run_writing_csv_imports_only_what_it_needs(tmp_path: Path) -> None:
    """Neither pyarrow.compute (0.1 s of imports), rich, the evaluation tools'
    readers, pandas nor kscore.eval (docs/leaderboard.md, *Speed*)."""
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    rows = [(f"m{m}", f"q{q}", s, (m + q + s) % 2) for m in range(3) for q in range(20) for s in range(4)]
    path = tmp_path / "r.parquet"
    names = ["model", "question", "sample", "correct"]
    pq.write_table(pa.table({k: [r[i] for r in rows] for i, k in enumerate(names)}), path)
    args = ["leaderboard", str(path), "--format", "csv", "-o", str(tmp_path / "b.csv"), "-q"]
    code = (f"import sys; from kscore.cli import main; assert main({args!r}) == 0;"
            "bad = [m for m in ('pyarrow.compute', 'rich', 'pandas', 'kscore.eval', 'kscore.formats._inspect')"
            " if m in sys.modules]; assert not bad, bad")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(("n_models", "n_questions"), [(2, 70_001), (700, 300)])  # several blocks of rows
def test_column_sums_in_blocks_are_sequential_sums(n_models: int, n_questions: int) -> None:
    rng = np.random.default_rng(9)
    table = rng.random((n_models, 7)) * 10 - 3
    states_t = rng.integers(0, 7, (n_questions, n_models)).astype(np.int8)
    m = np.repeat(np.arange(n_models), n_questions)
    rows = states_t.T.ravel()  # model-major rows, as the counts keep them
    want_1d = np.bincount(m, weights=table[0][rows], minlength=n_models)
    want_2d = np.bincount(m, weights=table.ravel()[m * 7 + rows], minlength=n_models)
    assert np.array_equal(column_sums(table[0], states_t) + 0.0, want_1d)
    assert np.array_equal(column_sums(table, states_t, per_column=True) + 0.0, want_2d)
    both = column_sums(np.stack([table[0], table[1]], axis=1), states_t) + 0.0  # two values per state at once
    assert np.array_equal(both[:, 0], want_1d) and np.array_equal(both[:, 1], column_sums(table[1], states_t) + 0.0)


def _hugepage_advice() -> bool:
    """numpy's current setting (read by setting it back)."""
    from kscore.leaderboard.runtime.pages import _setter

    setter = _setter()
    assert setter is not None
    now = bool(setter(True))
    setter(now)
    return now


@pytest.mark.parametrize("before", [True, False])
def test_the_job_runs_on_small_pages_and_restores_numpys_setting(before: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from kscore.leaderboard import LeaderboardError
    from kscore.leaderboard import _run as run
    from kscore.leaderboard.runtime import pages as _pages

    seen: list[bool] = []
    real = run.scores  # type: ignore[attr-defined]

    def spy(*args: Any, **kwargs: Any) -> Scores:
        seen.append(_hugepage_advice())
        out: Scores = real(*args, **kwargs)
        return out

    setter = _pages._setter()
    assert setter is not None
    old = setter(before)
    try:
        monkeypatch.setattr(run, "scores", spy)
        kscore.leaderboard(grid(3, 20, 8, 2, seed=1), metrics="pass@1")
        with pytest.raises(LeaderboardError):
            kscore.leaderboard(grid(3, 20, 8, 2, seed=1), metrics="pass@1", confidence=2.0)
        assert seen == [False]  # off inside the job
        assert _hugepage_advice() is before  # restored after it, also after an error
        # Overlapping jobs: the setting comes back only when the last one leaves.
        with _pages.small_pages():
            with _pages.small_pages():
                assert _hugepage_advice() is False
            assert _hugepage_advice() is False
        assert _hugepage_advice() is before
    finally:
        setter(old)


def _graded_board(n_models: int, n_questions: int, seed: int, sort: str = "pass@1") -> kscore.Leaderboard:
    rng = np.random.default_rng(seed)
    ability = rng.normal(0, 0.6, n_models)
    p = 1 / (1 + np.exp(-(ability[:, None] - rng.normal(0, 1, n_questions))))
    n = np.where(np.arange(n_models)[:, None] % 3 == 0, 4, 8) * np.ones((1, n_questions), np.int64)  # ragged models
    c = rng.binomial(n, p)
    cats = np.stack([(n - c).ravel(), c.ravel()], axis=1)
    counts = Counts([f"m{i}" for i in range(n_models)], [f"q{i}" for i in range(n_questions)],
                    np.repeat(np.arange(n_models), n_questions), np.tile(np.arange(n_questions), n_models), cats)
    return kscore.leaderboard(counts, metrics="pass@1,pass@k,avg@n", k="1,3", sort=sort)


def test_curves_from_the_grid_equal_each_models_rows() -> None:
    from kscore.leaderboard.result import curves
    from kscore.leaderboard.stats.scores import by_model

    lb = _graded_board(7, 60, seed=11)
    assert lb.scores is not None and lb.scores.per_model().grid_t is not None
    index = {lb.counts.models[m]: idx for m, idx in by_model(lb.counts)}
    n_min = {r.model: r.n_min for r in lb.rows}
    for models in (["m3", "m0", "m6", "m1"], ["m5"], [r.model for r in lb.rows]):
        # (the normal interval's band: the grid path and each model's rows; the default interval's band is
        # checked against the table's cells in tests/test_present_curves.py)
        got = curves._over_questions_grid(lb, models, n_min)
        want = [curves._over_questions(lb, index[m], curves.curve_ks(n_min[m])) for m in models]
        assert got == want


def test_compare_codes_from_the_states_equal_those_of_every_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    from kscore.leaderboard.stats import pair_rows

    # avg@n: c / n, bytes; pass@1 here: some estimates a rounding off c / n, float64 (from the estimates).
    boards = [_graded_board(6, 50, seed=12, sort=sort) for sort in ("avg@n", "pass@1")]
    fast = [pair_rows.compare_data(lb) for lb in boards]
    monkeypatch.setattr(pair_rows, "_grid_codes", lambda *a: None)
    assert fast == [pair_rows.compare_data(lb) for lb in boards]
    assert [d["enc"] if d else None for d in fast] == ["u8", "f64"]


def test_listed_pairs_a_few_at_a_time_equal_all_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from kscore.leaderboard.stats import pairs

    rng = np.random.default_rng(13)
    X = rng.binomial(4, 0.6, (30, 200)) / 4.0
    W = rng.random(X.shape) > 0.1
    for cluster in (None, rng.integers(0, 20, 200)):
        for mask in (np.ones_like(W), W):
            i, j = rng.integers(0, 30, 90), rng.integers(0, 30, 90)
            whole = pairs.Pairs(X, mask, cluster).listed(i, j)
            with monkeypatch.context() as mp:
                mp.setattr(pairs, "LISTED", 1000)  # (five pairs at a time)
                parts = pairs.Pairs(X, mask, cluster, sums=False).listed(i, j)
            assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(whole, parts))


@pytest.mark.skipif(not hasattr(kscore._kscore, "grid_sums"), reason="the compiled module predates grid_sums")
@pytest.mark.parametrize(("n_models", "n_questions", "width", "states"), [(1, 5000, 6, 11), (37, 999, 1, 7),
                                                                          (5, 3000, 11, 200), (300, 40, 3, 30_000)])
def test_core_grid_sums_equal_numpys_column_sums(n_models: int, n_questions: int, width: int, states: int) -> None:
    # The core's sums in registers are numpy's column sums to the bit (one or
    # two bytes per state; one table, or one per model as grid_se's squares).
    rng = np.random.default_rng(n_models * width)
    dtype = np.int8 if states <= 127 else np.int16
    which: np.ndarray[Any, np.dtype[np.integer[Any]]] = rng.integers(0, states, (n_models, n_questions)).astype(dtype)
    states_t = np.ascontiguousarray(which.T)
    values = rng.random((states, width)) * 10 - 3
    shared = column_sums(values, states_t)
    assert np.array_equal(column_sums(values, states_t, grid=which), shared)
    own = rng.random((n_models, states, width))
    assert np.array_equal(column_sums(own, states_t, per_column=True, grid=which),
                          column_sums(own, states_t, per_column=True))
    sequential = values[which[:, 0]].copy()
    for q in range(1, n_questions):
        sequential += values[which[:, q]]
    assert np.array_equal(shared, sequential)
    with pytest.raises(ValueError, match="past the table"):
        past: Any = np.full((2, 3), states, np.uint8 if states < 256 else np.uint16)
        kscore._kscore.grid_sums(past, values)


@pytest.mark.skipif(not hasattr(kscore._kscore, "segment_sums"), reason="the compiled module predates segment_sums")
@pytest.mark.parametrize(("states", "width"), [(9, 1), (9, 5), (300, 3)])
def test_segment_se_equals_group_se_tabled(states: int, width: int) -> None:
    # Off the grid (models with different questions, one with none), rows
    # ordered by model: the core's sums per run of rows are bincount's.
    from kscore.leaderboard.stats.intervals import segment_se

    rng = np.random.default_rng(states + width)
    group = np.sort(rng.choice([0, 1, 2, 4, 5, 6], 5000))  # model 3: no rows
    cnt = np.bincount(group, minlength=7)
    which = rng.integers(0, states, len(group))
    values = rng.random((states, width)) * 4 - 1
    values[0] = -0.0
    if width > 1:
        values[1, 1] = np.nan
    starts = np.searchsorted(group, np.arange(8)).astype(np.int64)
    of_row: np.ndarray[Any, np.dtype[np.integer[Any]]] = which.astype(np.int8 if states <= 127 else np.int16)
    got = segment_se(values if width > 1 else values[:, 0], of_row, starts, cnt)
    assert got is not None
    for j in range(width):
        want = group_se_tabled(values[which, j], values[:, j], group * states + which, group, cnt)
        for a, b in zip(got, want):
            assert np.array_equal(a[:, j] if width > 1 else a, b, equal_nan=True)
            assert np.array_equal(np.signbit(a[:, j] if width > 1 else a), np.signbit(b))


def test_dense_rows_of_each_models_run_equal_the_scatter(monkeypatch: pytest.MonkeyPatch) -> None:
    # Off the grid (cells missing), rows ordered by model, some estimates NaN
    # (pass@8 where a row has fewer samples), clusters: each model's run of
    # rows placed on its own gives the scatter's matrices.
    from kscore.leaderboard.stats import compare

    counts = grid(6, 80, 8, 2, seed=14)
    rng = np.random.default_rng(15)
    keep = rng.random(len(counts.model)) > 0.2
    cats = counts.categories.copy()
    cats[::7, 0] -= np.minimum(cats[::7, 0], 3)  # (rows with fewer than 8 samples)
    c = Counts(counts.models, counts.questions, counts.model[keep], counts.question[keep], cats[keep])
    sc = scores(c, parse_metrics(["pass@8,pass@1"], [1, 8]), np.array([0.0, 1.0]), c.question // 9)
    assert sc.per_model().starts is not None and sc.per_model().grid is None
    perm = rng.permutation(len(c.model))
    shuffled = Scores(Counts(c.models, c.questions, c.model[perm], c.question[perm], c.categories[perm]),
                      {k: v[perm] for k, v in sc.x.items()}, None if sc.cluster is None else sc.cluster[perm])
    monkeypatch.setattr(compare, "RUN", 1)
    for name in ("pass@8", "pass@1"):
        for models in (["m5", "m0", "m3"], [f"m{i}" for i in range(6)]):
            fast, slow = dense(sc, name, models), dense(shuffled, name, models)
            assert all(a is not None and b is not None and np.array_equal(a, b) for a, b in zip(fast, slow)), name
