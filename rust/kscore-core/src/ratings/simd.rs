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

/// `2^(j/16)`, `j = 0..16`, correctly rounded (mpmath).
const EXP2_SIXTEENTHS: [f64; 16] = [
    f64::from_bits(0x3ff0000000000000),
    f64::from_bits(0x3ff0b5586cf9890f),
    f64::from_bits(0x3ff172b83c7d517b),
    f64::from_bits(0x3ff2387a6e756238),
    f64::from_bits(0x3ff306fe0a31b715),
    f64::from_bits(0x3ff3dea64c123422),
    f64::from_bits(0x3ff4bfdad5362a27),
    f64::from_bits(0x3ff5ab07dd485429),
    f64::from_bits(0x3ff6a09e667f3bcd),
    f64::from_bits(0x3ff7a11473eb0187),
    f64::from_bits(0x3ff8ace5422aa0db),
    f64::from_bits(0x3ff9c49182a3f090),
    f64::from_bits(0x3ffae89f995ad3ad),
    f64::from_bits(0x3ffc199bdd85529c),
    f64::from_bits(0x3ffd5818dcfba487),
    f64::from_bits(0x3ffea4afa2a490da),
];

/// `ln`'s reduction by sixteenths: slot `k mod 16` of `k = 12..=24` holds
/// `r_k = 16 / k` rounded (exactly 1 at `k = 16`) and `-ln r_k` of that
/// double (mpmath, rounded); slots 9-11 are unused.
const LN_RECIP: [f64; 16] = [
    f64::from_bits(0x3ff0000000000000),
    f64::from_bits(0x3fee1e1e1e1e1e1e),
    f64::from_bits(0x3fec71c71c71c71c),
    f64::from_bits(0x3feaf286bca1af28),
    f64::from_bits(0x3fe999999999999a),
    f64::from_bits(0x3fe8618618618618),
    f64::from_bits(0x3fe745d1745d1746),
    f64::from_bits(0x3fe642c8590b2164),
    f64::from_bits(0x3fe5555555555555),
    1.0,
    1.0,
    1.0,
    f64::from_bits(0x3ff5555555555555),
    f64::from_bits(0x3ff3b13b13b13b14),
    f64::from_bits(0x3ff2492492492492),
    f64::from_bits(0x3ff1111111111111),
];
const LN_OF_RECIP: [f64; 16] = [
    0.0,
    f64::from_bits(0x3faf0a30c01162a8),
    f64::from_bits(0x3fbe27076e2af2ea),
    f64::from_bits(0x3fc5ff3070a793d6),
    f64::from_bits(0x3fcc8ff7c79a9a20),
    f64::from_bits(0x3fd1675cababa60f),
    f64::from_bits(0x3fd4618bc21c5ec2),
    f64::from_bits(0x3fd739d7f6bbd007),
    f64::from_bits(0x3fd9f323ecbf984d),
    0.0,
    0.0,
    0.0,
    f64::from_bits(0xbfd269621134db91),
    f64::from_bits(0xbfca93ed3c8ad9e5),
    f64::from_bits(0xbfc1178e8227e47a),
    f64::from_bits(0xbfb08598b59e3a06),
];

/// Sixteen doubles as two registers (for `vpermt2pd`).
#[inline]
#[target_feature(enable = "avx512f")]
fn table16(t: &[f64; 16]) -> (__m512d, __m512d) {
    // SAFETY: `t` holds sixteen doubles.
    unsafe { (_mm512_loadu_pd(t.as_ptr()), _mm512_loadu_pd(t.as_ptr().add(8))) }
}

/// `exp(x)` lane by lane for `x` in `[-746, 700]` (clamped there; callers
/// keep the result finite so that its reciprocal is).
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn exp8(x: __m512d) -> __m512d {
    let x = _mm512_min_pd(_mm512_max_pd(x, _mm512_set1_pd(-746.0)), _mm512_set1_pd(700.0));
    exp8_within(x)
}

/// `exp(x)` lane by lane for `x` in `[-746, 700]` (clamped there), without
/// a table: `numeric::expln`'s reduction to `|r| <= ln2/2` and its Taylor
/// polynomial of degree 13, the scaling by `vscalefpd`; every step on the
/// FMA ports (`exp8`'s table pick is a `vpermt2pd`, on the port that
/// TrueSkill's `erfcx8` already fills with its fifteen picks a block:
/// TrueSkill measured 0.89x with `exp8`, so it keeps this one).
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) fn exp8_fma(x: __m512d) -> __m512d {
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

/// `exp(x)` for `x` in `[-746, 700]` (unchecked): `x = k ln2/16 + r`
/// (`k = round(16 x / ln 2)`, `|r| <= ln2/32`, `k ln2/16` exact in two
/// parts), `exp x = 2^floor(k/16) 2^((k mod 16)/16) e^r` with the
/// sixteenths from a table by one `vpermt2pd` (the index is `k`'s low four
/// bits) and `e^r = 1 + r + r^2 p(r)` of degree 7 (truncation below 2e-18
/// relative), multiplied in as `t + t (r + r^2 p)` by one `fma`, the power
/// of two by `vscalefpd` (which floors its scale): about an ulp.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn exp8_within(x: __m512d) -> __m512d {
    let k = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(_mm512_mul_pd(
        x,
        _mm512_set1_pd(16.0 * std::f64::consts::LOG2_E),
    ));
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_HI / 16.0), x);
    let r = _mm512_fnmadd_pd(k, _mm512_set1_pd(LN2_LO / 16.0), r);
    let (lo, hi) = table16(&EXP2_SIXTEENTHS);
    let t = _mm512_permutex2var_pd(lo, _mm512_cvtpd_epi64(k), hi);
    let mut p = _mm512_set1_pd(1.0 / 5_040.0);
    for c in [1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5] {
        p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(c));
    }
    // r + r^2 p, then t (1 + that)
    let q = _mm512_fmadd_pd(_mm512_mul_pd(p, r), r, r);
    let e = _mm512_fmadd_pd(t, q, t);
    _mm512_scalef_pd(e, _mm512_mul_pd(k, _mm512_set1_pd(1.0 / 16.0)))
}

/// `ln(x)` lane by lane for positive normal finite `x`: `x = 2^e m` with
/// `m` in `[3/4, 3/2)` from `vgetmantpd`, `m = (k/16) (1 + rho)` with
/// `k = round(16 m)` in `12..=24` (`rho = m r_k - 1` by one `fma`, `|rho|
/// <= 1/24`; exactly `m - 1` at `k = 16`), `r_k` and `-ln r_k` from
/// `LN_RECIP`/`LN_OF_RECIP` by `vpermt2pd`, `ln(1 + rho)` by its series to
/// degree 11 (truncation below 3e-17): within a few 1e-17 absolute below 1.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn ln8(x: __m512d) -> __m512d {
    let one = _mm512_set1_pd(1.0);
    let m = _mm512_getmant_pd::<_MM_MANT_NORM_P75_1P5, _MM_MANT_SIGN_ZERO>(x);
    // getexp gives floor(log2 x); where m < 1 the mantissa was halved
    // (x = 2^(e + 1) m).
    let e = _mm512_getexp_pd(x);
    let e = _mm512_mask_add_pd(e, _mm512_cmp_pd_mask::<_CMP_LT_OQ>(m, one), e, one);
    let k = _mm512_cvtpd_epi64(_mm512_mul_pd(m, _mm512_set1_pd(16.0)));
    let (rlo, rhi) = table16(&LN_RECIP);
    let (llo, lhi) = table16(&LN_OF_RECIP);
    let rho = _mm512_fmsub_pd(m, _mm512_permutex2var_pd(rlo, k, rhi), one);
    let lnr = _mm512_permutex2var_pd(llo, k, lhi);
    // ln(1 + rho) = rho + rho^2 q(rho), q = -1/2 + rho/3 - ... + rho^9/11
    let mut q = _mm512_set1_pd(1.0 / 11.0);
    for c in [
        -1.0 / 10.0,
        1.0 / 9.0,
        -1.0 / 8.0,
        1.0 / 7.0,
        -1.0 / 6.0,
        1.0 / 5.0,
        -1.0 / 4.0,
        1.0 / 3.0,
        -0.5,
    ] {
        q = _mm512_fmadd_pd(q, rho, _mm512_set1_pd(c));
    }
    let lnm = _mm512_add_pd(lnr, _mm512_fmadd_pd(_mm512_mul_pd(rho, rho), q, rho));
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
            let mut f = [0.0; 8];
            let mut r = [0.0; 8];
            let mut d = [0.0; 8];
            // SAFETY: AVX-512 F checked above.
            unsafe {
                let v = _mm512_loadu_pd(x.as_ptr());
                _mm512_storeu_pd(e.as_mut_ptr(), exp8(v));
                _mm512_storeu_pd(f.as_mut_ptr(), exp8_fma(v));
                let dv = _mm512_add_pd(_mm512_set1_pd(1.0), exp8(v));
                _mm512_storeu_pd(d.as_mut_ptr(), dv);
                _mm512_storeu_pd(r.as_mut_ptr(), recip8(dv));
            }
            for q in 0..8 {
                let want = x[q].exp();
                if want > 1e-300 && want < 1e300 {
                    worst.0 = worst.0.max(ulps(e[q], want)).max(ulps(f[q], want));
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
