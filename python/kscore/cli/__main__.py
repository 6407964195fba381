"""``python -m kscore.cli ...``: the ``kscore`` command."""

from . import entry

entry()
