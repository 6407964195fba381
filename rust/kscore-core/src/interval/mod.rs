//! The leaderboard's intervals that are too slow in numpy.
//!
//! - `envelope`: the monotone envelope of the default interval over
//!   questions (python/kscore/leaderboard/stats/default_interval.py): per
//!   model, the least lower bound (greatest upper bound) over the boards
//!   that move the `j` best (worst) units to the end of the range, every `j`.

pub mod envelope;
