//! Numerics shared by every room.
//!
//! - `sum`: compensated and correctly rounded sums.
//! - `ndtri`: the inverse normal CDF behind every credible interval.

pub mod ndtri;
pub mod sum;
