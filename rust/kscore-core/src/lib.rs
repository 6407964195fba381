//! kscore-core: pure-Rust kernels for the evaluation metrics of sampled LLM
//! outputs (pass@k, pass^k, G-Pass@k, mG-Pass@k, maj@k, AUC@k, max@k,
//! Bayes@N, ...). No Python here: the `kscore-py` crate binds these kernels.
//!
//! The core has rooms by job, each a folder whose `mod.rs` lists its files:
//! - `intake`: outcome matrices and `(n, c)` counts in, validated per-row
//!   counts and distinct states out.
//! - `finite`: credit vectors and finite-bank expectations (pass@k, maj@k,
//!   G-Pass@k, AUC@k, ... and their curves over k).
//! - `posterior`: Beta-posterior moments of credit vectors (every binary CI).
//! - `categorical`: category counts with rewards (Bayes@N, Avg, Max@k).
//! - `tailpass`: TailPass profiles of binary banks (tails, covariance, draws).
//! - `numeric`: compensated sums and the inverse normal CDF.
//! - `choice`: setwise Luce-family fits (Bradley-Terry-Luce,
//!   Davidson-Luce) on the events of binary rows.
//! - `pairwise`: paired-comparison fits (Bradley-Terry, Davidson,
//!   Rao-Kupper; Newton to the exact optimum) and paired counts.
//! - `ratings`: Elo, Glicko and TrueSkill over the matches that binary
//!   rows induce (scorio.rank's event order).
//! - `rank`: the leaderboard's ranking statistics (the simultaneous rank
//!   sets' max-t bootstrap).
//! - `interval`: the leaderboard's default interval's monotone envelope.
//!
//! And five files at the top: `text` (floats and CSV lines as Python
//! writes them, for the leaderboard's CSV), `metric` (the metric table: names, aliases,
//! credit at each k), `par` (when work is worth handing to the thread pool),
//! `cancel` (stopping long kernels early: the binding's Ctrl-C) and `error`.

pub mod aggregate;
pub mod battles;
pub mod cancel;
#[cfg(test)]
mod cancel_test;
pub mod categorical;
pub mod choice;
pub mod error;
pub mod finite;
pub mod grid_sums;
pub mod intake;
pub mod interval;
pub mod irt;
pub mod metric;
pub mod numeric;
pub mod pairwise;
pub mod par;
pub mod posterior;
pub mod rank;
pub mod ratings;
pub mod tailpass;
#[cfg(test)]
mod testutil;
pub mod text;

pub use error::{Error, Result};
