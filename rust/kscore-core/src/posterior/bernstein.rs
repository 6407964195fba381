//! Products of Bernstein credit vectors (docs/kernels.md, K5). For credits x (degree k1)
//! and y (degree k2) the product polynomial has degree k1 + k2 and
//! coefficients
//!
//! `h_z = sum_j w(j | z) x_j y_{z-j}`, with `w(. | z)` = Hyp(k1 + k2, k1, z),
//!
//! the law of how z successes split between the two halves. The bracket
//! `w(. | z)` depends only on (k1, k2, z), never on the posterior state, so
//! each is computed once per call (walked out of its mode, see `walk`) and
//! reused for every state: for the plain product, and for the centred
//! products `(x - mu)(y - nu)` of every state under the variance guard
//! (docs/kernels.md, K6), which are integrated against each state's Beta-binomial weights
//! as they stream by instead of being formed one O(k^2) product per state.
//!
//! Step credits `1{j >= t}` take a faster route: per z only four region
//! probabilities are needed (which halves clear their thresholds), and they
//! are 0 or 1 to within 1e-60 wherever Serfling's tail bound says the
//! bracket cannot reach a threshold, so only z near the thresholds are walked
//! (and only down to relative mass 1e-60).
//!
//! All three loops skip their remaining coefficients (NaN) while a
//! `cancel::Stop` is held; their callers report that as `Interrupted`.

use rayon::prelude::*;

use crate::cancel;
use crate::finite::walk::walk_span;
use crate::numeric::sum::Neumaier;
use crate::par::Grain;

/// Bracket weights `w(j | z)` (mode = 1) over their non-underflowed span:
/// `out[i]` is the weight of `j = first + i`; returns `first`.
pub fn bracket(k1: u64, k2: u64, z: u64, down: &mut Vec<f64>, out: &mut Vec<f64>) -> u64 {
    let lo = z.saturating_sub(k2);
    let hi = k1.min(z);
    let n = k1 + k2;
    let mode = (((z as u128 + 1) * (k1 as u128 + 1)) / (n as u128 + 2)) as u64;
    let mode = mode.clamp(lo, hi);
    // w(j+1)/w(j) = (k1 - j)(z - j) / ((j + 1)(k2 - z + j + 1)); the integer
    // products are exact in f64 below 2^53.
    let ratio = |i: usize| {
        let j = lo + i as u64;
        ((k1 - j) as f64 * (z - j) as f64) / ((j + 1) as f64 * (k2 + j + 1 - z) as f64)
    };
    let inv = |i: usize| {
        let j = lo + i as u64;
        ((j + 1) as f64 * (k2 + j + 1 - z) as f64) / ((k1 - j) as f64 * (z - j) as f64)
    };
    lo + walk_span((hi - lo + 1) as usize, (mode - lo) as usize, ratio, inv, down, out) as u64
}

/// Product coefficients `h_0..=h_{k1+k2}` of two dense credit vectors,
/// Estimated cost of one coefficient's bracket (a walk of at most
/// min(k1, k2) + 1 terms).
fn bracket_ns(k1: u64, k2: u64) -> usize {
    10 * (k1.min(k2) as usize + 1)
}

/// parallel over z (each coefficient computed independently: deterministic).
pub fn product(x: &[f64], y: &[f64]) -> Vec<f64> {
    let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
    (0..(k1 + k2 + 1) as usize)
        .into_par_iter()
        .with_grain(bracket_ns(k1, k2))
        .map(|z| z as u64)
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, w), z| {
                if cancel::stopping() {
                    return f64::NAN;
                }
                let first = bracket(k1, k2, z, down, w);
                let mut num = Neumaier::new();
                let mut den = Neumaier::new();
                for (i, &wi) in w.iter().enumerate() {
                    let j = (first + i as u64) as usize;
                    num.add(wi * x[j] * y[z as usize - j]);
                    den.add(wi);
                }
                num.value() / den.value()
            },
        )
        .collect()
}

/// A posterior state whose centred product is needed: means `mu` (of x) and
/// `nu` (of y), and its Beta-binomial weights of degree k1 + k2 (`bb[i]` at
/// `z = first + i`).
pub struct Centred<'a> {
    pub mu: f64,
    pub nu: f64,
    pub first: u64,
    pub bb: &'a [f64],
}

/// For each state, `sum_z hc(z) bb(z)` (not normalised by the weights'
/// total), `hc(z) = sum_j w(j|z) (x_j - mu)(y_{z-j} - nu)`. Parallel over z:
/// each bracket is built once and applied to every state whose weights reach
/// that z; the per-state sums then run in ascending z, so the result does not
/// depend on the thread count.
pub fn centred_integrals(x: &[f64], y: &[f64], states: &[Centred<'_>]) -> Vec<f64> {
    let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
    if states.is_empty() {
        return Vec::new();
    }
    let z_lo = states.iter().map(|s| s.first).min().unwrap_or(0);
    let z_hi = states.iter().map(|s| s.first + s.bb.len() as u64).max().unwrap_or(0);
    let active = |s: &Centred<'_>, z: u64| z >= s.first && z < s.first + s.bb.len() as u64;
    let per_z: Vec<Vec<f64>> = (z_lo as usize..z_hi as usize)
        .into_par_iter()
        .with_grain(bracket_ns(k1, k2) + 5 * states.len())
        .map(|z| z as u64)
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, w), z| {
                let mut out = Vec::new();
                if !states.iter().any(|s| active(s, z)) {
                    return out;
                }
                if cancel::stopping() {
                    out.extend(states.iter().filter(|s| active(s, z)).map(|_| f64::NAN));
                    return out;
                }
                let first = bracket(k1, k2, z, down, w);
                // Bracket means of x, y and x*y: the centred coefficient is
                // bilinear in them. Use that O(1) form per state unless it
                // cancels (then the exact O(width) sum below).
                let (mut den, mut ex, mut ey, mut exy) =
                    (Neumaier::new(), Neumaier::new(), Neumaier::new(), Neumaier::new());
                for (i, &wi) in w.iter().enumerate() {
                    let j = (first + i as u64) as usize;
                    let (xj, yj) = (x[j], y[z as usize - j]);
                    den.add(wi);
                    ex.add(wi * xj);
                    ey.add(wi * yj);
                    exy.add(wi * xj * yj);
                }
                let den = den.value();
                let (ex, ey, exy) = (ex.value() / den, ey.value() / den, exy.value() / den);
                for state in states.iter().filter(|s| active(s, z)) {
                    let (mu, nu) = (state.mu, state.nu);
                    let parts = [exy, -(mu * ey), -(nu * ex), mu * nu];
                    let hc = (parts[0] + parts[3]) + (parts[1] + parts[2]);
                    let magnitude: f64 = parts.iter().map(|p| p.abs()).sum();
                    let hc = if hc.abs() > BILINEAR_MARGIN * magnitude {
                        hc
                    } else {
                        let mut num = Neumaier::new();
                        for (i, &wi) in w.iter().enumerate() {
                            let j = (first + i as u64) as usize;
                            num.add(wi * (x[j] - mu) * (y[z as usize - j] - nu));
                        }
                        num.value() / den
                    };
                    out.push(hc * state.bb[(z - state.first) as usize]);
                }
                out
            },
        )
        .collect();
    let mut sums = vec![Neumaier::new(); states.len()];
    for (zi, values) in per_z.iter().enumerate() {
        let z = z_lo + zi as u64;
        let mut it = values.iter();
        for (s, state) in states.iter().enumerate() {
            if active(state, z) {
                sums[s].add(*it.next().expect("one value per active state"));
            }
        }
    }
    sums.iter().map(Neumaier::value).collect()
}

/// The bilinear centred coefficient is kept only when it is larger than this
/// fraction of its parts (so its relative error stays below ~1e-9).
const BILINEAR_MARGIN: f64 = 1.0 / 1048576.0;

/// Relative masses below this (against the bracket's mode) are dropped from
/// the step-region sums: they move a region probability by < 1e-60, far
/// below any variance the guard can resolve.
const REGION_CUTOFF: f64 = 1e-60;

/// Region sums `[P(A,B), P(A,!B), P(!A,B), P(!A,!B)]` (unnormalised) of one
/// bracket, A = {X >= t1}, B = {X <= u}, walked out of the mode on the fly.
fn region_sums(k1: u64, k2: u64, z: u64, t1: u64, u: i64) -> [f64; 4] {
    let lo = z.saturating_sub(k2);
    let hi = k1.min(z);
    let n = k1 + k2;
    let mode = ((((z as u128 + 1) * (k1 as u128 + 1)) / (n as u128 + 2)) as u64).clamp(lo, hi);
    // Integer-valued f64 arithmetic (exact below 2^53): no int conversions
    // in the loop.
    let (k1f, k2f, zf) = (k1 as f64, k2 as f64, z as f64);
    let ratio = |jf: f64| ((k1f - jf) * (zf - jf)) / ((jf + 1.0) * (k2f + jf + 1.0 - zf));
    let inv = |jf: f64| ((jf + 1.0) * (k2f + jf + 1.0 - zf)) / ((k1f - jf) * (zf - jf));
    let region = |j: u64| ((j < t1) as usize) * 2 + (((j as i64) > u) as usize);
    let mut sums = RegionRuns::new(region(mode));
    sums.add(region(mode), 1.0);
    let mut w = 1.0;
    let mut jf = mode as f64;
    for j in (lo..mode).rev() {
        jf -= 1.0;
        w *= inv(jf);
        if w < REGION_CUTOFF {
            break;
        }
        sums.add(region(j), w);
    }
    sums.restart(region(mode));
    w = 1.0;
    jf = mode as f64;
    for j in mode..hi {
        w *= ratio(jf);
        jf += 1.0;
        if w < REGION_CUTOFF {
            break;
        }
        sums.add(region(j + 1), w);
    }
    sums.finish()
}

/// Compensated sums of four regions fed by walks in which each region is an
/// interval: the current run stays in registers and is flushed on change.
struct RegionRuns {
    acc: [Neumaier; 4],
    run: Neumaier,
    region: usize,
}

impl RegionRuns {
    fn new(region: usize) -> Self {
        RegionRuns {
            acc: [Neumaier::new(); 4],
            run: Neumaier::new(),
            region,
        }
    }

    #[inline]
    fn add(&mut self, region: usize, w: f64) {
        if region != self.region {
            self.restart(region);
        }
        self.run.add(w);
    }

    /// Flush the current run and start one in `region`.
    fn restart(&mut self, region: usize) {
        self.acc[self.region].merge(self.run);
        self.run = Neumaier::new();
        self.region = region;
    }

    fn finish(mut self) -> [f64; 4] {
        self.restart(0);
        self.acc.map(|a| a.value())
    }
}

/// Region probabilities of the product of two steps `1{j >= t1}` (degree k1)
/// and `1{j >= t2}` (degree k2): for each z, with X ~ Hyp(k1 + k2, k1, z),
/// `[P(A, B), P(A, !B), P(!A, B), P(!A, !B)]` where A = {X >= t1} and
/// B = {z - X >= t2}. The product coefficient is `P(A, B)`; the centred one
/// for means (mu, nu) is `sum (a - mu)(b - nu) P(a, b)`. Brackets whose
/// thresholds lie beyond Serfling's tail bound (mass < 1e-60) are exact 0/1
/// rows and are not walked, so the cost is O(k) plus O(sqrt(k)) walks of
/// O(sqrt(k)) each.
pub fn step_regions(k1: u64, t1: u64, k2: u64, t2: u64) -> Vec<[f64; 4]> {
    // exp(-2 d^2 / s) < 1e-60 when 2 d^2 > 276.3 s; keep a margin.
    const SERFLING: f64 = 290.0;
    let n = k1 + k2;
    (0..(n + 1) as usize)
        .into_par_iter()
        .with_grain(bracket_ns(k1, k2))
        .map(|z| z as u64)
        .map(|z| {
            if cancel::stopping() {
                return [f64::NAN; 4];
            }
            let lo = z.saturating_sub(k2);
            let hi = k1.min(z);
            let u = z as i64 - t2 as i64; // B  <=>  X <= u
            let a_const = if t1 <= lo {
                Some(true)
            } else if t1 > hi {
                Some(false)
            } else {
                None
            };
            let b_const = if u >= hi as i64 {
                Some(true)
            } else if u < lo as i64 {
                Some(false)
            } else {
                None
            };
            let zf = z as f64;
            let m = zf * k1 as f64 / n as f64;
            // Serfling: P(|X - m| >= d) <= 2 exp(-2 d^2 / (z (1 - (z - 1)/n))).
            let spread = zf * (n - z + 1) as f64 / n as f64;
            let a_side = a_const.unwrap_or(m >= t1 as f64 - 0.5);
            let b_side = b_const.unwrap_or(m <= u as f64 + 0.5);
            let far = |d: f64| d > 0.0 && 2.0 * d * d > SERFLING * spread;
            let a_far = a_const.is_some() || far(if a_side { m - (t1 as f64 - 1.0) } else { t1 as f64 - m });
            let b_far = b_const.is_some() || far(if b_side { (u + 1) as f64 - m } else { m - u as f64 });
            if a_far && b_far {
                let mut r = [0.0; 4];
                r[(!a_side as usize) * 2 + (!b_side as usize)] = 1.0;
                return r;
            }
            let parts = region_sums(k1, k2, z, t1, u);
            let total = (parts[0] + parts[3]) + (parts[1] + parts[2]);
            parts.map(|p| p / total)
        })
        .collect()
}

/// The centred product coefficient from region probabilities, given the
/// means and their complements (`cmu = 1 - mu`, evaluated without
/// cancellation by the caller).
#[inline]
pub fn centred_from_regions(r: &[f64; 4], (mu, cmu): (f64, f64), (nu, cnu): (f64, f64)) -> f64 {
    let (a1, a0, b1, b0) = (cmu, -mu, cnu, -nu);
    (a1 * b1 * r[0] + a0 * b0 * r[3]) + (a1 * b0 * r[1] + a0 * b1 * r[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::choose;

    fn direct(x: &[f64], y: &[f64]) -> Vec<f64> {
        let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
        (0..=k1 + k2)
            .map(|z| {
                let mut h = 0.0;
                for j in z.saturating_sub(k2)..=k1.min(z) {
                    h += choose(k1, j) * choose(k2, z - j) / choose(k1 + k2, z) * x[j as usize] * y[(z - j) as usize];
                }
                h
            })
            .collect()
    }

    #[test]
    fn product_matches_direct_sum() {
        let x = [0.0, 0.2, 0.5, 0.9, 1.0];
        let y = [0.1, 0.0, 0.7];
        let (a, b) = (product(&x, &y), direct(&x, &y));
        for (p, q) in a.iter().zip(&b) {
            assert!((p - q).abs() < 1e-15);
        }
    }

    #[test]
    fn step_regions_match_dense_product() {
        for &(k1, t1, k2, t2) in &[(6u64, 3u64, 6u64, 3u64), (5, 1, 5, 4), (7, 7, 7, 1), (4, 2, 9, 5)] {
            let x: Vec<f64> = (0..=k1).map(|j| (j >= t1) as u8 as f64).collect();
            let y: Vec<f64> = (0..=k2).map(|j| (j >= t2) as u8 as f64).collect();
            let h = direct(&x, &y);
            let r = step_regions(k1, t1, k2, t2);
            for z in 0..h.len() {
                assert!((r[z][0] - h[z]).abs() < 1e-15);
                let total: f64 = r[z].iter().sum();
                assert!((total - 1.0).abs() < 1e-15);
                let (mu, nu) = (0.3, 0.8);
                let xc: Vec<f64> = x.iter().map(|v| v - mu).collect();
                let yc: Vec<f64> = y.iter().map(|v| v - nu).collect();
                let hc = direct(&xc, &yc)[z];
                assert!((centred_from_regions(&r[z], (mu, 1.0 - mu), (nu, 1.0 - nu)) - hc).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn centred_integrals_match_direct() {
        let x = [0.0, 0.2, 0.5, 0.9, 1.0];
        let bb = [0.5, 1.0, 0.25, 0.125];
        let state = Centred {
            mu: 0.4,
            nu: 0.4,
            first: 2,
            bb: &bb,
        };
        let xc: Vec<f64> = x.iter().map(|v| v - 0.4).collect();
        let hc = direct(&xc, &xc);
        let expect: f64 = (0..4).map(|i| hc[2 + i] * bb[i]).sum();
        let got = centred_integrals(&x, &x, &[state]);
        assert!((got[0] - expect).abs() < 1e-15);
    }
}
