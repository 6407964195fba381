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
/// event, in model order (padded with zeros to whole blocks of eight):
/// their ratings, `g`, `g^2`, the exponent's factors `a = -q g` and
/// `b = q g r` (`E = 1 / (1 + exp(a r_i + b))`), the score against each,
/// and each model's place in the list.
#[derive(Clone, Default)]
struct Field {
    len: usize,
    rating: Vec<f64>,
    g: Vec<f64>,
    g2: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
    score: Vec<f64>,
    place: Vec<Option<usize>>,
    /// The models on this side (whose rows sum over this field).
    rows: Vec<usize>,
}

impl Field {
    /// The per-opponent columns, cleared and padded together.
    fn columns(&mut self) -> [&mut Vec<f64>; 6] {
        [
            &mut self.rating,
            &mut self.g,
            &mut self.g2,
            &mut self.a,
            &mut self.b,
            &mut self.score,
        ]
    }

    /// The opponents of `side`'s rows from the event's per-model columns
    /// (`g`, `g^2`, `a`, `b` of every model), written in place (the columns
    /// keep their length between events: no pushes).
    fn fill(&mut self, side: u8, o: &[u8], rating: &[f64], per: &PerModel, policy: TiePolicy) {
        let l = o.len();
        let padded = l.div_ceil(8) * 8;
        for v in self.columns() {
            v.resize(padded, 0.0);
        }
        self.place.resize(l, None);
        self.rows.resize(l, 0);
        // Whether a model of outcome 0/1 plays this side, and its score.
        let plays = [policy.score(side, 0), policy.score(side, 1)];
        // Branch-free (the outcomes are random: a branch on them mispredicts
        // half the time): every model written at the next place, which
        // advances only where it plays.
        let (mut n, mut m) = (0, 0);
        for (j, &oj) in o.iter().enumerate() {
            let s = plays[(oj & 1) as usize];
            self.rows[m] = j;
            m += (oj == side) as usize;
            self.rating[n] = rating[j];
            self.g[n] = per.g[j];
            self.g2[n] = per.g2[j];
            self.a[n] = per.a[j];
            self.b[n] = per.b[j];
            self.score[n] = s.unwrap_or(0.0);
            self.place[j] = s.map(|_| n);
            n += s.is_some() as usize;
        }
        self.rows.truncate(m);
        self.len = n;
        // The last block's pad: zeros (masked off in the sums).
        for v in self.columns() {
            v[n..n.div_ceil(8) * 8].fill(0.0);
        }
    }
}

/// An event's per-model columns: `g`, `g^2`, `a = -q g`, `b = q g r`.
#[derive(Default)]
struct PerModel {
    g: Vec<f64>,
    g2: Vec<f64>,
    a: Vec<f64>,
    b: Vec<f64>,
}

impl PerModel {
    /// From the deviations and ratings (eight models a step on AVX-512:
    /// the same operations, divisions and square roots exact in any width).
    fn set(&mut self, lanes: bool, rd: &[f64], rating: &[f64]) {
        let l = rd.len();
        for v in [&mut self.g, &mut self.g2, &mut self.a, &mut self.b] {
            v.resize(l, 0.0);
        }
        #[cfg(target_arch = "x86_64")]
        if lanes {
            // SAFETY: the CPU has AVX-512 F and DQ (checked by the caller).
            unsafe { self.set8(rd, rating) };
            return;
        }
        let _ = lanes;
        g_of(rd, &mut self.g);
        for (((g2, a), b), (&g, &r)) in self
            .g2
            .iter_mut()
            .zip(self.a.iter_mut())
            .zip(self.b.iter_mut())
            .zip(self.g.iter().zip(rating))
        {
            *g2 = g * g;
            *a = -Q * g;
            *b = Q * g * r;
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn set8(&mut self, rd: &[f64], rating: &[f64]) {
        use std::arch::x86_64::*;
        let l = rd.len().min(rating.len());
        let mut j = 0;
        while j < l {
            let end = (j + 8).min(l);
            let d = simd::load_or(&rd[j..end], 0.0);
            let r = simd::load_or(&rating[j..end], 0.0);
            // 1 / sqrt(1 + (3 q^2) d^2 / pi^2), as g_of
            let t = _mm512_div_pd(
                _mm512_mul_pd(_mm512_set1_pd(3.0 * (Q * Q)), _mm512_mul_pd(d, d)),
                _mm512_set1_pd(PI * PI),
            );
            let g = _mm512_div_pd(
                _mm512_set1_pd(1.0),
                _mm512_sqrt_pd(_mm512_add_pd(_mm512_set1_pd(1.0), t)),
            );
            simd::store_first(&mut self.g[j..end], g);
            simd::store_first(&mut self.g2[j..end], _mm512_mul_pd(g, g));
            simd::store_first(&mut self.a[j..end], _mm512_mul_pd(_mm512_set1_pd(-Q), g));
            simd::store_first(
                &mut self.b[j..end],
                _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(Q), g), r),
            );
            j = end;
        }
    }
}

/// `update` eight models a step (the same operations in lanes; a lane's
/// new values kept where its check passes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn update8(sums: &[(f64, f64)], rating: &mut [f64], rd: &mut [f64], rd_max: f64) {
    use std::arch::x86_64::*;
    let l = sums.len().min(rating.len()).min(rd.len());
    let one = _mm512_set1_pd(1.0);
    let zero = _mm512_setzero_pd();
    let inf = _mm512_set1_pd(f64::INFINITY);
    let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    let mut j = 0;
    while j < l {
        let end = (j + 8).min(l);
        let n = end - j;
        // The pairs (denom, delta) of eight models as two registers.
        let mut flat = [0.0f64; 16];
        for (q, &(a, b)) in sums[j..end].iter().enumerate() {
            flat[2 * q] = a;
            flat[2 * q + 1] = b;
        }
        let (lo, hi) = (simd::load_or(&flat[..8], 0.0), simd::load_or(&flat[8..], 0.0));
        let denom = _mm512_permutex2var_pd(lo, even, hi);
        let delta = _mm512_permutex2var_pd(lo, odd, hi);
        let r = simd::load_or(&rating[j..end], 0.0);
        let d = simd::load_or(&rd[j..end], 1.0);
        let d2 = _mm512_div_pd(one, _mm512_mul_pd(_mm512_set1_pd(Q * Q), denom));
        let inv_var = _mm512_add_pd(_mm512_div_pd(one, _mm512_mul_pd(d, d)), _mm512_div_pd(one, d2));
        let ok = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(denom, zero)
            & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(denom, inf)
            & _mm512_cmp_pd_mask::<_CMP_GT_OQ>(inv_var, zero)
            & _mm512_cmp_pd_mask::<_CMP_LT_OQ>(inv_var, inf)
            & simd::first(n);
        let new_rd = _mm512_min_pd(
            _mm512_max_pd(_mm512_sqrt_pd(_mm512_div_pd(one, inv_var)), _mm512_set1_pd(1e-12)),
            _mm512_set1_pd(rd_max),
        );
        let new_r = _mm512_add_pd(r, _mm512_mul_pd(_mm512_div_pd(_mm512_set1_pd(Q), inv_var), delta));
        simd::store_first(&mut rd[j..end], _mm512_mask_mov_pd(d, ok, new_rd));
        simd::store_first(&mut rating[j..end], _mm512_mask_mov_pd(r, ok, new_r));
        j = end;
    }
}

/// Rows summed together on AVX-512 (sharing the loads of the field's
/// blocks; four independent chains of `exp` and reciprocal in flight).
const TOGETHER: usize = 4;

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
    let mut per = PerModel::default();
    let mut fields = [Field::default(), Field::default()];
    // Per row: `sum g^2 E (1 - E)` and `sum g (s - E)`.
    let mut sums = vec![(0.0, 0.0); l];
    let mut side_sums: Vec<(f64, f64)> = Vec::with_capacity(l);
    let lanes = super::has_avx512();
    // A row costs about 1 ns per opponent in lanes (4 on the portable path).
    let row_ns = if lanes { l } else { 4 * l };
    let mut scratch = vec![0.0; l.div_ceil(8) * 8];
    for e in 0..rows.events {
        check_stop(e)?;
        if p.c > 0.0 {
            for v in rd.iter_mut() {
                *v = (*v * *v + p.c * p.c).sqrt().min(p.rd_max);
            }
        }
        outcomes(&rows, e, &mut o);
        per.set(lanes, &rd, &rating);
        for (side, field) in fields.iter_mut().enumerate() {
            field.fill(side as u8, &o, &rating, &per, p.policy);
        }
        // Every exponent `-q g_j (r_i - r_j)` within exp's range (`g <= 1`):
        // no clamp in the lanes.
        let (lo, hi) = rating.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &r| {
            (lo.min(r), hi.max(r))
        });
        let within = Q * (hi - lo) <= 700.0;
        // Each row from the event's starting values only, the rows of a side
        // in pieces of `TOGETHER`; the pieces run in parallel when an event
        // is worth splitting (a hand-off to the pool per event costs more
        // than a small field's event).
        for field in &fields {
            let rows_of = &field.rows;
            side_sums.clear();
            side_sums.resize(rows_of.len(), (0.0, 0.0));
            let piece = |(out, idx): (&mut [(f64, f64)], &[usize]), e: &mut Vec<f64>| {
                piece_sums(idx, &rating, field, lanes, within, out, e);
            };
            if par::worth_splitting(rows_of.len() * row_ns) {
                side_sums
                    .par_chunks_mut(TOGETHER)
                    .zip(rows_of.par_chunks(TOGETHER))
                    .with_min_len(par::min_len(row_ns * TOGETHER))
                    .for_each_init(|| vec![0.0; scratch.len()], |e, item| piece(item, e));
            } else {
                for item in side_sums.chunks_mut(TOGETHER).zip(rows_of.chunks(TOGETHER)) {
                    piece(item, &mut scratch);
                }
            }
            for (&i, &s) in rows_of.iter().zip(&side_sums) {
                sums[i] = s;
            }
        }
        for (i, s) in sums.iter_mut().enumerate() {
            let field = &fields[o[i] as usize];
            // Opponents other than itself: none, no update.
            if field.len - field.place[i].is_some() as usize == 0 {
                *s = (f64::NAN, 0.0);
            }
        }
        #[cfg(target_arch = "x86_64")]
        if lanes {
            // SAFETY: the CPU has AVX-512 F and DQ (checked above).
            unsafe { update8(&sums, &mut rating, &mut rd, p.rd_max) };
            continue;
        }
        update(&sums, &mut rating, &mut rd, p.rd_max);
    }
    watch.check()?;
    Ok((rating, rd))
}

/// `g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)` of every model.
#[inline(always)]
fn g_of(rd: &[f64], g: &mut [f64]) {
    for (gj, &r) in g.iter_mut().zip(rd) {
        *gj = 1.0 / (1.0 + (3.0 * (Q * Q) * (r * r)) / (PI * PI)).sqrt();
    }
}

/// Each model's rating and deviation from its row's sums (`NaN`: no
/// opponent, no update; nor where a sum or the new precision is not
/// positive and finite), branch-free so that it runs in lanes.
#[inline(always)]
fn update(sums: &[(f64, f64)], rating: &mut [f64], rd: &mut [f64], rd_max: f64) {
    for ((&(denom, delta), r), d) in sums.iter().zip(rating.iter_mut()).zip(rd.iter_mut()) {
        let d2 = 1.0 / ((Q * Q) * denom);
        let inv_var = 1.0 / (*d * *d) + 1.0 / d2;
        let ok = denom > 0.0 && denom.is_finite() && inv_var > 0.0 && inv_var.is_finite();
        let new_rd = (1.0 / inv_var).sqrt().clamp(1e-12, rd_max);
        let new_r = *r + (Q / inv_var) * delta;
        *d = if ok { new_rd } else { *d };
        *r = if ok { new_r } else { *r };
    }
}

/// The sums of the rows `idx` (at most `TOGETHER`, all of `field`'s side)
/// into `out`.
fn piece_sums(
    idx: &[usize],
    rating: &[f64],
    field: &Field,
    lanes: bool,
    within: bool,
    out: &mut [(f64, f64)],
    e: &mut [f64],
) {
    #[cfg(target_arch = "x86_64")]
    if lanes {
        if idx.len() == TOGETHER {
            let ri = [0, 1, 2, 3].map(|q| rating[idx[q]]);
            let own = [0, 1, 2, 3].map(|q| field.place[idx[q]]);
            // SAFETY: the CPU has AVX-512 F and DQ (checked by the caller).
            let s = unsafe {
                if within {
                    rows_avx512::<TOGETHER, false>(ri, own, field)
                } else {
                    rows_avx512::<TOGETHER, true>(ri, own, field)
                }
            };
            out.copy_from_slice(&s);
        } else {
            for (q, &i) in idx.iter().enumerate() {
                // SAFETY: as above.
                out[q] = unsafe { rows_avx512::<1, true>([rating[i]], [field.place[i]], field) }[0];
            }
        }
        return;
    }
    let _ = (lanes, within);
    for (q, &i) in idx.iter().enumerate() {
        out[q] = row(rating[i], field.place[i], field, e);
    }
}

/// `(sum_j g_j^2 E_j (1 - E_j), sum_j g_j (s_j - E_j))` over the field but
/// the row's own entry, for a model rated `ri`,
/// `E_j = 1 / (1 + exp(-q g_j (ri - r_j)))` (into `e`), summed in four
/// lanes (lane `q` the opponents `j = q mod 4`).
fn row(ri: f64, own: Option<usize>, f: &Field, e: &mut [f64]) -> (f64, f64) {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { row_avx2(ri, own, f, e) };
        }
    }
    row_body(ri, own, f, e)
}

/// The rows `ri` in eight lanes, one pass over the field's blocks (lane `q`
/// the opponents `j = q mod 8`; a row's own entry and the last block's pad
/// masked off): `x = a_j ri + b_j` by one `fma`, `exp` and the reciprocal
/// of `1 + exp` from `simd` (within an ulp or two of the portable row's),
/// `E (1 - E)` as `E - E^2` by one `fnmadd`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn rows_avx512<const R: usize, const CLAMP: bool>(ri: [f64; R], own: [Option<usize>; R], f: &Field) -> [(f64, f64); R] {
    use std::arch::x86_64::*;
    let n = f.len;
    let one = _mm512_set1_pd(1.0);
    let r8 = ri.map(|r| _mm512_set1_pd(r));
    let mut den = [_mm512_setzero_pd(); R];
    let mut del = [_mm512_setzero_pd(); R];
    let mut j = 0;
    while j < n {
        let live = simd::first(n - j);
        // SAFETY: the field's arrays are padded to whole blocks of eight.
        let load = |v: &[f64]| unsafe { _mm512_loadu_pd(v.as_ptr().add(j)) };
        let (a, b, g, g2, s) = (load(&f.a), load(&f.b), load(&f.g), load(&f.g2), load(&f.score));
        for q in 0..R {
            let mut k = live;
            if let Some(o) = own[q] {
                if o >= j && o < j + 8 {
                    k &= !(1u8 << (o - j));
                }
            }
            let x = _mm512_fmadd_pd(a, r8[q], b);
            let ex = if CLAMP { simd::exp8(x) } else { simd::exp8_within(x) };
            let ex = simd::recip8(_mm512_add_pd(one, ex));
            let v = _mm512_fnmadd_pd(ex, ex, ex);
            den[q] = _mm512_mask3_fmadd_pd(g2, v, den[q], k);
            del[q] = _mm512_mask3_fmadd_pd(g, _mm512_sub_pd(s, ex), del[q], k);
        }
        j += 8;
    }
    std::array::from_fn(|q| (simd::sum8(den[q]), simd::sum8(del[q])))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn row_avx2(ri: f64, own: Option<usize>, f: &Field, e: &mut [f64]) -> (f64, f64) {
    row_body(ri, own, f, e)
}

#[inline(always)]
fn row_body(ri: f64, own: Option<usize>, f: &Field, e: &mut [f64]) -> (f64, f64) {
    let n = f.len;
    let (rating, g, s) = (&f.rating[..n], &f.g[..n], &f.score[..n]);
    let e = &mut e[..n];
    // The expectations first, a plain map over the opponents (it
    // vectorises: `exp` is straight-line arithmetic), then the sums; the
    // row's own entry weighs 0.
    for ((o, &r), &gj) in e.iter_mut().zip(rating).zip(g) {
        *o = 1.0 / (1.0 + exp(-Q * gj * (ri - r)));
    }
    let own = own.unwrap_or(usize::MAX);
    let w = |j: usize| (j != own) as u8 as f64;
    let (mut den, mut del) = ([0.0f64; 4], [0.0f64; 4]);
    for c in 0..n / 4 {
        for q in 0..4 {
            let j = 4 * c + q;
            den[q] += w(j) * (g[j] * g[j] * e[j] * (1.0 - e[j]));
            del[q] += w(j) * (g[j] * (s[j] - e[j]));
        }
    }
    let (mut d0, mut d1) = (
        (den[0] + den[1]) + (den[2] + den[3]),
        (del[0] + del[1]) + (del[2] + del[3]),
    );
    for j in n - n % 4..n {
        d0 += w(j) * (g[j] * g[j] * e[j] * (1.0 - e[j]));
        d1 += w(j) * (g[j] * (s[j] - e[j]));
    }
    (d0, d1)
}
