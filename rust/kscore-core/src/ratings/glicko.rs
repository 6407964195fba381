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

#[cfg(target_arch = "x86_64")]
use super::simd;
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

/// The opponents a right (side 1) or wrong (side 0) model plays in an
/// event, in model order: their ratings, `g`, the score against each, a
/// weight (1, or 0 for the row's own entry while it sums) and each model's
/// place in the list.
#[derive(Clone, Default)]
struct Field {
    rating: Vec<f64>,
    g: Vec<f64>,
    score: Vec<f64>,
    weight: Vec<f64>,
    place: Vec<Option<usize>>,
}

impl Field {
    fn fill(&mut self, side: u8, o: &[u8], rating: &[f64], g: &[f64], policy: TiePolicy) {
        self.rating.clear();
        self.g.clear();
        self.score.clear();
        self.weight.clear();
        self.place.clear();
        for (j, &oj) in o.iter().enumerate() {
            match policy.score(side, oj) {
                Some(s) => {
                    self.place.push(Some(self.rating.len()));
                    self.rating.push(rating[j]);
                    self.g.push(g[j]);
                    self.score.push(s);
                    self.weight.push(1.0);
                }
                None => self.place.push(None),
            }
        }
    }
}

/// Final ratings and deviations (scorio's `glicko`).
///
/// Each row sums over the opponents its side plays only (a wrong model
/// under `correct_draw_only` plays the right ones: with half the models
/// right, a quarter of the pairs never play and are not evaluated).
pub fn glicko(rows: Packed, p: Glicko) -> Result<(Vec<f64>, Vec<f64>)> {
    let watch = cancel::Watch::new();
    let l = rows.rows;
    let mut rating = vec![p.initial_rating; l];
    let mut rd = vec![p.initial_rd.min(p.rd_max); l];
    let mut o = vec![0u8; l];
    let mut g = vec![0.0; l];
    let mut fields = [Field::default(), Field::default()];
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
        for j in 0..l {
            g[j] = 1.0 / (1.0 + (3.0 * (Q * Q) * (rd[j] * rd[j])) / (PI * PI)).sqrt();
        }
        for (side, field) in fields.iter_mut().enumerate() {
            field.fill(side as u8, &o, &rating, &g, p.policy);
        }
        {
            let (rating, rd, o) = (&rating, &rd, &o);
            // Each row from the event's starting values only: rows run in
            // parallel when an event is worth splitting (a hand-off to the
            // pool per event costs more than a small field's event), each
            // with its own copy of the fields (its own match against itself
            // zeroed while it sums).
            let body = |(f, e): &mut ([Field; 2], Vec<f64>), (i, (nr, nd)): (usize, (&mut f64, &mut f64))| {
                *nr = rating[i];
                *nd = rd[i];
                let field = &mut f[o[i] as usize];
                let own = field.place[i];
                // Opponents other than itself: none, no update.
                if field.rating.len() - own.is_some() as usize == 0 {
                    return;
                }
                if let Some(k) = own {
                    field.weight[k] = 0.0;
                }
                let (denom, delta) = row(rating[i], &field.rating, &field.g, &field.score, &field.weight, e);
                if let Some(k) = own {
                    field.weight[k] = 1.0;
                }
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
                    .for_each_init(|| (fields.clone(), vec![0.0; l]), body);
            } else {
                let mut local = (std::mem::take(&mut fields), std::mem::take(&mut scratch));
                new_rating
                    .iter_mut()
                    .zip(new_rd.iter_mut())
                    .enumerate()
                    .for_each(|item| body(&mut local, item));
                (fields, scratch) = local;
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
        if super::has_avx512() {
            // SAFETY: the CPU has AVX-512 F and DQ (checked).
            return unsafe { row_avx512(ri, rating, g, s, w) };
        }
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { row_avx2(ri, rating, g, s, w, e) };
        }
    }
    row_body(ri, rating, g, s, w, e)
}

/// The row in eight lanes, one pass (lane `q` the opponents `j = q mod 8`;
/// the last block's missing lanes weigh 0): `exp` and the reciprocal of
/// `1 + exp` from `simd`, within an ulp or two of the portable row's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn row_avx512(ri: f64, rating: &[f64], g: &[f64], s: &[f64], w: &[f64]) -> (f64, f64) {
    use std::arch::x86_64::*;
    let n = rating.len().min(g.len()).min(s.len()).min(w.len());
    let one = _mm512_set1_pd(1.0);
    let ri8 = _mm512_set1_pd(ri);
    let mq = _mm512_set1_pd(-Q);
    let (mut den, mut del) = (_mm512_setzero_pd(), _mm512_setzero_pd());
    let mut j = 0;
    while j < n {
        let end = (j + 8).min(n);
        let r = simd::load_or(&rating[j..end], ri);
        let gj = simd::load_or(&g[j..end], 0.0);
        let sj = simd::load_or(&s[j..end], 0.0);
        let wj = simd::load_or(&w[j..end], 0.0);
        let x = _mm512_mul_pd(_mm512_mul_pd(mq, gj), _mm512_sub_pd(ri8, r));
        let e = simd::recip8(_mm512_add_pd(one, simd::exp8(x)));
        let g2 = _mm512_mul_pd(gj, gj);
        let v = _mm512_mul_pd(_mm512_mul_pd(g2, e), _mm512_sub_pd(one, e));
        den = _mm512_fmadd_pd(wj, v, den);
        del = _mm512_fmadd_pd(wj, _mm512_mul_pd(gj, _mm512_sub_pd(sj, e)), del);
        j = end;
    }
    (simd::sum8(den), simd::sum8(del))
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
