//! Item response theory: the joint fits behind scorio.rank's IRT rankers
//! (`python/kscore/rank/_irt/`), exact to the last digits rather than to
//! an optimiser's tolerance.
//!
//! The data are an `L x M` matrix of correct counts `k` out of `N` trials
//! (models x questions). Every joint fit minimises a negative log-likelihood
//! over abilities `theta` (one per model) and item parameters (difficulty
//! `b`, log-discrimination, guessing logit) with the difficulties centred
//! (`sum b = 0`), plus an ability prior and ridge terms, by the projected
//! Newton-CG of `newton`. The Hessian is never formed: persons given items
//! and items given persons are each block-diagonal, so one pass over the
//! cells gives a Hessian-vector product and the block-diagonal
//! preconditioner, and the work is `O(L M)` a conjugate-gradient step.
//!
//! - `board`: the count matrix's checks (all-correct/all-wrong rows and
//!   columns, and separation: a finite joint estimate exists iff the
//!   person/item response graph is strongly connected).
//! - `orbits`: models that a simultaneous relabelling of models and
//!   questions exchanges (their abilities are equal in exact arithmetic).
//! - `prior`: ability priors (Gaussian, per-model Gaussian, Laplace, Cauchy).
//! - `newton`: the driver: projected, preconditioned Newton-CG with an
//!   equality constraint, box bounds and Laplace kinks.
//! - `cells`: row chunks that run in parallel and sum their item parts in a
//!   fixed order (results never depend on the thread count).
//! - `rasch`: the 1PL on grouped totals (its likelihood depends on the data
//!   only through the row and column totals).
//! - `logistic`: the 2PL and 3PL on the full count matrix.
//! - `schur`: a Newton step of `dynamic_irt`'s longitudinal fits with the
//!   difficulties eliminated.

pub mod board;
pub mod cells;
pub mod logistic;
pub mod newton;
pub mod orbits;
pub mod prior;
pub mod rasch;
pub mod schur;
#[cfg(test)]
mod tests;

/// A count matrix's entry type: u8 (binary boards, `N < 256`) or u32.
pub trait Count: Copy + Send + Sync + 'static {
    fn get(self) -> u32;
}

impl Count for u8 {
    #[inline(always)]
    fn get(self) -> u32 {
        self as u32
    }
}

impl Count for u32 {
    #[inline(always)]
    fn get(self) -> u32 {
        self
    }
}

/// `log(1 + exp(z))` without overflow.
#[inline(always)]
pub(crate) fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// The logistic function and `softplus(z)` from one exponential.
#[inline(always)]
pub(crate) fn sigmoid_softplus(z: f64) -> (f64, f64) {
    let e = (-z.abs()).exp();
    let s = if z >= 0.0 { 1.0 / (1.0 + e) } else { e / (1.0 + e) };
    (s, z.max(0.0) + e.ln_1p())
}

/// The logistic function.
#[inline(always)]
pub(crate) fn sigmoid(z: f64) -> f64 {
    let e = (-z.abs()).exp();
    if z >= 0.0 {
        1.0 / (1.0 + e)
    } else {
        e / (1.0 + e)
    }
}
