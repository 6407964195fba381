//! Penalties on the log-strengths `theta` (minus a log-prior): the kinds
//! with analytic derivatives, and a hook for anything else.

use crate::error::Result;

/// A penalty with analytic derivatives.
#[derive(Clone, Copy, Debug)]
pub enum Prior<'a> {
    /// No penalty (maximum likelihood).
    None,
    /// `sum_i precision_i (theta_i - mean_i)^2 / 2` (an L2 penalty; scorio's
    /// `GaussianPrior`/`EmpiricalPrior` with `precision = 1 / var`).
    Gaussian { mean: &'a [f64], precision: &'a [f64] },
    /// `weight * sum_i |theta_i - loc|` (scorio's `LaplacePrior`, `weight = 1 / scale`):
    /// treated exactly by the solver's active set (coordinates may sit at `loc`).
    Laplace { loc: f64, weight: f64 },
    /// `sum_i log(1 + ((theta_i - loc) / scale)^2)` (scorio's `CauchyPrior`); not convex.
    Cauchy { loc: f64, scale: f64 },
}

/// Any other penalty of `theta` (a user's function): its value and, when
/// asked, its gradient and Hessian diagonal added into the two slices
/// (numeric derivatives are the hook's business). Must be callable from any
/// thread.
pub trait Hook: Sync {
    fn eval(&self, theta: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64>;
}

impl Prior<'_> {
    /// Whether every item's strength is held by the penalty, so that any
    /// comparison graph has a finite optimum.
    pub fn holds_every_item(&self, items: usize) -> bool {
        match *self {
            Prior::None => false,
            Prior::Gaussian { precision, .. } => precision.len() == items && precision.iter().all(|&p| p > 0.0),
            Prior::Laplace { weight, .. } => weight > 0.0,
            Prior::Cauchy { .. } => true,
        }
    }

    /// Check the parameters against the number of items.
    pub fn check(&self, items: usize) -> Result<()> {
        use crate::error::Error;
        match *self {
            Prior::None => Ok(()),
            Prior::Gaussian { mean, precision } => {
                if mean.len() != items || precision.len() != items {
                    return Err(Error::value(format!(
                        "prior: mean and precision need one value per item ({items}), got {} and {}",
                        mean.len(),
                        precision.len()
                    )));
                }
                if mean.iter().any(|m| !m.is_finite()) || precision.iter().any(|&p| !(p >= 0.0 && p.is_finite())) {
                    return Err(Error::value(
                        "prior: means must be finite and precisions finite and non-negative",
                    ));
                }
                Ok(())
            }
            Prior::Laplace { loc, weight } => {
                if !(loc.is_finite() && weight >= 0.0 && weight.is_finite()) {
                    return Err(Error::value(
                        "prior: Laplace loc must be finite and weight finite and non-negative",
                    ));
                }
                Ok(())
            }
            Prior::Cauchy { loc, scale } => {
                if !(loc.is_finite() && scale > 0.0 && scale.is_finite()) {
                    return Err(Error::value(
                        "prior: Cauchy loc must be finite and scale finite and positive",
                    ));
                }
                Ok(())
            }
        }
    }

    /// The smooth part's value at `theta`, adding its gradient and Hessian
    /// diagonal when asked (Laplace: the value only; its subgradient is the
    /// solver's).
    pub fn smooth(&self, theta: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> f64 {
        match *self {
            Prior::None => 0.0,
            Prior::Gaussian { mean, precision } => {
                let mut value = 0.0;
                for k in 0..theta.len() {
                    let d = theta[k] - mean[k];
                    value += 0.5 * precision[k] * d * d;
                }
                if let Some((g, h)) = derivatives {
                    for k in 0..theta.len() {
                        g[k] += precision[k] * (theta[k] - mean[k]);
                        h[k] += precision[k];
                    }
                }
                value
            }
            Prior::Laplace { loc, weight } => weight * theta.iter().map(|t| (t - loc).abs()).sum::<f64>(),
            Prior::Cauchy { loc, scale } => {
                let value = theta.iter().map(|t| ((t - loc) / scale).powi(2).ln_1p()).sum();
                if let Some((g, h)) = derivatives {
                    for k in 0..theta.len() {
                        let z = (theta[k] - loc) / scale;
                        let one = 1.0 + z * z;
                        g[k] += 2.0 * z / (scale * one);
                        h[k] += 2.0 * (1.0 - z * z) / (scale * scale * one * one);
                    }
                }
                value
            }
        }
    }

    /// The Laplace location and weight, if this is one.
    pub fn laplace(&self) -> Option<(f64, f64)> {
        match *self {
            Prior::Laplace { loc, weight } if weight > 0.0 => Some((loc, weight)),
            _ => None,
        }
    }
}
