//! kscore-core: pure-Rust kernels for the evaluation metrics of sampled LLM
//! outputs (pass@k, pass^k, G-Pass@k, mG-Pass@k, maj@k, AUC@k, max@k,
//! Bayes@N, ...). No Python here: the `kscore-py` crate binds these kernels.
//!
//! The pieces, each in its own module:
//! - `entry`, `intake`: read and validate an outcome matrix of any dtype and
//!   layout in one parallel pass, counting per row.
//! - `histogram`: distinct per-row counts with frequencies.
//! - `walk`, `hypergeom`: relative masses from ratio recurrences.
//! - `credit`: the credit vectors that define each metric; `metric`: the
//!   metric table (names, aliases, credit at each k).
//! - `finite`: finite-bank expectations over a histogram.
//! - `counts`: per-question `(n, c)` counts validated and deduplicated.
//! - `curve`: a metric at many budgets k at once (O(U * N) pass curves).
//! - `packed`: popcount intake of `numpy.packbits` outcome matrices.
//! - `betabinom`, `bernstein`, `endpoint`, `posterior`: Beta-posterior
//!   moments of credit vectors (means, variances, covariances).
//! - `delta`: geometric blends and their delta-method variance.
//! - `par`: when work is worth handing to the thread pool.
//! - `sum`: compensated and correctly rounded sums.
//! - `ndtri`: the inverse normal CDF behind every credible interval.
//! - `categorical`: a bank of per-row category counts and reward levels.
//! - `rewards`: reward rescaling so that sums of huge rewards stay finite.
//! - `dirichlet`: Bayes@N and Avg moments under the Dirichlet(+1) posterior.
//! - `maxk`, `maxk_posterior`: Max@k on the finite bank and its posterior.

pub mod bernstein;
pub mod beta_moments;
pub mod betabinom;
pub mod bytes;
pub mod categorical;
pub mod counts;
pub mod credit;
pub mod curve;
pub mod delta;
pub mod dirichlet;
pub mod endpoint;
pub mod entry;
pub mod error;
pub mod finite;
pub mod histogram;
pub mod hypergeom;
pub mod intake;
pub mod maxk;
pub mod maxk_posterior;
pub mod metric;
pub mod ndtri;
pub mod packed;
pub mod par;
pub mod posterior;
pub mod rewards;
pub mod sum;
#[cfg(test)]
mod testutil;
pub mod walk;

pub use error::{Error, Result};
