//! The votes of grouped answers: scorio's `_plurality` for every question at once.
//!
//! Per question, the voters are visited in a given order (columns, or the
//! order of `seq`); each adds its weight to its group's total (an f64 sum in
//! visiting order, the same additions as scorio's Python loop), the first
//! column met is the group's answer and tie-break, and the representative is
//! replaced by a later voter only with a strictly higher score. The winner is
//! the largest total, ties to the smaller first column. Where a NaN takes part
//! in a comparison (a total or a voter's score), Python's result depends on the
//! order of its comparisons: such a question is flagged for the caller to
//! replay in Python.

use rayon::prelude::*;

use crate::par::Grain;
use crate::{Error, Result};

/// One batch of votes (all slices C order, `rows` x `cols`).
pub struct Vote<'a> {
    /// Row-local group codes (-1: no valid answer), as [`super::group_rows`] gives.
    pub codes: &'a [i32],
    pub rows: usize,
    pub cols: usize,
    /// Each candidate's vote (`None`: one each).
    pub weights: Option<&'a [f64]>,
    /// Who votes (a subset of the valid answers).
    pub part: &'a [bool],
    /// The visiting order of each row, as columns (`None`: column order).
    pub seq: Option<&'a [i64]>,
    /// Scores deciding each group's representative (`None`: its first voter).
    pub scores: Option<&'a [f64]>,
}

/// Per question: the column of the winning answer and of its representative
/// (-1 where nobody voted), and whether a NaN compared (replay in Python).
pub struct Votes {
    pub answer: Vec<i64>,
    pub rep: Vec<i64>,
    pub replay: Vec<bool>,
}

const NONE: usize = usize::MAX;

/// Count every question's votes.
pub fn vote(v: &Vote<'_>) -> Result<Votes> {
    let (rows, cols) = (v.rows, v.cols);
    let n = rows * cols;
    if v.codes.len() != n
        || v.part.len() != n
        || v.weights.is_some_and(|w| w.len() != n)
        || v.scores.is_some_and(|s| s.len() != n)
        || v.seq.is_some_and(|s| s.len() != n)
    {
        return Err(Error::value("the vote's arrays and shape disagree"));
    }
    if let Some(seq) = v.seq {
        if seq.iter().any(|&j| j < 0 || j as usize >= cols) {
            return Err(Error::value("a visiting order names a column outside the row"));
        }
    }
    if v.codes.iter().any(|&c| c >= cols as i32) {
        return Err(Error::value("a group code is outside the row"));
    }
    let mut answer = vec![-1_i64; rows];
    let mut rep = vec![-1_i64; rows];
    let mut replay = vec![false; rows];
    answer
        .par_iter_mut()
        .zip(rep.par_iter_mut())
        .zip(replay.par_iter_mut())
        .with_grain(cols * 12 + 50)
        .enumerate()
        .try_for_each_init(
            || {
                (
                    vec![0.0_f64; cols],
                    vec![NONE; cols],
                    vec![NONE; cols],
                    Vec::<usize>::with_capacity(cols),
                )
            },
            |(total, first, best, seen), (r, ((answer, rep), replay))| -> Result<()> {
                let base = r * cols;
                for &g in seen.iter() {
                    first[g] = NONE;
                }
                seen.clear();
                let mut nan = false;
                for t in 0..cols {
                    let j = match v.seq {
                        Some(seq) => seq[base + t] as usize,
                        None => t,
                    };
                    let i = base + j;
                    if !v.part[i] {
                        continue;
                    }
                    let g = v.codes[i];
                    if g < 0 {
                        return Err(Error::value("a voter without a valid answer"));
                    }
                    let g = g as usize;
                    if first[g] == NONE {
                        first[g] = j;
                        best[g] = j;
                        total[g] = 0.0;
                        seen.push(g);
                    }
                    total[g] += v.weights.map_or(1.0, |w| w[i]);
                    if let Some(s) = v.scores {
                        let (sj, sb) = (s[i], s[base + best[g]]);
                        if sj.is_nan() || sb.is_nan() {
                            nan = true;
                        } else if sj > sb {
                            best[g] = j;
                        }
                    }
                }
                let mut win = NONE;
                for &g in seen.iter() {
                    let tg = total[g];
                    if tg.is_nan() {
                        nan = true;
                        continue;
                    }
                    if win == NONE || tg > total[win] || (tg == total[win] && first[g] < first[win]) {
                        win = g;
                    }
                }
                if win != NONE {
                    *answer = first[win] as i64;
                    *rep = best[win] as i64;
                }
                *replay = nan;
                Ok(())
            },
        )?;
    Ok(Votes { answer, rep, replay })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(codes: &[i32], cols: usize, w: Option<&[f64]>, seq: Option<&[i64]>, s: Option<&[f64]>) -> Votes {
        let part: Vec<bool> = codes.iter().map(|&c| c >= 0).collect();
        vote(&Vote {
            codes,
            rows: codes.len() / cols,
            cols,
            weights: w,
            part: &part,
            seq,
            scores: s,
        })
        .unwrap()
    }

    #[test]
    fn majority_ties_go_to_the_first_answer() {
        // Row 0: A B B A -> tie 2:2, A first. Row 1: nothing valid.
        let v = run(&[0, 1, 1, 0, -1, -1, -1, -1], 4, None, None, None);
        assert_eq!(v.answer, vec![0, -1]);
        assert_eq!(v.rep, vec![0, -1]);
    }

    #[test]
    fn weights_and_the_representative() {
        // A A B with scores .3 .4 .85: sum A = .7 < .85 -> B; reps by strictly higher score.
        let s = [0.3, 0.4, 0.85];
        let v = run(&[0, 0, 1], 3, Some(&s), None, Some(&s));
        assert_eq!((v.answer[0], v.rep[0]), (2, 2));
        let s = [0.5, 0.5, 0.85];
        let v = run(&[0, 0, 1], 3, Some(&s), None, Some(&s));
        assert_eq!((v.answer[0], v.rep[0]), (0, 0));
    }

    #[test]
    fn the_visiting_order_decides_the_first_member() {
        // Visited 2, 0, 1: group 0's first member is column 2.
        let v = run(&[0, 1, 0], 3, None, Some(&[2, 0, 1]), None);
        assert_eq!((v.answer[0], v.rep[0]), (2, 2));
    }

    #[test]
    fn nan_rows_are_flagged() {
        let s = [f64::NAN, 0.2];
        let v = run(&[0, 1], 2, Some(&s), None, Some(&s));
        assert!(v.replay[0]);
    }

    #[test]
    fn bad_shapes_are_errors() {
        let part = [true];
        assert!(vote(&Vote {
            codes: &[0, 0],
            rows: 1,
            cols: 1,
            weights: None,
            part: &part,
            seq: None,
            scores: None
        })
        .is_err());
    }
}
