//! Elo (1978) over the induced matches: `r_i += K sum_j (S_ij - E_ij)` with
//! `E_ij = 1 / (1 + 10^((r_j - r_i) / 400))`, every match of an event from
//! the event's starting ratings.
//!
//! `E_ij = a_i / (a_i + a_j)` with `a = 10^((r - r_max) / 400)`: one power
//! per model and event instead of one per pair, and the sum over opponents
//! a vectorisable loop.

use crate::cancel;
use crate::error::Result;
use crate::numeric::expln::{exp, has_avx2};
use crate::pairwise::counts::Packed;

use super::{check_stop, outcomes, TiePolicy};

/// `ln(10) / 400`.
const SCALE: f64 = std::f64::consts::LN_10 / 400.0;
/// Below this (natural) exponent a power is taken as 0 in the per-model
/// form; an event with such a gap uses the per-pair formula.
const TINY: f64 = -700.0;

/// Final ratings after every event of `rows` (scorio's `elo`).
pub fn elo(rows: Packed, k: f64, initial: f64, policy: TiePolicy) -> Result<Vec<f64>> {
    let watch = cancel::Watch::new();
    let l = rows.rows;
    let mut rating = vec![initial; l];
    let mut o = vec![0u8; l];
    let mut a = vec![0.0; l];
    // Score and weight of each opponent for a right row (index 1) and a wrong one (0).
    let mut score = [vec![0.0; l], vec![0.0; l]];
    let mut weight = [vec![0.0; l], vec![0.0; l]];
    let mut delta = vec![0.0; l];
    for e in 0..rows.events {
        check_stop(e)?;
        outcomes(&rows, e, &mut o);
        let top = rating.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut direct = false;
        for j in 0..l {
            let x = SCALE * (rating[j] - top);
            direct |= x < TINY;
            a[j] = exp(x);
            for side in 0..2u8 {
                let s = policy.score(side, o[j]);
                score[side as usize][j] = s.unwrap_or(0.0);
                weight[side as usize][j] = if s.is_some() { 1.0 } else { 0.0 };
            }
        }
        for i in 0..l {
            let side = o[i] as usize;
            // The self term is 0 (a draw at equal ratings, or no match).
            let sum = if direct {
                pairwise_sum(&rating, i, &score[side], &weight[side])
            } else {
                row_sum(a[i], &a, &score[side], &weight[side])
            };
            delta[i] = k * sum;
        }
        for i in 0..l {
            rating[i] += delta[i];
        }
    }
    watch.check()?;
    Ok(rating)
}

/// `sum_j w_j (s_j - a_i / (a_i + a_j))` in four lanes.
fn row_sum(ai: f64, a: &[f64], s: &[f64], w: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { row_sum_avx2(ai, a, s, w) };
        }
    }
    row_sum_body(ai, a, s, w)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_sum_avx2(ai: f64, a: &[f64], s: &[f64], w: &[f64]) -> f64 {
    row_sum_body(ai, a, s, w)
}

#[inline(always)]
fn row_sum_body(ai: f64, a: &[f64], s: &[f64], w: &[f64]) -> f64 {
    let mut lanes = [0.0f64; 4];
    let n = a.len();
    let (a4, s4, w4) = (a.chunks_exact(4), s.chunks_exact(4), w.chunks_exact(4));
    for ((ac, sc), wc) in a4.zip(s4).zip(w4) {
        for q in 0..4 {
            lanes[q] += wc[q] * (sc[q] - ai / (ai + ac[q]));
        }
    }
    let mut tail = 0.0;
    for j in n - n % 4..n {
        tail += w[j] * (s[j] - ai / (ai + a[j]));
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// The same sum from the ratings pair by pair (scorio's formula): for
/// events whose ratings span more than the powers' range.
fn pairwise_sum(rating: &[f64], i: usize, s: &[f64], w: &[f64]) -> f64 {
    let mut sum = 0.0;
    for j in 0..rating.len() {
        if w[j] != 0.0 && j != i {
            sum += s[j] - 1.0 / (1.0 + 10f64.powf((rating[j] - rating[i]) / 400.0));
        }
    }
    sum
}
