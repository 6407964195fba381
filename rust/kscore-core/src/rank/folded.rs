//! The folded count of the leaderboard's rank ranges: every pair's paired
//! test as the sign of one dot product, counted without the L x L matrix
//! (docs/leaderboard.md, *Rank ranges*; python/kscore/leaderboard/stats/folded.py
//! has the statistics).
//!
//! The caller sorts the models by decreasing sum of estimates and hands over
//! `A` and `B` (models x `k`, row-major) with `F_ij = A_i . B_j`, a margin
//! `delta` and each row's `reach` (the first column from which every later
//! model is beaten by a bound, without a product). For each pair `i < j`
//! (sorted positions) with `j < reach_i` the kernel computes `F_ij` and
//! counts it as significant (`F > delta`: row `i` better than column `j`),
//! lists it as near (`-delta <= F <= delta`: the caller decides it by the
//! exact statistics) or drops it; the columns from `reach_i` on count as
//! significant. `delta` covers the rounding of any order of the sums (the
//! caller's margin is many times the dot product's error bound), so the
//! decisions are those of the numpy tiles this replaces, whatever the
//! order, the thread count or the instruction set: the counts are integers,
//! the near pairs are returned sorted.
//!
//! Speed: the rows a band at a time (one job of the pool each), the columns a
//! tile at a time (its `k x TILE` slice of `B` stays in L2 while the band's
//! rows pass), and `4 x NR` pairs at a time in registers (AVX2 where the
//! CPU has it): about `k / 16` ns per pair on one core in
//! single precision, no temporary as large as a tile.

use crate::error::{Error, Result};
use crate::par::fold_per_thread;

/// Rows of a band: one job of the pool.
const BAND: usize = 64;
/// Rows of the register tile.
const MR: usize = 4;
/// Columns of a cache tile (a multiple of every `NR`).
const TILE: usize = 1024;

/// The floats the kernel runs on (f32 on large boards of few questions, else f64).
pub trait Real: Copy + Send + Sync + PartialOrd + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {
    /// Zero.
    const ZERO: Self;
    /// From an f64 (rounded).
    fn of(x: f64) -> Self;
}

impl Real for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x as f32
    }
}

impl Real for f64 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn of(x: f64) -> Self {
        x
    }
}

/// The arguments, checked: `a`, `b` models x `k` (row-major), `reach` per
/// model (sorted positions, `i < reach_i <= models`), the margin `delta`.
#[derive(Clone, Copy)]
pub struct Folded<'a, T> {
    pub a: &'a [T],
    pub b: &'a [T],
    pub k: usize,
    pub reach: &'a [i64],
    pub delta: f64,
}

/// What the count gives, per sorted position: `worse` (columns this row is
/// significantly better than), `better` (rows significantly better than
/// this column), and the near pairs `(i, j)`, `i < j`, sorted.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Counted {
    pub worse: Vec<u64>,
    pub better: Vec<u64>,
    pub near: Vec<(usize, usize)>,
}

impl<T: Real> Folded<'_, T> {
    fn models(&self) -> usize {
        self.reach.len()
    }

    fn check(&self) -> Result<()> {
        let l = self.models();
        if self.k == 0 || self.a.len() != l * self.k || self.b.len() != l * self.k {
            return Err(Error::value(
                "folded_count: a and b must be models x k (k >= 1), one reach per model",
            ));
        }
        if self
            .reach
            .iter()
            .enumerate()
            .any(|(i, &r)| r <= i as i64 || r > l as i64)
        {
            return Err(Error::value(
                "folded_count: each reach must lie after its row, at most the models",
            ));
        }
        if self.delta.is_nan() || self.delta < 0.0 {
            return Err(Error::value("folded_count: delta must be a nonnegative number"));
        }
        Ok(())
    }
}

/// One pool thread's counts: per sorted row (`worse`), per sorted column
/// (`better`), the near pairs.
struct Acc {
    worse: Vec<u64>,
    better: Vec<u64>,
    near: Vec<(usize, usize)>,
}

impl Acc {
    fn new(l: usize) -> Self {
        Acc {
            worse: vec![0; l],
            better: vec![0; l],
            near: Vec::new(),
        }
    }

    fn merge(mut self, other: Acc) -> Acc {
        for (x, y) in self.worse.iter_mut().zip(&other.worse) {
            *x += y;
        }
        for (x, y) in self.better.iter_mut().zip(&other.better) {
            *x += y;
        }
        self.near.extend(other.near);
        self
    }
}

/// The padded operands: `a` rows to a multiple of `MR` (zeros), `b`
/// transposed to `k x ld` (`ld` a multiple of `nr` past the last column).
struct Padded<T> {
    a: Vec<T>,
    bt: Vec<T>,
    ld: usize,
}

fn pad<T: Real>(f: &Folded<'_, T>, nr: usize) -> Padded<T> {
    let (l, k) = (f.models(), f.k);
    let rows = l.div_ceil(MR) * MR;
    let mut a = vec![T::ZERO; rows * k];
    a[..l * k].copy_from_slice(f.a);
    let ld = l.div_ceil(nr) * nr + nr;
    let mut bt = vec![T::ZERO; k * ld];
    for (j, row) in f.b.chunks_exact(k).enumerate() {
        for (kk, &v) in row.iter().enumerate() {
            bt[kk * ld + j] = v;
        }
    }
    Padded { a, bt, ld }
}

/// Count every pair (module docs).
///
/// ```
/// use kscore_core::rank::folded::{folded_count, Counted, Folded};
/// // Three models, k = 1: F_01 = 2 (significant), F_02 = 0 (near); row 1 reaches past model 2.
/// let a = [1.0f64, 0.0, 0.0];
/// let b = [0.0f64, 2.0, 0.0];
/// let reach = [3i64, 2, 3];
/// let got = folded_count(Folded { a: &a, b: &b, k: 1, reach: &reach, delta: 0.5 }).unwrap();
/// assert_eq!(got, Counted { worse: vec![1, 1, 0], better: vec![0, 1, 1], near: vec![(0, 2)] });
/// ```
pub fn folded_count<T: Real>(f: Folded<'_, T>) -> Result<Counted> {
    f.check()?;
    let l = f.models();
    let nr = if std::mem::size_of::<T>() == 4 { 16 } else { 8 };
    let p = pad(&f, nr);
    let bands = l.div_ceil(BAND);
    let wide = avx2();
    // (about k / 16 ns a pair, half the columns a row on average)
    let band_ns = (BAND * l / 2).saturating_mul(f.k) / 16 + 1;
    let acc = fold_per_thread(
        bands,
        band_ns,
        || Acc::new(l),
        |acc, band| {
            if crate::cancel::stopping() {
                return false; // (the binding's watch sees the stop and discards the result)
            }
            if nr == 16 {
                run_band::<T, 16>(&f, &p, band * BAND, acc, wide);
            } else {
                run_band::<T, 8>(&f, &p, band * BAND, acc, wide);
            }
            true
        },
        Acc::merge,
    )
    .ok_or(Error::Interrupted)?;
    let mut out = Counted {
        worse: acc.worse,
        better: acc.better,
        near: acc.near,
    };
    // The columns from each row's reach on: significant without a product.
    let mut from = vec![0u64; l + 1];
    for (i, &r) in f.reach.iter().enumerate() {
        let r = r as usize;
        out.worse[i] += (l - r) as u64;
        from[r] += 1;
    }
    let mut run = 0u64;
    for (j, b) in out.better.iter_mut().enumerate() {
        run += from[j];
        *b += run;
    }
    out.near.sort_unstable();
    Ok(out)
}

fn run_band<T: Real, const NR: usize>(f: &Folded<'_, T>, p: &Padded<T>, b0: usize, acc: &mut Acc, wide: bool) {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is only set when the CPU supports AVX2.
        return unsafe { band_avx2::<T, NR>(f, p, b0, acc) };
    }
    let _ = wide;
    band_body::<T, NR>(f, p, b0, acc)
}

/// `band_body` compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn band_avx2<T: Real, const NR: usize>(f: &Folded<'_, T>, p: &Padded<T>, b0: usize, acc: &mut Acc) {
    band_body::<T, NR>(f, p, b0, acc)
}

/// `a * b + c` (two roundings: `mul_add` is a call to libm's `fma` where
/// the compiler does not inline it into the AVX2 twin).
#[inline(always)]
fn madd<T: Real>(a: T, b: T, c: T) -> T {
    a * b + c
}

/// `F` of rows `i0..i0 + MR` against columns `j0..j0 + NR`.
#[inline(always)]
fn micro<T: Real, const NR: usize>(p: &Padded<T>, k: usize, i0: usize, j0: usize) -> [[T; NR]; MR] {
    let mut f = [[T::ZERO; NR]; MR];
    let a = &p.a[i0 * k..(i0 + MR) * k];
    for kk in 0..k {
        let mut b = [T::ZERO; NR];
        b.copy_from_slice(&p.bt[kk * p.ld + j0..kk * p.ld + j0 + NR]);
        for (r, fr) in f.iter_mut().enumerate() {
            let x = a[r * k + kk];
            for (v, &y) in fr.iter_mut().zip(&b) {
                *v = madd(x, y, *v);
            }
        }
    }
    f
}

/// The rows `b0..b0 + BAND` against the columns before their reach.
#[inline(always)]
fn band_body<T: Real, const NR: usize>(f: &Folded<'_, T>, p: &Padded<T>, b0: usize, acc: &mut Acc) {
    let l = f.models();
    let k = f.k;
    let b1 = (b0 + BAND).min(l);
    let delta = T::of(f.delta);
    let neg = T::of(-f.delta);
    let reach = |i: usize| if i < l { f.reach[i] as usize } else { 0 };
    let hi = (b0..b1).map(reach).max().unwrap_or(0);
    let start = (b0 + 1) / NR * NR;
    let mut c0 = start;
    while c0 < hi {
        let c1 = (c0 + TILE).min(hi);
        for i0 in (b0..b1).step_by(MR) {
            let rows = (b1 - i0).min(MR);
            let r_lo = (i0..i0 + rows).map(reach).min().unwrap_or(0);
            let r_hi = (i0..i0 + rows).map(reach).max().unwrap_or(0);
            let mut j0 = c0.max((i0 + 1) / NR * NR);
            let mut row_sure = [[0u32; NR]; MR];
            while j0 < c1.min(r_hi) {
                let fv = micro::<T, NR>(p, k, i0, j0);
                if rows == MR && j0 >= i0 + MR && j0 + NR <= r_lo {
                    // Every pair of the tile is one to decide.
                    let mut col = [0u32; NR];
                    let mut near = 0u32;
                    for (fr, sr) in fv.iter().zip(row_sure.iter_mut()) {
                        for ((&v, s), c) in fr.iter().zip(sr.iter_mut()).zip(col.iter_mut()) {
                            let sure = (v > delta) as u32;
                            *s += sure;
                            *c += sure;
                            near += (v >= neg) as u32 - sure;
                        }
                    }
                    for (b, &c) in acc.better[j0..j0 + NR].iter_mut().zip(&col) {
                        *b += u64::from(c);
                    }
                    if near > 0 {
                        for (r, fr) in fv.iter().enumerate() {
                            for (c, &v) in fr.iter().enumerate() {
                                if v >= neg && v <= delta {
                                    acc.near.push((i0 + r, j0 + c));
                                }
                            }
                        }
                    }
                } else {
                    // An edge: the diagonal, a reach, the last rows or columns.
                    for (r, fr) in fv.iter().enumerate().take(rows) {
                        let i = i0 + r;
                        let ri = reach(i);
                        for (c, &v) in fr.iter().enumerate() {
                            let j = j0 + c;
                            if j <= i || j >= ri || j >= c1 {
                                continue;
                            }
                            if v > delta {
                                row_sure[r][c] += 1;
                                acc.better[j] += 1;
                            } else if v >= neg {
                                acc.near.push((i, j));
                            }
                        }
                    }
                }
                j0 += NR;
            }
            for (r, sr) in row_sure.iter().enumerate().take(rows) {
                acc.worse[i0 + r] += sr.iter().map(|&x| u64::from(x)).sum::<u64>();
            }
        }
        c0 = c1;
    }
}

/// Whether this CPU runs the AVX2 twin.
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, pair by pair, in f64.
    fn naive(a: &[f64], b: &[f64], k: usize, reach: &[i64], delta: f64) -> Counted {
        let l = reach.len();
        let mut out = Counted {
            worse: vec![0; l],
            better: vec![0; l],
            near: Vec::new(),
        };
        for i in 0..l {
            for j in i + 1..l {
                let sure = if j >= reach[i] as usize {
                    true
                } else {
                    let v: f64 = (0..k).map(|kk| a[i * k + kk] * b[j * k + kk]).sum();
                    if v >= -delta && v <= delta {
                        out.near.push((i, j));
                    }
                    v > delta
                };
                if sure {
                    out.worse[i] += 1;
                    out.better[j] += 1;
                }
            }
        }
        out
    }

    /// Small integers (exact in any order, f32 too), in [-4, 4].
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 40) % 9) as f64 - 4.0
            })
            .collect()
    }

    fn reaches(l: usize, seed: u64) -> Vec<i64> {
        let v = values(l, seed + 7);
        (0..l)
            .map(|i| {
                let r = i + 1 + ((v[i] + 4.0) as usize) * (l / 5 + 1);
                r.min(l) as i64
            })
            .collect()
    }

    #[test]
    fn equals_the_pairwise_definition() {
        for (l, k, seed) in [
            (1usize, 1usize, 1u64),
            (3, 2, 2),
            (17, 5, 3),
            (70, 23, 4),
            (300, 3, 5),
            (257, 40, 6),
        ] {
            let a = values(l * k, seed);
            let b = values(l * k, seed + 100);
            for reach in [vec![l as i64; l], reaches(l, seed)] {
                // (integer sums: F is exact; delta 0.5 keeps exactly the zeros near)
                let want = naive(&a, &b, k, &reach, 0.5);
                let got = folded_count(Folded {
                    a: &a,
                    b: &b,
                    k,
                    reach: &reach,
                    delta: 0.5,
                })
                .unwrap();
                assert_eq!(got, want, "f64 l={l} k={k}");
                let (a32, b32): (Vec<f32>, Vec<f32>) = (
                    a.iter().map(|&x| x as f32).collect(),
                    b.iter().map(|&x| x as f32).collect(),
                );
                let got = folded_count(Folded {
                    a: &a32,
                    b: &b32,
                    k,
                    reach: &reach,
                    delta: 0.5,
                })
                .unwrap();
                assert_eq!(got, want, "f32 l={l} k={k}");
            }
        }
    }

    #[test]
    fn same_counts_whatever_the_threads() {
        let (l, k) = (700, 9);
        let a = values(l * k, 11);
        let b = values(l * k, 12);
        let reach = reaches(l, 13);
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        let three = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
        let before = crate::par::set_grain(1);
        let x = one.install(|| {
            folded_count(Folded {
                a: &a,
                b: &b,
                k,
                reach: &reach,
                delta: 0.5,
            })
            .unwrap()
        });
        let y = three.install(|| {
            folded_count(Folded {
                a: &a,
                b: &b,
                k,
                reach: &reach,
                delta: 0.5,
            })
            .unwrap()
        });
        crate::par::set_grain(before);
        assert_eq!(x, y);
        assert_eq!(x, naive(&a, &b, k, &reach, 0.5));
    }

    #[test]
    fn bad_arguments_are_errors() {
        let a = [1.0f64, 2.0];
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 1,
            reach: &[2, 2],
            delta: 0.0
        })
        .is_ok());
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 1,
            reach: &[1, 2],
            delta: 0.0
        })
        .is_ok());
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 1,
            reach: &[0, 2],
            delta: 0.0
        })
        .is_err());
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 1,
            reach: &[2, 3],
            delta: 0.0
        })
        .is_err());
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 2,
            reach: &[2, 2],
            delta: 0.0
        })
        .is_err());
        assert!(folded_count(Folded {
            a: &a,
            b: &a,
            k: 1,
            reach: &[2, 2],
            delta: f64::NAN
        })
        .is_err());
    }
}
