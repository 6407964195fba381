//! Adaptive-Consistency's top-two Beta criterion without Python: the exact
//! probability `1 - I_{1/2}(v1 + 1, v2 + 1)` of a pair of counts, and the
//! online rule replayed over every question's samples in one pass.
//!
//! For integer arguments `I_{1/2}(a, b) = P(Binomial(a + b - 1, 1/2) >= a)`, so
//! the probability is `sum_{k <= v1} C(n, k) / 2^n` with `n = v1 + v2 + 1`
//! (python/kscore/aggregate/_leader.py `top_two_probability`). Summed here in
//! `u128` while every term fits (n up to about 125) and converted once: the
//! conversion rounds to nearest, ties to even, and the division by `2^n` is
//! exact, so the value is Python's correctly rounded `total / (1 << n)` to the
//! bit. Past that the caller computes it in Python (None here).

use rayon::prelude::*;

use super::group::{check_typed, RowGroups};
use super::select::{Answers, DIRECT};
use super::vote::check_codes;
use crate::par::Grain;
use crate::Result;

/// `1 - I_{1/2}(v1 + 1, v2 + 1)` exactly (Python's integer sum over one
/// division), or None where a term would pass `u128`.
pub fn top_two_beta(v1: u64, v2: u64) -> Option<f64> {
    if v1 == 0 {
        return Some(0.0);
    }
    let n = u128::from(v1.checked_add(v2)?.checked_add(1)?);
    if n > 127 {
        return None;
    }
    let (mut total, mut c) = (0_u128, 1_u128);
    for k in 0..=u128::from(v1) {
        total = total.checked_add(c)?;
        if k < u128::from(v1) {
            c = c.checked_mul(n - k)? / (k + 1);
        }
    }
    // n <= 127: 2^-n is a normal f64 (made from its bits) and the product exact
    Some(total as f64 * f64::from_bits((1023 - n as u64) << 52))
}

/// [`top_two_beta`] remembered for pairs below `side` (NaN: not yet made).
struct Memo {
    side: usize,
    vals: Vec<f64>,
}

impl Memo {
    fn new(side: usize) -> Memo {
        Memo {
            side,
            vals: vec![f64::NAN; side * side],
        }
    }

    /// The probability of (v1, v2), or None where Python must make it.
    #[inline]
    fn get(&mut self, v1: u64, v2: u64) -> Option<f64> {
        if (v1 as usize) < self.side && (v2 as usize) < self.side {
            let slot = &mut self.vals[v1 as usize * self.side + v2 as usize];
            if slot.is_nan() {
                *slot = top_two_beta(v1, v2).unwrap_or(f64::INFINITY);
            }
            return (*slot != f64::INFINITY).then_some(*slot);
        }
        top_two_beta(v1, v2)
    }
}

/// Pairs whose sum passes this are never exact here (n = v1 + v2 + 1 > 127).
const SIDE: usize = 128;

/// [`top_two_beta`] of every pair (NaN where None: the caller's to make).
pub fn top_two_betas(v1: &[i64], v2: &[i64]) -> Vec<f64> {
    let mut memo = Memo::new(SIDE);
    v1.iter()
        .zip(v2)
        .map(|(&a, &b)| {
            if a < 0 || b < 0 {
                return f64::NAN;
            }
            memo.get(a as u64, b as u64).unwrap_or(f64::NAN)
        })
        .collect()
}

/// The online Adaptive-Consistency rule replayed on each question's samples in
/// order (`answers`: `rows` x `cols`, sampling order): per question the number
/// of samples drawn when the top-two probability of the prefix first reaches
/// `threshold` (then true), else `cols` (false). None where a prefix's pair is
/// past [`top_two_beta`]'s range (`cols > 125`): the caller replays in Python.
pub fn top_two_replay(
    answers: Answers<'_>,
    rows: usize,
    cols: usize,
    threshold: f64,
) -> Result<Option<(Vec<i64>, Vec<bool>)>> {
    match answers {
        Answers::Typed { bytes, width, kind } => check_typed(bytes, rows, cols, width, kind)?,
        Answers::Codes(c) => check_codes(c, rows, cols)?,
    }
    if cols + 1 > 125 {
        return Ok(None);
    }
    let cap = cols.max(DIRECT);
    let mut used = vec![cols as i64; rows];
    let mut stopped = vec![false; rows];
    used.par_iter_mut()
        .zip(stopped.par_iter_mut())
        .with_grain(cols * 30 + 50)
        .enumerate()
        .for_each_init(
            || {
                (
                    vec![-1_i32; cols],
                    RowGroups::new(cols),
                    vec![0_u32; cap],
                    Memo::new(cols + 1),
                )
            },
            |(codes, grouper, count, memo), (r, (used, stopped))| {
                answers.row_codes(r, cols, cap, grouper, codes);
                // the top two counts after each sample (an invalid sample changes neither)
                let (mut a, mut b) = (0_u32, 0_u32);
                for (t, &g) in codes.iter().enumerate() {
                    if g >= 0 {
                        let k = &mut count[g as usize];
                        *k += 1;
                        let c = *k;
                        if c > a {
                            if c - 1 != a {
                                b = a;
                            }
                            a = c;
                        } else if c > b {
                            b = c;
                        }
                    }
                    // cols <= 124: every prefix's pair is in the memo's exact range
                    let p = memo.get(u64::from(a), u64::from(b)).unwrap_or(0.0);
                    if p >= threshold {
                        *used = t as i64 + 1;
                        *stopped = true;
                        break;
                    }
                }
                for &g in codes.iter() {
                    if g >= 0 {
                        count[g as usize] = 0;
                    }
                }
            },
        );
    Ok(Some((used, stopped)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact value by the same sum in f64-free rationals: numerator and 2^n.
    fn exact(v1: u64, v2: u64) -> (u128, u32) {
        let n = (v1 + v2 + 1) as u32;
        let mut total = 0_u128;
        for k in 0..=v1 {
            // C(n, k) by the multiplicative formula in u128 (n <= 100 here)
            let mut c = 1_u128;
            for i in 0..k {
                c = c * u128::from(n as u64 - i) / u128::from(i + 1);
            }
            total += c;
        }
        (total, n)
    }

    #[test]
    fn beta_is_the_exact_sum_rounded_once() {
        assert_eq!(top_two_beta(0, 5), Some(0.0));
        assert_eq!(top_two_beta(1, 0), Some(0.75)); // n = 2: (1 + 2) / 4
        assert_eq!(top_two_beta(2, 2), Some(0.5));
        for v1 in 1..60_u64 {
            for v2 in 0..=v1.min(100 - v1) {
                let (num, n) = exact(v1, v2);
                // the sum rounded once to the nearest f64, then scaled by 2^-n
                assert_eq!(
                    top_two_beta(v1, v2),
                    Some(num as f64 / 2f64.powi(n as i32)),
                    "{v1} {v2}"
                );
            }
        }
        assert_eq!(top_two_beta(200, 0), None);
        assert_eq!(top_two_beta(100, 100), None);
    }

    #[test]
    fn replay_stops_where_the_prefix_first_reaches_the_threshold() {
        // brute force: the counts of each prefix, sorted, and the probability
        let mut seed = 3_u64;
        for _ in 0..200 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let rows = 1 + (seed >> 60) as usize;
            let cols = 1 + ((seed >> 50) & 63) as usize;
            let kinds = 1 + ((seed >> 44) & 3);
            let codes: Vec<i32> = (0..rows * cols)
                .map(|i| {
                    let x = (seed.rotate_left(i as u32 % 64) ^ (i as u64).wrapping_mul(0x9E37_79B9)) >> 7;
                    if x.is_multiple_of(11) {
                        -1
                    } else {
                        // a code names one of the row's columns (below cols)
                        ((x % 17).min(kinds - 1).min(cols as u64 - 1)) as i32
                    }
                })
                .collect();
            for &th in &[0.5, 0.9, 0.95, 0.999] {
                let (used, stopped) = top_two_replay(Answers::Codes(&codes), rows, cols, th).unwrap().unwrap();
                for r in 0..rows {
                    let mut count = vec![0_u64; cols];
                    let mut want = (cols as i64, false);
                    for t in 0..cols {
                        let g = codes[r * cols + t];
                        if g >= 0 {
                            count[g as usize] += 1;
                        }
                        let mut sorted = count.clone();
                        sorted.sort_unstable_by(|x, y| y.cmp(x));
                        let (a, b) = (sorted[0], if cols > 1 { sorted[1] } else { 0 });
                        if top_two_beta(a, b).unwrap() >= th {
                            want = (t as i64 + 1, true);
                            break;
                        }
                    }
                    assert_eq!((used[r], stopped[r]), want, "row {r} threshold {th}");
                }
            }
        }
    }
}
