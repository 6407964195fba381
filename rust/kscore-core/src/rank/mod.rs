//! Ranking statistics of the leaderboard that are too slow in numpy.
//!
//! - `max_t`: the per-draw maximum of the studentised pairwise differences,
//!   the multiplier bootstrap behind the simultaneous rank sets
//!   (`--adjust simultaneous`, python/kscore/leaderboard/stats/simultaneous.py).
//! - `lattice`: the unadjusted and Holm counts of the rank ranges where every
//!   estimate is a count over the same samples (python/kscore/leaderboard/stats/folded.py).
//!
//! And scorio.rank's pairwise, voting and graph rankers (python/kscore/rank/):
//! - `pairs`: one pass over a response tensor (totals, per-question levels,
//!   packed outcomes) and the pair counts every such ranker starts from.
//! - `voting`: Schulze's strongest paths, ranked pairs' locking, and the
//!   level scores of a dominance relation.
//! - `kemeny`: exact Kemeny-Young with its tie-aware preorder.
//! - `markov`: stationary distributions by GTH elimination (Rank Centrality).

pub mod kemeny;
pub mod lattice;
pub mod markov;
pub mod max_t;
pub mod pairs;
pub mod voting;
