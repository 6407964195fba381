//! Categorical outcomes with rewards: Bayes@N, Avg and Max@k, and their
//! posteriors (docs/kernels.md).
//!
//! - `bank`: per-row category counts (of R and R0) and reward levels.
//! - `rewards`: reward rescaling so that sums of huge rewards stay finite.
//! - `dirichlet`: Bayes@N and Avg under the Dirichlet(+1) posterior.
//! - `maxk`, `maxk_posterior`: Max@k on the finite bank and its posterior.

pub mod bank;
pub mod dirichlet;
pub mod maxk;
pub mod maxk_posterior;
pub mod rewards;
