//! Numerics shared by every room.
//!
//! - `sum`: compensated and correctly rounded sums.
//! - `ndtri`: the inverse normal CDF behind every credible interval.
//! - `expln`: branch-free `exp` and `ln` that vectorise (rank-fit).
//! - `dd`: double-double sums of products, for differences of large sums.
//! - `fft`: a radix-2 complex FFT for the blocked Bernstein products.

pub mod dd;
pub mod expln;
pub mod fft;
pub mod ndtri;
pub mod sum;
