"""``kscore.arena(...)``: battles in, rated boards out (docs/arena.md)."""

from __future__ import annotations

from typing import Any

from .ratings import Options, fit, rated
from .read import ArenaError, Battles, Roles, read_battles
from .result import ArenaBoard, ArenaResult

INTERVALS = ("sandwich", "bootstrap")


def arena(source: Any, *, model_a: str | None = None, model_b: str | None = None, winner: str | None = None,
          weight: str | None = None, prompt: str | None = None, by: str | None = None,
          style: bool | list[str] | None = None, ties: str = "half", scale: float = 400.0, base: float = 10.0,
          offset: float = 1000.0, anchor: tuple[str, float] | None = None, reweight: bool = False,
          min_pair_count: int = 50, intervals: str = "sandwich", rounds: int = 1000,
          bootstrap_by: str | None = None, confidence: float = 0.95, seed: int = 0, prior_sd: float = 400.0,
          ridge: float | None = None, style_reg: float = 1.0, fragility: bool = True,
          input_format: str | None = None, strict: bool = False) -> ArenaResult:
    """Rate models from pairwise battles: Bradley-Terry ratings on LMArena's
    scale with honest intervals, rank ranges, win probabilities and the
    fragility of #1.

    ``source``: a battle file (CSV, TSV, JSON Lines, JSON, Parquet), a
    folder or glob of them, a list of files, or a table (pandas, polars,
    pyarrow, a dict of columns); LMArena's and arena-hard-auto's files read
    as published. Columns are found by their usual spellings or named:
    ``model_a``, ``model_b``, ``winner`` (model_a, model_b, tie, tie
    (bothbad); A/B/tie; 1/0/0.5), optional ``weight``, ``prompt`` (a
    prompt id: clustered sandwich and bootstrap by prompt), ``by`` (a
    category column: a board per value beside the overall one) and
    ``style`` (True: LMArena's conv_metadata counts; or feature column
    names) for style control, whose board comes with the plain one
    beside it.

    Ratings: ``offset + scale / ln(base) x theta``, ``theta`` the
    maximum likelihood Bradley-Terry strengths with ties as half a win
    (``ties="drop"`` leaves them out), centred on the mean (``anchor=(model,
    rating)``: that model at that rating). Where the maximum likelihood
    ratings do not exist (a model that only wins or only loses) a Gaussian
    prior of sd ``prior_sd`` rating points keeps them finite, and a note
    says so; battles that split the models into groups that never met are
    refused. ``reweight``: arena-rank's ``1 / max(pair battles,
    min_pair_count)`` weights.

    Intervals at ``confidence``: ``"sandwich"`` (default; robust,
    clustered by prompt when a prompt id is given; ``ridge``: arena-rank's
    ``1e-5``, times the battles) or ``"bootstrap"`` (``rounds`` rounds by
    ``bootstrap_by``: "battle", or "prompt", the default with prompt ids;
    percentile intervals; ``seed``).

    >>> import kscore
    >>> res = kscore.arena({"model_a": ["x", "y", "z", "x"] * 5, "model_b": ["y", "z", "x", "z"] * 5,
    ...                     "winner": ["model_a", "tie", "model_b", "model_a"] * 5})
    >>> [r["model"] for r in res.records()], round(float(res.board.rating.mean()), 9)
    (['x', 'y', 'z'], 1000.0)
    """
    if intervals not in INTERVALS:
        raise ValueError(f"intervals must be one of {', '.join(INTERVALS)}, not {intervals!r}")
    if bootstrap_by not in (None, "battle", "prompt"):
        raise ValueError(f"bootstrap_by must be 'battle' or 'prompt', not {bootstrap_by!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    if rounds < 2 and intervals == "bootstrap":
        raise ValueError("rounds must be at least 2")
    if not (scale > 0 and base > 1 and prior_sd > 0):
        raise ValueError("scale and prior_sd must be positive and base above 1")
    opts = Options(scale, base, offset, anchor, ties, reweight, min_pair_count, intervals, rounds, bootstrap_by,
                   confidence, seed, prior_sd, ridge, style_reg, fragility)
    roles = Roles(model_a, model_b, winner, weight, prompt, by, style)
    bt = read_battles(source, roles, input_format, strict)
    with_style = bool(style) and bt.features is not None and bt.features.shape[1] > 0
    main = _board(bt, opts, with_style, "style control" if with_style else "overall")
    plain = _board(bt, opts, False, "without style control") if with_style else None
    categories: dict[str, ArenaBoard] = {}
    if bt.category is not None:
        for k, name in enumerate(bt.categories):
            keep = bt.category == k
            if not keep.any() or name == "":
                continue
            sub = bt.subset(keep)
            try:
                categories[name] = _board(sub, opts, with_style, name)
            except ArenaError as exc:
                bt.warnings.append(f"category {name!r} not rated: {exc}")
    return ArenaResult(main, plain, categories, bt.warnings, {
        "intervals": intervals, "rounds": rounds if intervals == "bootstrap" else 0, "confidence": confidence,
        "ties": ties, "scale": scale, "base": base, "offset": offset, "anchor": anchor, "reweight": reweight,
        "bootstrap_by": bootstrap_by or ("prompt" if bt.prompt is not None else "battle"),
        "clustered": bt.prompt is not None, "style": bt.feature_names})


def _board(bt: Battles, opts: Options, style: bool, title: str) -> ArenaBoard:
    notes: list[str] = []
    fitted = fit(bt, opts, style, notes)
    return rated(bt, fitted, opts, title, notes, bt.feature_names if style else None)


__all__ = ["arena"]
