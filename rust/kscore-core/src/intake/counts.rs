//! Per-question `(n, c)` counts as harnesses hold them (n may vary per
//! question): the argument types, the count element types, and the one
//! parallel validation pass behind `StateTable::from_counts` (`states`).
//!
//! Validation reports the *first* offending index, in the argument's name:
//! a fast branch-light pass flags chunks, and only a flagged chunk is
//! rescanned entry by entry for the message.

use std::fmt::Debug;

use ndarray::{s, ArrayView1};

use crate::error::{Error, Result};
use crate::intake::entry::{Entry, Flaw};

/// Largest accepted count (n and c are stored as u32 halves of a u64 key).
pub const MAX_COUNT: u64 = u32::MAX as u64;

/// Dense slot tables up to this many slots (n + 1 summed over distinct n).
pub(crate) const DENSE_SLOTS: usize = 1 << 22;

/// The trials per question: one number for all, or one each.
pub enum Trials<'a, T> {
    All(u64),
    Each(ArrayView1<'a, T>),
}

/// Argument names used in error messages.
#[derive(Clone, Copy, Debug)]
pub struct Names<'a> {
    pub n: &'a str,
    pub c: &'a str,
}

/// Read one count, or describe why it is not a valid one.
fn read_count<T: Entry + Debug>(x: T, name: &str, i: usize) -> Result<u64> {
    let bad = |what: &str| Error::value(format!("{name}[{i}] must be {what}; got {x:?}"));
    match x.check() {
        Err(Flaw::NonFinite) => Err(bad("a finite integer")),
        Err(Flaw::NonInteger) => Err(bad("an integer")),
        Err(Flaw::OutOfInt64) => Err(bad(&format!("at most {MAX_COUNT}"))),
        Ok(v) if v < 0 => Err(bad("non-negative")),
        Ok(v) if v as u64 > MAX_COUNT => Err(bad(&format!("at most {MAX_COUNT}"))),
        Ok(v) => Ok(v as u64),
    }
}

/// A count element type with a branch-light fast path.
pub trait Count: Entry + Debug {
    /// The value as a count, or `u64::MAX` when it is not a valid one
    /// (negative, non-finite, non-integer or above `MAX_COUNT`).
    fn fast(self) -> u64;
}

impl Count for i64 {
    #[inline(always)]
    fn fast(self) -> u64 {
        if (0..=MAX_COUNT as i64).contains(&self) {
            self as u64
        } else {
            u64::MAX
        }
    }
}

impl Count for f64 {
    #[inline(always)]
    fn fast(self) -> u64 {
        // Saturating cast; NaN gives 0, which fails the round trip.
        let v = self as u64;
        if v as f64 == self && v <= MAX_COUNT {
            v
        } else {
            u64::MAX
        }
    }
}

/// What one chunk of the validation pass learnt.
pub(crate) struct ChunkInfo {
    pub(crate) min_n: u64,
    pub(crate) max_n: u64,
    /// Bitset of the n seen (None when some n is too large for a bitset).
    pub(crate) seen: Option<Vec<u64>>,
    /// Each n's first question in this chunk, while `seen` is kept.
    pub(crate) firsts: Vec<(u64, usize)>,
}

/// Mark n as seen; true the first time.
fn mark(seen: &mut Option<Vec<u64>>, n: u64) -> bool {
    if let Some(bits) = seen {
        if n as usize >= DENSE_SLOTS {
            *seen = None;
            return false;
        }
        let w = (n / 64) as usize;
        if bits.len() <= w {
            bits.resize(w + 1, 0);
        }
        let new = bits[w] & (1 << (n % 64)) == 0;
        bits[w] |= 1 << (n % 64);
        return new;
    }
    false
}

pub(crate) fn chunk_len(m: usize) -> usize {
    (m / (8 * rayon::current_num_threads().max(1))).max(1 << 14)
}

/// Fast validation of questions `i0..i1`: whether some pair is invalid, and
/// facts. With `spec = Some(n0)` it also speculates that every n is n0: it
/// counts `c` into a table of n0 + 1 slots (returned as `Some(table)`; the
/// caller discards it unless all n == n0) and writes each question's slot
/// into `out` when given.
pub(crate) fn chunk_facts<N: Count, C: Count>(
    n: &Trials<'_, N>,
    c: &ArrayView1<'_, C>,
    (i0, i1): (usize, usize),
    spec: Option<u64>,
    mut out: Option<&mut [u32]>,
) -> (bool, ChunkInfo, Option<Vec<u32>>) {
    let mut info = ChunkInfo {
        min_n: u64::MAX,
        max_n: 0,
        seen: Some(Vec::new()),
        firsts: Vec::new(),
    };
    let cs = c.slice(s![i0..i1]);
    let mut table = spec.map(|n0| vec![0u32; n0 as usize + 1]);
    let mut bad = false;
    match n {
        Trials::All(n0) => {
            let n0 = *n0;
            let mut step = |j: usize, b: u64| {
                bad |= b > n0;
                if let Some(t) = table.as_mut() {
                    let slot = b.min(n0) as usize;
                    t[slot] += 1;
                    if let Some(o) = out.as_deref_mut() {
                        o[j] = slot as u32;
                    }
                }
            };
            match cs.as_slice() {
                Some(xs) => xs.iter().enumerate().for_each(|(j, &x)| step(j, x.fast())),
                None => cs.iter().enumerate().for_each(|(j, &x)| step(j, x.fast())),
            }
            info.min_n = n0;
            info.max_n = n0;
            info.firsts.push((n0, i0));
        }
        Trials::Each(nv) => {
            let ns = nv.slice(s![i0..i1]);
            let mut last = u64::MAX;
            let n0 = spec.unwrap_or(0);
            let mut step = |j: usize, a: u64, b: u64| {
                bad |= (a > MAX_COUNT) | (b > a);
                if let Some(t) = table.as_mut() {
                    let slot = b.min(n0) as usize;
                    t[slot] += 1;
                    if let Some(o) = out.as_deref_mut() {
                        o[j] = slot as u32;
                    }
                }
                if a != last {
                    info.min_n = info.min_n.min(a);
                    info.max_n = info.max_n.max(a);
                    if a <= MAX_COUNT && mark(&mut info.seen, a) {
                        info.firsts.push((a, i0 + j));
                    }
                    last = a;
                }
            };
            match (ns.as_slice(), cs.as_slice()) {
                (Some(x), Some(y)) => x
                    .iter()
                    .zip(y)
                    .enumerate()
                    .for_each(|(j, (&a, &b))| step(j, a.fast(), b.fast())),
                _ => ns
                    .iter()
                    .zip(cs.iter())
                    .enumerate()
                    .for_each(|(j, (&a, &b))| step(j, a.fast(), b.fast())),
            }
        }
    }
    (bad, info, table)
}

/// Validate one chunk `i0..i1`: the first flaw (with its index) or facts.
pub(crate) fn validate_chunk<N: Count, C: Count>(
    n: &Trials<'_, N>,
    c: &ArrayView1<'_, C>,
    names: Names<'_>,
    i0: usize,
    i1: usize,
) -> std::result::Result<ChunkInfo, Error> {
    let mut info = ChunkInfo {
        min_n: u64::MAX,
        max_n: 0,
        seen: Some(Vec::new()),
        firsts: Vec::new(),
    };
    let exceeds = |i: usize, ci: u64, ni: u64| {
        let nd = match n {
            Trials::All(_) => names.n.to_string(),
            Trials::Each(_) => format!("{}[{i}]", names.n),
        };
        Error::value(format!("{}[{i}] = {ci} exceeds {nd} = {ni}", names.c))
    };
    match n {
        Trials::All(n0) => {
            for (j, &x) in c.slice(s![i0..i1]).iter().enumerate() {
                let ci = read_count(x, names.c, i0 + j)?;
                if ci > *n0 {
                    return Err(exceeds(i0 + j, ci, *n0));
                }
            }
            info.min_n = *n0;
            info.max_n = *n0;
        }
        Trials::Each(nv) => {
            let mut last = u64::MAX;
            for (j, (&a, &b)) in nv.slice(s![i0..i1]).iter().zip(c.slice(s![i0..i1]).iter()).enumerate() {
                let i = i0 + j;
                let ni = read_count(a, names.n, i)?;
                let ci = read_count(b, names.c, i)?;
                if ci > ni {
                    return Err(exceeds(i, ci, ni));
                }
                info.min_n = info.min_n.min(ni);
                info.max_n = info.max_n.max(ni);
                if ni != last {
                    mark(&mut info.seen, ni);
                    last = ni;
                }
            }
        }
    }
    Ok(info)
}
