"""Presentation of leaderboards: terminal tables that fit a width, model names
shortened without ambiguity (more to come: Markdown, HTML, plots)."""

from .names import shorten_names
from .terminal import Column, Fitted, cell, fit

__all__ = ["Column", "Fitted", "cell", "fit", "shorten_names"]
