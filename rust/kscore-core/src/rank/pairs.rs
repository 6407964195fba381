//! The shared counts of scorio.rank's pairwise and voting rankers, from a
//! binary response tensor R (models x questions x trials, read as the
//! matrix models x (questions * trials)) in one pass, and the pair counts
//! from those in one more:
//!
//! - `totals[l]`: successes of model l, the S_l that every tied-split
//!   pairwise probability of binary outcomes depends on alone (two models'
//!   decisive sample outcomes differ by S_i - S_j).
//! - `levels[l, m]`: k_lm, model l's successes on question m (0..=trials),
//!   the per-question grade of the voting rules; one byte each up to 255
//!   trials, two above.
//! - `bits`: each model's outcomes packed 64 to a word, for the
//!   sample-level pair counts.
//!
//! From those, `greater_counts` gives G[i, j] = #{m : k_im > k_jm} (the
//! question-level preferences of every voting rule) and `sample_wins`
//! W[i, j] = #{(m, n) : R_imn = 1, R_jmn = 0} (scorio's
//! `build_pairwise_counts`; its ties are trials * questions - W - W^T).
//! Both are exact integer counts, returned as f64 (below 2^53).
//!
//! Why a kernel: scorio builds each of these with a Python loop over pairs
//! (three numpy passes over 2 x M x N entries a pair), about 0.25 s for 100
//! models x 2000 x 4. Here a pair of byte rows is compared 32 entries at a
//! time with byte counters (flushed every 255 steps), and a pair of bit
//! rows 64 entries per AND + popcount; rows are taken a tile at a time so
//! that a tile stays in cache while the other rows stream past it (at 5,000
//! models x 28,000 questions the rows are 140 MB), and the tiles are shared
//! among the pool's threads.

use ndarray::ArrayView2;
use rayon::prelude::*;

use crate::cancel;
use crate::error::{Error, Result};
use crate::intake::entry::Entry;
use crate::par;

/// Rows of a tile: 32 rows of 28,000 bytes (about 0.9 MB) stay in L2/L3.
const TILE: usize = 32;

/// Per-question successes k_lm, one byte each (trials <= 255) or two.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Levels {
    U8(Vec<u8>),
    U16(Vec<u16>),
}

/// What `read_board` should build besides the totals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Want {
    /// The per-question successes (`levels`).
    pub levels: bool,
    /// The packed outcomes (`bits`).
    pub bits: bool,
}

/// One pass over R: totals, and the levels and packed bits if asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    pub models: usize,
    pub questions: usize,
    pub trials: usize,
    /// S_l, successes per model.
    pub totals: Vec<u64>,
    /// k_lm, models x questions, row-major.
    pub levels: Option<Levels>,
    /// Models x `words` u64, entry e of a model at bit e % 64 of word e / 64.
    pub bits: Option<Vec<u64>>,
    pub words: usize,
}

/// Read the models x (questions * trials) matrix `view` (rows contiguous or
/// not): every entry must be 0 or 1.
pub fn read_board<T: Entry>(view: ArrayView2<T>, trials: usize, want: Want) -> Result<Board> {
    let (models, width) = view.dim();
    if trials == 0 || width % trials != 0 {
        return Err(Error::value("read_board: the row width must be questions * trials"));
    }
    let questions = width / trials;
    let words = width.div_ceil(64);
    let wide = trials > 255;
    if want.levels && trials > u16::MAX as usize {
        return Err(Error::value(format!(
            "per-question counts of more than {} trials are not supported (got {trials})",
            u16::MAX
        )));
    }
    let row_ns = par::intake_ns(width * std::mem::size_of::<T>()).max(1);
    let chunk = chunk_entries(trials);
    let rows: Vec<Row> = (0..models)
        .into_par_iter()
        .with_min_len(par::min_len(row_ns))
        .map_init(
            || vec![0u8; chunk],
            |buf, l| {
                let row = view.row(l);
                let owned;
                let row: &[T] = match row.as_slice() {
                    Some(s) => s,
                    None => {
                        owned = row.to_vec();
                        &owned
                    }
                };
                read_row(row, trials, want, wide, buf)
            },
        )
        .collect();
    if rows.iter().any(|r| r.or > 1) {
        return Err(Error::value("Input R must contain only binary values (0 or 1)"));
    }
    let totals = rows.iter().map(|r| r.total).collect();
    let levels = match (want.levels, wide) {
        (false, _) => None,
        (true, false) => Some(Levels::U8(concat(
            rows.iter().map(|r| &r.small[..]),
            models * questions,
        ))),
        (true, true) => Some(Levels::U16(concat(
            rows.iter().map(|r| &r.large[..]),
            models * questions,
        ))),
    };
    let bits = want
        .bits
        .then(|| rows.iter().flat_map(|r| r.bits.iter().copied()).collect());
    Ok(Board {
        models,
        questions,
        trials,
        totals,
        levels,
        bits,
        words,
    })
}

/// The rows one after another (a copy per row: `flat_map` pushes entry by entry).
fn concat<'a, T: Copy + 'a>(rows: impl Iterator<Item = &'a [T]>, len: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(len);
    for row in rows {
        out.extend_from_slice(row);
    }
    out
}

/// What one model's row gives.
struct Row {
    total: u64,
    /// The OR of the row's `bin` values (> 1: an entry that is not 0 or 1).
    or: u64,
    small: Vec<u8>,
    large: Vec<u16>,
    bits: Vec<u64>,
}

/// Entries read at a time: a multiple of 64 (whole words of bits) and of
/// `trials` (whole questions), about 4096.
fn chunk_entries(trials: usize) -> usize {
    64 * trials * (4096 / (64 * trials)).max(1)
}

/// Eight 0/1 bytes (little-endian in `w`) as eight bits, byte k to bit k: the
/// multiply moves byte k's low bit to bit 56 + k with no carries.
#[inline(always)]
fn pack8(w: u64) -> u64 {
    w.wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The sums of each run of `trials` (2..=8) bytes, appended to `out`: eight
/// bytes at a time as one word, masked to the run and summed into the top
/// byte by one multiply (valid bytes are 0 or 1, so no byte carries).
#[inline]
fn level_sums_swar(bytes: &[u8], trials: usize, out: &mut Vec<u8>) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    // 2, 4 and 8 trials: whole words per question, no overlapping loads (a
    // plain map over `chunks_exact` that vectorises: 5-6 ns a question
    // for the general loads below, under 1 ns here).
    match trials {
        2 => {
            out.extend(bytes.chunks_exact(2).map(|q| q[0].wrapping_add(q[1])));
            return;
        }
        4 => {
            out.extend(bytes.chunks_exact(4).map(|q| {
                let w = u32::from_le_bytes([q[0], q[1], q[2], q[3]]);
                (w.wrapping_mul(0x0101_0101) >> 24) as u8
            }));
            return;
        }
        8 => {
            out.extend(bytes.chunks_exact(8).map(|q| {
                let w = u64::from_le_bytes([q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7]]);
                (w.wrapping_mul(ONES) >> 56) as u8
            }));
            return;
        }
        _ => {}
    }
    let mask = if trials == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * trials)) - 1
    };
    let questions = bytes.len() / trials;
    // Questions whose eight-byte load stays inside `bytes`.
    let direct = if bytes.len() >= 8 {
        (bytes.len() - 8) / trials + 1
    } else {
        0
    }
    .min(questions);
    out.extend((0..direct).map(|q| {
        let at = q * trials;
        let mut le = [0u8; 8];
        le.copy_from_slice(&bytes[at..at + 8]);
        ((u64::from_le_bytes(le) & mask).wrapping_mul(ONES) >> 56) as u8
    }));
    out.extend(
        bytes[direct * trials..questions * trials]
            .chunks_exact(trials)
            .map(|q| q.iter().sum::<u8>()),
    );
}

/// One model's row: its total, and its levels and bits if wanted. The
/// entries are narrowed to bytes a chunk at a time (`Entry::lanes`: one-byte
/// types in place, others by a vectorised truncation, with the OR of the
/// full values), summed with the intake's SIMD row sum, and the levels and
/// bits made from the bytes.
#[inline]
fn read_row<T: Entry>(row: &[T], trials: usize, want: Want, wide: bool, buf: &mut [u8]) -> Row {
    let chunk = chunk_entries(trials);
    let questions = row.len() / trials;
    let mut total = 0u64;
    let mut or = 0u64;
    let mut small = Vec::with_capacity(if want.levels && !wide { questions } else { 0 });
    let mut large = Vec::with_capacity(if want.levels && wide { questions } else { 0 });
    let mut bits = Vec::with_capacity(if want.bits { row.len().div_ceil(64) } else { 0 });
    for piece in row.chunks(chunk) {
        let (bytes, wide_or) = T::lanes(piece, buf);
        let (sum, byte_or) = crate::intake::bytes::sum_or(bytes);
        total += sum;
        or |= byte_or | wide_or;
        if want.levels {
            if wide {
                // (trials <= 65535: every sum of valid bytes fits)
                large.extend(
                    bytes
                        .chunks_exact(trials)
                        .map(|q| crate::intake::bytes::sum_or(q).0 as u16),
                );
            } else if trials == 1 {
                small.extend_from_slice(bytes);
            } else if trials >= 32 {
                small.extend(
                    bytes
                        .chunks_exact(trials)
                        .map(|q| crate::intake::bytes::sum_or(q).0 as u8),
                );
            } else if trials <= 8 {
                level_sums_swar(bytes, trials, &mut small);
            } else {
                small.extend(
                    bytes
                        .chunks_exact(trials)
                        .map(|q| q.iter().fold(0u8, |s, &b| s.wrapping_add(b))),
                );
            }
        }
        if want.bits {
            for block in bytes.chunks(64) {
                let mut word = 0u64;
                for (i, eight) in block.chunks(8).enumerate() {
                    let mut le = [0u8; 8];
                    le[..eight.len()].copy_from_slice(eight);
                    word |= pack8(u64::from_le_bytes(le)) << (8 * i);
                }
                bits.push(word);
            }
        }
    }
    Row {
        total,
        or,
        small,
        large,
        bits,
    }
}

/// An element of a level row: u8 or u16.
pub trait Level: Copy + Ord + Send + Sync + 'static {
    /// (#{q : a_q > b_q}, #{q : a_q < b_q}).
    fn gt_lt(a: &[Self], b: &[Self]) -> (u32, u32);
}

impl Level for u8 {
    #[inline]
    fn gt_lt(a: &[u8], b: &[u8]) -> (u32, u32) {
        #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                return unsafe { gt_lt_u8_avx2(a, b) };
            }
        }
        gt_lt_u8(a, b)
    }
}

impl Level for u16 {
    #[inline]
    fn gt_lt(a: &[u16], b: &[u16]) -> (u32, u32) {
        let mut gt = 0u32;
        let mut lt = 0u32;
        for (&x, &y) in a.iter().zip(b) {
            gt += (x > y) as u32;
            lt += (x < y) as u32;
        }
        (gt, lt)
    }
}

/// The byte comparison in AVX2 intrinsics: 32 byte counters per register
/// (`x > y` where `max(x, y) == x` and not `== y`), flushed by `sad` every
/// 255 steps. Written out because the vectoriser left `gt_lt_u8` a scalar
/// loop with bounds checks inside this target-feature function (30x slower).
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2")]
unsafe fn gt_lt_u8_avx2(a: &[u8], b: &[u8]) -> (u32, u32) {
    use std::arch::x86_64::{
        __m256i, _mm256_andnot_si256, _mm256_cmpeq_epi8, _mm256_loadu_si256, _mm256_max_epu8, _mm256_sad_epu8,
        _mm256_setzero_si256, _mm256_storeu_si256, _mm256_sub_epi8,
    };
    let n = a.len().min(b.len());
    let zero = _mm256_setzero_si256();
    let (mut gt, mut lt) = (0u64, 0u64);
    let mut start = 0;
    while start + LANES <= n {
        let steps = ((n - start) / LANES).min(255);
        let (mut g, mut l) = (zero, zero);
        for s in 0..steps {
            let at = start + LANES * s;
            // SAFETY: at + 32 <= n <= a.len(), b.len(); unaligned loads.
            let x = _mm256_loadu_si256(a.as_ptr().add(at).cast::<__m256i>());
            let y = _mm256_loadu_si256(b.as_ptr().add(at).cast::<__m256i>());
            let top = _mm256_max_epu8(x, y);
            let x_top = _mm256_cmpeq_epi8(top, x);
            let y_top = _mm256_cmpeq_epi8(top, y);
            // A true lane is -1: subtracting it adds one.
            g = _mm256_sub_epi8(g, _mm256_andnot_si256(y_top, x_top));
            l = _mm256_sub_epi8(l, _mm256_andnot_si256(x_top, y_top));
        }
        let mut sums = [0u64; 4];
        _mm256_storeu_si256(sums.as_mut_ptr().cast::<__m256i>(), _mm256_sad_epu8(g, zero));
        gt += sums.iter().sum::<u64>();
        _mm256_storeu_si256(sums.as_mut_ptr().cast::<__m256i>(), _mm256_sad_epu8(l, zero));
        lt += sums.iter().sum::<u64>();
        start += LANES * steps;
    }
    for (&x, &y) in a[start..n].iter().zip(&b[start..n]) {
        gt += (x > y) as u64;
        lt += (x < y) as u64;
    }
    (gt as u32, lt as u32)
}

/// Byte lanes of the counters (one AVX2 register).
const LANES: usize = 32;

/// The byte comparison, written for the vectoriser: 32 lanes of byte
/// counters, each lane adding at most one per step, flushed to u32 every
/// 255 steps (before a byte could wrap).
#[inline(always)]
fn gt_lt_u8(a: &[u8], b: &[u8]) -> (u32, u32) {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut gt = 0u32;
    let mut lt = 0u32;
    let block = 255 * LANES;
    let mut start = 0;
    while start + LANES <= n {
        let end = start + (n - start).min(block) / LANES * LANES;
        let mut g = [0u8; LANES];
        let mut l = [0u8; LANES];
        for (u, v) in a[start..end].chunks_exact(LANES).zip(b[start..end].chunks_exact(LANES)) {
            for i in 0..LANES {
                g[i] += (u[i] > v[i]) as u8;
                l[i] += (u[i] < v[i]) as u8;
            }
        }
        gt += g.iter().map(|&x| x as u32).sum::<u32>();
        lt += l.iter().map(|&x| x as u32).sum::<u32>();
        start = end;
    }
    for (&x, &y) in a[start..].iter().zip(&b[start..]) {
        gt += (x > y) as u32;
        lt += (x < y) as u32;
    }
    (gt, lt)
}

/// #{w : a_w & b_w} summed over bits.
#[inline]
fn both(a: &[u64], b: &[u64]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked just above).
            return unsafe { both_popcnt(a, b) };
        }
    }
    both_body(a, b)
}

#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "popcnt")]
unsafe fn both_popcnt(a: &[u64], b: &[u64]) -> u64 {
    both_body(a, b)
}

#[inline(always)]
fn both_body(a: &[u64], b: &[u64]) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| (x & y).count_ones() as u64).sum()
}

/// Fill the models x models matrix `out` from `pair(i, j)` (i < j) giving
/// (out[i, j], out[j, i]): tiles of rows share the pool, each tile meeting
/// every later row once while its own rows stay in cache. `row_ns`: the
/// estimated cost of one pair.
fn pair_matrix<F>(models: usize, pair_ns: usize, pair: F) -> Result<Vec<f64>>
where
    F: Fn(usize, usize) -> (f64, f64) + Sync,
{
    let tiles = models.div_ceil(TILE);
    let tile_ns = pair_ns.saturating_mul(TILE).saturating_mul(models).max(1);
    let watch = cancel::Watch::new();
    // Per tile: for each of its rows i, the pairs (i, j > i) in order of j.
    let parts: Vec<Vec<(f64, f64)>> = (0..tiles)
        .into_par_iter()
        .with_min_len(par::min_len(tile_ns))
        .map(|t| {
            let (i0, i1) = (t * TILE, ((t + 1) * TILE).min(models));
            let mut row_start = Vec::with_capacity(i1 - i0);
            let mut total = 0;
            for i in i0..i1 {
                row_start.push(total);
                total += models - i - 1;
            }
            let mut part = vec![(0.0, 0.0); total];
            if cancel::stopping() {
                return part;
            }
            // j outer: row j streams once past the tile's rows.
            for j in (i0 + 1)..models {
                for i in i0..i1.min(j) {
                    part[row_start[i - i0] + (j - i - 1)] = pair(i, j);
                }
            }
            part
        })
        .collect();
    watch.check()?;
    let mut out = vec![0.0; models * models];
    for (t, part) in parts.into_iter().enumerate() {
        let mut it = part.into_iter();
        for i in (t * TILE)..((t + 1) * TILE).min(models) {
            for j in (i + 1)..models {
                if let Some((ij, ji)) = it.next() {
                    out[i * models + j] = ij;
                    out[j * models + i] = ji;
                }
            }
        }
    }
    Ok(out)
}

/// G[i, j] = #{m : k_im > k_jm} of the board's levels (models x models,
/// row-major, zero diagonal).
pub fn greater_counts(board: &Board) -> Result<Vec<f64>> {
    let q = board.questions;
    match &board.levels {
        None => Err(Error::value("greater_counts: the board was read without levels")),
        Some(Levels::U8(k)) => level_pairs(k, board.models, q, q / 16 + 8),
        Some(Levels::U16(k)) => level_pairs(k, board.models, q, q + 8),
    }
}

fn level_pairs<L: Level>(k: &[L], models: usize, questions: usize, pair_ns: usize) -> Result<Vec<f64>> {
    if questions == 0 {
        return Ok(vec![0.0; models * models]);
    }
    pair_matrix(models, pair_ns, |i, j| {
        let (gt, lt) = L::gt_lt(
            &k[i * questions..(i + 1) * questions],
            &k[j * questions..(j + 1) * questions],
        );
        (gt as f64, lt as f64)
    })
}

/// W[i, j] = #{(m, n) : R_imn = 1, R_jmn = 0} (models x models, row-major,
/// zero diagonal): S_i minus the entries both have right.
pub fn sample_wins(board: &Board) -> Result<Vec<f64>> {
    let Some(bits) = &board.bits else {
        return Err(Error::value("sample_wins: the board was read without bits"));
    };
    let (w, s) = (board.words, &board.totals);
    if w == 0 {
        return Ok(vec![0.0; board.models * board.models]);
    }
    pair_matrix(board.models, w / 4 + 8, |i, j| {
        let c = both(&bits[i * w..(i + 1) * w], &bits[j * w..(j + 1) * w]);
        ((s[i] - c) as f64, (s[j] - c) as f64)
    })
}

/// scorio's `inverse_difficulty` scores in one pass over R (`read_board`'s:
/// the entries narrowed to bytes and summed per question, the rows shared
/// among the pool's threads), then on the levels alone (models x questions
/// bytes, 1/8 to 1/64 of R): the solve rate of every question over all
/// models and trials `p_m`, the weights `w_m = 1 / clip(p_m, low, high)`
/// normalised to sum 1, and each model's `sum_m k_lm w_m / trials`.
pub fn inverse_difficulty<T: Entry>(view: ArrayView2<T>, trials: usize, low: f64, high: f64) -> Result<Vec<f64>> {
    if !(low > 0.0 && low < high && high <= 1.0) {
        return Err(Error::value("clip_range must satisfy 0 < low < high <= 1."));
    }
    let board = read_board(
        view,
        trials,
        Want {
            levels: true,
            bits: false,
        },
    )?;
    let (models, questions) = (board.models, board.questions);
    match &board.levels {
        Some(Levels::U8(k)) => weighted_levels(k, models, questions, trials, low, high),
        Some(Levels::U16(k)) => weighted_levels(k, models, questions, trials, low, high),
        None => Err(Error::value("inverse_difficulty: the board was read without levels")),
    }
}

fn weighted_levels<L: Copy + Into<u32> + Sync>(
    k: &[L],
    models: usize,
    questions: usize,
    trials: usize,
    low: f64,
    high: f64,
) -> Result<Vec<f64>> {
    if questions == 0 {
        return Ok(vec![0.0; models]);
    }
    // Column sums in u32 (exact: at most models * trials per question,
    // checked), a row at a time (a contiguous, vectorised add).
    let wide = (models as u64) * (trials as u64) >= 1 << 32;
    let mut solved = vec![0.0f64; questions];
    if wide {
        let mut sums = vec![0u64; questions];
        for row in k.chunks_exact(questions) {
            for (s, &v) in sums.iter_mut().zip(row) {
                *s += u64::from(v.into());
            }
        }
        solved.iter_mut().zip(&sums).for_each(|(o, &s)| *o = s as f64);
    } else {
        let mut sums = vec![0u32; questions];
        for row in k.chunks_exact(questions) {
            for (s, &v) in sums.iter_mut().zip(row) {
                *s += v.into();
            }
        }
        solved.iter_mut().zip(&sums).for_each(|(o, &s)| *o = f64::from(s));
    }
    let outcomes = (models * trials) as f64;
    let mut weights: Vec<f64> = solved.iter().map(|&s| 1.0 / (s / outcomes).clamp(low, high)).collect();
    let total: f64 = weights.iter().sum();
    if !total.is_finite() || total <= 0.0 {
        return Err(Error::value(
            "inverse-difficulty weights are not finite; choose a stricter clip_range.",
        ));
    }
    weights.iter_mut().for_each(|w| *w /= total);
    let n = trials as f64;
    let row_ns = questions / 4 + 1;
    Ok(k.par_chunks(questions)
        .with_min_len(par::min_len(row_ns))
        .map(|row| {
            row.iter()
                .zip(&weights)
                .map(|(&v, &w)| f64::from(v.into()) * w)
                .sum::<f64>()
                / n
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// A deterministic pseudo-random binary matrix.
    fn matrix(models: usize, width: usize, seed: u64) -> Array2<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        Array2::from_shape_fn((models, width), |(l, _)| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Models of different strength, so that counts are lopsided.
            ((x % 100) < (20 + 7 * l as u64 % 60)) as u8
        })
    }

    fn naive(r: &Array2<u8>, trials: usize) -> (Vec<f64>, Vec<f64>) {
        let (l, width) = r.dim();
        let q = width / trials;
        let k = |i: usize, m: usize| (0..trials).map(|n| r[[i, m * trials + n]] as u32).sum::<u32>();
        let mut g = vec![0.0; l * l];
        let mut w = vec![0.0; l * l];
        for i in 0..l {
            for j in 0..l {
                g[i * l + j] = (0..q).filter(|&m| k(i, m) > k(j, m)).count() as f64;
                w[i * l + j] = (0..width).filter(|&e| r[[i, e]] == 1 && r[[j, e]] == 0).count() as f64;
            }
        }
        (g, w)
    }

    #[test]
    fn pair_counts_match_the_definition() {
        for &(models, questions, trials) in &[
            (2, 1, 1),
            (3, 7, 1),
            (5, 33, 3),
            (40, 300, 2),
            (37, 1, 9),
            (70, 65, 4),
            (9, 50, 8),
            (4, 1, 7),
            (3, 2, 5),
        ] {
            let r = matrix(models, questions * trials, (models * 31 + questions) as u64);
            let want = Want {
                levels: true,
                bits: true,
            };
            let board = read_board(r.view(), trials, want).unwrap();
            let (g, w) = naive(&r, trials);
            assert_eq!(greater_counts(&board).unwrap(), g);
            assert_eq!(sample_wins(&board).unwrap(), w);
            for l in 0..models {
                assert_eq!(board.totals[l], r.row(l).iter().map(|&x| x as u64).sum::<u64>());
            }
            // The levels themselves (each trial count's own word path).
            let k: Vec<u8> = (0..models * questions)
                .map(|c| {
                    let (l, m) = (c / questions, c % questions);
                    (0..trials).map(|n| r[[l, m * trials + n]]).sum::<u8>()
                })
                .collect();
            assert_eq!(board.levels, Some(Levels::U8(k)));
        }
    }

    #[test]
    fn every_dtype_reads_the_same_across_chunks() {
        // Rows longer than a chunk, a width that is not a multiple of 64.
        for &(questions, trials) in &[(3001, 3), (5000, 1), (70, 77)] {
            let r = matrix(6, questions * trials, questions as u64);
            let want = Want {
                levels: true,
                bits: true,
            };
            let base = read_board(r.view(), trials, want).unwrap();
            let (g, w) = (greater_counts(&base).unwrap(), sample_wins(&base).unwrap());
            let as_i64 = r.mapv(|x| x as i64);
            let as_f64 = r.mapv(|x| x as f64);
            let as_bool = r.mapv(|x| x == 1);
            for board in [
                read_board(as_i64.view(), trials, want).unwrap(),
                read_board(as_f64.view(), trials, want).unwrap(),
                read_board(as_bool.view(), trials, want).unwrap(),
            ] {
                assert_eq!(board, base);
                assert_eq!(greater_counts(&board).unwrap(), g);
                assert_eq!(sample_wins(&board).unwrap(), w);
            }
        }
        let mut wide = matrix(3, 200, 9).mapv(|x| x as i64);
        wide[[1, 150]] = 256; // a zero low byte
        assert!(read_board(wide.view(), 2, Want::default()).is_err());
        let mut half = matrix(3, 200, 9).mapv(|x| x as f64);
        half[[2, 199]] = 0.5;
        assert!(read_board(
            half.view(),
            1,
            Want {
                levels: true,
                bits: true
            }
        )
        .is_err());
    }

    #[test]
    fn many_trials_use_two_byte_levels() {
        let r = matrix(4, 2 * 300, 5);
        let board = read_board(
            r.view(),
            300,
            Want {
                levels: true,
                bits: false,
            },
        )
        .unwrap();
        assert!(matches!(board.levels, Some(Levels::U16(_))));
        assert_eq!(greater_counts(&board).unwrap(), naive(&r, 300).0);
    }

    #[test]
    fn long_rows_flush_the_byte_counters() {
        // 255 * 32 entries and more: every counter lane fills.
        let a = vec![3u8; 20_000];
        let b = vec![1u8; 20_000];
        assert_eq!(u8::gt_lt(&a, &b), (20_000, 0));
        assert_eq!(gt_lt_u8(&b, &a), (0, 20_000));
    }

    #[test]
    fn byte_comparison_counts_every_byte_value_and_length() {
        // The full byte range (unsigned order: 200 > 100, not signed), lengths
        // around the 32-lane blocks and the 255-step flush, unequal lengths.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut byte = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // Many equal bytes as well as every value.
            if x.is_multiple_of(3) {
                7
            } else {
                (x >> 32) as u8
            }
        };
        for n in [
            0,
            1,
            31,
            32,
            33,
            63,
            64,
            65,
            255 * 32 - 1,
            255 * 32,
            255 * 32 + 1,
            3 * 255 * 32 + 77,
            20_011,
        ] {
            let a: Vec<u8> = (0..n).map(|_| byte()).collect();
            let b: Vec<u8> = (0..n + 5).map(|_| byte()).collect();
            let gt = a.iter().zip(&b).filter(|(x, y)| x > y).count() as u32;
            let lt = a.iter().zip(&b).filter(|(x, y)| x < y).count() as u32;
            assert_eq!(u8::gt_lt(&a, &b), (gt, lt), "n = {n}");
            assert_eq!(gt_lt_u8(&a, &b), (gt, lt), "n = {n}");
            assert_eq!(u8::gt_lt(&b, &a), (lt, gt), "n = {n}");
        }
    }

    #[test]
    fn non_binary_entries_are_refused() {
        let mut r = matrix(3, 8, 1);
        r[[2, 5]] = 2;
        let err = read_board(r.view(), 2, Want::default()).unwrap_err();
        assert_eq!(err, Error::value("Input R must contain only binary values (0 or 1)"));
        let strided = matrix(3, 16, 2);
        let view = strided.slice(ndarray::s![.., ..;2]);
        let board = read_board(
            view,
            2,
            Want {
                levels: true,
                bits: true,
            },
        )
        .unwrap();
        let owned = view.to_owned();
        assert_eq!(greater_counts(&board).unwrap(), naive(&owned, 2).0);
    }

    #[test]
    fn inverse_difficulty_matches_its_definition() {
        // int64 entries as numpy's default integer; 1, 4 and 300 trials
        // (two-byte levels); a question nobody solves (clipped at low).
        for (models, questions, trials) in [(7, 50, 4), (3, 9, 1), (5, 6, 300)] {
            let mut r = matrix(models, questions * trials, 9);
            r.slice_mut(ndarray::s![.., ..trials]).fill(0);
            let wide = r.mapv(i64::from);
            let (low, high) = (0.01, 0.99);
            let got = inverse_difficulty(wide.view(), trials, low, high).unwrap();
            let k = |i: usize, m: usize| (0..trials).map(|n| r[[i, m * trials + n]] as f64).sum::<f64>();
            let w: Vec<f64> = (0..questions)
                .map(|m| {
                    let p = (0..models).map(|i| k(i, m)).sum::<f64>() / (models * trials) as f64;
                    1.0 / p.clamp(low, high)
                })
                .collect();
            let total: f64 = w.iter().sum();
            assert_eq!(got.len(), models);
            for (i, &g) in got.iter().enumerate() {
                let want = (0..questions)
                    .map(|m| k(i, m) / trials as f64 * w[m] / total)
                    .sum::<f64>();
                assert!((g - want).abs() <= 1e-14 * want.abs().max(1e-300), "{i}: {g} {want}");
            }
        }
        let r = matrix(3, 8, 1);
        let err = inverse_difficulty(r.view(), 2, 0.5, 0.5).unwrap_err();
        assert_eq!(err, Error::value("clip_range must satisfy 0 < low < high <= 1."));
    }
}
