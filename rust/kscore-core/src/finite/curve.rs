//! Many budgets at once: a finite-bank metric at every k of a list, for each
//! distinct `(n, c)` state, as a `states x K` row-major table.
//!
//! Pass@k and Pass^k take a recurrence over k per state, O(kmax) per state
//! and O(U * kmax) in all:
//! - Pass@k = 1 - C(n-c, k) / C(n, k) = -expm1(L_k) with
//!   `L_k = sum_{j<k} log1p(-c / (n - j))`, a compensated running sum, so
//!   small values keep full relative accuracy (no `1 - q` cancellation);
//!   it is exactly 1 once k > n - c.
//! - Pass^k = C(c, k) / C(n, k) = prod_{j<k} (c - j) / (n - j), a running
//!   product of positive ratios (relative error about k ulps).
//!
//! The other metrics evaluate `expectation::state_value` per (state, k) with the
//! credit of each k built once (the one kernel, reused), in parallel.

use rayon::prelude::*;

use crate::cancel;
use crate::error::{Error, Result};
use crate::finite::credit::Credit;
use crate::finite::expectation::state_value;
use crate::metric::Metric;
use crate::numeric::sum::Neumaier;
use crate::par::Grain;

/// A metric with a curve over the budget k (see `metric::Metric::has_curve`),
/// with its tau where it has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Family {
    pub metric: Metric,
    pub tau: f64,
}

impl Family {
    /// A family of `metric`, or an error if it has no curve.
    pub fn new(metric: Metric, tau: f64) -> Result<Self> {
        if !metric.has_curve() {
            return Err(Error::value(format!(
                "metric {:?} has no budget family",
                metric.row().name
            )));
        }
        Ok(Family { metric, tau })
    }

    /// The credit vector of this family at budget k.
    pub fn credit(&self, k: u64) -> Credit {
        self.metric.credit(k, self.tau, &[]).expect("a family needs no weights")
    }
}

/// Pass@1..=kmax of one state into `out` (requires kmax <= n). While
/// `q_k = C(n-c, k) / C(n, k) > 1/2` the value is `-expm1(L_k)` from the
/// compensated log sum (full relative accuracy for small values); below, it
/// is `1 - q_k` with `q_k` carried by the product recurrence (no
/// cancellation once the value exceeds 1/2), a division per step.
pub fn pass_prefix(n: u64, c: u64, kmax: u64, out: &mut Vec<f64>) {
    out.clear();
    let fails = n - c;
    let mut log_q = Neumaier::new();
    let mut q = f64::NAN; // set once the log path hands over
    for k in 1..=kmax {
        if k > fails {
            out.push(1.0);
            continue;
        }
        let j = k - 1;
        if q.is_nan() {
            log_q.add((-(c as f64) / (n - j) as f64).ln_1p());
            let l = log_q.value();
            out.push(-l.exp_m1());
            if l < -std::f64::consts::LN_2 {
                q = l.exp();
            }
        } else {
            q *= (fails - j) as f64 / (n - j) as f64;
            out.push(1.0 - q);
        }
    }
}

/// Pass^1..=kmax of one state into `out` (requires kmax <= n).
pub fn pass_hat_prefix(n: u64, c: u64, kmax: u64, out: &mut Vec<f64>) {
    out.clear();
    let mut q = 1.0f64;
    for k in 1..=kmax {
        let j = k - 1;
        if k > c {
            q = 0.0;
        } else {
            q *= (c - j) as f64 / (n - j) as f64;
        }
        out.push(q);
    }
}

/// `values[s * ks.len() + j]` = the metric at budget `ks[j]` for state s.
/// Requires every `ks[j]` in `1..=n` of every state. Entries skipped while a
/// `cancel::Stop` is held are NaN (see `cancel`).
pub fn state_curves(states: &[(u64, u64)], family: Family, ks: &[u64]) -> Vec<f64> {
    let width = ks.len();
    let mut out = vec![0.0; states.len() * width];
    if width == 0 {
        return out;
    }
    let kmax = ks.iter().copied().max().unwrap_or(1);
    match family.metric {
        Metric::Pass | Metric::PassHat => {
            out.par_chunks_mut(width)
                .zip(states.par_iter())
                .with_grain(5 * kmax as usize)
                .for_each_init(Vec::new, |buf, (row, &(n, c))| {
                    if cancel::stopping() {
                        row.fill(f64::NAN);
                        return;
                    }
                    if family.metric == Metric::Pass {
                        pass_prefix(n, c, kmax, buf);
                    } else {
                        pass_hat_prefix(n, c, kmax, buf);
                    }
                    for (o, &k) in row.iter_mut().zip(ks) {
                        *o = buf[(k - 1) as usize];
                    }
                });
        }
        _ => {
            let credits: Vec<Credit> = ks
                .par_iter()
                .with_grain(5 * kmax as usize)
                .map(|&k| family.credit(k))
                .collect();
            out.par_iter_mut()
                .with_grain(5 * kmax as usize)
                .enumerate()
                .for_each_init(Vec::new, |buf, (idx, o)| {
                    if cancel::stopping() {
                        *o = f64::NAN;
                        return;
                    }
                    let (n, c) = states[idx / width];
                    *o = state_value(n, c, &credits[idx % width], buf);
                });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= 1e-300 + rtol * b.abs()
    }

    #[test]
    fn pass_curves_match_the_kernel() {
        let mut buf = Vec::new();
        for &n in &[1u64, 2, 7, 40, 300] {
            let states: Vec<(u64, u64)> = (0..=n).map(|c| (n, c)).collect();
            let ks: Vec<u64> = (1..=n).collect();
            let families = crate::metric::TABLE.iter().filter(|r| r.metric.has_curve());
            for fam in families.map(|r| Family::new(r.metric, 0.3).unwrap()) {
                let table = state_curves(&states, fam, &ks);
                for (s, &(n, c)) in states.iter().enumerate() {
                    for (j, &k) in ks.iter().enumerate() {
                        let want = state_value(n, c, &fam.credit(k), &mut buf);
                        let got = table[s * ks.len() + j];
                        assert!(close(got, want, 1e-13), "{fam:?} n={n} c={c} k={k}: {got} vs {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn picks_listed_budgets_in_order() {
        let states = [(10u64, 3u64), (10, 0)];
        let t = state_curves(&states, Family::new(Metric::Pass, 0.0).unwrap(), &[8, 1, 8]);
        assert_eq!(t[3..], [0.0, 0.0, 0.0]);
        assert_eq!(t[0], 1.0);
        assert!(close(t[1], 0.3, 1e-15));
        assert_eq!(t[0], t[2]);
    }
}
