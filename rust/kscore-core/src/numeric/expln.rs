//! `exp` and `ln` in straight-line arithmetic (no calls, no branches on
//! the value), so that loops over arrays vectorise: within 2 ulp of the
//! correctly rounded result on the whole range (checked against the C
//! library below). For kernels that take millions of them per call (the
//! rating systems' per-pair expectations, the Bradley-Terry sampler).

// ln 2 = LN2_HI + LN2_LO, the high part with 32 trailing zero bits (k * LN2_HI exact).
/// Whether this CPU runs AVX2 (detected once): kernels built on these
/// functions compile a copy of their loop for it and call it when true.
/// AVX2 without FMA rounds every operation as SSE2 does, so both copies
/// give the same bits.
#[inline]
pub fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::atomic::{AtomicU8, Ordering};
        static STATE: AtomicU8 = AtomicU8::new(0); // 0 unknown, 1 no, 2 yes
        match STATE.load(Ordering::Relaxed) {
            0 => {
                let yes = std::arch::is_x86_feature_detected!("avx2");
                STATE.store(if yes { 2 } else { 1 }, Ordering::Relaxed);
                yes
            }
            state => state == 2,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const LOG2_E: f64 = std::f64::consts::LOG2_E;
const ROUND: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
/// `2^52 + 1023`: an integer `n` in [-1023, 1024] added to it leaves the
/// biased exponent `n + 1023` in the low mantissa bits.
const BIAS: f64 = 4_503_599_627_371_519.0;
/// `2^52`: the exponent field `f` read as `f64::from_bits(MAGIC_BITS | f) - 2^52`.
const TWO52: f64 = 4_503_599_627_370_496.0;

/// `e^x` (0 below about -745, +inf above about 709.8, NaN for NaN).
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    let xc = x.clamp(-746.0, 710.0);
    // Round to nearest by the 1.5 * 2^52 shift (`f64::round` is a library
    // call without SSE4.1, and it would stop the loop vectorising).
    let k = (xc * LOG2_E + ROUND) - ROUND;
    let r = (xc - k * LN2_HI) - k * LN2_LO; // |r| <= ln2/2
                                            // Taylor series to r^13 (the remainder is below 2^-60 relative).
    let mut p = 1.0 / 6_227_020_800.0;
    p = p * r + 1.0 / 479_001_600.0;
    p = p * r + 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r * r + r;
    let p = 1.0 + p;
    // 2^k in two halves, each a normal power of two (k in [-1077, 1025]):
    // k1 = floor(k / 2), k2 = k - k1, each biased exponent read from the
    // mantissa of `k1 + 1023 + 2^52` (exact) and shifted into place, so that
    // no float-to-integer conversion stops the loop vectorising (AVX2 has
    // none for 64-bit integers).
    let k1 = ((k * 0.5 - 0.25) + ROUND) - ROUND; // floor(k / 2): k / 2 - 1/4 to nearest
    let k2 = k - k1;
    let s1 = f64::from_bits((k1 + BIAS).to_bits() << 52);
    let s2 = f64::from_bits((k2 + BIAS).to_bits() << 52);
    let out = p * s1 * s2;
    if x.is_nan() {
        x
    } else {
        out
    }
}

/// `ln x` for positive finite `x` (subnormals included); `-inf` at 0,
/// NaN below 0 or for NaN, `+inf` at `+inf`.
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    // Scale subnormals into the normal range.
    let tiny = x < f64::MIN_POSITIVE;
    let xs = if tiny { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let bits = xs.to_bits();
    // The exponent field as a float without an integer conversion (none
    // vectorises for 64-bit lanes under AVX2): exact, as every step is.
    let field = f64::from_bits(TWO52.to_bits() | ((bits >> 52) & 0x7ff)) - TWO52;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000); // [1, 2)
    let big = m > std::f64::consts::SQRT_2;
    let m = if big { m * 0.5 } else { m };
    let e = (field - 1023.0) + if big { 1.0 } else { 0.0 };
    let e = e - if tiny { 54.0 } else { 0.0 };
    // ln m = 2 atanh(s), s = (m - 1) / (m + 1), |s| <= 0.1716.
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let s2 = s * s;
    let mut q = 1.0 / 23.0;
    q = q * s2 + 1.0 / 21.0;
    q = q * s2 + 1.0 / 19.0;
    q = q * s2 + 1.0 / 17.0;
    q = q * s2 + 1.0 / 15.0;
    q = q * s2 + 1.0 / 13.0;
    q = q * s2 + 1.0 / 11.0;
    q = q * s2 + 1.0 / 9.0;
    q = q * s2 + 1.0 / 7.0;
    q = q * s2 + 1.0 / 5.0;
    q = q * s2 + 1.0 / 3.0;
    // 2s = f - hfsq + s hfsq (hfsq = f^2/2), so
    // ln m = 2s + s R = f - (hfsq - s (hfsq + R)), R = 2 s^2 q: f stays exact.
    let hfsq = 0.5 * f * f;
    let lnm = f - (hfsq - s * (hfsq + 2.0 * s2 * q));
    let out = e * LN2_HI + (lnm + e * LN2_LO);
    if x > 0.0 && x < f64::INFINITY {
        out
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x == f64::INFINITY {
        x
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    extern "C" {
        #[link_name = "exp"]
        fn c_exp(x: f64) -> f64;
        #[link_name = "log"]
        fn c_log(x: f64) -> f64;
    }

    fn ulps(a: f64, b: f64) -> u64 {
        if a == b {
            return 0;
        }
        (a.to_bits() as i64 - b.to_bits() as i64).unsigned_abs()
    }

    /// The scaling as it was written with integer arithmetic (`k as i64`,
    /// `k >> 1`, the exponent field as `i64`): the float forms above must
    /// give the same bits.
    fn exp_integer_scaling(x: f64) -> f64 {
        let xc = x.clamp(-746.0, 710.0);
        let k = (xc * LOG2_E + ROUND) - ROUND;
        let r = (xc - k * LN2_HI) - k * LN2_LO;
        let e = exp(r); // |r| <= ln2/2: k = 0 there, no scaling
        let k = k as i64;
        let k1 = k >> 1;
        let k2 = k - k1;
        let s1 = f64::from_bits(((k1 + 1023) as u64) << 52);
        let s2 = f64::from_bits(((k2 + 1023) as u64) << 52);
        e * s1 * s2
    }

    fn ln_integer_exponent(x: f64) -> f64 {
        let tiny = x < f64::MIN_POSITIVE;
        let xs = if tiny { x * 18_014_398_509_481_984.0 } else { x };
        let bits = xs.to_bits();
        let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
        let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
        if m > std::f64::consts::SQRT_2 {
            m *= 0.5;
            e += 1;
        }
        let e = (e - if tiny { 54 } else { 0 }) as f64;
        // ln(m) through the float-exponent path, whose exponent is then 0.
        let lnm = ln(m);
        e * LN2_HI + (lnm + e * LN2_LO)
    }

    #[test]
    fn float_scaling_equals_integer_scaling_bit_for_bit() {
        let mut state = 0x0fed_cba9_8765_4321u64;
        for k in 0..200_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = match k % 4 {
                0 => (u - 0.5) * 1500.0,
                1 => (u - 0.5) * 60.0,
                2 => -746.0 + u * 4.0,
                _ => 705.0 + u * 6.0,
            };
            assert_eq!(exp(x).to_bits(), exp_integer_scaling(x).to_bits(), "exp({x})");
            let y = f64::from_bits(state >> 1); // every positive float, subnormals too
            if y.is_finite() && y > 0.0 {
                assert_eq!(ln(y).to_bits(), ln_integer_exponent(y).to_bits(), "ln({y})");
            }
        }
        for k in -1076i32..=1025 {
            let x = k as f64 * std::f64::consts::LN_2;
            assert_eq!(exp(x).to_bits(), exp_integer_scaling(x).to_bits(), "exp({x})");
        }
    }

    #[test]
    fn within_two_ulps_of_the_c_library() {
        let mut state = 0x1234_5678_9abc_def0u64;
        let mut worst = (0u64, 0u64);
        for k in 0..400_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let u = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = match k % 4 {
                0 => (u - 0.5) * 1400.0,
                1 => (u - 0.5) * 40.0,
                2 => (u - 0.5) * 1e-3,
                _ => -745.0 + u * 40.0,
            };
            // SAFETY: pure C library functions.
            let (ce, cl) = unsafe { (c_exp(x), c_log(x.abs() * 1e3 + 1e-300)) };
            worst.0 = worst.0.max(ulps(exp(x), ce));
            worst.1 = worst.1.max(ulps(ln(x.abs() * 1e3 + 1e-300), cl));
        }
        assert!(worst.0 <= 2 && worst.1 <= 2, "{worst:?}");
        assert_eq!(exp(0.0), 1.0);
        assert_eq!(ln(1.0), 0.0);
        assert_eq!(exp(-800.0), 0.0);
        assert_eq!(exp(800.0), f64::INFINITY);
        assert_eq!(ln(0.0), f64::NEG_INFINITY);
        assert!(ln(-1.0).is_nan() && exp(f64::NAN).is_nan());
        // Subnormal arguments and results.
        assert!((ln(5e-324) / -744.440_071_921_381 - 1.0).abs() < 1e-15);
        assert!((exp(-740.0) / 4.2e-322 - 1.0).abs() < 1e-2);
    }
}
