//! The paired-comparison fit: a table of pairs, a model, a penalty, to the
//! exact optimum (`newton::minimise` on the likelihood of `model`).

use crate::error::{Error, Result};

use super::dense::inverse;
use super::model::{bradley_terry, davidson, rao_kupper, Model, Param, RaoKupperTie, Term, Ties};
use super::newton::{bordered, minimise, Objective};
use super::prior::Prior;
use super::table::{strongly_connected, Pairs, Totals};

/// Options of a fit: `newton::Options`, with `extra_init` the starting tie
/// parameter itself (`nu` or `kappa`; 1 for Davidson, 1.5 for Rao-Kupper
/// by default). A warm start (`init`: the previous fit's `theta`) saves
/// iterations on refits of reweighted counts.
pub use super::newton::Options;

/// A fitted model.
#[derive(Clone, Debug)]
pub struct Fit {
    /// Log-strengths, `sum = 0`.
    pub theta: Vec<f64>,
    /// Davidson's `nu` or Rao-Kupper's `kappa` (fitted or fixed); `None` for
    /// Bradley-Terry. A fitted one with no ties in the data is the boundary
    /// value (`nu = 0`, `kappa = 1`: the Bradley-Terry fit).
    pub tie_parameter: Option<f64>,
    /// Negative log-likelihood plus penalty at the optimum.
    pub objective: f64,
    /// The KKT residual at the optimum (largest entry of the constrained gradient).
    pub residual: f64,
    /// The gradient's scale (`residual / scale` is the relative residual).
    pub scale: f64,
    pub iterations: usize,
    pub converged: bool,
    /// Parameters: the items, then the tie parameter's log when fitted.
    pub dim: usize,
    /// The Hessian of the objective's smooth part (likelihood and smooth
    /// penalty; a Laplace penalty adds nothing) at the optimum, `dim x dim`
    /// row-major, in `(theta, log nu | log kappa)`.
    pub hessian: Vec<f64>,
    /// Coordinates held at a Laplace penalty's `loc`.
    pub held: Vec<bool>,
}

impl Fit {
    /// The inverse Hessian under the centring constraint (the covariance of
    /// the estimates under the usual asymptotics; the bread of a sandwich):
    /// `K^-1 - K^-1 c (c^T K^-1 c)^-1 c^T K^-1` with `K = H + rho c c^T`,
    /// over the coordinates not held at a Laplace `loc` (held rows and
    /// columns are 0). `dim x dim` row-major.
    pub fn covariance(&self) -> Result<Vec<f64>> {
        let items = self.theta.len();
        let free: Vec<usize> = (0..self.dim).filter(|&k| k >= items || !self.held[k]).collect();
        let m = free.len();
        let c: Vec<f64> = free.iter().map(|&k| if k < items { 1.0 } else { 0.0 }).collect();
        let k = bordered(&self.hessian, self.dim, &free, &c, 0.0)
            .ok_or_else(|| Error::value("covariance: the Hessian is not positive definite at the fit"))?;
        let inv = inverse(&k, m);
        let kc: Vec<f64> = (0..m).map(|r| (0..m).map(|q| inv[r * m + q] * c[q]).sum()).collect();
        let ckc: f64 = kc.iter().zip(&c).map(|(a, b)| a * b).sum();
        let mut out = vec![0.0; self.dim * self.dim];
        for (r, &kr) in free.iter().enumerate() {
            for (q, &kq) in free.iter().enumerate() {
                let adj = if ckc > 0.0 { kc[r] * kc[q] / ckc } else { 0.0 };
                out[kr * self.dim + kq] = inv[r * m + q] - adj;
            }
        }
        Ok(out)
    }
}

/// Fit `model` to `pairs` over `items` items, penalised by `prior` (and
/// `options.hook`).
///
/// Refused (`Error::Value`), never a panic: malformed tables; no finite
/// optimum without a penalty that holds every item (an item with no
/// comparisons, or a comparison graph that is not strongly connected:
/// some items only win, or only lose, against the rest); a fitted tie
/// parameter with no decisive outcomes (it grows without bound);
/// Rao-Kupper with `kappa = 1` and ties.
pub fn fit(items: usize, pairs: &Pairs, model: Model, prior: &Prior, options: &Options) -> Result<Fit> {
    if items == 0 {
        return Err(Error::value("fit: there are no items"));
    }
    let totals = pairs.check(items)?;
    let (model, boundary) = settle_model(model, &totals)?;
    if options.hook.is_none() && !prior.holds_every_item(items) {
        check_finite(items, pairs, model, &totals)?;
    }
    let likelihood = Likelihood::new(items, pairs, model, &totals);
    let extra_init = match (model, options.extra_init) {
        (Model::Davidson(Param::Fitted), start) => Some(check_start(start.unwrap_or(1.0), 0.0)?.ln()),
        (Model::RaoKupper(Param::Fitted), start) => Some(check_start(start.unwrap_or(1.5), 1.0)?.ln()),
        _ => None,
    };
    let solution = minimise(&likelihood, prior, &Options { extra_init, ..*options })?;
    let tie_parameter = match model {
        Model::BradleyTerry(_) => boundary,
        Model::Davidson(Param::Fixed(v)) | Model::RaoKupper(Param::Fixed(v)) => Some(v),
        Model::Davidson(Param::Fitted) | Model::RaoKupper(Param::Fitted) => Some(solution.x[items].exp()),
    };
    Ok(Fit {
        theta: solution.x[..items].to_vec(),
        tie_parameter,
        objective: solution.objective,
        residual: solution.residual,
        scale: solution.scale,
        iterations: solution.iterations,
        converged: solution.converged,
        dim: solution.x.len(),
        hessian: solution.hessian,
        held: solution.held,
    })
}

fn check_start(start: f64, above: f64) -> Result<f64> {
    if start > above && start.is_finite() {
        Ok(start)
    } else {
        Err(Error::value(format!(
            "fit: the starting tie parameter must be finite and > {above}, got {start}"
        )))
    }
}

/// A fitted tie parameter sits at its boundary when the data have no ties
/// (Davidson's `nu -> 0`, Rao-Kupper's `kappa -> 1`: the Bradley-Terry
/// fit); refusals for parameters with no finite estimate or bad values.
fn settle_model(model: Model, totals: &Totals) -> Result<(Model, Option<f64>)> {
    let bt = Model::BradleyTerry(Ties::Ignore);
    match model {
        Model::Davidson(Param::Fixed(nu)) if !(nu > 0.0 && nu.is_finite()) => Err(Error::value(format!(
            "fit: Davidson's nu must be positive and finite, got {nu}"
        ))),
        Model::RaoKupper(Param::Fixed(kappa)) if !(kappa >= 1.0 && kappa.is_finite()) => Err(Error::value(format!(
            "fit: Rao-Kupper's kappa must be finite and >= 1, got {kappa}"
        ))),
        Model::RaoKupper(Param::Fixed(kappa)) if kappa == 1.0 && totals.ties > 0.0 => Err(Error::value(
            "fit: Rao-Kupper with kappa = 1 gives ties probability 0, but ties were observed",
        )),
        Model::RaoKupper(Param::Fixed(1.0)) => Ok((bt, Some(1.0))),
        Model::Davidson(Param::Fitted) | Model::RaoKupper(Param::Fitted) if totals.wins <= 0.0 => Err(Error::value(
            "fit: no decisive outcomes, so the tie parameter has no finite estimate",
        )),
        Model::Davidson(Param::Fitted) if totals.ties <= 0.0 => Ok((bt, Some(0.0))),
        Model::RaoKupper(Param::Fitted) if totals.ties <= 0.0 => Ok((bt, Some(1.0))),
        _ => Ok((model, None)),
    }
}

/// Without a penalty the optimum is finite only when every item can reach
/// every other along "beat or tied" edges (ties when the model uses them).
fn check_finite(items: usize, pairs: &Pairs, model: Model, totals: &Totals) -> Result<()> {
    let ties = model.uses_ties();
    if totals.wins + if ties { totals.ties } else { 0.0 } <= 0.0 {
        return Err(Error::value(
            "fit: no comparisons carry information, so the strengths have no finite estimate",
        ));
    }
    let connected = strongly_connected(items, pairs, |r| {
        let tie = ties && pairs.tie[r] > 0.0;
        (pairs.win_i[r] > 0.0 || tie, pairs.win_j[r] > 0.0 || tie)
    });
    if !connected {
        return Err(Error::value(
            "fit: the comparison graph is not strongly connected (some items only win or only lose against the \
             rest, or have no comparisons), so the strengths have no finite estimate without a penalty",
        ));
    }
    Ok(())
}

/// The negative log-likelihood of `model` on `pairs`, in `(theta, s)` with
/// `s = log nu | log kappa` when fitted.
struct Likelihood<'p> {
    items: usize,
    pairs: &'p Pairs<'p>,
    model: Model,
    /// `log nu | log kappa` when fixed.
    fixed_s: f64,
    fixed_tie: Option<RaoKupperTie>,
    scale: f64,
}

impl<'p> Likelihood<'p> {
    fn new(items: usize, pairs: &'p Pairs<'p>, model: Model, totals: &Totals) -> Self {
        let fixed_s = match model {
            Model::Davidson(Param::Fixed(nu)) => nu.ln(),
            Model::RaoKupper(Param::Fixed(kappa)) => kappa.ln(),
            _ => 0.0,
        };
        let fixed_tie = matches!(model, Model::RaoKupper(Param::Fixed(_))).then(|| RaoKupperTie::new(fixed_s));
        Likelihood {
            items,
            pairs,
            model,
            fixed_s,
            fixed_tie,
            scale: totals.max_item_weight,
        }
    }
}

impl Objective for Likelihood<'_> {
    fn items(&self) -> usize {
        self.items
    }

    fn extra(&self) -> usize {
        usize::from(self.model.fits_extra())
    }

    fn scale(&self) -> f64 {
        self.scale
    }

    fn evaluate(&self, x: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64> {
        let items = self.items;
        let dim = x.len();
        let fitted = dim > items;
        let s = if fitted { x[items] } else { self.fixed_s };
        let fitted_tie = match (fitted, self.model) {
            (true, Model::RaoKupper(_)) if s <= 0.0 => return Ok(f64::INFINITY),
            (true, Model::RaoKupper(_)) => Some(RaoKupperTie::new(s)),
            _ => None,
        };
        let tie = fitted_tie.or(self.fixed_tie);
        let p = self.pairs;
        let mut value = 0.0;
        let mut derivatives = derivatives;
        for r in 0..p.len() {
            let (wi, wj, t) = (p.win_i[r], p.win_j[r], p.tie[r]);
            if wi + wj + t == 0.0 {
                continue;
            }
            let (i, j) = (p.i[r] as usize, p.j[r] as usize);
            let (a, b) = (x[i], x[j]);
            let term: Term = match (self.model, tie.as_ref()) {
                (Model::BradleyTerry(Ties::Ignore), _) => bradley_terry(a - b, wi, wj),
                (Model::BradleyTerry(Ties::HalfWin), _) => bradley_terry(a - b, wi + 0.5 * t, wj + 0.5 * t),
                (Model::Davidson(_), _) => davidson(a, b, s, wi, wj, t),
                (Model::RaoKupper(_), Some(tie)) => rao_kupper(a, b, s, tie, wi, wj, t),
                (Model::RaoKupper(_), None) => return Err(Error::value("fit: Rao-Kupper without kappa")),
            };
            value += term.value;
            if let Some((grad, hess)) = derivatives.as_mut() {
                grad[i] += term.ga;
                grad[j] -= term.ga;
                hess[i * dim + i] += term.h;
                hess[j * dim + j] += term.h;
                hess[i * dim + j] -= term.h;
                hess[j * dim + i] -= term.h;
                if fitted {
                    let e = items;
                    grad[e] += term.gs;
                    hess[i * dim + e] += term.has;
                    hess[e * dim + i] += term.has;
                    hess[j * dim + e] -= term.has;
                    hess[e * dim + j] -= term.has;
                    hess[e * dim + e] += term.hss;
                }
            }
        }
        Ok(value)
    }
}
