//! Ranking statistics of the leaderboard that are too slow in numpy.
//!
//! - `folded`: the unadjusted and Holm counts of the rank ranges on a full
//!   grid, every pair's test as the sign of one dot product
//!   (python/kscore/leaderboard/stats/folded.py).
//! - `max_t`: the per-draw maximum of the studentised pairwise differences,
//!   the multiplier bootstrap behind the simultaneous rank sets
//!   (`--adjust simultaneous`, python/kscore/leaderboard/stats/simultaneous.py).
//!
//! And scorio.rank's pairwise, voting and graph rankers (python/kscore/rank/):
//! - `pairs`: one pass over a response tensor (totals, per-question levels,
//!   packed outcomes) and the pair counts every such ranker starts from.
//! - `voting`: Schulze's strongest paths, ranked pairs' locking, and the
//!   level scores of a dominance relation.
//! - `kemeny`: exact Kemeny-Young with its tie-aware preorder.
//! - `markov`: stationary distributions by GTH elimination (Rank Centrality).

pub mod folded;
pub mod kemeny;
pub mod markov;
pub mod max_t;
pub mod pairs;
pub mod voting;
