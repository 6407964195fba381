"""The paired comparisons a reader asks for, one row per pair, streamed
(docs/leaderboard.md, *Paired comparisons*): ``all`` pairs, the pairs of
the ``top N`` models, or the ``adjacent`` ones (each model and the next in
rank order). Made a block of rows at a time (stats/ranges.py's blocks), written
as they come: ``--pairwise all`` on 10 000 models is 50 million rows on
disk, never in memory."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ..._arrays import FloatArray, IntArray
from ..._interval import z_value
from .._issues import LeaderboardError
from .compare import dense
from .intervals import p_two_sided
from .pair_tests import u_threshold
from .pairs import Pairs
from .ranges import RankSets
from .rank import scored_models
from .ranked import Ranked
from .scores import Scores


def parse_pairwise(spec: str | list[str] | None) -> tuple[str, int | None]:
    """``auto``, ``none``, ``all``, ``adjacent`` or ``top N`` (also
    ``top=N``) as (kind, N).

    >>> parse_pairwise(["top", "20"]), parse_pairwise("adjacent")
    (('top', 20), ('adjacent', None))
    """
    words = (spec.replace("=", " ").split() if isinstance(spec, str) else
             [w for x in spec for w in x.replace("=", " ").split()]) if spec is not None else ["auto"]
    if len(words) == 1 and words[0] in ("auto", "none", "all", "adjacent"):
        return words[0], None
    if len(words) == 2 and words[0] == "top" and words[1].isdigit() and int(words[1]) >= 2:
        return "top", int(words[1])
    raise LeaderboardError(f"--pairwise takes all, adjacent, none or top N (N >= 2); got {' '.join(words)!r}")


def _rows(models: list[str], ia: Any, ib: Any, n: Any, diff: FloatArray, se: FloatArray,
          confidence: float, sets: RankSets | None) -> Iterator[dict[str, Any]]:
    z = z_value(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.sign(diff) * np.inf))
    t = np.where(np.isnan(se), np.nan, t)
    p = p_two_sided(t)
    if sets is not None:
        sig = sets.significant(np.abs(t), p)
    else:
        with np.errstate(invalid="ignore"):
            sig = p < 1.0 - confidence

    def num(x: float) -> float | None:
        return None if math.isnan(x) else x

    for k in range(len(diff)):
        d, s = float(diff[k]), float(se[k])
        yield {"a": models[int(ia[k])], "b": models[int(ib[k])], "questions": int(n[k]), "diff": num(d),
               "sigma": num(s), "lo": num(d - z * s), "hi": num(d + z * s), "p": num(float(p[k])),
               "significant": bool(sig[k])}


def pair_rows(lb: Ranked, kind: str, top: int | None = None) -> Iterator[dict[str, Any]]:
    """The rows of the pairs ``kind`` (``all``, ``top``, ``adjacent``) on
    the sorted metric, model ``a`` ranked above ``b``; ``significant`` by
    the board's rule (its ``adjust``)."""
    if lb.scores is None:
        raise LeaderboardError("this leaderboard keeps no per-question scores")
    models = scored_models(lb.rows, lb.sort)
    if kind == "top" and top is not None:
        models = models[:top]
    if len(models) < 2 or kind == "none":
        return
    X, W, cl = dense(lb.scores, lb.sort.name, models)
    pairs = Pairs(X, W, cl, overwrite=True, sums=kind != "adjacent")  # (X is dense()'s own)
    del X
    if kind == "adjacent":
        for a in range(0, len(models) - 1, 4096):
            b = min(a + 4096, len(models) - 1)
            i = np.arange(a, b)
            diff, se, n = pairs.listed(i, i + 1)
            yield from _rows(models, i, i + 1, n, diff, se, lb.confidence, lb.ranks)
        return
    for a, b, diff, se, _ in pairs.blocks():
        n = np.full(diff.shape, float(pairs.Q)) if pairs.full else pairs.Wf[a:b] @ pairs.Wf[a:].T
        ii, jj = np.nonzero(np.arange(diff.shape[1])[None, :] > np.arange(b - a)[:, None])  # (each pair once)
        yield from _rows(models, ii + a, jj + a, n[ii, jj], diff[ii, jj], se[ii, jj], lb.confidence, lb.ranks)


#: Denominators tried for a compact code of the per-question estimates
#: (``c / n`` with ``n`` samples: 4, 8, 16, ... and their multiples).
DENOMINATORS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 50, 64, 100, 128, 2520, 5040, 55440)


def compare_data(lb: Ranked) -> dict[str, Any] | None:
    """What the HTML page needs to compare any model with every other on
    the sorted metric, in its own script (docs/leaderboard.md, *Paired
    comparisons*): the models in board order, each one's per-question
    estimates (``x``: base64, models x questions, row-major; ``c / den``
    as unsigned bytes or 16-bit integers when every estimate is exactly
    such a fraction, else float64; ``miss`` marks a question the model
    lacks), the questions' clusters, ``z`` of the intervals and the board's
    rule as thresholds of ``|t|`` (:meth:`RankSets.cuts`). None without
    per-question scores. 10 000 models x 100 questions: 1.3 MB.

    >>> import kscore, pandas as pd
    >>> df = pd.DataFrame({"model": ["a", "a", "b", "b"], "question": [1, 2, 1, 2], "n": 4, "c": [4, 3, 1, 0]})
    >>> d = compare_data(kscore.leaderboard(df, metrics="pass@1"))
    >>> d["models"], d["enc"], d["den"], d["q"]
    (['a', 'b'], 'u8', 4, 2)
    """
    import base64

    if lb.scores is None:
        return None
    models = scored_models(lb.rows, lb.sort)
    if len(models) < 2:
        return None
    u_cut, t_crit = lb.ranks.cuts() if lb.ranks is not None else (
        u_threshold(1.0 - lb.confidence), None)
    rule = {"z": z_value(lb.confidence), "ucut": u_cut if math.isfinite(u_cut) else None, "tcrit": t_crit}
    coded = _grid_codes(lb.scores, lb.sort.name, models)
    if coded is not None:
        g_enc, g_den, g_miss, g_codes, q, g_cl = coded
        return {"models": models, "q": q, "enc": g_enc, "den": g_den, "miss": g_miss,
                "x": base64.b64encode(np.ascontiguousarray(g_codes).tobytes()).decode("ascii"),
                "cl": None if g_cl is None else g_cl.tolist(), **rule}
    X, W, cl = dense(lb.scores, lb.sort.name, models)
    enc, den, miss = "f64", 1, None
    codes: npt.NDArray[Any] = np.where(W, X, np.nan)
    for d in DENOMINATORS:
        c = np.rint(X * d)
        if np.array_equal(np.where(W, c / d, 0.0), np.where(W, X, 0.0)) and c.min(initial=0) >= 0:
            top = float(c.max(initial=0))
            if top < 65535:  # (the largest code marks a missing question)
                enc, den, miss = ("u8", d, 255) if top < 255 else ("u16", d, 65535)
                codes = np.where(W, c, miss).astype(np.uint8 if enc == "u8" else "<u2")
                break
    if enc == "f64":
        codes = codes.astype("<f8")  # (missing: NaN)
    return {"models": models, "q": int(X.shape[1]), "enc": enc, "den": den, "miss": miss,
            "x": base64.b64encode(np.ascontiguousarray(codes).tobytes()).decode("ascii"),
            "cl": None if cl is None else cl.tolist(), **rule}


def _grid_codes(sc: Scores, name: str, models: list[str]) -> tuple[
        str, int, int, npt.NDArray[Any], int, IntArray | None] | None:
    """:func:`compare_data`'s codes where every model has every question
    and no estimate is NaN (None otherwise, or where no denominator fits):
    each estimate is its state's, so the denominators are tried on the
    states the models have, not on every (model, question), and each
    model's codes are its states' (the same bytes)."""
    f = sc.per_state.get(name)
    pm = sc.per_model()
    if f is None or pm.grid is None or pm.table is None or bool(np.isnan(f).any()):
        return None
    code = {m: i for i, m in enumerate(sc.counts.models)}
    rows = np.array([code[m] for m in models], np.int64)
    present = pm.table[rows].sum(axis=0) > 0
    values = f[present]
    for d in DENOMINATORS:
        c = np.rint(values * d)
        if np.array_equal(c / d, values) and c.min(initial=0) >= 0:
            top = float(c.max(initial=0))
            if top < 65535:  # (the largest code marks a missing question)
                enc, miss = ("u8", 255) if top < 255 else ("u16", 65535)
                per_state = np.zeros(len(f), np.uint8 if enc == "u8" else "<u2")
                per_state[present] = c
                Q = pm.grid.shape[1]
                codes = np.empty((len(rows), Q), per_state.dtype)
                for r, i in enumerate(rows.tolist()):
                    np.take(per_state, pm.grid[i], out=codes[r], mode="clip")
                cl = None if sc.cluster is None else sc.cluster[:Q].copy()
                return enc, d, miss, codes, Q, cl
    return None
