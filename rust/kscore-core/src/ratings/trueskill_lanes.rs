//! TrueSkill's decisive matches of an event eight at a time (AVX-512): one
//! winner against eight losers per step, the losers' starting beliefs
//! gathered once per event into padded arrays, their site sums kept there
//! (added in winner order, as the scalar loop adds them) and the winner's
//! in lanes.
//!
//! The corrections `(v, w)` at `x = t - epsilon` in one form for both
//! signs: with `y = |x| / sqrt 2`,
//! `v = sqrt(2/pi) / erfcx(y)` for `x < 0` and
//! `v = sqrt(2/pi) exp(-y^2) / (2 - exp(-y^2) erfcx(y))` for `x >= 0`
//! (`phi(x) / Phi(x)` with `Phi(x) = 1 - erfc(y) / 2`), `erfcx` from
//! `simd::erfcx8` (within 2 ulps of the C library's, swept in its test),
//! `exp` from `simd::exp8_fma` and the reciprocals from `simd::recip8`; lanes
//! with `x < -10` (scorio's asymptotic series) take the scalar
//! `win_corrections`. The sites: `1/c` by a reciprocal of `sqrt(c^2)`
//! (`c^2` summed in model order, as scorio does), the new variance
//! `sigma^2 max(1 - sigma^2 w / c^2, 1e-12)` and its reciprocal. Each
//! value within a few ulps of the scalar path's (the ratings to about
//! 1e-15 relative: tests/test_rank_ratings.py against scorio, the Rust
//! test against the scalar path).

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

use super::simd::{erfcx8, exp8_fma, first, recip8, sum8};
use super::trueskill::{win_corrections, TrueSkill};

/// The event's losers' starting values, padded to whole blocks of eight
/// (a pad: mean 0, variance 1, index past every model), and their sums.
#[derive(Default)]
pub(super) struct Lanes {
    mu: Vec<f64>,
    s2: Vec<f64>,
    inv: Vec<f64>,
    nat: Vec<f64>,
    idx: Vec<f64>,
    acc_p: Vec<f64>,
    acc_n: Vec<f64>,
}

/// Per model: mean, `sigma^2`, `1/sigma^2`, `mu/sigma^2`.
pub(super) struct Beliefs<'a> {
    pub mu: &'a [f64],
    pub s2: &'a [f64],
    pub inv: &'a [f64],
    pub nat: &'a [f64],
}

impl Lanes {
    fn gather(&mut self, wrong: &[usize], b: &Beliefs<'_>) {
        let padded = wrong.len().div_ceil(8) * 8;
        let fill = |v: &mut Vec<f64>, pad: f64, of: &dyn Fn(usize) -> f64| {
            v.clear();
            v.extend(wrong.iter().map(|&k| of(k)));
            v.resize(padded, pad);
        };
        fill(&mut self.mu, 0.0, &|k| b.mu[k]);
        fill(&mut self.s2, 1.0, &|k| b.s2[k]);
        fill(&mut self.inv, 1.0, &|k| b.inv[k]);
        fill(&mut self.nat, 0.0, &|k| b.nat[k]);
        fill(&mut self.idx, f64::MAX, &|k| k as f64);
        self.acc_p.clear();
        self.acc_p.resize(padded, 0.0);
        self.acc_n.clear();
        self.acc_n.resize(padded, 0.0);
    }

    /// Every match of a model of `right` (the winners) against one of
    /// `wrong`, the sites added to `precision` and `natural`.
    ///
    /// # Safety
    /// The CPU must run AVX-512 F and DQ.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) unsafe fn decisive(
        &mut self,
        right: &[usize],
        wrong: &[usize],
        b: &Beliefs<'_>,
        p: &TrueSkill,
        precision: &mut [f64],
        natural: &mut [f64],
    ) {
        self.gather(wrong, b);
        let n = wrong.len();
        let beta2 = _mm512_set1_pd(2.0 * p.beta * p.beta);
        let margin = _mm512_set1_pd(p.draw_margin);
        let one = _mm512_set1_pd(1.0);
        let floor = _mm512_set1_pd(1e-12);
        for &w in right {
            let (mw, s2w) = (_mm512_set1_pd(b.mu[w]), _mm512_set1_pd(b.s2[w]));
            let (invw, natw, iw) = (
                _mm512_set1_pd(b.inv[w]),
                _mm512_set1_pd(b.nat[w]),
                _mm512_set1_pd(w as f64),
            );
            let (mut acc_p, mut acc_n) = (_mm512_setzero_pd(), _mm512_setzero_pd());
            let mut at = 0;
            while at < n {
                let live = first(n - at);
                // SAFETY: `at + 8 <= padded`, the arrays' length.
                let load = |v: &[f64]| unsafe { _mm512_loadu_pd(v.as_ptr().add(at)) };
                let (ml, s2l, invl, natl, il) = (
                    load(&self.mu),
                    load(&self.s2),
                    load(&self.inv),
                    load(&self.nat),
                    load(&self.idx),
                );
                // c^2 = (2 beta^2 + sigma_lo^2) + sigma_hi^2, lo the lower index.
                let w_lo = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(iw, il);
                let lo = _mm512_mask_blend_pd(w_lo, s2l, s2w);
                let hi = _mm512_mask_blend_pd(w_lo, s2w, s2l);
                let c = _mm512_sqrt_pd(_mm512_add_pd(_mm512_add_pd(beta2, lo), hi));
                let t = _mm512_div_pd(_mm512_sub_pd(mw, ml), c);
                let x = if p.draw_margin == 0.0 {
                    t
                } else {
                    _mm512_sub_pd(t, _mm512_div_pd(margin, c))
                };
                let (v, wf) = corrections8(x);
                let ic = recip8(c);
                let ic2 = _mm512_mul_pd(ic, ic);
                let m_w = _mm512_fmadd_pd(_mm512_mul_pd(s2w, ic), v, mw);
                let m_l = _mm512_fnmadd_pd(_mm512_mul_pd(s2l, ic), v, ml);
                let shrink = |s2: __m512d| {
                    let f = _mm512_fnmadd_pd(_mm512_mul_pd(s2, ic2), wf, one);
                    recip8(_mm512_mul_pd(s2, _mm512_max_pd(f, floor)))
                };
                let (pw, pl) = (shrink(s2w), shrink(s2l));
                acc_p = _mm512_mask_add_pd(acc_p, live, acc_p, _mm512_sub_pd(pw, invw));
                acc_n = _mm512_mask_add_pd(acc_n, live, acc_n, _mm512_fmsub_pd(m_w, pw, natw));
                // SAFETY: as `load`.
                unsafe {
                    let ap = self.acc_p.as_mut_ptr().add(at);
                    _mm512_storeu_pd(ap, _mm512_add_pd(_mm512_loadu_pd(ap), _mm512_sub_pd(pl, invl)));
                    let an = self.acc_n.as_mut_ptr().add(at);
                    _mm512_storeu_pd(an, _mm512_add_pd(_mm512_loadu_pd(an), _mm512_fmsub_pd(m_l, pl, natl)));
                }
                at += 8;
            }
            precision[w] += sum8(acc_p);
            natural[w] += sum8(acc_n);
        }
        for (slot, &k) in wrong.iter().enumerate() {
            precision[k] += self.acc_p[slot];
            natural[k] += self.acc_n[slot];
        }
    }
}

/// `(v, w)` of a decisive match at `x = t - epsilon`, eight lanes (see the
/// module's note), `w` clamped to `[0, 1]`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn corrections8(x: __m512d) -> (__m512d, __m512d) {
    let zero = _mm512_setzero_pd();
    let one = _mm512_set1_pd(1.0);
    let y = _mm512_mul_pd(_mm512_abs_pd(x), _mm512_set1_pd(std::f64::consts::FRAC_1_SQRT_2));
    let ex = erfcx8(y);
    let neg = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, zero);
    let e = exp8_fma(_mm512_mul_pd(_mm512_sub_pd(zero, y), y));
    let den = _mm512_mask_blend_pd(neg, _mm512_fnmadd_pd(e, ex, _mm512_set1_pd(2.0)), ex);
    let num = _mm512_mask_blend_pd(neg, e, one);
    let sqrt_2_over_pi = _mm512_set1_pd((2.0 / std::f64::consts::PI).sqrt());
    let mut v = _mm512_mul_pd(sqrt_2_over_pi, _mm512_mul_pd(num, recip8(den)));
    let mut w = _mm512_mul_pd(v, _mm512_add_pd(v, x));
    let far = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, _mm512_set1_pd(-10.0));
    if far != 0 {
        // scorio's asymptotic series, lane by lane (rare: a 10-sigma upset).
        let (mut xs, mut vs, mut ws) = ([0.0f64; 8], [0.0f64; 8], [0.0f64; 8]);
        // SAFETY: each array holds eight doubles.
        unsafe {
            _mm512_storeu_pd(xs.as_mut_ptr(), x);
            _mm512_storeu_pd(vs.as_mut_ptr(), v);
            _mm512_storeu_pd(ws.as_mut_ptr(), w);
        }
        for q in 0..8 {
            if far >> q & 1 == 1 {
                (vs[q], ws[q]) = win_corrections(xs[q], 0.0);
            }
        }
        // SAFETY: as above.
        unsafe {
            v = _mm512_loadu_pd(vs.as_ptr());
            w = _mm512_loadu_pd(ws.as_ptr());
        }
    }
    (v, _mm512_min_pd(_mm512_max_pd(w, zero), one))
}
