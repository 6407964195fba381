//! Categorical outcomes with rewards: Bayes@N, Avg and Max@k, and their
//! posteriors (docs/kernels.md).
//!
//! - `bank`: per-row category counts (of R and R0) and reward levels.
//! - `rewards`: reward rescaling so that sums of huge rewards stay finite.
//! - `dirichlet`: Bayes@N and Avg under the Dirichlet(+1) posterior.
//! - `maxk`, `maxk_posterior`: Max@k on the finite bank and its posterior;
//!   `joint`: the joint table of a row's cumulative level counts (the posterior's).

pub mod bank;
pub mod dirichlet;
pub(crate) mod joint;
pub mod maxk;
pub mod maxk_posterior;
pub mod rewards;
