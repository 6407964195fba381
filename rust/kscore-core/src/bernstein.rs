//! Products of Bernstein credit vectors (§C.4). For credits x (degree k1)
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
//! (§C.5), which are integrated against each state's Beta-binomial weights
//! as they stream by instead of being formed one O(k^2) product per state.
//!
//! Step credits `1{j >= t}` take a faster route: per z only four region
//! probabilities are needed (which halves clear their thresholds), and they
//! are exactly 0 or 1 (below 1e-340) wherever Hoeffding's bound says the
//! bracket cannot reach a threshold, so only z near the thresholds are walked.

use rayon::prelude::*;

use crate::sum::{Fsum, Neumaier};
use crate::walk::walk_span;

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
    lo + walk_span((hi - lo + 1) as usize, (mode - lo) as usize, ratio, down, out) as u64
}

/// Product coefficients `h_0..=h_{k1+k2}` of two dense credit vectors,
/// parallel over z (each coefficient computed independently: deterministic).
pub fn product(x: &[f64], y: &[f64]) -> Vec<f64> {
    let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
    (0..=k1 + k2)
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, w), z| {
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

/// For each state, `sum_z hc(z) bb(z)` (correctly rounded, not normalised by
/// the weights' total), `hc(z) = sum_j w(j|z) (x_j - mu)(y_{z-j} - nu)`.
/// Streams over z in parallel; each bracket is built once and applied to
/// every state whose weights reach that z. Exact accumulators make the result
/// independent of the split.
pub fn centred_integrals(x: &[f64], y: &[f64], states: &[Centred<'_>]) -> Vec<f64> {
    let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
    let g = states.len();
    if g == 0 {
        return Vec::new();
    }
    let z_lo = states.iter().map(|s| s.first).min().unwrap_or(0);
    let z_hi = states.iter().map(|s| s.first + s.bb.len() as u64).max().unwrap_or(0);
    let sums = (z_lo..z_hi)
        .into_par_iter()
        .fold(
            || (vec![Fsum::new(); g], Vec::new(), Vec::new()),
            |(mut acc, mut down, mut w), z| {
                let active = |s: &Centred<'_>| z >= s.first && z < s.first + s.bb.len() as u64;
                if !states.iter().any(|s| active(s)) {
                    return (acc, down, w);
                }
                let first = bracket(k1, k2, z, &mut down, &mut w);
                let mut den = Neumaier::new();
                for &wi in w.iter() {
                    den.add(wi);
                }
                let den = den.value();
                for (s, state) in states.iter().enumerate() {
                    if !active(state) {
                        continue;
                    }
                    let mut num = Neumaier::new();
                    for (i, &wi) in w.iter().enumerate() {
                        let j = (first + i as u64) as usize;
                        num.add(wi * (x[j] - state.mu) * (y[z as usize - j] - state.nu));
                    }
                    let hc = num.value() / den;
                    acc[s].add(hc * state.bb[(z - state.first) as usize]);
                }
                (acc, down, w)
            },
        )
        .map(|(acc, _, _)| acc)
        .reduce(
            || vec![Fsum::new(); g],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.merge(y);
                }
                a
            },
        );
    sums.iter().map(Fsum::value).collect()
}

/// Region probabilities of the product of two steps `1{j >= t1}` (degree k1)
/// and `1{j >= t2}` (degree k2): for each z, with X ~ Hyp(k1 + k2, k1, z),
/// `[P(A, B), P(A, !B), P(!A, B), P(!A, !B)]` where A = {X >= t1} and
/// B = {z - X >= t2}. The product coefficient is `P(A, B)`; the centred one
/// for means (mu, nu) is `sum (a - mu)(b - nu) P(a, b)`.
pub fn step_regions(k1: u64, t1: u64, k2: u64, t2: u64) -> Vec<[f64; 4]> {
    // ln(1e-340) ~ -783: tails beyond 2 d^2 / z > 800 are below any double.
    const HOEFFDING: f64 = 800.0;
    let n = k1 + k2;
    (0..=n)
        .into_par_iter()
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, w), z| {
                let lo = z.saturating_sub(k2);
                let hi = k1.min(z);
                let u = z as i64 - t2 as i64; // B  <=>  X <= u
                let a_const = if t1 <= lo { Some(true) } else if t1 > hi { Some(false) } else { None };
                let b_const = if u >= hi as i64 { Some(true) } else if u < lo as i64 { Some(false) } else { None };
                let zf = z as f64;
                let m = zf * k1 as f64 / n as f64;
                // Hoeffding holds for the draws and for their complement.
                let zeff = z.min(n - z) as f64;
                let a_side = a_const.unwrap_or(m >= t1 as f64 - 0.5);
                let b_side = b_const.unwrap_or(m <= u as f64 + 0.5);
                let far = |d: f64| d > 0.0 && 2.0 * d * d > HOEFFDING * zeff;
                let a_far = a_const.is_some()
                    || far(if a_side { m - (t1 as f64 - 1.0) } else { t1 as f64 - m });
                let b_far = b_const.is_some()
                    || far(if b_side { (u + 1) as f64 - m } else { m - u as f64 });
                if a_far && b_far {
                    let mut r = [0.0; 4];
                    r[match (a_side, b_side) {
                        (true, true) => 0,
                        (true, false) => 1,
                        (false, true) => 2,
                        (false, false) => 3,
                    }] = 1.0;
                    return r;
                }
                let first = bracket(k1, k2, z, down, w);
                let mut acc = [Neumaier::new(); 4];
                for (i, &wi) in w.iter().enumerate() {
                    let j = first + i as u64;
                    let a = j >= t1;
                    let b = (j as i64) <= u;
                    acc[(!a as usize) * 2 + (!b as usize)].add(wi);
                }
                let parts = acc.map(|s| s.value());
                let total = (parts[0] + parts[3]) + (parts[1] + parts[2]);
                parts.map(|p| p / total)
            },
        )
        .collect()
}

/// The centred product coefficient from region probabilities.
#[inline]
pub fn centred_from_regions(r: &[f64; 4], mu: f64, nu: f64) -> f64 {
    let (a1, a0, b1, b0) = (1.0 - mu, -mu, 1.0 - nu, -nu);
    (a1 * b1 * r[0] + a0 * b0 * r[3]) + (a1 * b0 * r[1] + a0 * b1 * r[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choose(n: u64, r: u64) -> f64 {
        if r > n {
            return 0.0;
        }
        (0..r).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64)
    }

    fn direct(x: &[f64], y: &[f64]) -> Vec<f64> {
        let (k1, k2) = ((x.len() - 1) as u64, (y.len() - 1) as u64);
        (0..=k1 + k2)
            .map(|z| {
                let mut h = 0.0;
                for j in z.saturating_sub(k2)..=k1.min(z) {
                    h += choose(k1, j) * choose(k2, z - j) / choose(k1 + k2, z)
                        * x[j as usize] * y[(z - j) as usize];
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
                assert!((centred_from_regions(&r[z], mu, nu) - hc).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn centred_integrals_match_direct() {
        let x = [0.0, 0.2, 0.5, 0.9, 1.0];
        let bb = [0.5, 1.0, 0.25, 0.125];
        let state = Centred { mu: 0.4, nu: 0.4, first: 2, bb: &bb };
        let xc: Vec<f64> = x.iter().map(|v| v - 0.4).collect();
        let hc = direct(&xc, &xc);
        let expect: f64 = (0..4).map(|i| hc[2 + i] * bb[i]).sum();
        let got = centred_integrals(&x, &x, &[state]);
        assert!((got[0] - expect).abs() < 1e-15);
    }
}
