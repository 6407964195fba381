"""One board's ratings and their uncertainty, from coded battles
(:class:`kscore.arena.read.Battles`), by the compiled core
(rust/kscore-core/src/battles/): the fit, the sandwich or bootstrap, style
control; then the Elo scale, the anchor, intervals, rank ranges and the
win-probability matrix."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from .. import _kscore
from .._arrays import FloatArray
from .fragility import fragility
from .ranks import lmarena_rank, simultaneous_sets
from .read import ArenaError, Battles
from .result import ArenaBoard

#: The style coefficients' default penalty (``style_reg x battles`` on the
#: summed log-likelihood): small enough not to bias the ratings where style
#: goes with the models (arena-rank's ``reg = 1`` covers 33% there: docs/arena.md,
#: *Coverage*), large enough to keep the fit defined with collinear features.
STYLE_REG = 1e-6

#: Ties as their own outcome, fitted by the shared paired-comparison solver.
TIE_MODELS = {"davidson": "Davidson's nu", "rao_kupper": "Rao-Kupper's kappa"}
TIES = ("half", "drop", *TIE_MODELS)


@dataclass(frozen=True)
class Options:
    """The rating options (docs/arena.md, *Options*)."""

    scale: float = 400.0
    base: float = 10.0
    offset: float = 1000.0
    anchor: tuple[str, float] | None = None
    ties: str = "half"
    reweight: bool = False
    min_pair_count: int = 50
    intervals: str = "sandwich"
    rounds: int = 1000
    bootstrap_by: str | None = None
    confidence: float = 0.95
    seed: int = 0
    prior_sd: float = 400.0
    ridge: float | None = None
    style_reg: float = STYLE_REG
    fragility: bool = True

    @property
    def per_logit(self) -> float:
        """Rating points per unit of the natural-log scale (173.7 for 400/ln 10)."""
        return self.scale / math.log(self.base)


@dataclass
class Fitted:
    """Ratings on the natural-log scale (mean zero) with their covariance
    or bootstrap rounds, and what the fit needed."""

    theta: FloatArray
    cov: FloatArray | None
    rounds: FloatArray | None
    prior_used: bool
    rounds_with_prior: int
    beta: FloatArray | None = None
    beta_cov: FloatArray | None = None
    beta_rounds: FloatArray | None = None
    board: object | None = None
    precision: float = 0.0
    tie_model: str | None = None
    tie: tuple[float, float, float] | None = None


def _weights(bt: Battles, opts: Options) -> FloatArray | None:
    """The battles' weights: given, times arena-rank's reweighting
    ``1 / max(battles of the pair, min_pair_count)``."""
    w = bt.weight
    if opts.reweight:
        lo, hi = np.minimum(bt.a, bt.b).astype(np.int64), np.maximum(bt.a, bt.b).astype(np.int64)
        _, inv, cnt = np.unique(lo * len(bt.models) + hi, return_inverse=True, return_counts=True)
        rw = 1.0 / np.maximum(cnt[inv], opts.min_pair_count)
        w = rw if w is None else w * rw
    return w


def _check_connected(board: object, models: list[str]) -> None:
    comp = np.asarray(board.components())  # type: ignore[attr-defined]
    k = int(comp.max()) + 1 if len(comp) else 0
    if k > 1:
        groups = sorted(([m for m, c in zip(models, comp) if c == g] for g in range(k)), key=len)
        shown = "; ".join("{" + ", ".join(g[:5]) + (", ..." if len(g) > 5 else "") + "}" for g in groups[:4])
        more = "; ..." if k > 4 else ""
        raise ArenaError(f"the battles split into {k} groups of models that never met ({shown}{more}): ratings "
                         "across groups are not defined; rate each group on its own or add battles between them")


def _one_sided(board: object, models: list[str]) -> list[str]:
    """Models that only win or only lose (the simplest reasons the maximum
    likelihood estimate does not exist)."""
    pi, pj = board.pairs()  # type: ignore[attr-defined]
    n, s = board.pair_sums()  # type: ignore[attr-defined]
    L = len(models)
    score, total = np.zeros(L), np.zeros(L)
    np.add.at(score, pi, s)
    np.add.at(score, pj, n - s)
    np.add.at(total, pi, n)
    np.add.at(total, pj, n)
    return [f"{m} ({'only wins' if sc == t else 'only loses'})"
            for m, sc, t in zip(models, score, total) if sc == 0 or sc == t]


def board_of(bt: Battles, weight: FloatArray | None = None) -> Any:
    """The board's unique (prompt, pair, outcome, weight) rows
    (kscore._kscore.BattleBoard): the reader's, counted on its pass over the
    columns, where it made one and no weights apply; else counted from the
    codes."""
    if bt.board is not None and weight is None and bt.prompt is None:
        return bt.board
    outcome = bt.outcome if bt.outcome is not None else np.rint(2.0 * bt.y).astype(np.uint8)
    return _kscore.battle_board(len(bt.models), bt.a, bt.b, outcome, weight, bt.prompt, bt.prompts)


def fit(bt: Battles, opts: Options, style: bool, notes: list[str]) -> Fitted:
    """Fit the board (and its intervals) in the core."""
    L = len(bt.models)
    if L < 2:
        raise ArenaError("fewer than two models: nothing to rank")
    y = bt.y
    keep = None
    if opts.ties == "drop":
        keep = y != 0.5
        if not keep.any():
            raise ArenaError("every battle is a tie (--ties drop leaves none)")
        bt = bt.subset(keep) if not keep.all() else bt
        y = bt.y
    elif opts.ties not in TIES:
        raise ArenaError(f"ties={opts.ties!r}: one of {', '.join(TIES)}")
    elif opts.ties in TIE_MODELS and style:
        raise ArenaError(f"ties={opts.ties!r} with style control: the contextual model rates ties as half a win "
                         "(arena-rank's); use ties='half' or 'drop' with style features")
    w = _weights(bt, opts)
    board = board_of(bt, w)
    _check_connected(board, bt.models)
    sd = opts.prior_sd / opts.per_logit
    prior = 1.0 / (sd * sd)
    precision = 0.0
    if not board.mle_exists():
        precision = prior
        who = _one_sided(board, bt.models)
        notes.append("the maximum likelihood ratings do not exist (" + (", ".join(who[:5]) if who else
                     "some models only beat, or only lose to, the rest") + f"): a Gaussian prior with sd "
                     f"{opts.prior_sd:g} rating points around the mean keeps them finite")
    clustered = bt.prompt is not None
    by = opts.bootstrap_by or ("prompt" if clustered else "battle")
    if by == "prompt" and not clustered:
        raise ArenaError("bootstrap by prompt needs a prompt id column (--prompt-col)")
    if opts.ties in TIE_MODELS:
        return _fit_ties(board, opts, precision, prior, clustered, by, notes)
    theta, _ = board.fit(precision)
    theta = np.asarray(theta)
    ridge = _ridge(opts, bt, w)
    out = Fitted(theta, None, None, precision > 0, 0, board=board, precision=precision)
    if not style:
        if opts.intervals == "sandwich":
            out.cov = np.asarray(board.sandwich(theta, precision, ridge, clustered))
        else:
            rounds, with_prior = board.bootstrap(theta, opts.rounds, opts.seed, by, prior)
            out.rounds, out.rounds_with_prior = np.asarray(rounds), int(with_prior)
        return out
    assert bt.features is not None
    if bt.features.shape[1] > 8:
        raise ArenaError(f"style control takes at most 8 features, not {bt.features.shape[1]}")
    n = len(bt.y)
    ws = np.ones(n) if w is None else w / w.mean()
    sb = _kscore.style_board(L, bt.a, bt.b, y, ws, np.ascontiguousarray(bt.features), bt.prompt, bt.prompts)
    beta_precision = opts.style_reg * n
    th, beta, _ = sb.fit(beta_precision, precision, (theta, np.zeros(bt.features.shape[1])))
    out.theta, out.beta = np.asarray(th), np.asarray(beta)
    if opts.intervals == "sandwich":
        V = np.asarray(sb.sandwich(th, beta, beta_precision, precision, clustered, ridge))
        out.cov, out.beta_cov = V[:L, :L], V[L:, L:]
    else:
        R, with_prior = sb.bootstrap(th, beta, beta_precision, opts.rounds, opts.seed, by, prior)
        R = np.asarray(R)
        out.rounds, out.beta_rounds, out.rounds_with_prior = R[:, :L], R[:, L:], int(with_prior)
    return out


def _fit_ties(board: object, opts: Options, precision: float, prior: float, clustered: bool, by: str,
              notes: list[str]) -> Fitted:
    """Davidson or Rao-Kupper: the ratings and the tie parameter together
    (rust/kscore-core/src/battles/ties.rs), their sandwich or bootstrap."""
    if opts.ridge is not None:
        raise ArenaError(f"ridge is arena-rank's sandwich for ties as half a win, not for ties={opts.ties!r}")
    theta, nu, _, V = board.fit_ties(opts.ties, precision, clustered)  # type: ignore[attr-defined]
    theta, V = np.asarray(theta), np.asarray(V)
    L = len(theta)
    z = NormalDist().inv_cdf(0.5 + opts.confidence / 2)
    out = Fitted(theta, None, None, precision > 0, 0, board=None, precision=precision, tie_model=opts.ties)
    if V.shape[0] == L:
        # no tie on the board: the parameter at its boundary, the Bradley-Terry fit
        out.tie = (float(nu), float(nu), float(nu))
        notes.append(f"no ties on this board: {TIE_MODELS[opts.ties]} sits at its boundary ({nu:g}), the "
                     "Bradley-Terry fit")
    if opts.intervals == "sandwich":
        out.cov = V[:L, :L]
        if V.shape[0] > L:
            sd = math.sqrt(max(float(V[L, L]), 0.0))
            out.tie = (float(nu), float(nu * math.exp(-z * sd)), float(nu * math.exp(z * sd)))
    else:
        R, with_prior = board.bootstrap_ties(opts.ties, opts.rounds, opts.seed, by,  # type: ignore[attr-defined]
                                             precision, prior)
        R = np.asarray(R)
        out.rounds, out.rounds_with_prior = R[:, :L], int(with_prior)
        a = (1 - opts.confidence) / 2
        out.tie = (float(nu), float(np.quantile(R[:, L], a)), float(np.quantile(R[:, L], 1 - a)))
    return out


def _win_prob(d: FloatArray, fitted: Fitted) -> FloatArray:
    """P(row beats column), a tie as half, from the rating differences ``d``
    (natural-log scale) under the fitted model."""
    if fitted.tie_model == "davidson" and fitted.tie is not None:
        nu, h = fitted.tie[0], np.exp(d / 2)
        return np.asarray((h + nu / 2) / (h + 1 / h + nu), np.float64)
    if fitted.tie_model == "rao_kupper" and fitted.tie is not None:
        kappa = fitted.tie[0]
        win, loss = 1 / (1 + kappa * np.exp(-d)), 1 / (1 + kappa * np.exp(d))
        return np.asarray((1 + win - loss) / 2, np.float64)
    return np.asarray(1.0 / (1.0 + np.exp(-d)), np.float64)


def _ridge(opts: Options, bt: Battles, w: FloatArray | None) -> float | None:
    """arena-rank's ridge on request: ``ridge`` times the battles on an
    unweighted board, ``ridge`` itself on a weighted one."""
    if opts.ridge is None:
        return None
    return opts.ridge * (len(bt.y) if w is None else 1.0)


def rated(bt: Battles, fitted: Fitted, opts: Options, title: str, notes: list[str],
          style_names: list[str] | None = None) -> ArenaBoard:
    """The Elo-scale board in rank order: intervals, ranks, win
    probabilities, fragility."""
    S, L = opts.per_logit, len(bt.models)
    z = NormalDist().inv_cdf(0.5 + opts.confidence / 2)
    shift = opts.offset
    theta = fitted.theta
    anchor = None
    if opts.anchor is not None:
        name, value = opts.anchor
        if name not in bt.models:
            notes.append(f"anchor {name!r} is not on this board: ratings centred instead")
        else:
            anchor = bt.models.index(name)
            shift = value - S * theta[anchor]
    rating = shift + S * theta
    if fitted.cov is not None:
        V = fitted.cov * S * S
        if anchor is not None:
            e = -np.ones((L, 1)) @ np.eye(L)[anchor:anchor + 1]
            T = np.eye(L) + e
            V = T @ V @ T.T
        se = np.sqrt(np.clip(np.diag(V), 0.0, None))
        lo, hi = rating - z * se, rating + z * se
        cov: FloatArray | None = V
        rounds = 0
        boot = None
    else:
        assert fitted.rounds is not None
        R = opts.offset + S * fitted.rounds
        if anchor is not None:
            R = R - R[:, anchor:anchor + 1] + opts.anchor[1]  # type: ignore[index]
        a = (1 - opts.confidence) / 2
        lo, hi = np.quantile(R, a, axis=0), np.quantile(R, 1 - a, axis=0)
        se = R.std(axis=0)
        V = np.cov(R.T)
        cov, rounds, boot = None, R.shape[0], R
        if fitted.rounds_with_prior:
            notes.append(f"{fitted.rounds_with_prior} of {R.shape[0]} bootstrap rounds had no maximum likelihood "
                         f"ratings (a model only won or lost, or drew no battle): fitted with the prior "
                         f"(sd {opts.prior_sd:g})")
    order = np.lexsort((np.arange(L), -rating))
    models = [bt.models[i] for i in order]
    sets = simultaneous_sets(rating[order], V[np.ix_(order, order)], models, opts.confidence)
    if sets.note:
        notes.append(sets.note)
    battles = np.bincount(bt.a, minlength=L) + np.bincount(bt.b, minlength=L)
    d = (rating[order][:, None] - rating[order][None, :]) / S
    win = _win_prob(d, fitted)
    style = None
    if fitted.beta is not None and style_names is not None:
        if fitted.beta_cov is not None:
            bse = np.sqrt(np.clip(np.diag(fitted.beta_cov), 0.0, None))
            blo, bhi = fitted.beta - z * bse, fitted.beta + z * bse
        else:
            assert fitted.beta_rounds is not None
            a = (1 - opts.confidence) / 2
            blo, bhi = np.quantile(fitted.beta_rounds, a, axis=0), np.quantile(fitted.beta_rounds, 1 - a, axis=0)
        style = {n: (float(b), float(x), float(y)) for n, b, x, y in zip(style_names, fitted.beta, blo, bhi)}
    frag = None
    if opts.fragility and fitted.board is not None and fitted.beta is None and L <= 2000:
        sd = opts.prior_sd / S
        frag = fragility(fitted.board, fitted.theta, 1.0 / (sd * sd), bt.models)
    return ArenaBoard(title, models, rating[order], lo[order], hi[order], se[order],
                      lmarena_rank(lo[order], hi[order]), np.asarray(sets.lo), np.asarray(sets.hi),
                      list(sets.could_be_best), battles[order].astype(np.int64), win,
                      None if cov is None else cov[np.ix_(order, order)], opts.intervals, opts.confidence, rounds,
                      style, frag, notes, None if boot is None else boot[:, order],
                      None if fitted.tie is None or fitted.tie_model is None else (fitted.tie_model, *fitted.tie))
