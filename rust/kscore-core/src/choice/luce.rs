//! The two setwise Luce likelihoods of scorio's listwise rankers, as
//! [`Objective`]s of the shared Newton solver.
//!
//! - [`Composite`]: Bradley-Terry-Luce rank breaking. Each winner `i` of an
//!   event is a Luce choice from itself and the event's losers:
//!   `sum_events sum_{i in W} [log(pi_i + sum_{j in L} pi_j) - theta_i]`,
//!   with the analytic gradient and Hessian.
//! - [`DavidsonLuce`]: Firth, Kosmidis & Turner's (2019) Davidson-Luce
//!   model with every comparison set the whole field (scorio's binary
//!   setting), its tie prevalences `delta_t` profiled out. The likelihood
//!   `prod_e delta_{t_e} g_{t_e}(W_e) / sum_t delta_t e_t(alpha^{1/t})`
//!   (`g_t(W)` the geometric mean of the winners' `alpha`, `e_t` the
//!   elementary symmetric polynomial) depends on the data only through the
//!   events per order `n_t` and `s_i = sum_t c_{it} / t` (`c_{it}`: events
//!   won by `i` among `t` winners); maximising over `delta` gives
//!   `delta_t e_t / Z = n_t / E` (`delta_t = 0` for unobserved orders: the
//!   optimum's boundary), and the negative log-likelihood in `theta` is
//!   `sum_t n_t log e_t(exp(theta / t)) - sum_i s_i theta_i` plus a
//!   constant: convex, a sum of conditional (size-`t`) logit terms.
//!   Gradient: `n_t / t` times the inclusion probabilities `pi` of the
//!   size-`t` conditional Poisson design, from prefix and suffix tables of
//!   `e_k` (exact). Hessian: `n_t / t^2` times the design's covariance of
//!   inclusions, in Hajek's approximation `diag(d) - d d^T / sum(d)`,
//!   `d = pi (1 - pi)` (positive semi-definite, null along `1`, as the
//!   exact one); the optimum is where the exact gradient vanishes, so the
//!   approximation only sets the convergence rate (a few more Newton steps
//!   instead of `O(L^2 t)` joint inclusions per order).

use ndarray::linalg::general_mat_mul;
use ndarray::{s, Array2, ArrayViewMut2};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::pairwise::newton::Objective;

use super::events::Events;

/// Bradley-Terry-Luce's composite likelihood over distinct winner sets.
pub struct Composite<'e> {
    events: &'e Events,
    losers: Vec<Vec<u32>>,
    scale: f64,
}

impl<'e> Composite<'e> {
    pub fn new(events: &'e Events) -> Self {
        let losers: Vec<Vec<u32>> = (0..events.winners.len()).map(|k| events.losers(k)).collect();
        let mut per_model = vec![0.0f64; events.models];
        for (k, w) in events.winners.iter().enumerate() {
            let c = events.counts[k];
            for &i in w {
                per_model[i as usize] += c;
            }
            for &j in &losers[k] {
                per_model[j as usize] += c * w.len() as f64;
            }
        }
        let scale = per_model.iter().copied().fold(0.0, f64::max);
        Composite { events, losers, scale }
    }
}

impl Objective for Composite<'_> {
    fn items(&self) -> usize {
        self.events.models
    }

    fn extra(&self) -> usize {
        0
    }

    fn scale(&self) -> f64 {
        self.scale
    }

    fn evaluate(&self, x: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64> {
        let l = self.events.models;
        let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pi: Vec<f64> = x.iter().map(|t| (t - top).exp()).collect();
        let want = derivatives.is_some();
        let blocks = self.blocks();
        let sets = self.events.winners.len();
        let run = |n: usize| self.block(&pi, n * sets / blocks, (n + 1) * sets / blocks, want);
        // Blocks are summed in block order: the same bits whatever the threads
        // (and the same value with or without the derivatives).
        let parts: Vec<Part> = if blocks == 1 {
            vec![run(0)]
        } else {
            (0..blocks).into_par_iter().map(run).collect()
        };
        let value = parts.iter().map(|p| p.value).sum();
        let Some((g, h)) = derivatives else {
            return Ok(value);
        };
        let mut cross = vec![0.0; l * l];
        for part in &parts {
            for (o, v) in g.iter_mut().zip(&part.grad) {
                *o += v;
            }
            for (k, v) in part.diag.iter().enumerate() {
                h[k * l + k] += v;
            }
            for (o, v) in cross.iter_mut().zip(&part.cross) {
                *o += v;
            }
        }
        // The rest is sum_k c_k (q_k y_k^T + y_k q_k^T) with y_k the losers'
        // strengths and q_k the winners' pi_i / z_i^2 and the losers'
        // (b_k / 2) pi_j (a winner-loser term pi_i pi_j / z_i^2 per pair,
        // b_k pi_j pi_m per pair of losers); `cross` is its half P^T.
        for i in 0..l {
            for j in 0..l {
                h[i * l + j] -= cross[j * l + i] + cross[i * l + j];
            }
        }
        Ok(value)
    }
}

/// One block of sets' share of the value and derivatives.
struct Part {
    value: f64,
    grad: Vec<f64>,
    diag: Vec<f64>,
    /// `P^T = sum_k c_k y_k q_k^T` over the block (`l x l`, row `j` the losers' side).
    cross: Vec<f64>,
}

impl Composite<'_> {
    /// Blocks of sets: a number that depends on the sizes only.
    fn blocks(&self) -> usize {
        let l = self.events.models;
        let sets = self.events.winners.len();
        let work = sets.saturating_mul(l).saturating_mul(l);
        (work / CROSS_BLOCK_WORK)
            .clamp(1, CROSS_BLOCKS)
            .min((CROSS_BLOCK_BYTES / (8 * l * l).max(1)).max(1))
            .min(sets.max(1))
    }

    /// Sets `lo..hi`: the value, and with `want` the gradient, the
    /// Hessian's diagonal terms and its cross half `P^T`, the latter as
    /// matrix products `A^T Q` over `ROWS` sets at a time (`A`'s row `k`:
    /// `c_k y_k`, zero on the winners; `Q`'s: `q_k`): a cache-blocked GEMM
    /// instead of one row update per loser.
    fn block(&self, pi: &[f64], lo: usize, hi: usize, want: bool) -> Part {
        let l = self.events.models;
        let mut part = Part {
            value: 0.0,
            grad: Vec::new(),
            diag: Vec::new(),
            cross: Vec::new(),
        };
        if want {
            part.grad = vec![0.0; l];
            part.diag = vec![0.0; l];
            part.cross = vec![0.0; l * l];
        }
        let mut a = Array2::<f64>::zeros((if want { ROWS } else { 0 }, l));
        let mut q = Array2::<f64>::zeros((if want { ROWS } else { 0 }, l));
        let mut p = ArrayViewMut2::from_shape((l, l), &mut part.cross[..]).ok();
        let mut k = lo;
        while k < hi {
            let end = (k + ROWS).min(hi);
            for (r, kk) in (k..end).enumerate() {
                let (c, winners, losers) = (self.events.counts[kk], &self.events.winners[kk], &self.losers[kk]);
                // The losers' total strength S, a = sum_W 1/z and b = sum_W 1/z^2 (z = pi_i + S).
                let s: f64 = losers.iter().map(|&j| pi[j as usize]).sum();
                let (mut sa, mut sb) = (0.0, 0.0);
                // sum_W log(1 + S / pi_i) as the log of the factors' product:
                // one `ln` per set (or per 1e200 of product) instead of one
                // `ln_1p` per winner, a third of the fit's time; a factor
                // past 1e100 is taken alone. (The rounding of `1 + S / pi_i`
                // costs an absolute 1e-16 a winner, as the sum of logs did.)
                let (mut logs, mut product) = (0.0, 1.0f64);
                for &i in winners {
                    let pv = pi[i as usize];
                    let ratio = s / pv;
                    if ratio > 1e100 {
                        logs += ratio.ln_1p();
                    } else {
                        product *= 1.0 + ratio;
                        if product > 1e200 {
                            logs += product.ln();
                            product = 1.0;
                        }
                    }
                    let z = pv + s;
                    sa += 1.0 / z;
                    sb += 1.0 / (z * z);
                }
                part.value += c * (logs + product.ln());
                if !want {
                    continue;
                }
                let (mut ar, mut qr) = (a.row_mut(r), q.row_mut(r));
                let (ar, qr) = (ar.as_slice_mut(), qr.as_slice_mut());
                let (Some(ar), Some(qr)) = (ar, qr) else { continue };
                for &i in winners {
                    let iu = i as usize;
                    let pv = pi[iu];
                    let z = pv + s;
                    part.grad[iu] -= c * (s / z);
                    part.diag[iu] += c * pv * s / (z * z);
                    ar[iu] = 0.0;
                    qr[iu] = pv / (z * z);
                }
                let half = 0.5 * sb;
                for &j in losers {
                    let ju = j as usize;
                    let pv = pi[ju];
                    part.grad[ju] += c * pv * sa;
                    part.diag[ju] += c * pv * sa;
                    ar[ju] = c * pv;
                    qr[ju] = half * pv;
                }
            }
            if let Some(p) = p.as_mut() {
                let rows = end - k;
                let (a, q) = (a.slice(s![..rows, ..]), q.slice(s![..rows, ..]));
                general_mat_mul(1.0, &a.t(), &q, 1.0, p);
            }
            k = end;
        }
        part
    }
}

/// Sets per matrix product of `Composite::block`.
const ROWS: usize = 256;
/// Work (multiply-adds) per block of sets (a block must be worth a
/// hand-off: about 1 ms).
const CROSS_BLOCK_WORK: usize = 1 << 22;
/// Most blocks (each an `l x l` table).
const CROSS_BLOCKS: usize = 16;
/// Most bytes of the blocks' tables together.
const CROSS_BLOCK_BYTES: usize = 1 << 28;

/// The profiled Davidson-Luce likelihood.
pub struct DavidsonLuce {
    models: usize,
    /// Observed orders `t` with their event counts `n_t`.
    orders: Vec<(usize, f64)>,
    /// `s_i = sum_t c_{it} / t`.
    s: Vec<f64>,
    scale: f64,
}

/// Up to this many models the elementary symmetric polynomials of values
/// in (0, 1] stay below 2^1000 (no overflow).
pub const MAX_MODELS: usize = 1000;

impl DavidsonLuce {
    pub fn new(events: &Events) -> Result<Self> {
        let l = events.models;
        if l > MAX_MODELS {
            return Err(Error::value(format!(
                "davidson_luce: at most {MAX_MODELS} models, got {l}"
            )));
        }
        let by_order = events.by_order();
        let orders: Vec<(usize, f64)> = by_order
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0.0)
            .map(|(t, &n)| (t + 1, n))
            .collect();
        let mut s = vec![0.0; l];
        for (w, &c) in events.winners.iter().zip(&events.counts) {
            for &i in w {
                s[i as usize] += c / w.len() as f64;
            }
        }
        let scale = by_order.iter().sum::<f64>();
        Ok(DavidsonLuce {
            models: l,
            orders,
            s,
            scale,
        })
    }

    /// The value and the exact gradient (added into `g`), and Hajek's
    /// approximate Hessian (added into `h`, `L x L`).
    fn value_gradient(&self, x: &[f64], mut g: Option<&mut [f64]>, mut h: Option<&mut [f64]>) -> f64 {
        let l = self.models;
        let top = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut value: f64 = -self.s.iter().zip(x).map(|(s, t)| s * t).sum::<f64>();
        if let Some(g) = g.as_mut() {
            for i in 0..l {
                g[i] -= self.s[i];
            }
        }
        let mut xs = vec![0.0; l];
        for &(t, n) in &self.orders {
            for i in 0..l {
                xs[i] = ((x[i] - top) / t as f64).exp();
            }
            let w = t + 1;
            // prefix[a * w + k] = e_k(x_0 .. x_{a-1}); suffix[b * w + k] = e_k(x_b .. x_{l-1}).
            let mut prefix = vec![0.0; (l + 1) * w];
            prefix[0] = 1.0;
            for a in 0..l {
                let (done, next) = prefix.split_at_mut((a + 1) * w);
                let prev = &done[a * w..];
                next[0] = prev[0];
                for k in 1..w {
                    next[k] = prev[k] + xs[a] * prev[k - 1];
                }
            }
            let et = prefix[l * w + t];
            value += n * (top + et.ln());
            let Some(g) = g.as_mut() else { continue };
            let mut suffix = vec![0.0; (l + 1) * w];
            suffix[l * w] = 1.0;
            for b in (0..l).rev() {
                let (head, tail) = suffix.split_at_mut((b + 1) * w);
                let next = &tail[..w];
                let cur = &mut head[b * w..];
                cur[0] = next[0];
                for k in 1..w {
                    cur[k] = next[k] + xs[b] * next[k - 1];
                }
            }
            let mut pi = vec![0.0; l];
            for i in 0..l {
                let (p, s) = (&prefix[i * w..i * w + w], &suffix[(i + 1) * w..(i + 1) * w + w]);
                let without: f64 = (0..t).map(|k| p[k] * s[t - 1 - k]).sum();
                pi[i] = (xs[i] * without / et).clamp(0.0, 1.0);
                g[i] += n / t as f64 * pi[i];
            }
            if let Some(h) = h.as_mut() {
                inclusion_covariance(&pi, t, n / (t * t) as f64, h);
            }
        }
        value
    }
}

/// Add `c` times the covariance of the inclusions of a size-`t` conditional
/// Poisson design with inclusion probabilities `pi` into `h`: exact for
/// `t = 1` (a multinomial, `diag(pi) - pi pi^T`) and `t = L - 1` (its
/// complement), Hajek's approximation `diag(d) - d d^T / sum(d)`,
/// `d = pi (1 - pi)`, between.
fn inclusion_covariance(pi: &[f64], t: usize, c: f64, h: &mut [f64]) {
    let l = pi.len();
    let (d, total): (Vec<f64>, f64) = if t == 1 {
        (pi.to_vec(), 1.0)
    } else if t + 1 == l {
        (pi.iter().map(|p| 1.0 - p).collect(), 1.0)
    } else {
        let d: Vec<f64> = pi.iter().map(|p| p * (1.0 - p)).collect();
        let total = d.iter().sum();
        (d, total)
    };
    if total <= 0.0 {
        return;
    }
    for i in 0..l {
        h[i * l + i] += c * d[i];
        let di = c * d[i] / total;
        for j in 0..l {
            h[i * l + j] -= di * d[j];
        }
    }
}

impl Objective for DavidsonLuce {
    fn items(&self) -> usize {
        self.models
    }

    fn extra(&self) -> usize {
        0
    }

    fn scale(&self) -> f64 {
        self.scale
    }

    fn evaluate(&self, x: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64> {
        Ok(match derivatives {
            None => self.value_gradient(x, None, None),
            Some((g, h)) => self.value_gradient(x, Some(g), Some(h)),
        })
    }
}
