//! Per-draw binomial profiles of TailPass's posterior draws (docs/kernels.md,
//! K16). On draw d each question has success probability `theta[d, q]`; the
//! draw's profile is `sum_q P(Bin(k, theta[d, q]) >= c_t)`. Masses are
//! summed over the questions first, then suffix-summed once per draw, so a
//! question costs O(k) (vectorised) whatever the number of thresholds.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par;

/// Largest k on the direct path: binomial coefficients are exact integers
/// (Pascal's triangle in u128 holds C(128, 64)) rounded once.
const DIRECT_MAX: usize = 128;
/// The direct path keeps every power `r^j`, `j <= k`, at or above 2^-1000.
const POWER_FLOOR_LOG2: f64 = -1000.0;
/// Mass values accumulated by one task (draws per task times k + 1).
const TASK_VALUES: usize = 8192;

/// `Bin(k, theta)` masses added into a length-(k + 1) accumulator.
///
/// Direct path (k <= 128): with `p = min(theta, 1 - theta)`, `q = 1 - p`
/// and `r = p / q <= 1`, the masses are `C(k, j) r^j / (1 + r)^k` (mirrored
/// when theta > 1/2). Powers come in blocks of 8 (`r^(8m + i) = r^(8(m-1) +
/// i) r^8`), so the dependency chain is k / 8 multiplications long and the
/// loops vectorise; the total is summed, not taken from `(1 + r)^k`. Used
/// while `r^k >= 2^-1000`, so every mass keeps full relative precision.
/// Otherwise (large k, or theta within about `2^(-1000 / k)` of 0 or 1) the
/// masses are walked from the mode over their non-underflowed span (K3).
pub struct BinomialMasses {
    k: usize,
    coeff: Vec<f64>,
    r_min: f64,
    fwd: Vec<f64>,
    bwd: Vec<f64>,
}

impl BinomialMasses {
    pub fn new(k: u64) -> Self {
        let k = k as usize;
        let kf = k as f64;
        let fwd = (0..k).map(|i| (kf - i as f64) / (i as f64 + 1.0)).collect();
        let bwd = (0..k).map(|i| (i as f64 + 1.0) / (kf - i as f64)).collect();
        let (coeff, r_min) = if (1..=DIRECT_MAX).contains(&k) {
            let mut row = vec![0u128; k + 1];
            row[0] = 1;
            for n in 1..=k {
                for j in (1..=n).rev() {
                    row[j] += row[j - 1];
                }
            }
            (row.iter().map(|&c| c as f64).collect(), (POWER_FLOOR_LOG2 / kf).exp2())
        } else {
            (Vec::new(), f64::INFINITY)
        };
        BinomialMasses {
            k,
            coeff,
            r_min,
            fwd,
            bwd,
        }
    }

    /// Add the masses of `Bin(k, theta)` to `acc` (length k + 1); `buf` is
    /// scratch. Errors when theta is not in [0, 1].
    #[inline]
    pub fn add(&self, theta: f64, buf: &mut Vec<f64>, acc: &mut [f64]) -> Result<()> {
        if !(0.0..=1.0).contains(&theta) {
            return Err(Error::value("theta must lie in [0, 1]"));
        }
        if theta == 0.0 || theta == 1.0 || self.k == 0 {
            acc[if theta == 1.0 { self.k } else { 0 }] += 1.0;
            return Ok(());
        }
        let flip = theta > 0.5;
        let (p, q) = if flip {
            (1.0 - theta, theta)
        } else {
            (theta, 1.0 - theta)
        };
        let r = p / q;
        if r >= self.r_min {
            self.direct(r, flip, buf, acc);
        } else {
            self.walk(theta, buf, acc);
        }
        Ok(())
    }

    fn direct(&self, r: f64, flip: bool, buf: &mut Vec<f64>, acc: &mut [f64]) {
        let k = self.k;
        buf.clear();
        buf.resize(k + 1, 0.0);
        buf[0] = 1.0;
        for j in 1..=k.min(8) {
            buf[j] = buf[j - 1] * r;
        }
        if k > 8 {
            let r8 = buf[8];
            for j in 9..=k {
                buf[j] = buf[j - 8] * r8;
            }
        }
        let mut part = [0.0; 4];
        let mut chunks = buf.chunks_exact_mut(4);
        let mut coeffs = self.coeff.chunks_exact(4);
        for (w, c) in (&mut chunks).zip(&mut coeffs) {
            for i in 0..4 {
                w[i] *= c[i];
                part[i] += w[i];
            }
        }
        let mut rest = 0.0;
        for (w, &c) in chunks.into_remainder().iter_mut().zip(coeffs.remainder()) {
            *w *= c;
            rest += *w;
        }
        let inv = 1.0 / (((part[0] + part[1]) + (part[2] + part[3])) + rest);
        if flip {
            for (a, &w) in acc.iter_mut().rev().zip(buf.iter()) {
                *a += w * inv;
            }
        } else {
            for (a, &w) in acc.iter_mut().zip(buf.iter()) {
                *a += w * inv;
            }
        }
    }

    fn walk(&self, theta: f64, buf: &mut Vec<f64>, acc: &mut [f64]) {
        let k = self.k;
        let (odds, inv_odds) = (theta / (1.0 - theta), (1.0 - theta) / theta);
        let mode = ((((k + 1) as f64) * theta).floor() as usize).min(k);
        buf.clear();
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
        let total: f64 = buf.iter().sum();
        let inv = 1.0 / total;
        for (a, &w) in acc[first..].iter_mut().zip(buf.iter()) {
            *a += w * inv;
        }
    }
}

/// Add `sum_q P(Bin(k, theta(q, d)) >= c_t)` to `out[d * T + t]` for every
/// draw d of `out` (row-major `(draws, T)`), over `q` questions.
fn add_profiles<F>(k: u64, q: usize, cutoffs: &[u64], out: &mut [f64], theta: F) -> Result<()>
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
    let rows = (TASK_VALUES / width).max(1);
    let cost = rows * (q * (3 * width + 20) + 2 * width + t);
    let qf = q as f64;
    out.par_chunks_mut(rows * t)
        .with_min_len(par::min_len(cost))
        .enumerate()
        .try_for_each_init(
            || (vec![0.0; rows * width], Vec::with_capacity(width)),
            |(acc, buf), (chunk, block)| -> Result<()> {
                let (first, n) = (chunk * rows, block.len() / t);
                let acc = &mut acc[..n * width];
                acc.fill(0.0);
                for question in 0..q {
                    for (d, row) in acc.chunks_exact_mut(width).enumerate() {
                        masses.add(theta(question, first + d), buf, row)?;
                    }
                }
                for (row, line) in acc.chunks_exact_mut(width).zip(block.chunks_exact_mut(t)) {
                    for j in (0..width - 1).rev() {
                        row[j] += row[j + 1];
                    }
                    for (o, &c) in line.iter_mut().zip(cutoffs) {
                        *o += match c as usize {
                            0 => qf,
                            c if c < width => row[c],
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
    if q == 0 || theta.len() % q != 0 {
        return Err(Error::value("theta must have q columns"));
    }
    let draws = theta.len() / q;
    let mut out = vec![0.0; draws * cutoffs.len()];
    add_profiles(k, q, cutoffs, &mut out, |question, d| theta[d * q + question])?;
    Ok(out)
}

/// The same profiles straight from numpy's gamma variates, added into `out`
/// (row-major `(draws, T)`). `gammas` is `(q, draws, 2)` in numpy's stream
/// order (failure then success variate of each draw of each question); the
/// success probability is formed as numpy's `dirichlet` forms it,
/// `g1 * (1 / (g0 + g1))`, so it is bit for bit numpy's draw.
pub fn add_gamma_tails(k: u64, gammas: &[f64], draws: usize, cutoffs: &[u64], out: &mut [f64]) -> Result<()> {
    if draws == 0 || gammas.len() % (2 * draws) != 0 || out.len() != draws * cutoffs.len() {
        return Err(Error::value("gammas must be (q, draws, 2) and out (draws, T)"));
    }
    let q = gammas.len() / (2 * draws);
    add_profiles(k, q, cutoffs, out, |question, d| {
        let at = 2 * (question * draws + d);
        let (g0, g1) = (gammas[at], gammas[at + 1]);
        g1 * (1.0 / (g0 + g1))
    })
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
        add_gamma_tails(k, &gammas, 2, &cut, &mut out).unwrap();
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
        assert!(add_gamma_tails(k, &gammas, 3, &cut, &mut out).is_err());
        assert!(add_gamma_tails(k, &[0.0, 0.0], 1, &cut, &mut out[..5]).is_err());
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

    #[test]
    #[ignore]
    fn time_pairs() {
        let k = 32u64;
        let masses = BinomialMasses::new(k);
        let thetas: Vec<f64> = (0..128_000).map(|i| 0.05 + 0.9 * (((i * 7919) % 10007) as f64 / 10007.0)).collect();
        let mut acc = vec![0.0; 33];
        let mut buf = Vec::with_capacity(33);
        for _ in 0..3 {
            let t = std::time::Instant::now();
            for &th in &thetas {
                masses.add(th, &mut buf, &mut acc).unwrap();
            }
            eprintln!("add: {:.1} ns/pair", t.elapsed().as_nanos() as f64 / thetas.len() as f64);
        }
        let cut: Vec<u64> = (1..=32).collect();
        let before = crate::par::set_grain(usize::MAX / 4);
        for _ in 0..3 {
            let t = std::time::Instant::now();
            let out = draw_tails(k, &thetas, 32, &cut).unwrap();
            eprintln!("draw_tails 1 thread: {:.1} ns/pair {}", t.elapsed().as_nanos() as f64 / thetas.len() as f64, out[0]);
        }
        crate::par::set_grain(before);
        eprintln!("{}", acc[3]);
    }
}
