"""kscore.aggregate's confidence signals, prm_aggregate and DeepConf online against scorio 0.2.3.

Random traces (chosen-token log-probabilities; top-k rows with k from 1 to 33,
ragged rows, ties, exact zeros, values down to -1000; lengths past numpy's
pairwise-sum block of 128 and its 8-lane cut) are scored by kscore and by scorio's
own function. Where no exp/log is involved the numbers must be equal to the bit
(kscore sums in numpy's pairwise order); where scorio uses numpy's exp/log
(entropy, varentropy, self-certainty, the top-1 probability, the probability
margin), within 1e-12 relative (numpy's vector exp/log and the C library's differ
by about an ulp). Then every batched form against the one-trace results, and every
error against scorio's type and message.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

scorio_agg = pytest.importorskip("scorio.aggregate")

from kscore import aggregate  # noqa: E402

EXACT = ["mean_logprob", "sequence_logprob", "perplexity", "picsar", "prm_aggregate"]
TOPK_EXACT = ["token_confidence", "deepconf_confidence", "logprob_margin"]
TOPK_EXPLOG = ["self_certainty", "token_entropy", "varentropy", "max_softmax_probability"]

SIZES = [1, 2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 1000, 4099]


def _logprobs(rng: np.random.Generator, t: int) -> np.ndarray:
    x = -rng.exponential(rng.choice([0.01, 1.0, 20.0]), size=t)
    x[rng.random(t) < 0.1] = 0.0
    if t > 3:
        x[rng.integers(t)] = -1000.0 * rng.random()
        x[: t // 4] = x[0]  # ties
    return x


def _topk(rng: np.random.Generator, t: int, k: int) -> np.ndarray:
    m = -np.sort(rng.exponential(rng.choice([0.1, 2.0, 30.0]), size=(t, k)), axis=1)
    if k > 1:
        tie = rng.random(t) < 0.2
        m[tie, 1] = m[tie, 0]  # top-1 ties top-2
    m[rng.random((t, k)) < 0.05] = 0.0
    if t > 2:
        m[rng.integers(t), -1] = -1000.0
    return m


def _ragged(rng: np.random.Generator, t: int) -> list[np.ndarray]:
    return [_topk(rng, 1, int(rng.integers(1, 9)))[0] for _ in range(t)]


def _same(a: Any, b: Any, exact: bool) -> None:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape
    if exact:
        assert np.array_equal(a, b), (a, b)
    else:
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def _same_error(ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    with pytest.raises(Exception) as mine:
        ours()
    with pytest.raises(Exception) as ref:
        theirs()
    assert type(mine.value) is type(ref.value)
    assert str(mine.value) == str(ref.value)


@pytest.mark.parametrize("name", EXACT)
def test_logprob_signals_equal_scorio_to_the_bit(name: str) -> None:
    rng = np.random.default_rng(hash(name) % 2**32)
    ours, theirs = getattr(aggregate, name), getattr(scorio_agg, name)
    for t in SIZES:
        for _ in range(3):
            x = _logprobs(rng, t)
            if name == "perplexity":
                x = x / 100.0  # inside math.exp's range
            if name == "picsar":
                a = int(rng.integers(0, t + 1))
                for norm in (False, True):
                    kw = {"answer_start": a, "normalize_reasoning": norm}
                    assert ours(x, **kw) == theirs(x, **kw)
                    assert type(ours(x, **kw)) is float
                assert ours(x) == theirs(x)
            elif name == "prm_aggregate":
                s = rng.random(t)
                for method in ("last", "min", "mean", "prod", "max"):
                    assert ours(s, method=method) == theirs(s, method=method)
                assert ours(list(s)) == theirs(list(s))
            else:
                got = ours(x)
                assert type(got) is float and got == theirs(x)
                assert ours(x.tolist()) == theirs(x.tolist())


@pytest.mark.parametrize("name", TOPK_EXACT + TOPK_EXPLOG)
def test_topk_signals_equal_scorio(name: str) -> None:
    rng = np.random.default_rng(hash(name) % 2**32)
    ours, theirs = getattr(aggregate, name), getattr(scorio_agg, name)
    exact = name in TOPK_EXACT
    options: list[dict[str, Any]] = [{}]
    if name in TOPK_EXPLOG or name == "logprob_margin":
        options = [{"aggregate": a} for a in ("mean", "min", "max")]
    if name == "logprob_margin":
        options += [{"use_prob": True, "aggregate": a} for a in ("mean", "min", "max")]
    if name == "deepconf_confidence":
        options = [
            {"mode": "mean"},
            {"mode": "tail", "tail_tokens": 5},
            {"mode": "tail"},
            {"mode": "lowest_group", "window": 4},
            {"mode": "lowest_group", "window": 130},
            {"mode": "bottom_group", "window": 3, "bottom_quantile": 0.1},
            {"mode": "bottom_group", "window": 16, "bottom_quantile": 0.37},
            {"mode": "bottom_group", "window": 2, "bottom_quantile": 1.0},
            {"mode": "bottom_group"},
        ]
    for t in SIZES:
        for k in (1, 2, 3, 8, 20, 33):
            if t * k > 40_000:
                continue
            m = _topk(rng, t, k)
            for kw in options:
                prob = kw.get("use_prob", False)
                _same(ours(m, **kw), theirs(m, **kw), exact and not prob)
        r = _ragged(rng, min(t, 300))
        for kw in options:
            prob = kw.get("use_prob", False)
            _same(ours(r, **kw), theirs(r, **kw), exact and not prob)


def test_single_trace_shapes_as_scorio() -> None:
    """A bare (k,) row is one position; a 3-D array's planes are rows (scorio's reading)."""
    row = [-0.1, -2.0, -3.5]
    cube = -np.arange(24.0).reshape(2, 3, 4) / 7
    for name in TOPK_EXACT + TOPK_EXPLOG:
        ours, theirs = getattr(aggregate, name), getattr(scorio_agg, name)
        _same(ours(row), theirs(row), name in TOPK_EXACT)
        _same(ours(cube), theirs(cube), name in TOPK_EXACT)
    assert aggregate.mean_logprob([[-1.0, -2.0], [-3.0, -4.0]]) == scorio_agg.mean_logprob([[-1.0, -2.0], [-3.0, -4.0]])


def test_docstring_examples() -> None:
    """scorio's documented values (its doctests), computed by kscore."""
    assert round(aggregate.mean_logprob([-0.1, -0.2, -0.3]), 4) == -0.2
    assert round(aggregate.perplexity([0.0, 0.0, 0.0]), 4) == 1.0
    assert round(aggregate.token_entropy([[-1.0986, -1.0986, -1.0986]]), 4) == 1.0986
    assert round(aggregate.max_softmax_probability([[0.0, -20.0], [-0.6931, -0.6931]]), 4) == 0.75
    assert round(aggregate.logprob_margin([[0.0, -1.0, -2.0], [-0.5, -0.7, -3.0]]), 4) == 0.6
    assert aggregate.token_confidence([[0.0, -2.0], [-1.0, -3.0]]).tolist() == [1.0, 2.0]
    tk = [[0.0, -2.0]] * 3 + [[-1.0, -3.0]] * 3
    assert aggregate.deepconf_confidence(tk, mode="mean") == 1.5
    assert aggregate.deepconf_confidence(tk, mode="tail", tail_tokens=3) == 2.0
    assert aggregate.deepconf_confidence(tk, mode="lowest_group", window=3) == 1.0
    tk = [[0.0, -2.0]] * 3 + [[-4.0, -6.0]] * 3
    assert aggregate.deepconf_online_stop(tk, threshold=2.0, window=3) == 2
    assert aggregate.deepconf_online_stop(tk, threshold=0.5, window=3) is None
    assert aggregate.deepconf_stop_threshold([1.0, 2.0, 3.0, 4.0, 5.0], keep=0.2) == 4.2
    assert aggregate.prm_aggregate([0.9, 0.4, 0.95], method="min") == 0.4


def test_deepconf_online_equals_scorio() -> None:
    rng = np.random.default_rng(7)
    for t in SIZES:
        m = _topk(rng, t, 5)
        conf = -m.mean(axis=1)
        for window in (1, 2, 7, 64, 2048):
            for q in (0.0, 0.3, 0.5, 0.9, 1.0):
                th = float(np.quantile(conf, q)) if t > 1 else float(conf[0])
                for threshold in (th, th + 1e-9, int(round(th)), float("nan"), float("inf")):
                    got = aggregate.deepconf_online_stop(m, threshold, window=window)
                    want = scorio_agg.deepconf_online_stop(m, threshold, window=window)
                    assert got == want and type(got) is type(want)
        # a threshold numpy broadcasts (not a real number): scorio's own scan
        th_arr = np.array([0.5])
        assert aggregate.deepconf_online_stop(m, th_arr, window=2) == scorio_agg.deepconf_online_stop(
            m, th_arr, window=2
        )
    for n in (1, 2, 5, 10, 33):
        w = rng.normal(size=n) * 3
        for keep in (0.05, 0.1, 0.5, 0.9, 1.0):
            assert aggregate.deepconf_stop_threshold(w, keep=keep) == scorio_agg.deepconf_stop_threshold(w, keep=keep)


def _loop(f: Callable[..., Any], traces: list[Any], **kw: Any) -> np.ndarray:
    return np.array([f(t, **kw) for t in traces], dtype=float)


def test_batches_equal_one_trace_at_a_time() -> None:
    """A sequence of traces, a padded array with lengths, and a questions x samples
    padded array give each trace's own result (and scorio's, looped)."""
    rng = np.random.default_rng(11)
    m_q, n_s, t_max, k = 4, 3, 300, 6
    lens = rng.integers(1, t_max + 1, size=(m_q, n_s))
    lens[0, 0] = t_max
    lens[1, 2] = 1
    padded = np.full((m_q, n_s, t_max, k), 7.0)  # padding must be ignored
    lp_padded = np.full((m_q, n_s, t_max), np.nan)
    traces, lp_traces = [], []
    for i in range(m_q):
        for j in range(n_s):
            tr = _topk(rng, int(lens[i, j]), k)
            padded[i, j, : lens[i, j]] = tr
            traces.append(tr)
            lp = _logprobs(rng, int(lens[i, j]))
            lp_padded[i, j, : lens[i, j]] = lp
            lp_traces.append(lp)
    cases: list[tuple[str, dict[str, Any], bool]] = [
        ("deepconf_confidence", {"mode": "mean"}, True),
        ("deepconf_confidence", {"mode": "tail", "tail_tokens": 9}, True),
        ("deepconf_confidence", {"mode": "lowest_group", "window": 16}, True),
        ("deepconf_confidence", {"mode": "bottom_group", "window": 8, "bottom_quantile": 0.2}, True),
        ("token_entropy", {"aggregate": "max"}, False),
        ("varentropy", {}, False),
        ("self_certainty", {"aggregate": "min"}, False),
        ("max_softmax_probability", {}, False),
        ("logprob_margin", {"use_prob": True}, False),
        ("logprob_margin", {}, True),
    ]
    for name, kw, exact in cases:
        ours = getattr(aggregate, name)
        one = _loop(ours, traces, **kw)
        _same(one, _loop(getattr(scorio_agg, name), traces, **kw), exact)
        by_list = ours(traces, batch=True, **kw)
        by_pad = ours(padded, lengths=lens, **kw)
        assert by_list.shape == (m_q * n_s,) and by_pad.shape == (m_q, n_s)
        assert np.array_equal(by_list, one) and np.array_equal(by_pad.reshape(-1), one)
    for name, kw in [
        ("mean_logprob", {}),
        ("sequence_logprob", {}),
        ("perplexity", {}),
        ("picsar", {"answer_start": 1, "normalize_reasoning": True}),
    ]:
        ours = getattr(aggregate, name)
        one = _loop(ours, lp_traces, **kw)
        _same(one, _loop(getattr(scorio_agg, name), lp_traces, **kw), True)
        assert np.array_equal(ours(lp_traces, batch=True, **kw), one)
        assert np.array_equal(ours(lp_padded, lengths=lens, **kw).reshape(-1), one)
    starts = rng.integers(0, lens + 1)
    got = aggregate.picsar(lp_padded, lengths=lens, answer_start=starts)
    want = [scorio_agg.picsar(t, answer_start=int(a)) for t, a in zip(lp_traces, starts.reshape(-1))]
    assert np.array_equal(got.reshape(-1), want)
    for method in ("last", "min", "mean", "prod", "max"):
        steps = [np.exp(t / 50) for t in lp_traces]
        want = [scorio_agg.prm_aggregate(s, method=method) for s in steps]
        assert np.array_equal(aggregate.prm_aggregate(steps, method=method, batch=True), want)
    # token_confidence: a list of arrays, or a NaN-padded array
    per = aggregate.token_confidence(traces, batch=True)
    assert all(np.array_equal(a, scorio_agg.token_confidence(t)) for a, t in zip(per, traces))
    pad = aggregate.token_confidence(padded, lengths=lens)
    assert pad.shape == (m_q, n_s, t_max)
    assert np.array_equal(pad[2, 1, : lens[2, 1]], scorio_agg.token_confidence(traces[2 * n_s + 1]))
    assert np.isnan(pad[2, 1, lens[2, 1] :]).all()
    # online stop: one threshold for all, or one per trace; -1 for None
    th = rng.uniform(0.5, 3.0, size=(m_q, n_s))
    cut = aggregate.deepconf_online_stop(padded, th, window=5, lengths=lens)
    want_cut = [scorio_agg.deepconf_online_stop(t, float(h), window=5) for t, h in zip(traces, th.reshape(-1))]
    assert cut.dtype == np.int64
    assert cut.reshape(-1).tolist() == [-1 if c is None else c for c in want_cut]
    # warmup thresholds per question
    warm = rng.normal(size=(5, 16))
    got_th = aggregate.deepconf_stop_threshold(warm, keep=0.1, batch=True)
    assert got_th.tolist() == [scorio_agg.deepconf_stop_threshold(w, keep=0.1) for w in warm]
    ragged_warm = [warm[0], warm[1, :3]]
    assert aggregate.deepconf_stop_threshold(ragged_warm, batch=True).tolist() == [
        scorio_agg.deepconf_stop_threshold(w) for w in ragged_warm
    ]


def test_ragged_batch_and_mixed_widths() -> None:
    rng = np.random.default_rng(5)
    traces: list[Any] = [_topk(rng, 40, 3), _ragged(rng, 50), _topk(rng, 1, 1), [[-0.5, -0.7]]]
    for name in TOPK_EXACT[1:] + TOPK_EXPLOG:
        ours, theirs = getattr(aggregate, name), getattr(scorio_agg, name)
        _same(ours(traces, batch=True), _loop(theirs, traces), name in TOPK_EXACT)
        assert np.array_equal(ours(traces, batch=True), _loop(ours, traces))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.mean_logprob([]),
        lambda m: m.mean_logprob([-1.0, float("nan")]),
        lambda m: m.sequence_logprob([float("-inf")]),
        lambda m: m.perplexity([-800.0]),
        lambda m: m.picsar([-1.0, -2.0], answer_start=3),
        lambda m: m.picsar([-1.0, -2.0], answer_start=-1),
        lambda m: m.picsar([-1.0, -2.0], answer_start=1.0),
        lambda m: m.token_entropy([]),
        lambda m: m.token_entropy([[]]),
        lambda m: m.token_entropy(np.zeros((0, 3))),
        lambda m: m.token_entropy([[-1.0, np.inf]]),
        lambda m: m.token_entropy([[-1.0, -2.0], [-1.0]], aggregate="median"),
        lambda m: m.varentropy([[-1.0], [], [np.nan]]),
        lambda m: m.self_certainty([[-1.0], [np.nan], []]),
        lambda m: m.token_confidence([[np.nan, -1.0]]),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="median"),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="lowest_group", window=0),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="lowest_group", window=-3),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="bottom_group", window=0.5),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="bottom_group", bottom_quantile=0.0),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="bottom_group", bottom_quantile=1.5),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="bottom_group", bottom_quantile=float("nan")),
        lambda m: m.deepconf_confidence([[-1.0, -2.0]], mode="tail", tail_tokens="x"),
        lambda m: m.deepconf_confidence([[np.nan]], mode="median"),
        lambda m: m.deepconf_online_stop([[-1.0, -2.0]], 1.0, window=0),
        lambda m: m.deepconf_online_stop([[-1.0, -2.0]], 1.0, window=-2),
        lambda m: m.deepconf_online_stop([], 1.0),
        lambda m: m.deepconf_stop_threshold([1.0], keep=0.0),
        lambda m: m.deepconf_stop_threshold([1.0], keep=1.5),
        lambda m: m.deepconf_stop_threshold([]),
        lambda m: m.deepconf_stop_threshold([1.0, np.nan]),
        lambda m: m.prm_aggregate([0.5], method="median"),
        lambda m: m.prm_aggregate([]),
        lambda m: m.prm_aggregate([0.5, np.inf], method="mean"),
        lambda m: m.logprob_margin(5.0),
    ],
)
def test_errors_as_scorio(call: Callable[[Any], Any]) -> None:
    _same_error(lambda: call(aggregate), lambda: call(scorio_agg))


def test_batch_errors_name_the_trace() -> None:
    good = [[-1.0, -2.0]] * 3
    with pytest.raises(ValueError, match=r"^trace 1: topk_logprobs must all be finite\.$"):
        aggregate.token_entropy([good, [[-1.0, np.nan]]], batch=True)
    # [] is one empty row to scorio (a bare (k,) row with k = 0): the same per trace
    with pytest.raises(ValueError, match=r"^trace 2: every position needs at least one top-k candidate\.$"):
        aggregate.deepconf_confidence([good, good, []], batch=True)
    with pytest.raises(ValueError, match=r"^trace 1: need at least one token and one top-k candidate\.$"):
        aggregate.deepconf_confidence([good, np.zeros((0, 2))], batch=True)
    with pytest.raises(ValueError, match=r"^trace 0: every position needs at least one top-k candidate\.$"):
        aggregate.self_certainty([[[-1.0], []]], batch=True)
    pad = np.zeros((2, 3, 4, 2))
    lens = np.array([[4, 4, 4], [4, 0, 4]])
    with pytest.raises(ValueError, match=r"^trace \(1, 1\): need at least one token"):
        aggregate.deepconf_confidence(pad, lengths=lens)
    pad[0, 2, 3, 1] = np.inf
    with pytest.raises(ValueError, match=r"^trace \(0, 2\): topk_logprobs must all be finite"):
        aggregate.max_softmax_probability(pad, lengths=np.full((2, 3), 4))
    # the padding past a trace's length is never read
    assert np.isfinite(aggregate.max_softmax_probability(pad, lengths=np.full((2, 3), 3))).all()
    with pytest.raises(ValueError, match=r"lengths must be in \[0, 4\]"):
        aggregate.deepconf_confidence(pad, lengths=np.full((2, 3), 5))
    with pytest.raises(ValueError, match=r"lengths must have the traces' shape"):
        aggregate.deepconf_confidence(pad, lengths=np.full(6, 3))
    with pytest.raises(TypeError, match="lengths must be integers"):
        aggregate.deepconf_confidence(pad, lengths=np.full((2, 3), 3.0))
    with pytest.raises(ValueError, match=r"^trace 1: answer_start must be in \[0, 2\]; got 3\.$"):
        aggregate.picsar([[-1.0, -2.0], [-1.0, -2.0]], answer_start=[0, 3], batch=True)
    with pytest.raises(OverflowError, match="^trace 1: math range error$"):
        aggregate.perplexity([[-1.0], [-800.0]], batch=True)
    with pytest.raises(ValueError, match=r"^trace 0: step_scores must be non-empty"):
        aggregate.prm_aggregate([[]], batch=True)
    with pytest.raises(ValueError, match="many traces of top-k rows need a"):
        aggregate.token_entropy(np.zeros((3, 2)), batch=True)


def test_edge_values() -> None:
    """One token, one candidate, all-equal rows, and a long trace (past numpy's
    buffered 8192) against scorio."""
    one = [[-0.25]]
    for name in TOPK_EXACT + TOPK_EXPLOG:
        _same(getattr(aggregate, name)(one), getattr(scorio_agg, name)(one), name in TOPK_EXACT)
    flat = np.full((50, 20), -math.log(20))
    for name in TOPK_EXPLOG:
        _same(getattr(aggregate, name)(flat), getattr(scorio_agg, name)(flat), False)
    assert aggregate.logprob_margin(flat) == 0.0 == scorio_agg.logprob_margin(flat)
    rng = np.random.default_rng(3)
    long = _topk(rng, 20_011, 4)
    for kw in ({"mode": "mean"}, {"mode": "bottom_group", "window": 2048}, {"mode": "lowest_group"}):
        assert aggregate.deepconf_confidence(long, **kw) == scorio_agg.deepconf_confidence(long, **kw)
    lp = _logprobs(rng, 50_000)
    assert aggregate.mean_logprob(lp) == scorio_agg.mean_logprob(lp)
