"""What a terminal gives the ``kscore`` runs the interrupt tests start.

A program started in the background by a shell without job control (``cmd &``
in a script, as CI may start the suite) has SIGINT ignored, and its children
inherit that: Python then keeps it ignored and a test's SIGINT does nothing.
A user's terminal gives the default, which is what these tests are about.
"""

from __future__ import annotations

import signal


def default_sigint() -> None:
    """``preexec_fn`` for a child: SIGINT back to its default action."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
