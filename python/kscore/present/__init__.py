"""Every output of kscore, from a small typed model (:class:`Board`):
terminal tables that fit a width (:func:`render_text`), GitHub Markdown
(:func:`render_markdown`), one self-contained HTML page (:func:`render_html`),
plots for any number of models (:mod:`kscore.present.plot`, needs
matplotlib), CSV, JSON and Arrow/pandas/polars tables
(:mod:`kscore.present.tabular`), and the command line's formats, one row
each (:data:`FORMATS`, :func:`render_leaderboard`); one wording of what
the numbers are (:mod:`kscore.present.wording`); model names shortened
without ambiguity."""

from .formats import FORMATS, Format, render_leaderboard
from .html import render_html
from .markdown import render_markdown
from .model import Board, Curve, Estimate, InfoColumn, MetricColumn, Pairwise, Target, Words
from .names import shorten_names
from .terminal import Column, Fitted, cell, fit
from .text import render_text, terminal_width
from .wording import Uncertainty, one_line

__all__ = [
    "FORMATS", "Board", "Column", "Curve", "Estimate", "Fitted", "Format", "InfoColumn", "MetricColumn", "Pairwise",
    "Target", "Uncertainty", "Words", "cell", "fit", "one_line", "render_html", "render_leaderboard",
    "render_markdown", "render_text", "shorten_names", "terminal_width",
]
