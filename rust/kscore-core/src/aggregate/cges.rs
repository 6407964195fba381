//! Confidence-Guided Early Stopping (CGES; Aghazadeh et al., 2026) for every
//! question at once: scorio's `_row_cges_posterior` walk.
//!
//! Per question with `G` observed answers (support `K = G + 1` with OTHER):
//! each valid candidate's mismatch term `ln_1p(-c) - ln(K - 1)` is added to a
//! base in column order; every hypothesis starts from the base and each
//! answer adds its members' `ln(c) - mismatch` in column order (scorio's f64
//! additions in scorio's order, with the C library's `log`/`log1p` as
//! Python's `math`). The winner is the first largest log score (answers by
//! first appearance, then OTHER where allowed); its posterior is
//! `exp(score - logsumexp(scores))` in scipy's form (the maxima taken out).
//! Scores must be in (0, 1): the caller checks them first.

use rayon::prelude::*;

use super::confidence::np_sum;
use crate::par::Grain;
use crate::{Error, Result};

/// Per question: the winner's first column and best-scored member (-1 for
/// OTHER and for a question without a valid answer), whether OTHER won, the
/// winner's posterior (0.0 without a valid answer), and the valid count.
pub struct Cges {
    pub first: Vec<i64>,
    pub rep: Vec<i64>,
    pub other: Vec<bool>,
    pub prob: Vec<f64>,
    pub valid: Vec<i64>,
}

/// CGES over `rows` x `cols` candidates (C order): row-local group codes by
/// first appearance (-1 unparsable) and their scores; `with_other`: OTHER may win.
pub fn cges(codes: &[i32], scores: &[f64], rows: usize, cols: usize, with_other: bool) -> Result<Cges> {
    let n = rows * cols;
    if codes.len() != n || scores.len() != n {
        return Err(Error::value("codes, scores and the shape disagree"));
    }
    if codes.iter().any(|&c| c >= cols as i32) {
        return Err(Error::value("a group code is outside the row"));
    }
    let mut first = vec![-1_i64; rows];
    let mut rep = vec![-1_i64; rows];
    let mut other = vec![false; rows];
    let mut prob = vec![0.0_f64; rows];
    let mut valid = vec![0_i64; rows];
    first
        .par_iter_mut()
        .zip(rep.par_iter_mut())
        .zip(other.par_iter_mut())
        .zip(prob.par_iter_mut())
        .zip(valid.par_iter_mut())
        .with_grain(cols * 40 + 100)
        .enumerate()
        .for_each_init(
            || {
                (
                    vec![0.0_f64; cols + 1],
                    vec![0usize; cols],
                    vec![0usize; cols],
                    vec![0.0_f64; cols + 1],
                    vec![0.0_f64; cols],
                )
            },
            |(score, head, best, terms, mm), (r, ((((first, rep), other), prob), valid))| {
                let base_at = r * cols;
                let (c, s) = (&codes[base_at..base_at + cols], &scores[base_at..base_at + cols]);
                let mut groups = 0usize;
                let mut count = 0i64;
                for j in 0..cols {
                    if c[j] < 0 {
                        continue;
                    }
                    count += 1;
                    let g = c[j] as usize;
                    if g >= groups {
                        groups = g + 1;
                        head[g] = j;
                        best[g] = j;
                    } else if s[j] > s[best[g]] {
                        best[g] = j;
                    }
                }
                *valid = count;
                if groups == 0 {
                    return;
                }
                let lk = (groups as f64).ln();
                let mut base = 0.0_f64;
                for j in 0..cols {
                    if c[j] >= 0 {
                        let mismatch = (-s[j]).ln_1p() - lk;
                        mm[j] = mismatch;
                        base += mismatch;
                    }
                }
                score[..=groups].iter_mut().for_each(|x| *x = base);
                for j in 0..cols {
                    if c[j] >= 0 {
                        score[c[j] as usize] += s[j].ln() - mm[j];
                    }
                }
                // The first largest: answers in order, then OTHER (index `groups`).
                let last = if with_other { groups } else { groups - 1 };
                let mut win = 0;
                for g in 1..=last {
                    if score[g] > score[win] {
                        win = g;
                    }
                }
                // scipy's logsumexp over the G + 1 hypotheses: the maxima out of the sum.
                let all = &score[..=groups];
                let top = all.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let at_top = all.iter().filter(|&&x| x == top).count();
                terms.clear();
                terms.extend(all.iter().map(|&x| if x == top { 0.0 } else { (x - top).exp() }));
                let normalizer = (np_sum(terms) / at_top as f64).ln_1p() + (at_top as f64).ln() + top;
                *prob = (score[win] - normalizer).exp();
                if win == groups {
                    *other = true;
                } else {
                    *first = head[win] as i64;
                    *rep = best[win] as i64;
                }
            },
        );
    Ok(Cges {
        first,
        rep,
        other,
        prob,
        valid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_question_by_hand() {
        // A (0.9), B (0.6), A (0.7): K = 3, mismatch ln(1 - c) - ln 2.
        let s = [0.9_f64, 0.6, 0.7];
        let out = cges(&[0, 1, 0], &s, 1, 3, false).unwrap();
        let mm = |c: f64| (-c).ln_1p() - 2f64.ln();
        let base = 0.0 + mm(0.9) + mm(0.6) + mm(0.7);
        let a = base + (0.9f64.ln() - mm(0.9)) + (0.7f64.ln() - mm(0.7));
        let b = base + (0.6f64.ln() - mm(0.6));
        let o = base;
        let lse = {
            let top = a.max(b).max(o);
            top + ((a - top).exp() + (b - top).exp() + (o - top).exp()).ln()
        };
        assert_eq!((out.first[0], out.rep[0], out.other[0], out.valid[0]), (0, 0, false, 3));
        assert!((out.prob[0] - (a - lse).exp()).abs() < 1e-15);
    }

    #[test]
    fn empty_and_other() {
        let out = cges(&[-1, -1], &[0.5, 0.5], 1, 2, true).unwrap();
        assert_eq!(
            (out.first[0], out.other[0], out.prob[0], out.valid[0]),
            (-1, false, 0.0, 0)
        );
        // Two different low-confidence answers: OTHER is the most likely hypothesis.
        let out = cges(&[0, 1], &[0.1, 0.1], 1, 2, true).unwrap();
        assert!(out.other[0]);
        assert_eq!(out.first[0], -1);
    }
}
