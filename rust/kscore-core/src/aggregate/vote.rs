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

/// A group's reward in [`pick_group`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reward {
    Sum,
    Mean,
    Max,
}

impl Reward {
    pub fn parse(name: &str) -> Option<Reward> {
        Some(match name {
            "sum" => Reward::Sum,
            "mean" => Reward::Mean,
            "max" => Reward::Max,
            _ => return None,
        })
    }
}

/// scorio's `_row_weighted` (`aggregate="mean"`) and `_row_best_of_majority` for
/// every question at once: each answer group's reward (the sum of its scores in
/// column order, that sum over its size, or its largest score), among the groups
/// whose share of the valid candidates is at least `alpha` (all groups when none
/// is), the largest reward, ties to the earliest appearance; the answer is the
/// group's first column, the representative its best-scored member (replaced
/// only by a strictly higher score). A question with a NaN valid score or a NaN
/// reward is flagged for the caller to replay in Python (comparison order).
pub fn pick_group(
    codes: &[i32],
    scores: &[f64],
    rows: usize,
    cols: usize,
    reward: Reward,
    alpha: f64,
) -> Result<Votes> {
    let n = rows * cols;
    if codes.len() != n || scores.len() != n {
        return Err(Error::value("codes, scores and the shape disagree"));
    }
    if codes.iter().any(|&c| c >= cols as i32) {
        return Err(Error::value("a group code is outside the row"));
    }
    let mut answer = vec![-1_i64; rows];
    let mut rep = vec![-1_i64; rows];
    let mut replay = vec![false; rows];
    answer
        .par_iter_mut()
        .zip(rep.par_iter_mut())
        .zip(replay.par_iter_mut())
        .with_grain(cols * 10 + 50)
        .enumerate()
        .try_for_each_init(
            || {
                (
                    vec![0usize; cols],
                    vec![0usize; cols],
                    vec![0usize; cols],
                    vec![0.0_f64; cols],
                    vec![0.0_f64; cols],
                )
            },
            |(first, count, best, sum, top), (r, ((answer, rep), replay))| -> Result<()> {
                let base = r * cols;
                let (c, s) = (&codes[base..base + cols], &scores[base..base + cols]);
                let mut groups = 0usize;
                let mut valid = 0usize;
                let mut nan = false;
                for j in 0..cols {
                    if c[j] < 0 {
                        continue;
                    }
                    let g = c[j] as usize;
                    if g > groups {
                        return Err(Error::value("group codes are not numbered by first appearance"));
                    }
                    let x = s[j];
                    nan |= x.is_nan();
                    valid += 1;
                    if g == groups {
                        groups += 1;
                        first[g] = j;
                        count[g] = 1;
                        best[g] = j;
                        sum[g] = 0.0 + x;
                        top[g] = x;
                        continue;
                    }
                    count[g] += 1;
                    sum[g] += x;
                    if x > top[g] {
                        top[g] = x;
                    }
                    if x > s[best[g]] {
                        best[g] = j;
                    }
                }
                if groups == 0 || nan {
                    *replay = nan;
                    return Ok(());
                }
                let nf = valid as f64;
                let gated = (0..groups).any(|g| count[g] as f64 / nf >= alpha);
                let mut win = usize::MAX;
                let mut win_v = 0.0;
                for g in 0..groups {
                    if gated && count[g] as f64 / nf < alpha {
                        continue;
                    }
                    let v = match reward {
                        Reward::Sum => sum[g],
                        Reward::Mean => sum[g] / count[g] as f64,
                        Reward::Max => top[g],
                    };
                    if v.is_nan() {
                        *replay = true;
                        return Ok(());
                    }
                    if win == usize::MAX || v > win_v {
                        win = g;
                        win_v = v;
                    }
                }
                *answer = first[win] as i64;
                *rep = best[win] as i64;
                Ok(())
            },
        )?;
    Ok(Votes { answer, rep, replay })
}

/// How a valid candidate's score becomes its vote in [`score_weights`].
#[derive(Clone, Copy, Debug)]
pub enum ScoreWeight {
    /// CISC: `exp((s - max) / temperature)`, `max` over the question's valid scores.
    Softmax(f64),
    /// `ln(s / (1 - s)) - shift` (`shift`: the caller's `math.log(b / (1 - b))`).
    Logit(f64),
}

/// Each valid candidate's vote from its score (0.0 for the others), with the
/// C library's `exp` and `log` (Python's `math.exp` and `math.log`: scorio's
/// numbers to the bit), and the questions whose softmax maximum met a NaN
/// (Python's `max` then depends on the order it compares in: the caller's).
pub fn score_weights(
    codes: &[i32],
    scores: &[f64],
    rows: usize,
    cols: usize,
    rule: ScoreWeight,
) -> Result<(Vec<f64>, Vec<bool>)> {
    let n = rows * cols;
    if codes.len() != n || scores.len() != n {
        return Err(Error::value("codes, scores and the shape disagree"));
    }
    let mut out = vec![0.0_f64; n];
    let mut nan = vec![false; rows];
    let c = cols.max(1);
    out.par_chunks_mut(c)
        .zip(nan.par_iter_mut())
        .with_grain(cols * 12 + 20)
        .enumerate()
        .for_each(|(r, (w, nan))| {
            let (cr, s) = (&codes[r * cols..(r + 1) * cols], &scores[r * cols..(r + 1) * cols]);
            match rule {
                ScoreWeight::Softmax(t) => {
                    let mut top = f64::NEG_INFINITY;
                    for j in 0..cols {
                        if cr[j] >= 0 {
                            *nan |= s[j].is_nan();
                            top = top.max(s[j]);
                        }
                    }
                    for j in 0..cols {
                        if cr[j] >= 0 {
                            w[j] = ((s[j] - top) / t).exp();
                        }
                    }
                }
                ScoreWeight::Logit(shift) => {
                    for j in 0..cols {
                        if cr[j] >= 0 {
                            w[j] = (s[j] / (1.0 - s[j])).ln() - shift;
                        }
                    }
                }
            }
        });
    Ok((out, nan))
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

    #[test]
    fn pick_group_gates_and_rewards() {
        // A B A C with scores .2 .9 .4 .5: mean A .3, B .9, C .5 -> B; sum A .6 B .9 -> B;
        // alpha .5: only A (2/4) is frequent -> A, its best member column 2.
        let codes = [0, 1, 0, 2];
        let s = [0.2, 0.9, 0.4, 0.5];
        let v = pick_group(&codes, &s, 1, 4, Reward::Mean, 0.0).unwrap();
        assert_eq!((v.answer[0], v.rep[0]), (1, 1));
        let v = pick_group(&codes, &s, 1, 4, Reward::Max, 0.5).unwrap();
        assert_eq!((v.answer[0], v.rep[0]), (0, 2));
        // no group reaches alpha = 1: the gate is relaxed; ties go to the first group
        let v = pick_group(&[0, 1], &[0.5, 0.5], 1, 2, Reward::Sum, 1.0).unwrap();
        assert_eq!((v.answer[0], v.rep[0]), (0, 0));
        let v = pick_group(&[0, 1, -1], &[f64::NAN, 0.5, 0.1], 1, 3, Reward::Sum, 0.0).unwrap();
        assert!(v.replay[0]);
        let v = pick_group(&[-1, -1], &[0.1, 0.2], 1, 2, Reward::Sum, 0.0).unwrap();
        assert_eq!((v.answer[0], v.replay[0]), (-1, false));
    }

    #[test]
    fn score_weights_softmax_and_logit() {
        let codes = [0, -1, 1, 0];
        let s = [0.2, 0.9, 0.6, 0.4];
        let (w, nan) = score_weights(&codes, &s, 1, 4, ScoreWeight::Softmax(2.0)).unwrap();
        assert_eq!(
            w,
            vec![((0.2f64 - 0.6) / 2.0).exp(), 0.0, 1.0, ((0.4f64 - 0.6) / 2.0).exp()]
        );
        assert!(!nan[0]);
        let (w, _) = score_weights(&codes, &s, 1, 4, ScoreWeight::Logit(0.0)).unwrap();
        assert_eq!(w[2], (0.6f64 / 0.4).ln());
        let (_, nan) = score_weights(&[0, 0], &[f64::NAN, 0.1], 1, 2, ScoreWeight::Softmax(1.0)).unwrap();
        assert!(nan[0]);
    }
}
