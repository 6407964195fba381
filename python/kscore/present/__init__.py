"""Presentation of leaderboards, from a small typed model (:class:`Board`):
terminal tables that fit a width (:func:`render_text`), GitHub Markdown
(:func:`render_markdown`), one self-contained HTML page (:func:`render_html`)
and plots for any number of models (:mod:`kscore.present.plot`, needs
matplotlib); model names shortened without ambiguity."""

from .html import render_html
from .markdown import render_markdown
from .model import Board, Curve, Estimate, InfoColumn, MetricColumn, Pairwise
from .names import shorten_names
from .terminal import Column, Fitted, cell, fit
from .text import render_text, terminal_width

__all__ = [
    "Board", "Column", "Curve", "Estimate", "Fitted", "InfoColumn", "MetricColumn", "Pairwise", "cell", "fit",
    "render_html", "render_markdown", "render_text", "shorten_names", "terminal_width",
]
