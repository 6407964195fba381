"""The formats' internal surface: what kscore.inspect reads inspect_ai logs
with (a log file, or an ``EvalLog``'s samples in memory, judged by the same
reader) and the concatenation of several readers' tables. The user's
surface is :mod:`kscore.formats` (``read``, ``detect``, ``FORMATS``)."""

from __future__ import annotations

from ._inspect import read as read_inspect_log
from ._inspect import samples_table, to_float
from ._table import concat

__all__ = ["read_inspect_log", "samples_table", "to_float", "concat"]
