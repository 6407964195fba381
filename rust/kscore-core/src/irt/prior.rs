//! Ability priors: the penalty `P(theta)` of scorio's `Prior` classes, with
//! analytic first and second derivatives (scorio differentiates the
//! built-in priors the same way, `_prior_gradient`).

use crate::error::{Error, Result};

/// A prior on the abilities, summed over models.
#[derive(Clone, Debug, PartialEq)]
pub enum Prior {
    /// No penalty (`UniformPrior`, or a joint maximum-likelihood fit).
    Flat,
    /// `sum (theta_l - mean_l)^2 / (2 var_l)`: one mean and variance for all
    /// models (`GaussianPrior`), one mean each (`EmpiricalPrior`), or both
    /// per model (the quadratic stand-in for a custom prior).
    Gaussian { mean: Vec<f64>, var: Vec<f64> },
    /// `sum |theta_l - loc| / scale` (`LaplacePrior`): not differentiable
    /// at `loc`, where the driver holds an ability whose subgradient
    /// contains zero.
    Laplace { loc: f64, scale: f64 },
    /// `sum log(1 + ((theta_l - loc) / scale)^2)` (`CauchyPrior`): its
    /// curvature is negative beyond one scale from `loc`.
    Cauchy { loc: f64, scale: f64 },
}

impl Prior {
    /// Check the parameters against `n_theta` abilities.
    pub fn check(&self, n_theta: usize) -> Result<()> {
        let bad = match self {
            Prior::Flat => false,
            Prior::Gaussian { mean, var } => {
                let sized = |v: &Vec<f64>| v.len() == 1 || v.len() == n_theta;
                !sized(mean)
                    || !sized(var)
                    || mean.iter().any(|m| !m.is_finite())
                    || var.iter().any(|v| !(v.is_finite() && *v > 0.0))
            }
            Prior::Laplace { loc, scale } | Prior::Cauchy { loc, scale } => {
                !(loc.is_finite() && scale.is_finite() && *scale > 0.0)
            }
        };
        if bad {
            return Err(Error::value("irt: invalid prior parameters"));
        }
        Ok(())
    }

    /// The location of the Laplace kink and the slope either side.
    pub fn kink(&self) -> Option<(f64, f64)> {
        match self {
            Prior::Laplace { loc, scale } => Some((*loc, 1.0 / scale)),
            _ => None,
        }
    }

    /// Penalty of ability `j` at `t`, its derivative (for Laplace: away
    /// from the kink; 0 at it) and second derivative.
    #[inline]
    pub fn term(&self, j: usize, t: f64) -> (f64, f64, f64) {
        match self {
            Prior::Flat => (0.0, 0.0, 0.0),
            Prior::Gaussian { mean, var } => {
                let mu = if mean.len() == 1 { mean[0] } else { mean[j] };
                let v = if var.len() == 1 { var[0] } else { var[j] };
                let d = t - mu;
                (d * d / (2.0 * v), d / v, 1.0 / v)
            }
            Prior::Laplace { loc, scale } => {
                let d = t - loc;
                let g = if d > 0.0 {
                    1.0 / scale
                } else if d < 0.0 {
                    -1.0 / scale
                } else {
                    0.0
                };
                (d.abs() / scale, g, 0.0)
            }
            Prior::Cauchy { loc, scale } => {
                let z = (t - loc) / scale;
                let q = 1.0 + z * z;
                (
                    z.mul_add(z, 0.0).ln_1p(),
                    2.0 * z / (scale * q),
                    2.0 * (1.0 - z * z) / (scale * scale * q * q),
                )
            }
        }
    }
}
