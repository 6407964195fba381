//! Per-draw binomial profiles of TailPass's posterior draws (docs/kernels.md,
//! K16). On draw d each question has success probability `theta[d, q]`; the
//! draw's profile is `sum_q P(Bin(k, theta[d, q]) >= c_t)`. Masses are
//! summed over the questions first, then suffix-summed once per draw, so a
//! question costs O(k) whatever the number of thresholds.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par;

/// Largest k on the lane path: binomial coefficients are exact integers
/// (Pascal's triangle in u128 holds C(128, 64)) rounded once, and
/// `C(k, j) r^j` stays finite while `r^k <= 2^800`.
const DIRECT_MAX: usize = 128;
/// The lane path keeps every power `r^j`, `j <= k`, within 2^-800..2^800.
const POWER_RANGE_LOG2: f64 = 800.0;
/// Draws processed side by side on the lane path.
const LANES: usize = 4;
/// Mass values accumulated by one task (draws per task times k + 1).
const TASK_VALUES: usize = 8192;

type Lanes = [f64; LANES];

/// `Bin(k, theta)` masses for the per-draw profiles.
///
/// Lane path (k <= 128, four draws side by side): with `q = 1 - theta` and
/// the odds `r = theta / q`, the mass over its coefficient is `theta^j
/// q^(k - j) = q^k r^j`. `q^k` comes by squaring; the powers in blocks of 8
/// (`r^(j + 8) = r^j r^8`), so the dependency chain is k / 8 multiplications
/// long; each costs one multiplication and one addition into the draw's
/// accumulator, every loop runs across the four draws, so it vectorises
/// (compiled for SSE2 and for AVX2, chosen at run time: the same operations
/// in the same order, so the same bits). The coefficients `C(k, j)` (exact
/// integers from Pascal's triangle in u128, rounded once) multiply the
/// draw's sums once, after all questions. Used while `r^k` lies within
/// 2^-800..2^800, so every term is a normal double; each mass is then good
/// to about `(k/2 + 9j/8 + 2 log2 k + 10) eps` relative (the rounding of
/// `1 - theta` raised to k, the power blocks, the coefficient). Otherwise
/// (k > 128, or theta within about `2^(-800 / k)` of 0 or 1) the masses are
/// walked from the mode over their non-underflowed span (K3), normalised by
/// their sum, one draw at a time (divided by `C(k, j)` when the lane path's
/// accumulator holds the draw).
pub struct BinomialMasses {
    k: usize,
    coeff: Vec<f64>,
    inv_coeff: Vec<f64>,
    r_min: f64,
    r_max: f64,
    fwd: Vec<f64>,
    bwd: Vec<f64>,
}

impl BinomialMasses {
    pub fn new(k: u64) -> Self {
        let k = k as usize;
        let kf = k as f64;
        let fwd = (0..k).map(|i| (kf - i as f64) / (i as f64 + 1.0)).collect();
        let bwd = (0..k).map(|i| (i as f64 + 1.0) / (kf - i as f64)).collect();
        let (coeff, r_min, r_max) = if (1..=DIRECT_MAX).contains(&k) {
            let mut row = vec![0u128; k + 1];
            row[0] = 1;
            for n in 1..=k {
                for j in (1..=n).rev() {
                    row[j] += row[j - 1];
                }
            }
            let coeff: Vec<f64> = row.iter().map(|&c| c as f64).collect();
            (coeff, (-POWER_RANGE_LOG2 / kf).exp2(), (POWER_RANGE_LOG2 / kf).exp2())
        } else {
            (Vec::new(), f64::INFINITY, 0.0)
        };
        let inv_coeff = coeff.iter().map(|&c| 1.0 / c).collect();
        BinomialMasses {
            k,
            coeff,
            inv_coeff,
            r_min,
            r_max,
            fwd,
            bwd,
        }
    }

    /// Normalised masses of `Bin(k, theta)` walked from the mode: `buf[i]`
    /// is the mass at `first + i`; returns `first`. Errors when theta is not
    /// in [0, 1].
    pub fn walk(&self, theta: f64, buf: &mut Vec<f64>) -> Result<usize> {
        if !(0.0..=1.0).contains(&theta) {
            return Err(Error::value("theta must lie in [0, 1]"));
        }
        let k = self.k;
        buf.clear();
        if theta == 0.0 || theta == 1.0 || k == 0 {
            buf.push(1.0);
            return Ok(if theta == 1.0 { k } else { 0 });
        }
        let (odds, inv_odds) = (theta / (1.0 - theta), (1.0 - theta) / theta);
        let mode = ((((k + 1) as f64) * theta).floor() as usize).min(k);
        let mut w = 1.0;
        for i in (0..mode).rev() {
            w *= self.bwd[i] * inv_odds;
            if w < f64::MIN_POSITIVE {
                break;
            }
            buf.push(w);
        }
        let first = mode - buf.len();
        buf.reverse();
        buf.push(1.0);
        w = 1.0;
        for i in mode..k {
            w *= self.fwd[i] * odds;
            if w < f64::MIN_POSITIVE {
                break;
            }
            buf.push(w);
        }
        let inv = 1.0 / buf.iter().sum::<f64>();
        for w in buf.iter_mut() {
            *w *= inv;
        }
        Ok(first)
    }

    /// Add `theta^j (1 - theta)^(k - j)` (the mass over `C(k, j)`) of four
    /// draws with odds `r` and `q = 1 - theta` into `acc[j]` (lane l is one
    /// draw), j = 0..=k. The caller checks that every lane is on the lane
    /// path.
    #[inline(always)]
    fn add_lanes(&self, r: &Lanes, q: &Lanes, acc: &mut [Lanes]) {
        let k = self.k;
        // scale = q^k by squaring (no square past the top bit of k).
        let (mut scale, mut base, mut e) = ([1.0; LANES], *q, k);
        loop {
            if e & 1 == 1 {
                scale = mul(&scale, &base);
            }
            e >>= 1;
            if e == 0 {
                break;
            }
            base = mul(&base, &base);
        }
        // block[i] = q^k r^i for i < 8, then each block of 8 is the previous
        // one times r^8.
        let mut block = [scale; 8];
        for i in 1..8 {
            block[i] = mul(&block[i - 1], r);
        }
        let r2 = mul(r, r);
        let r4 = mul(&r2, &r2);
        let r8 = mul(&r4, &r4);
        let mut chunks = acc[..=k].chunks_mut(8);
        if let Some(head) = chunks.next() {
            for (a, b) in head.iter_mut().zip(&block) {
                for l in 0..LANES {
                    a[l] += b[l];
                }
            }
        }
        for chunk in chunks {
            for b in block.iter_mut() {
                *b = mul(b, &r8);
            }
            for (a, b) in chunk.iter_mut().zip(&block) {
                for l in 0..LANES {
                    a[l] += b[l];
                }
            }
        }
    }
}

#[inline(always)]
fn mul(a: &Lanes, b: &Lanes) -> Lanes {
    let mut out = [0.0; LANES];
    for l in 0..LANES {
        out[l] = a[l] * b[l];
    }
    out
}

/// One task: the masses of draws `first..first + n` summed over `q`
/// questions into `acc` (`acc[g * (k + 1) + j]` holds mass j of the four
/// draws `first + 4 g ..`), then suffix-summed along j.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn task_body<F>(
    masses: &BinomialMasses,
    q: usize,
    first: usize,
    n: usize,
    theta: &F,
    acc: &mut [Lanes],
    buf: &mut Vec<f64>,
) -> Result<()>
where
    F: Fn(usize, usize) -> f64,
{
    let width = masses.k + 1;
    let acc = &mut acc[..width * n.div_ceil(LANES)];
    acc.fill([0.0; LANES]);
    let lanes_on = !masses.coeff.is_empty();
    for question in 0..q {
        for (g, column) in acc.chunks_exact_mut(width).enumerate() {
            let live = (n - g * LANES).min(LANES);
            let mut th = [0.5; LANES];
            for (l, t) in th.iter_mut().enumerate().take(live) {
                *t = theta(question, first + g * LANES + l);
            }
            let (mut r, mut fail) = ([0.0; LANES], [0.0; LANES]);
            let mut on = lanes_on;
            for l in 0..LANES {
                fail[l] = 1.0 - th[l];
                r[l] = th[l] / fail[l];
                on &= r[l] >= masses.r_min && r[l] <= masses.r_max;
            }
            if on {
                masses.add_lanes(&r, &fail, column);
                continue;
            }
            for (l, &t) in th.iter().enumerate().take(live) {
                let at = masses.walk(t, buf)?;
                if lanes_on {
                    let inv = &masses.inv_coeff[at..];
                    for ((c, &p), &u) in column[at..].iter_mut().zip(buf.iter()).zip(inv) {
                        c[l] += p * u;
                    }
                } else {
                    for (c, &p) in column[at..].iter_mut().zip(buf.iter()) {
                        c[l] += p;
                    }
                }
            }
        }
    }
    for column in acc.chunks_exact_mut(width) {
        if lanes_on {
            for (c, &x) in column.iter_mut().zip(&masses.coeff) {
                for v in c.iter_mut() {
                    *v *= x;
                }
            }
        }
        for j in (0..width - 1).rev() {
            let next = column[j + 1];
            for l in 0..LANES {
                column[j][l] += next[l];
            }
        }
    }
    Ok(())
}

/// `task_body` compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn task_avx2<F>(
    masses: &BinomialMasses,
    q: usize,
    first: usize,
    n: usize,
    theta: &F,
    acc: &mut [Lanes],
    buf: &mut Vec<f64>,
) -> Result<()>
where
    F: Fn(usize, usize) -> f64,
{
    task_body(masses, q, first, n, theta, acc, buf)
}

#[allow(clippy::too_many_arguments)]
fn task<F>(
    masses: &BinomialMasses,
    q: usize,
    first: usize,
    n: usize,
    theta: &F,
    acc: &mut [Lanes],
    buf: &mut Vec<f64>,
    wide: bool,
) -> Result<()>
where
    F: Fn(usize, usize) -> f64,
{
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is only set when the CPU supports AVX2.
        return unsafe { task_avx2(masses, q, first, n, theta, acc, buf) };
    }
    let _ = wide;
    task_body(masses, q, first, n, theta, acc, buf)
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

/// Add `sum_q P(Bin(k, theta(q, d)) >= c_t)` to `out[d * T + t]` for every
/// draw d of `out` (row-major `(draws, T)`), over `q` questions.
fn add_profiles<F>(k: u64, q: usize, cutoffs: &[u64], out: &mut [f64], theta: F, wide: bool, split: bool) -> Result<()>
where
    F: Fn(usize, usize) -> f64 + Sync,
{
    if cutoffs.iter().any(|&c| c > k + 1) {
        return Err(Error::value("TailPass cutoffs must lie in 0..=k+1"));
    }
    let t = cutoffs.len();
    if t == 0 || out.is_empty() {
        return Ok(());
    }
    let masses = BinomialMasses::new(k);
    let width = k as usize + 1;
    let rows = (TASK_VALUES / width).next_multiple_of(LANES).max(LANES);
    let cost = rows * (q * (width + 20) + 3 * width + t);
    let qf = q as f64;
    out.par_chunks_mut(rows * t)
        .with_min_len(if split { par::min_len(cost) } else { usize::MAX })
        .enumerate()
        .try_for_each_init(
            || (vec![[0.0; LANES]; rows.div_ceil(LANES) * width], Vec::new()),
            |(acc, buf), (chunk, block)| -> Result<()> {
                crate::cancel::check()?;
                let n = block.len() / t;
                task(&masses, q, chunk * rows, n, &theta, acc, buf, wide)?;
                for (d, line) in block.chunks_exact_mut(t).enumerate() {
                    let (column, l) = (&acc[(d / LANES) * width..], d % LANES);
                    for (o, &c) in line.iter_mut().zip(cutoffs) {
                        *o += match c as usize {
                            0 => qf,
                            c if c < width => column[c][l],
                            _ => 0.0,
                        };
                    }
                }
                Ok(())
            },
        )
}

/// Per-draw profiles summed over questions: `theta` is row-major
/// `(draws, q)`, the success probability of each question on each draw, and
/// `out[d * T + t] = sum_q P(Bin(k, theta[d, q]) >= c_t)`.
pub fn draw_tails(k: u64, theta: &[f64], q: usize, cutoffs: &[u64]) -> Result<Vec<f64>> {
    if q == 0 || !theta.len().is_multiple_of(q) {
        return Err(Error::value("theta must have q columns"));
    }
    let draws = theta.len() / q;
    let mut out = vec![0.0; draws * cutoffs.len()];
    add_profiles(
        k,
        q,
        cutoffs,
        &mut out,
        |question, d| theta[d * q + question],
        avx2(),
        true,
    )?;
    Ok(out)
}

/// The same profiles straight from numpy's gamma variates, added into `out`
/// (row-major `(draws, T)`). `gammas` is `(q, draws, 2)` in numpy's stream
/// order (failure then success variate of each draw of each question); the
/// success probability is formed as numpy's `dirichlet` forms it,
/// `g1 * (1 / (g0 + g1))`, so it is bit for bit numpy's draw. With `split`
/// false the call stays on the calling thread (for a caller that runs numpy
/// beside it); results never depend on it.
pub fn add_gamma_tails(
    k: u64,
    gammas: &[f64],
    draws: usize,
    cutoffs: &[u64],
    out: &mut [f64],
    split: bool,
) -> Result<()> {
    if draws == 0 || !gammas.len().is_multiple_of(2 * draws) || out.len() != draws * cutoffs.len() {
        return Err(Error::value("gammas must be (q, draws, 2) and out (draws, T)"));
    }
    let q = gammas.len() / (2 * draws);
    add_profiles(
        k,
        q,
        cutoffs,
        out,
        |question, d| {
            let at = 2 * (question * draws + d);
            let (g0, g1) = (gammas[at], gammas[at + 1]);
            g1 * (1.0 / (g0 + g1))
        },
        avx2(),
        split,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tailpass::laws::{upper, Span};

    fn reference(k: u64, theta: f64, cutoffs: &[u64]) -> Vec<f64> {
        let mut span = Span::default();
        let (mut up, mut low) = (Vec::new(), Vec::new());
        span.binomial(k, theta).unwrap();
        span.cumulative(&mut up, &mut low);
        cutoffs.iter().map(|&c| upper(&span, &up, c)).collect()
    }

    #[test]
    fn small_cases() {
        let d = draw_tails(2, &[0.5, 1.0], 2, &[1, 2]).unwrap();
        assert!((d[0] - 1.75).abs() < 1e-15 && (d[1] - 1.25).abs() < 1e-15);
        let d = draw_tails(3, &[0.0, 1.0, 0.25], 1, &[0, 1, 3, 4]).unwrap();
        assert_eq!(&d[..8], &[1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0]);
        assert!((d[9] - (1.0 - 0.75f64.powi(3))).abs() < 1e-15 && (d[10] - 0.25f64.powi(3)).abs() < 1e-17);
        assert!(draw_tails(3, &[1.5], 1, &[1]).is_err());
        assert!(draw_tails(3, &[f64::NAN], 1, &[1]).is_err());
        assert!(draw_tails(3, &[0.5], 1, &[5]).is_err());
    }

    #[test]
    fn both_paths_match_the_normalised_binomial_law() {
        // k on the direct path (<= 128) and beyond; theta near 0, 1/2, 1 and
        // across the direct/walk boundary r_min = 2^(-1000 / k).
        for &k in &[1u64, 7, 8, 9, 30, 64, 128, 129, 400, 2048] {
            let cut: Vec<u64> = [0, 1, 2, k / 3, k / 2, k - 1, k, k + 1]
                .into_iter()
                .filter(|&c| c <= k + 1)
                .collect();
            let edge = (-1000.0 / k as f64).exp2();
            for &th in &[
                1e-300,
                1e-12,
                edge * 0.9,
                edge * 1.1,
                0.03,
                0.5,
                0.5 + 1e-16,
                0.77,
                1.0 - 1e-9,
                1.0 - 1e-16,
            ] {
                let got = draw_tails(k, &[th], 1, &cut).unwrap();
                let want = reference(k, th, &cut);
                for (j, (&g, &e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (g - e).abs() <= 1e-14 * e + 1e-300,
                        "k={k} th={th} c={}: {g} {e}",
                        cut[j]
                    );
                }
            }
        }
    }

    #[test]
    fn gammas_form_numpys_dirichlet_probability() {
        let gammas = [1.5, 0.5, 0.25, 2.0, 3.0, 3.0, 0.1, 0.7];
        let (k, cut) = (5u64, [0u64, 1, 3, 5, 6]);
        let mut out = vec![1.0; 2 * cut.len()];
        add_gamma_tails(k, &gammas, 2, &cut, &mut out, true).unwrap();
        // questions 0 and 1, draws 0 and 1: theta[d, q]
        let theta: Vec<f64> = [(0, 0), (0, 1), (1, 0), (1, 1)]
            .iter()
            .map(|&(d, q)| {
                let at = 2 * (q * 2 + d);
                gammas[at + 1] * (1.0 / (gammas[at] + gammas[at + 1]))
            })
            .collect();
        let want = draw_tails(k, &theta, 2, &cut).unwrap();
        for (g, w) in out.iter().zip(&want) {
            assert_eq!(*g, w + 1.0);
        }
        assert!(add_gamma_tails(k, &gammas, 3, &cut, &mut out, true).is_err());
        assert!(add_gamma_tails(k, &[0.0, 0.0], 1, &cut, &mut out[..5], false).is_err());
    }

    #[test]
    fn sse2_and_avx2_twins_agree_bit_for_bit() {
        if !avx2() {
            return;
        }
        for &k in &[1u64, 5, 8, 9, 17, 32, 128, 300] {
            let q = 3;
            let theta: Vec<f64> = (0..101 * q)
                .map(|i| match i % 9 {
                    0 => 0.0,
                    1 => 1.0,
                    2 => 1e-30,
                    _ => ((i * 7919) % 1009) as f64 / 1009.0,
                })
                .collect();
            let cut: Vec<u64> = (0..=k + 1).collect();
            let (mut narrow, mut wide) = (vec![0.0; 101 * cut.len()], vec![0.0; 101 * cut.len()]);
            add_profiles(
                k,
                q,
                &cut,
                &mut narrow,
                |question, d| theta[d * q + question],
                false,
                true,
            )
            .unwrap();
            add_profiles(
                k,
                q,
                &cut,
                &mut wide,
                |question, d| theta[d * q + question],
                true,
                false,
            )
            .unwrap();
            assert_eq!(narrow, wide, "k={k}");
        }
    }

    #[test]
    fn results_do_not_depend_on_the_split() {
        let theta: Vec<f64> = (0..3000).map(|i| ((i * 7919) % 1000) as f64 / 999.0).collect();
        let cut: Vec<u64> = (0..=33).collect();
        let before = crate::par::set_grain(1);
        let split = draw_tails(32, &theta, 3, &cut).unwrap();
        crate::par::set_grain(usize::MAX / 4);
        let whole = draw_tails(32, &theta, 3, &cut).unwrap();
        crate::par::set_grain(before);
        assert_eq!(split, whole);
    }
}

#[cfg(test)]
mod timing {
    use super::*;

    /// `cargo test -p kscore-core --release time_draw_tails -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn time_draw_tails() {
        let (k, q) = (32u64, 32usize);
        let theta: Vec<f64> = (0..4000 * q)
            .map(|i| 0.05 + 0.9 * (((i * 7919) % 10007) as f64 / 10007.0))
            .collect();
        let cut: Vec<u64> = (1..=k).collect();
        let before = crate::par::set_grain(usize::MAX / 4);
        for wide in [false, true, false, true] {
            let mut best = f64::INFINITY;
            for _ in 0..20 {
                let mut out = vec![0.0; 4000 * cut.len()];
                let t = std::time::Instant::now();
                add_profiles(k, q, &cut, &mut out, |question, d| theta[d * q + question], wide, false).unwrap();
                best = best.min(t.elapsed().as_nanos() as f64 / theta.len() as f64);
            }
            eprintln!("one thread, avx2 {wide}: best {best:.1} ns per (draw, question)");
        }
        crate::par::set_grain(before);
    }
}
