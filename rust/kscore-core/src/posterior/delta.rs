//! The geometric blend `G(x, y) = x^a y^b` and its first-order delta-method
//! variance (docs/kernels.md, K9), with scorio's zero rules and Python-float `**` semantics.
//!
//! One deliberate deviation (docs/kernels.md, K15): scorio squares the gradient with Python's
//! `**`, which raises OverflowError when a posterior mean is subnormal (the
//! gradient then exceeds sqrt(DBL_MAX)) although the variance itself is
//! tiny and finite. Here that case is evaluated in log space and the finite
//! answer is returned. An overflow of the blend itself (an infinite mean)
//! still raises OverflowError as in scorio.

use crate::error::{Error, Result};
use crate::finite::credit::Credit;
use crate::intake::histogram::Histogram;
use crate::numeric::sum::Neumaier;
use crate::posterior::credit_moments;

/// Exponents and their Python `str` (for scorio's messages).
#[derive(Clone, Copy, Debug)]
pub struct Powers<'a> {
    pub a: f64,
    pub b: f64,
    pub a_text: &'a str,
    pub b_text: &'a str,
}

fn overflow() -> Error {
    Error::Overflow("Numerical result out of range".into())
}

/// Python's `float ** float` for the non-negative bases used here.
fn py_pow(x: f64, p: f64) -> Result<f64> {
    let r = x.powf(p);
    if r.is_infinite() && x.is_finite() && p.is_finite() {
        Err(overflow())
    } else {
        Ok(r)
    }
}

/// `x^a * y^b` with scorio's rules for zero bases.
pub fn blend(x: f64, y: f64, p: &Powers<'_>) -> Result<f64> {
    let (a, b) = (p.a, p.b);
    if a == 0.0 && b == 0.0 {
        return Err(Error::value("at least one power must be non-zero"));
    }
    if x == 0.0 && a < 0.0 {
        if y == 0.0 && b > 0.0 {
            return Ok(0.0);
        }
        return Err(Error::value(format!(
            "x_power must be non-negative when x is zero; got x_power={}",
            p.a_text
        )));
    }
    if y == 0.0 && b < 0.0 {
        if x == 0.0 && a > 0.0 {
            return Ok(0.0);
        }
        return Err(Error::value(format!(
            "y_power must be non-negative when y is zero; got y_power={}",
            p.b_text
        )));
    }
    Ok(py_pow(x, a)? * py_pow(y, b)?)
}

/// `(G(mx, my), Var)` by the delta method; `Var = max(0, .)` (NaN -> 0).
pub fn delta(mx: f64, vx: f64, my: f64, vy: f64, cov: f64, p: &Powers<'_>) -> Result<(f64, f64)> {
    let mean = blend(mx, my, p)?;
    if mean == 0.0 {
        return Ok((0.0, 0.0));
    }
    let (a, b) = (p.a, p.b);
    let gx = if a != 0.0 {
        a * mx.powf(a - 1.0) * my.powf(b)
    } else {
        0.0
    };
    let gy = if b != 0.0 {
        b * mx.powf(a) * my.powf(b - 1.0)
    } else {
        0.0
    };
    let direct = [gx, gy, gx * gx, gy * gy].iter().all(|v| v.is_finite());
    let var = if direct {
        (gx * gx) * vx + (gy * gy) * vy + 2.0 * gx * gy * cov
    } else {
        // Scaled gradients s = g sqrt(v), formed in log space.
        let scaled = |w: f64, lx: f64, ly: f64, v: f64| -> f64 {
            if w == 0.0 || v <= 0.0 {
                return 0.0;
            }
            w.signum() * (w.abs().ln() + lx + ly + 0.5 * v.ln()).exp()
        };
        let sx = scaled(a, (a - 1.0) * mx.ln(), b * my.ln(), vx);
        let sy = scaled(b, a * mx.ln(), (b - 1.0) * my.ln(), vy);
        let rho = if vx > 0.0 && vy > 0.0 {
            (cov / (vx.sqrt() * vy.sqrt())).clamp(-1.0, 1.0)
        } else {
            0.0
        };
        sx * sx + sy * sy + 2.0 * sx * sy * rho
    };
    Ok((mean, if var > 0.0 { var } else { 0.0 }))
}

/// Questionwise Geom@k posterior: the delta method per state on the joint
/// Pass@k / Unanimous@k moments, then `(f . mean / M, f . var / M^2)`.
/// States are visited in ascending count so the first offender raises.
pub fn geom_questionwise(hist: &Histogram, k: u64, p: &Powers<'_>, alpha0: f64, beta0: f64) -> Result<(f64, f64)> {
    let j = credit_moments::joint(hist, &Credit::pass(k), &Credit::unanimous(k), alpha0, beta0)?;
    let mut mean = Neumaier::new();
    let mut var = Neumaier::new();
    for i in 0..hist.values.len() {
        let (m, v) = delta(
            j.left.state_means[i],
            j.left.state_vars[i],
            j.right.state_means[i],
            j.right.state_vars[i],
            j.state_covs[i],
            p,
        )?;
        let f = hist.freqs[i] as f64;
        mean.add(f * m);
        var.add(f * v);
    }
    let m = hist.rows();
    Ok((mean.value() / m as f64, var.value() / ((m as u128 * m as u128) as f64)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HALF: Powers<'static> = Powers {
        a: 0.5,
        b: 0.5,
        a_text: "0.5",
        b_text: "0.5",
    };

    #[test]
    fn zero_rules_and_messages() {
        let p = Powers {
            a: -1.0,
            b: 0.5,
            a_text: "-1",
            b_text: "0.5",
        };
        assert_eq!(
            blend(0.0, 0.3, &p).unwrap_err(),
            Error::value("x_power must be non-negative when x is zero; got x_power=-1")
        );
        assert_eq!(blend(0.0, 0.0, &p).unwrap(), 0.0);
        let z = Powers {
            a: 0.0,
            b: 0.0,
            a_text: "0",
            b_text: "0",
        };
        assert_eq!(
            blend(0.5, 0.5, &z).unwrap_err(),
            Error::value("at least one power must be non-zero")
        );
    }

    #[test]
    fn matches_first_order_formula() {
        let (m, v) = delta(0.8, 0.01, 0.2, 0.004, 0.001, &HALF).unwrap();
        assert!((m - 0.4).abs() < 1e-16);
        let gx = 0.5 * (0.2f64 / 0.8).sqrt();
        let gy = 0.5 * (0.8f64 / 0.2).sqrt();
        let want = gx * gx * 0.01 + gy * gy * 0.004 + 2.0 * gx * gy * 0.001;
        assert!((v - want).abs() < 1e-17);
    }

    #[test]
    fn subnormal_mean_gives_a_finite_variance() {
        // scorio raises OverflowError here (gy^2 > DBL_MAX).
        let my = 5e-324;
        let (m, v) = delta(0.9, 1e-4, my, 1e-323, 0.0, &HALF).unwrap();
        assert!(m > 0.0 && v.is_finite() && v > 0.0);
    }
}
