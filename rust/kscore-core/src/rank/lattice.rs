//! The rank ranges' paired tests on a lattice board: every model's
//! per-question estimate a count over the same number of samples (`x =
//! c / N`, `0 <= c <= 127`), so that every pair's test is decided from
//! integers (docs/leaderboard.md, *Rank ranges*;
//! python/kscore/leaderboard/stats/folded.py has the statistics).
//!
//! With `D = R_i - R_j` (`R` a model's sum of counts), `P` a model's sum of
//! squared counts, `G_ij` the dot product of two models' counts and `e =
//! P_i + P_j - 2 G_ij` (the sum of the squared count differences), the
//! unadjusted test `|t| >= T` of a pair on `n` questions is `F = c D^2 - t2
//! e >= 0` (`c = (n - 1 + T^2) / n`, `t2 = T^2`; `F` is `N^2` times the
//! folded count's quantity). The definition forms `F` in double precision
//! from the integers `D^2` and `e` and decides it against the caller's
//! margin `delta`: significant where `F > delta`, near (listed: the caller
//! decides those by the exact statistics) where `-delta <= F <= delta`.
//! For a given `|D|` that double is a non-increasing function of the
//! integer `e` (each rounding is monotone), so each decision is `e <=` a
//! threshold: `E1(|D|)` (significant) and `E2(|D|)` (near or significant),
//! found once per `|D|` by bisection on that same double expression. Every
//! pair is then decided by two integer comparisons: `2 G_ij - P_j >= P_i -
//! E1` (the dot products by AVX-512 VNNI's byte products where the CPU has
//! them, the row's counts doubled and `-P_j` the accumulator's start), the
//! same decisions as the definition whatever the instruction set, thread
//! count or order (the counts are integers and the near pairs are returned
//! sorted).
//!
//! The caller sorts the models by decreasing sum (so that a row's later
//! columns are the models it may beat, and the models of one sum are
//! contiguous: a panel of columns of one sum has one threshold per row) and
//! gives each row's `reach`: the first column from which every later model
//! is beaten by a bound, counted without a product. The columns just after
//! a row need no product either: a pair whose sums differ by `|D| = a q + b`
//! has `e >= e_min(|D|) = (q - b) a^2 + b (a + 1)^2` (the difference spread
//! evenly over the questions), so where `E2(|D|) < e_min(|D|)` for every
//! `|D|` from 1 to `d1` (a few: 3 on 20 questions of 4 samples at 95%) the
//! columns whose sum is within `d1` of the row's are neither significant nor
//! near, but the models identical to the row (`D = 0`, `e = 0`: near where
//! `E2(0) = 0`, found by sorting each sum's rows). On 100 000 models of 20
//! questions that is a third of the pairs (those of close sums), the ones
//! most models have.

use crate::error::{Error, Result};
use crate::par::fold_per_thread;

/// Rows of a band on average: one job of the pool (bands of equal work: [`bands`]).
const BAND: usize = 64;
/// Rows of the register tile: eight accumulators of VNNI products in flight
/// (four left the dot products waiting on each other's latency: 18-22% more CPU
/// on 100 000 models of 20 questions).
const MR: usize = 8;
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

/// The largest count `q` may have for questions of counts up to `top`:
/// `2 G - P` and the thresholds must fit 32-bit lanes (`2 top^2 q < 2^31`).
pub fn fits(q: usize, top: u8) -> bool {
    2 * (top as u64) * (top as u64) * (q as u64) < (1 << 31)
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
        let top = self.counts.iter().copied().max().unwrap_or(0);
        if top > 127 {
            return Err(Error::value("lattice_count: counts must lie in 0..=127"));
        }
        if !fits(self.q, top) {
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

    /// The definition's `F` of a pair, in double precision.
    #[inline]
    fn f(&self, d: i64, e: i64) -> f64 {
        self.c * (d * d) as f64 - self.t2 * e as f64
    }
}

/// Per-model sums and the per-`|D|` thresholds of the decisions.
struct Terms {
    /// `R` (count sums) and `P` (sums of squared counts).
    r: Vec<i32>,
    p: Vec<i32>,
    /// Per `|D|` (`0..=max R - min R`): the largest `e` decided significant
    /// (`F > delta`) and near or significant (`F >= -delta`); -1: none.
    e1: Vec<i32>,
    e2: Vec<i32>,
    /// Per row, the first column tested (`i < begin_i <= reach_i`): those
    /// before it are decided without a product ([`starts`]).
    begin: Vec<usize>,
    /// The near pairs among the columns before `begin` (identical models), sorted.
    same: Vec<(usize, usize)>,
}

/// The largest `e` in `0..=top` with `ok(e)`, -1 if none (`ok` holds on a
/// prefix: `F` does not increase with `e`).
fn largest(top: i64, ok: impl Fn(i64) -> bool) -> i32 {
    if !ok(0) {
        return -1;
    }
    let (mut lo, mut hi) = (0i64, top + 1); // ok(lo), and hi past the last ok (or the end)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo as i32
}

fn terms(lat: &Lattice<'_>) -> Terms {
    let q = lat.q;
    let mut r = Vec::with_capacity(lat.models());
    let mut p = Vec::with_capacity(lat.models());
    for row in lat.counts.chunks_exact(q) {
        r.push(row.iter().map(|&x| x as i32).sum());
        p.push(row.iter().map(|&x| (x as i32) * (x as i32)).sum());
    }
    let rmax = r.iter().copied().max().unwrap_or(0);
    let rmin = r.iter().copied().min().unwrap_or(0);
    // (every pair's e is at most P_i + P_j: the counts are nonnegative)
    let top = 2 * p.iter().copied().max().unwrap_or(0) as i64;
    let (e1, e2) = (0..=(rmax - rmin) as i64)
        .map(|d| {
            (
                largest(top, |e| lat.f(d, e) > lat.delta),
                largest(top, |e| lat.f(d, e) >= -lat.delta),
            )
        })
        .unzip();
    let mut t = Terms {
        r,
        p,
        e1,
        e2,
        begin: Vec::new(),
        same: Vec::new(),
    };
    (t.begin, t.same) = starts(lat, &t);
    t
}

/// The smallest `e` of a pair whose count sums differ by `d` on `q`
/// questions: the difference spread evenly (`d = a q + b`: `b` questions
/// differ by `a + 1`, the others by `a`; at most `d^2`, within `i64`).
fn e_min(d: i64, q: usize) -> i64 {
    let q = q as i64;
    let (a, b) = (d / q, d % q);
    (q - b) * a * a + b * (a + 1) * (a + 1)
}

/// Each row's first tested column and the near pairs before it (module
/// docs): the columns `j` after row `i` with `R_i - R_j <= d1` are skipped,
/// `d1` the last of the run of `|D| >= 1` where `E2(|D|) < e_min(|D|)`
/// (none of their pairs is significant or near), the pairs of identical
/// rows among them listed as near (`E2(0) = 0`: near exactly where `e =
/// 0`). Where the rows are not sorted by decreasing sum, or `E2(0) > 0` (a
/// margin wider than a count), every column after the row is tested.
fn starts(lat: &Lattice<'_>, t: &Terms) -> (Vec<usize>, Vec<(usize, usize)>) {
    let (l, q) = (lat.models(), lat.q);
    let reach = |i: usize| lat.reach[i] as usize;
    let sorted = t.r.windows(2).all(|w| w[0] >= w[1]);
    if !sorted || t.e1[0] >= 0 || t.e2[0] != 0 {
        return ((0..l).map(|i| i + 1).collect(), Vec::new());
    }
    let d1 = (1..t.e2.len())
        .take_while(|&d| (t.e2[d] as i64) < e_min(d as i64, q))
        .count() as i32;
    let mut begin = Vec::with_capacity(l);
    let mut k = 0usize;
    for i in 0..l {
        k = k.max(i + 1);
        while k < l && t.r[i] - t.r[k] <= d1 {
            k += 1;
        }
        begin.push(k.min(reach(i)));
    }
    // Identical rows: within each run of one sum, sorted by their counts.
    let row = |i: usize| &lat.counts[i * q..(i + 1) * q];
    let mut same = Vec::new();
    let mut a = 0usize;
    while a < l {
        let mut b = a + 1;
        while b < l && t.r[b] == t.r[a] {
            b += 1;
        }
        if b - a > 1 {
            let mut idx: Vec<usize> = (a..b).collect();
            idx.sort_unstable_by(|&x, &y| row(x).cmp(row(y)).then(x.cmp(&y)));
            for class in idx.chunk_by(|&x, &y| row(x) == row(y)) {
                for (u, &x) in class.iter().enumerate() {
                    // (ascending within a class: x < y; a pair past the row's skipped columns is not near here)
                    same.extend(class[u + 1..].iter().filter(|&&y| y < begin[x]).map(|&y| (x, y)));
                }
            }
        }
        a = b;
    }
    same.sort_unstable();
    (begin, same)
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
    let packed = if fast { pack(&lat, &t) } else { Packed::default() };
    let cuts = bands(&lat, &t);
    let work: usize = cuts.windows(2).map(|w| band_work(&lat, &t, w[0], w[1])).sum();
    let item_ns = (work / (cuts.len() - 1).max(1)).saturating_mul(lat.q) / 128 + 1;
    let acc = fold_per_thread(
        cuts.len() - 1,
        item_ns,
        || Acc::new(padded),
        |acc, band| {
            let (r0, r1) = (cuts[band], cuts[band + 1]);
            if fast {
                #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
                // SAFETY: `vnni()` said the CPU has AVX-512 F, BW and VNNI.
                unsafe {
                    band_vnni_k(&lat, &t, &packed, acc, r0, r1)
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
    near.extend_from_slice(&t.same);
    near.sort_unstable();
    Ok(Counted { worse, better, near })
}

/// A row's work in pairs tested (its columns from `begin` to `reach`), plus
/// a panel's worth for the row's own overhead.
fn row_work(lat: &Lattice<'_>, t: &Terms, i: usize) -> usize {
    (lat.reach[i] as usize).saturating_sub(t.begin[i]) + NR
}

fn band_work(lat: &Lattice<'_>, t: &Terms, r0: usize, r1: usize) -> usize {
    (r0..r1).map(|i| row_work(lat, t, i)).sum()
}

/// The bands' row boundaries (`0 = cuts[0] < ... < cuts[last] = models`):
/// as many bands as there are `BAND`s of rows, each about the same work
/// (pairs tested), a whole number of `MR`-row tiles but the last. The
/// upper triangle's first rows have many more columns than its last: bands
/// of equal row counts would give the thread that takes the first a piece
/// several times the mean (on 100 000 models the first sixteenth of the
/// rows holds an eighth of the pairs), bands of equal work keep every
/// piece the pool hands out alike. The cuts depend on the board alone
/// (never on the thread count), and the counts on neither.
fn bands(lat: &Lattice<'_>, t: &Terms) -> Vec<usize> {
    let l = lat.models();
    let total: usize = band_work(lat, t, 0, l);
    let target = total.div_ceil(l.div_ceil(BAND)).max(1);
    let mut cuts = vec![0usize];
    let mut acc = 0usize;
    let mut i = 0usize;
    while i < l {
        let end = (i + MR).min(l);
        acc += band_work(lat, t, i, end);
        i = end;
        if acc >= target && i < l {
            cuts.push(i);
            acc = 0;
        }
    }
    cuts.push(l);
    cuts
}

/// Every pair of rows `r0..r1` from its first tested column to its reach, one at a time (the
/// integer decisions; for CPUs without AVX-512 VNNI).
fn band_portable(lat: &Lattice<'_>, t: &Terms, acc: &mut Acc, r0: usize, r1: usize) {
    let q = lat.q;
    for i in r0..r1 {
        let ci = &lat.counts[i * q..(i + 1) * q];
        for j in t.begin[i]..lat.reach[i] as usize {
            let cj = &lat.counts[j * q..(j + 1) * q];
            let g: i32 = ci.iter().zip(cj).map(|(&x, &y)| x as i32 * y as i32).sum();
            let e = t.p[i] + t.p[j] - 2 * g;
            let d = t.r[i].abs_diff(t.r[j]) as usize;
            if e <= t.e1[d] {
                acc.worse[i] += 1;
                acc.better[j] += 1;
            } else if e <= t.e2[d] {
                acc.near.push((i, j));
            }
        }
    }
}

/// The counts packed for VNNI's byte dot products: each row's counts as
/// 32-bit words of four (`a`: models x `k4`, rows padded to a whole band),
/// the columns' counts doubled in panels of `NR` (`b`: per panel, `k4`
/// vectors of `NR` words), and per column slot `-P_j` (the accumulators' start)
/// and `R_j`; per panel the one sum of its columns, or -1 where they differ.
#[derive(Default)]
#[cfg_attr(feature = "force-scalar", allow(dead_code))]
struct Packed {
    a: Vec<u32>,
    b: Vec<u32>,
    pneg: Vec<i32>,
    rj: Vec<i32>,
    panel_r: Vec<i32>,
    k4: usize,
}

#[cfg_attr(feature = "force-scalar", allow(dead_code))]
fn pack(lat: &Lattice<'_>, t: &Terms) -> Packed {
    let (l, q) = (lat.models(), lat.q);
    let k4 = q.div_ceil(4);
    let panels = l.div_ceil(NR);
    let rows = l.div_ceil(BAND) * BAND;
    let mut a = vec![0u32; rows * k4];
    let mut b = vec![0u32; panels * k4 * NR];
    for (i, row) in lat.counts.chunks_exact(q).enumerate() {
        for (kk, four) in row.chunks(4).enumerate() {
            let mut w = [0u8; 4];
            w[..four.len()].copy_from_slice(four);
            let (p, jj) = (i / NR, i % NR);
            // (the columns doubled, at most 254: VNNI's unsigned operand; the rows its signed one, broadcast)
            b[(p * k4 + kk) * NR + jj] = u32::from_le_bytes(w.map(|x| 2 * x));
            a[i * k4 + kk] = u32::from_le_bytes(w);
        }
    }
    let mut pneg: Vec<i32> = t.p.iter().map(|&x| -x).collect();
    pneg.resize(panels * NR, 0);
    // (lanes past the last model read a real sum: their |D| stays within the tables; they are never counted)
    let mut rj = t.r.clone();
    rj.resize(panels * NR, t.r[0]);
    let panel_r =
        t.r.chunks(NR)
            .map(|c| if c.iter().all(|&x| x == c[0]) { c[0] } else { -1 })
            .collect();
    Packed {
        a,
        b,
        pneg,
        rj,
        panel_r,
        k4,
    }
}

/// The lanes `lo..hi` of the panel that starts at column `j0`.
#[inline]
#[cfg_attr(feature = "force-scalar", allow(dead_code))]
fn lanes(lo: usize, hi: usize, j0: usize) -> u16 {
    let first = lo.saturating_sub(j0).min(NR);
    let last = hi.saturating_sub(j0).min(NR);
    if first >= last {
        return 0;
    }
    ((((1u32 << last) - 1) & !((1u32 << first) - 1)) & 0xffff) as u16
}

/// Lists the pairs of row `i` and the lanes `bits` of the panel at `j0`.
#[inline]
#[cfg_attr(feature = "force-scalar", allow(dead_code))]
fn near(acc: &mut Acc, i: usize, j0: usize, mut bits: u16) {
    while bits != 0 {
        acc.near.push((i, j0 + bits.trailing_zeros() as usize));
        bits &= bits - 1;
    }
}

/// Rows `r0..r1` against their columns: a block of panels at a time (kept
/// in the first-level cache) for every tile of `MR` rows of the band, each
/// `MR x NR` pairs' `2 G - P_j` by VNNI in 32-bit lanes, compared with the
/// rows' thresholds.
///
/// # Safety
/// The CPU must have AVX-512 F, BW and VNNI.
///
/// The AVX-512 intrinsics are stable since Rust 1.89: the workspace's
/// `rust-version` is 1.89 for them.
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn band_vnni_k(lat: &Lattice<'_>, t: &Terms, pk: &Packed, acc: &mut Acc, r0: usize, r1: usize) {
    // (up to 32 questions the words of a row are a constant: the products unrolled, kept in registers)
    match pk.k4 {
        1 => band_vnni::<1>(lat, t, pk, acc, r0, r1),
        2 => band_vnni::<2>(lat, t, pk, acc, r0, r1),
        3 => band_vnni::<3>(lat, t, pk, acc, r0, r1),
        4 => band_vnni::<4>(lat, t, pk, acc, r0, r1),
        5 => band_vnni::<5>(lat, t, pk, acc, r0, r1),
        6 => band_vnni::<6>(lat, t, pk, acc, r0, r1),
        7 => band_vnni::<7>(lat, t, pk, acc, r0, r1),
        8 => band_vnni::<8>(lat, t, pk, acc, r0, r1),
        _ => band_vnni::<0>(lat, t, pk, acc, r0, r1),
    }
}

/// [`band_vnni_k`]'s band with `K` words of four counts per row (`0`: `pk.k4`, any).
///
/// # Safety
/// As [`band_vnni_k`].
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
unsafe fn band_vnni<const K: usize>(lat: &Lattice<'_>, t: &Terms, pk: &Packed, acc: &mut Acc, r0: usize, r1: usize) {
    use std::arch::x86_64::*;
    let k4 = if K == 0 { pk.k4 } else { K };
    let reach = |i: usize| lat.reach[i] as usize;
    let begin = |i: usize| t.begin[i];
    let first_panel = (r0..r1).map(begin).min().unwrap_or(r0 + 1) / NR;
    let end_panel = (r0..r1).map(reach).max().unwrap_or(0).div_ceil(NR);
    // Panels of a block: some 16 KB of counts.
    let block = (16384 / (k4 * NR * 4)).clamp(4, 64);
    let minus1 = _mm512_set1_epi32(-1);
    let (e1, e2) = (t.e1.as_ptr(), t.e2.as_ptr());
    let mut c0 = first_panel;
    while c0 < end_panel {
        let c1 = (c0 + block).min(end_panel);
        let mut i0 = r0;
        while i0 < r1 {
            let rows = (r1 - i0).min(MR);
            let reach_hi = (i0..i0 + rows).map(reach).max().unwrap_or(0);
            let reach_lo = (i0..i0 + rows).map(reach).min().unwrap_or(0);
            let begin_lo = (i0..i0 + rows).map(begin).min().unwrap_or(0);
            let begin_hi = (i0..i0 + rows).map(begin).max().unwrap_or(0);
            let p0 = c0.max(begin_lo / NR);
            let p1 = c1.min(reach_hi.div_ceil(NR));
            let mut sums = [_mm512_setzero_si512(); MR];
            // Each row's thresholds (per lane where a panel's columns have several sums).
            let mut th1 = [0i32; MR];
            let mut th2 = [0i32; MR];
            let mut lane1 = [_mm512_setzero_si512(); MR];
            let mut lane2 = [_mm512_setzero_si512(); MR];
            let mut last_r = i32::MIN;
            // Whether a row's two thresholds differ (a near pair possible: rare, as F = 0 is).
            let mut split = true;
            let ap = pk.a.as_ptr().add(i0 * k4);
            for p in p0..p1 {
                let j0 = p * NR;
                let start = _mm512_loadu_si512(pk.pneg.as_ptr().add(j0) as *const _);
                let mut g = [start; MR];
                let bp = pk.b.as_ptr().add(p * k4 * NR);
                for kk in 0..k4 {
                    let bv = _mm512_loadu_si512(bp.add(kk * NR) as *const _);
                    for (r, gr) in g.iter_mut().enumerate() {
                        // (rows past the last model are zeros: packed that way)
                        let av = _mm512_set1_epi32(*ap.add(r * k4 + kk) as i32);
                        *gr = _mm512_dpbusd_epi32(*gr, bv, av);
                    }
                }
                let pr = *pk.panel_r.get_unchecked(p);
                let uniform = pr >= 0;
                if uniform && pr != last_r {
                    split = false;
                    for r in 0..rows {
                        let i = i0 + r;
                        let d = t.r[i].abs_diff(pr) as usize;
                        th1[r] = t.p[i] - t.e1[d];
                        th2[r] = t.p[i] - t.e2[d];
                        split |= th1[r] != th2[r];
                    }
                    last_r = pr;
                } else if !uniform {
                    // (columns of several sums: each lane's thresholds from the tables)
                    let rv = _mm512_loadu_si512(pk.rj.as_ptr().add(j0) as *const _);
                    for r in 0..rows {
                        let i = i0 + r;
                        let d = _mm512_abs_epi32(_mm512_sub_epi32(_mm512_set1_epi32(t.r[i]), rv));
                        let pi = _mm512_set1_epi32(t.p[i]);
                        lane1[r] = _mm512_sub_epi32(pi, _mm512_i32gather_epi32::<4>(d, e1));
                        lane2[r] = _mm512_sub_epi32(pi, _mm512_i32gather_epi32::<4>(d, e2));
                    }
                    last_r = i32::MIN;
                }
                let mut cols = _mm512_setzero_si512();
                if uniform && rows == MR && j0 >= begin_hi && j0 + NR <= reach_lo {
                    // Every lane of every row is a pair to count: no masks (the common case).
                    let mut odd: u16 = 0;
                    for r in 0..MR {
                        let sure = _mm512_cmpge_epi32_mask(g[r], _mm512_set1_epi32(th1[r]));
                        sums[r] = _mm512_mask_sub_epi32(sums[r], sure, sums[r], minus1);
                        cols = _mm512_mask_sub_epi32(cols, sure, cols, minus1);
                        if split {
                            // (sure lanes are open too: E1 <= E2)
                            odd |= _mm512_cmpge_epi32_mask(g[r], _mm512_set1_epi32(th2[r])) ^ sure;
                        }
                    }
                    if odd != 0 {
                        for (r, gr) in g.iter().enumerate() {
                            let sure = _mm512_cmpge_epi32_mask(*gr, _mm512_set1_epi32(th1[r]));
                            let open = _mm512_cmpge_epi32_mask(*gr, _mm512_set1_epi32(th2[r]));
                            near(acc, i0 + r, j0, open & !sure);
                        }
                    }
                } else {
                    for r in 0..rows {
                        let i = i0 + r;
                        let valid = lanes(begin(i), reach(i), j0);
                        if valid == 0 {
                            continue;
                        }
                        let (h1, h2) = if uniform {
                            (_mm512_set1_epi32(th1[r]), _mm512_set1_epi32(th2[r]))
                        } else {
                            (lane1[r], lane2[r])
                        };
                        let sure = _mm512_mask_cmpge_epi32_mask(valid, g[r], h1);
                        let open = _mm512_mask_cmpge_epi32_mask(valid, g[r], h2);
                        sums[r] = _mm512_mask_sub_epi32(sums[r], sure, sums[r], minus1);
                        cols = _mm512_mask_sub_epi32(cols, sure, cols, minus1);
                        near(acc, i, j0, open & !sure);
                    }
                }
                let bc = acc.better.as_mut_ptr().add(j0) as *mut __m512i;
                _mm512_storeu_si512(bc as *mut _, _mm512_add_epi32(_mm512_loadu_si512(bc as *const _), cols));
            }
            for (r, s) in sums.iter().enumerate().take(rows) {
                acc.worse[i0 + r] += _mm512_reduce_add_epi32(*s) as u64;
            }
            i0 += MR;
        }
        c0 = c1;
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
                acc.near.extend_from_slice(&t.same);
                acc.near.sort_unstable();
                assert_eq!(acc.near, want.near);
            }
        }
    }

    /// `l` models of `q` random counts in `0..=n` (a few repeated), sorted by
    /// decreasing sum or not; each row's reach the end, or a random one for
    /// every fifth row.
    fn wide(l: usize, q: usize, n: u8, seed: u64, sorted: bool) -> (Vec<u8>, Vec<i64>) {
        let mut rng = Rng(seed | 1);
        let mut rows: Vec<Vec<u8>> = (0..l)
            .map(|_| (0..q).map(|_| (rng.next() % (n as u64 + 1)) as u8).collect())
            .collect();
        for i in (3..l).step_by(7) {
            rows[i] = rows[i - 3].clone(); // (identical models: D = 0, e = 0)
        }
        if sorted {
            rows.sort_by_key(|r| std::cmp::Reverse(r.iter().map(|&x| x as u32).sum::<u32>()));
        }
        let reach = (0..l)
            .map(|i| match i % 5 {
                0 => (i + 1 + (rng.next() as usize % (l - i))) as i64,
                _ => l as i64,
            })
            .collect();
        (rows.concat(), reach)
    }

    /// Boards where many pairs sit on the decisions' edges: `F` exactly 0 or
    /// exactly `delta` (`c` and `t2` integers), `c` a rounded fraction
    /// (`F`'s double lands on either side of 0 by rounding alone), models of
    /// one sum in panels of their own (the thresholds per row) and mixed
    /// (per lane), unsorted rows, identical models: the same counts and near
    /// pairs as the definition, at every thread count.
    #[test]
    fn decisions_at_their_edges_and_every_thread_count() {
        let pools: Vec<rayon::ThreadPool> = [1, 2, 3]
            .iter()
            .map(|&k| rayon::ThreadPoolBuilder::new().num_threads(k).build().unwrap())
            .collect();
        for (l, q, n, sorted, seed) in [
            (300, 3, 2, true, 11),
            (517, 5, 1, true, 12),
            (260, 4, 3, false, 13),
            (200, 21, 4, true, 14),
            (90, 2, 127, true, 15),
        ] {
            let (counts, reach) = wide(l, q, n, seed, sorted);
            let nn = q as f64;
            // (c, t2): integers (F an integer: exactly 0 or exactly delta for many pairs), then the test's own form
            // with t2 = 4 (c = (q + 3) / q, rounded: F = c D^2 - 4 e at 0 up to a rounding)
            for (c, t2) in [
                (1.0, 4.0),
                (3.0, 1.0),
                ((nn + 3.0) / nn, 4.0),
                ((nn - 1.0 + 3.84) / nn, 3.84),
            ] {
                for delta in [0.0, 1.0, 2.0, 1e-12] {
                    let lat = Lattice {
                        counts: &counts,
                        q,
                        reach: &reach,
                        c,
                        t2,
                        delta,
                    };
                    let want = naive(&lat);
                    for pool in &pools {
                        let got = pool.install(|| lattice_count(lat)).unwrap();
                        assert_eq!(got, want, "{l} x {q} / {n}, c {c}, t2 {t2}, delta {delta}");
                    }
                }
            }
        }
    }

    /// The skipped columns are taken (not every row tests all its columns)
    /// and the identical rows among them listed, on a board of close sums.
    #[test]
    fn close_sums_are_skipped_and_identical_rows_listed() {
        let (counts, _) = wide(400, 20, 4, 21, true);
        let reach = vec![400i64; 400];
        let nn = 20.0;
        let t2 = 1.959_963_984_540_054_f64.powi(2);
        let lat = Lattice {
            counts: &counts,
            q: 20,
            reach: &reach,
            c: (nn - 1.0 + t2) / nn,
            t2,
            delta: 1e-9,
        };
        let t = terms(&lat);
        assert_eq!(e_min(3, 20), 3);
        assert_eq!(e_min(45, 20), 15 * 4 + 5 * 9);
        let skipped: usize = t.begin.iter().enumerate().map(|(i, &b)| b - (i + 1)).sum();
        assert!(skipped > 400 * 399 / 2 / 20, "{skipped}");
        assert!(!t.same.is_empty());
        assert_eq!(lattice_count(lat).unwrap(), naive(&lat));
    }

    /// The bands cover every row once, in whole tiles but the last, and are
    /// balanced by work: on a board whose first rows test every later
    /// column, no band holds more than the mean and a row's tile over it,
    /// and the first bands hold fewer rows than the last.
    #[test]
    fn bands_are_tiles_of_about_equal_work() {
        for (l, q) in [(1usize, 3usize), (5, 2), (64, 4), (1000, 20), (4099, 7)] {
            let (counts, _) = wide(l, q, 4, 31, true);
            let reach = vec![l as i64; l];
            let t2 = 1.959_963_984_540_054_f64.powi(2);
            let nn = q as f64;
            let lat = Lattice {
                counts: &counts,
                q,
                reach: &reach,
                c: (nn - 1.0 + t2) / nn,
                t2,
                delta: 1e-9,
            };
            let t = terms(&lat);
            let cuts = bands(&lat, &t);
            assert_eq!((cuts[0], *cuts.last().unwrap()), (0, l));
            assert!(cuts.windows(2).all(|w| w[0] < w[1]));
            assert!(cuts[..cuts.len() - 1].iter().all(|&c| c % MR == 0));
            assert!(cuts.len() - 1 <= l.div_ceil(BAND) + 1);
            let total = band_work(&lat, &t, 0, l);
            let mean = total.div_ceil(l.div_ceil(BAND));
            let tile = (0..l).map(|i| row_work(&lat, &t, i)).max().unwrap() * MR;
            for w in cuts.windows(2) {
                assert!(band_work(&lat, &t, w[0], w[1]) <= mean + tile, "{l} x {q}: {w:?}");
            }
            if l >= 1000 {
                let rows: Vec<usize> = cuts.windows(2).map(|w| w[1] - w[0]).collect();
                assert!(rows[0] < rows[rows.len() - 2], "{rows:?}");
            }
            assert_eq!(lattice_count(lat).unwrap(), naive(&lat));
        }
    }

    #[test]
    fn too_many_questions_for_32_bits_are_an_error() {
        assert!(fits(66_572, 127) && !fits(66_573, 127) && fits(1 << 25, 4) && !fits(1 << 26, 4));
        let q = 66_573;
        let counts = vec![127u8; 2 * q];
        let lat = Lattice {
            counts: &counts,
            q,
            reach: &[2, 2],
            c: 1.0,
            t2: 4.0,
            delta: 0.0,
        };
        assert!(lattice_count(lat).is_err());
        assert!(lattice_count(Lattice {
            counts: &counts[..2 * (q - 1)],
            q: q - 1,
            ..lat
        })
        .is_ok());
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
