//! Bradley-Terry ratings on pair sums, by the crate's one paired-comparison
//! solver (`crate::pairwise`: Newton's method on centred log-strengths,
//! Bradley-Terry with ties as half a win, as LMArena counts them).
//!
//! The log-likelihood of the mean-zero ratings `theta` (natural-log
//! scale) is `sum_p s_p z_p - n_p softplus(z_p)`, `z_p = theta_i -
//! theta_j`, with `n_p` the pair's (weighted) battles and `s_p` the score
//! of `i`: `pairwise::fit` with `i` winning `s_p` and `j` winning `n_p -
//! s_p` (its KKT residual to 1e-12 of the largest model's battles, then
//! polished: the ratings are the maximum to rounding).
//!
//! The maximum exists exactly when the directed graph "`i` scored against
//! `j`" is strongly connected (Zermelo; Ford 1957): otherwise some models
//! only win (or only lose) against the rest and their ratings run off to
//! infinity (the -3800 Elo of ComparIA #470). `Prior` adds a Gaussian prior
//! on the centred ratings, `precision * |theta|^2 / 2`: the caller uses it
//! where `mle_exists` is false and says so.
//!
//! What stays here is arena's: the pair-sum view of a board, its
//! components, and the chord iterations of the bootstrap's rounds (a fixed
//! factor of the board's information, cheaper than a Newton step per
//! round; a round they do not settle goes to the solver).

use crate::battles::dense;
use crate::error::{Error, Result};
use crate::pairwise as pw;
use crate::pairwise::table::strongly_connected;

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
    /// `H + 1 1^T / L` (`H` the negative Hessian with the prior).
    fn information(&self, theta: &[f64], prior: Prior) -> Vec<f64> {
        let l = self.models;
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
            let w = n * pr * (1.0 - pr);
            h[i * l + i] += w;
            h[j * l + j] += w;
            h[i * l + j] -= w;
            h[j * l + i] -= w;
        }
        h
    }

    /// Component of each model in the graph of pairs with battles
    /// (labels 0, 1, ... in order of each component's first model).
    pub fn components(&self) -> Vec<u32> {
        let mut adj = vec![Vec::new(); self.models];
        for p in 0..self.i.len() {
            if self.n[p] > 0.0 {
                let (i, j) = (self.i[p], self.j[p]);
                adj[i as usize].push(j);
                adj[j as usize].push(i);
            }
        }
        label(&adj, self.models)
    }

    /// Whether the maximum likelihood estimate exists: the graph of "`i`
    /// scored against `j`" is strongly connected (the solver's own test).
    pub fn mle_exists(&self) -> bool {
        // (strongly_connected reads the rows' endpoints; the edges are ours)
        let table = pw::Pairs {
            i: self.i,
            j: self.j,
            win_i: self.s,
            win_j: self.n,
            tie: self.n,
        };
        strongly_connected(self.models, &table, |p| (self.s[p] > 0.0, self.n[p] - self.s[p] > 0.0))
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
    let mut h = pairs.information(theta, prior);
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
/// from `start` (zeros if None), by `pairwise::fit`. The caller checks
/// connectivity first (the solver refuses an unpenalised board without a
/// maximum too).
pub fn fit(pairs: &Pairs<'_>, prior: Prior, start: Option<&[f64]>) -> Result<Fit> {
    let l = pairs.models;
    // (n - s >= 0 in exact arithmetic; rounding of the two sums can leave -1 ulp)
    let lost: Vec<f64> = pairs.n.iter().zip(pairs.s).map(|(n, s)| (n - s).max(0.0)).collect();
    let none = vec![0.0; pairs.i.len()];
    let table = pw::Pairs {
        i: pairs.i,
        j: pairs.j,
        win_i: pairs.s,
        win_j: &lost,
        tie: &none,
    };
    let (mean, precision) = (vec![0.0; l], vec![prior.precision; l]);
    let penalty = if prior.precision > 0.0 {
        pw::Prior::Gaussian {
            mean: &mean,
            precision: &precision,
        }
    } else {
        pw::Prior::None
    };
    let options = pw::Options {
        max_iter: MAX_ITER,
        init: start,
        ..pw::Options::default()
    };
    let f = pw::fit(
        l,
        &table,
        pw::Model::BradleyTerry(pw::Ties::HalfWin),
        &penalty,
        &options,
    )?;
    if !f.converged {
        return Err(Error::FloatingPoint(format!(
            "Newton's method did not converge in {MAX_ITER} steps"
        )));
    }
    Ok(Fit {
        theta: f.theta,
        iterations: f.iterations,
        loglik: -f.objective,
    })
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
