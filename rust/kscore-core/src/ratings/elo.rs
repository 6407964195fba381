//! Elo (1978) over the induced matches: `r_i += K sum_j (S_ij - E_ij)` with
//! `E_ij = 1 / (1 + 10^((r_j - r_i) / 400))`, every match of an event from
//! the event's starting ratings.
//!
//! `E_ij = a_i / (a_i + a_j)` with `a = 10^((r - r_max) / 400)`: one power
//! per model and event instead of one per pair. An event's outcomes split
//! the models into the right ones and the wrong ones, and every match term
//! is antisymmetric (`(S_ij - E_ij) = -(S_ji - E_ji)`), so each unordered
//! pair that plays costs one division, taken once for both models:
//!
//! - right `i` against wrong `j`: `i` gains `a_j / (a_i + a_j)` (its
//!   `1 - E_ij`) and `j` loses it;
//! - a draw inside a group (right-right unless `skip`, wrong-wrong under
//!   `draw`): `i` gains `1/2 - a_i / (a_i + a_j)` and `j` loses it.
//!
//! With half the models right, `correct_draw_only` divides `3L^2/8` times an
//! event where the row-by-row form divided `L^2` times. The per-model sums
//! run over the opponents in another order than scorio's pair loop (four
//! lanes, then the column terms as they come): equal to rounding.

use crate::cancel;
use crate::error::Result;
use crate::numeric::expln::{exp, has_avx2};
use crate::pairwise::counts::Packed;

#[cfg(target_arch = "x86_64")]
use super::simd;
use super::{check_stop, outcomes, TiePolicy};

/// `ln(10) / 400`.
const SCALE: f64 = std::f64::consts::LN_10 / 400.0;
/// Below this (natural) exponent a power is taken as 0 in the per-model
/// form; an event with such a gap uses the per-pair formula.
const TINY: f64 = -700.0;

/// One group's models in an event: their indices, powers and running sums
/// of `S - E`.
#[derive(Default)]
struct Group {
    index: Vec<usize>,
    power: Vec<f64>,
    sum: Vec<f64>,
}

impl Group {
    fn clear(&mut self) {
        self.index.clear();
        self.power.clear();
        self.sum.clear();
    }

    fn push(&mut self, j: usize, a: f64) {
        self.index.push(j);
        self.power.push(a);
        self.sum.push(0.0);
    }
}

/// Final ratings after every event of `rows` (scorio's `elo`).
pub fn elo(rows: Packed, k: f64, initial: f64, policy: TiePolicy) -> Result<Vec<f64>> {
    let watch = cancel::Watch::new();
    let l = rows.rows;
    let mut rating = vec![initial; l];
    let mut o = vec![0u8; l];
    let mut delta = vec![0.0; l];
    let mut power = vec![0.0; l];
    let (mut right, mut wrong) = (Group::default(), Group::default());
    for e in 0..rows.events {
        check_stop(e)?;
        outcomes(&rows, e, &mut o);
        let top = rating.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        right.clear();
        wrong.clear();
        let direct = powers(&rating, top, &mut power);
        for j in 0..l {
            if o[j] == 1 {
                right.push(j, power[j]);
            } else {
                wrong.push(j, power[j]);
            }
        }
        if direct {
            for (i, d) in delta.iter_mut().enumerate() {
                *d = k * pairwise_sum(&rating, &o, i, policy);
            }
            for (r, d) in rating.iter_mut().zip(&delta) {
                *r += d;
            }
            continue;
        }
        event_sums(&mut right, &mut wrong, policy);
        for group in [&right, &wrong] {
            for (&i, &s) in group.index.iter().zip(&group.sum) {
                rating[i] += k * s;
            }
        }
    }
    watch.check()?;
    Ok(rating)
}

/// Every model's power `10^((r - top) / 400)` into `power` (a plain map over
/// the models: it vectorises), and whether a power is below the range of
/// the per-model form.
fn powers(rating: &[f64], top: f64, power: &mut [f64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { powers_avx2(rating, top, power) };
        }
    }
    powers_body(rating, top, power)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn powers_avx2(rating: &[f64], top: f64, power: &mut [f64]) -> bool {
    powers_body(rating, top, power)
}

#[inline(always)]
fn powers_body(rating: &[f64], top: f64, power: &mut [f64]) -> bool {
    let mut direct = false;
    for (p, &r) in power.iter_mut().zip(rating) {
        let x = SCALE * (r - top);
        direct |= x < TINY;
        *p = exp(x);
    }
    direct
}

/// Every model's `sum_j (S_ij - E_ij)` over the event's matches, into the
/// groups' `sum`.
fn event_sums(right: &mut Group, wrong: &mut Group, policy: TiePolicy) {
    #[cfg(target_arch = "x86_64")]
    {
        if super::has_avx512() {
            // SAFETY: the CPU has AVX-512 F and DQ (checked).
            return unsafe { event_sums_avx512(right, wrong, policy) };
        }
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { event_sums_avx2(right, wrong, policy) };
        }
    }
    event_sums_body(right, wrong, policy)
}

/// The event's sums in eight lanes, each share `a_j / (a_i + a_j)` from
/// `simd::recip8` (within an ulp or two of the division).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn event_sums_avx512(right: &mut Group, wrong: &mut Group, policy: TiePolicy) {
    for p in 0..right.power.len() {
        let gain = cross_row8(right.power[p], &wrong.power, &mut wrong.sum);
        right.sum[p] += gain;
    }
    if policy != TiePolicy::Skip {
        draws8(&right.power, &mut right.sum);
    }
    if policy == TiePolicy::Draw {
        draws8(&wrong.power, &mut wrong.sum);
    }
}

/// `cross_row` in eight lanes (the last block's missing lanes add 0).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn cross_row8(ai: f64, a: &[f64], loss: &mut [f64]) -> f64 {
    use std::arch::x86_64::*;
    let n = a.len().min(loss.len());
    let ai8 = _mm512_set1_pd(ai);
    let mut lanes = _mm512_setzero_pd();
    let mut j = 0;
    while j < n {
        let end = (j + 8).min(n);
        let aj = simd::load_or(&a[j..end], 0.0);
        let x = _mm512_mul_pd(aj, simd::recip8(_mm512_add_pd(ai8, aj)));
        lanes = _mm512_add_pd(lanes, x);
        let l = simd::load_or(&loss[j..end], 0.0);
        simd::store_first(&mut loss[j..end], _mm512_sub_pd(l, x));
        j = end;
    }
    simd::sum8(lanes)
}

/// `draws` in eight lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn draws8(a: &[f64], sum: &mut [f64]) {
    use std::arch::x86_64::*;
    let n = a.len().min(sum.len());
    let half = _mm512_set1_pd(0.5);
    for p in 0..n {
        let ap = _mm512_set1_pd(a[p]);
        let mut lanes = _mm512_setzero_pd();
        let mut q = p + 1;
        while q < n {
            let end = (q + 8).min(n);
            // Missing lanes: a_q = a_p, y = 0.
            let aq = simd::load_or(&a[q..end], a[p]);
            let y = _mm512_sub_pd(half, _mm512_mul_pd(ap, simd::recip8(_mm512_add_pd(ap, aq))));
            let y = _mm512_maskz_mov_pd(simd::first(end - q), y);
            lanes = _mm512_add_pd(lanes, y);
            let s = simd::load_or(&sum[q..end], 0.0);
            simd::store_first(&mut sum[q..end], _mm512_sub_pd(s, y));
            q = end;
        }
        sum[p] += simd::sum8(lanes);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn event_sums_avx2(right: &mut Group, wrong: &mut Group, policy: TiePolicy) {
    event_sums_body(right, wrong, policy)
}

#[inline(always)]
fn event_sums_body(right: &mut Group, wrong: &mut Group, policy: TiePolicy) {
    // Right against wrong: a win for the right model.
    for p in 0..right.power.len() {
        let gain = cross_row(right.power[p], &wrong.power, &mut wrong.sum);
        right.sum[p] += gain;
    }
    if policy != TiePolicy::Skip {
        draws(&right.power, &mut right.sum);
    }
    if policy == TiePolicy::Draw {
        draws(&wrong.power, &mut wrong.sum);
    }
}

/// `sum_j a_j / (a_i + a_j)` in four lanes, each term also taken from
/// `loss[j]`.
#[inline(always)]
fn cross_row(ai: f64, a: &[f64], loss: &mut [f64]) -> f64 {
    let n = a.len().min(loss.len());
    let (a, loss) = (&a[..n], &mut loss[..n]);
    let mut lanes = [0.0f64; 4];
    let mut chunks = loss.chunks_exact_mut(4);
    for (lc, ac) in (&mut chunks).zip(a.chunks_exact(4)) {
        for q in 0..4 {
            let x = ac[q] / (ai + ac[q]);
            lanes[q] += x;
            lc[q] -= x;
        }
    }
    let mut tail = 0.0;
    for (lj, &aj) in chunks.into_remainder().iter_mut().zip(&a[n - n % 4..]) {
        let x = aj / (ai + aj);
        tail += x;
        *lj -= x;
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// Draws between every two models of a group: model `p` gains
/// `1/2 - a_p / (a_p + a_q)` and `q` loses it, each unordered pair once.
#[inline(always)]
fn draws(a: &[f64], sum: &mut [f64]) {
    let n = a.len().min(sum.len());
    for p in 0..n {
        let ap = a[p];
        let (head, rest) = sum[..n].split_at_mut(p + 1);
        let mut lanes = [0.0f64; 4];
        let later = &a[p + 1..n];
        let mut chunks = rest.chunks_exact_mut(4);
        for (sc, ac) in (&mut chunks).zip(later.chunks_exact(4)) {
            for q in 0..4 {
                let y = 0.5 - ap / (ap + ac[q]);
                lanes[q] += y;
                sc[q] -= y;
            }
        }
        let mut tail = 0.0;
        let m = later.len();
        for (sq, &aq) in chunks.into_remainder().iter_mut().zip(&later[m - m % 4..]) {
            let y = 0.5 - ap / (ap + aq);
            tail += y;
            *sq -= y;
        }
        head[p] += (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail;
    }
}

/// Model `i`'s sum from the ratings pair by pair (scorio's formula): for
/// events whose ratings span more than the powers' range.
fn pairwise_sum(rating: &[f64], o: &[u8], i: usize, policy: TiePolicy) -> f64 {
    let mut sum = 0.0;
    for j in 0..rating.len() {
        if j == i {
            continue;
        }
        if let Some(s) = policy.score(o[i], o[j]) {
            sum += s - 1.0 / (1.0 + 10f64.powf((rating[j] - rating[i]) / 400.0));
        }
    }
    sum
}
