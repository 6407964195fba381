//! Answer aggregation (`kscore.aggregate`, scorio.aggregate's votes) for many
//! questions at once: group each question's answers ([`group`]), then count
//! the votes of each group ([`vote`]) exactly as scorio's per-question loop does.
//! [`confidence`]: the per-trace confidence signals from token log-probabilities.

pub mod cges;
pub mod confidence;
pub mod group;
pub mod leader;
pub mod order;
pub mod select;
pub mod stop;
pub mod vote;

pub use group::{group_rows, group_typed, Kind};
pub use select::{select, top_two_counts, Answers, Keep, Rule};
pub use stop::{top_two_beta, top_two_betas, top_two_replay};
pub use vote::{pick_group, score_weights, vote, Reward, ScoreWeight, Vote, Votes};
