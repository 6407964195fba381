"""Typed stub of the compiled core (checked against the binary by mypy.stubtest)."""

from typing import Any, Literal

from typing_extensions import final

import numpy as np
import numpy.typing as npt

__version__: str
__all__ = [
    "__version__",
    "Credit",
    "BinaryBank",
    "ndtri",
    "posterior_moments",
    "joint_posterior_moments",
    "geom_posterior",
    "delta_blend",
]

@final
class Credit:
    """A credit vector ``A_0..=A_k`` scoring a bank of k draws by its successes."""

    @staticmethod
    def at_least(k: int, t: int) -> Credit: ...
    @staticmethod
    def majority(k: int) -> Credit: ...
    @staticmethod
    def tau(k: int, tau: float) -> Credit: ...
    @staticmethod
    def mg(k: int) -> Credit: ...
    @staticmethod
    def auc(k: int) -> Credit: ...
    @staticmethod
    def spectrum(weights: npt.NDArray[np.float64]) -> Credit: ...
    @staticmethod
    def from_values(values: npt.NDArray[np.float64]) -> Credit: ...
    @property
    def k(self) -> int: ...
    @property
    def shape(self) -> Literal["constant", "step", "general"]: ...
    def values(self) -> npt.NDArray[np.float64]: ...

@final
class BinaryBank:
    """Distinct per-question success counts of a binary matrix, with frequencies."""

    @staticmethod
    def from_matrix(matrix: npt.NDArray[Any]) -> BinaryBank: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    def values(self) -> npt.NDArray[np.uint64]: ...
    def freqs(self) -> npt.NDArray[np.uint64]: ...
    def mean(self, credit: Credit) -> float: ...
    def state_values(self, credit: Credit) -> npt.NDArray[np.float64]: ...

def ndtri(p: float) -> float:
    """Inverse standard normal CDF (Cephes ``ndtri``, as ``scipy.special.ndtri``)."""

def posterior_moments(
    bank: BinaryBank, credit: Credit, alpha0: float, beta0: float
) -> tuple[float, float]:
    """``(mean, variance)`` of the dataset Beta-posterior target of ``credit``."""

def joint_posterior_moments(
    bank: BinaryBank, left: Credit, right: Credit, alpha0: float, beta0: float
) -> tuple[float, float, float, float, float]:
    """``(mean_x, var_x, mean_y, var_y, cov)`` of two dataset posterior targets."""

def delta_blend(
    mean_x: float,
    var_x: float,
    mean_y: float,
    var_y: float,
    cov: float,
    a: float,
    b: float,
    a_text: str,
    b_text: str,
) -> tuple[float, float]:
    """Delta-method ``(mean, variance)`` of ``x**a * y**b``."""

def geom_posterior(
    bank: BinaryBank,
    k: int,
    a: float,
    b: float,
    a_text: str,
    b_text: str,
    alpha0: float,
    beta0: float,
) -> tuple[float, float]:
    """Questionwise Geom@k posterior ``(mean, variance)``."""
