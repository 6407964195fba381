//! scorio's `bayesian_mcmc`: random-walk Metropolis on the Bradley-Terry
//! posterior with independent Gaussian priors, its adaptive step, driven
//! by the caller's draws (numpy's, in scorio's order: `L` normals and one
//! uniform per iteration), so the same seed gives the same chain.
//!
//! The log-likelihood is scorio's `sum_{i != j} W_ij log P(i beats j)`
//! regrouped by pairs: with `log P(i beats j) = theta_i - ln(e^theta_i +
//! e^theta_j)`,
//!
//! `LL = sum_i theta_i out_i - sum_{i<j} n_ij (m + ln(a_i + a_j))`,
//!
//! `out_i = sum_j W_ij`, `n_ij = W_ij + W_ji`, `m = max theta`, `a = e^(theta
//! - m)`: one `ln` per unordered pair and `L` exps, where scorio's terms
//! take an `exp` and a `ln1p` per ordered pair. Where the strengths span more than 20, scorio's
//! cut-offs (`|theta_j - theta_i| > 20`) may apply, and its sum is taken term
//! for term in its order instead. The regrouped sum rounds differently from
//! scorio's (by about 1e-16 of the likelihood's size, which is the number of
//! decisive comparisons), so an acceptance could differ from scorio's only
//! when `log u` and the log-ratio agree to that.

use crate::numeric::expln::{exp, has_avx2, ln};

/// Lanes of the pair sums (fixed: the same bits on every CPU).
const LANES: usize = 8;

/// The posterior's terms: decisive wins `W[i, j] > 0` in scorio's order
/// (`i`, then `j`), and the regrouped counts.
pub struct Posterior {
    models: usize,
    first: Vec<u32>,
    second: Vec<u32>,
    wins: Vec<f64>,
    /// `out_i = sum_j W_ij`.
    out: Vec<f64>,
    /// `n_ij = W_ij + W_ji` for `j > i`, row `i` after row `i - 1`.
    pairs: Vec<f64>,
    /// `sum_{i<j} n_ij`.
    total: f64,
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
            out: vec![0.0; models],
            pairs: Vec::with_capacity(models * models.saturating_sub(1) / 2),
            total: 0.0,
            prior_var,
        };
        for i in 0..models {
            for j in 0..models {
                let w = wins[i * models + j];
                if i != j && w != 0.0 {
                    post.first.push(i as u32);
                    post.second.push(j as u32);
                    post.wins.push(w);
                    post.out[i] += w;
                }
                if j > i {
                    let n = w + wins[j * models + i];
                    post.pairs.push(n);
                    post.total += n;
                }
            }
        }
        post
    }

    /// The log-posterior at `theta` (`table`: the strengths' powers, work
    /// space).
    pub fn log_posterior(&self, theta: &[f64], table: &mut Vec<f64>) -> f64 {
        let (lo, hi) = theta.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &t| {
            (lo.min(t), hi.max(t))
        });
        let ll = if hi - lo <= 20.0 {
            table.clear();
            table.extend(theta.iter().map(|&t| exp(t - hi)));
            let linear = theta.iter().zip(&self.out).fold(0.0, |s, (t, o)| s + t * o);
            linear - (hi * self.total + pair_logs(table, &self.pairs))
        } else {
            self.log_likelihood_terms(theta)
        };
        ll + self.log_prior(theta)
    }

    /// scorio's log-likelihood term for term in its order (its cut-offs at
    /// `|theta_j - theta_i| > 20`).
    fn log_likelihood_terms(&self, theta: &[f64]) -> f64 {
        let mut ll = 0.0;
        for ((&i, &j), &w) in self.first.iter().zip(&self.second).zip(&self.wins) {
            let diff = theta[j as usize] - theta[i as usize];
            let log_p = if diff > 20.0 {
                -diff
            } else if diff < -20.0 {
                0.0
            } else {
                -ln(1.0 + exp(diff))
            };
            ll += w * log_p;
        }
        ll
    }

    /// `-1/2 |theta|^2 / prior_var` with numpy's pairwise sum of the squares.
    fn log_prior(&self, theta: &[f64]) -> f64 {
        -0.5 * numpy_sum_squares(theta) / self.prior_var
    }
}

/// `sum_{i<j} n_ij ln(a_i + a_j)`, each row's pairs in eight lanes (lane `q`
/// the opponents `j = i + 1 + q mod 8`), the rows' tails in order; the lanes
/// added in a fixed tree at the end. With AVX-512, `simd::pair_logs8` (the
/// tails in the lanes too, `ln` from `simd::ln8`: within an ulp or two).
fn pair_logs(a: &[f64], n: &[f64]) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::ratings::has_avx512() {
            // SAFETY: the CPU has AVX-512 F and DQ (checked).
            return unsafe { crate::ratings::simd::pair_logs8(a, n) };
        }
        if has_avx2() {
            // SAFETY: the CPU has AVX2 (checked).
            return unsafe { pair_logs_avx2(a, n) };
        }
    }
    pair_logs_body(a, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn pair_logs_avx2(a: &[f64], n: &[f64]) -> f64 {
    pair_logs_body(a, n)
}

#[inline(always)]
fn pair_logs_body(a: &[f64], n: &[f64]) -> f64 {
    let l = a.len();
    let mut lanes = [0.0f64; LANES];
    let mut tail = 0.0;
    let mut at = 0;
    for i in 0..l {
        let ai = a[i];
        let later = &a[i + 1..];
        let Some(row) = n.get(at..at + later.len()) else {
            break;
        };
        at += later.len();
        let mut an = later.chunks_exact(LANES);
        let mut nn = row.chunks_exact(LANES);
        for (ac, nc) in (&mut an).zip(&mut nn) {
            for q in 0..LANES {
                lanes[q] += nc[q] * ln(ai + ac[q]);
            }
        }
        for (&aj, &nj) in an.remainder().iter().zip(nn.remainder()) {
            tail += nj * ln(ai + aj);
        }
    }
    let quads = [
        lanes[0] + lanes[4],
        lanes[1] + lanes[5],
        lanes[2] + lanes[6],
        lanes[3] + lanes[7],
    ];
    ((quads[0] + quads[1]) + (quads[2] + quads[3])) + tail
}

/// numpy's pairwise summation of the squares of `theta` (`np.sum(theta ** 2)`),
/// without a copy for up to 128 models.
fn numpy_sum_squares(theta: &[f64]) -> f64 {
    if theta.len() <= 128 {
        let mut squares = [0.0f64; 128];
        for (s, t) in squares.iter_mut().zip(theta) {
            *s = t * t;
        }
        return numpy_sum(&squares[..theta.len()]);
    }
    let squares: Vec<f64> = theta.iter().map(|t| t * t).collect();
    numpy_sum(&squares)
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
        let mut terms = Vec::with_capacity(l);
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
    fn regrouped_log_posterior_is_scorios_sum() {
        // Strengths within 20 of each other (the regrouped sum), 37 and 100
        // models (full lane blocks and tails), against scorio's terms from
        // the C library's exp and ln1p, pair by pair in its order.
        for l in [2usize, 9, 37, 100] {
            let theta: Vec<f64> = (0..l).map(|k| ((k * 7919) % 97) as f64 * 0.2 - 9.5).collect();
            let wins: Vec<f64> = (0..l * l).map(|k| ((k * 31) % 5) as f64 * 100.0).collect();
            let post = Posterior::new(&wins, l, 2.0);
            let mut want = 0.0;
            for i in 0..l {
                for j in 0..l {
                    let w = wins[i * l + j];
                    if i != j && w != 0.0 {
                        want += w * -(theta[j] - theta[i]).exp().ln_1p();
                    }
                }
            }
            want += -0.5 * theta.iter().map(|t| t * t).sum::<f64>() / 2.0;
            let got = post.log_posterior(&theta, &mut Vec::new());
            assert!((got - want).abs() <= 1e-13 * want.abs(), "{l}: {got} vs {want}");
        }
    }

    #[test]
    fn portable_pair_logs_equal_the_dispatched_ones() {
        // The portable rows (other CPUs) against what this CPU runs (AVX-512
        // or AVX2): the same sum to rounding, rows of 1 to 40 pairs.
        for l in [2usize, 9, 17, 41] {
            let a: Vec<f64> = (0..l).map(|k| (-(((k * 37) % 23) as f64) * 0.4).exp()).collect();
            let n: Vec<f64> = (0..l * (l - 1) / 2).map(|k| ((k * 13) % 7) as f64 * 50.0).collect();
            let (portable, here) = (pair_logs_body(&a, &n), pair_logs(&a, &n));
            assert!(
                (portable - here).abs() <= 1e-14 * portable.abs().max(1.0),
                "{l}: {portable} vs {here}"
            );
        }
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
