"""One BLAS thread for the paired comparisons' matrix products.

The products (models x questions times its transpose) are small next to the
counting, and a team of BLAS threads stalls whenever another process holds
one of its cores: on the shared 2-core machine a 100 x 10 000 product took
0.3 s with OpenBLAS's two threads and 4 ms with one (1000 x 10 000: the same
0.27 s either way). threadpoolctl (in the ``cli`` extra) caps the BLAS
library numpy loaded while the products run; without it nothing changes
(docs/leaderboard.md, *Speed*)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

#: Products smaller than this (multiply-adds) run on one thread anyway
#: (OpenBLAS's own threshold); capping them would only cost the call.
SMALL = 1 << 18


@contextmanager
def one_thread(work: float) -> Iterator[None]:
    """BLAS calls inside run on one thread when ``work`` (multiply-adds of
    the largest product) is past :data:`SMALL` and threadpoolctl is there."""
    if work < SMALL:
        yield
        return
    try:
        from threadpoolctl import threadpool_limits  # (optional: imported for a large product only)
    except ImportError:  # not installed: BLAS keeps its own threads
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield
