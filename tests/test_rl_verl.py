"""kscore.rl against verl 0.9.1's own functions, run for real on numpy.

verl is not in the ``test`` extra: its wheel depends on torch, ray, vllm and
more. CI installs the wheel alone (``pip install --no-deps verl==0.9.1``);
these tests skip with a reason when it is absent.

Why the functions are compiled from the installed file: importing
``verl.trainer.ppo.metric_utils`` imports torch, omegaconf and transformers
at the top of the module, but ``bootstrap_metric``, ``calc_maj_val`` and
``process_validation_metrics`` use only numpy, ``defaultdict`` and
``partial``. So the test reads the installed ``metric_utils.py``, takes
those three function definitions from its syntax tree unchanged and
compiles them with the names they need: verl's code, run as is, without
torch.

Monte Carlo error: verl re-seeds numpy with the same seed for every prompt
and statistic, so every prompt sees the same 1000 index draws. The test
replays those draws (the replay matches verl's values to 1e-12) to get the
standard error of verl's average over prompts for each key, and asks kscore's
exact value to lie within 5 of them (plus the ddof=0 bias of verl's std, a
fraction 1/B of it).
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
import os
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from kscore.rl import process_validation_metrics, validation_metrics
from kscore.rl._per_prompt import draw_sizes

FloatArray = npt.NDArray[np.float64]
VERL_VERSION = "0.9.1"
WANTED = ("bootstrap_metric", "calc_maj_val", "process_validation_metrics")


def _load_verl() -> dict[str, Any] | None:
    try:
        version = importlib.metadata.version("verl")
    except importlib.metadata.PackageNotFoundError:
        return None
    if version != VERL_VERSION:
        return None
    spec = importlib.util.find_spec("verl")  # finds the package without running its __init__
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "trainer" / "ppo" / "metric_utils.py"
    tree = ast.parse(path.read_text(), filename=str(path))
    chosen = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in WANTED]
    assert sorted(node.name for node in chosen) == sorted(WANTED), "verl's metric_utils changed"
    namespace: dict[str, Any] = {"np": np, "defaultdict": defaultdict, "partial": partial,
                                 "Any": Any, "Callable": Callable}
    body: list[ast.stmt] = list(chosen)
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)
    return namespace


VERL = _load_verl()
pytestmark = pytest.mark.skipif(
    VERL is None, reason=f"verl {VERL_VERSION} is not installed: pip install --no-deps verl=={VERL_VERSION}")


def verl_process(*args: Any, **kwargs: Any) -> Any:
    assert VERL is not None
    return VERL["process_validation_metrics"](*args, **kwargs)


def make_batch(rng: np.random.Generator, prompts: int, sizes: list[int], answers: int = 4,
               source_names: tuple[str, ...] = ("math", "code")) -> tuple[list[str], list[str], dict[str, list[Any]]]:
    """A realistic batch, shuffled: per prompt a difficulty, answers drawn
    from a few candidates (answer "0" correct), a continuous score."""
    ds: list[str] = []
    uids: list[str] = []
    acc: list[float] = []
    pred: list[str] = []
    score: list[float] = []
    for p in range(prompts):
        n = sizes[p % len(sizes)]
        probs = rng.dirichlet(np.full(answers, 0.5))
        picks = rng.choice(answers, size=n, p=probs)
        for a in picks.tolist():
            ds.append(source_names[p % len(source_names)])
            uids.append(f"u{p}")
            pred.append(str(a))
            acc.append(float(a == 0))
            score.append(float(a == 0) + 0.25 * float(rng.standard_normal()))
    order = rng.permutation(len(ds))
    pick = order.tolist()
    return ([ds[i] for i in pick], [uids[i] for i in pick],
            {"acc": [acc[i] for i in pick], "score": [score[i] for i in pick], "pred": [pred[i] for i in pick]})


def _replay(values: FloatArray, votes: npt.NDArray[np.int64] | None, n: int, resamples: int,
            seed: int) -> dict[str, FloatArray]:
    """verl's per-prompt resample statistics (M x B), from verl's own draws."""
    np.random.seed(seed)
    idx = np.random.choice(values.shape[1], size=(resamples, n), replace=True)
    drawn = values[:, idx]  # (M, B, n)
    out = {"best": drawn.max(axis=2), "worst": drawn.min(axis=2)}
    if votes is not None:
        codes = votes[:, idx]
        count = (codes[:, :, :, None] == codes[:, :, None, :]).sum(axis=3)
        first = count.argmax(axis=2)  # first position of the first-seen most voted answer
        out["maj"] = np.take_along_axis(drawn, first[:, :, None], axis=2)[:, :, 0]
    return out


def _tolerances(ds: list[str], uids: list[str], infos: dict[str, list[Any]], seed: int = 42,
                resamples: int = 1000) -> dict[tuple[str, str, str], tuple[float, float]]:
    """(verl's value as replayed, its Monte Carlo tolerance) per (source, field, key)."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, pair in enumerate(zip(ds, uids)):
        groups[pair].append(i)
    out: dict[tuple[str, str, str], tuple[float, float]] = {}
    for field in ("acc", "score"):
        by_shape: dict[tuple[str, int], list[list[int]]] = defaultdict(list)
        for (source, _), rows in groups.items():
            by_shape[(source, len(rows))].append(rows)
        per_key: dict[tuple[str, str], list[tuple[FloatArray, FloatArray]]] = defaultdict(list)
        for (source, total), prompts in by_shape.items():
            values = np.array([[float(infos[field][i]) for i in rows] for rows in prompts])
            codes = np.array([[int(infos["pred"][i]) for i in rows] for rows in prompts])
            for n in draw_sizes(total):
                for stat, table in _replay(values, codes, n, resamples, seed).items():
                    mean = table.mean(axis=1)
                    std = table.std(axis=1)
                    dev = table - mean[:, None]
                    safe = np.where(std > 0, std, 1.0)
                    influence = np.where(std[:, None] > 0, (dev * dev - std[:, None] ** 2) / (2 * safe[:, None]), 0.0)
                    # The square root's bias (second order: Var(v)/(8 s^3), v the variance estimate,
                    # at most s itself) and ddof=0's (s/2B): large for a rare best or worst (a skewed
                    # 0/1 statistic), where the first-order error alone is too optimistic.
                    fourth = (dev**4).mean(axis=1)
                    sqrt_bias = np.minimum(std, (fourth - std**4).clip(0) / (8 * resamples * safe**3))
                    bias = np.where(std > 0, sqrt_bias + std / (2 * resamples), 0.0)
                    # A value the statistic takes rarely (fewer than 10 times in B, maybe never:
                    # any response's value can come out) moves the std by about |v - mean| sqrt(p),
                    # p up to (count + 3) / B (the rule of three), which B draws cannot see.
                    seen = (table[:, :, None] == values[:, None, :]).sum(axis=1)  # (M, N) per response value
                    rare = np.abs(values - mean[:, None]) * np.sqrt((seen + 3) / resamples) * (seen < 10)
                    span = values.max(axis=1) - values.min(axis=1)
                    ties = (values[:, :, None] == values[:, None, :]).sum(axis=2)  # each distinct value once
                    bias = np.minimum(bias + (rare / ties).sum(axis=1), span)
                    zero = np.zeros((len(mean), 1))
                    per_key[(source, f"{stat}@{n}/mean")].append((table, mean[:, None] + zero))
                    per_key[(source, f"{stat}@{n}/std")].append((influence, np.stack([std, bias], axis=1)))
        for (source, name), parts in per_key.items():
            signal = np.concatenate([p[0] for p in parts])  # (prompts, B)
            level = np.concatenate([p[1] for p in parts])  # (prompts, 1 or 2): value[, bias]
            value = float(level[:, 0].mean())
            se = float(signal.mean(axis=0).std()) / np.sqrt(resamples)
            shift = float(level[:, 1].mean()) if level.shape[1] > 1 else 0.0
            out[(source, field, name)] = (value, 5.0 * se + shift + 1e-12)
    return out


@pytest.mark.parametrize("sizes", [[8], [4, 5, 8, 3], [16]])
def test_every_key_and_value_within_monte_carlo_error(sizes: list[int]) -> None:
    rng = np.random.default_rng(len(sizes) * 100 + sizes[0])
    prompts = 24 if sizes == [16] else 40
    ds, uids, infos = make_batch(rng, prompts, sizes)
    theirs = verl_process(ds, uids, infos)
    ours = process_validation_metrics(ds, uids, infos)
    assert list(ours) == list(theirs)
    replay = _tolerances(ds, uids, infos)
    checked = 0
    for source in theirs:
        assert list(ours[source]) == list(theirs[source])  # pred is a string field: skipped by both
        for field in theirs[source]:
            assert list(ours[source][field]) == list(theirs[source][field])  # same keys, same order
            for key, value in theirs[source][field].items():
                mine = ours[source][field][key]
                if key.startswith(("mean@", "std@")):
                    assert mine == pytest.approx(float(value), rel=1e-12, abs=1e-12), (source, field, key)
                    continue
                replayed, tol = replay[(source, field, key)]
                assert replayed == pytest.approx(float(value), rel=1e-9, abs=1e-12), "replay of verl's draws"
                assert abs(mine - float(value)) <= tol, (source, field, key, mine, float(value), tol)
                checked += 1
    assert checked > 50


def test_expected_acc_counts_and_acc_success_only() -> None:
    rng = np.random.default_rng(7)
    ds, uids, infos = make_batch(rng, 12, [4], source_names=("math",))
    # sessions that failed: some acc values missing (None), an unseen uid, a reward-only source
    infos["acc"] = [None if i % 7 == 3 else a for i, a in enumerate(infos["acc"])]
    ds += ["judge"] * 4
    uids += ["j1"] * 4
    infos["acc"] += [None] * 4
    infos["score"] += [0.1, 0.2, 0.3, 0.4]
    infos["pred"] += ["x", "y", "x", None]
    expected = {("math", f"u{p}"): 5 for p in range(12)}
    expected[("math", "unseen")] = 3
    expected[("judge", "j1")] = 4
    theirs = verl_process(ds, uids, infos, expected_acc_counts=expected)
    ours = process_validation_metrics(ds, uids, infos, expected_acc_counts=expected)
    assert list(ours) == list(theirs)
    assert "acc_success_only" in ours["math"] and "acc" not in ours["judge"]
    for source in theirs:
        assert list(ours[source]) == list(theirs[source])
        for field in theirs[source]:
            assert list(ours[source][field]) == list(theirs[source][field])
            for key in theirs[source][field]:
                if key.startswith(("mean@", "std@")):
                    assert ours[source][field][key] == pytest.approx(float(theirs[source][field][key]), abs=1e-12)


def test_one_response_numeric_pred_and_bool_acc_as_verl() -> None:
    ds = ["a"] * 7
    uids = ["p", "q", "q", "q", "r", "r", "r"]
    infos: dict[str, list[Any]] = {"acc": [True, False, True, True, True, True, False], "pred": [3, 1, 2, 2, 5, 5, 1],
                                   "note": ["x"] * 7}
    theirs = verl_process(ds, uids, infos)
    ours = process_validation_metrics(ds, uids, infos)
    assert list(ours["a"]) == list(theirs["a"]) == ["acc", "pred"]  # a numeric pred is a field too
    for field in theirs["a"]:
        assert list(ours["a"][field]) == list(theirs["a"][field])


def test_odd_input_as_verl() -> None:
    """None dropped, strings skipped per prompt (the first value decides), one response: mean only."""
    args: tuple[list[str], list[str], dict[str, list[Any]]] = (["a"] * 5, ["p", "q", "q", "r", "r"],
            {"acc": [1, None, 0, 1, 1], "note": ["x", "y", "z", "w", "v"], "mix": ["s", 1.0, 2.0, "t", "u"],
             "pred": ["1", "2", "2", None, "1"]})
    theirs = verl_process(*args)
    ours = process_validation_metrics(*args)
    assert list(ours["a"]) == list(theirs["a"])
    for field in theirs["a"]:
        assert list(ours["a"][field]) == list(theirs["a"][field])
        for key, value in theirs["a"][field].items():
            exact = key.startswith(("mean@", "std@")) or field == "acc"  # acc: each prompt's values are equal
            assert ours["a"][field][key] == pytest.approx(float(value), abs=1e-12 if exact else 0.05)


def test_verl_bad_input_behaviour() -> None:
    """What verl does with bad input, next to kscore's one-line errors."""
    with pytest.raises(IndexError):
        verl_process(["a", "a"], ["u"], {"acc": [1.0, 0.0]})
    with pytest.raises(ValueError, match="sample_uids has 1 entries"):
        process_validation_metrics(["a", "a"], ["u"], {"acc": [1.0, 0.0]})
    with pytest.raises(ValueError, match=r"\(data source 'a', prompt 'u'\); rewards must be finite numbers \(strict"):
        process_validation_metrics(["a"] * 2, ["u"] * 2, {"acc": [float("nan"), 1.0]}, strict=True)


def test_nan_as_verl() -> None:
    """A NaN reward: verl's own function puts NaN in the keys of that source
    and field which the prompt enters and carries on; kscore gives NaN in
    the same keys (the rest within Monte Carlo error) and one warning
    naming the field, the data source and the prompt."""
    nan = float("nan")
    ds = ["math"] * 12 + ["code"] * 4
    uids = ["q1"] * 4 + ["q2"] * 4 + ["q3"] * 2 + ["q4"] * 2 + ["c1"] * 4
    # q1's NaN is its 2nd response; every pred of q1 is "x", so verl's vote
    # picks the first drawn response: NaN in a quarter of its 1000 draws.
    acc = [1.0, nan, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    score = [0.5 * i for i in range(16)]
    pred = ["x"] * 4 + ["y", "z", "y", "y"] + ["a", "b", "a", "a"] + ["c", "c", "d", "c"]
    infos: dict[str, list[Any]] = {"acc": acc, "score": score, "pred": pred}
    theirs = verl_process(ds, uids, infos)
    with pytest.warns(RuntimeWarning) as caught:
        ours = process_validation_metrics(ds, uids, infos)
    assert len(caught) == 1
    assert str(caught[0].message).startswith(
        "kscore.rl: infos_dict['acc'][1] is nan (data source 'math', prompt 'q1'): ")
    assert caught[0].filename == __file__  # points at the caller's line
    for source, fields in theirs.items():
        assert set(ours[source]) == set(fields)
        for field, metrics in fields.items():
            assert list(ours[source][field]) == list(metrics)
            for key, value in metrics.items():
                assert np.isnan(ours[source][field][key]) == np.isnan(value), (source, field, key)
                if not np.isnan(value):
                    assert ours[source][field][key] == pytest.approx(float(value), abs=0.1)
    nan_keys = {key for key, value in theirs["math"]["acc"].items() if np.isnan(value)}
    assert nan_keys == {"mean@4", "std@4", "best@2/mean", "best@2/std", "worst@2/mean", "worst@2/std",
                        "maj@2/mean", "maj@2/std", "best@4/mean", "best@4/std", "worst@4/mean", "worst@4/std",
                        "maj@4/mean", "maj@4/std"}  # q3/q4's @2 keys of acc are numbers; so is every score key
    # the keys beyond verl's: NaN where q1 enters (k <= 4); the flat entry point the same
    with pytest.warns(RuntimeWarning, match="prompt 'q1'"):
        extra = process_validation_metrics(ds, uids, infos, unbiased=True)["math"]["acc"]
    assert np.isnan(extra["pass@1"]) and np.isnan(extra["vote@4/hi"])
    with pytest.warns(RuntimeWarning, match="prompt 'q1'"):
        flat = validation_metrics(uids, acc, pred, sources=ds)
    assert np.isnan(flat["val/math/pass@2"]) and not np.isnan(flat["val/code/pass@2"])


def _bootstrap_error(values: list[float], n: int, resamples: int, seed: int) -> tuple[float, float]:
    assert VERL is not None
    [(best, _)] = VERL["bootstrap_metric"](values, n, [np.max], n_bootstrap=resamples, seed=seed)
    exact = process_validation_metrics(["s"] * len(values), ["u"] * len(values), {"x": values})["s"]["x"]
    return float(best), exact[f"best@{n}/mean"]


@pytest.mark.skipif(not os.environ.get("KSCORE_SLOW"), reason="slow: set KSCORE_SLOW=1")
def test_slow_error_shrinks_toward_the_exact_value() -> None:
    """verl's own bootstrap_metric with 10^3 .. 10^5 resamples, 8 seeds each:
    the mean absolute error against kscore falls like 1/sqrt(B)."""
    rng = np.random.default_rng(3)
    values = rng.random(16).tolist()
    errors = []
    for resamples in (1_000, 10_000, 100_000):
        errs = [abs(b - e) for b, e in (_bootstrap_error(values, 4, resamples, seed) for seed in range(8))]
        errors.append(float(np.mean(errs)))
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < errors[0] / 4  # 10x fewer... 100x more resamples, ~10x less error
