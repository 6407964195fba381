"""kscore.rl on its own: exact values against brute-force enumeration of
every resample, unbiased keys against their combinatorial formulas, bad
input, the flat entry point, and the examples of docs/rl.md run as written.
(tests/test_rl_verl.py runs verl's own functions beside these.)"""

from __future__ import annotations

import itertools
import math
import re
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from kscore.leaderboard.stats.default_interval import interval_of
from kscore.rl import process_validation_metrics, validation_metrics
from kscore.rl._majority import win_table
from kscore.rl._per_prompt import draw_sizes
from kscore.rl._verl import nested_metrics


def _moments(outcomes: list[float]) -> tuple[float, float]:
    mean = math.fsum(outcomes) / len(outcomes)
    return mean, math.sqrt(math.fsum((x - mean) ** 2 for x in outcomes) / len(outcomes))


def _vote(sample: list[tuple[float, Any]]) -> float:
    """verl's rule, written out: counts in first-seen order, max keeps the
    first of equal counts, the winner's first response gives the value."""
    first_value: dict[Any, float] = {}
    count: dict[Any, int] = {}
    for value, pred in sample:
        first_value.setdefault(pred, value)
        count[pred] = count.get(pred, 0) + 1
    top = max(count.values())
    winner = next(p for p in count if count[p] == top)
    return first_value[winner]


def brute_force(values: list[float], preds: list[Any] | None) -> dict[str, float]:
    """Every resample of size n (N^n equally likely index sequences)."""
    total = len(values)
    out = {f"mean@{total}": math.fsum(values) / total}
    if total > 1:
        out[f"std@{total}"] = _moments(values)[1]
    for n in draw_sizes(total):
        draws = list(itertools.product(range(total), repeat=n))
        out[f"best@{n}/mean"], out[f"best@{n}/std"] = _moments([max(values[i] for i in d) for d in draws])
        out[f"worst@{n}/mean"], out[f"worst@{n}/std"] = _moments([min(values[i] for i in d) for d in draws])
        if preds is not None:
            votes = [_vote([(values[i], preds[i]) for i in d]) for d in draws]
            out[f"maj@{n}/mean"], out[f"maj@{n}/std"] = _moments(votes)
    return out


CASES: list[tuple[list[float], list[Any] | None]] = [
    ([1.0, 0.0, 1.0], ["a", "b", "a"]),
    ([0.5, 0.2, 0.9, 0.2], ["x", "y", "z", "y"]),  # ties in value, and a vote tie at every n
    ([0.3, 0.7, 0.1, 0.7, 0.4], [1, 2, 1, 2, 3]),  # one answer, different values: the first drawn counts
    ([1.0, 1.0, 0.0, 0.0, 1.0, 0.0], ["p", "q", "r", "s", "t", "u"]),  # six answers, all tied at n = 2
    ([2.0, -1.0, 0.5, 0.5, 3.0, -1.0], [None, None, None, None, None, None]),
    ([0.25, 0.75], ["a", "a"]),
    ([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0], ["a", "b", "b", "a", "c", "b", "c"]),
    ([1.0, 1.0, 1.0, 1.0], ["a", "b", "a", "c"]),  # 0/1 field (the p * q moments), every statistic certain
    ([0.0, 0.0, 0.0, 0.0, 1.0], ["a", "a", "b", "c", "d"]),  # 0/1, worst@n nearly certain
]


@pytest.mark.parametrize(("values", "preds"), CASES)
def test_exact_equals_every_resample(values: list[float], preds: list[Any] | None) -> None:
    infos: dict[str, list[Any]] = {"x": values}
    if preds is not None and preds[0] is not None:
        infos["pred"] = preds
    voted = preds if "pred" in infos else None
    ours = process_validation_metrics(["s"] * len(values), ["u"] * len(values), infos)["s"]["x"]
    expected = brute_force(values, voted)
    assert list(ours) == list(expected)
    for key, value in expected.items():
        assert abs(ours[key] - value) <= 1e-12, (key, ours[key], value)


def test_win_table_against_enumeration_of_partitions() -> None:
    """Every partition of N <= 6, every n: the tie rule's win probabilities."""
    def partitions(total: int, top: int) -> list[tuple[int, ...]]:
        if total == 0:
            return [()]
        return [(k, *rest) for k in range(min(total, top), 0, -1) for rest in partitions(total - k, k)]

    for total in range(1, 7):
        for sizes in partitions(total, total):
            labels = [g for g, s in enumerate(sizes) for _ in range(s)]
            table = win_table(sizes)
            for n in range(1, total + 1):
                wins = [0] * len(sizes)
                for draw in itertools.product(range(total), repeat=n):
                    count: dict[int, int] = {}
                    for j in draw:
                        count[labels[j]] = count.get(labels[j], 0) + 1
                    wins[max(count, key=count.__getitem__)] += 1
                for g, s in enumerate(sizes):
                    assert abs(table[n - 1, s] - wins[g] / total**n) <= 1e-13, (sizes, n, g)


def _vote_by_counts(sizes: tuple[int, ...], n: int) -> list[float]:
    """Win probabilities summed over every vector of vote counts (multinomial
    weights in log space, ties shared evenly: the tie rule's limit)."""
    total = sum(sizes)
    logq = [math.log(s / total) for s in sizes]
    wins: list[list[float]] = [[] for _ in sizes]

    def walk(i: int, left: int, counts: list[int]) -> None:
        if i == len(sizes) - 1:
            full = [*counts, left]
            p = math.exp(math.lgamma(n + 1) + sum(c * lq - math.lgamma(c + 1) for c, lq in zip(full, logq)))
            top = max(full)
            tied = [g for g, c in enumerate(full) if c == top]
            for g in tied:
                wins[g].append(p / len(tied))
            return
        for c in range(left + 1):
            walk(i + 1, left - c, [*counts, c])

    walk(0, n, [])
    return [math.fsum(w) for w in wins]


@pytest.mark.parametrize("sizes", [(120, 80), (100, 60, 40), (7, 5, 5, 3)])
def test_win_table_large_n_against_vote_counts(sizes: tuple[int, ...]) -> None:
    """Past N = 170 (where 1/N! underflows) the table stays exact."""
    table = win_table(sizes)
    total = sum(sizes)
    for n in (1, 2, 7, 20, total - 1, total) if len(sizes) < 4 else (1, 2, 7, 20):
        expected = _vote_by_counts(sizes, n)
        for g, s in enumerate(sizes):
            assert abs(table[n - 1, s] - expected[g]) <= 1e-12, (sizes, n, g)


def test_module_examples() -> None:
    """Every docstring example of kscore.rl holds."""
    import doctest
    import importlib
    import pkgutil

    import kscore.rl

    names = ["kscore.rl"] + [f"kscore.rl.{m.name}" for m in pkgutil.iter_modules(kscore.rl.__path__)]
    attempted = 0
    for name in names:
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.NORMALIZE_WHITESPACE)
        assert result.failed == 0, name
        attempted += result.attempted
    assert attempted >= 10


def test_many_prompts_ragged_and_shuffled_equal_one_at_a_time() -> None:
    rng = np.random.default_rng(5)
    rows: list[tuple[str, str, float, str]] = []
    for p in range(30):
        n = int(rng.integers(1, 7))
        for _ in range(n):
            a = int(rng.integers(0, 3))
            rows.append(("ds" + str(p % 3), f"u{p}", float(a == 0) if p % 2 else float(rng.random()), str(a)))
    order = rng.permutation(len(rows)).tolist()
    shuffled = [rows[i] for i in order]
    ours = process_validation_metrics([r[0] for r in shuffled], [r[1] for r in shuffled],
                                      {"acc": [r[2] for r in shuffled], "pred": [r[3] for r in shuffled]})
    for source in ours:
        sums: dict[str, list[float]] = {}
        for uid in dict.fromkeys(r[1] for r in shuffled if r[0] == source):
            mine = [r for r in shuffled if r[1] == uid]
            single = brute_force([r[2] for r in mine], [r[3] for r in mine]) if len(mine) <= 5 else None
            one = process_validation_metrics([source] * len(mine), [uid] * len(mine),
                                             {"acc": [r[2] for r in mine], "pred": [r[3] for r in mine]})
            for key, value in one[source]["acc"].items():
                if single is not None:
                    assert abs(value - single[key]) <= 1e-12
                sums.setdefault(key, []).append(value)
        assert set(ours[source]["acc"]) == set(sums)
        for key, vals in sums.items():
            assert ours[source]["acc"][key] == pytest.approx(statistics.fmean(vals), abs=1e-12)


def test_unbiased_keys_against_formulas() -> None:
    n = [8, 8, 6, 8]
    c = [0, 3, 6, 5]
    ds, uids, acc = [], [], []
    for p, (ni, ci) in enumerate(zip(n, c)):
        for j in range(ni):
            ds.append("s")
            uids.append(p)
            acc.append(1 if j < ci else 0)
    out = process_validation_metrics(ds, uids, {"acc": acc}, unbiased=True)["s"]["acc"]
    formulas: dict[str, Callable[[int, int, int], float]] = {
        "pass@": lambda ni, ci, k: 1 - math.comb(ni - ci, k) / math.comb(ni, k),
        "pass_hat@": lambda ni, ci, k: math.comb(ci, k) / math.comb(ni, k),
        "strict_maj@": lambda ni, ci, k: sum(math.comb(ci, j) * math.comb(ni - ci, k - j)
                                             for j in range(k // 2 + 1, k + 1)) / math.comb(ni, k),
    }
    for k in (1, 2, 4, 8):  # powers of two below the most responses (8), and 8
        for prefix, f in formulas.items():
            per = [f(ni, ci, k) for ni, ci in zip(n, c) if ni >= k]  # the prompts with k or more responses
            mean = statistics.fmean(per)
            # the leaderboard's default interval over prompts (issue 36; interval_of is tested against the board)
            lo, hi = interval_of(np.array(per), float(sum(ni for ni in n if ni >= k)), 0.95)
            assert out[f"{prefix}{k}"] == pytest.approx(mean, abs=1e-12)
            assert out[f"{prefix}{k}/lo"] == pytest.approx(lo, abs=1e-12)
            assert out[f"{prefix}{k}/hi"] == pytest.approx(hi, abs=1e-12)
    assert "pass@16" not in out and "pass@6" not in out
    # verl's keys are untouched by the extra ones
    plain = process_validation_metrics(ds, uids, {"acc": acc})["s"]["acc"]
    assert {k: out[k] for k in plain} == plain


def _vote_without_replacement(values: list[float], preds: list[Any], k: int) -> float:
    """verl's vote over every ordered draw of k distinct responses."""
    votes = [_vote([(values[i], preds[i]) for i in d]) for d in itertools.permutations(range(len(values)), k)]
    return math.fsum(votes) / len(votes)


def test_vote_at_k_against_every_draw_without_replacement() -> None:
    prompts: list[tuple[list[float], list[Any]]] = [
        ([0.3, 0.7, 0.1, 0.7, 0.4, 0.9], [1, 2, 1, 2, 3, 3]),  # three answers tied in pairs
        ([1.0, 0.0, 0.0, 1.0, 0.5, 0.0], ["a", "b", "b", "a", "c", "b"]),
        ([0.2, 0.2, 0.8, 0.6, 0.6, 0.1, 0.9], ["x", "x", "y", "z", "z", "w", "v"]),
    ]
    ds: list[str] = []
    uids: list[int] = []
    vals: list[float] = []
    preds: list[Any] = []
    for p, (v, pr) in enumerate(prompts):
        ds += ["s"] * len(v)
        uids += [p] * len(v)
        vals += v
        preds += pr
    out = process_validation_metrics(ds, uids, {"x": vals, "pred": preds}, unbiased=True)["s"]["x"]
    for k in (1, 2, 4):
        per = [_vote_without_replacement(v, pr, k) for v, pr in prompts]
        assert abs(out[f"vote@{k}"] - statistics.fmean(per)) <= 1e-12, k
        lo, hi = interval_of(np.array(per), float(len(vals)), 0.95, (min(vals), max(vals)))
        assert out[f"vote@{k}/lo"] == pytest.approx(lo, abs=1e-12)
        assert out[f"vote@{k}/hi"] == pytest.approx(hi, abs=1e-12)
    assert out["vote@1"] == pytest.approx(out["mean@6"] * 2 / 3 + statistics.fmean(prompts[2][0]) / 3, abs=1e-12)
    assert "pass@1" not in out  # not a 0/1 field
    # k = 7 (the most responses, a default k): only the prompt with 7, its interval the value range
    assert "vote@6" not in out
    assert abs(out["vote@7"] - _vote_without_replacement(*prompts[2], 7)) <= 1e-12
    assert (out["vote@7/lo"], out["vote@7/hi"]) == (min(vals), max(vals))
    six = nested_metrics(ds, uids, {"x": vals, "pred": preds}, unbiased=True, ks=[6])["s"]["x"]
    assert abs(six["vote@6"] - statistics.fmean(_vote_without_replacement(v, pr, 6) for v, pr in prompts)) <= 1e-12


def test_ragged_prompts_keep_every_k() -> None:
    """One prompt with a single response no longer removes pass@k, k >= 2,
    from its data source: each k averages the prompts with k or more; a k
    above every prompt's responses names the data source and prompt."""
    ids = ["lone"] + ["a"] * 4 + ["b"] * 4
    rewards = [1, 1, 0, 0, 0, 1, 1, 1, 0]
    m = validation_metrics(ids, rewards, sources=["math"] * 9)
    pass_a = [1 - math.comb(4 - 1, k) / math.comb(4, k) for k in (1, 2, 4)]
    pass_b = [1 - math.comb(4 - 3, k) / math.comb(4, k) for k in (1, 2, 4)]
    assert m["val/math/pass@1"] == pytest.approx((1 + pass_a[0] + pass_b[0]) / 3, abs=1e-15)
    assert m["val/math/pass@2"] == pytest.approx((pass_a[1] + pass_b[1]) / 2, abs=1e-15)
    assert m["val/math/pass@4"] == pytest.approx((pass_a[2] + pass_b[2]) / 2, abs=1e-15)
    with pytest.raises(ValueError, match=r"^ks\[2\] = 8 must be in 1\.\.4, the most responses of a prompt "
                                         r"\(data source 'math', prompt 'a'\)$"):
        validation_metrics(ids, rewards, sources=["math"] * 9, ks=[1, 2, 8])


def test_win_table_without_replacement_against_every_draw() -> None:
    for sizes in [(2, 1), (2, 2), (3, 2, 1), (2, 2, 1, 1), (4, 1, 1)]:
        labels = [g for g, s in enumerate(sizes) for _ in range(s)]
        table = win_table(sizes, False)
        for n in range(1, sum(sizes) + 1):
            wins = [0] * len(sizes)
            draws = list(itertools.permutations(range(sum(sizes)), n))
            for draw in draws:
                count: dict[int, int] = {}
                for j in draw:
                    count[labels[j]] = count.get(labels[j], 0) + 1
                wins[max(count, key=count.__getitem__)] += 1
            for g, s in enumerate(sizes):
                assert abs(table[n - 1, s] - wins[g] / len(draws)) <= 1e-13, (sizes, n, g)


def test_continuous_field_gets_no_unbiased_keys() -> None:
    out = process_validation_metrics(["s"] * 4, ["u"] * 4, {"score": [0.1, 0.5, 1.0, 0.0]}, unbiased=True)
    assert not any(k.startswith("pass") for k in out["s"]["score"])


def test_seed_has_no_effect() -> None:
    args: tuple[list[str], list[str], dict[str, list[Any]]] = (
        ["s"] * 6, ["u", "u", "u", "v", "v", "v"], {"acc": [1, 0, 1, 0, 0, 1], "pred": list("abacca")})
    assert process_validation_metrics(*args, seed=1) == process_validation_metrics(*args, seed=12345)


def test_flat_entry_point() -> None:
    ids = [3, 1, 3, 1, 2, 2, 2, 1]
    rewards = [1, 0, 0, 1, 1, 1, 1, 0]
    preds = ["a", "b", "c", "a", "d", "d", "d", "b"]
    flat = validation_metrics(ids, rewards, preds, prefix="val")
    nested = process_validation_metrics(["all"] * 8, ids, {"reward": rewards, "pred": preds}, unbiased=True)
    assert flat == {f"val/all/{k}": v for k, v in nested["all"]["reward"].items()}
    # any order: the same numbers
    order = [7, 0, 5, 2, 4, 1, 6, 3]
    again = validation_metrics([ids[i] for i in order], [rewards[i] for i in order], [preds[i] for i in order])
    assert again.keys() == flat.keys()
    for key in flat:
        assert again[key] == pytest.approx(flat[key], abs=1e-12)
    by_source = validation_metrics(ids, rewards, sources=["a" if i == 3 else "b" for i in ids], ks=[1, 2])
    assert by_source["val/a/pass@2"] == 1.0 and "val/b/pass@2/hi" in by_source
    assert flat["val/all/pass@2"] == pytest.approx((1 + (1 - 1 / 3) + 1) / 3)  # 1 - C(2,2)/C(3,2) for prompt 1


def test_numpy_arrays_in() -> None:
    ids = np.repeat(np.arange(4), 4)
    rewards = np.array([1, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 0], dtype=np.int8)
    a = validation_metrics(ids, rewards)
    b = validation_metrics(ids.tolist(), rewards.astype(bool).tolist())
    assert a == b


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        ((["a", "a"], ["u"], {"acc": [1, 0]}), ValueError, "sample_uids has 1 entries, data_sources 2"),
        ((["a", "a"], ["u", "u"], {"acc": [1]}), ValueError, r"infos_dict\['acc'\] has 1 entries"),
        ((["a", "a"], ["u", "u"], {"acc": [1.0, float("nan")]}), ValueError,
         r"infos_dict\['acc'\]\[1\] is nan \(data source 'a', prompt 'u'\)"),
        ((["a", "a"], ["u", "u"], {"r": [float("inf"), 1]}), ValueError, "must be finite"),
        ((["a", "a"], ["u", "u"], {"r": [{"x": 1}, 1]}), TypeError,
         r"infos_dict\['r'\]\[0\] is a dict \(data source 'a', prompt 'u'\)"),
        ((["a", "a"], ["u", "u"], {"r": [1, "x"]}), TypeError,
         r"mixes numbers and strings within one prompt \(data source 'a', prompt 'u'\)"),
        ((["a", "a"], [["u"], ["u"]], {"r": [1, 0]}), TypeError, "sample_uids must be hashable"),
        ((["a", "a"], ["u", "u"], {"r": [1, 0], "pred": [[1], [2]]}), TypeError,
         r"infos_dict\['pred'\]\[0\] is a list"),
    ],
)
def test_bad_input_one_line_errors(args: tuple[Any, ...], error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match) as info:
        process_validation_metrics(*args, strict=True)
    assert "\n" not in str(info.value)


def test_verl_rules_for_odd_input() -> None:
    # one response: mean only; strings skipped per prompt (first value decides); None dropped
    out = process_validation_metrics(
        ["a"] * 5, ["p", "q", "q", "r", "r"],
        {"acc": [1, None, 0, 1, 1], "note": ["x", "y", "z", "w", "v"], "mix": ["s", 1.0, 2.0, "t", "u"]})
    acc = out["a"]["acc"]  # p: [1] and q: [0] (None dropped) give mean@1; r: [1, 1] the @2 keys
    assert (acc["mean@1"], acc["mean@2"], acc["std@2"], acc["best@2/mean"]) == (0.5, 1.0, 0.0, 1.0)
    assert "std@1" not in acc
    assert "note" not in out["a"]
    assert out["a"]["mix"]["mean@2"] == 1.5  # only q's numbers: p and r start with a string
    assert process_validation_metrics([], [], {"acc": []}) == {}


def _doc_blocks() -> list[str]:
    text = (Path(__file__).resolve().parent.parent / "docs" / "rl.md").read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("block", range(len(_doc_blocks())))
def test_docs_examples_run_as_written(block: int) -> None:
    exec(compile(_doc_blocks()[block], f"docs/rl.md[{block}]", "exec"), {"__name__": "__docs__"})


def _partitions(total: int, top: int) -> list[tuple[int, ...]]:
    if total == 0:
        return [()]
    return [(k, *rest) for k in range(min(total, top), 0, -1) for rest in _partitions(total - k, k)]


@pytest.mark.parametrize("replace", [True, False])
def test_vote_count_sums_against_generating_functions(replace: bool) -> None:
    """The batched sum over vote counts (kscore.rl._vote_counts, a first
    call's fast path) against win_table, every partition of N <= 10 that it
    takes and N = 16 with up to 5 answers, every n."""
    from kscore.rl._vote_counts import countable, win_rows

    for total in [*range(1, 11), 16]:
        parts = [p for p in _partitions(total, total) if countable(total, len(p))]
        assert parts
        for groups in sorted({len(p) for p in parts}):
            same = [p for p in parts if len(p) == groups]
            draws = tuple(range(1, total + 1))
            rows = win_rows(np.array(same, np.int64), draws, replace)
            for part, row in zip(same, rows):
                table = win_table(part, replace)
                for g, s in enumerate(part):
                    assert np.abs(row[:, g] - table[:, s]).max() <= 1e-13, (part, g)


def test_vote_count_sums_against_every_draw() -> None:
    """Small partitions, with replacement: every sequence of draws."""
    from kscore.rl._vote_counts import win_rows

    for sizes in [(1,), (2, 1), (2, 2), (3, 2, 1), (2, 2, 1, 1)]:
        total = sum(sizes)
        labels = [g for g, s in enumerate(sizes) for _ in range(s)]
        rows = win_rows(np.array([sizes], np.int64), tuple(range(1, total + 1)))[0]
        for n in range(1, total + 1):
            wins = [0] * len(sizes)
            for draw in itertools.product(range(total), repeat=n):
                count: dict[int, int] = {}
                for j in draw:
                    count[labels[j]] = count.get(labels[j], 0) + 1
                wins[max(count, key=count.__getitem__)] += 1
            for g in range(len(sizes)):
                assert abs(rows[n - 1, g] - wins[g] / total**n) <= 1e-13, (sizes, n, g)


def test_first_call_equals_later_calls_and_mixed_paths() -> None:
    """Vote weights from a fresh cache (sums over counts for few answers,
    generating functions for many) equal those of a warm cache, and many
    answers per prompt (the sort path of the group sizes) agree with few."""
    from kscore.rl._per_prompt import clear_caches

    rng = np.random.default_rng(7)
    n, prompts = 16, 40
    uids = [f"u{p}" for p in range(prompts) for _ in range(n)]
    answers = [int(a) for p in range(prompts) for a in rng.integers(0, 1 + p % 12, n)]  # 1 to 12 answers
    acc = [float(a == 0) for a in answers]
    infos: dict[str, list[Any]] = {"acc": acc, "pred": [str(a) for a in answers]}
    clear_caches()
    first = process_validation_metrics(["s"] * len(uids), uids, infos, unbiased=True)
    again = process_validation_metrics(["s"] * len(uids), uids, infos, unbiased=True)
    assert first == again
    # The same answers named per prompt: many distinct codes in the batch,
    # few per prompt (the group sizes by sorting instead of counting).
    wide: dict[str, list[Any]] = {"acc": acc, "pred": [f"{i // n}-{a}" for i, a in enumerate(answers)]}
    clear_caches()
    spread = process_validation_metrics(["s"] * len(uids), uids, wide, unbiased=True)
    for key, value in first["s"]["acc"].items():
        assert abs(spread["s"]["acc"][key] - value) <= 1e-12, key


@pytest.mark.parametrize("layout", ["blocks", "uid twice", "uid in two sources", "ragged tail", "wider first"])
def test_block_layout_reads_like_any_layout(layout: str) -> None:
    """Lists in verl's layout (each prompt's responses side by side) are
    coded by blocks; every departure from it falls back, and the result is
    the one of numpy object arrays (which never take the block path)."""
    rng = np.random.default_rng(11)
    sizes = {"blocks": [8] * 12, "uid twice": [8] * 12, "uid in two sources": [8] * 12,
             "ragged tail": [8] * 11 + [5], "wider first": [8] + [4] * 12}[layout]  # 56: blocks of 8 fail
    uids = [f"q{p}" for p, n in enumerate(sizes) for _ in range(n)]
    ds = ["math" if p % 3 else "code" for p, n in enumerate(sizes) for _ in range(n)]
    if layout == "uid twice":
        uids = [u if u != "q7" else "q2" for u in uids]  # q2's responses in two blocks
    if layout == "uid in two sources":
        ds[3] = "code"  # q0's fourth response from another source
    preds = [str(a) for a in rng.integers(0, 3, len(uids))]
    infos: dict[str, list[Any]] = {"acc": [float(p == "0") for p in preds], "score": rng.random(len(uids)).tolist(),
                                   "pred": preds}
    ours = process_validation_metrics(ds, uids, infos, unbiased=True)
    reference = process_validation_metrics(np.array(ds, dtype=object), np.array(uids, dtype=object),
                                           {k: np.array(v, dtype=object) for k, v in infos.items()}, unbiased=True)
    assert ours == reference


def test_binary_moments_equal_the_general_ones() -> None:
    """The 0/1 shortcut of weighted_moments (variance p * q) against the
    sum of squared deviations, for both weight layouts; a certain
    statistic has standard deviation exactly 0."""
    from kscore.rl._order_stats import weighted_moments
    from kscore.rl._per_prompt import stat_weights

    rng = np.random.default_rng(5)
    values = (rng.random((300, 16)) < rng.random((300, 1))).astype(float)
    values[0] = 1.0
    values[1] = 0.0
    for weights in (stat_weights(16), rng.dirichlet(np.full(16, 0.3), size=(4, 300))):
        sorted_values = np.sort(values, axis=1) if weights.ndim == 2 else values
        mean, std = weighted_moments(sorted_values, weights)
        mean_b, std_b = weighted_moments(sorted_values, weights, binary=True)
        assert np.abs(mean - mean_b).max() <= 1e-15 and np.abs(std - std_b).max() <= 1e-14
        assert (std_b[:, :2] == 0.0).all()
