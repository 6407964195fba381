//! The normal-distribution functions of TrueSkill's updates: `erfc` from
//! the C library (correctly rounded to within an ulp in glibc, musl and
//! the Windows CRT), the scaled `erfcx`, `log_ndtr` as scipy computes it,
//! and the truncated normal's mean and variance.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

extern "C" {
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
}

/// The complementary error function.
#[inline]
pub fn erfc(x: f64) -> f64 {
    // SAFETY: `erfc` is a pure function of the C math library (linked by std).
    unsafe { c_erfc(x) }
}

/// `exp(y * y)` with `y * y` split exactly into two doubles (Dekker), so
/// that the square's rounding does not reach the result (about 1e-14
/// relative at `y = 7` otherwise).
#[inline]
fn exp_square(y: f64) -> f64 {
    const SPLIT: f64 = 134_217_729.0; // 2^27 + 1
    let c = SPLIT * y;
    let hi_y = c - (c - y);
    let lo_y = y - hi_y;
    let hi = y * y;
    let lo = ((hi_y * hi_y - hi) + 2.0 * hi_y * lo_y) + lo_y * lo_y;
    hi.exp() * (1.0 + lo)
}

/// The scaled complementary error function `exp(y^2) erfc(y)`, `y >= 0`.
pub fn erfcx(y: f64) -> f64 {
    if y < 26.0 {
        return exp_square(y) * erfc(y);
    }
    // Asymptotic series: 1/(y sqrt(pi)) (1 - 1/(2y^2) + 3/(2y^2)^2 - 15/(2y^2)^3 + ...)
    let z = 1.0 / (2.0 * y * y);
    let series = 1.0 - z * (1.0 - 3.0 * z * (1.0 - 5.0 * z * (1.0 - 7.0 * z * (1.0 - 9.0 * z))));
    series / (y * PI.sqrt())
}

/// `log Phi(x)`, as scipy's `log_ndtr`: `log(erfcx(-x/sqrt2)/2) - x^2/2`
/// below -1, `log1p(-erfc(x/sqrt2)/2)` from there.
pub fn log_ndtr(x: f64) -> f64 {
    let t = x * FRAC_1_SQRT_2;
    if x < -1.0 {
        (erfcx(-t) / 2.0).ln() - t * t
    } else {
        (-erfc(t) / 2.0).ln_1p()
    }
}

/// Mean and variance of the standard normal truncated to `[a, b]`
/// (`a < b`), computed on the side of the interval nearer the mode with
/// scaled tails (no underflow, no cancellation between two tails).
pub fn truncated_moments(a: f64, b: f64) -> (f64, f64) {
    // Reflect so that the interval does not lie wholly right of 0.
    if a > 0.0 {
        let (m, v) = truncated_moments(-b, -a);
        return (-m, v);
    }
    let sqrt_2_over_pi = (2.0 / PI).sqrt();
    if b <= 0.0 {
        // Both ends left of 0: Phi(x) = erfcx(-x/sqrt2) exp(-x^2/2) / 2.
        // With r = exp((b^2 - a^2)/2) <= 1 and D = erfcx(-b/s) - r erfcx(-a/s):
        // phi(a)/Z = sqrt(2/pi) r / D, phi(b)/Z = sqrt(2/pi) / D.
        let r = (0.5 * (b - a) * (b + a)).exp();
        let d = erfcx(-b * FRAC_1_SQRT_2) - r * erfcx(-a * FRAC_1_SQRT_2);
        let (pa, pb) = (sqrt_2_over_pi * r / d, sqrt_2_over_pi / d);
        let mean = pa - pb;
        return (mean, 1.0 + (a * pa - b * pb) - mean * mean);
    }
    // a <= 0 < b: Z = 1 - Phi(a) - (1 - Phi(b)), each tail from erfc.
    let z = 1.0 - 0.5 * erfc(-a * FRAC_1_SQRT_2) - 0.5 * erfc(b * FRAC_1_SQRT_2);
    let phi = |x: f64| (-0.5 * x * x).exp() / (2.0 * PI).sqrt();
    let (pa, pb) = (phi(a) / z, phi(b) / z);
    let mean = pa - pb;
    (mean, 1.0 + (a * pa - b * pb) - mean * mean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // erfc(1) and erfcx(1), erfcx(30) (mpmath, 17 digits).
        assert!((erfc(1.0) - 0.157_299_207_050_285_1).abs() < 6e-17);
        assert!((erfcx(1.0) - 0.427_583_576_155_807).abs() < 1e-16);
        assert!((erfcx(30.0) / 0.018_795_888_861_416_75 - 1.0).abs() < 1e-15);
        assert!((erfcx(7.0) / 0.079_800_054_329_152_94 - 1.0).abs() < 1e-15);
        // log_ndtr(-3) = log(0.0013498980316300946)
        let want = 0.001_349_898_031_630_094_5f64.ln();
        assert!((log_ndtr(-3.0) - want).abs() < 2e-15 * want.abs());
        assert!((log_ndtr(2.0) - 0.977_249_868_051_820_8f64.ln()).abs() < 1e-16);
    }

    #[test]
    fn truncated_moments_by_quadrature() {
        for (a, b) in [
            (-1.0, 2.0),
            (0.5, 1.5),
            (-3.0, -2.5),
            (2.0, 9.0),
            (-8.0, -7.9),
            (-0.1, 0.1),
        ] {
            // Simpson's rule on the density.
            let n = 20_000;
            let h = (b - a) / n as f64;
            let f = |x: f64| (-0.5 * x * x).exp();
            let mut m = [0.0; 3];
            for k in 0..=n {
                let x = a + k as f64 * h;
                let w = if k == 0 || k == n {
                    1.0
                } else if k % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                for (p, mp) in m.iter_mut().enumerate() {
                    *mp += w * f(x) * x.powi(p as i32);
                }
            }
            let mean = m[1] / m[0];
            let var = m[2] / m[0] - mean * mean;
            let (gm, gv) = truncated_moments(a, b);
            assert!((gm - mean).abs() < 1e-9 * (1.0 + mean.abs()), "{a} {b}: {gm} {mean}");
            assert!((gv - var).abs() < 1e-8 * var.max(1e-3), "{a} {b}: {gv} {var}");
        }
    }
}
