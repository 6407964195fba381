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

/// A group's running total: what one voter adds to it, and the value the
/// winner is chosen by. `f64` sums weights in visiting order (scorio's
/// `total[a] += w`, from `0`: every weighted vote), [`Rewards`] keeps a
/// group's size, score sum and top score ([`pick_group`]).
pub trait Tally: Copy + Send {
    /// What one voter brings (its weight, its score, or nothing).
    type Vote: Copy;
    /// The tally of a group's first voter.
    fn first(v: Self::Vote) -> Self;
    fn add(&mut self, v: Self::Vote);
}

impl Tally for f64 {
    type Vote = f64;
    #[inline]
    fn first(v: f64) -> f64 {
        0.0 + v
    }
    #[inline]
    fn add(&mut self, v: f64) {
        *self += v;
    }
}

/// A group's size, sum of scores (in visiting order) and largest score: the
/// rewards of [`pick_group`].
#[derive(Clone, Copy, Debug)]
pub struct Rewards {
    pub count: u32,
    pub sum: f64,
    pub top: f64,
}

impl Tally for Rewards {
    type Vote = f64;
    #[inline]
    fn first(x: f64) -> Rewards {
        Rewards {
            count: 1,
            sum: 0.0 + x,
            top: x,
        }
    }
    #[inline]
    fn add(&mut self, x: f64) {
        self.count += 1;
        self.sum += x;
        if x > self.top {
            self.top = x;
        }
    }
}

/// One group of a question: its first column (answer and tie-break), its
/// representative and that member's score, and its tally.
#[derive(Clone, Copy, Debug)]
struct Slot<T> {
    first: usize,
    best: usize,
    best_s: f64,
    tally: T,
}

/// One question's groups as its voters are visited: each group's first
/// column (its answer and tie-break), representative and tally, side by side
/// in one slot (one cache line read a visit). A thread's scratch, cleared per
/// question; group indices are any numbers below the capacity (codes in order
/// of first appearance, or small integer answers themselves): ties go by the
/// first column, never by the index.
pub(crate) struct Groups<T> {
    slots: Vec<Slot<T>>,
    seen: Vec<usize>,
    /// A NaN score met a representative's comparison.
    pub(crate) nan: bool,
}

impl<T: Tally> Groups<T> {
    pub(crate) fn new(cap: usize, zero: T) -> Groups<T> {
        Groups {
            slots: vec![
                Slot {
                    first: NONE,
                    best: NONE,
                    best_s: 0.0,
                    tally: zero,
                };
                cap
            ],
            seen: Vec::with_capacity(cap),
            nan: false,
        }
    }

    pub(crate) fn clear(&mut self) {
        for &g in self.seen.iter() {
            self.slots[g].first = NONE;
        }
        self.seen.clear();
        self.nan = false;
    }

    /// Voter at column `j` (group `g`) casts `v`; with `scores` (the row's),
    /// the group's representative moves to it on a strictly higher score.
    #[inline]
    pub(crate) fn visit(&mut self, g: usize, j: usize, v: T::Vote, scores: Option<&[f64]>) {
        let slot = &mut self.slots[g];
        if slot.first == NONE {
            slot.first = j;
            slot.best = j;
            slot.tally = T::first(v);
            self.seen.push(g);
            return;
        }
        slot.tally.add(v);
        if let Some(s) = scores {
            let (sj, sb) = (s[j], s[slot.best]);
            if sj.is_nan() || sb.is_nan() {
                self.nan = true;
            } else if sj > sb {
                slot.best = j;
            }
        }
    }

    /// [`Groups::visit`] with the voter's score `sj`, where the caller has
    /// checked that no valid score of the question is NaN (the representative's
    /// score is kept in its slot: no second read of the row).
    #[inline]
    pub(crate) fn visit_scored(&mut self, g: usize, j: usize, v: T::Vote, sj: f64) {
        let slot = &mut self.slots[g];
        if slot.first == NONE {
            *slot = Slot {
                first: j,
                best: j,
                best_s: sj,
                tally: T::first(v),
            };
            self.seen.push(g);
            return;
        }
        slot.tally.add(v);
        // a new best as a select, not a branch: with random scores whether a voter
        // beats its group's best so far is a coin the predictor keeps missing
        let better = sj > slot.best_s;
        slot.best = if better { j } else { slot.best };
        slot.best_s = if better { sj } else { slot.best_s };
    }

    /// The group with the largest `value` among those `eligible`, ties to the
    /// smaller first column: `Ok(None)` where no group is, `Err(())` where a
    /// value is NaN (Python's `min` then depends on its comparison order).
    #[inline]
    pub(crate) fn winner(
        &self,
        value: impl Fn(&T) -> f64,
        eligible: impl Fn(&T) -> bool,
    ) -> std::result::Result<Option<(usize, usize)>, ()> {
        let mut win = NONE;
        let mut win_v = 0.0;
        for &g in self.seen.iter() {
            let t = &self.slots[g].tally;
            if !eligible(t) {
                continue;
            }
            let v = value(t);
            if v.is_nan() {
                return Err(());
            }
            if win == NONE || v > win_v || (v == win_v && self.slots[g].first < self.slots[win].first) {
                win = g;
                win_v = v;
            }
        }
        Ok((win != NONE).then(|| (self.slots[win].first, self.slots[win].best)))
    }

    pub(crate) fn tallies(&self) -> impl Iterator<Item = &T> {
        self.seen.iter().map(|&g| &self.slots[g].tally)
    }
}

/// One question's outcome.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Pick {
    /// Nobody voted.
    Nobody,
    /// The columns of the answer and of its representative.
    Win(usize, usize),
    /// A NaN compared: the caller replays the question in Python.
    Replay,
}

impl Pick {
    pub(crate) fn of(w: std::result::Result<Option<(usize, usize)>, ()>, nan: bool) -> Pick {
        match w {
            _ if nan => Pick::Replay,
            Err(()) => Pick::Replay,
            Ok(None) => Pick::Nobody,
            Ok(Some((a, r))) => Pick::Win(a, r),
        }
    }
}

/// Every question's [`Pick`] on the pool: `per_row(scratch, r)` with one
/// scratch per thread (`init`), `row_ns` the cost of a question for the grain.
pub(crate) fn per_row<S>(
    rows: usize,
    row_ns: usize,
    init: impl Fn() -> S + Sync + Send,
    per_row: impl Fn(&mut S, usize) -> Result<Pick> + Sync + Send,
) -> Result<Votes> {
    let mut answer = vec![-1_i64; rows];
    let mut rep = vec![-1_i64; rows];
    let mut replay = vec![false; rows];
    answer
        .par_iter_mut()
        .zip(rep.par_iter_mut())
        .zip(replay.par_iter_mut())
        .with_grain(row_ns)
        .enumerate()
        .try_for_each_init(init, |scratch, (r, ((answer, rep), replay))| -> Result<()> {
            match per_row(scratch, r)? {
                Pick::Nobody => {}
                Pick::Win(a, b) => {
                    *answer = a as i64;
                    *rep = b as i64;
                }
                Pick::Replay => *replay = true,
            }
            Ok(())
        })?;
    Ok(Votes { answer, rep, replay })
}

/// The checks every walk over row-local group codes makes.
pub(crate) fn check_codes(codes: &[i32], rows: usize, cols: usize) -> Result<()> {
    if codes.len() != rows * cols {
        return Err(Error::value("the codes and the shape disagree"));
    }
    if codes.iter().any(|&c| c >= cols as i32) {
        return Err(Error::value("a group code is outside the row"));
    }
    Ok(())
}

/// Count every question's votes.
pub fn vote(v: &Vote<'_>) -> Result<Votes> {
    let (rows, cols) = (v.rows, v.cols);
    let n = rows * cols;
    check_codes(v.codes, rows, cols)?;
    if v.part.len() != n
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
    per_row(
        rows,
        cols * 12 + 50,
        || Groups::<f64>::new(cols, 0.0),
        |groups, r| {
            let base = r * cols;
            let scores = v.scores.map(|s| &s[base..base + cols]);
            groups.clear();
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
                groups.visit(g as usize, j, v.weights.map_or(1.0, |w| w[i]), scores);
            }
            Ok(Pick::of(groups.winner(|&t| t, |_| true), groups.nan))
        },
    )
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

    #[inline]
    pub(crate) fn of(self, t: &Rewards) -> f64 {
        match self {
            Reward::Sum => t.sum,
            Reward::Mean => t.sum / f64::from(t.count),
            Reward::Max => t.top,
        }
    }
}

/// One question of [`pick_group`] on its codes and scores, `groups` the
/// thread's scratch.
#[inline]
pub(crate) fn pick_row(groups: &mut Groups<Rewards>, c: &[i32], s: &[f64], reward: Reward, alpha: f64) -> Pick {
    groups.clear();
    let mut valid = 0u32;
    for j in 0..c.len() {
        if c[j] < 0 {
            continue;
        }
        if s[j].is_nan() {
            return Pick::Replay;
        }
        valid += 1;
        // no NaN among the scores visited so far (each is checked above)
        groups.visit_scored(c[j] as usize, j, s[j], s[j]);
    }
    let nf = f64::from(valid);
    let gated = groups.tallies().any(|t| f64::from(t.count) / nf >= alpha);
    let w = groups.winner(|t| reward.of(t), |t| !gated || f64::from(t.count) / nf >= alpha);
    Pick::of(w, false)
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
    check_codes(codes, rows, cols)?;
    if scores.len() != rows * cols {
        return Err(Error::value("codes, scores and the shape disagree"));
    }
    per_row(
        rows,
        cols * 10 + 50,
        || Groups::new(cols, Rewards::first(0.0)),
        |groups, r| {
            let base = r * cols;
            Ok(pick_row(
                groups,
                &codes[base..base + cols],
                &scores[base..base + cols],
                reward,
                alpha,
            ))
        },
    )
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
