//! Ranking statistics of the leaderboard that are too slow in numpy.
//!
//! - `max_t`: the per-draw maximum of the studentised pairwise differences,
//!   the multiplier bootstrap behind the simultaneous rank sets
//!   (`--adjust simultaneous`, python/kscore/leaderboard/stats/simultaneous.py).

pub mod max_t;
