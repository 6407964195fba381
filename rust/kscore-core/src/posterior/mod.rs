//! The posterior: Beta-posterior moments of credit vectors, behind every
//! binary `*_ci` (docs/kernels.md, K4-K8).
//!
//! - `betabinom`: beta-binomial masses.
//! - `bernstein`: products of Bernstein polynomials (second moments).
//! - `blocked`: the same products' bracket moments at large k, by blocked FFTs.
//! - `endpoint`: closed forms for Pass@k and Unanimous@k.
//! - `beta_moments`: Beta log-moments shared by `endpoint` and Max@k.
//! - `credit_moments`: means, variances and covariances per state, then
//!   aggregated over the questions.
//! - `delta`: geometric blends and their delta-method variance.

pub mod bernstein;
pub mod beta_moments;
pub mod betabinom;
pub mod blocked;
pub mod credit_moments;
pub mod delta;
pub mod endpoint;
