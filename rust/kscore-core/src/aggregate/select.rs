//! scorio.aggregate's selection rules in one pass per question: group the
//! answers, weigh the voters, count, pick. The batch is one call on the
//! pool; a question's codes, order and weights live in the thread's scratch
//! (no `(M, N)` array of codes, weights or places is made).
//!
//! Each rule gives the numbers of the separate kernels it replaces
//! ([`super::group_typed`], [`super::order::by_score`],
//! [`super::order::rank_weights`], [`super::score_weights`], [`super::vote`],
//! [`super::pick_group`]), which the Python replay paths still use: a
//! question where a valid score is NaN (or a total is) is flagged, and the
//! caller replays it as scorio visits it.

use super::group::{check_typed, validity, RowGroups};
// The sort key of `order::by_score`: the rank rules here order scores as it does.
use super::order::ordered_bits;
use super::vote::{check_codes, per_row, pick_row, Groups, Pick, Reward, Rewards, Tally, Votes};
use super::Kind;
use rayon::prelude::*;

use crate::par::Grain;
use crate::{Error, Result};

/// The answers of a batch: typed bytes grouped here, or codes grouped before.
#[derive(Clone, Copy, Debug)]
pub enum Answers<'a> {
    /// `rows` x `cols` answers of `width` bytes (C order), validity by `kind`.
    Typed { bytes: &'a [u8], width: usize, kind: Kind },
    /// Row-local group codes in order of first appearance (-1: unparsable).
    Codes(&'a [i32]),
}

impl Answers<'_> {
    /// Row `r`'s `cols` group codes into `codes`: typed answers grouped (by
    /// value where they are small integers below `cap`, else by `grouper`),
    /// or the codes given copied. Every per-row pass of the rules and the
    /// stopping rules starts here.
    pub(crate) fn row_codes(self, r: usize, cols: usize, cap: usize, grouper: &mut RowGroups, codes: &mut [i32]) {
        let base = r * cols;
        match self {
            Answers::Typed { bytes, width, kind } => {
                let row = &bytes[base * width..(base + cols) * width];
                if !RowGroups::direct(row, width, kind, cap, codes) {
                    grouper.group(row, width, kind, codes);
                }
            }
            Answers::Codes(c) => codes.copy_from_slice(&c[base..base + cols]),
        }
    }
}

/// How many of a question's voters a filtered vote keeps.
#[derive(Clone, Copy, Debug)]
pub enum Keep {
    /// At most this many.
    Count(usize),
    /// `max(1, ceil(f * n - 1e-9))` of `n` (scorio's float steps).
    Fraction(f64),
}

/// A selection rule and its parameters (checked by the caller as scorio does).
#[derive(Clone, Copy, Debug)]
pub enum Rule {
    /// One vote each, the representative the first member.
    Majority,
    /// Votes weighted by score (`aggregate="sum"`).
    Sum,
    /// `exp((s - max) / temperature)`.
    Softmax(f64),
    /// `ln(s / (1 - s)) - shift`.
    Logit(f64),
    /// `s - threshold`.
    Linear(f64),
    /// Borda `(n - t)^p`, exact integers (the caller bounds `n^(p+1)` below 2^53).
    Borda(u32),
    /// `((n - t) / n)^p` with the C library's `pow`.
    BordaReal(f64),
    /// The top voters by score, weighted by score or by one each, visited best first.
    Filtered { keep: Keep, weighted: bool },
    /// The highest valid non-NaN score, ties to the lower column.
    BestOfN,
    /// Majority-of-the-Bests, `m` (`None`: `isqrt(n)`); the caller bounds
    /// `n^m` below 2^53. The answer returned is the winner's representative.
    Mob(Option<u32>),
    /// A group reward among the groups of share `>= alpha` (mean vote: `Mean`, 0).
    Pick(Reward, f64),
}

impl Rule {
    fn uses_scores(self) -> bool {
        !matches!(self, Rule::Majority)
    }
}

/// Integer answers below this (or below the row's length, if larger) are
/// their own group index: the usual small ids are counted without hashing.
pub(crate) const DIRECT: usize = 256;

/// A thread's scratch: the row's codes, its grouping table, the sort keys,
/// places, the majority's counts, and the groups of the weighted and reward
/// tallies (`cap` = max(cols, [`DIRECT`]) slots: a code is below it).
struct Scratch {
    codes: Vec<i32>,
    grouper: RowGroups,
    rank: Ranker,
    count: Vec<u32>,
    sums: Groups<f64>,
    rewards: Groups<Rewards>,
    weights: PlaceWeights,
}

/// The rank rules' weight of each place (0 the best) for one number of voters
/// and one power: made once and kept while the next questions have as many
/// voters (the usual batch: every question has them all), so the powers are
/// not taken again for every voter. The same expression of the same numbers:
/// the same bits.
struct PlaceWeights {
    /// (rule, voters, power's bits) the table is for.
    key: Option<(u8, usize, u64)>,
    w: Vec<f64>,
}

impl PlaceWeights {
    #[inline]
    fn of(&mut self, rule: u8, n: usize, power: u64, weight: impl Fn(u64) -> f64) -> &[f64] {
        if self.key != Some((rule, n, power)) {
            self.w.clear();
            self.w.extend((0..n as u64).map(weight));
            self.key = Some((rule, n, power));
        }
        &self.w
    }
}

/// Each question's answer and representative columns under `rule`, and the
/// questions to replay in Python.
pub fn select(answers: Answers<'_>, scores: Option<&[f64]>, rows: usize, cols: usize, rule: Rule) -> Result<Votes> {
    match answers {
        Answers::Typed { bytes, width, kind } => check_typed(bytes, rows, cols, width, kind)?,
        Answers::Codes(c) => check_codes(c, rows, cols)?,
    }
    if rule.uses_scores() && scores.is_none_or(|s| s.len() != rows * cols) {
        return Err(Error::value("this rule needs one score per candidate"));
    }
    let row_ns = cols
        * match answers {
            Answers::Typed { width, .. } => 30 + width,
            Answers::Codes(_) => 25,
        };
    let cap = cols.max(DIRECT);
    per_row(
        rows,
        row_ns + 50,
        || Scratch {
            codes: vec![-1; cols],
            grouper: RowGroups::new(cols),
            rank: Ranker {
                keys: Vec::with_capacity(cols),
                place: vec![0; cols],
                seq: vec![0; cols],
                vals: Vec::with_capacity(cols),
                cols_of: Vec::with_capacity(cols),
                counted: vec![0; cols.min(COUNTED)],
            },
            count: vec![0; Counts::LEN * cap],
            sums: Groups::new(cap, 0.0),
            rewards: Groups::new(cap, Rewards::first(0.0)),
            weights: PlaceWeights {
                key: None,
                w: Vec::with_capacity(cols),
            },
        },
        |x, r| {
            let base = r * cols;
            let s = scores.map_or(&[][..], |s| &s[base..base + cols]);
            match (rule, answers) {
                (Rule::BestOfN, Answers::Typed { bytes, width, kind }) => {
                    let row = &bytes[base * width..(base + cols) * width];
                    if let Some(pick) = best_of_n_lazy(row, width, kind, s) {
                        return Ok(pick);
                    }
                    // who is valid is all the Best-of-N reads
                    validity(row, width, kind, &mut x.codes);
                }
                _ => answers.row_codes(r, cols, cap, &mut x.grouper, &mut x.codes),
            }
            Ok(one(x, s, rule))
        },
    )
}

/// Best-of-N reading only the answers it could choose (a string batch's
/// answers are most of its bytes): the first highest score among the columns
/// not yet ruled out; if that column's answer is valid it is the first highest
/// among the valid ones too (the row's answer, as [`one`] finds it), else it is
/// ruled out and the next is found. None after [`LAZY`] invalid ones: the
/// caller checks every answer.
#[inline]
fn best_of_n_lazy(row: &[u8], width: usize, kind: Kind, s: &[f64]) -> Option<Pick> {
    let mut out = [0_i32; 1];
    let mut skip = [usize::MAX; LAZY];
    for tries in 0..LAZY {
        // NaN never compares above, and a score must beat -inf to be chosen
        let (mut best, mut top) = (usize::MAX, f64::NEG_INFINITY);
        for (j, &v) in s.iter().enumerate() {
            if v > top && (tries == 0 || !skip[..tries].contains(&j)) {
                top = v;
                best = j;
            }
        }
        if best == usize::MAX {
            return Some(Pick::Nobody);
        }
        validity(&row[best * width..(best + 1) * width], width, kind, &mut out);
        if out[0] >= 0 {
            return Some(Pick::Win(best, best));
        }
        skip[tries] = best;
    }
    None
}

/// How many invalid answers [`best_of_n_lazy`] rules out before it gives up.
const LAZY: usize = 4;

/// One question under `rule` (`s`: its scores, empty for majority).
fn one(x: &mut Scratch, s: &[f64], rule: Rule) -> Pick {
    let c = &x.codes;
    if let Rule::BestOfN = rule {
        // numpy's argmax over the valid non-NaN scores (others -inf): the first maximum,
        // chosen only above -inf.
        let mut best = None;
        let mut top = f64::NEG_INFINITY;
        for j in 0..c.len() {
            if c[j] >= 0 && s[j] > top {
                top = s[j];
                best = Some(j);
            }
        }
        return best.map_or(Pick::Nobody, |j| Pick::Win(j, j));
    }
    if let Rule::Majority = rule {
        // each group's count (in split tallies); the most votes, ties to the group
        // that appears first, is scorio's winner: the group of the first column
        // whose group has the most votes; that column is the answer and representative
        let (top, most) = Counts::tally(&mut x.count, c);
        if most == 0 {
            return Pick::Nobody;
        }
        let j = c
            .iter()
            .position(|&g| g >= 0 && x.count[Counts::at(g as usize)] == most)
            .unwrap_or(0);
        Counts::clear(&mut x.count, top);
        return Pick::Win(j, j);
    }
    if let Rule::Pick(reward, alpha) = rule {
        return pick_row(&mut x.rewards, c, s, reward, alpha);
    }
    // Every other rule reads the valid scores: a NaN among them is Python's to
    // order, so such a question is replayed; past this check no score is NaN.
    if c.iter()
        .zip(s)
        .fold(false, |nan, (&g, &v)| nan | (g >= 0 && v.is_nan()))
    {
        return Pick::Replay;
    }
    let ranked = matches!(
        rule,
        Rule::Borda(_) | Rule::BordaReal(_) | Rule::Filtered { .. } | Rule::Mob(_)
    );
    let mut n = 0usize;
    if ranked {
        n = x.rank.rank(c, s);
    }
    let g = &mut x.sums;
    g.clear();
    if let Rule::Filtered { keep, weighted } = rule {
        let k = match keep {
            Keep::Count(k) => k.min(n),
            Keep::Fraction(f) => ((f * n as f64 - 1e-9).ceil().max(1.0)) as usize,
        };
        for &j in x.rank.seq[..n].iter().take(k) {
            let j = j as usize;
            g.visit_scored(c[j] as usize, j, if weighted { s[j] } else { 1.0 }, s[j]);
        }
        return Pick::of(g.winner(|&t| t, |_| true), false);
    }
    let nu = n as u64;
    let place = &x.rank.place;
    let pw = &mut x.weights;
    // each rule's weight as its own loop (monomorphised), voters in column order
    match rule {
        Rule::Sum => column_vote(g, c, s, |j| s[j]),
        Rule::Softmax(t) => {
            let top = (0..c.len())
                .filter(|&j| c[j] >= 0)
                .fold(f64::NEG_INFINITY, |m, j| m.max(s[j]));
            column_vote(g, c, s, |j| ((s[j] - top) / t).exp())
        }
        Rule::Logit(shift) => column_vote(g, c, s, |j| (s[j] / (1.0 - s[j])).ln() - shift),
        Rule::Linear(th) => column_vote(g, c, s, |j| s[j] - th),
        // the weight of place t, from the table of this many voters
        Rule::Borda(e) => {
            let w = pw.of(0, n, u64::from(e), |t| (nu - t).wrapping_pow(e) as f64);
            column_vote(g, c, s, |j| w[place[j] as usize])
        }
        Rule::BordaReal(e) => {
            let w = pw.of(1, n, e.to_bits(), |t| ((nu - t) as f64 / nu as f64).powf(e));
            column_vote(g, c, s, |j| w[place[j] as usize])
        }
        Rule::Mob(m) => {
            let m = m.unwrap_or_else(|| isqrt(nu) as u32).clamp(1, (n as u32).max(1));
            let w = pw.of(2, n, u64::from(m), |t| {
                let b = nu - t;
                (b.wrapping_pow(m) - (b - 1).wrapping_pow(m)) as f64
            });
            match column_vote(g, c, s, |j| w[place[j] as usize]) {
                // MoB returns the answer of the winner's best-scored member
                Pick::Win(_, rep) => Pick::Win(rep, rep),
                p => p,
            }
        }
        _ => Pick::Nobody,
    }
}

/// A question's answer counts in [`Counts::LEN`] interleaved tallies a group
/// (voter j adds to tally `j % LEN`): consecutive votes for one answer go to
/// different slots, so no count waits on the store of the one before (one
/// tally a group made each vote wait for the previous store of a repeated
/// answer).
struct Counts;

impl Counts {
    const LEN: usize = 4;

    /// Where group `g`'s total is once [`Counts::tally`] has summed it.
    #[inline(always)]
    fn at(g: usize) -> usize {
        g * Counts::LEN
    }

    /// Counts of `c`'s valid codes (each below `count.len() / LEN`), each
    /// group's total left at [`Counts::at`]; returns one past the largest code
    /// and the largest total (0: nobody voted).
    #[inline]
    fn tally(count: &mut [u32], c: &[i32]) -> (usize, u32) {
        let mut top = 0_usize;
        for (j, &g) in c.iter().enumerate() {
            if g >= 0 {
                let g = g as usize;
                count[g * Counts::LEN + (j % Counts::LEN)] += 1;
                top = top.max(g + 1);
            }
        }
        let mut most = 0;
        for t in count[..top * Counts::LEN].chunks_exact_mut(Counts::LEN) {
            let k = t.iter().sum::<u32>();
            t[0] = k;
            most = most.max(k);
        }
        (top, most)
    }

    /// Zero the tallies of the groups below `top`.
    #[inline]
    fn clear(count: &mut [u32], top: usize) {
        count[..top * Counts::LEN].iter_mut().for_each(|k| *k = 0);
    }
}

/// Questions of at most this many valid voters are ranked by counting (every
/// pair compared, in vector lanes), larger ones by a sort.
const COUNTED: usize = 128;

/// A thread's scratch for ranking a question's voters by score.
struct Ranker {
    keys: Vec<u128>,
    /// Each column's place (0 the best), valid columns only.
    place: Vec<u32>,
    /// The valid columns best first.
    seq: Vec<u32>,
    vals: Vec<f64>,
    cols_of: Vec<u32>,
    counted: Vec<u32>,
}

impl Ranker {
    /// The places of a question's valid voters (0 the best) by descending
    /// score, ties to the lower column (scorio's `sorted(key=(-score, j))`),
    /// in `place` by column and `seq` best first; returns how many voted. No
    /// valid score is NaN here.
    fn rank(&mut self, c: &[i32], s: &[f64]) -> usize {
        self.vals.clear();
        self.cols_of.clear();
        for j in 0..c.len() {
            if c[j] >= 0 {
                self.vals.push(s[j]);
                self.cols_of.push(j as u32);
            }
        }
        let n = self.vals.len();
        if n <= COUNTED {
            let placed = &mut self.counted[..n];
            places_by_count(&self.vals, placed);
            for (&j, &t) in self.cols_of.iter().zip(placed.iter()) {
                self.place[j as usize] = t;
                self.seq[t as usize] = j;
            }
            return n;
        }
        // one integer key each: the score's bits descending, then the column
        self.keys.clear();
        for (&v, &j) in self.vals.iter().zip(self.cols_of.iter()) {
            self.keys.push((u128::from(!ordered_bits(v)) << 64) | u128::from(j));
        }
        self.keys.sort_unstable();
        for (t, &k) in self.keys.iter().enumerate() {
            let j = k as u64 as u32;
            self.place[j as usize] = t as u32;
            self.seq[t] = j;
        }
        n
    }
}

/// Each voter's place among `v` (at most [`COUNTED`], no NaN): how many
/// score higher, plus, where scores tie, how many equal ones come before it.
/// Equal scores (`-0.0` and `0.0` too) are the only way two counts of the
/// first kind collide, so the second pass runs only where they do.
fn places_by_count(v: &[f64], out: &mut [u32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            unsafe { places_avx512(v, out) };
            return;
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { places_avx2(v, out) };
            return;
        }
    }
    places_body(v, out);
}

/// [`places_body`] compiled for AVX2 (four comparisons an instruction).
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn places_avx2(v: &[f64], out: &mut [u32]) {
    places_body(v, out);
}

/// [`places_body`] with the first pass in AVX-512 lanes: eight voters at a
/// time, each lane counting the scores above its own (`u > x`, ordered: no NaN
/// here, `-0.0` and `0.0` equal) with one broadcast, one comparison into a
/// mask and one masked add per score; the tie pass as there.
///
/// # Safety
/// The CPU must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn places_avx512(v: &[f64], out: &mut [u32]) {
    use std::arch::x86_64::{
        _mm512_cmp_pd_mask, _mm512_mask_add_epi64, _mm512_maskz_loadu_pd, _mm512_set1_epi64, _mm512_set1_pd,
        _mm512_setzero_si512, _mm512_storeu_si512, _CMP_GT_OQ,
    };
    let n = v.len().min(out.len());
    let one = _mm512_set1_epi64(1);
    for b in (0..n).step_by(8) {
        let left = (n - b).min(8);
        let mask: u8 = if left == 8 { 0xFF } else { (1_u8 << left) - 1 };
        // SAFETY: the masked load reads only the `left` lanes inside `v`.
        let x = unsafe { _mm512_maskz_loadu_pd(mask, v.as_ptr().add(b)) };
        let mut c = _mm512_setzero_si512();
        for &u in &v[..n] {
            let above = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(_mm512_set1_pd(u), x);
            c = _mm512_mask_add_epi64(c, above, c, one);
        }
        let mut lanes = [0_i64; 8];
        // SAFETY: `lanes` is 64 bytes, the store's width.
        unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), c) };
        for (o, &k) in out[b..b + left].iter_mut().zip(&lanes) {
            *o = k as u32;
        }
    }
    ties(v, out);
}

#[inline(always)]
fn places_body(v: &[f64], out: &mut [u32]) {
    for (o, &x) in out.iter_mut().zip(v) {
        *o = v.iter().map(|&u| u64::from(u > x)).sum::<u64>() as u32;
    }
    ties(v, out);
}

/// The second pass of [`places_body`]: where two first counts collide (equal
/// scores), each voter also counts the equal scores before it.
#[inline(always)]
fn ties(v: &[f64], out: &mut [u32]) {
    // without equal scores the counts are 0, 1, ..., n - 1; equal ones share a
    // count, which makes the sum smaller: the sum tells (no bit set per voter)
    let n = out.len() as u64;
    let sum = out.iter().map(|&t| u64::from(t)).sum::<u64>();
    if sum != n * n.saturating_sub(1) / 2 {
        for (i, o) in out.iter_mut().enumerate() {
            let x = v[i];
            *o += v[..i].iter().map(|&u| u64::from(u == x)).sum::<u64>() as u32;
        }
    }
}

/// The valid voters in column order, each casting `weight(j)`, the
/// representative by score: scorio's `_plurality` on one question (no valid
/// score is NaN here; a NaN total is replayed).
#[inline]
fn column_vote(g: &mut Groups<f64>, c: &[i32], s: &[f64], weight: impl Fn(usize) -> f64) -> Pick {
    for j in 0..c.len() {
        if c[j] >= 0 {
            g.visit_scored(c[j] as usize, j, weight(j), s[j]);
        }
    }
    Pick::of(g.winner(|&t| t, |_| true), false)
}

/// Per question, the largest and second largest answer counts (0 where
/// absent): Adaptive-Consistency's top two, with the answers grouped in the
/// same pass.
pub fn top_two_counts(answers: Answers<'_>, rows: usize, cols: usize) -> Result<(Vec<i64>, Vec<i64>)> {
    match answers {
        Answers::Typed { bytes, width, kind } => check_typed(bytes, rows, cols, width, kind)?,
        Answers::Codes(c) => check_codes(c, rows, cols)?,
    }
    if cols == 0 {
        return Ok((vec![0; rows], vec![0; rows]));
    }
    let cap = cols.max(DIRECT);
    let mut v1 = vec![0_i64; rows];
    let mut v2 = vec![0_i64; rows];
    v1.par_iter_mut()
        .zip(v2.par_iter_mut())
        .with_grain(cols * 30 + 50)
        .enumerate()
        .for_each_init(
            || (vec![-1_i32; cols], RowGroups::new(cols), vec![0_u32; Counts::LEN * cap]),
            |(codes, grouper, count), (r, (v1, v2))| {
                answers.row_codes(r, cols, cap, grouper, codes);
                let (top, _) = Counts::tally(count, codes);
                let (mut a, mut b) = (0_u32, 0_u32);
                for g in 0..top {
                    let k = count[Counts::at(g)];
                    if k > a {
                        b = a;
                        a = k;
                    } else if k > b {
                        b = k;
                    }
                }
                Counts::clear(count, top);
                *v1 = i64::from(a);
                *v2 = i64::from(b);
            },
        );
    Ok((v1, v2))
}

/// `floor(sqrt(n))` exactly (Python's `math.isqrt`).
fn isqrt(n: u64) -> u64 {
    let mut r = (n as f64).sqrt() as u64;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::super::order::{by_score, rank_weights, RankWeight};
    use super::super::{group_typed, pick_group, score_weights, vote, ScoreWeight, Vote};
    use super::*;

    /// A small random batch: int ids (few distinct, so ties are common) and
    /// scores from a few levels (tied scores), some rows with unparsable floats.
    fn batch(seed: u64, rows: usize, cols: usize) -> (Vec<f64>, Vec<f64>) {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        let answers: Vec<f64> = (0..rows * cols)
            .map(|_| match next() % 9 {
                0 => f64::NAN,
                k => (k % 4) as f64,
            })
            .collect();
        let scores: Vec<f64> = (0..rows * cols).map(|_| (next() % 5) as f64 / 4.0).collect();
        (answers, scores)
    }

    fn bytes(a: &[f64]) -> Vec<u8> {
        a.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// The separate kernels' answer for `rule` (what the Python rules did before).
    fn separate(codes: &[i32], s: &[f64], rows: usize, cols: usize, rule: Rule) -> Votes {
        let part: Vec<bool> = codes.iter().map(|&c| c >= 0).collect();
        let order = by_score(s, &part, rows, cols).unwrap();
        let counts: Vec<i64> = (0..rows)
            .map(|r| part[r * cols..(r + 1) * cols].iter().filter(|&&p| p).count() as i64)
            .collect();
        let plain = |w: Option<&[f64]>, seq: Option<&[i64]>, p: &[bool], sc: Option<&[f64]>| {
            vote(&Vote {
                codes,
                rows,
                cols,
                weights: w,
                part: p,
                seq,
                scores: sc,
            })
            .unwrap()
        };
        match rule {
            Rule::Majority => plain(None, None, &part, None),
            Rule::Sum => plain(Some(s), None, &part, Some(s)),
            Rule::Softmax(t) => {
                let (w, _) = score_weights(codes, s, rows, cols, ScoreWeight::Softmax(t)).unwrap();
                plain(Some(&w), None, &part, Some(s))
            }
            Rule::Linear(th) => {
                let w: Vec<f64> = s.iter().map(|x| x - th).collect();
                plain(Some(&w), None, &part, Some(s))
            }
            Rule::Borda(e) => {
                let w = rank_weights(&order.place, &part, rows, cols, RankWeight::Borda(e)).unwrap();
                plain(Some(&w), None, &part, Some(s))
            }
            Rule::Mob(m) => {
                let ms: Vec<i64> = counts
                    .iter()
                    .map(|&n| i64::from(m.unwrap_or(isqrt(n as u64) as u32)).clamp(1, n.max(1)))
                    .collect();
                let w = rank_weights(&order.place, &part, rows, cols, RankWeight::Mob(&ms)).unwrap();
                let mut v = plain(Some(&w), None, &part, Some(s));
                v.answer.clone_from(&v.rep);
                v
            }
            Rule::Filtered {
                keep: Keep::Count(k),
                weighted,
            } => {
                let kept: Vec<bool> = (0..rows * cols)
                    .map(|i| part[i] && order.place[i] < (k as i64).min(counts[i / cols]))
                    .collect();
                let ones = vec![1.0; rows * cols];
                let w = if weighted { s } else { &ones[..] };
                plain(Some(w), Some(&order.seq), &kept, Some(s))
            }
            Rule::Pick(reward, alpha) => pick_group(codes, s, rows, cols, reward, alpha).unwrap(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn fused_rules_equal_the_separate_kernels() {
        let rules = [
            Rule::Majority,
            Rule::Sum,
            Rule::Softmax(0.7),
            Rule::Linear(0.5),
            Rule::Borda(2),
            Rule::Mob(None),
            Rule::Mob(Some(3)),
            Rule::Filtered {
                keep: Keep::Count(3),
                weighted: true,
            },
            Rule::Filtered {
                keep: Keep::Count(2),
                weighted: false,
            },
            Rule::Pick(Reward::Mean, 0.0),
            Rule::Pick(Reward::Max, 0.4),
            Rule::Pick(Reward::Sum, 0.3),
        ];
        for seed in 0..40 {
            let (rows, cols) = (1 + (seed as usize * 7) % 13, 1 + (seed as usize * 5) % 11);
            let (a, s) = batch(seed, rows, cols);
            let raw = bytes(&a);
            let codes = group_typed(&raw, rows, cols, 8, Kind::Float).unwrap();
            for rule in rules {
                let want = separate(&codes, &s, rows, cols, rule);
                for answers in [
                    Answers::Typed {
                        bytes: &raw,
                        width: 8,
                        kind: Kind::Float,
                    },
                    Answers::Codes(&codes),
                ] {
                    let got = select(answers, Some(&s), rows, cols, rule).unwrap();
                    assert_eq!(got.answer, want.answer, "{rule:?} seed {seed}");
                    assert_eq!(got.rep, want.rep, "{rule:?} seed {seed}");
                    assert!(!got.replay.iter().any(|&x| x));
                }
            }
        }
    }

    /// Integer ids of every width, in rows whose values are all small (counted
    /// by value, no hashing), rows with one large or negative id (hashed) and
    /// rows mixing both: every rule equals the separate kernels on the codes
    /// numbered by first appearance, with tied scores and tied counts.
    #[test]
    fn integer_ids_counted_by_value_equal_the_codes() {
        let rules = [
            Rule::Majority,
            Rule::Sum,
            Rule::Softmax(0.7),
            Rule::Linear(0.5),
            Rule::Borda(1),
            Rule::Borda(3),
            Rule::Mob(None),
            Rule::Mob(Some(2)),
            Rule::Filtered {
                keep: Keep::Count(4),
                weighted: true,
            },
            Rule::BestOfN,
            Rule::Pick(Reward::Mean, 0.0),
            Rule::Pick(Reward::Max, 0.3),
        ];
        for seed in 0..60_u64 {
            let (rows, cols) = (1 + (seed as usize * 7) % 23, 1 + (seed as usize * 5) % 70);
            let (_, s) = batch(seed, rows, cols);
            let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            let ids: Vec<i64> = (0..rows * cols)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let small = (x % 4) as i64 * [1, 3, 85, 63][seed as usize % 4];
                    match (i / cols + seed as usize) % 5 {
                        // a large id (hashed row), a negative one (its bytes are large)
                        0 if x % 7 == 0 => 255 + (x % 3) as i64,
                        1 if x % 5 == 0 => -1 - (x % 2) as i64,
                        2 => 1 << 40,
                        _ => small,
                    }
                })
                .collect();
            for width in [8, 4, 2, 1] {
                let raw: Vec<u8> = ids.iter().flat_map(|&v| v.to_le_bytes()[..width].to_vec()).collect();
                let codes = group_typed(&raw, rows, cols, width, Kind::Bytes).unwrap();
                let typed = Answers::Typed {
                    bytes: &raw,
                    width,
                    kind: Kind::Bytes,
                };
                for rule in rules {
                    let want = match rule {
                        Rule::BestOfN => select(Answers::Codes(&codes), Some(&s), rows, cols, rule).unwrap(),
                        _ => separate(&codes, &s, rows, cols, rule),
                    };
                    let got = select(typed, Some(&s), rows, cols, rule).unwrap();
                    assert_eq!(got.answer, want.answer, "{rule:?} seed {seed} width {width}");
                    assert_eq!(got.rep, want.rep, "{rule:?} seed {seed} width {width}");
                    assert_eq!(got.replay, want.replay, "{rule:?} seed {seed} width {width}");
                }
                let (v1, v2) = top_two_counts(typed, rows, cols).unwrap();
                assert_eq!((v1, v2), top_two_counts(Answers::Codes(&codes), rows, cols).unwrap());
            }
        }
    }

    /// The rank rules on questions below, at and past [`COUNTED`] voters (ranked by
    /// counting, then by a sort), with tied and distinct scores, `-0.0` beside `0.0`
    /// and infinities: the separate kernels' numbers (numpy-style key sort).
    #[test]
    fn ranking_by_count_or_sort_equals_the_key_order() {
        let rules = [
            Rule::Borda(1),
            Rule::BordaReal(0.5),
            Rule::Mob(Some(3)),
            Rule::Filtered {
                keep: Keep::Count(7),
                weighted: true,
            },
            Rule::Filtered {
                keep: Keep::Fraction(0.3),
                weighted: false,
            },
        ];
        for (seed, cols) in [(1_u64, 127), (2, 128), (3, 129), (4, 300), (5, 64), (6, 2)] {
            let rows = 6;
            let (a, mut s) = batch(seed, rows, cols);
            for (i, v) in s.iter_mut().enumerate() {
                match (i + seed as usize) % 11 {
                    0 => *v = -0.0,
                    1 => *v = 0.0,
                    2 => *v = f64::INFINITY,
                    3 => *v = f64::NEG_INFINITY,
                    // distinct scores in the even rows, five levels in the odd ones
                    _ if (i / cols) % 2 == 0 => *v = (i as f64 * 0.618_033_988_7).fract(),
                    _ => {}
                }
            }
            let codes = group_typed(&bytes(&a), rows, cols, 8, Kind::Float).unwrap();
            for rule in rules {
                let want = match rule {
                    Rule::BordaReal(e) => {
                        let part: Vec<bool> = codes.iter().map(|&c| c >= 0).collect();
                        let order = by_score(&s, &part, rows, cols).unwrap();
                        let w = rank_weights(&order.place, &part, rows, cols, RankWeight::BordaReal(e)).unwrap();
                        vote(&Vote {
                            codes: &codes,
                            rows,
                            cols,
                            weights: Some(&w),
                            part: &part,
                            seq: None,
                            scores: Some(&s),
                        })
                        .unwrap()
                    }
                    Rule::Filtered {
                        keep: Keep::Fraction(f),
                        weighted,
                    } => {
                        let part: Vec<bool> = codes.iter().map(|&c| c >= 0).collect();
                        let order = by_score(&s, &part, rows, cols).unwrap();
                        let kept: Vec<bool> = (0..rows * cols)
                            .map(|i| {
                                let n = part[i / cols * cols..(i / cols + 1) * cols]
                                    .iter()
                                    .filter(|&&p| p)
                                    .count();
                                let k = ((f * n as f64 - 1e-9).ceil().max(1.0)) as i64;
                                part[i] && order.place[i] < k
                            })
                            .collect();
                        let ones = vec![1.0; rows * cols];
                        vote(&Vote {
                            codes: &codes,
                            rows,
                            cols,
                            weights: Some(if weighted { &s } else { &ones }),
                            part: &kept,
                            seq: Some(&order.seq),
                            scores: Some(&s),
                        })
                        .unwrap()
                    }
                    _ => separate(&codes, &s, rows, cols, rule),
                };
                let got = select(Answers::Codes(&codes), Some(&s), rows, cols, rule).unwrap();
                assert_eq!(got.answer, want.answer, "{rule:?} cols {cols}");
                assert_eq!(got.rep, want.rep, "{rule:?} cols {cols}");
            }
        }
    }

    #[test]
    fn filtered_vote_of_a_question_without_voters_after_one_with() {
        let codes = [0, 1, 0, -1, -1, -1];
        let s = [0.5, 0.9, 0.1, 0.3, 0.2, 0.1];
        let rule = Rule::Filtered {
            keep: Keep::Fraction(0.5),
            weighted: true,
        };
        let v = select(Answers::Codes(&codes), Some(&s), 2, 3, rule).unwrap();
        assert_eq!(
            (v.answer, v.rep, v.replay),
            (vec![1, -1], vec![1, -1], vec![false, false])
        );
    }

    #[test]
    fn best_of_n_skips_nan_and_needs_more_than_minus_infinity() {
        let codes = [0, 1, -1, 0, 0, 1];
        let s = [f64::NAN, 0.5, 0.9, f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NAN];
        let v = select(Answers::Codes(&codes), Some(&s), 2, 3, Rule::BestOfN).unwrap();
        assert_eq!(v.answer, vec![1, -1]);
        assert!(!v.replay[0]);
    }

    #[test]
    fn a_nan_score_or_total_is_replayed() {
        let codes = [0, 1, 0, 1];
        let s = [f64::NAN, 0.5, f64::INFINITY, f64::NEG_INFINITY];
        for rule in [Rule::Sum, Rule::Borda(1), Rule::Pick(Reward::Mean, 0.0)] {
            let v = select(Answers::Codes(&codes), Some(&s), 2, 2, rule).unwrap();
            assert!(v.replay[0], "{rule:?}");
        }
        // inf - inf in the softmax: a NaN weight, a NaN total
        let codes = [0, 1];
        let s = [f64::INFINITY, f64::INFINITY];
        let v = select(Answers::Codes(&codes), Some(&s), 1, 2, Rule::Softmax(1.0)).unwrap();
        assert!(v.replay[0]);
        let v = select(Answers::Codes(&[-1, -1]), None, 1, 2, Rule::Majority).unwrap();
        assert_eq!((v.answer[0], v.replay[0]), (-1, false));
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(select(Answers::Codes(&[0, 0]), None, 1, 2, Rule::Sum).is_err());
        assert!(select(Answers::Codes(&[0, 2]), None, 1, 2, Rule::Majority).is_err());
        let t = Answers::Typed {
            bytes: &[0; 6],
            width: 2,
            kind: Kind::Float,
        };
        assert!(select(t, None, 1, 3, Rule::Majority).is_err());
    }

    #[test]
    fn top_two_counts_by_brute_force() {
        for seed in 0..30 {
            let (rows, cols) = (1 + (seed as usize * 3) % 17, 1 + (seed as usize * 5) % 13);
            let (a, _) = batch(seed, rows, cols);
            let codes = group_typed(&bytes(&a), rows, cols, 8, Kind::Float).unwrap();
            let (v1, v2) = top_two_counts(Answers::Codes(&codes), rows, cols).unwrap();
            for r in 0..rows {
                let mut k = vec![0i64; cols];
                for &g in &codes[r * cols..(r + 1) * cols] {
                    if g >= 0 {
                        k[g as usize] += 1;
                    }
                }
                k.sort_unstable_by(|x, y| y.cmp(x));
                assert_eq!((v1[r], v2[r]), (k[0], if cols > 1 { k[1] } else { 0 }));
            }
        }
    }

    #[test]
    fn isqrt_is_exact() {
        for n in 0..5000u64 {
            let r = isqrt(n);
            assert!(r * r <= n && (r + 1) * (r + 1) > n);
        }
    }
}
