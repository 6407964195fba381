//! The finite bank: every metric that is an expectation over the N observed
//! samples of a question (docs/kernels.md, K1-K3).
//!
//! - `credit`: the credit vector `A_0..A_k` that defines a metric at k.
//! - `walk`, `hypergeom`: hypergeometric masses from ratio recurrences.
//! - `expectation`: `E[A_X]` per state and the frequency-weighted mean.
//! - `reduce`: per-state values to per-question, mean or per-segment output.
//! - `curve`: one metric at many budgets k at once.

pub mod credit;
pub mod curve;
pub mod expectation;
pub mod hypergeom;
pub mod reduce;
pub mod walk;
