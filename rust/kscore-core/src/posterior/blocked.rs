//! Bracket moments of two degree-k credits for every z by blocked FFT
//! convolutions: the large-k route of the Bernstein products
//! (docs/kernels.md, K5, "Large k").
//!
//! For credits x and y of the same degree k and `X ~ Hyp(2k, k, z)` (the
//! bracket), this computes for every `z = 0..=2k`
//!
//! * `exy(z) = E[x_X y_{z-X}]` (the product coefficient h_z),
//! * `cxy(z) = E[(x_k - x_X)(y_k - y_{z-X})]` (the complements' product),
//! * `ex(z) = E[x_X]`, `ey(z) = E[y_{z-X}]` and their complements
//!   `exc(z) = E[x_k - x_X]`, `eyc(z) = E[y_k - y_{z-X}]`,
//!
//! which give every raw and centred second moment of K6 (the centred
//! coefficient is bilinear in them). With the tilted binomial
//! `r_i = C(k, i) t^i` (any t > 0) the bracket weights are
//! `r_i r_{z-i} / rho_z`, `rho_z = sum_i r_i r_{z-i}`, so on a window of i
//! each moment is a ratio of two convolutions: `(r x) * (r y)` over `r * r`,
//! and so on. A block of consecutive z uses one tilt, centred on the block,
//! and one window of i (the brackets of its z truncated at 9 standard
//! deviations, relative mass below 3e-18); the block's outputs span a range
//! of `rho` within a factor of about 10, so the FFT's error, relative to the
//! largest output, is also relative to each output. Blocks are 6 binomial
//! standard deviations wide, so there are about `sqrt(k)` of them, each a few
//! real FFTs of about 32 standard deviations: `O(k log k)` in all. The few z
//! within `DIRECT_Z` of either end (brackets of a handful of terms, where one
//! tilt cannot cover a block) are summed directly from the walked bracket.
//!
//! Each block is computed independently and written in z order, so the
//! result does not depend on the thread count; blocks are also the natural
//! place for a cancellation check.

use rayon::prelude::*;

use crate::cancel;
use crate::numeric::fft::Fft;
use crate::numeric::sum::Neumaier;
use crate::par::Grain;
use crate::posterior::bernstein::bracket;

/// Brackets of z (or 2k - z) below this are summed directly.
const DIRECT_Z: u64 = 96;

/// Bracket moments for z = 0..=2k (see the module documentation).
#[derive(Clone, Debug)]
pub struct BracketMoments {
    pub exy: Vec<f64>,
    pub cxy: Vec<f64>,
    pub ex: Vec<f64>,
    pub ey: Vec<f64>,
    pub exc: Vec<f64>,
    pub eyc: Vec<f64>,
}

/// One z's six moments, in the order exy, cxy, ex, ey, exc, eyc.
type Six = [f64; 6];

/// Bracket moments of `x` and `y`, both of length k + 1.
pub fn bracket_moments(x: &[f64], y: &[f64]) -> BracketMoments {
    assert_eq!(x.len(), y.len(), "blocked products need equal degrees");
    let k = (x.len() - 1) as u64;
    let same = x == y;
    let total = 2 * k + 1;
    let fft_end = total.saturating_sub(DIRECT_Z); // FFT zone: DIRECT_Z..fft_end
    let blocks = if fft_end > DIRECT_Z {
        blocks(k, DIRECT_Z, fft_end)
    } else {
        Vec::new()
    };
    let sizes: Vec<usize> = blocks.iter().map(|b| b.n).collect();
    let mut plans: Vec<Option<Fft>> = vec![None; 64];
    for &n in &sizes {
        let slot = n.trailing_zeros() as usize;
        if plans[slot].is_none() {
            plans[slot] = Some(Fft::new(n / 2));
        }
    }
    let max_n = sizes.iter().copied().max().unwrap_or(1);
    let block_ns = 60 * max_n * (max_n.trailing_zeros() as usize + 1);
    let fft_part: Vec<Vec<Six>> = blocks
        .par_iter()
        .with_grain(block_ns)
        .map(|b| {
            // Once a stop is held the caller discards the result (its Watch
            // sees it): skip the remaining blocks.
            if cancel::stopping() {
                return Vec::new();
            }
            block(
                k,
                x,
                y,
                same,
                b,
                plans[b.n.trailing_zeros() as usize].as_ref().expect("plan"),
            )
        })
        .collect();
    let direct_zs: Vec<u64> = (0..total)
        .filter(|&z| z < DIRECT_Z || z >= fft_end.max(DIRECT_Z))
        .collect();
    let direct_part: Vec<Six> = direct_zs
        .par_iter()
        .with_grain(20 * (k.min(DIRECT_Z) as usize + 1))
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, w), &z| {
                if cancel::stopping() {
                    return [0.0; 6];
                }
                direct(k, x, y, z, down, w)
            },
        )
        .collect();
    let mut out = BracketMoments {
        exy: vec![0.0; total as usize],
        cxy: vec![0.0; total as usize],
        ex: vec![0.0; total as usize],
        ey: vec![0.0; total as usize],
        exc: vec![0.0; total as usize],
        eyc: vec![0.0; total as usize],
    };
    let mut put = |z: u64, v: &Six| {
        let z = z as usize;
        out.exy[z] = v[0];
        out.cxy[z] = v[1];
        out.ex[z] = v[2];
        out.ey[z] = v[3];
        out.exc[z] = v[4];
        out.eyc[z] = v[5];
    };
    for (b, values) in blocks.iter().zip(&fft_part) {
        for (i, v) in values.iter().enumerate() {
            put(b.z0 + i as u64, v);
        }
    }
    for (&z, v) in direct_zs.iter().zip(&direct_part) {
        put(z, v);
    }
    out
}

/// The six moments of one z from its walked bracket (compensated sums).
fn direct(k: u64, x: &[f64], y: &[f64], z: u64, down: &mut Vec<f64>, w: &mut Vec<f64>) -> Six {
    let first = bracket(k, k, z, down, w);
    let (xt, yt) = (x[k as usize], y[k as usize]);
    let mut acc = [Neumaier::new(); 7];
    for (i, &wi) in w.iter().enumerate() {
        let j = (first + i as u64) as usize;
        let (xj, yj) = (x[j], y[z as usize - j]);
        let (xc, yc) = (xt - xj, yt - yj);
        acc[0].add(wi);
        acc[1].add(wi * xj * yj);
        acc[2].add(wi * xc * yc);
        acc[3].add(wi * xj);
        acc[4].add(wi * yj);
        acc[5].add(wi * xc);
        acc[6].add(wi * yc);
    }
    let den = acc[0].value();
    [1, 2, 3, 4, 5, 6].map(|i| acc[i].value() / den)
}

/// A block of outputs `z0..z1` and its window `i0..=i1` of i.
#[derive(Clone, Copy, Debug)]
struct Block {
    z0: u64,
    z1: u64,
    i0: u64,
    i1: u64,
    n: usize,
}

/// Blocks covering `lo..hi`, each about 4 binomial standard deviations
/// `s(z) = sqrt(z (2k - z) / (4k))` wide (the smallest s over the block).
fn blocks(k: u64, lo: u64, hi: u64) -> Vec<Block> {
    let kf = k as f64;
    let sb = |d: f64| (d * (2.0 * kf - d) / (4.0 * kf)).max(0.0).sqrt();
    let mut out = Vec::new();
    let mut z0 = lo;
    while z0 < hi {
        let d0 = z0.min(2 * k - z0) as f64;
        let d = if z0 <= k {
            d0
        } else {
            (d0 - 6.0 * sb(d0)).max(lo as f64)
        };
        let width = ((6.0 * sb(d)).floor() as u64).max(8);
        let z1 = (z0 + width).min(hi);
        // Bracket standard deviation at the block's z nearest to k (the widest).
        let zf = k.clamp(z0, z1 - 1) as f64;
        let sz = (zf * (2.0 * kf - zf) / (4.0 * (2.0 * kf - 1.0))).sqrt();
        let reach = (9.0 * sz).ceil() as u64 + 4;
        let i0 = z0.saturating_sub(k).max((z0 / 2).saturating_sub(reach));
        let i1 = k.min(z1 - 1).min(z1 / 2 + reach);
        let len = (i1 - i0 + 1) as usize;
        let n = (2 * len - 1).next_power_of_two().max(2);
        out.push(Block { z0, z1, i0, i1, n });
        z0 = z1;
    }
    out
}

/// The moments of one block's z by FFT convolutions on its window.
fn block(k: u64, x: &[f64], y: &[f64], same: bool, b: &Block, plan: &Fft) -> Vec<Six> {
    let (i0, i1) = (b.i0, b.i1);
    let len = (i1 - i0 + 1) as usize;
    // Tilt centred on the block: r_i = C(k, i) t^i, t = ic / (k - ic), whose
    // mode is near ic; walked from there (all factors are exact in f64).
    let ic = (b.z0 + b.z1 - 1) as f64 / 4.0;
    let (kf, kc) = (k as f64, k as f64 - ic);
    let anchor = (ic.round() as u64).clamp(i0, i1);
    let mut r = vec![0.0; len];
    r[(anchor - i0) as usize] = 1.0;
    for i in anchor..i1 {
        let at = (i - i0) as usize;
        r[at + 1] = r[at] * (((kf - i as f64) * ic) / ((i + 1) as f64 * kc));
    }
    for i in (i0 + 1..=anchor).rev() {
        let at = (i - i0) as usize;
        r[at - 1] = r[at] * ((i as f64 * kc) / ((kf - i as f64 + 1.0) * ic));
    }
    let (xt, yt) = (x[k as usize], y[k as usize]);
    let window = |v: &[f64], top: f64, comp: bool| -> Vec<f64> {
        (0..len)
            .map(|i| {
                let vi = v[i0 as usize + i];
                r[i] * if comp { top - vi } else { vi }
            })
            .collect()
    };
    // Inputs and the convolutions wanted, as index pairs into `inputs`;
    // output 0 is always rho = r * r.
    let (inputs, pairs): (Vec<Vec<f64>>, Vec<(usize, usize)>) = if same {
        let inputs = vec![r.clone(), window(x, xt, false), window(x, xt, true)];
        // rho, exy, ex, cxy, exc
        (inputs, vec![(0, 0), (1, 1), (1, 0), (2, 2), (2, 0)])
    } else {
        let inputs = vec![
            r.clone(),
            window(x, xt, false),
            window(y, yt, false),
            window(x, xt, true),
            window(y, yt, true),
        ];
        // rho, exy, ex, ey, cxy, exc, eyc
        (inputs, vec![(0, 0), (1, 2), (1, 0), (0, 2), (3, 4), (3, 0), (0, 4)])
    };
    let convs = convolutions(plan, &inputs, &pairs);
    let m = (b.z1 - b.z0) as usize;
    let base = (b.z0 - 2 * i0) as usize;
    (0..m)
        .map(|q| {
            let at = base + q;
            let rho = convs[0][at];
            let v = |c: usize| convs[c][at] / rho;
            if same {
                let (ex, exc) = (v(2), v(4));
                [v(1), v(3), ex, ex, exc, exc]
            } else {
                [v(1), v(4), v(2), v(3), v(5), v(6)]
            }
        })
        .collect()
}

/// Linear convolutions `inputs[a] * inputs[b]` for each pair, by real
/// transforms of length `2 plan.len()` (each input and each output its own,
/// so an all-zero input has an exactly zero spectrum and its convolutions
/// are exactly 0).
fn convolutions(plan: &Fft, inputs: &[Vec<f64>], pairs: &[(usize, usize)]) -> Vec<Vec<f64>> {
    let half = plan.len();
    let spectra: Vec<(Vec<f64>, Vec<f64>)> = inputs
        .iter()
        .map(|v| {
            let (mut re, mut im) = (Vec::new(), Vec::new());
            plan.real_forward(v, &mut re, &mut im);
            (re, im)
        })
        .collect();
    pairs
        .iter()
        .map(|&(a, b)| {
            let ((ar, ai), (br, bi)) = (&spectra[a], &spectra[b]);
            let (mut re, mut im) = (vec![0.0; half + 1], vec![0.0; half + 1]);
            for m in 0..=half {
                re[m] = ar[m] * br[m] - ai[m] * bi[m];
                im[m] = ar[m] * bi[m] + ai[m] * br[m];
            }
            let mut out = vec![0.0; 2 * half];
            plan.real_inverse(&re, &im, &mut out);
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(x: &[f64], y: &[f64]) {
        let k = (x.len() - 1) as u64;
        let got = bracket_moments(x, y);
        let (mut down, mut w) = (Vec::new(), Vec::new());
        let scale = |v: &[f64]| v.iter().fold(0.0f64, |m, a| m.max(a.abs()));
        let (sx, sy) = (scale(x), scale(y));
        for z in 0..=2 * k {
            let want = direct(k, x, y, z, &mut down, &mut w);
            let have = [
                got.exy[z as usize],
                got.cxy[z as usize],
                got.ex[z as usize],
                got.ey[z as usize],
                got.exc[z as usize],
                got.eyc[z as usize],
            ];
            let scales = [sx * sy, 4.0 * sx * sy, sx, sy, 2.0 * sx, 2.0 * sy];
            for q in 0..6 {
                let tol = 1e-13 * (want[q].abs() + 1e-3 * scales[q]);
                assert!(
                    (have[q] - want[q]).abs() <= tol,
                    "k={k} z={z} q={q}: {} vs {}",
                    have[q],
                    want[q]
                );
            }
        }
    }

    #[test]
    fn blocked_moments_match_walked_brackets() {
        for k in [40u64, 300, 3000] {
            let kf = k as f64;
            let spectrum: Vec<f64> = (0..=k)
                .map(|j| {
                    let j = j as f64;
                    (j / kf).powi(2) * 0.7 + 0.3 * (j / kf)
                })
                .collect();
            let mg: Vec<f64> = (0..=k)
                .map(|j| (2.0 / kf) * j.saturating_sub(k.div_ceil(2)) as f64)
                .collect();
            let pass: Vec<f64> = (0..=k).map(|j| (j >= 1) as u8 as f64).collect();
            check(&spectrum, &spectrum);
            check(&mg, &mg);
            check(&pass, &mg);
        }
    }
}
