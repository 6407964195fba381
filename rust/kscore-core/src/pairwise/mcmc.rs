//! scorio's `bayesian_mcmc`: random-walk Metropolis on the Bradley-Terry
//! posterior with independent Gaussian priors, its adaptive step, driven
//! by the caller's draws (numpy's, in scorio's order: `L` normals and one
//! uniform per iteration), so the same seed gives the same chain.
//!
//! The log-posterior is scorio's sum, term for term and in its order (the
//! same cut-offs at `|theta_j - theta_i| > 20`, numpy's pairwise sum for
//! the prior); its `exp` and `ln` are `numeric::expln`'s (within 2 ulp), so
//! an acceptance could differ from scorio's only when `log u` and the
//! log-ratio agree to about 1e-13.

use rayon::prelude::*;

use crate::numeric::expln::{exp, has_avx2, ln};
use crate::par;

/// The posterior's terms: decisive wins `W[i, j] > 0` in scorio's order
/// (`i`, then `j`).
pub struct Posterior {
    models: usize,
    first: Vec<u32>,
    second: Vec<u32>,
    wins: Vec<f64>,
    prior_var: f64,
}

impl Posterior {
    /// From scorio's wins matrix (`models x models`, row-major).
    pub fn new(wins: &[f64], models: usize, prior_var: f64) -> Self {
        let mut post = Posterior {
            models,
            first: vec![],
            second: vec![],
            wins: vec![],
            prior_var,
        };
        for i in 0..models {
            for j in 0..models {
                let w = wins[i * models + j];
                if i != j && w != 0.0 {
                    post.first.push(i as u32);
                    post.second.push(j as u32);
                    post.wins.push(w);
                }
            }
        }
        post
    }

    /// The log-posterior at `theta` (`table`: work space).
    pub fn log_posterior(&self, theta: &[f64], table: &mut Vec<f64>) -> f64 {
        // -log P(i beats j) = ln(1 + exp(theta_j - theta_i)) for every
        // pair, each unordered pair once (row `i` holds the pairs `j > i`,
        // both ways: contiguous, the loop vectorises), then scorio's sum over
        // its pairs in its order, with its cut-offs.
        let l = self.models;
        table.resize(2 * l * l, 0.0);
        let (ahead, behind) = table.split_at_mut(l * l);
        // Rows are independent: in parallel once an iteration is worth a
        // hand-off to the pool (a row costs about 3 ns per model: a
        // vectorised `exp` and `ln` for half the opponents).
        if par::worth_splitting(3 * l * l) {
            ahead
                .par_chunks_mut(l.max(1))
                .zip(behind.par_chunks_mut(l.max(1)))
                .enumerate()
                .with_min_len(par::min_len(3 * l))
                .for_each(|(i, (a, b))| softplus_row(i, theta, a, b));
        } else {
            for (i, (a, b)) in ahead.chunks_mut(l.max(1)).zip(behind.chunks_mut(l.max(1))).enumerate() {
                softplus_row(i, theta, a, b);
            }
        }
        let mut ll = 0.0;
        for ((&i, &j), &w) in self.first.iter().zip(&self.second).zip(&self.wins) {
            let (i, j) = (i as usize, j as usize);
            let diff = theta[j] - theta[i];
            let log_p = if diff > 20.0 {
                -diff
            } else if diff < -20.0 {
                0.0
            } else if i < j {
                -ahead[i * l + j]
            } else {
                -behind[j * l + i]
            };
            ll += w * log_p;
        }
        let squares: Vec<f64> = theta.iter().map(|t| t * t).collect();
        ll + -0.5 * numpy_sum(&squares) / self.prior_var
    }
}

/// For the opponents `j > i` of row `i`, with `d = theta_j - theta_i`:
/// `ahead[j] = ln(1 + exp(d))` and `behind[j] = ln(1 + exp(-d))` (the pair
/// the other way), from one `exp` and `ln` of `-|d|` (clamped at -20, past
/// which scorio's cut-offs take over): `ln(1 + exp(x)) = ln(1 + exp(-|x|)) +
/// max(x, 0)`.
fn softplus_row(i: usize, theta: &[f64], ahead: &mut [f64], behind: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { softplus_row_avx2(i, theta, ahead, behind) };
        }
    }
    softplus_row_body(i, theta, ahead, behind)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn softplus_row_avx2(i: usize, theta: &[f64], ahead: &mut [f64], behind: &mut [f64]) {
    softplus_row_body(i, theta, ahead, behind)
}

#[inline(always)]
fn softplus_row_body(i: usize, theta: &[f64], ahead: &mut [f64], behind: &mut [f64]) {
    let Some(&ti) = theta.get(i) else {
        return;
    };
    let later = &theta[i + 1..];
    let n = later
        .len()
        .min(ahead.len().saturating_sub(i + 1))
        .min(behind.len().saturating_sub(i + 1));
    let (ahead, behind) = (&mut ahead[i + 1..i + 1 + n], &mut behind[i + 1..i + 1 + n]);
    for ((a, b), &tj) in ahead.iter_mut().zip(behind.iter_mut()).zip(&later[..n]) {
        let d = tj - ti;
        let base = ln(1.0 + exp((-d.abs()).max(-20.0)));
        *a = base + d.max(0.0);
        *b = base + (-d).max(0.0);
    }
}

/// numpy's pairwise summation of a contiguous float64 array (`np.sum`).
pub fn numpy_sum(a: &[f64]) -> f64 {
    let n = a.len();
    if n < 8 {
        return a.iter().fold(0.0, |r, x| r + x);
    }
    if n <= 128 {
        let mut r = [0.0; 8];
        r.copy_from_slice(&a[..8]);
        let body = n - n % 8;
        for chunk in a[8..body].chunks_exact(8) {
            for k in 0..8 {
                r[k] += chunk[k];
            }
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for x in &a[body..] {
            res += x;
        }
        return res;
    }
    let half = n / 2;
    let half = half - half % 8;
    numpy_sum(&a[..half]) + numpy_sum(&a[half..])
}

/// A chain's state between blocks of draws.
#[derive(Clone, Debug)]
pub struct Chain {
    pub theta: Vec<f64>,
    pub log_post: f64,
    pub step: f64,
    pub accepted: u64,
    pub iteration: u64,
    /// Sums of the kept draws (after burn-in), per model.
    pub sums: Vec<f64>,
}

impl Chain {
    pub fn start(post: &Posterior) -> Chain {
        let theta = vec![0.0; post.models];
        Chain {
            log_post: post.log_posterior(&theta, &mut Vec::new()),
            theta,
            step: 0.1,
            accepted: 0,
            iteration: 0,
            sums: vec![0.0; post.models],
        }
    }

    /// Advance by `u.len()` iterations: `z` holds `models` standard normals
    /// per iteration, `u` one uniform.
    pub fn advance(&mut self, post: &Posterior, z: &[f64], u: &[f64], burnin: u64) {
        let l = post.models;
        let mut proposal = vec![0.0; l];
        let mut terms = Vec::with_capacity(l * l);
        for (t, &uniform) in u.iter().enumerate() {
            let it = self.iteration;
            for k in 0..l {
                // numpy's normal(0, step): 0 + step * z
                proposal[k] = self.theta[k] + (0.0 + self.step * z[t * l + k]);
            }
            let log_post = post.log_posterior(&proposal, &mut terms);
            let ratio = log_post - self.log_post;
            if ln(uniform) < ratio.min(0.0) {
                self.theta.copy_from_slice(&proposal);
                self.log_post = log_post;
                self.accepted += 1;
            }
            if it >= burnin {
                for k in 0..l {
                    self.sums[k] += self.theta[k];
                }
            }
            if it > 0 && it.is_multiple_of(500) && it < burnin {
                let rate = self.accepted as f64 / it as f64;
                if rate < 0.2 {
                    self.step *= 0.8;
                } else if rate > 0.5 {
                    self.step *= 1.2;
                }
            }
            self.iteration += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numpy_sum_blocks() {
        let a: Vec<f64> = (0..300).map(|k| 1.0 / (k as f64 + 1.0)).collect();
        let plain: f64 = a.iter().sum();
        assert!((numpy_sum(&a) - plain).abs() < 1e-13);
        assert_eq!(numpy_sum(&a[..5]), a[..5].iter().fold(0.0, |r, x| r + x));
    }

    #[test]
    fn log_posterior_is_scorios_sum() {
        // scorio's terms from the C library's exp and ln1p, pair by pair in
        // its order; strengths spread past the cut-offs at |d| = 20 and
        // close to them, 37 models (full lane blocks and tails).
        let l = 37;
        let theta: Vec<f64> = (0..l).map(|k| ((k * 7919) % 97) as f64 * 0.47 - 22.0).collect();
        let wins: Vec<f64> = (0..l * l).map(|k| ((k * 31) % 5) as f64).collect();
        let post = Posterior::new(&wins, l, 2.0);
        let mut want = 0.0;
        for i in 0..l {
            for j in 0..l {
                let w = wins[i * l + j];
                if i == j || w == 0.0 {
                    continue;
                }
                let d = theta[j] - theta[i];
                let log_p = if d > 20.0 {
                    -d
                } else if d < -20.0 {
                    0.0
                } else {
                    -d.exp().ln_1p()
                };
                want += w * log_p;
            }
        }
        want += -0.5 * theta.iter().map(|t| t * t).sum::<f64>() / 2.0;
        let got = post.log_posterior(&theta, &mut Vec::new());
        assert!((got - want).abs() <= 1e-13 * want.abs(), "{got} vs {want}");
    }

    #[test]
    fn the_chain_moves_towards_the_winner() {
        // 0 beats 1 nine times out of ten.
        let wins = [0.0, 9.0, 1.0, 0.0];
        let post = Posterior::new(&wins, 2, 1.0);
        let mut chain = Chain::start(&post);
        let mut state = 5u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let n = 20_000;
        // Box-Muller normals, uniforms.
        let z: Vec<f64> = (0..2 * n)
            .map(|_| {
                let (a, b) = (next().max(1e-300), next());
                (-2.0 * a.ln()).sqrt() * (2.0 * std::f64::consts::PI * b).cos()
            })
            .collect();
        let u: Vec<f64> = (0..n).map(|_| next()).collect();
        chain.advance(&post, &z, &u, 2000);
        let mean: Vec<f64> = chain.sums.iter().map(|s| s / (n - 2000) as f64).collect();
        assert!(mean[0] > 0.3 && mean[1] < -0.3, "{mean:?}");
        assert!(chain.accepted > 0);
    }
}
