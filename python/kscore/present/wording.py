"""The one wording of what a board's numbers are: its intervals, its rank
ranges, the models that could be #1, the footers and summaries.

Every output says these things from here, each in the length and voice it
has always had (the outputs are kept byte for byte): ``caption`` for the
wide table's caption and the JSON's ``interval_meaning``, ``page`` for the
library's text, Markdown, HTML and plots, ``footer`` and ``footer_short``
for the compact table's one-line footer, ``curve`` for what a curve and its
band are. A new kind of interval (a bootstrap over battles) is one entry of
:data:`INTERVALS`; a new adjustment of the rank ranges one of :data:`RANKS`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: How each kind of interval is said, by variant. ``{pct}``: the level
#: (``95%``); ``{cl}``: ``, clustered by COLUMN`` and ``{cl_}``: `` clustered
#: by COLUMN`` ('' without clusters); ``{page}``: this kind's ``page`` words.
INTERVALS: dict[str, dict[str, str]] = {
    "questions": {
        "caption": "{pct} interval over questions{cl}: what another question set like this one could give",
        "page": "{pct} interval over questions{cl} (what another question set like this one could give)",
        "footer": "the {pct} interval over questions{cl_}",
        "footer_short": "{pct} interval over questions{cl_}",
        "line": "its {page}",
        "curve": "line: the classic pass@k estimate (as the table's pass@k cells); band: its {pct} interval over "
                 "questions{cl}",
    },
    "wilson": {
        "caption": "{pct} interval over questions{cl}, Wilson score for small boards: what another question set like "
                   "this one could give",
        "page": "{pct} interval over questions{cl} (Wilson score on the effective number of questions, for small "
                "boards) (what another question set like this one could give)",
        "footer": "the {pct} interval over questions{cl_} (Wilson)",
        "footer_short": "{pct} interval over questions{cl_} (Wilson)",
        "line": "its {page}",
        "curve": "line: the classic pass@k estimate (as the table's pass@k cells); band: its {pct} interval over "
                 "questions{cl}",
    },
    # (issue 36: the former default, estimate +- z se over questions)
    "normal": {
        "caption": "{pct} interval over questions{cl}, normal: what another question set like this one could give",
        "page": "{pct} interval over questions{cl} (normal: estimate +- z standard errors) (what another question "
                "set like this one could give)",
        "footer": "the {pct} interval over questions{cl_} (normal)",
        "footer_short": "{pct} interval over questions{cl_} (normal)",
        "line": "its {page}",
        "curve": "line: the classic pass@k estimate (as the table's pass@k cells); band: its {pct} normal interval "
                 "over questions{cl}",
    },
    # (issue 36: given these questions, answer sampling alone: leaderboard/stats/answers.py)
    "answers": {
        "caption": "{pct} interval given these questions: answer sampling alone",
        "page": "{pct} interval given these questions (answer sampling alone)",
        "footer": "the {pct} interval given these questions",
        "footer_short": "{pct} interval (these questions)",
        "line": "its {page}",
        "curve": "line: the classic pass@k estimate (as the table's pass@k cells); band: its {pct} interval given "
                 "these questions (answer sampling alone)",
    },
    # (issue 36: a posterior for the population's mean, the default interval's target: the mid-p Beta posterior
    # on the effective number of outcomes, mixed over the dispersion; docs/rankings.md, *The posterior*)
    "posterior": {
        "caption": "{pct} Bayesian credible interval for the expected value over the population of questions",
        "page": "{pct} Bayesian credible interval for the expected value over the population of questions",
        "footer": "the {pct} credible interval (population of questions)",
        "footer_short": "{pct} credible interval (population)",
        "line": "the {page}, centred on the posterior mean",
        "curve": "line: the posterior mean of pass@k over the population of questions (near the table's classic "
                 "estimate); band: its {pct} credible interval",
    },
}

#: How each adjustment of the rank ranges is said, by variant; ``best``: why
#: the models named as possibly #1 are. ``{pct}``: the level, ``{level}``: the
#: tests' (``5%``).
RANKS: dict[str, dict[str, str]] = {
    # (issue 36: the default ranges are marginal, and say so)
    "none": {
        "caption": "marginal range: each pair tested alone at {level} (not all ranges at once)",
        "page": "rank: marginal range from paired tests, each pair alone (not all ranges at once)",
        "footer": " (marginal)",
        "best": "no model significantly better, each pair tested alone",
    },
    "holm": {
        "caption": "range from paired tests at {level}, Holm-adjusted (all ranges hold at once)",
        "page": "rank: range from paired tests with Holm's correction (all ranges hold at once)",
        "footer": " (Holm)",
        "best": "no model significantly better, Holm-adjusted",
    },
    "simultaneous": {
        "caption": "simultaneous {pct} rank sets (step-down max-t over all paired tests: all ranges hold at once)",
        "page": "rank: simultaneous {pct} rank sets (step-down max-t over all paired tests: all ranges hold at once)",
        "footer": " (simultaneous)",
        "best": "a {pct} confidence set for the best model",
    },
}


def one_line(text: str) -> str:
    """``text`` with its control characters (a newline in a model name, a
    terminal escape sequence) written as escapes (``\\n``, ``\\x1b``): every
    message is one line and prints as it reads (docs/leaderboard.md, *Output*).

    >>> print(one_line("a\\nb\\x1b[0m"))
    a\\nb\\x1b[0m
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


@dataclass(frozen=True)
class Uncertainty:
    """What a board's intervals and rank ranges are, the facts every
    sentence here is made from: the ``confidence``, the kind of
    ``interval`` (a key of :data:`INTERVALS`), the question ``cluster``
    column, the ``adjust`` the rank ranges were made with (a key of
    :data:`RANKS`) and the models that ``could_be_best``."""

    confidence: float
    interval: str = "questions"
    cluster: str | None = None
    adjust: str = "none"
    could_be_best: tuple[str, ...] = ()

    @property
    def pct(self) -> str:
        """The level: ``95%``."""
        return f"{self.confidence * 100:g}%"

    def interval_words(self, variant: str) -> str:
        """The interval in ``variant``'s words (a key of :data:`INTERVALS`' entries)."""
        words = INTERVALS[self.interval]
        cl = f", clustered by {self.cluster}" if self.cluster else ""
        cl_ = f" clustered by {self.cluster}" if self.cluster else ""
        page = words["page"].format(pct=self.pct, cl=cl, cl_=cl_)
        return words[variant].format(pct=self.pct, cl=cl, cl_=cl_, page=page)

    def rank_words(self, variant: str) -> str:
        """The rank ranges in ``variant``'s words (a key of :data:`RANKS`' entries)."""
        return RANKS[self.adjust][variant].format(pct=self.pct, level=f"{100 - self.confidence * 100:g}%")

    @property
    def simultaneous(self) -> bool:
        """The rank ranges hold at once (then the outputs name the possible #1)."""
        return self.adjust == "simultaneous"


def meaning(u: Uncertainty) -> str:
    """One line: which interval the cells show and what it means (the wide
    table's caption, the JSON's ``interval_meaning``)."""
    return (f"metrics: estimate [{u.interval_words('caption')}]; rank: {u.rank_words('caption')} (a model's rank is "
            "shared with every model not significantly different)")


def best_line(u: Uncertainty, limit: int = 10) -> str:
    """``could be #1: a, b (why)``: the models no model is significantly
    better than, under the board's guarantee ('' without any)."""
    best = u.could_be_best
    if not best:
        return ""
    names = ", ".join(one_line(m) for m in best[:limit]) + (f", ... ({len(best)} models)" if len(best) > limit else "")
    return f"could be #1: {names} ({RANKS[u.adjust]['best'].format(pct=u.pct)})"


def best_note(u: Uncertainty, limit: int = 20) -> str:
    """The page's wording of :func:`best_line`: ``could be #1 (95%
    confidence set for the best model): a, b`` ('' unless the ranks are
    simultaneous)."""
    best = u.could_be_best
    if not u.simultaneous or not best:
        return ""
    shown = ", ".join(best[:limit]) + (f", ... ({len(best)} models)" if len(best) > limit else "")
    return f"could be #1 ({u.confidence * 100:g}% confidence set for the best model): {shown}"


def footers(u: Uncertainty) -> tuple[str, ...]:
    """The compact table's footer, from the longest wording to the
    shortest: the table writes the first that fits its width (the last when
    none does)."""
    what, short = u.interval_words("footer"), u.interval_words("footer_short")
    adj = u.rank_words("footer")
    return (f"cells: estimate ±half-width of {what}; rank: range from paired tests{adj}",
            f"cells: estimate ±half of {what}; ranks: paired tests{adj}",
            f"cells: estimate ±half {short}; ranks{adj}",
            f"±half: {what.removeprefix('the ')}; ranks: paired tests{adj}",
            f"estimate ±half {short}; ranks: paired tests{adj}",
            f"±half {short}; ranks{adj}")


def fitting(options: tuple[str, ...], width: int) -> str:
    """The first of ``options`` at most ``width`` characters long (the last
    when none is; '' for none)."""
    return next((o for o in options if len(o) <= width), options[-1] if options else "")


def page_footer(u: Uncertainty) -> str:
    """What the cells and ranks are, under the library's tables and the page."""
    n = len(u.could_be_best)
    best = f"; {n} model{'s' if n != 1 else ''} could be #1" if n and not u.simultaneous else ""
    return f"cells: the classic estimate ±half the {u.interval_words('page')}; {u.rank_words('page')}{best}"


def interval_note(u: Uncertainty) -> str:
    """What a plot of the values and intervals draws (the table's numbers)."""
    return f"dot: the classic estimate (the table's value); line: {u.interval_words('line')}; {u.rank_words('page')}"


def curve_note(u: Uncertainty) -> str:
    """What a pass@k curve's line and band are, for the caption under them."""
    return u.interval_words("curve")


def shown(n: int, total: int, models: bool = True) -> str:
    """``8 models``, or ``top 3 of 8 models`` (``top 3 of 8`` without ``models``)."""
    if n >= total:
        return f"{n} models"
    return f"top {n} of {total} models" if models else f"top {n} of {total}"


def caption(u: Uncertainty, n: int, total: int, questions: int, samples: int, sort: str) -> str:
    """Under the wide table's title: what is shown, the interval, the sort
    (and the models that could be #1 with simultaneous ranks)."""
    best = f"; {best_line(u)}" if u.simultaneous else ""
    return (f"{samples:,} samples, {shown(n, total)}, {questions:,} questions; {meaning(u)}; accuracy: mean reward "
            f"per sample; sorted by {sort}{best}")


def subset_caption(questions: int, samples: int) -> str:
    """Under a subset's wide table."""
    return f"{questions:,} questions, {samples:,} samples"


def summary(n: int, total: int, questions: int, samples: int, sort: str, best: int = 0) -> str:
    """The compact table's line under the table (the sorting column is marked
    ``*``), with how many models could be #1 (``best``; issue 36: the
    simultaneous sets name them on a line of their own)."""
    could = f"; {best} could be #1" if best else ""
    return f"{shown(n, total, models=False)}, {questions:,} questions, {samples:,} samples; sorted by {sort} *{could}"


def page_summary(n: int, total: int, questions: int, samples: int, sort: str) -> str:
    """The library's and the page's first note under the table."""
    return (f"{samples:,} samples, {questions:,} questions, {shown(n, total)}; sorted by {sort}; accuracy: mean "
            "reward per sample")


def comparison_meaning(confidence: float, cluster: str | None, a: str, b: str) -> str:
    """What ``kscore compare``'s numbers are."""
    clustered = f", clustered by {cluster}" if cluster else ""
    return (f"{a} minus {b} on the questions both answered: mean paired difference [{confidence * 100:g}% interval "
            f"over questions{clustered}], two-sided p-value (normal approximation of the paired t statistic; "
            "unadjusted)")
