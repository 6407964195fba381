//! Glicko (Glickman 1999): each event a rating period of its induced
//! matches, `q = ln(10)/400`, `g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)`,
//! `E_ij = 1 / (1 + 10^(-g(RD_j) (r_i - r_j) / 400))`,
//! `1/d^2 = q^2 sum_j g_j^2 E_ij (1 - E_ij)`,
//! `RD' = (1/RD^2 + 1/d^2)^(-1/2)` (capped), `r' = r + q RD'^2 sum_j g_j (S_ij - E_ij)`;
//! with `c > 0`, `RD = min(sqrt(RD^2 + c^2), RD_max)` at each period's start.

use std::f64::consts::PI;

use rayon::prelude::*;

use crate::cancel;
use crate::error::Result;
use crate::numeric::expln::{exp, has_avx2};
use crate::pairwise::counts::Packed;
use crate::par;

use super::{check_stop, outcomes, TiePolicy};

const Q: f64 = std::f64::consts::LN_10 / 400.0;

/// Glicko's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Glicko {
    pub initial_rating: f64,
    pub initial_rd: f64,
    pub c: f64,
    pub rd_max: f64,
    pub policy: TiePolicy,
}

/// Final ratings and deviations (scorio's `glicko`).
pub fn glicko(rows: Packed, p: Glicko) -> Result<(Vec<f64>, Vec<f64>)> {
    let watch = cancel::Watch::new();
    let l = rows.rows;
    let mut rating = vec![p.initial_rating; l];
    let mut rd = vec![p.initial_rd.min(p.rd_max); l];
    let mut o = vec![0u8; l];
    let mut g = vec![0.0; l];
    let mut score = [vec![0.0; l], vec![0.0; l]];
    let mut weight = [vec![0.0; l], vec![0.0; l]];
    let (mut new_rating, mut new_rd) = (vec![0.0; l], vec![0.0; l]);
    // A row costs about 4 ns per opponent (one vectorised `exp`).
    let row_ns = 4 * l;
    let mut scratch = vec![0.0; l];
    for e in 0..rows.events {
        check_stop(e)?;
        if p.c > 0.0 {
            for v in rd.iter_mut() {
                *v = (*v * *v + p.c * p.c).sqrt().min(p.rd_max);
            }
        }
        outcomes(&rows, e, &mut o);
        let mut playing = [0usize; 2];
        for j in 0..l {
            g[j] = 1.0 / (1.0 + (3.0 * (Q * Q) * (rd[j] * rd[j])) / (PI * PI)).sqrt();
            for side in 0..2u8 {
                let s = p.policy.score(side, o[j]);
                score[side as usize][j] = s.unwrap_or(0.0);
                weight[side as usize][j] = if s.is_some() { 1.0 } else { 0.0 };
                playing[side as usize] += s.is_some() as usize;
            }
        }
        {
            let (rating, rd, g, o, score, weight) = (&rating, &rd, &g, &o, &score, &weight);
            // Each row from the event's starting values only: rows run in
            // parallel when an event is worth splitting (a hand-off to the
            // pool per event costs more than a small field's event), each
            // with its own copy of the weights (its own match against
            // itself zeroed while it sums).
            let body = |(w, e): &mut ([Vec<f64>; 2], Vec<f64>), (i, (nr, nd)): (usize, (&mut f64, &mut f64))| {
                *nr = rating[i];
                *nd = rd[i];
                let side = o[i] as usize;
                let own = w[side][i];
                // Opponents other than itself: none, no update.
                if playing[side] - (own != 0.0) as usize == 0 {
                    return;
                }
                w[side][i] = 0.0;
                let (denom, delta) = row(rating[i], rating, g, &score[side], &w[side], e);
                w[side][i] = own;
                if !(denom > 0.0 && denom.is_finite()) {
                    return;
                }
                let d2 = 1.0 / ((Q * Q) * denom);
                let inv_var = 1.0 / (rd[i] * rd[i]) + 1.0 / d2;
                if !(inv_var > 0.0 && inv_var.is_finite()) {
                    return;
                }
                *nd = (1.0 / inv_var).sqrt().clamp(1e-12, p.rd_max);
                *nr = rating[i] + (Q / inv_var) * delta;
            };
            if par::worth_splitting(l * row_ns) {
                new_rating
                    .par_iter_mut()
                    .zip(new_rd.par_iter_mut())
                    .enumerate()
                    .with_min_len(par::min_len(row_ns))
                    .for_each_init(|| (weight.clone(), vec![0.0; l]), body);
            } else {
                let mut local = (weight.clone(), std::mem::take(&mut scratch));
                new_rating
                    .iter_mut()
                    .zip(new_rd.iter_mut())
                    .enumerate()
                    .for_each(|item| body(&mut local, item));
                scratch = local.1;
            }
        }
        std::mem::swap(&mut rating, &mut new_rating);
        std::mem::swap(&mut rd, &mut new_rd);
    }
    watch.check()?;
    Ok((rating, rd))
}

/// `(sum_j w_j g_j^2 E_j (1 - E_j), sum_j w_j g_j (s_j - E_j))` for a model
/// rated `ri`, `E_j = 1 / (1 + exp(-q g_j (ri - r_j)))` (into `e`), summed
/// in four lanes (lane `q` the opponents `j = q mod 4`).
fn row(ri: f64, rating: &[f64], g: &[f64], s: &[f64], w: &[f64], e: &mut [f64]) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { row_avx2(ri, rating, g, s, w, e) };
        }
    }
    row_body(ri, rating, g, s, w, e)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_avx2(ri: f64, rating: &[f64], g: &[f64], s: &[f64], w: &[f64], e: &mut [f64]) -> (f64, f64) {
    row_body(ri, rating, g, s, w, e)
}

#[inline(always)]
fn row_body(ri: f64, rating: &[f64], g: &[f64], s: &[f64], w: &[f64], e: &mut [f64]) -> (f64, f64) {
    // The expectations first, a plain map over the opponents (it
    // vectorises: `exp` is straight-line arithmetic), then the sums.
    for ((o, &r), &gj) in e.iter_mut().zip(rating).zip(g) {
        *o = 1.0 / (1.0 + exp(-Q * gj * (ri - r)));
    }
    let n = rating.len().min(e.len());
    let (mut den, mut del) = ([0.0f64; 4], [0.0f64; 4]);
    let chunks = e
        .chunks_exact(4)
        .zip(g.chunks_exact(4))
        .zip(s.chunks_exact(4).zip(w.chunks_exact(4)));
    for ((ec, gc), (sc, wc)) in chunks {
        for q in 0..4 {
            den[q] += wc[q] * (gc[q] * gc[q] * ec[q] * (1.0 - ec[q]));
            del[q] += wc[q] * (gc[q] * (sc[q] - ec[q]));
        }
    }
    let (mut d0, mut d1) = (
        (den[0] + den[1]) + (den[2] + den[3]),
        (del[0] + del[1]) + (del[2] + del[3]),
    );
    for j in n - n % 4..n {
        d0 += w[j] * (g[j] * g[j] * e[j] * (1.0 - e[j]));
        d1 += w[j] * (g[j] * (s[j] - e[j]));
    }
    (d0, d1)
}
