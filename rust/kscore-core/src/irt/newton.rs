//! The driver of every joint fit: projected, preconditioned Newton-CG.
//!
//! Variables: `n_theta` abilities, then `n_items` items of `p` parameters
//! each (item-major; parameter 0 is the difficulty `b`). The objective is a
//! [`Model`] (the data term and any item ridge terms) plus an ability
//! [`Prior`], minimised subject to
//! - the centring `sum_i w_i b_i = 0` (scorio centres the difficulties inside
//!   its objective, so its optimum is this constrained one),
//! - an optional box on one item parameter (scorio's L-BFGS-B bounds on the
//!   log-discrimination),
//! - and, for a Laplace prior, its kink: an ability whose subgradient holds
//!   zero stays at the prior's location (an orthant-wise step, as OWL-QN).
//!
//! Each iteration solves the Newton system on the free variables by
//! conjugate gradients, projected onto the constraint (Gould, Hribar and
//! Nocedal 2001) and preconditioned by the Hessian's diagonal blocks: a
//! diagonal over the abilities and one `p x p` block per item (the Fisher
//! information, positive semi-definite where the exact Hessian is not). A
//! Hessian-vector product is one pass over the cells. CG stops early at
//! negative curvature (the 2PL and 3PL are not convex), and a backtracking
//! line search along the projected path keeps every step a descent. The
//! CG tolerance tightens as the steps shrink, so the last steps are full
//! Newton steps and the fit ends within rounding of the optimum: the
//! iteration stops after a full step no larger than `1e-11 (1 + |x|)`.

use super::prior::Prior;
use crate::error::Result;

/// A data term over abilities and items.
pub trait Model {
    fn n_theta(&self) -> usize;
    fn n_items(&self) -> usize;
    /// Parameters per item.
    fn p(&self) -> usize;
    /// Value and gradient at `x`, and a positive semi-definite stand-in for
    /// the Hessian's diagonal blocks (abilities: one entry each; items: a
    /// `p x p` block each, row-major) for the preconditioner. Keeps what
    /// `hv` needs at `x`.
    fn eval(&mut self, x: &[f64], grad: &mut [f64], theta_diag: &mut [f64], blocks: &mut [f64]) -> Result<f64>;
    /// The exact Hessian at the last `eval`'s point, times `v`, into `out`.
    fn hv(&mut self, x: &[f64], v: &[f64], out: &mut [f64]) -> Result<()>;
}

/// Everything but the data term.
pub struct Setup<'a> {
    pub prior: &'a Prior,
    /// How many models each ability stands for (the prior counts each).
    pub theta_weight: &'a [f64],
    /// The centring `sum_i w_i b_i = 0`.
    pub item_weight: &'a [f64],
    /// Item parameter `.0` kept in `[.1, .2]`.
    pub bound: Option<(usize, f64, f64)>,
    /// Most Newton iterations.
    pub max_iter: usize,
}

/// Where the driver stopped.
#[derive(Clone, Debug)]
pub struct Fit {
    pub x: Vec<f64>,
    /// The objective at `x` (data term plus prior).
    pub value: f64,
    pub iterations: usize,
    /// Stopped after a full Newton step below the tolerance (or, when no
    /// descent was left, with a gradient at rounding level).
    pub converged: bool,
    /// The largest entry of the projected gradient at `x`.
    pub gradient: f64,
}

/// Most conjugate-gradient steps per Newton iteration.
const MAX_CG: usize = 300;
/// A full step this small (relative to `1 + |x|`) ends the iteration.
const STEP_TOL: f64 = 1e-11;
/// `CREEP_LIMIT` iterations in a row, each lowering the objective by at most
/// `CREEP` of it with a step that is not small, end the iteration unconverged.
const CREEP: f64 = 1e-12;
const CREEP_LIMIT: usize = 25;

struct State {
    x: Vec<f64>,
    f: f64,
    g: Vec<f64>,
    diag: Vec<f64>,
    blocks: Vec<f64>,
}

struct Dims {
    nt: usize,
    ni: usize,
    p: usize,
}

impl Dims {
    fn dim(&self) -> usize {
        self.nt + self.ni * self.p
    }
}

fn evaluate<M: Model>(model: &mut M, setup: &Setup, dims: &Dims, x: Vec<f64>) -> Result<State> {
    let n = dims.dim();
    let mut g = vec![0.0; n];
    let mut diag = vec![0.0; dims.nt];
    let mut blocks = vec![0.0; dims.ni * dims.p * dims.p];
    let mut f = model.eval(&x, &mut g, &mut diag, &mut blocks)?;
    if !matches!(setup.prior, Prior::Flat) {
        let mut pen = 0.0;
        for j in 0..dims.nt {
            let w = setup.theta_weight[j];
            let (v, d1, d2) = setup.prior.term(j, x[j]);
            pen += w * v;
            g[j] += w * d1;
            diag[j] += w * d2.max(0.0);
        }
        f += pen;
    }
    Ok(State { x, f, g, diag, blocks })
}

/// The pseudo-gradient (zero where a variable is held) and the held set.
fn pseudo_gradient(setup: &Setup, dims: &Dims, s: &State) -> (Vec<f64>, Vec<bool>) {
    let mut pg = s.g.clone();
    let mut held = vec![false; dims.dim()];
    if let Some((loc, slope)) = setup.prior.kink() {
        for j in 0..dims.nt {
            if s.x[j] == loc {
                let w = setup.theta_weight[j] * slope;
                let (left, right) = (s.g[j] - w, s.g[j] + w);
                if left <= 0.0 && right >= 0.0 {
                    pg[j] = 0.0;
                    held[j] = true;
                } else if right < 0.0 {
                    pg[j] = right;
                } else {
                    pg[j] = left;
                }
            }
        }
    }
    if let Some((q, lo, hi)) = setup.bound {
        for i in 0..dims.ni {
            let at = dims.nt + i * dims.p + q;
            if (s.x[at] <= lo && pg[at] > 0.0) || (s.x[at] >= hi && pg[at] < 0.0) {
                pg[at] = 0.0;
                held[at] = true;
            }
        }
    }
    (pg, held)
}

/// The largest entry of the pseudo-gradient with the difficulties' part
/// projected onto the centring.
fn stationarity(setup: &Setup, dims: &Dims, pg: &[f64]) -> f64 {
    let mut worst = pg[..dims.nt].iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let (mut ww, mut wg) = (0.0, 0.0);
    for i in 0..dims.ni {
        let w = setup.item_weight[i];
        ww += w * w;
        wg += w * pg[dims.nt + i * dims.p];
    }
    let shift = if ww > 0.0 { wg / ww } else { 0.0 };
    for i in 0..dims.ni {
        for q in 0..dims.p {
            let mut v = pg[dims.nt + i * dims.p + q];
            if q == 0 {
                v -= shift * setup.item_weight[i];
            }
            worst = worst.max(v.abs());
        }
    }
    worst
}

/// The block-diagonal preconditioner on the free variables, projected onto
/// the centring.
struct Precond {
    theta_inv: Vec<f64>,
    /// Per item: the Cholesky factor of its block restricted to the free
    /// parameters (row-major `p x p`, unused entries zero) and which are free.
    chol: Vec<f64>,
    free: Vec<bool>,
    /// The centring's `e` (item weights at the difficulties), `M^-1 e` and
    /// `e' M^-1 e`.
    e: Vec<f64>,
    u: Vec<f64>,
    kappa: f64,
}

impl Precond {
    fn new(setup: &Setup, dims: &Dims, s: &State, held: &[bool]) -> Self {
        let (nt, ni, p) = (dims.nt, dims.ni, dims.p);
        // Floors keep every block's condition bounded: a block that is
        // nearly singular (an item far from every model) would otherwise make
        // `M^-1 e` huge and the projection below cancel catastrophically.
        let top = s
            .diag
            .iter()
            .chain(
                (0..ni)
                    .flat_map(|i| (0..p).map(move |a| (i, a)))
                    .map(|(i, a)| &s.blocks[i * p * p + a * p + a]),
            )
            .fold(0.0f64, |a, v| a.max(*v));
        let floor = (top * 1e-10).max(1e-300);
        let theta_inv = (0..nt)
            .map(|j| if held[j] { 0.0 } else { 1.0 / s.diag[j].max(floor) })
            .collect();
        let mut chol = vec![0.0; ni * p * p];
        let free: Vec<bool> = held[nt..].iter().map(|h| !h).collect();
        let mut block = vec![0.0; p * p];
        for i in 0..ni {
            block.copy_from_slice(&s.blocks[i * p * p..(i + 1) * p * p]);
            let trace: f64 = (0..p).map(|a| block[a * p + a].abs()).sum();
            for a in 0..p {
                block[a * p + a] += (1e-8 * trace).max(floor);
            }
            let f = &free[i * p..(i + 1) * p];
            factor(&block, f, p, &mut chol[i * p * p..(i + 1) * p * p]);
        }
        let mut pre = Precond {
            theta_inv,
            chol,
            free,
            e: vec![0.0; dims.dim()],
            u: vec![0.0; dims.dim()],
            kappa: 0.0,
        };
        for i in 0..ni {
            pre.e[nt + i * p] = setup.item_weight[i];
        }
        let mut u = vec![0.0; dims.dim()];
        pre.solve(dims, &pre.e, &mut u);
        pre.kappa = dot(&pre.e, &u);
        pre.u = u;
        pre
    }

    /// `out = M^-1 r` on the free variables (0 on the held ones).
    fn solve(&self, dims: &Dims, r: &[f64], out: &mut [f64]) {
        let (nt, ni, p) = (dims.nt, dims.ni, dims.p);
        for j in 0..nt {
            out[j] = r[j] * self.theta_inv[j];
        }
        let mut y = [0.0f64; 4];
        for i in 0..ni {
            let c = &self.chol[i * p * p..(i + 1) * p * p];
            let f = &self.free[i * p..(i + 1) * p];
            let base = nt + i * p;
            // Forward then backward substitution with L L'.
            for a in 0..p {
                if !f[a] {
                    y[a] = 0.0;
                    continue;
                }
                let mut v = r[base + a];
                for b in 0..a {
                    v -= c[a * p + b] * y[b];
                }
                y[a] = v / c[a * p + a];
            }
            for a in (0..p).rev() {
                if !f[a] {
                    out[base + a] = 0.0;
                    continue;
                }
                let mut v = y[a];
                for b in a + 1..p {
                    v -= c[b * p + a] * out[base + b];
                }
                out[base + a] = v / c[a * p + a];
            }
        }
    }

    /// The projected preconditioner: `M^-1 r` moved back onto `e' z = 0`.
    fn apply(&self, dims: &Dims, r: &[f64], out: &mut [f64]) {
        self.solve(dims, r, out);
        if self.kappa > 0.0 {
            let t = dot(&self.e, out) / self.kappa;
            for (o, u) in out.iter_mut().zip(&self.u) {
                *o -= t * u;
            }
        }
    }
}

#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The Cholesky factor of `block` restricted to the `free` parameters,
/// with a growing diagonal shift if it is not positive definite.
fn factor(block: &[f64], free: &[bool], p: usize, out: &mut [f64]) {
    let trace: f64 = (0..p).filter(|&a| free[a]).map(|a| block[a * p + a].abs()).sum();
    let mut shift = 0.0;
    for _ in 0..40 {
        out.iter_mut().for_each(|v| *v = 0.0);
        let mut ok = true;
        'outer: for a in 0..p {
            if !free[a] {
                continue;
            }
            for b in 0..=a {
                if !free[b] {
                    continue;
                }
                let mut v = block[a * p + b];
                if a == b {
                    v += shift;
                }
                for c in 0..b {
                    v -= out[a * p + c] * out[b * p + c];
                }
                if a == b {
                    if !v.is_finite() || v <= 0.0 {
                        ok = false;
                        break 'outer;
                    }
                    out[a * p + a] = v.sqrt();
                } else {
                    out[a * p + b] = v / out[b * p + b];
                }
            }
        }
        if ok {
            return;
        }
        shift = if shift == 0.0 {
            (trace * 1e-10).max(1e-300)
        } else {
            shift * 10.0
        };
    }
    // Give up on the block: the identity.
    out.iter_mut().for_each(|v| *v = 0.0);
    for a in 0..p {
        out[a * p + a] = 1.0;
    }
}

/// The exact Hessian of model and prior times `v` on the free variables.
fn hess_times<M: Model>(
    model: &mut M,
    setup: &Setup,
    dims: &Dims,
    s: &State,
    held: &[bool],
    v: &[f64],
    out: &mut [f64],
) -> Result<()> {
    model.hv(&s.x, v, out)?;
    if !matches!(setup.prior, Prior::Flat) {
        for j in 0..dims.nt {
            let (_, _, d2) = setup.prior.term(j, s.x[j]);
            out[j] += setup.theta_weight[j] * d2 * v[j];
        }
    }
    for (o, h) in out.iter_mut().zip(held) {
        if *h {
            *o = 0.0;
        }
    }
    Ok(())
}

/// Approximately solve `H d = -pg` on the free variables with `e' d = 0`:
/// projected preconditioned CG to a relative residual `eta`, stopping at
/// negative curvature (then the last iterate, or the preconditioned steepest
/// descent if that came first).
#[allow(clippy::too_many_arguments)]
fn newton_direction<M: Model>(
    model: &mut M,
    setup: &Setup,
    dims: &Dims,
    s: &State,
    pg: &[f64],
    held: &[bool],
    pre: &Precond,
    eta: f64,
) -> Result<(Vec<f64>, usize)> {
    let n = dims.dim();
    let mut d = vec![0.0; n];
    let mut r = pg.to_vec();
    let mut z = vec![0.0; n];
    pre.apply(dims, &r, &mut z);
    let mut p: Vec<f64> = z.iter().map(|v| -v).collect();
    let mut rz = dot(&r, &z);
    let rz0 = rz;
    let mut q = vec![0.0; n];
    if rz0.is_nan() || rz0 <= 0.0 {
        // A preconditioner lost to rounding: plain steepest descent.
        for (di, ri) in d.iter_mut().zip(&r) {
            *di = -ri;
        }
        return Ok((d, 0));
    }
    for j in 0..MAX_CG.min(n + 1) {
        hess_times(model, setup, dims, s, held, &p, &mut q)?;
        let curv = dot(&p, &q);
        if !curv.is_finite() || curv <= 0.0 {
            if j == 0 {
                d.copy_from_slice(&p);
            }
            return Ok((d, j));
        }
        let alpha = rz / curv;
        for i in 0..n {
            d[i] += alpha * p[i];
            r[i] += alpha * q[i];
        }
        pre.apply(dims, &r, &mut z);
        let rz_new = dot(&r, &z);
        if rz_new.is_nan() || rz_new <= eta * eta * rz0 {
            return Ok((d, j + 1));
        }
        let beta = rz_new / rz;
        for i in 0..n {
            p[i] = beta * p[i] - z[i];
        }
        rz = rz_new;
    }
    Ok((d, MAX_CG))
}

/// Move the difficulties' part of `d` onto `sum_i w_i d_i = 0` (exactly,
/// up to rounding: the projected CG keeps it there only approximately).
fn project(setup: &Setup, dims: &Dims, d: &mut [f64]) {
    let (mut wd, mut ww) = (0.0, 0.0);
    for i in 0..dims.ni {
        let w = setup.item_weight[i];
        wd += w * d[dims.nt + i * dims.p];
        ww += w * w;
    }
    if ww > 0.0 {
        for i in 0..dims.ni {
            d[dims.nt + i * dims.p] -= wd / ww * setup.item_weight[i];
        }
    }
}

/// `x + t d`, projected onto the bounds and the Laplace orthants.
fn trial(setup: &Setup, dims: &Dims, s: &State, pg: &[f64], d: &[f64], t: f64) -> Vec<f64> {
    let mut x: Vec<f64> = s.x.iter().zip(d).map(|(a, b)| a + t * b).collect();
    if let Some((loc, _)) = setup.prior.kink() {
        for j in 0..dims.nt {
            let side = if s.x[j] != loc {
                (s.x[j] - loc).signum()
            } else {
                -pg[j].signum()
            };
            if side != 0.0 && (x[j] - loc) * side < 0.0 {
                x[j] = loc;
            }
        }
    }
    if let Some((q, lo, hi)) = setup.bound {
        for i in 0..dims.ni {
            let at = dims.nt + i * dims.p + q;
            x[at] = x[at].clamp(lo, hi);
        }
    }
    x
}

/// Minimise `model + prior` from `x0` (moved onto the centring and into the
/// bounds first).
pub fn minimise<M: Model>(model: &mut M, setup: &Setup, x0: &[f64]) -> Result<Fit> {
    let dims = Dims {
        nt: model.n_theta(),
        ni: model.n_items(),
        p: model.p(),
    };
    let mut x = x0.to_vec();
    let wsum: f64 = setup.item_weight.iter().sum();
    if wsum > 0.0 {
        let mean = (0..dims.ni)
            .map(|i| setup.item_weight[i] * x[dims.nt + i * dims.p])
            .sum::<f64>()
            / wsum;
        for i in 0..dims.ni {
            x[dims.nt + i * dims.p] -= mean;
        }
    }
    if let Some((q, lo, hi)) = setup.bound {
        for i in 0..dims.ni {
            let at = dims.nt + i * dims.p + q;
            x[at] = x[at].clamp(lo, hi);
        }
    }
    let mut s = evaluate(model, setup, &dims, x)?;
    let mut eta = 0.1f64;
    let mut first_gradient = None;
    let mut iterations = 0;
    let mut converged = false;
    // Iterations in a row that barely lowered the objective without a small
    // step: the infimum lies at infinity or on a bound (no finite interior
    // estimate), and the fit stops unconverged.
    let mut creeping = 0;
    while iterations < setup.max_iter {
        let (mut pg, held) = pseudo_gradient(setup, &dims, &s);
        // Without the centring's multiplier (a multiple of the weights that
        // no step can use): near a MAP optimum it is most of the gradient,
        // and products with it would drown the rest in rounding.
        project(setup, &dims, &mut pg);
        let measure = stationarity(setup, &dims, &pg);
        let g0 = *first_gradient.get_or_insert(measure.max(f64::MIN_POSITIVE));
        if measure == 0.0 {
            converged = true;
            break;
        }
        let pre = Precond::new(setup, &dims, &s, &held);
        let cap: f64 = std::env::var("KSCORE_IRT_ETA")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0.1);
        eta = eta.min(cap);
        let (mut d, _cg_steps) = newton_direction(model, setup, &dims, &s, &pg, &held, &pre, eta)?;
        project(setup, &dims, &mut d);
        let mut slope = dot(&pg, &d);
        if slope.is_nan() || slope >= 0.0 {
            let mut z = vec![0.0; dims.dim()];
            pre.apply(&dims, &pg, &mut z);
            d = z.iter().map(|v| -v).collect();
            project(setup, &dims, &mut d);
            slope = dot(&pg, &d);
            if slope.is_nan() || slope >= 0.0 {
                converged = measure <= 1e-9 * g0;
                break;
            }
        }
        iterations += 1;
        let slack = 1e-13 * s.f.abs().max(1.0);
        let mut t = 1.0;
        let accepted = loop {
            let x = trial(setup, &dims, &s, &pg, &d, t);
            let moved: f64 = pg.iter().zip(x.iter().zip(&s.x)).map(|(g, (a, b))| g * (a - b)).sum();
            let next = evaluate(model, setup, &dims, x)?;
            if next.f.is_finite() && next.f <= s.f + 1e-4 * moved + slack {
                break Some(next);
            }
            t *= 0.5;
            if t < 1e-12 {
                break None;
            }
        };
        let Some(next) = accepted else {
            // No descent left: at the optimum within rounding, or stuck.
            // (The model's cache now holds a rejected point: evaluate again.)
            let x = std::mem::take(&mut s.x);
            s = evaluate(model, setup, &dims, x)?;
            converged = measure <= 1e-9 * g0;
            break;
        };
        let step = next.x.iter().zip(&s.x).fold(0.0f64, |a, (u, v)| a.max((u - v).abs()));
        let gained = s.f - next.f;
        let size = next.x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        s = next;
        eta = step.sqrt().clamp(1e-10, 0.1);
        if t == 1.0 && step <= STEP_TOL * (1.0 + size) {
            converged = true;
            break;
        }
        if gained <= CREEP * s.f.abs().max(1.0) && step > 1e-8 * (1.0 + size) {
            creeping += 1;
            if creeping >= CREEP_LIMIT {
                break;
            }
        } else {
            creeping = 0;
        }
    }
    let (pg, _) = pseudo_gradient(setup, &dims, &s);
    let gradient = stationarity(setup, &dims, &pg);
    Ok(Fit {
        x: s.x,
        value: s.f,
        iterations,
        converged,
        gradient,
    })
}
