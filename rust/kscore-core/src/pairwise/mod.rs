//! Paired comparisons: the likelihood fits of Bradley-Terry, Davidson and
//! Rao-Kupper on a table of compared pairs, exact to the optimum, and the
//! paired counts of binary outcome rows they are usually fitted to.
//!
//! - `table`: the input (pairs of items with the weights of each outcome),
//!   its checks and the comparison graph's strong connectivity.
//! - `model`: each pair's negative log-likelihood, gradient and Hessian.
//! - `prior`: penalties on the log-strengths (Gaussian/L2 per item,
//!   Laplace, Cauchy) and the `Hook` for any other.
//! - `newton`: Newton's method with the full Hessian on centred strengths
//!   for any likelihood (`Objective`), line-searched, an active set for
//!   Laplace's kink (also used by the Luce family in `choice`).
//! - `fit`: the paired-comparison fit (`fit`), returning the Hessian at the
//!   optimum and its constrained inverse.
//! - `dense`: Cholesky factor and solves.
//! - `counts`: pairwise wins and ties of packed binary rows, and twin rows.
//! - `mcmc`: scorio's random-walk Metropolis sampler of the Bradley-Terry
//!   posterior (`bayesian_mcmc`), on the caller's draws.
//!
//! A fit only reads its inputs and allocates its own work space: calls are
//! independent and can run on many threads at once (bootstrap rounds).
//!
//! ```text
//! use kscore_core::pairwise::{fit, Model, Options, Pairs, Prior, Ties};
//! // 0 beat 1 three times and lost once: theta_0 - theta_1 = ln 3.
//! let pairs = Pairs { i: &[0], j: &[1], win_i: &[3.0], win_j: &[1.0], tie: &[0.0] };
//! let f = fit(2, &pairs, Model::BradleyTerry(Ties::Ignore), &Prior::None, &Options::default()).unwrap();
//! assert!((f.theta[0] - f.theta[1] - 3f64.ln()).abs() < 1e-14);
//! ```
//!
//! (This example is the unit test `tests::doc_example`: the crate runs no
//! doc-tests, which would need a second release build of the library.)

pub mod counts;
pub mod dense;
pub mod fit;
pub mod mcmc;
pub mod model;
pub mod newton;
pub mod prior;
pub mod table;
#[cfg(test)]
mod tests;

pub use fit::{fit, Fit, Options};
pub use model::{Model, Param, Ties};
pub use prior::{Hook, Prior};
pub use table::Pairs;
