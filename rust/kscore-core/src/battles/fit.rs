//! Bradley-Terry ratings on pair sums by Newton's method.
//!
//! The log-likelihood of the mean-zero ratings `theta` (natural-log
//! scale) is `sum_p s_p z_p - n_p softplus(z_p)`, `z_p = theta_i -
//! theta_j`, with `n_p` the pair's (weighted) battles and `s_p` the score
//! of `i` (ties as half a win, as LMArena counts them). It is concave; its
//! Hessian is minus a weighted graph Laplacian, singular along the
//! all-ones vector: each step solves `(H + 1 1^T / L) d = g`, whose
//! solution is the minimum-norm step (the gradient sums to zero), so the
//! ratings stay centred. Steps are damped by backtracking until the
//! log-likelihood does not fall; the loop ends when a full step moves no
//! rating by more than `TOL` (quadratic convergence: the last step's error
//! is of the order of its square).
//!
//! The maximum exists exactly when the directed graph "`i` scored against
//! `j`" is strongly connected (Zermelo; Ford 1957): otherwise some models
//! only win (or only lose) against the rest and their ratings run off to
//! infinity (the -3800 Elo of ComparIA #470). `Prior` adds a Gaussian prior
//! on the centred ratings, `precision * |theta|^2 / 2`: the caller uses it
//! where `mle_exists` is false and says so.
//!
//! This is arena's own Newton loop for LMArena's model (ties as half a
//! win). The shared paired-comparison solver (rust/kscore-core/src/pairwise/,
//! Davidson and Rao-Kupper ties) lives in the `rank-fit` room.

use crate::battles::dense;
use crate::error::{Error, Result};

/// Largest rating move (natural-log scale) of a full Newton step that ends
/// the loop: 1e-6 Elo is 5.8e-9 on this scale, and the error left after
/// such a step is of the order of its square.
pub const TOL: f64 = 1e-10;
const MAX_ITER: usize = 200;

/// A Gaussian prior on the centred ratings: `precision = 1 / sd^2` on the
/// natural-log scale (0: none, the maximum likelihood estimate).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    pub precision: f64,
}

#[derive(Clone, Debug)]
pub struct Fit {
    pub theta: Vec<f64>,
    pub iterations: usize,
    pub loglik: f64,
}

#[inline]
pub fn sigmoid(z: f64) -> f64 {
    if z >= 0.0 {
        1.0 / (1.0 + (-z).exp())
    } else {
        let e = z.exp();
        e / (1.0 + e)
    }
}

#[inline]
pub fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// The pairs' endpoints and sums, as `Board::pair_sums` gives them.
pub struct Pairs<'a> {
    pub models: usize,
    pub i: &'a [u32],
    pub j: &'a [u32],
    pub n: &'a [f64],
    pub s: &'a [f64],
}

impl Pairs<'_> {
    fn loglik(&self, theta: &[f64], prior: Prior) -> f64 {
        let mut ll = 0.0;
        for p in 0..self.i.len() {
            if self.n[p] > 0.0 {
                let z = theta[self.i[p] as usize] - theta[self.j[p] as usize];
                ll += self.s[p] * z - self.n[p] * softplus(z);
            }
        }
        ll - 0.5 * prior.precision * theta.iter().map(|t| t * t).sum::<f64>()
    }

    /// Gradient and `H + 1 1^T / L` (`H` the negative Hessian with the prior).
    fn derivatives(&self, theta: &[f64], prior: Prior) -> (Vec<f64>, Vec<f64>) {
        let l = self.models;
        let mut g: Vec<f64> = theta.iter().map(|t| -prior.precision * t).collect();
        let shift = 1.0 / l as f64;
        let mut h = vec![shift; l * l];
        for v in h.iter_mut().step_by(l + 1) {
            *v += prior.precision;
        }
        for p in 0..self.i.len() {
            let n = self.n[p];
            if n <= 0.0 {
                continue;
            }
            let (i, j) = (self.i[p] as usize, self.j[p] as usize);
            let pr = sigmoid(theta[i] - theta[j]);
            let r = self.s[p] - n * pr;
            g[i] += r;
            g[j] -= r;
            let w = n * pr * (1.0 - pr);
            h[i * l + i] += w;
            h[j * l + j] += w;
            h[i * l + j] -= w;
            h[j * l + i] -= w;
        }
        (g, h)
    }

    /// Component of each model in the graph of pairs with battles
    /// (labels 0, 1, ... in order of each component's first model).
    pub fn components(&self) -> Vec<u32> {
        let adj = self.adjacency(|_, _| true, true);
        label(&adj, self.models)
    }

    /// Whether the maximum likelihood estimate exists: the graph of "`i`
    /// scored against `j`" is strongly connected.
    pub fn mle_exists(&self) -> bool {
        let forward = self.adjacency(|s, _| s > 0.0, false);
        let reach = |adj: &[Vec<u32>], back: bool| {
            let mut seen = vec![false; self.models];
            let mut stack = vec![0usize];
            seen[0] = true;
            while let Some(u) = stack.pop() {
                for &v in &adj[u + if back { self.models } else { 0 }] {
                    if !seen[v as usize] {
                        seen[v as usize] = true;
                        stack.push(v as usize);
                    }
                }
            }
            seen.iter().all(|&x| x)
        };
        // (forward[u]: whom u scored against; forward[L + v]: who scored against v)
        self.models <= 1 || (reach(&forward, false) && reach(&forward, true))
    }

    /// Adjacency lists: edge `i -> j` where `keep(s, n)` (and `j -> i`
    /// where `keep(n - s, n)`), or both ways (`undirected`). The directed
    /// lists hold the reverse edges at `L + v`.
    fn adjacency(&self, keep: impl Fn(f64, f64) -> bool, undirected: bool) -> Vec<Vec<u32>> {
        let l = self.models;
        let mut adj = vec![Vec::new(); 2 * l];
        for p in 0..self.i.len() {
            let (i, j, n, s) = (self.i[p], self.j[p], self.n[p], self.s[p]);
            if n <= 0.0 {
                continue;
            }
            if undirected {
                adj[i as usize].push(j);
                adj[j as usize].push(i);
                continue;
            }
            if keep(s, n) {
                adj[i as usize].push(j);
                adj[l + j as usize].push(i);
            }
            if keep(n - s, n) {
                adj[j as usize].push(i);
                adj[l + i as usize].push(j);
            }
        }
        adj
    }
}

fn label(adj: &[Vec<u32>], models: usize) -> Vec<u32> {
    let mut comp = vec![u32::MAX; models];
    let mut next = 0;
    for start in 0..models {
        if comp[start] != u32::MAX {
            continue;
        }
        comp[start] = next;
        let mut stack = vec![start];
        while let Some(u) = stack.pop() {
            for &v in &adj[u] {
                if comp[v as usize] == u32::MAX {
                    comp[v as usize] = next;
                    stack.push(v as usize);
                }
            }
        }
        next += 1;
    }
    comp
}

/// The gradient of the (penalised) log-likelihood at `theta`.
pub fn gradient(pairs: &Pairs<'_>, theta: &[f64], prior: Prior) -> Vec<f64> {
    let mut g: Vec<f64> = theta.iter().map(|t| -prior.precision * t).collect();
    for p in 0..pairs.i.len() {
        let n = pairs.n[p];
        if n > 0.0 {
            let (i, j) = (pairs.i[p] as usize, pairs.j[p] as usize);
            let r = pairs.s[p] - n * sigmoid(theta[i] - theta[j]);
            g[i] += r;
            g[j] -= r;
        }
    }
    g
}

/// The Cholesky factor of `H + 1 1^T / L` at `theta` (`H` with the prior):
/// the fixed matrix of `chord`.
pub fn factor(pairs: &Pairs<'_>, theta: &[f64], prior: Prior) -> Result<Vec<f64>> {
    let (_, mut h) = pairs.derivatives(theta, prior);
    dense::cholesky(&mut h, pairs.models)
        .map_err(|_| Error::FloatingPoint("the information matrix is singular: models without battles".into()))?;
    Ok(h)
}

/// Chord iterations `theta += F^{-1} g(theta)` with a fixed factor `f`
/// (the board's information, for a resample of it): each costs a gradient
/// and two triangular solves instead of a factorisation, and converges
/// linearly at the rate of the resample's departure from the board. None
/// if it has not converged (to `TOL`) within `max_iter` or stops shrinking:
/// the caller then runs Newton's method.
pub fn chord(pairs: &Pairs<'_>, prior: Prior, start: &[f64], f: &[f64], max_iter: usize) -> Option<Vec<f64>> {
    let mut theta = start.to_vec();
    let mut last = f64::INFINITY;
    for _ in 0..max_iter {
        let mut step = gradient(pairs, &theta, prior);
        dense::solve(f, pairs.models, &mut step);
        let big = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
        if !big.is_finite() || big > 0.9 * last && big > 1e-6 {
            return None;
        }
        theta.iter_mut().zip(&step).for_each(|(t, d)| *t += d);
        centre(&mut theta);
        if big <= TOL {
            return Some(theta);
        }
        last = big;
    }
    None
}

/// The ratings (mean zero) maximising the (penalised) log-likelihood,
/// from `start` (zeros if None). The caller checks connectivity first.
pub fn fit(pairs: &Pairs<'_>, prior: Prior, start: Option<&[f64]>) -> Result<Fit> {
    let l = pairs.models;
    let mut theta = start.map_or_else(|| vec![0.0; l], |s| s.to_vec());
    centre(&mut theta);
    let mut ll = pairs.loglik(&theta, prior);
    for it in 1..=MAX_ITER {
        let (mut step, mut h) = pairs.derivatives(&theta, prior);
        dense::cholesky(&mut h, l)
            .map_err(|_| Error::FloatingPoint("the information matrix is singular: models without battles".into()))?;
        dense::solve(&h, l, &mut step);
        let big = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
        if !big.is_finite() {
            return Err(Error::FloatingPoint("Newton step is not finite".into()));
        }
        let mut t = 1.0;
        let mut next: Vec<f64>;
        loop {
            next = theta.iter().zip(&step).map(|(a, d)| a + t * d).collect();
            let nl = pairs.loglik(&next, prior);
            // (near the maximum the change is at rounding level: accept it)
            if nl >= ll - 1e-12 * ll.abs().max(1.0) || t < 1e-9 {
                ll = nl;
                break;
            }
            t *= 0.5;
        }
        theta = next;
        centre(&mut theta);
        if big * t <= TOL {
            return Ok(Fit {
                theta,
                iterations: it,
                loglik: ll,
            });
        }
    }
    Err(Error::FloatingPoint(format!(
        "Newton's method did not converge in {MAX_ITER} steps"
    )))
}

pub fn centre(theta: &mut [f64]) {
    if theta.is_empty() {
        return;
    }
    let m = theta.iter().sum::<f64>() / theta.len() as f64;
    theta.iter_mut().for_each(|t| *t -= m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_models_have_the_closed_form() {
        // 7 wins of 10: theta_0 - theta_1 = ln(7/3)
        let pairs = Pairs {
            models: 2,
            i: &[0],
            j: &[1],
            n: &[10.0],
            s: &[7.0],
        };
        let f = fit(&pairs, Prior { precision: 0.0 }, None).expect("converges");
        assert!((f.theta[0] - f.theta[1] - (7.0f64 / 3.0).ln()).abs() < 1e-14);
        assert!(f.theta[0] + f.theta[1] == 0.0);
    }

    #[test]
    fn existence_and_components() {
        // 0 beats 1 always, 1 and 2 split: no MLE; 3 alone: two components
        let pairs = Pairs {
            models: 4,
            i: &[0, 1],
            j: &[1, 2],
            n: &[5.0, 4.0],
            s: &[5.0, 2.0],
        };
        assert!(!pairs.mle_exists());
        assert_eq!(pairs.components(), vec![0, 0, 0, 1]);
        let ok = Pairs {
            models: 3,
            i: &[0, 1, 0],
            j: &[1, 2, 2],
            n: &[5.0, 4.0, 2.0],
            s: &[5.0, 2.0, 0.5],
        };
        assert!(ok.mle_exists());
        // a prior makes the fit finite
        let three = Pairs {
            models: 3,
            i: &[0, 1],
            j: &[1, 2],
            n: &[5.0, 4.0],
            s: &[5.0, 2.0],
        };
        let f = fit(&three, Prior { precision: 0.2 }, None).expect("converges");
        assert!(f.theta.iter().all(|t| t.is_finite() && t.abs() < 20.0));
    }
}
