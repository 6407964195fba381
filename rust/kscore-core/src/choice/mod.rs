//! Setwise choice models of binary outcome rows (scorio's Luce family):
//! each event's winners are chosen from the whole field.
//!
//! - `events`: the distinct winner sets with their counts, the choice
//!   graphs' connectivity and scorio's equivalence statistics.
//! - `luce`: Bradley-Terry-Luce's composite likelihood and the profiled
//!   Davidson-Luce likelihood, as objectives of `pairwise::newton`.
//!
//! (Plackett-Luce on binary rows reduces to the paired decisive wins:
//! `pairwise`.)

pub mod events;
pub mod luce;
#[cfg(test)]
mod tests;

pub use events::Events;

use crate::error::Result;
use crate::pairwise::newton::{minimise, Options, Solution};
use crate::pairwise::Prior;

/// Which setwise likelihood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bradley-Terry-Luce rank breaking (`luce::Composite`).
    Composite,
    /// Davidson-Luce with the tie prevalences profiled out (`luce::DavidsonLuce`).
    DavidsonLuce,
}

/// The exact (penalised) optimum of `kind` on `events`: centred
/// log-strengths in `Solution::x`.
pub fn fit(events: &Events, kind: Kind, prior: &Prior, options: &Options) -> Result<Solution> {
    match kind {
        Kind::Composite => minimise(&luce::Composite::new(events), prior, options),
        Kind::DavidsonLuce => minimise(&luce::DavidsonLuce::new(events)?, prior, options),
    }
}
