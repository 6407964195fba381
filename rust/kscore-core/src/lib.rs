//! kscore-core: pure-Rust kernels for the evaluation metrics of sampled LLM
//! outputs (pass@k, pass^k, G-Pass@k, mG-Pass@k, maj@k, AUC@k, max@k,
//! Bayes@N, ...). No Python here: the `kscore-py` crate binds these kernels.
//!
//! The pieces, each in its own module:
//! - `entry`, `intake`: read and validate an outcome matrix of any dtype and
//!   layout in one parallel pass, counting per row.
//! - `histogram`: distinct per-row counts with frequencies.
//! - `walk`, `hypergeom`: relative masses from ratio recurrences.
//! - `credit`: the credit vectors that define each metric.
//! - `finite`: finite-bank expectations over a histogram.
//! - `counts`: per-question `(n, c)` counts validated and deduplicated.
//! - `curve`: a metric at many budgets k at once (O(U * N) pass curves).
//! - `packed`: popcount intake of `numpy.packbits` outcome matrices.
//! - `sum`: compensated and correctly rounded sums.
//! - `ndtri`: the inverse normal CDF behind every credible interval.

pub mod bytes;
pub mod counts;
pub mod credit;
pub mod curve;
pub mod entry;
pub mod error;
pub mod finite;
pub mod histogram;
pub mod hypergeom;
pub mod intake;
pub mod ndtri;
pub mod packed;
pub mod sum;
pub mod walk;

pub use error::{Error, Result};
