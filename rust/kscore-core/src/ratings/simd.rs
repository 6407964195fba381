//! Eight-lane AVX-512 pieces of the per-pair loops (Glicko's expectations,
//! Elo's shares): `exp` as `numeric::expln`'s (the same reduction and
//! polynomial, the scaling by `vscalefpd`) and the reciprocal from
//! `vrcp14pd` refined by two Newton steps (relative error 2^-14, then 2^-28,
//! then below 2^-53 before the last rounding: within an ulp or two of the
//! division, at a fraction of `vdivpd`'s cost, which bounds these loops).
//!
//! Every function here must be called from code compiled with AVX-512 F
//! (and DQ): the callers check `super::has_avx512` once.

#![cfg(target_arch = "x86_64")]

use std::arch::x86_64::*;

const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);

/// `exp(x)` lane by lane for `x` in `[-746, 700]` (clamped there; callers
/// keep the result finite so that its reciprocal is).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn exp8(x: __m512d) -> __m512d {
    let x = _mm512_min_pd(_mm512_max_pd(x, _mm512_set1_pd(-746.0)), _mm512_set1_pd(700.0));
    // k = round(x / ln 2), r = x - k ln 2 in two parts (|r| <= ln2/2).
    let k = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_pd(
        x,
        _mm512_set1_pd(std::f64::consts::LOG2_E),
    ));
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_HI), x);
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_LO), r);
    let mut p = _mm512_set1_pd(1.0 / 6_227_020_800.0);
    for c in [
        1.0 / 479_001_600.0,
        1.0 / 39_916_800.0,
        1.0 / 3_628_800.0,
        1.0 / 362_880.0,
        1.0 / 40_320.0,
        1.0 / 5_040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
    ] {
        p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(c));
    }
    // 1 + r + r^2 p
    let p = _mm512_fmadd_pd(_mm512_mul_pd(p, r), r, r);
    let p = _mm512_add_pd(_mm512_set1_pd(1.0), p);
    _mm512_scalef_pd(p, k)
}

/// `ln(x)` lane by lane for positive normal finite `x`: `numeric::expln::ln`'s
/// reduction and series (`x = 2^e m`, `s = (m - 1) / (m + 1)`,
/// `ln m = 2 atanh s`), with `m` in `[3/4, 3/2)` from `vgetmantpd` and `s`'s
/// division by `recip8`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn ln8(x: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let m = _mm512_getmant_pd::<_MM_MANT_NORM_P75_1P5, _MM_MANT_SIGN_ZERO>(x);
    // getexp gives floor(log2 x); where m < 1 the mantissa was halved
    // (x = 2^(e + 1) m).
    let e = _mm512_getexp_pd(x);
    let e = _mm512_mask_add_pd(e, _mm512_cmp_pd_mask::<_CMP_LT_OQ>(m, one), e, one);
    let f = _mm512_sub_pd(m, one);
    let s = _mm512_mul_pd(f, recip8(_mm512_add_pd(_mm512_set1_pd(2.0), f)));
    let s2 = _mm512_mul_pd(s, s);
    let mut q = _mm512_set1_pd(1.0 / 23.0);
    for c in [21.0, 19.0, 17.0, 15.0, 13.0, 11.0, 9.0, 7.0, 5.0, 3.0] {
        q = _mm512_fmadd_pd(q, s2, _mm512_set1_pd(1.0 / c));
    }
    let hfsq = _mm512_mul_pd(_mm512_mul_pd(_mm512_set1_pd(0.5), f), f);
    // f - (hfsq - s (hfsq + 2 s2 q))
    let inner = _mm512_fmadd_pd(_mm512_mul_pd(_mm512_set1_pd(2.0), s2), q, hfsq);
    let lnm = _mm512_sub_pd(f, _mm512_fnmadd_pd(s, inner, hfsq));
    _mm512_fmadd_pd(
        e,
        _mm512_set1_pd(LN2_HI),
        _mm512_fmadd_pd(e, _mm512_set1_pd(LN2_LO), lnm),
    )
}

/// `1 / d` lane by lane for finite positive normal `d`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn recip8(d: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let mut y = _mm512_rcp14_pd(d);
    for _ in 0..2 {
        let e = _mm512_fnmadd_pd(d, y, one); // 1 - d y
        y = _mm512_fmadd_pd(y, e, y);
    }
    y
}

/// `erfcx(y) = exp(y^2) erfc(y)` lane by lane for `y` in `[0, 8)` (clamped
/// there): the interval `k = floor(2 y)`'s polynomial of degree 14 in
/// `h = y - (k/2 + 1/4)` (`erfcx_table.rs`, fitted to 2e-18 relative),
/// each degree's sixteen coefficients picked by one `vpermt2pd`. Within an
/// ulp or two of `normal::erfcx` (the C library's `erfc` times
/// `exp(y^2)`; the test below sweeps `[0, 8)`).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn erfcx8(y: __m512d) -> __m512d {
    use super::erfcx_table::ERFCX_POLY;
    let y = _mm512_min_pd(
        _mm512_max_pd(y, _mm512_setzero_pd()),
        _mm512_set1_pd(f64::from_bits(8.0f64.to_bits() - 1)),
    );
    let k = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(_mm512_add_pd(y, y));
    // k/2 + 1/4 is exact, and so is y minus it (within a factor 2 of y) but
    // below y = 1/8, where its rounding is under 2^-56.
    let h = _mm512_sub_pd(y, _mm512_fmadd_pd(k, _mm512_set1_pd(0.5), _mm512_set1_pd(0.25)));
    let idx = _mm512_cvtpd_epi64(k);
    let pick = |row: &[f64; 16]| {
        // SAFETY: each row holds sixteen doubles.
        let (lo, hi) = unsafe { (_mm512_loadu_pd(row.as_ptr()), _mm512_loadu_pd(row.as_ptr().add(8))) };
        _mm512_permutex2var_pd(lo, idx, hi)
    };
    let mut p = pick(&ERFCX_POLY[0]);
    for row in &ERFCX_POLY[1..] {
        p = _mm512_fmadd_pd(p, h, pick(row));
    }
    p
}

/// The mask of the first `n` lanes (`n <= 8`).
#[inline]
pub(crate) fn first(n: usize) -> __mmask8 {
    ((1u16 << n.min(8)) - 1) as __mmask8
}

/// `n <= 8` values from `a` into the low lanes, `fill` elsewhere.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn load_or(a: &[f64], fill: f64) -> __m512d {
    let n = a.len().min(8);
    // SAFETY: the mask covers the first `n` lanes, all inside `a`.
    unsafe { _mm512_mask_loadu_pd(_mm512_set1_pd(fill), first(n), a.as_ptr()) }
}

/// The low `min(8, a.len())` lanes of `v` into `a`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn store_first(a: &mut [f64], v: __m512d) {
    let n = a.len().min(8);
    // SAFETY: the mask covers the first `n` lanes, all inside `a`.
    unsafe { _mm512_mask_storeu_pd(a.as_mut_ptr(), first(n), v) }
}

/// `sum_{i<j} n_ij ln(a_i + a_j)` over the rows of `n` (row `i`: the pairs
/// `j > i`), eight lanes (a row's last block padded with `n = 0`, `a = 1`).
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn pair_logs8(a: &[f64], n: &[f64]) -> f64 {
    let mut lanes = _mm512_setzero_pd();
    let mut at = 0;
    for i in 0..a.len() {
        let ai = _mm512_set1_pd(a[i]);
        let later = &a[i + 1..];
        let Some(row) = n.get(at..at + later.len()) else {
            break;
        };
        at += later.len();
        let mut j = 0;
        while j < later.len() {
            let end = (j + 8).min(later.len());
            let aj = load_or(&later[j..end], 1.0);
            let nj = load_or(&row[j..end], 0.0);
            lanes = _mm512_fmadd_pd(nj, ln8(_mm512_add_pd(ai, aj)), lanes);
            j = end;
        }
    }
    sum8(lanes)
}

/// The sum of the eight lanes in a fixed order.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn sum8(v: __m512d) -> f64 {
    let mut a = [0.0f64; 8];
    // SAFETY: `a` holds eight doubles.
    unsafe { _mm512_storeu_pd(a.as_mut_ptr(), v) };
    ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    #[test]
    fn exp8_and_recip8_against_the_library() {
        if !super::super::has_avx512() {
            return;
        }
        let mut state = 0x1234_5678_9abc_def1u64;
        let mut worst = (0u64, 0u64);
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x: Vec<f64> = (0..8).map(|q| (u - 0.5) * 1400.0 / (1.0 + q as f64 * 9.0)).collect();
            let mut e = [0.0; 8];
            let mut r = [0.0; 8];
            let mut d = [0.0; 8];
            // SAFETY: AVX-512 F checked above.
            unsafe {
                let v = _mm512_loadu_pd(x.as_ptr());
                _mm512_storeu_pd(e.as_mut_ptr(), exp8(v));
                let dv = _mm512_add_pd(_mm512_set1_pd(1.0), exp8(v));
                _mm512_storeu_pd(d.as_mut_ptr(), dv);
                _mm512_storeu_pd(r.as_mut_ptr(), recip8(dv));
            }
            for q in 0..8 {
                let want = x[q].exp();
                if want > 1e-300 && want < 1e300 {
                    worst.0 = worst.0.max(ulps(e[q], want));
                }
                if d[q] < 1e300 {
                    worst.1 = worst.1.max(ulps(r[q], 1.0 / d[q]));
                }
            }
        }
        // Within 2 ulps of the library's exp and of the division.
        assert!(worst.0 <= 2 && worst.1 <= 2, "{worst:?}");
    }

    #[test]
    fn erfcx8_against_the_truth_and_the_library() {
        if !super::super::has_avx512() {
            return;
        }
        use super::super::erfcx_table::ERFCX_CHECK;
        use super::super::normal::{erfc, erfcx};
        let eval = |y: &[f64; 8]| {
            let mut out = [0.0f64; 8];
            // SAFETY: AVX-512 F and DQ checked above.
            unsafe { _mm512_storeu_pd(out.as_mut_ptr(), erfcx8(_mm512_loadu_pd(y.as_ptr()))) };
            out
        };
        // 1,024 points against erfcx correctly rounded (mpmath): within 2 ulps.
        let mut worst_true = 0u64;
        for block in ERFCX_CHECK.chunks_exact(8) {
            let y: [f64; 8] = std::array::from_fn(|q| block[q].0);
            let out = eval(&y);
            for q in 0..8 {
                worst_true = worst_true.max(ulps(out[q], block[q].1));
            }
        }
        assert!(worst_true <= 2, "erfcx against the truth: {worst_true} ulps");
        // Every 2^-17 of [0, 8) (a million points) against the library's
        // erfcx (exp(y^2) erfc(y): itself up to 3 ulps from the truth, so up
        // to 4 apart), and erfc = exp(-y^2) erfcx(y) against the C library's
        // erfc where it is above 1e-300: the rounding of y^2 (up to 64) in
        // exp's argument shows there, about y^2 ulps; TrueSkill uses it only
        // as 2 - erfc (y >= 0), where it is at most a quarter of the sum.
        let (mut worst_x, mut worst_c) = (0u64, 0.0f64);
        let step = 1.0 / (1u64 << 17) as f64;
        let mut k = 0u64;
        while (k as f64) * step < 8.0 {
            let y: [f64; 8] = std::array::from_fn(|q| ((k + q as u64) as f64 * step).min(8.0 - f64::EPSILON * 4.0));
            let out = eval(&y);
            for q in 0..8 {
                worst_x = worst_x.max(ulps(out[q], erfcx(y[q])));
                let c = erfc(y[q]);
                if c > 1e-300 {
                    let ours = crate::numeric::expln::exp(-y[q] * y[q]) * out[q];
                    worst_c = worst_c.max((ours - c).abs() / c);
                }
            }
            k += 8;
        }
        assert!(worst_x <= 4, "erfcx against the library's: {worst_x} ulps");
        assert!(worst_c < 2e-14, "erfc: {worst_c}");
    }

    #[test]
    fn ln8_against_the_library() {
        if !super::super::has_avx512() {
            return;
        }
        let mut state = 0x0bad_5eed_1234_5679u64;
        let mut worst = 0.0f64;
        for _ in 0..20_000 {
            let mut x = [0.0f64; 8];
            for (q, v) in x.iter_mut().enumerate() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                // (0, 2] as the sampler's sums, and far out.
                *v = if q < 6 {
                    2.0 * u + 1e-9
                } else {
                    (u * 1400.0 - 700.0).exp()
                };
            }
            let mut out = [0.0f64; 8];
            // SAFETY: AVX-512 F checked above.
            unsafe { _mm512_storeu_pd(out.as_mut_ptr(), ln8(_mm512_loadu_pd(x.as_ptr()))) };
            for q in 0..8 {
                let want = x[q].ln();
                worst = worst.max((out[q] - want).abs() / want.abs().max(1.0));
            }
        }
        assert!(worst < 4e-16, "{worst}");
    }
}
