//! Each question's voters by descending score, ties to the lower column: the
//! visiting order of the rank-based rules (scorio's `sorted(key=(-score, j))`).
//!
//! Each voter is sorted by one integer key, the score's bits in descending
//! order of value (Python's `<`: `-0.0` and `0.0` tie) then its column, so
//! tied voters keep their column order; the non-voters follow in column order
//! (as numpy's `lexsort((cols, key, ~part))` did). A question with a NaN score
//! among its voters is flagged: Python's `sorted` result then depends on the
//! comparisons it happens to make, so the caller sorts that row in Python.

use rayon::prelude::*;

use crate::par::Grain;
use crate::{Error, Result};

/// Per row, the columns in visiting order (`seq`) and each column's place in
/// it (`place[r, seq[r, t]] == t`), and whether a voter's score is NaN.
pub struct Order {
    pub seq: Vec<i64>,
    pub place: Vec<i64>,
    pub nan: Vec<bool>,
}

/// The order of `rows` x `cols` candidates (C order): voters (`part`) by
/// descending `scores`, ties to the lower column, then the rest by column.
pub fn by_score(scores: &[f64], part: &[bool], rows: usize, cols: usize) -> Result<Order> {
    let n = rows * cols;
    if scores.len() != n || part.len() != n {
        return Err(Error::value("scores, part and the shape disagree"));
    }
    let mut seq = vec![0_i64; n];
    let mut place = vec![0_i64; n];
    let mut nan = vec![false; rows];
    let c = cols.max(1);
    seq.par_chunks_mut(c)
        .zip(place.par_chunks_mut(c))
        .zip(nan.par_iter_mut())
        .with_grain(cols * 30 + 20)
        .enumerate()
        .for_each_init(
            || Vec::<u128>::with_capacity(cols),
            |keys, (r, ((seq, place), nan))| {
                let s = &scores[r * cols..(r + 1) * cols];
                let p = &part[r * cols..(r + 1) * cols];
                keys.clear();
                // One integer key per voter: the score descending (Python's `<`: -0.0
                // ties 0.0), then the column; a NaN voter leaves the row to Python.
                for j in (0..cols).filter(|&j| p[j]) {
                    *nan |= s[j].is_nan();
                    keys.push((u128::from(!ordered_bits(s[j])) << 64) | j as u128);
                }
                keys.sort_unstable();
                let mut t = 0;
                for &key in keys.iter() {
                    seq[t] = (key as u64) as i64;
                    t += 1;
                }
                for j in (0..cols).filter(|&j| !p[j]) {
                    seq[t] = j as i64;
                    t += 1;
                }
                for (t, &j) in seq.iter().enumerate() {
                    place[j as usize] = t as i64;
                }
            },
        );
    Ok(Order { seq, place, nan })
}

/// `x`'s bits as an unsigned integer in the order of the values (`-0.0` as
/// `0.0`; not for NaN).
#[inline]
pub(super) fn ordered_bits(x: f64) -> u64 {
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// A voter's weight from its place `t` among a question's `n` voters (`b = n - t`).
#[derive(Clone, Copy, Debug)]
pub enum RankWeight<'a> {
    /// Borda with an integer power: `b^p` (exact integers; the caller makes
    /// sure every row's sum stays below 2^53).
    Borda(u32),
    /// Borda with a real power: `(b / n)^p` (the C library's `pow`, as Python's `**`).
    BordaReal(f64),
    /// Majority-of-the-Bests: `b^m - (b - 1)^m`, `m` per row (exact integers).
    Mob(&'a [i64]),
}

/// Each voter's weight (0.0 for the others) from its place in `place` (as
/// [`by_score`] gives: voters first).
pub fn rank_weights(place: &[i64], part: &[bool], rows: usize, cols: usize, rule: RankWeight<'_>) -> Result<Vec<f64>> {
    let n = rows * cols;
    if place.len() != n || part.len() != n {
        return Err(Error::value("place, part and the shape disagree"));
    }
    if let RankWeight::Mob(m) = rule {
        if m.len() != rows || m.iter().any(|&x| !(0..=u32::MAX as i64).contains(&x)) {
            return Err(Error::value("one power per row, non-negative"));
        }
    }
    let mut out = vec![0.0_f64; n];
    let c = cols.max(1);
    out.par_chunks_mut(c)
        .with_grain(cols * 8 + 20)
        .enumerate()
        .try_for_each(|(r, w)| -> Result<()> {
            let (pl, p) = (&place[r * cols..(r + 1) * cols], &part[r * cols..(r + 1) * cols]);
            let voters = p.iter().filter(|&&x| x).count() as u64;
            let overflow = || Error::value("a rank weight past 2^64");
            for j in 0..cols {
                if !p[j] {
                    continue;
                }
                let t = pl[j];
                if t < 0 || t as u64 >= voters {
                    return Err(Error::value("a voter's place is outside its row's voters"));
                }
                let b = voters - t as u64;
                w[j] = match rule {
                    RankWeight::Borda(e) => b.checked_pow(e).ok_or_else(overflow)? as f64,
                    RankWeight::BordaReal(e) => (b as f64 / voters as f64).powf(e),
                    RankWeight::Mob(m) => {
                        let e = m[r] as u32;
                        let hi = b.checked_pow(e).ok_or_else(overflow)?;
                        (hi - (b - 1).pow(e)) as f64
                    }
                };
            }
            Ok(())
        })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descending_ties_to_the_lower_column_then_the_rest() {
        let s = [0.5, 0.9, 0.5, 0.1, -0.0, 0.0];
        let p = [true, true, true, false, true, true];
        let o = by_score(&s, &p, 1, 6).unwrap();
        assert_eq!(o.seq, vec![1, 0, 2, 4, 5, 3]);
        assert_eq!(o.place, vec![1, 0, 2, 5, 3, 4]);
        assert!(!o.nan[0]);
    }

    #[test]
    fn infinities_and_ties() {
        let s = [f64::NEG_INFINITY, 1.0, f64::INFINITY, 1.0, -2.0];
        let o = by_score(&s, &[true; 5], 1, 5).unwrap();
        assert_eq!(o.seq, vec![2, 1, 3, 4, 0]);
    }

    #[test]
    fn a_nan_voter_flags_its_row_only() {
        let s = [f64::NAN, 0.2, f64::NAN, 0.3];
        let p = [true, true, false, true];
        let o = by_score(&s, &p, 2, 2).unwrap();
        assert_eq!(o.nan, vec![true, false]);
        assert_eq!(&o.seq[2..], &[1, 0]);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(by_score(&[0.0], &[true, true], 1, 2).is_err());
    }

    #[test]
    fn rank_weights_from_places() {
        // voters at places 1, 0, 2 of n = 3 (b = 2, 3, 1); column 3 does not vote.
        let place = [1, 0, 2, 3];
        let part = [true, true, true, false];
        assert_eq!(
            rank_weights(&place, &part, 1, 4, RankWeight::Borda(2)).unwrap(),
            vec![4.0, 9.0, 1.0, 0.0]
        );
        let w = rank_weights(&place, &part, 1, 4, RankWeight::BordaReal(0.5)).unwrap();
        assert_eq!(w, vec![(2.0f64 / 3.0).powf(0.5), 1.0, (1.0f64 / 3.0).powf(0.5), 0.0]);
        // MoB, m = 2: 2^2 - 1 = 3, 3^2 - 2^2 = 5, 1 - 0 = 1 (they sum to n^m = 9)
        assert_eq!(
            rank_weights(&place, &part, 1, 4, RankWeight::Mob(&[2])).unwrap(),
            vec![3.0, 5.0, 1.0, 0.0]
        );
        assert!(rank_weights(&[5, 0], &[true, true], 1, 2, RankWeight::Borda(1)).is_err());
    }
}
