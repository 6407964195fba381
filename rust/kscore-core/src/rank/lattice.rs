//! The rank ranges' paired tests on a lattice board: every model's
//! per-question estimate a count over the same number of samples (`x =
//! c / N`, `0 <= c <= 127`), so that every pair's test is decided from
//! integer dot products (docs/leaderboard.md, *Rank ranges*;
//! python/kscore/leaderboard/stats/folded.py has the statistics).
//!
//! With `D = R_i - R_j` (`R` a model's sum of counts), `P` a model's sum of
//! squared counts and `G_ij` the dot product of two models' counts, the
//! unadjusted test `|t| >= T` of a pair on `n` questions is `F = c D^2 - t2
//! (P_i + P_j - 2 G_ij) >= 0` (`c = (n - 1 + T^2) / n`, `t2 = T^2`; `F` is
//! `N^2` times the folded count's quantity). `G` is exact (integers: AVX-512
//! VNNI's byte dot products where the CPU has them), `F` is formed in single
//! precision and decided where it is clear of 0 by more than its rounding
//! can move it (`delta32`, a bound on that rounding, plus the caller's
//! margin); the rest is formed again exactly in integers and one double
//! rounding and decided against the caller's margin `delta`: past it by its
//! sign, within it listed as near (the caller decides those by the exact
//! statistics). The near pairs are therefore those with `|F| <= delta` in
//! double precision, whatever the instruction set, thread count or order:
//! the counts are integers and the near pairs are returned sorted.
//!
//! The caller sorts the models by decreasing sum (so that a row's later
//! columns are the models it may beat) and gives each row's `reach`: the
//! first column from which every later model is beaten by a bound, counted
//! without a product.

use crate::error::{Error, Result};
use crate::par::fold_per_thread;

/// Rows of a band: one job of the pool.
const BAND: usize = 32;
/// Rows of the register tile.
const MR: usize = 4;
/// Columns of a panel (one AVX-512 vector of 32-bit lanes).
const NR: usize = 16;

/// The arguments: `counts` models x `q` (row-major, sorted by decreasing
/// sum), each row's `reach` (`i < reach_i <= models`), the test's `c` and
/// `t2`, the margin `delta` (in `F`'s units).
#[derive(Clone, Copy)]
pub struct Lattice<'a> {
    pub counts: &'a [u8],
    pub q: usize,
    pub reach: &'a [i64],
    pub c: f64,
    pub t2: f64,
    pub delta: f64,
}

/// Per sorted position: `worse` (the later models it is significantly
/// better than), `better` (the earlier models significantly better than
/// it), and the near pairs `(i, j)`, `i < j`, sorted.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Counted {
    pub worse: Vec<u64>,
    pub better: Vec<u64>,
    pub near: Vec<(usize, usize)>,
}

/// Which instructions the count runs on here: `"avx512vnni"` or `"portable"`.
pub fn tier() -> &'static str {
    if vnni() {
        "avx512vnni"
    } else {
        "portable"
    }
}

fn vnni() -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    {
        false
    }
}

impl Lattice<'_> {
    fn models(&self) -> usize {
        self.reach.len()
    }

    fn check(&self) -> Result<()> {
        let l = self.models();
        if self.q == 0 || self.counts.len() != l * self.q {
            return Err(Error::value(
                "lattice_count: counts must be models x q (q >= 1), one reach per model",
            ));
        }
        if self.counts.iter().any(|&x| x > 127) {
            return Err(Error::value("lattice_count: counts must lie in 0..=127"));
        }
        if (127 * 127 * self.q as u64) >= (1 << 31) {
            return Err(Error::value(
                "lattice_count: too many questions for 32-bit dot products",
            ));
        }
        if self
            .reach
            .iter()
            .enumerate()
            .any(|(i, &r)| r <= i as i64 || r > l as i64)
        {
            return Err(Error::value(
                "lattice_count: each reach must lie after its row, at most the models",
            ));
        }
        let finite = |x: f64| x.is_finite() && x >= 0.0;
        if !finite(self.delta) || !finite(self.c) || !finite(self.t2) {
            return Err(Error::value(
                "lattice_count: c, t2 and delta must be nonnegative numbers",
            ));
        }
        Ok(())
    }
}

/// Per-model sums the test reads: `R` (counts), `P` (squared counts), and
/// the single-precision terms of `F = k2 G + u_i R_j + w_i + w_j`.
struct Terms {
    r: Vec<i64>,
    p: Vec<i64>,
    /// `R_j` as f32, padded with zeros to whole panels.
    rf: Vec<f32>,
    /// `c R^2 - t2 P` as f32, padded.
    wf: Vec<f32>,
    /// `-2 c R` as f32.
    uf: Vec<f32>,
    k2: f32,
    /// The single-precision decision's margin (its rounding bound plus `delta`).
    delta32: f32,
}

fn terms(lat: &Lattice<'_>) -> Terms {
    let (l, q) = (lat.models(), lat.q);
    let padded = l.div_ceil(NR) * NR;
    let mut r = vec![0i64; l];
    let mut p = vec![0i64; l];
    for (i, row) in lat.counts.chunks_exact(q).enumerate() {
        r[i] = row.iter().map(|&x| x as i64).sum();
        p[i] = row.iter().map(|&x| (x as i64) * (x as i64)).sum();
    }
    let a: Vec<f64> = (0..l)
        .map(|i| lat.c * (r[i] * r[i]) as f64 - lat.t2 * p[i] as f64)
        .collect();
    let mut rf = vec![0f32; padded];
    let mut wf = vec![0f32; padded];
    for ((x, y), (&ri, &ai)) in rf.iter_mut().zip(wf.iter_mut()).zip(r.iter().zip(&a)) {
        *x = ri as f32;
        *y = ai as f32;
    }
    let uf = r.iter().map(|&x| (-2.0 * lat.c * x as f64) as f32).collect();
    // |F|'s terms are at most 2 t2 max P (Cauchy-Schwarz: G_ij <= max P), 2 c max R^2 and 2 max |a|; each of
    // the at most ten roundings (the terms, the conversion of G, the products and sums) moves F by at most
    // 2^-24 of their total: 32 of those is a bound with room.
    let pmax = p.iter().copied().max().unwrap_or(0) as f64;
    let rmax = r.iter().map(|&x| x.abs()).max().unwrap_or(0) as f64;
    let amax = a.iter().fold(0f64, |m, &x| m.max(x.abs()));
    let size = 2.0 * lat.t2 * pmax + 2.0 * lat.c * rmax * rmax + 2.0 * amax;
    let delta32 = (32.0 * size * f64::from(f32::EPSILON) / 2.0 + 2.0 * lat.delta) * (1.0 + 1e-6);
    Terms {
        r,
        p,
        rf,
        wf,
        uf,
        k2: (2.0 * lat.t2) as f32,
        delta32: delta32 as f32,
    }
}

/// One pool thread's counts (per sorted position) and near pairs.
struct Acc {
    worse: Vec<u64>,
    better: Vec<u32>,
    near: Vec<(usize, usize)>,
}

impl Acc {
    fn new(padded: usize) -> Self {
        Acc {
            worse: vec![0; padded],
            better: vec![0; padded],
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

/// A pair the single-precision test left open, decided from its exact
/// integers: significant (counted), near (listed) or not significant.
#[inline]
fn exact(lat: &Lattice<'_>, t: &Terms, acc: &mut Acc, i: usize, j: usize, g: i64) {
    let d = t.r[i] - t.r[j];
    let e = t.p[i] + t.p[j] - 2 * g;
    let f = lat.c * (d * d) as f64 - lat.t2 * e as f64;
    if f > lat.delta {
        acc.worse[i] += 1;
        acc.better[j] += 1;
    } else if f >= -lat.delta {
        acc.near.push((i, j));
    }
}

/// The counts and near pairs of every pair `i < j < reach_i` (and the
/// columns from `reach_i` on, beaten by the bound).
pub fn lattice_count(lat: Lattice<'_>) -> Result<Counted> {
    lat.check()?;
    let l = lat.models();
    if l == 0 {
        return Ok(Counted::default());
    }
    let t = terms(&lat);
    let padded = l.div_ceil(NR) * NR;
    let fast = vnni();
    // Read only by the VNNI band, which the portable (force-scalar) build leaves out.
    #[cfg_attr(feature = "force-scalar", allow(unused_variables))]
    let packed = if fast { pack(&lat) } else { Packed::default() };
    let bands = l.div_ceil(BAND);
    let pairs_per_band = (BAND * l / 2).max(1);
    let item_ns = pairs_per_band.saturating_mul(lat.q) / 64 + 1;
    let acc = fold_per_thread(
        bands,
        item_ns,
        || Acc::new(padded),
        |acc, band| {
            let r0 = band * BAND;
            let r1 = (r0 + BAND).min(l);
            if fast {
                #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
                // SAFETY: `vnni()` said the CPU has AVX-512 F, BW and VNNI.
                unsafe {
                    band_vnni(&lat, &t, &packed, acc, r0, r1)
                };
            } else {
                band_portable(&lat, &t, acc, r0, r1);
            }
            !crate::cancel::stopping()
        },
        Acc::merge,
    )
    .ok_or(Error::Interrupted)?;
    let Acc {
        mut worse,
        better,
        mut near,
    } = acc;
    // The columns past each row's reach: beaten by it (a difference array over the columns).
    let mut from = vec![0u64; l + 1];
    for (i, &r) in lat.reach.iter().enumerate() {
        worse[i] += (l as i64 - r) as u64;
        from[r as usize] += 1;
    }
    let mut run = 0u64;
    let better = (0..l)
        .map(|j| {
            run += from[j];
            better[j] as u64 + run
        })
        .collect();
    worse.truncate(l);
    near.sort_unstable();
    Ok(Counted { worse, better, near })
}

/// Every pair of rows `r0..r1` before its reach, one at a time (the
/// definition; for CPUs without AVX-512 VNNI).
fn band_portable(lat: &Lattice<'_>, t: &Terms, acc: &mut Acc, r0: usize, r1: usize) {
    let q = lat.q;
    for i in r0..r1 {
        let ci = &lat.counts[i * q..(i + 1) * q];
        for j in i + 1..lat.reach[i] as usize {
            let cj = &lat.counts[j * q..(j + 1) * q];
            let g: i32 = ci.iter().zip(cj).map(|(&x, &y)| x as i32 * y as i32).sum();
            let f = t.k2 * g as f32 + t.wf[i];
            let f = t.uf[i] * t.rf[j] + f;
            let f = f + t.wf[j];
            if f > t.delta32 {
                acc.worse[i] += 1;
                acc.better[j] += 1;
            } else if f >= -t.delta32 {
                exact(lat, t, acc, i, j, g as i64);
            }
        }
    }
}

/// The counts packed for VNNI's byte dot products: each row's counts as
/// 32-bit words of four (`a`: models x `k4`), and the columns in panels of
/// `NR` (`b`: per panel, `k4` vectors of `NR` words).
#[derive(Default)]
#[cfg_attr(feature = "force-scalar", allow(dead_code))]
struct Packed {
    a: Vec<u32>,
    b: Vec<u32>,
    k4: usize,
}

fn pack(lat: &Lattice<'_>) -> Packed {
    let (l, q) = (lat.models(), lat.q);
    let k4 = q.div_ceil(4);
    let panels = l.div_ceil(NR);
    let rows = l.div_ceil(MR) * MR;
    let mut a = vec![0u32; rows * k4];
    let mut b = vec![0u32; panels * k4 * NR];
    for (i, row) in lat.counts.chunks_exact(q).enumerate() {
        for (kk, four) in row.chunks(4).enumerate() {
            let mut w = [0u8; 4];
            w[..four.len()].copy_from_slice(four);
            let word = u32::from_le_bytes(w);
            a[i * k4 + kk] = word;
            let (p, jj) = (i / NR, i % NR);
            b[(p * k4 + kk) * NR + jj] = word;
        }
    }
    Packed { a, b, k4 }
}

/// Rows `r0..r1` against their columns, `MR x NR` pairs at a time: the
/// dot products by VNNI in 32-bit lanes, `F` in single precision.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI.
///
/// The AVX-512 intrinsics are stable since Rust 1.89: the workspace's
/// `rust-version` is 1.89 for them.
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn band_vnni(lat: &Lattice<'_>, t: &Terms, pk: &Packed, acc: &mut Acc, r0: usize, r1: usize) {
    use std::arch::x86_64::*;
    let k4 = pk.k4;
    let k2 = _mm512_set1_ps(t.k2);
    let hi32 = _mm512_set1_ps(t.delta32);
    let lo32 = _mm512_set1_ps(-t.delta32);
    let one = _mm512_set1_epi32(1);
    let mut i0 = r0;
    while i0 < r1 {
        let rows = (r1 - i0).min(MR);
        let reach_max = (0..rows).map(|r| lat.reach[i0 + r] as usize).max().unwrap_or(0);
        let mut p = (i0 + 1) / NR;
        while p * NR < reach_max {
            let j0 = p * NR;
            let mut g = [_mm512_setzero_si512(); MR];
            let bp = pk.b.as_ptr().add(p * k4 * NR);
            for kk in 0..k4 {
                let bv = _mm512_loadu_si512(bp.add(kk * NR) as *const _);
                for (r, gr) in g.iter_mut().enumerate() {
                    // (rows past the last model are zeros: packed that way)
                    let av = _mm512_set1_epi32(pk.a[(i0 + r) * k4 + kk] as i32);
                    *gr = _mm512_dpbusd_epi32(*gr, av, bv);
                }
            }
            let rj = _mm512_loadu_ps(t.rf.as_ptr().add(j0));
            let wj = _mm512_loadu_ps(t.wf.as_ptr().add(j0));
            let mut cols = _mm512_setzero_si512();
            for (r, gr) in g.iter().enumerate().take(rows) {
                let i = i0 + r;
                let (lo, hi) = (i + 1, lat.reach[i] as usize);
                let first = lo.saturating_sub(j0).min(NR);
                let last = hi.saturating_sub(j0).min(NR);
                if first >= last {
                    continue;
                }
                let valid: u16 = ((((1u32 << last) - 1) & !((1u32 << first) - 1)) & 0xffff) as u16;
                let f = _mm512_fmadd_ps(_mm512_cvtepi32_ps(*gr), k2, _mm512_set1_ps(t.wf[i]));
                let f = _mm512_fmadd_ps(_mm512_set1_ps(t.uf[i]), rj, f);
                let f = _mm512_add_ps(f, wj);
                let sure = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(f, hi32) & valid;
                let open = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(f, lo32) & valid & !sure;
                acc.worse[i] += sure.count_ones() as u64;
                cols = _mm512_mask_add_epi32(cols, sure, cols, one);
                if open != 0 {
                    let mut lanes = [0i32; NR];
                    _mm512_storeu_si512(lanes.as_mut_ptr() as *mut _, *gr);
                    let mut bits = open;
                    while bits != 0 {
                        let jj = bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        exact(lat, t, acc, i, j0 + jj, lanes[jj] as i64);
                    }
                }
            }
            let bc = acc.better.as_mut_ptr().add(j0) as *mut __m512i;
            _mm512_storeu_si512(bc as *mut _, _mm512_add_epi32(_mm512_loadu_si512(bc as *const _), cols));
            p += 1;
        }
        i0 += MR;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// The definition, pair by pair, in exact integers and one double rounding.
    fn naive(lat: &Lattice<'_>) -> Counted {
        let (l, q) = (lat.models(), lat.q);
        let mut out = Counted {
            worse: vec![0; l],
            better: vec![0; l],
            near: vec![],
        };
        let row = |i: usize| &lat.counts[i * q..(i + 1) * q];
        for i in 0..l {
            for j in i + 1..l {
                if j >= lat.reach[i] as usize {
                    out.worse[i] += 1;
                    out.better[j] += 1;
                    continue;
                }
                let (a, b) = (row(i), row(j));
                let r: i64 = a.iter().map(|&x| x as i64).sum::<i64>() - b.iter().map(|&x| x as i64).sum::<i64>();
                let e: i64 = a.iter().zip(b).map(|(&x, &y)| (x as i64 - y as i64).pow(2)).sum();
                let f = lat.c * (r * r) as f64 - lat.t2 * e as f64;
                if f > lat.delta {
                    out.worse[i] += 1;
                    out.better[j] += 1;
                } else if f >= -lat.delta {
                    out.near.push((i, j));
                }
            }
        }
        out
    }

    fn board(l: usize, q: usize, n: u8, seed: u64) -> (Vec<u8>, Vec<i64>) {
        let mut rng = Rng(seed | 1);
        let mut rows: Vec<Vec<u8>> = (0..l)
            .map(|i| {
                let p = (i * 7 % 11) as u64;
                (0..q)
                    .map(|_| (0..n).filter(|_| rng.next() % 11 < p).count() as u8)
                    .collect()
            })
            .collect();
        if l > 3 {
            rows[2] = rows[1].clone(); // (identical models: a near pair)
        }
        rows.sort_by_key(|r| std::cmp::Reverse(r.iter().map(|&x| x as u32).sum::<u32>()));
        let reach = (0..l)
            .map(|i| (i + 1 + (rng.next() as usize % (l + 1))).min(l) as i64)
            .collect();
        (rows.concat(), reach)
    }

    #[test]
    fn every_tier_counts_as_the_definition() {
        for (l, q, n, seed) in [
            (1, 3, 4, 1),
            (5, 1, 4, 2),
            (37, 20, 4, 3),
            (70, 9, 1, 4),
            (133, 50, 8, 5),
            (64, 7, 127, 6),
        ] {
            let (counts, reach) = board(l, q, n, seed);
            let nn = q as f64;
            let t2 = 1.959_963_984_540_054_f64.powi(2);
            for delta in [0.0, 1e-9, 0.5] {
                let lat = Lattice {
                    counts: &counts,
                    q,
                    reach: &reach,
                    c: (nn - 1.0 + t2) / nn,
                    t2,
                    delta,
                };
                let want = naive(&lat);
                assert_eq!(lattice_count(lat).unwrap(), want, "{l} x {q} / {n}, delta {delta}");
                // The portable band, whatever this CPU has.
                let t = terms(&lat);
                let mut acc = Acc::new(l.div_ceil(NR) * NR);
                band_portable(&lat, &t, &mut acc, 0, l);
                let inside: Vec<u64> = (0..l).map(|i| acc.worse[i] + (l as i64 - reach[i]) as u64).collect();
                assert_eq!(inside, want.worse);
                acc.near.sort_unstable();
                assert_eq!(acc.near, want.near);
            }
        }
    }

    #[test]
    fn bad_arguments_are_errors() {
        let counts = [1u8, 2, 3, 4];
        let ok = Lattice {
            counts: &counts,
            q: 2,
            reach: &[2, 2],
            c: 1.0,
            t2: 4.0,
            delta: 0.0,
        };
        assert!(lattice_count(ok).is_ok());
        assert!(lattice_count(Lattice { reach: &[0, 2], ..ok }).is_err());
        assert!(lattice_count(Lattice { reach: &[1, 3], ..ok }).is_err());
        assert!(lattice_count(Lattice { q: 3, ..ok }).is_err());
        assert!(lattice_count(Lattice { delta: f64::NAN, ..ok }).is_err());
        assert!(lattice_count(Lattice {
            counts: &[1, 2, 3, 200],
            ..ok
        })
        .is_err());
    }
}
