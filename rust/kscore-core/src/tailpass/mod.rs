//! TailPass: the probability that a fresh k-attempt bank reaches each
//! required score, for binary banks (docs/kernels.md, K16).
//!
//! - `laws`: normalised binomial, Beta-binomial and hypergeometric masses and
//!   their upper and lower tails at integer cutoffs.
//! - `binary`: per-state profiles, payoff moments, the exact profile
//!   covariance and the finite-bank profile.
//! - `draws`: per-draw binomial profiles of posterior draws, from success
//!   probabilities or straight from numpy's gamma variates.

pub mod binary;
pub mod draws;
pub mod laws;
