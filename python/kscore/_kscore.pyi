"""Typed stub of the compiled core (checked against the binary by mypy.stubtest)."""

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from typing_extensions import final

__version__: str
__all__ = [
    "__version__", "Credit", "metric_table", "BinaryBank", "CountStates", "CategoryCounts", "RowBoard", "RowShard",
    "TextLayout", "ndtri", "_set_parallel_grain", "_set_parallel_piece", "_set_threads", "_vector_paths",
    "bayes", "dirichlet_of_matrix", "avg", "observed_mean", "max_at_k", "max_at_k_of_matrix",
    "max_at_k_posterior", "max_at_k_posterior_of_matrix",
    "posterior_moments", "joint_posterior_moments", "delta_blend", "blend", "geom_posterior",
    "tailpass_state_tails", "tailpass_payoff_moments", "tailpass_endpoint", "tailpass_covariance",
    "tailpass_empirical", "tailpass_draw_tails", "tailpass_add_gamma_tails", "inspect_columns", "max_t_block",
    "grid_sums", "segment_sums",
    # rank-rest: scorio.rank's pairwise, voting and graph rankers
    "rank_board", "schulze_paths", "ranked_pairs_lock", "dominance_levels", "majority_classes", "kemeny_search",
    "markov_stationary",
    # arena
    "BattleBoard", "StyleBoard", "battle_board", "encode_sorted_strings", "encode_strings", "style_board",
    # intervals
    "interval_envelope",
    # irt
    "irt_connected", "irt_orbits", "irt_rasch", "irt_logistic", "irt_eliminated_step",
]
# rank-fit: paired comparisons
__all__ += ["PairwiseFit", "pairwise_fit", "pair_counts", "twin_rows", "strongly_connected"]
# serial: a board's cells as distinct states (kscore-core intake::cells)
__all__ += ["cell_states", "grid_table", "gather_rows"]
__all__ += ["choice_events", "choice_fit"]
__all__ += ["elo", "glicko", "trueskill", "bt_mcmc"]
# aggregate: scorio.aggregate's votes
__all__ += ["group_answers", "vote"]
# agg-signals: scorio.aggregate's confidence signals
__all__ += ["trace_signal", "token_signal"]
# out100k: the leaderboard CSV's lines (present/tabular.py)
__all__ += ["csv_lines"]

@final
class Credit:
    """A credit vector ``A_0..=A_k`` scoring a bank of k draws by its successes."""

    @staticmethod
    def of(
        metric: str, k: int, tau: float = 0.0, weights: npt.NDArray[np.float64] | None = None
    ) -> Credit:
        """The credit of any metric of the core's table at budget k."""

@final
class BinaryBank:
    """Distinct per-question success counts of a binary matrix, with frequencies."""

    @staticmethod
    def from_matrix(matrix: npt.NDArray[Any]) -> BinaryBank: ...
    @property
    def n(self) -> int: ...
    @property
    def m(self) -> int: ...
    def freqs(self) -> npt.NDArray[np.uint64]: ...
    def mean(self, credit: Credit) -> float: ...
    def blend(
        self, x: Credit, y: Credit, a: float, b: float, a_text: str, b_text: str, per_question: bool
    ) -> float:
        """``mean(x)**a * mean(y)**b``, or per state then averaged, with scorio's zero rules."""
    def state_values(self, credit: Credit) -> npt.NDArray[np.float64]: ...

def metric_table() -> list[tuple[str, str, str]]:
    """``(name, canonical name, needs)`` for every finite-bank metric name and alias."""

def grid_sums(
    grid: npt.NDArray[np.uint8] | npt.NDArray[np.uint16], table: npt.NDArray[np.float64], rows_per_model: int = 0
) -> npt.NDArray[np.float64]:
    """Per model (a row of ``grid``, its states per question), the sequential
    sum over its questions of ``table[rows_per_model * i + state]``."""

def segment_sums(
    states: npt.NDArray[np.uint8] | npt.NDArray[np.uint16],
    offsets: npt.NDArray[np.int64],
    table: npt.NDArray[np.float64],
    rows_per_model: int = 0,
) -> npt.NDArray[np.float64]:
    """:func:`grid_sums` over runs of ``states``: model ``i``'s is
    ``states[offsets[i]:offsets[i + 1]]`` (an empty run: zeros)."""

def cell_states(cols: list[npt.NDArray[np.int64]], radix: list[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
    """The distinct keys in mixed radix (ascending) of the rows of the
    category columns ``cols`` (each value in ``0..radix[j]``) and each row's
    index among them (int8/int16/int32/int64: the smallest that holds them)."""

def grid_table(
    of_row: npt.NDArray[np.uint8] | npt.NDArray[np.uint16],
    model: npt.NDArray[np.int64],
    question: npt.NDArray[np.int64],
    models: int,
    questions: int,
    states: int,
) -> npt.NDArray[np.int64] | None:
    """Cells per (model, state) where the cells are the grid (model ``i``'s
    cells ``i * questions ..``, questions in order); None where they are not."""

def gather_rows(
    grid: npt.NDArray[np.uint8] | npt.NDArray[np.uint16], rows: list[int], table: npt.NDArray[np.float64]
) -> npt.NDArray[np.float64]:
    """``table[grid[rows]]`` (a state past the table: its last value), rows x
    questions, on the core's pool."""

def ndtri(p: float) -> float:
    """Inverse standard normal CDF (Cephes ``ndtri``, as ``scipy.special.ndtri``)."""

def _set_parallel_grain(ns: int) -> int:
    """Set the core's parallel grain in nanoseconds (0: default); returns the old one."""

def _set_parallel_piece(ns: int) -> int:
    """Set the smallest piece of a split call in nanoseconds (0: default); returns the old one."""

def _set_threads(n: int) -> int:
    """Run the core's parallel work on ``n`` threads (0: every core); returns the threads it uses."""

def _vector_paths() -> str:
    """The intake's vector code here: ``"sse2+avx2"``, ``"sse2"`` or ``"portable"`` (``force-scalar`` builds)."""

@final
class CountStates:
    """Distinct ``(n, c)`` states of one or several banks of questions."""

    @staticmethod
    def from_counts(
        n: int | npt.NDArray[Any], c: npt.NDArray[Any], n_name: str, c_name: str, index: bool = True
    ) -> CountStates: ...
    @staticmethod
    def from_matrix(
        matrix: npt.NDArray[Any], packed_n: int | None = None, banks: int = 1
    ) -> CountStates: ...
    @staticmethod
    def from_matrices(
        matrices: Sequence[npt.NDArray[Any]], packed_n: int | None = None
    ) -> CountStates: ...
    @property
    def m(self) -> int: ...
    @property
    def min_n(self) -> int | None: ...
    @property
    def offsets(self) -> list[int]: ...
    def first_short(self, k: int) -> tuple[int, int] | None: ...
    def question_counts(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
    def evaluate(
        self, credit: Credit, how: Literal["question", "mean", "segments"]
    ) -> npt.NDArray[np.float64]: ...
    def direct(
        self, kind: Literal["avg", "cons"], k: int, how: Literal["question", "mean", "segments"]
    ) -> npt.NDArray[np.float64]: ...
    def posterior(self, credit: Credit, alpha0: float, beta0: float) -> tuple[float, float]: ...
    def curve(
        self,
        family: str,
        tau: float,
        ks: Sequence[int],
        how: Literal["question", "mean", "segments"],
    ) -> npt.NDArray[np.float64]: ...

@final
class CategoryCounts:
    """Per-row counts of the categories ``0..categories`` of an outcome matrix."""

    @staticmethod
    def from_matrix(matrix: npt.NDArray[Any], categories: int, name: str) -> CategoryCounts: ...
    @property
    def in_range(self) -> bool: ...
    @property
    def rows(self) -> int: ...
    @property
    def trials(self) -> int: ...
    def to_array(self) -> npt.NDArray[np.uint32]: ...

#: A dictionary column of a batch: int32 indices, int32/int64 offsets, uint8 data.
_Dictionary = tuple[npt.NDArray[np.int32], npt.NDArray[np.int32] | npt.NDArray[np.int64], npt.NDArray[np.uint8]]

#: An id column of a batch: a code for every row, a dictionary column or integers.
_Ids = int | _Dictionary | npt.NDArray[Any]

@final
class RowBoard:
    """The name tables of one direct count of long-format rows, and the
    shards its reading threads count into (``merge``, then ``name``)."""

    def __new__(cls, categories: int, ids: int, attributes: int = 0, grow: bool = False) -> RowBoard: ...
    def code(self, name: str, attribute: int | None = None) -> int: ...
    def shard(self) -> RowShard: ...
    def merge(self, shards: list[RowShard]) -> str | None: ...
    def name(self) -> tuple[list[str], list[str], npt.NDArray[np.int64], npt.NDArray[np.int64],
                            npt.NDArray[np.int64], list[list[str | None]]] | str: ...

@final
class RowShard:
    """One reading thread's counts of a :class:`RowBoard`."""

    def add(self, model: _Ids, question: _Dictionary | npt.NDArray[Any], outcome: npt.NDArray[Any],
            sample: npt.NDArray[Any] | None = None, attributes: list[_Ids] = ...) -> str | None: ...
    def add_text(self, layout: TextLayout, data: npt.NDArray[np.uint8], start: int, until: int, last: bool,
                 model: int | None = None) -> int | str: ...
    def cells(self) -> int: ...

@final
class TextLayout:
    """What the core's text reader reads from each CSV/TSV or JSON Lines line."""

    def __new__(cls, format: str, model: int | str | None, question: int | str, outcome: int | str,
                outcome_is: str, sample: int | str | None = None, attributes: Sequence[int | str] = ...,
                delimiter: str = ",", columns: int = 0, numeric_ids: list[bool] = ...) -> TextLayout: ...

def dirichlet_of_matrix(
    matrix: object, weights: object, observed: bool, prior: object = None
) -> tuple[float, float] | None:
    """Bayes@N (or, with ``observed``, Avg@N) ``(mu, sigma)`` from a 2-D matrix
    and a contiguous float64 reward vector, with an optional 2-D prior matrix
    R0 (Bayes@N only); None for anything unusual."""

def max_at_k_of_matrix(matrix: object, weights: object, k: object) -> float | None:
    """Finite-bank Max@k from a 2-D matrix, a contiguous float64 reward vector
    and 2 <= k <= N, in one pass; None for anything unusual."""

def max_at_k_posterior_of_matrix(matrix: object, weights: object, k: object) -> tuple[float, float] | None:
    """Latent Max@k ``(mu, sigma)`` from a 2-D matrix, a contiguous float64
    reward vector and k >= 2, in one pass; None for anything unusual."""

def bayes(
    counts: CategoryCounts, prior: CategoryCounts | None, weights: npt.NDArray[np.float64]
) -> tuple[float, float]:
    """Bayes@N ``(mu, sigma)`` from counts of R, optional counts of R0 and rewards."""

def avg(counts: CategoryCounts, weights: npt.NDArray[np.float64]) -> tuple[float, float]:
    """Avg@N ``(a, sigma_a)`` from counts of R and rewards."""

def observed_mean(counts: CategoryCounts, weights: npt.NDArray[np.float64]) -> float:
    """The observed weighted mean (Max@1)."""

def max_at_k(counts: CategoryCounts, weights: npt.NDArray[np.float64], k: int) -> float:
    """Finite-bank Max@k from counts of R and the rewards of its categories."""

def max_at_k_posterior(
    counts: CategoryCounts,
    prior: CategoryCounts | None,
    weights: npt.NDArray[np.float64],
    k: int,
) -> tuple[float, float]:
    """Latent Max@k ``(mu, sigma)`` under the Dirichlet(+1) posterior."""

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

def blend(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    a: float,
    b: float,
    a_text: str,
    b_text: str,
) -> npt.NDArray[np.float64]:
    """``x**a * y**b`` element-wise with scorio's zero rules (first offender raises)."""

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

def tailpass_state_tails(
    k: int, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], cutoffs: npt.NDArray[np.uint64]
) -> npt.NDArray[np.float64]:
    """Predictive profiles ``P(X >= c_t)``, X ~ BB(k, a_u, b_u): shape (U, T)."""

def tailpass_payoff_moments(
    k: int, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], payoff: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per-state ``(means, variances)`` of a payoff of the success count."""

def tailpass_endpoint(
    k: int, a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], pass_: bool
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Per-state ``(means, variances)`` of Pass@k (``pass_``) or Pass^k."""

def tailpass_covariance(
    k: int,
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    freqs: npt.NDArray[np.float64],
    cutoffs: npt.NDArray[np.uint64],
) -> npt.NDArray[np.float64]:
    """``sum_u f_u Cov_u`` of the profile, shape (T, T)."""

def tailpass_empirical(
    n: int,
    successes: npt.NDArray[np.uint64],
    freqs: npt.NDArray[np.uint64],
    k: int,
    cutoffs: npt.NDArray[np.uint64],
) -> npt.NDArray[np.float64]:
    """``sum_u f_u P(X_u >= c_t)``, X_u hypergeometric."""

def tailpass_draw_tails(
    k: int, theta: npt.NDArray[np.float64], cutoffs: npt.NDArray[np.uint64]
) -> npt.NDArray[np.float64]:
    """Per-draw profiles summed over questions: (draws, q) in, (draws, T) out."""

def tailpass_add_gamma_tails(
    k: int,
    gammas: npt.NDArray[np.float64],
    cutoffs: npt.NDArray[np.uint64],
    out: npt.NDArray[np.float64],
    split: bool = True,
) -> None:
    """Add per-draw profiles from numpy's gamma variates (q, draws, 2) into out (draws, T)."""

def inspect_columns(
    scores: list[Any],
) -> tuple[npt.NDArray[np.int64], list[Any], npt.NDArray[np.int64], list[Any] | None]:
    """inspect's ``SampleScore`` list read in one pass: each ``.score.value``
    numbered in order of first appearance (codes, distinct values) and each
    ``.sample_id`` (the int64 ids and None, or codes and distinct ids)."""

def max_t_block(
    z: npt.NDArray[np.float32],
    inv: npt.NDArray[np.float32],
    row0: int,
    col0: int,
    mx: npt.NDArray[np.float32],
) -> npt.NDArray[np.float32]:
    """mx raised to |z[col0 + j] - z[row0 + i]| * inv[i, j] over the pairs with inv != 0 (a new array)."""

# ---------------------------------------------------------------------------
# rank-fit: paired comparisons (rust/kscore-py/src/pairwise.rs)

@final
class PairwiseFit:
    """A Bradley-Terry / Davidson / Rao-Kupper fit at its exact optimum."""

    @property
    def theta(self) -> npt.NDArray[np.float64]:
        """Log-strengths, centred (sum 0)."""
    @property
    def tie_parameter(self) -> float | None:
        """Davidson's nu or Rao-Kupper's kappa (fitted or fixed); None for Bradley-Terry."""
    @property
    def objective(self) -> float: ...
    @property
    def residual(self) -> float:
        """Largest entry of the constrained gradient at the optimum."""
    @property
    def scale(self) -> float:
        """The gradient's scale (largest total weight of one item)."""
    @property
    def iterations(self) -> int: ...
    @property
    def converged(self) -> bool: ...
    @property
    def hessian(self) -> npt.NDArray[np.float64]:
        """Hessian of the smooth objective at the optimum, in (theta, log tie parameter if fitted)."""
    @property
    def held(self) -> npt.NDArray[np.bool_]:
        """Coordinates held at a Laplace prior's location."""
    def covariance(self) -> npt.NDArray[np.float64]:
        """The inverse Hessian under the centring constraint."""

def pairwise_fit(
    items: int,
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    win_i: npt.NDArray[np.float64],
    win_j: npt.NDArray[np.float64],
    tie: npt.NDArray[np.float64],
    model: str = "bradley_terry",
    ties: str = "ignore",
    tie_parameter: float | None = None,
    prior: str = "none",
    mean: npt.NDArray[np.float64] | None = None,
    precision: npt.NDArray[np.float64] | None = None,
    loc: float = 0.0,
    weight: float = 0.0,
    scale: float = 1.0,
    hook: Callable[[npt.NDArray[np.float64], bool], Any] | None = None,
    init: npt.NDArray[np.float64] | None = None,
    extra_init: float | None = None,
    max_iter: int = 200,
    tol: float = 1e-12,
) -> PairwiseFit:
    """Fit a paired-comparison model to a table of pairs (i, j, wins of i, wins of j, ties)."""

def pair_counts(
    bits: npt.NDArray[np.uint8], events: int
) -> tuple[
    npt.NDArray[np.uint32],
    npt.NDArray[np.uint32],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
]:
    """Every pair i < j of packed rows: (i, j, wins of i, wins of j, ties)."""

def twin_rows(bits: npt.NDArray[np.uint8], events: int) -> npt.NDArray[np.uint32]:
    """For each packed row, the index of the first identical row."""

def strongly_connected(
    items: int,
    i: npt.NDArray[np.int64],
    j: npt.NDArray[np.int64],
    forward: npt.NDArray[np.bool_],
    backward: npt.NDArray[np.bool_],
) -> bool:
    """Whether the directed graph (i -> j where forward, j -> i where backward) is strongly connected."""

def choice_events(
    bits: npt.NDArray[np.uint8], events: int
) -> tuple[float, npt.NDArray[np.float64], bool, bool]:
    """Events of packed rows: (events kept, memberships (L, L), winner->loser graph strongly
    connected, and with co-winner edges)."""

def choice_fit(
    bits: npt.NDArray[np.uint8],
    events: int,
    kind: str,
    prior: str = "none",
    mean: npt.NDArray[np.float64] | None = None,
    precision: npt.NDArray[np.float64] | None = None,
    loc: float = 0.0,
    weight: float = 0.0,
    scale: float = 1.0,
    hook: Callable[[npt.NDArray[np.float64], bool], Any] | None = None,
    init: npt.NDArray[np.float64] | None = None,
    max_iter: int = 200,
    tol: float = 1e-12,
) -> PairwiseFit:
    """A setwise Luce likelihood ("composite" or "davidson_luce") fitted to the events of packed rows."""

def elo(bits: npt.NDArray[np.uint8], events: int, k: float, initial: float, policy: str) -> npt.NDArray[np.float64]:
    """Elo ratings after every event of the packed rows."""

def glicko(
    bits: npt.NDArray[np.uint8],
    events: int,
    initial_rating: float,
    initial_rd: float,
    c: float,
    rd_max: float,
    policy: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Glicko ratings and deviations after every event."""

def trueskill(
    bits: npt.NDArray[np.uint8],
    events: int,
    trials: int,
    mu: float,
    sigma: float,
    beta: float,
    tau: float,
    draw_margin: float,
    policy: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """TrueSkill means and deviations after every event."""

def bt_mcmc(
    wins: npt.NDArray[np.float64],
    prior_var: float,
    z: npt.NDArray[np.float64],
    u: npt.NDArray[np.float64],
    burnin: int,
    state: tuple[npt.NDArray[np.float64], float, float, int, int, npt.NDArray[np.float64]] | None = None,
) -> tuple[npt.NDArray[np.float64], float, float, int, int, npt.NDArray[np.float64]]:
    """Advance scorio's Bradley-Terry Metropolis chain on the caller's draws."""

# --- rank-rest: scorio.rank's pairwise, voting and graph rankers (rust/kscore-py/src/rankers.rs) ---

def rank_board(
    r: npt.NDArray[Any], trials: int, levels: bool, greater: bool, wins: bool
) -> tuple[
    npt.NDArray[np.float64],
    npt.NDArray[Any] | None,
    npt.NDArray[np.float64] | None,
    npt.NDArray[np.float64] | None,
]:
    """Counts of a binary models x (questions * trials) matrix: totals, the
    per-question successes (uint8/uint16) if ``levels``, #{m : k_im > k_jm}
    if ``greater``, #{(m, n) : R_imn = 1 > R_jmn} if ``wins``."""

def schulze_paths(pref: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Schulze's strongest-path strengths of a preference matrix."""

def ranked_pairs_lock(pref: npt.NDArray[np.float64], by_votes: bool) -> npt.NDArray[np.bool_]:
    """Ranked pairs' locked edges of a preference matrix."""

def dominance_levels(adj: npt.NDArray[np.bool_]) -> npt.NDArray[np.float64]:
    """scorio's topological level scores of a dominance relation."""

def majority_classes(levels: npt.NDArray[np.uint8], trials: int) -> npt.NDArray[np.int64]:
    """Majority judgment's class of every model (0 the lowest) from its
    per-question grades."""

def kemeny_search(
    margin: npt.NDArray[np.int64], time_limit: float | None = None
) -> tuple[Any, ...]:
    """Exact Kemeny-Young on integer margins: ``("solved", forced, order)``,
    ``("too_large", size, limit)`` or ``("time_limit",)``."""

def markov_stationary(p: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Stationary distribution of an irreducible row-stochastic matrix (GTH)."""

# ---- arena (python/kscore/arena/, rust/kscore-py/src/battles.rs): battles to ratings

_F = npt.NDArray[np.float64]
_U32 = npt.NDArray[np.uint32]

def encode_strings(
    offsets: npt.NDArray[np.int32] | npt.NDArray[np.int64], data: npt.NDArray[np.uint8]
) -> tuple[_U32, list[bytes]]:
    """A code per string of an Arrow string column (offsets and bytes) and the distinct strings, in order of
    first appearance."""

def encode_sorted_strings(
    arrays: list[tuple[npt.NDArray[np.int32] | npt.NDArray[np.int64], npt.NDArray[np.uint8]]],
) -> tuple[list[_U32], list[bytes]]:
    """The strings of several Arrow string arrays (offsets and bytes each) coded over one set of names sorted by
    their bytes, a code array per array, and the names."""

def battle_board(
    models: int,
    a: _U32,
    b: _U32,
    outcome: npt.NDArray[np.uint8],
    weight: _F | None = None,
    cluster: _U32 | None = None,
    clusters: int = 0,
) -> BattleBoard:
    """Count the unique (prompt, pair, outcome, weight) rows of battles given as codes."""

@final
class BattleBoard:
    """A board's unique rows, for fits, sandwiches, bootstraps and refits."""

    @property
    def models(self) -> int: ...
    @property
    def battles(self) -> int: ...
    @property
    def clusters(self) -> int: ...
    def pairs(self) -> tuple[_U32, _U32]:
        """``(pair_i, pair_j)``, ``i < j``."""
    def rows(self) -> tuple[_U32, npt.NDArray[np.uint8], _F, _F]:
        """``(row_pair, row_outcome, row_weight, row_count)``."""
    def pair_sums(self, counts: _F | None = None) -> tuple[_F, _F]:
        """``(n, s)`` per pair."""
    def components(self, counts: _F | None = None) -> _U32:
        """Component of each model in the graph of pairs with battles."""
    def mle_exists(self, counts: _F | None = None) -> bool:
        """Whether the maximum likelihood ratings exist."""
    def fit(self, precision: float = 0.0, counts: _F | None = None, start: _F | None = None) -> tuple[_F, int]:
        """``(theta, iterations)`` by Newton's method."""
    def sandwich(
        self, theta: _F, precision: float = 0.0, ridge: float | None = None, clustered: bool = False
    ) -> _F:
        """The sandwich covariance at ``theta``."""
    def bootstrap(
        self, theta: _F, rounds: int, seed: int, by: str = "battle", precision: float = 0.0
    ) -> tuple[_F, int]:
        """``(rounds x models, rounds that needed the prior)``."""
    def fit_ties(
        self, model: str, precision: float = 0.0, clustered: bool = False
    ) -> tuple[_F, float, int, _F]:
        """``(theta, tie parameter, iterations, sandwich over theta and log tie)``: Davidson or Rao-Kupper."""
    def bootstrap_ties(
        self, model: str, rounds: int, seed: int, by: str = "battle", precision: float = 0.0, prior: float = 0.0
    ) -> tuple[_F, int]:
        """``(rounds x (models + 1), rounds that needed the prior)``: ratings, then the tie parameter."""

def style_board(
    models: int,
    a: _U32,
    b: _U32,
    y: _F,
    w: _F,
    x: _F,
    cluster: _U32 | None = None,
    clusters: int = 0,
) -> StyleBoard:
    """Hold battles with style features for contextual Bradley-Terry."""

@final
class StyleBoard:
    """Battles with style features (contextual Bradley-Terry)."""

    def fit(
        self, precision: float, prior: float = 0.0, start: tuple[_F, _F] | None = None
    ) -> tuple[_F, _F, int]:
        """``(theta, beta, iterations)``."""
    def sandwich(
        self,
        theta: _F,
        beta: _F,
        precision: float,
        prior: float = 0.0,
        clustered: bool = False,
        ridge: float | None = None,
    ) -> _F:
        """The sandwich covariance of ``(theta, beta)``."""
    def bootstrap(
        self,
        theta: _F,
        beta: _F,
        precision: float,
        rounds: int,
        seed: int,
        by: str = "battle",
        prior: float = 0.0,
    ) -> tuple[_F, int]:
        """``(rounds x (models + features), rounds that needed the prior)``."""

# ---- aggregate (python/kscore/aggregate/, rust/kscore-py/src/aggregate.rs): scorio.aggregate's votes

def group_answers(answers: npt.NDArray[np.uint8], valid: npt.NDArray[np.bool_]) -> npt.NDArray[np.int32]:
    """Row-local group codes of fixed-width answers ((M, N * width) bytes): first appearance 0, 1, ...;
    -1 where not valid."""

def vote(
    codes: npt.NDArray[np.int32],
    part: npt.NDArray[np.bool_],
    weights: npt.NDArray[np.float64] | None = None,
    seq: npt.NDArray[np.int64] | None = None,
    scores: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Columns of each question's winning answer and representative, and the questions to replay (a NaN compared)."""

# ---- intervals (issue 36): the default interval's monotone envelope (kscore-core interval::envelope) ----

def interval_envelope(
    offsets: npt.NDArray[np.int64],
    sums: Sequence[npt.NDArray[np.float64]],
    s: npt.NDArray[np.float64],
    m: npt.NDArray[np.float64],
    c: npt.NDArray[np.float64],
    z: float,
    upper: bool,
) -> npt.NDArray[np.float64]:
    """Each model's least lower (upper: greatest upper) bound of the default interval over its board and the
    boards moving j units of a run to the end, every j (sums: n, G, t1, t2, t3, t4, n_w, samples per model)."""

# --- irt (issue 37, IRT): kscore.rank's item response theory fits
# (rust/kscore-py/src/irt.rs; python/kscore/rank/_irt/). Counts are C-contiguous
# uint8 or uint32 matrices (models x questions). A fit returns
# ``(x, objective, iterations, converged, projected gradient)``.

def irt_connected(k: npt.NDArray[np.unsignedinteger[Any]], n: int) -> bool:
    """Whether the person/item response graph is strongly connected (no separation)."""

def irt_orbits(k: npt.NDArray[np.unsignedinteger[Any]]) -> npt.NDArray[np.int64]:
    """Each model's orbit under model/question relabellings that keep ``k`` (smallest member)."""

def irt_eliminated_step(
    a: npt.NDArray[np.float64],
    b: npt.NDArray[np.float64],
    dg: npt.NDArray[np.float64],
    gp: npt.NDArray[np.float64],
    gb: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64] | None:
    """dynamic_irt's Newton step with the difficulties eliminated (None: not positive definite)."""

def irt_rasch(
    n: int,
    person_count: npt.NDArray[np.float64],
    person_total: npt.NDArray[np.float64],
    item_count: npt.NDArray[np.float64],
    item_total: npt.NDArray[np.float64],
    x0: npt.NDArray[np.float64],
    max_iter: int,
    prior: str = "flat",
    prior_a: float = 0.0,
    prior_b: float = 1.0,
    prior_means: npt.NDArray[np.float64] | None = None,
    prior_variances: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], float, int, bool, float]:
    """The Rasch joint fit on grouped totals (person groups, then item groups)."""

def irt_logistic(
    k: npt.NDArray[np.unsignedinteger[Any]],
    n: int,
    x0: npt.NDArray[np.float64],
    max_iter: int,
    reg_discrimination: float,
    bound: float,
    guessing: str = "zero",
    c: float = 0.0,
    reg_guessing: float = 0.0,
    prior: str = "flat",
    prior_a: float = 0.0,
    prior_b: float = 1.0,
    prior_means: npt.NDArray[np.float64] | None = None,
    prior_variances: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], float, int, bool, float]:
    """The 2PL/3PL joint fit: ``x = [theta, (b, log a[, guessing logit]) per item]``."""

# ---- agg-signals (python/kscore/aggregate/confidence.py, deepconf.py, prm.py;
# rust/kscore-py/src/aggregate_confidence.rs): per-trace confidence signals. Traces:
# flat float64 ``values``, ``k`` candidates per position (or row ``bounds``), trace t
# = positions ``starts[t] .. starts[t] + lens[t]``. Status per trace: 0 fine, 1 no
# tokens, 2 an empty row, 3 a value not finite, 4 answer_start outside the trace.

def trace_signal(
    values: npt.NDArray[np.float64],
    k: int,
    bounds: npt.NDArray[np.int64] | None,
    starts: npt.NDArray[np.int64],
    lens: npt.NDArray[np.int64],
    stat: str,
    reduce: str,
    window: int = 1,
    tail: int = 1,
    quantile: float = 0.1,
    answer_start: npt.NDArray[np.int64] | None = None,
    normalize: bool = False,
    thresholds: npt.NDArray[np.float64] | None = None,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8]]:
    """One number per trace (``stat`` per token, ``reduce`` over the trace) and each trace's status."""

def token_signal(
    values: npt.NDArray[np.float64],
    k: int,
    bounds: npt.NDArray[np.int64] | None,
    starts: npt.NDArray[np.int64],
    lens: npt.NDArray[np.int64],
    stat: str,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.uint8]]:
    """Every position's statistic (traces concatenated) and each trace's status."""

# ---- agg-speed (python/kscore/aggregate/, rust/kscore-py/src/aggregate.rs register_speed): issue 37's speed pass
__all__ += ["order_by_score", "group_typed", "pick_group", "rank_weights", "score_weights"]
__all__ += ["cges_rows", "dirichlet_leader"]

def order_by_score(
    scores: npt.NDArray[np.float64], part: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Per row: voters by descending score (ties to the lower column) then the rest (``seq``), each
    column's place in it, and the rows with a NaN voter."""

def group_typed(answers: npt.NDArray[np.uint8], cols: int, kind: str) -> npt.NDArray[np.int32]:
    """Row-local group codes of ``cols`` fixed-width answers per row ((M, N * width) bytes), validity
    read from the bytes by ``kind`` ("bytes", "float": NaN unparsable and -0.0 == 0.0, "text": "")."""

def pick_group(
    codes: npt.NDArray[np.int32], scores: npt.NDArray[np.float64], reward: str, alpha: float
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """scorio's mean vote / Best-of-Majority per row (``reward``: "sum", "mean", "max"; groups with a
    share >= ``alpha``): winning answer and representative columns, and the rows to replay (NaN)."""

def rank_weights(
    place: npt.NDArray[np.int64],
    part: npt.NDArray[np.bool_],
    rule: str,
    power: float = 1.0,
    powers: npt.NDArray[np.int64] | None = None,
) -> npt.NDArray[np.float64]:
    """Each voter's weight from its place: "borda" ``(n - t)^power`` (integer power, exact),
    "borda_real" ``((n - t) / n)^power``, "mob" ``(n - t)^m - (n - t - 1)^m`` (``m = powers[row]``)."""

def score_weights(
    codes: npt.NDArray[np.int32], scores: npt.NDArray[np.float64], rule: str, param: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Each valid candidate's vote: "softmax" ``exp((s - max) / param)`` or "logit"
    ``ln(s / (1 - s)) - param`` (the C library's exp/log); and the rows whose max met a NaN."""

def cges_rows(
    codes: npt.NDArray[np.int32], scores: npt.NDArray[np.float64], with_other: bool
) -> tuple[
    npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.float64], npt.NDArray[np.int64]
]:
    """CGES per row: the winner's first column and best member (-1: OTHER or empty), whether OTHER
    won, its posterior (0.0 when empty), and the valid count."""

def dirichlet_leader(
    counts: npt.NDArray[np.int64],
    leader: npt.NDArray[np.int64],
    nodes: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    log_fact: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """Per row of counts (0: no answer), the probability that answer ``leader[row]`` has the largest
    share under Dirichlet(counts + 1), by the composite rule on [0, 1]; ``log_fact[k] = ln k!``."""

# ---- arena3: battles' string columns in one pass (rust/kscore-core/src/battles/columns.rs)
__all__ += ["code_battles"]

_StringArray = tuple[
    npt.NDArray[np.int32] | npt.NDArray[np.int64], npt.NDArray[np.uint8], tuple[npt.NDArray[np.uint8], int] | None
]

def code_battles(
    model_a: list[_StringArray],
    model_b: list[_StringArray],
    winner: list[_StringArray],
    outcomes: Callable[[list[bytes]], list[int]],
) -> tuple[_U32, _U32, npt.NDArray[np.uint8], npt.NDArray[np.uint8], list[bytes], BattleBoard | None]:
    """Battles from their string columns (each a list of Arrow arrays: offsets, bytes, validity bitmap and its
    first bit) in one pass: the models' codes over the names sorted by their bytes, the result of model_a (0, 1,
    2; 255 not a winner value), per-battle flags (1/2 a missing model name, 4 a model against itself, 8 not a
    winner value), the names, and the good battles' unique rows (None past 836 models). ``outcomes`` is called
    once with the distinct winner words."""

# ------------------------------------------------------------------ present (python/kscore/present/tabular.py)

def csv_lines(columns: list[npt.NDArray[np.float64] | npt.NDArray[np.int64] | list[str]]) -> str:
    """A CSV body: row ``i`` is field ``i`` of every column joined by commas,
    each line ended by a newline; a float64 column written as ``repr`` (NaN
    empty), an int64 column as integers (the minimum int64 empty), a list of
    str as it is."""

# ranks100k: the rank ranges' count on a lattice board (rust/kscore-core/src/rank/lattice.rs)
__all__ += ["lattice_count", "lattice_tier"]

def lattice_count(
    counts: npt.NDArray[np.uint8],
    reach: npt.NDArray[np.int64],
    c: float,
    t2: float,
    delta: float,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(worse, better, near) per sorted position of the pairs i < j decided by F = c D^2 - t2 (P_i + P_j - 2 G_ij)
    against the margin delta (near: n x 2 pairs within it, sorted); the columns from row i's reach on beaten."""

def lattice_tier() -> str:
    """The instructions lattice_count runs on here: "avx512vnni" or "portable"."""

# agg5: kscore.aggregate's rules in one core pass (rust/kscore-core/src/aggregate/select.rs, kscore-py aggregate.rs)
__all__ += ["select_rows"]

def select_rows(
    rule: str,
    cols: int,
    scores: npt.NDArray[np.float64] | None = None,
    answers: npt.NDArray[np.uint8] | None = None,
    kind: str = "bytes",
    codes: npt.NDArray[np.int32] | None = None,
    param: float = 0.0,
    count: int = 0,
    weighted: bool = True,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """A selection rule on every row in one pass (grouping, order, weights, count): the answers as
    (M, N * width) bytes read by ``kind`` or as group ``codes``; the answer and representative
    columns per row (-1: none) and the rows to replay in Python (a NaN compared)."""

__all__ += ["top_two_counts"]

def top_two_counts(
    cols: int,
    answers: npt.NDArray[np.uint8] | None = None,
    kind: str = "bytes",
    codes: npt.NDArray[np.int32] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per row, the largest and second largest answer counts (0 where absent), the answers grouped
    in the same pass (bytes read by ``kind``, or group ``codes``)."""

# vote7: Adaptive-Consistency's top-two criterion in the core (core aggregate/stop.rs, kscore-py aggregate.rs)
__all__ += ["top_two_betas", "top_two_replay"]

def top_two_betas(v1: npt.NDArray[np.int64], v2: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """``1 - I_{1/2}(v1 + 1, v2 + 1)`` of each pair exactly (an integer sum rounded once); NaN where
    ``v1 + v2 + 1 > 127`` or a count is negative (the caller's to make)."""

def top_two_replay(
    cols: int,
    threshold: float,
    answers: npt.NDArray[np.uint8] | None = None,
    kind: str = "bytes",
    codes: npt.NDArray[np.int32] | None = None,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]] | None:
    """The online top-two rule replayed on every row in sampling order: (samples drawn, stopped) per
    row; None where ``cols > 124`` (past the exact range: replay in Python)."""

# luce7: inverse_difficulty in one core pass (rust/kscore-core/src/rank/pairs.rs, kscore-py rankers.rs)
__all__ += ["inverse_difficulty_scores"]

def inverse_difficulty_scores(r: npt.NDArray[Any], trials: int, low: float, high: float) -> npt.NDArray[np.float64]:
    """scorio's inverse_difficulty scores of a binary models x (questions * trials) matrix, in one
    pass over it (the weights from the solve rates clipped to ``[low, high]``)."""

# models8: the default interval's whole work in one core call (core interval/envelope.rs bounds, kscore-py interval.rs)
__all__ += ["interval_bounds"]

def interval_bounds(
    offsets: npt.NDArray[np.int64],
    total: npt.NDArray[np.float64],
    size: npt.NDArray[np.float64],
    mult: npt.NDArray[np.float64],
    lo_b: npt.NDArray[np.float64],
    span: npt.NDArray[np.float64],
    samples: npt.NDArray[np.float64],
    z: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each model's default-interval envelopes (lower, upper: rescaled, unclipped) and units, from its units in
    model order (``offsets``; each model's in any order): rescaled, summed, ordered and moved in the core."""

# vote8: the chosen strings of a numpy string batch, one str made per distinct string (kscore-py aggregate.rs)
__all__ += ["pick_text"]

def pick_text(
    answers: npt.NDArray[np.uint8], cols: int, answer: npt.NDArray[np.int64]
) -> npt.NDArray[np.object_] | None:
    """Row r's UCS-4 string at column ``answer[r]`` (-1: None) of an (M, N * width) byte view, as an
    (M,) object array, equal strings one shared ``str``; None where a string is not valid Unicode."""

# rate8: bayesian_mcmc's draws by numpy's own C functions (rust/kscore-py/src/ratings.rs)
__all__ += ["numpy_draws"]

def numpy_draws(
    bitgen: int, normal_fill: int, z: npt.NDArray[np.float64], u: npt.NDArray[np.float64]
) -> None:
    """Per iteration ``t``: ``standard_normal(out=z[t])`` then ``random()`` into ``u[t]``, by numpy's
    ``random_standard_normal_fill`` (address ``normal_fill``) and ``next_double`` on the bitgen_t at
    address ``bitgen``."""
