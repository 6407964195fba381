//! Per-question `(n, c)` pairs deduplicated into a `StateTable`: distinct
//! states ascending by `(n, c)`, their frequencies and a per-question state
//! index, so every finite-bank metric evaluates each state once (the
//! reductions back to questions are `finite::reduce`).
//!
//! The pairs come validated from `counts` (or trusted from the matrix
//! intake); deduplication uses a dense slot table when the states fit (the
//! usual case: n <= a few thousand) and a parallel sort otherwise.

use ndarray::{s, ArrayView1};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::intake::counts::{
    chunk_facts, chunk_len, validate_chunk, ChunkInfo, Count, Names, Trials, DENSE_SLOTS, MAX_COUNT,
};
use crate::par::{self, Grain};

/// Distinct `(n, c)` states, ascending, with frequencies and (unless built
/// without it) the state of each question.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StateTable {
    pub states: Vec<(u64, u64)>,
    pub freqs: Vec<u64>,
    /// `index[i]` is question i's position in `states`; empty when the table
    /// was built for means only (`Index::Skip`), so that memory beyond the
    /// counts is O(states), not O(questions).
    pub index: Vec<u32>,
    /// Questions.
    pub questions: usize,
    /// Each distinct n's first question, ascending by n: how a table without
    /// an index finds the first question too short for k.
    firsts: Option<Vec<(u64, usize)>>,
}

/// Whether a table keeps the per-question state index (needed for
/// per-question output; means and intervals need only states and freqs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    Keep,
    Skip,
}

#[inline]
fn key(n: u64, c: u64) -> u64 {
    (n << 32) | c
}

#[inline]
fn unkey(k: u64) -> (u64, u64) {
    (k >> 32, k & MAX_COUNT)
}

/// Questions' `(n, c)` pairs, visited a range at a time (already valid).
trait Pairs: Sync {
    fn visit(&self, i0: usize, i1: usize, f: impl FnMut(u64, u64));
}

/// A valid entry as a count (validation has run).
#[inline(always)]
fn count_of<T: Count>(x: T) -> u64 {
    x.fast()
}

struct CountPairs<'r, 'a, N, C> {
    n: &'r Trials<'a, N>,
    c: ArrayView1<'a, C>,
}

impl<N: Count, C: Count> Pairs for CountPairs<'_, '_, N, C> {
    fn visit(&self, i0: usize, i1: usize, mut f: impl FnMut(u64, u64)) {
        let cs = self.c.slice(s![i0..i1]);
        match self.n {
            Trials::All(n0) => match cs.as_slice() {
                Some(xs) => xs.iter().for_each(|&x| f(*n0, count_of(x))),
                None => cs.iter().for_each(|&x| f(*n0, count_of(x))),
            },
            Trials::Each(nv) => {
                let ns = nv.slice(s![i0..i1]);
                match (ns.as_slice(), cs.as_slice()) {
                    (Some(a), Some(b)) => a.iter().zip(b).for_each(|(&x, &y)| f(count_of(x), count_of(y))),
                    _ => ns
                        .iter()
                        .zip(cs.iter())
                        .for_each(|(&x, &y)| f(count_of(x), count_of(y))),
                }
            }
        }
    }
}

struct RowPairs<'a> {
    n: u64,
    counts: &'a [u32],
}

impl Pairs for RowPairs<'_> {
    fn visit(&self, i0: usize, i1: usize, mut f: impl FnMut(u64, u64)) {
        self.counts[i0..i1].iter().for_each(|&c| f(self.n, c as u64));
    }
}

struct KeyPairs<'a>(&'a [u64]);

impl Pairs for KeyPairs<'_> {
    fn visit(&self, i0: usize, i1: usize, mut f: impl FnMut(u64, u64)) {
        self.0[i0..i1].iter().for_each(|&k| {
            let (n, c) = unkey(k);
            f(n, c)
        });
    }
}

impl StateTable {
    /// Validate per-question counts and tabulate their states. Errors name
    /// the argument and the first offending index: non-finite, non-integer,
    /// negative or too large entries, and `c > n`.
    pub fn from_counts<'a, N, C>(n: Trials<'a, N>, c: ArrayView1<'a, C>, names: Names<'_>, keep: Index) -> Result<Self>
    where
        N: Count,
        C: Count,
    {
        let m = c.len();
        if let Trials::Each(nv) = &n {
            if nv.len() != m {
                return Err(Error::value(format!(
                    "{} and {} must have the same length; got {} and {}",
                    names.n,
                    names.c,
                    nv.len(),
                    m
                )));
            }
        }
        if let Trials::All(n0) = n {
            if n0 > MAX_COUNT {
                return Err(Error::value(format!(
                    "{} must be at most {MAX_COUNT}; got {n0}",
                    names.n
                )));
            }
        }
        let chunk = chunk_len(m);
        // Speculate a single n (the first one) when its table is small.
        let first = match &n {
            Trials::All(n0) => Some(*n0),
            Trials::Each(nv) => nv.first().map(|x| x.fast()),
        };
        let spec = first.filter(|&n0| n0 < (1 << 16) && (n0 as usize) < 4 * m.max(1));
        // The first pass writes each question's slot only when it may be the
        // last pass (speculation on) and the index is wanted.
        let slots_out = keep == Index::Keep && spec.is_some();
        let mut index = if slots_out { vec![0u32; m] } else { Vec::new() };
        let work = par::min_len(4 * chunk);
        type Facts = Vec<(bool, ChunkInfo, Option<Vec<u32>>)>;
        let facts: Facts = if slots_out {
            index
                .par_chunks_mut(chunk.max(1))
                .with_min_len(work)
                .enumerate()
                .map(|(b, out)| chunk_facts(&n, &c, (b * chunk, b * chunk + out.len()), spec, Some(out)))
                .collect()
        } else {
            (0..m.div_ceil(chunk.max(1)))
                .into_par_iter()
                .with_min_len(work)
                .map(|b| chunk_facts(&n, &c, (b * chunk, ((b + 1) * chunk).min(m)), spec, None))
                .collect()
        };
        // Chunks are in index order: the first flawed chunk holds the first flaw.
        if let Some(b) = facts.iter().position(|f| f.0) {
            validate_chunk(&n, &c, names, b * chunk, ((b + 1) * chunk).min(m))?;
            return Err(Error::value(format!("{} holds an invalid count", names.c)));
        }
        let uniform = facts.iter().all(|f| f.1.min_n == f.1.max_n && Some(f.1.min_n) == spec);
        if let (true, Some(n0)) = (uniform && m > 0, spec) {
            let mut counts = vec![0u32; n0 as usize + 1];
            for (_, _, t) in &facts {
                if let Some(t) = t {
                    for (x, y) in counts.iter_mut().zip(t) {
                        *x += y;
                    }
                }
            }
            return Ok(Self::finish(index, m, &counts, &[n0]).with_firsts(vec![(n0, 0)]));
        }
        drop(index);
        let mut ns: Option<Vec<u64>> = Some(Vec::new());
        let mut firsts: Vec<(u64, usize)> = Vec::new();
        let (mut lo, mut hi) = (u64::MAX, 0u64);
        for (_, info, _) in facts {
            lo = lo.min(info.min_n);
            hi = hi.max(info.max_n);
            firsts.extend(info.firsts);
            match (&mut ns, info.seen) {
                (Some(acc), Some(bits)) => {
                    if acc.len() < bits.len() {
                        acc.resize(bits.len(), 0);
                    }
                    for (a, b) in acc.iter_mut().zip(bits) {
                        *a |= b;
                    }
                }
                _ => ns = None,
            }
        }
        let present = if m == 0 {
            Some(Vec::new())
        } else if lo == hi {
            Some(vec![lo])
        } else {
            ns.map(|bits| {
                let mut v = Vec::new();
                for (w, &word) in bits.iter().enumerate() {
                    let mut x = word;
                    while x != 0 {
                        v.push(w as u64 * 64 + x.trailing_zeros() as u64);
                        x &= x - 1;
                    }
                }
                v
            })
        };
        // Chunks were visited in order, so the first entry of each n wins
        // (complete whenever the dense path can run without an index).
        if lo == hi {
            firsts = vec![(lo, 0)];
        }
        firsts.sort_by_key(|&(n, i)| (n, i));
        firsts.dedup_by_key(|f| f.0);
        let table = Self::build(&CountPairs { n: &n, c }, m, present, keep);
        Ok(if table.index.len() == m {
            table
        } else {
            table.with_firsts(firsts)
        })
    }

    fn with_firsts(mut self, firsts: Vec<(u64, usize)>) -> Self {
        self.firsts = Some(firsts);
        self
    }

    /// The states of per-row success counts of one N-trial bank (counts are
    /// trusted: they come from the matrix intake).
    pub fn from_row_counts(n: u64, counts: &[u32]) -> Self {
        Self::build(&RowPairs { n, counts }, counts.len(), Some(vec![n]), Index::Keep)
    }

    /// Several banks, one after another: returns the table over all their
    /// questions and the segment offsets (`len + 1` entries).
    pub fn from_banks(banks: &[(u64, Vec<u32>)]) -> (Self, Vec<usize>) {
        let mut offsets = vec![0usize];
        for (_, c) in banks {
            offsets.push(offsets.last().copied().unwrap_or(0) + c.len());
        }
        let mut keys = vec![0u64; *offsets.last().unwrap_or(&0)];
        let mut rest: &mut [u64] = &mut keys;
        let mut parts = Vec::with_capacity(banks.len());
        for (n, c) in banks {
            let (head, tail) = rest.split_at_mut(c.len());
            parts.push((*n, c, head));
            rest = tail;
        }
        parts
            .into_par_iter()
            .with_grain(2 * offsets[banks.len()] / banks.len().max(1))
            .for_each(|(n, c, out)| {
                for (o, &ci) in out.iter_mut().zip(c.iter()) {
                    *o = key(n, ci as u64);
                }
            });
        let mut ns: Vec<u64> = banks.iter().map(|(n, _)| *n).collect();
        ns.sort_unstable();
        ns.dedup();
        let m = keys.len();
        (Self::build(&KeyPairs(&keys), m, Some(ns), Index::Keep), offsets)
    }

    /// Deduplicate valid pairs; `present` lists the distinct n ascending
    /// when known (then a dense slot table may be used). The sorted path
    /// (huge n) always builds the index: it holds a key per question anyway.
    fn build<P: Pairs>(pairs: &P, m: usize, present: Option<Vec<u64>>, keep: Index) -> Self {
        if let Some(ns) = present {
            let slots: u64 = ns.iter().map(|&n| n + 1).sum();
            let limit = DENSE_SLOTS.min((4 * m).max(1 << 16)) as u64;
            if slots <= limit {
                return Self::dense(pairs, m, &ns, slots as usize, keep);
            }
        }
        let mut keys = vec![0u64; m];
        let chunk = chunk_len(m);
        keys.par_chunks_mut(chunk)
            .with_grain(3 * chunk)
            .enumerate()
            .for_each(|(b, out)| {
                let mut j = 0;
                pairs.visit(b * chunk, b * chunk + out.len(), |n, c| {
                    out[j] = key(n, c);
                    j += 1;
                });
            });
        Self::sorted(&keys)
    }

    fn dense<P: Pairs>(pairs: &P, m: usize, ns: &[u64], slots: usize, keep: Index) -> Self {
        // base[n] = first slot of n; a single n needs no table.
        let single = ns.len() == 1;
        let mut base = Vec::new();
        if !single {
            if let Some(&top) = ns.last() {
                base = vec![0u32; top as usize + 1];
                let mut at = 0u32;
                for &n in ns {
                    base[n as usize] = at;
                    at += n as u32 + 1;
                }
            }
        }
        let base = &base;
        let slot_of = |n: u64, c: u64| {
            if single {
                c as usize
            } else {
                base[n as usize] as usize + c as usize
            }
        };
        let threads = rayon::current_num_threads().max(1);
        // Few chunks when the table is big (each chunk owns one).
        let chunk = if slots <= 1 << 12 {
            chunk_len(m)
        } else {
            m.div_ceil(threads).max(1)
        }
        .max(1);
        let work = par::min_len(4 * chunk + slots);
        let add = |a: Vec<u32>, b: Vec<u32>| {
            let mut a = a;
            for (x, y) in a.iter_mut().zip(b) {
                *x += y;
            }
            a
        };
        let mut index = Vec::new();
        let counts = if keep == Index::Keep {
            index = vec![0u32; m];
            index
                .par_chunks_mut(chunk)
                .with_min_len(work)
                .enumerate()
                .map(|(b, out)| {
                    let mut t = vec![0u32; slots];
                    let mut j = 0;
                    pairs.visit(b * chunk, b * chunk + out.len(), |n, c| {
                        let s = slot_of(n, c);
                        t[s] += 1;
                        out[j] = s as u32;
                        j += 1;
                    });
                    t
                })
                .reduce_with(add)
        } else {
            (0..m.div_ceil(chunk))
                .into_par_iter()
                .with_min_len(work)
                .map(|b| {
                    let mut t = vec![0u32; slots];
                    pairs.visit(b * chunk, ((b + 1) * chunk).min(m), |n, c| t[slot_of(n, c)] += 1);
                    t
                })
                .reduce_with(add)
        }
        .unwrap_or_else(|| vec![0u32; slots]);
        Self::finish(index, m, &counts, ns)
    }

    /// Compact a slot table (slots of each n in `ns`, ascending) into states
    /// and turn the slots in `index` into state positions.
    fn finish(mut index: Vec<u32>, questions: usize, counts: &[u32], ns: &[u64]) -> Self {
        let mut remap = vec![u32::MAX; counts.len()];
        let mut states = Vec::new();
        let mut freqs = Vec::new();
        let mut s = 0usize;
        for &n in ns {
            for c in 0..=n {
                if counts[s] > 0 {
                    remap[s] = states.len() as u32;
                    states.push((n, c));
                    freqs.push(counts[s] as u64);
                }
                s += 1;
            }
        }
        index.par_chunks_mut(1 << 14).with_grain(1 << 14).for_each(|part| {
            for x in part {
                *x = remap[*x as usize];
            }
        });
        StateTable {
            states,
            freqs,
            index,
            questions,
            firsts: None,
        }
    }

    fn sorted(keys: &[u64]) -> Self {
        let mut sorted = keys.to_vec();
        if par::worth_splitting(20 * sorted.len()) {
            sorted.par_sort_unstable();
        } else {
            sorted.sort_unstable();
        }
        let mut uniq: Vec<u64> = Vec::new();
        let mut freqs: Vec<u64> = Vec::new();
        for k in sorted {
            if uniq.last() == Some(&k) {
                if let Some(f) = freqs.last_mut() {
                    *f += 1;
                }
            } else {
                uniq.push(k);
                freqs.push(1);
            }
        }
        let index = keys
            .par_iter()
            .with_grain(5 * (usize::BITS - uniq.len().leading_zeros()) as usize)
            .map(|k| uniq.binary_search(k).unwrap_or(0) as u32)
            .collect();
        StateTable {
            states: uniq.into_iter().map(unkey).collect(),
            freqs,
            questions: keys.len(),
            index,
            firsts: None,
        }
    }

    /// Questions.
    pub fn len(&self) -> usize {
        self.questions
    }

    pub fn is_empty(&self) -> bool {
        self.questions == 0
    }

    /// Whether the per-question state index is here (see `Index`).
    pub fn has_index(&self) -> bool {
        self.index.len() == self.questions
    }

    /// The smallest n over all questions (None when there are none).
    pub fn min_n(&self) -> Option<u64> {
        self.states.iter().map(|s| s.0).min()
    }

    /// The first question whose n is below `k`, with that n.
    pub fn first_short(&self, k: u64) -> Option<(usize, u64)> {
        if self.min_n().is_none_or(|n| n >= k) {
            return None;
        }
        if let (false, Some(firsts)) = (self.has_index(), &self.firsts) {
            return firsts.iter().filter(|f| f.0 < k).map(|&(n, i)| (i, n)).min();
        }
        let states = &self.states;
        self.index
            .par_iter()
            .with_grain(2)
            .position_first(|&s| states[s as usize].0 < k)
            .map(|i| (i, states[self.index[i] as usize].0))
    }

    /// `(n_i, c_i)` per question.
    pub fn question_counts(&self) -> (Vec<u64>, Vec<u64>) {
        let states = &self.states;
        self.index.par_iter().with_grain(2).map(|&s| states[s as usize]).unzip()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finite::credit::Credit;
    use crate::finite::reduce::Reduce;
    use ndarray::array;

    const NAMES: Names<'static> = Names { n: "n", c: "c" };

    #[test]
    fn dedups_and_indexes() {
        let n = array![5i64, 5, 3, 5, 3];
        let c = array![2i64, 2, 0, 5, 0];
        let t = StateTable::from_counts(Trials::Each(n.view()), c.view(), NAMES, Index::Keep).unwrap();
        assert_eq!(t.states, vec![(3, 0), (5, 2), (5, 5)]);
        assert_eq!(t.freqs, vec![2, 2, 1]);
        assert_eq!(t.index, vec![1, 1, 0, 2, 0]);
        assert_eq!(t.first_short(4), Some((2, 3)));
        assert_eq!(t.first_short(3), None);
        let (ns, cs) = t.question_counts();
        assert_eq!(ns, vec![5, 5, 3, 5, 3]);
        assert_eq!(cs, vec![2, 2, 0, 5, 0]);
    }

    #[test]
    fn sorted_path_agrees_with_dense() {
        let m = 50_000usize;
        let n: Vec<i64> = (0..m).map(|i| 1 + (i as i64 * 7919) % 30_000).collect();
        let c: Vec<i64> = n.iter().enumerate().map(|(i, &x)| (i as i64 * 31) % (x + 1)).collect();
        let nv = ndarray::Array1::from(n);
        let cv = ndarray::Array1::from(c);
        let t = StateTable::from_counts(Trials::Each(nv.view()), cv.view(), NAMES, Index::Keep).unwrap();
        let keys: Vec<u64> = nv
            .iter()
            .zip(cv.iter())
            .map(|(&a, &b)| key(a as u64, b as u64))
            .collect();
        assert_eq!(StateTable::sorted(&keys), t);
        let ns: Vec<u64> = t
            .states
            .iter()
            .map(|s| s.0)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let slots = ns.iter().map(|&n| n as usize + 1).sum();
        assert_eq!(StateTable::dense(&KeyPairs(&keys), m, &ns, slots, Index::Keep), t);
        for (i, &s) in t.index.iter().enumerate() {
            assert_eq!(t.states[s as usize], (nv[i] as u64, cv[i] as u64));
        }
    }

    #[test]
    fn tables_without_index_agree() {
        // Uniform n (speculation), ragged n (dense slots), huge n (sorted).
        let m = 70_000usize;
        let cases: Vec<Vec<i64>> = vec![
            vec![16; m],
            (0..m).map(|i| 8 + (i as i64 * 7919) % 13).collect(),
            (0..m).map(|i| 1 + (i as i64 * 7919) % 5_000_000).collect(),
        ];
        for n in cases {
            let c: Vec<i64> = n.iter().enumerate().map(|(i, &x)| (i as i64 * 31) % (x + 1)).collect();
            let (nv, cv) = (ndarray::Array1::from(n.clone()), ndarray::Array1::from(c));
            let keep = StateTable::from_counts(Trials::Each(nv.view()), cv.view(), NAMES, Index::Keep).unwrap();
            let skip = StateTable::from_counts(Trials::Each(nv.view()), cv.view(), NAMES, Index::Skip).unwrap();
            assert_eq!(
                (&keep.states, &keep.freqs, keep.len()),
                (&skip.states, &skip.freqs, skip.len())
            );
            assert!(keep.has_index());
            for k in [1, 9, 12, 17, 21, 4_000_000, 6_000_000] {
                let direct = n.iter().position(|&x| (x as u64) < k).map(|i| (i, n[i] as u64));
                assert_eq!(keep.first_short(k), direct, "k = {k}");
                assert_eq!(skip.first_short(k), direct, "k = {k}");
            }
        }
    }

    #[test]
    fn scalar_n_and_floats() {
        let c = array![0.0f64, 3.0, 3.0];
        let t = StateTable::from_counts(Trials::<i64>::All(4), c.view(), NAMES, Index::Keep).unwrap();
        assert_eq!(t.states, vec![(4, 0), (4, 3)]);
        let v = t.credit_values(&Credit::pass(2));
        let per = t.reduce(&v, 1, Reduce::Question);
        assert_eq!(per, vec![0.0, 1.0, 1.0]);
        let mean = t.reduce(&v, 1, Reduce::Mean);
        assert!((mean[0] - 2.0 / 3.0).abs() < 1e-16);
        let seg = t.reduce(&v, 1, Reduce::Segments(&[0, 1, 3]));
        assert_eq!(seg, vec![0.0, 1.0]);
    }

    #[test]
    fn errors_name_argument_and_first_index() {
        fn err<'a>(n: Trials<'a, f64>, c: &'a [f64]) -> String {
            let cv = ArrayView1::from(c);
            StateTable::from_counts(
                n,
                cv,
                Names {
                    n: "num_samples",
                    c: "num_correct",
                },
                Index::Skip,
            )
            .unwrap_err()
            .to_string()
        }
        assert_eq!(
            err(Trials::All(5), &[1.0, f64::NAN, -1.0]),
            "num_correct[1] must be a finite integer; got NaN"
        );
        assert_eq!(
            err(Trials::All(5), &[1.0, 2.5]),
            "num_correct[1] must be an integer; got 2.5"
        );
        assert_eq!(
            err(Trials::All(5), &[1.0, 6.0, -1.0]),
            "num_correct[1] = 6 exceeds num_samples = 5"
        );
        let n = [5.0, 5.0, 2.0];
        assert_eq!(
            err(Trials::Each(ArrayView1::from(&n[..])), &[1.0, 0.0, 3.0]),
            "num_correct[2] = 3 exceeds num_samples[2] = 2"
        );
        assert_eq!(
            err(Trials::Each(ArrayView1::from(&[5.0, -5.0][..])), &[1.0, 0.0]),
            "num_samples[1] must be non-negative; got -5.0"
        );
        assert_eq!(
            err(Trials::Each(ArrayView1::from(&[5.0][..])), &[1.0, 0.0]),
            "num_samples and num_correct must have the same length; got 1 and 2"
        );
        // The first offender wins across parallel chunks.
        let mut big = vec![0.0f64; 200_000];
        big[150_000] = -1.0;
        big[120_000] = 0.5;
        assert_eq!(
            err(Trials::All(5), &big),
            "num_correct[120000] must be an integer; got 0.5"
        );
    }
}
