//! Sequential rating systems over the pairwise matches that binary outcome
//! rows induce (scorio.rank's `elo`, `glicko`, `trueskill`): events (one
//! question and trial each) in scorio's order, every pair of models a match
//! within an event, all of an event's matches evaluated from the ratings
//! at its start.
//!
//! - `elo`, `glicko`, `trueskill`: the three systems.
//! - `normal`: `erfc`, `erfcx`, `log_ndtr` and truncated-normal moments.
//!
//! The results equal scorio's to rounding (about 1e-15 relative; the
//! systems damp rather than amplify rounding): the same updates in the same
//! order, with per-model powers (`10^(r/400)`) instead of per-pair ones.

pub mod elo;
#[cfg(target_arch = "x86_64")]
mod erfcx_table;
pub mod glicko;
pub mod normal;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;
#[cfg(test)]
mod tests;
pub mod trueskill;
#[cfg(target_arch = "x86_64")]
mod trueskill_lanes;

use crate::cancel;
use crate::error::Result;
use crate::pairwise::counts::Packed;

/// What a tie (both right or both wrong) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TiePolicy {
    /// No match.
    Skip,
    /// A draw, both ways.
    Draw,
    /// A draw when both are right; no match when both are wrong.
    CorrectDrawOnly,
}

impl TiePolicy {
    /// Whether two models with outcomes `a`, `b` play, and the score of the
    /// first (1 win, 0 loss, 0.5 draw).
    #[inline]
    pub fn score(self, a: u8, b: u8) -> Option<f64> {
        match (a, b) {
            (1, 0) => Some(1.0),
            (0, 1) => Some(0.0),
            (1, 1) if self != TiePolicy::Skip => Some(0.5),
            (0, 0) if self == TiePolicy::Draw => Some(0.5),
            _ => None,
        }
    }
}

/// The outcomes of event `e` (0/1 per model).
#[inline]
pub(crate) fn outcomes(rows: &Packed, e: usize, out: &mut [u8]) {
    let (byte, bit) = (e / 8, 7 - (e % 8));
    for (r, o) in out.iter_mut().enumerate() {
        *o = rows.data[r * rows.bytes + byte] >> bit & 1;
    }
}

/// Whether the CPU runs AVX-512 (F and DQ): the per-pair loops of the rating
/// systems and the sampler then run eight lanes wide.
#[inline]
pub(crate) fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Events between looks at a pending stop.
const CHECK_EVERY: usize = 256;

#[inline]
pub(crate) fn check_stop(e: usize) -> Result<()> {
    if e.is_multiple_of(CHECK_EVERY) {
        cancel::check()?;
    }
    Ok(())
}
