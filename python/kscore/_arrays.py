"""The array types every room annotates with, defined once.

``FloatArray`` and ``IntArray`` are the float64 and int64 arrays the metrics,
counts and statistics pass around; ``BoolArray`` a mask. Imported from here,
never redefined (issue 34: they were defined in 16 files)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
