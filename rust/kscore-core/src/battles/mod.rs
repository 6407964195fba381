//! Leaderboards from pairwise battles (`kscore arena`, python/kscore/arena/):
//! LMArena-style Bradley-Terry ratings with ties as half a win, their
//! sandwich covariance and bootstrap, and contextual BT for style control.
//!
//! - `aggregate`: battles (model codes, outcome, weight, prompt) to unique
//!   (prompt, pair, outcome, weight) rows with counts, and per-pair sums.
//! - `fit`: the ratings on the pair sums by the crate's paired-comparison
//!   solver (`crate::pairwise`, ties as half a win), with the
//!   existence check (strong connectivity of the win graph) and a stated
//!   Gaussian prior where the maximum likelihood estimate does not exist.
//! - `sandwich`: the robust covariance `A M A` (clustered by prompt).
//! - `bootstrap`: rounds over battles or prompts, in parallel, stoppable.
//! - `ties`: ties as their own outcome, Davidson or Rao-Kupper by the same
//!   solver, with their sandwich and bootstrap.
//! - `style`: contextual BT (per-battle features, L2 penalty on their
//!   coefficients as arena-rank sets it), its sandwich and bootstrap.
//! - `encode`: string columns (Arrow's offsets and bytes) to codes.
//! - `columns`: the model_a, model_b and winner string columns to codes,
//!   outcomes, flags and the counted unique rows, in one pass.
//! - `dense`: the small dense linear algebra (Cholesky) these need; `rng`:
//!   a seeded xoshiro256++ (the same draws on any number of threads).

pub mod aggregate;
pub mod bootstrap;
pub mod columns;
pub mod dense;
pub mod encode;
pub mod fit;
pub mod rng;
pub mod sandwich;
pub mod style;
pub mod ties;

pub use aggregate::{aggregate, Battles, Board};
pub use fit::{fit, Fit, Prior};
