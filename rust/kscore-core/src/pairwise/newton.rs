//! Newton's method on centred log-strengths, for any smooth likelihood with
//! an analytic gradient and Hessian ([`Objective`]): the paired-comparison
//! fits of this room and the Luce-family fits of `choice`.
//!
//! Identifiability: the likelihoods are invariant to shifting all `theta`,
//! so the minimisation is constrained to `sum_i theta_i = 0` (scorio's
//! centring, which is also where its penalties are evaluated). Each step
//! solves the equality-constrained Newton system through the Cholesky
//! factor of `H + rho c c^T` (`c` the constraint's vector, `rho` the
//! Hessian's scale), positive definite whenever `H` is positive definite on
//! the constraint's null space, though an unpenalised `H` is singular along
//! `c`. Where it is not (a Cauchy penalty's concave region), a multiple of
//! the identity is added until the factor exists. Steps are line-searched
//! (Armijo); once the predicted decrease is below the objective's rounding,
//! a step is taken when it lowers the gradient instead, so the iteration
//! ends at the optimum to rounding, not where the objective stops resolving
//! differences.
//!
//! A Laplace penalty's kink is handled by an active set: coordinates equal
//! to `loc` are held there while their subgradient condition holds
//! (`|g_i + mu| <= weight`, `mu` the constraint's multiplier) and released
//! the other way otherwise; a step that would carry a coordinate across
//! `loc` stops there and holds it. On the final active set the problem is
//! smooth and Newton converges quadratically: the result is the exact
//! minimiser.
//!
//! Convergence: the KKT residual (the constrained gradient's largest entry)
//! at most `tol` times the objective's gradient scale; then up to two more
//! full steps while they lower the residual (polish).

use crate::cancel;
use crate::error::{Error, Result};

use super::dense::{cholesky, solve};
use super::prior::{Hook, Prior};

/// A smooth negative log-likelihood of `items` log-strengths, shift
/// invariant, and `extra` (0 or 1) further unconstrained parameters after them.
pub trait Objective: Sync {
    fn items(&self) -> usize;
    fn extra(&self) -> usize;
    /// The gradient's scale (e.g. the largest total weight of one item):
    /// convergence is `residual <= tol * scale`.
    fn scale(&self) -> f64;
    /// The value at `x` (+inf outside the domain); with `derivatives`, also
    /// add the gradient and the full Hessian (`dim x dim`, row-major) into
    /// the two slices (zeroed by the caller).
    fn evaluate(&self, x: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64>;
}

/// Options of a minimisation.
#[derive(Clone, Copy)]
pub struct Options<'a> {
    /// Most Newton iterations (fits converge in a few dozen at most).
    pub max_iter: usize,
    /// Convergence: KKT residual at most `tol` times the gradient's scale.
    pub tol: f64,
    /// Starting strengths (centred here); zeros by default.
    pub init: Option<&'a [f64]>,
    /// Starting value of the extra parameter, when there is one: in the
    /// objective's own coordinates for `minimise` (0 by default); the tie
    /// parameter itself for `pairwise::fit`.
    pub extra_init: Option<f64>,
    /// A penalty beside `Prior` (a user's function), if any.
    pub hook: Option<&'a dyn Hook>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            max_iter: 200,
            tol: 1e-12,
            init: None,
            extra_init: None,
            hook: None,
        }
    }
}

/// The minimiser.
#[derive(Clone, Debug)]
pub struct Solution {
    /// `items` centred strengths, then the extra parameters.
    pub x: Vec<f64>,
    pub objective: f64,
    pub residual: f64,
    pub scale: f64,
    pub iterations: usize,
    pub converged: bool,
    /// The smooth part's Hessian at `x` (`dim x dim`, row-major).
    pub hessian: Vec<f64>,
    /// Coordinates held at a Laplace penalty's `loc`.
    pub held: Vec<bool>,
}

/// Bound on |x| past which the optimum is taken to be at infinity (a
/// penalty that does not hold the strengths).
const RUNAWAY: f64 = 700.0;

/// Minimise `objective + prior (+ hook)` over `sum theta = 0`.
pub fn minimise(objective: &dyn Objective, prior: &Prior, options: &Options) -> Result<Solution> {
    let items = objective.items();
    if items == 0 {
        return Err(Error::value("fit: there are no items"));
    }
    prior.check(items)?;
    let dim = items + objective.extra();
    let mut x = vec![0.0; dim];
    if let Some(init) = options.init {
        if init.len() != items || init.iter().any(|v| !v.is_finite()) {
            return Err(Error::value("fit: init needs one finite value per item"));
        }
        let mean = init.iter().sum::<f64>() / items as f64;
        for k in 0..items {
            x[k] = init[k] - mean;
        }
    }
    if dim > items {
        let start = options.extra_init.unwrap_or(0.0);
        if !start.is_finite() {
            return Err(Error::value("fit: the starting tie parameter must be finite"));
        }
        x[items..].iter_mut().for_each(|v| *v = start);
    }
    let laplace = prior.laplace();
    let held = match laplace {
        Some((loc, _)) => x[..items].iter().map(|&t| t == loc).collect(),
        None => vec![false; items],
    };
    let mut solver = Solver {
        objective,
        items,
        dim,
        prior,
        hook: options.hook,
        laplace,
        tol: options.tol,
        scale: objective.scale().max(1.0),
        max_iter: options.max_iter.max(1),
        x,
        held,
    };
    solver.run()
}

struct Solver<'o, 'p, 'a> {
    objective: &'o dyn Objective,
    items: usize,
    dim: usize,
    prior: &'p Prior<'a>,
    hook: Option<&'p dyn Hook>,
    laplace: Option<(f64, f64)>,
    tol: f64,
    scale: f64,
    max_iter: usize,
    x: Vec<f64>,
    held: Vec<bool>,
}

/// Value, gradient and Hessian of the objective's smooth part at a point
/// (the value includes a Laplace penalty).
struct Eval {
    value: f64,
    grad: Vec<f64>,
    hess: Vec<f64>,
}

/// The KKT state at a point: which coordinates move (with the sign of their
/// Laplace term), the gradient with those signs plus the constraint's
/// multiplier on the moving strengths (the projected gradient: small near
/// the optimum, so the Newton system and the slope are computed without
/// cancellation), and the residual.
struct Kkt {
    g: Vec<f64>,
    free: Vec<bool>,
    sign: Vec<f64>,
    residual: f64,
}

impl Solver<'_, '_, '_> {
    fn evaluate(&self, x: &[f64]) -> Result<Eval> {
        let (items, dim) = (self.items, self.dim);
        let mut grad = vec![0.0; dim];
        let mut hess = vec![0.0; dim * dim];
        let mut value = self.objective.evaluate(x, Some((&mut grad, &mut hess)))?;
        let mut diag = vec![0.0; items];
        value += self.prior.smooth(&x[..items], Some((&mut grad[..items], &mut diag)));
        if let Some(hook) = self.hook {
            value += hook.eval(&x[..items], Some((&mut grad[..items], &mut diag)))?;
        }
        for k in 0..items {
            hess[k * dim + k] += diag[k];
        }
        if !value.is_finite() || grad.iter().any(|g| !g.is_finite()) {
            value = f64::INFINITY;
        }
        Ok(Eval { value, grad, hess })
    }

    fn run(&mut self) -> Result<Solution> {
        let watch = cancel::Watch::new();
        let mut eval = self.evaluate(&self.x.clone())?;
        if !eval.value.is_finite() {
            return Err(Error::value("fit: the objective is not finite at the starting point"));
        }
        let mut iterations = 0;
        let mut kkt = self.kkt(&self.x, &self.held, &eval);
        let mut polish = 0;
        loop {
            cancel::check()?;
            let done = kkt.residual <= self.tol * self.scale;
            if (done && polish >= 2) || iterations >= self.max_iter {
                break;
            }
            let Some(direction) = self.direction(&eval, &kkt) else {
                break;
            };
            iterations += 1;
            match self.line_search(&eval, &kkt, &direction, done)? {
                Some((next, next_kkt)) => {
                    eval = next;
                    kkt = next_kkt;
                }
                None => break,
            }
            if done {
                polish += 1;
            }
            if self.x.iter().any(|v| v.abs() > RUNAWAY) {
                return Err(Error::value(
                    "fit: the strengths grow without bound (the penalty does not hold them): no finite optimum",
                ));
            }
        }
        watch.check()?;
        Ok(Solution {
            x: self.x.clone(),
            objective: eval.value,
            residual: kkt.residual,
            scale: self.scale,
            iterations,
            converged: kkt.residual <= self.tol * self.scale,
            hessian: eval.hess,
            held: self.held.clone(),
        })
    }

    fn kkt(&self, x: &[f64], held: &[bool], eval: &Eval) -> Kkt {
        let items = self.items;
        let mut g = eval.grad.clone();
        let mut free: Vec<bool> = held.iter().map(|h| !h).collect();
        let mut sign = vec![0.0; items];
        let Some((loc, weight)) = self.laplace else {
            let mu = multiplier(&g[..items], &free);
            g[..items].iter_mut().for_each(|v| *v += mu);
            let residual = max_abs(g.iter().copied());
            return Kkt {
                g,
                free,
                sign,
                residual,
            };
        };
        for k in 0..items {
            if free[k] {
                sign[k] = if x[k] > loc { 1.0 } else { -1.0 };
                g[k] += weight * sign[k];
            }
        }
        // Release held coordinates whose subgradient condition fails,
        // against the multiplier of the others.
        let mu = multiplier(&g[..items], &free);
        let mut released = false;
        for k in 0..items {
            if !free[k] {
                let v = eval.grad[k] + mu;
                if v.abs() > weight * (1.0 + 1e-12) {
                    free[k] = true;
                    sign[k] = if v > 0.0 { -1.0 } else { 1.0 };
                    g[k] = eval.grad[k] + weight * sign[k];
                    released = true;
                }
            }
        }
        let mu = if released { multiplier(&g[..items], &free) } else { mu };
        let mut residual = max_abs((items..self.dim).map(|k| g[k]));
        for k in 0..items {
            let r = if free[k] {
                g[k] + mu
            } else {
                ((eval.grad[k] + mu).abs() - weight).max(0.0)
            };
            residual = residual.max(r.abs());
            if free[k] {
                g[k] += mu;
            }
        }
        Kkt {
            g,
            free,
            sign,
            residual,
        }
    }

    /// The constrained Newton direction over the moving coordinates; a
    /// released coordinate whose step points back across `loc` stays held.
    fn direction(&self, eval: &Eval, kkt: &Kkt) -> Option<Vec<f64>> {
        let items = self.items;
        let mut free = kkt.free.clone();
        for _ in 0..4 {
            let d = self.newton_step(eval, kkt, &free)?;
            let mut bad = false;
            for k in 0..items {
                if free[k] && self.held[k] && d[k] * kkt.sign[k] <= 0.0 {
                    free[k] = false;
                    bad = true;
                }
            }
            if !bad {
                return Some(d);
            }
        }
        None
    }

    fn newton_step(&self, eval: &Eval, kkt: &Kkt, free_theta: &[bool]) -> Option<Vec<f64>> {
        let (items, dim) = (self.items, self.dim);
        let free: Vec<usize> = (0..dim).filter(|&k| k >= items || free_theta[k]).collect();
        if free.is_empty() {
            return None;
        }
        let c: Vec<f64> = free.iter().map(|&k| if k < items { 1.0 } else { 0.0 }).collect();
        let diag_scale = free.iter().fold(0.0f64, |m, &k| m.max(eval.hess[k * dim + k].abs()));
        let base = if diag_scale > 0.0 { diag_scale * 1e-10 } else { 1e-10 };
        let mut shift = 0.0;
        let l = loop {
            if let Some(l) = bordered(&eval.hess, dim, &free, &c, shift) {
                break l;
            }
            shift = if shift == 0.0 { base } else { shift * 10.0 };
            if !shift.is_finite() || shift > 1e300 {
                return None;
            }
        };
        let m = free.len();
        let mut u: Vec<f64> = free.iter().map(|&k| kkt.g[k]).collect();
        solve(&l, m, &mut u);
        let mut v = c.clone();
        solve(&l, m, &mut v);
        let cu: f64 = c.iter().zip(&u).map(|(a, b)| a * b).sum();
        let cv: f64 = c.iter().zip(&v).map(|(a, b)| a * b).sum();
        let mu = if cv > 0.0 { -cu / cv } else { 0.0 };
        let mut d = vec![0.0; dim];
        for (r, &k) in free.iter().enumerate() {
            d[k] = -(u[r] + mu * v[r]);
        }
        Some(d)
    }

    /// The point `x + alpha d` with held coordinates exactly at `loc` (and
    /// `hold` held there too), centred on the others.
    fn step(&self, d: &[f64], alpha: f64, hold: Option<usize>) -> (Vec<f64>, Vec<bool>) {
        let items = self.items;
        let mut x = self.x.clone();
        for k in 0..self.dim {
            x[k] += alpha * d[k];
        }
        let mut held = self.held.clone();
        if let Some((loc, _)) = self.laplace {
            for k in 0..items {
                if d[k] != 0.0 {
                    held[k] = false;
                } else if held[k] {
                    x[k] = loc;
                }
            }
            if let Some(k) = hold {
                x[k] = loc;
                held[k] = true;
            }
        }
        recentre(&mut x[..items], &held);
        (x, held)
    }

    /// Armijo backtracking along `d`, stopping at the first Laplace kink on
    /// the way (the coordinate reaching `loc` is held there); below the
    /// objective's rounding, the step that lowers the residual. The new
    /// point, or None when nothing improves.
    fn line_search(&mut self, eval: &Eval, kkt: &Kkt, d: &[f64], polishing: bool) -> Result<Option<(Eval, Kkt)>> {
        let items = self.items;
        let slope: f64 = (0..self.dim).map(|k| kkt.g[k] * d[k]).sum();
        if slope.is_nan() || slope >= 0.0 {
            return Ok(None);
        }
        let (mut alpha_max, mut kink) = (1.0f64, None);
        if let Some((loc, _)) = self.laplace {
            for (k, (&dk, &xk)) in d[..items].iter().zip(&self.x).enumerate() {
                if !self.held[k] && dk * kkt.sign[k] < 0.0 {
                    let a = ((loc - xk) / dk).max(0.0);
                    if a < alpha_max {
                        alpha_max = a;
                        kink = Some(k);
                    }
                }
            }
        }
        // The decrease a step can show against the objective's rounding.
        let noise = 1e-13 * eval.value.abs().max(1.0);
        let mut alpha = alpha_max;
        for _ in 0..60 {
            let hold = if alpha == alpha_max { kink } else { None };
            if alpha > 0.0 || hold.is_some() {
                let (x, held) = self.step(d, alpha, hold);
                let trial = self.evaluate(&x)?;
                if trial.value.is_finite() {
                    let armijo = trial.value <= eval.value + 1e-4 * alpha * slope;
                    let below_noise = -alpha * slope <= noise && trial.value <= eval.value + noise;
                    let trial_kkt = self.kkt(&x, &held, &trial);
                    let better = trial_kkt.residual < kkt.residual;
                    if (armijo && !polishing) || ((below_noise || polishing) && better) {
                        self.x = x;
                        self.held = held;
                        return Ok(Some((trial, trial_kkt)));
                    }
                    if polishing {
                        return Ok(None);
                    }
                }
            }
            alpha *= 0.5;
            if alpha == 0.0 {
                break;
            }
        }
        Ok(None)
    }
}

/// The matrix `H_FF + rho c c^T` over the coordinates `free` (`c` given on
/// them), plus `shift` on the diagonal, factored (`rho`: the largest
/// diagonal entry, so the two parts have one scale).
pub(crate) fn bordered(h: &[f64], dim: usize, free: &[usize], c: &[f64], shift: f64) -> Option<Vec<f64>> {
    let m = free.len();
    let scale = free.iter().fold(0.0f64, |s, &k| s.max(h[k * dim + k].abs()));
    let rho = if scale > 0.0 { scale } else { 1.0 };
    let mut k = vec![0.0; m * m];
    for (r, &kr) in free.iter().enumerate() {
        for (q, &kq) in free.iter().enumerate().take(r + 1) {
            k[r * m + q] = h[kr * dim + kq] + rho * c[r] * c[q];
        }
        k[r * m + r] += shift;
    }
    cholesky(&mut k, m).then_some(k)
}

fn max_abs(xs: impl Iterator<Item = f64>) -> f64 {
    xs.fold(0.0, |m, v| m.max(v.abs()))
}

/// The constraint's multiplier `mu`: minus the mean gradient of the moving
/// coordinates (with none moving: the middle of the held ones' range).
fn multiplier(g: &[f64], free: &[bool]) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for k in 0..g.len() {
        if free[k] {
            sum += g[k];
            count += 1;
        }
    }
    if count > 0 {
        return -sum / count as f64;
    }
    let (lo, hi) = g.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
        (lo.min(v), hi.max(v))
    });
    -(lo + hi) / 2.0
}

/// Put the rounding drift of `sum theta = 0` on the coordinates not held.
fn recentre(theta: &mut [f64], held: &[bool]) {
    let count = held.iter().filter(|h| !**h).count();
    if count == 0 {
        return;
    }
    let drift = theta.iter().sum::<f64>() / count as f64;
    for (t, h) in theta.iter_mut().zip(held) {
        if !h {
            *t -= drift;
        }
    }
}
