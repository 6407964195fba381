//! Answer aggregation (`kscore.aggregate`, scorio.aggregate's votes) for many
//! questions at once: group each question's answers ([`group`]), then count
//! the votes of each group ([`vote`]) exactly as scorio's per-question loop does.
//! [`confidence`]: the per-trace confidence signals from token log-probabilities.

pub mod confidence;
pub mod group;
pub mod vote;

pub use group::group_rows;
pub use vote::{vote, Vote, Votes};
