//! Bayes@N and Avg (kernel E): closed-form moments of the Dirichlet(+1)
//! posterior over categories, per row, aggregated over the bank.
//!
//! Row α has concentrations `ν_c = n_c + n0_c + 1` summing to `T = C + D + N`
//! and posterior mean probabilities `π_c = ν_c / T`. In normalised rewards ŵ
//! (see `rewards`): row mean `m = Σ π_c ŵ_c`, row variance
//! `s = Σ π_c (ŵ_c - m)^2` (the centred form, which cannot go negative), and
//!
//! `μ = offset + scale * (Σ_α m_α) / M`,
//! `σ = scale * sqrt(Σ_α s_α / (M^2 (T + 1)))`.

use rayon::prelude::*;

use crate::categorical::CategoricalBank;
use crate::rewards::Rewards;
use crate::sum::Neumaier;

/// Rows per parallel task; results are merged in task order (deterministic).
const CHUNK: usize = 4096;

/// Ordered parallel compensated sums of `f(row)` over all rows, for two
/// per-row quantities at once.
fn sum_rows(rows: usize, f: impl Fn(usize) -> (f64, f64) + Sync) -> (f64, f64) {
    let parts: Vec<(Neumaier, Neumaier)> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .map(|b| {
            let mut a = Neumaier::new();
            let mut v = Neumaier::new();
            for i in b * CHUNK..((b + 1) * CHUNK).min(rows) {
                let (x, y) = f(i);
                a.add(x);
                v.add(y);
            }
            (a, v)
        })
        .collect();
    let mut a = Neumaier::new();
    let mut v = Neumaier::new();
    for (x, y) in parts {
        a.merge(x);
        v.merge(y);
    }
    (a.value(), v.value())
}

/// Per-row `(Σ_c ν_c ŵ_c, Σ_c ν_c (ŵ_c - m)^2)` with `m = Σ_c ν_c ŵ_c / T`:
/// T times the row's posterior mean and variance.
#[inline]
fn row_moments(nu: impl Fn(usize) -> f64, w: &[f64], t: f64) -> (f64, f64) {
    let mut sw = 0.0;
    for (c, &wc) in w.iter().enumerate() {
        sw += nu(c) * wc;
    }
    let m = sw / t;
    let mut ss = 0.0;
    for (c, &wc) in w.iter().enumerate() {
        let d = wc - m;
        ss += nu(c) * (d * d);
    }
    (sw, ss)
}

/// Bayes@N `(μ, σ)` for rewards `weights` (one per category, finite).
pub fn bayes(bank: &CategoricalBank, weights: &[f64]) -> (f64, f64) {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return (rw.offset, 0.0);
    }
    let w = &rw.normalized;
    let c = bank.categories;
    let total = bank.total();
    let t = total as f64;
    let (sum_means, sum_vars) = match bank.prior {
        None => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            row_moments(|j| row[j] as f64 + 1.0, w, t)
        }),
        Some(prior) => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            let pri = &prior[i * c..(i + 1) * c];
            row_moments(|j| (row[j] as u64 + pri[j] as u64 + 1) as f64, w, t)
        }),
    };
    let rows = bank.rows as f64;
    let mu = rw.restore(sum_means / t / rows);
    let denom = (bank.rows as u128 * bank.rows as u128 * (total as u128 + 1)) as f64;
    let sigma = rw.scale * (sum_vars / t / denom).sqrt();
    (mu, sigma)
}

/// The observed weighted mean `offset + scale * Σ_α Σ_c n_c ŵ_c / (M N)`.
pub fn observed_mean(bank: &CategoricalBank, weights: &[f64]) -> f64 {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return rw.offset;
    }
    let w = &rw.normalized;
    let (sum, _) = sum_rows(bank.rows, |i| {
        let row = bank.row(i);
        let mut x = 0.0;
        for (&n, &wc) in row.iter().zip(w) {
            x += n as f64 * wc;
        }
        (x, 0.0)
    });
    let cells = (bank.rows as u128 * bank.trials as u128) as f64;
    rw.restore(sum / cells)
}

/// Avg@N `(a, σ_a)`: the observed mean and `((C + N)/N) σ_Bayes` with D = 0.
pub fn avg(bank: &CategoricalBank, weights: &[f64]) -> (f64, f64) {
    let observed = CategoricalBank { prior: None, prior_trials: 0, ..*bank };
    let (_, sigma) = bayes(&observed, weights);
    let factor = (bank.categories + bank.trials) as f64 / bank.trials as f64;
    (observed_mean(bank, weights), factor * sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-15 + 1e-13 * b.abs()
    }

    // scorio's doc example: R = [[0,1,2,2,1],[1,1,0,2,2]], w = [0, .5, 1].
    const COUNTS: [u32; 6] = [1, 2, 2, 1, 2, 2];

    #[test]
    fn bayes_doc_examples() {
        let w = [0.0, 0.5, 1.0];
        let bank = CategoricalBank::new(&COUNTS, None, 3, 5, 0).unwrap();
        let (mu, sigma) = bayes(&bank, &w);
        assert!(close(mu, 0.5625), "{mu}");
        assert!((sigma - 0.091998).abs() < 5e-7, "{sigma}");
        let prior = [1u32, 0, 1, 0, 1, 1]; // R0 = [[0,2],[1,2]]
        let bank = CategoricalBank::new(&COUNTS, Some(&prior), 3, 5, 2).unwrap();
        let (mu, sigma) = bayes(&bank, &w);
        assert!(close(mu, 0.575), "{mu}");
        assert!((sigma - 0.084275).abs() < 5e-7, "{sigma}");
    }

    #[test]
    fn avg_doc_example() {
        let bank = CategoricalBank::new(&COUNTS, None, 3, 5, 0).unwrap();
        let (a, sigma) = avg(&bank, &[0.0, 0.5, 1.0]);
        assert!(close(a, 0.6), "{a}");
        assert!((sigma - 0.147196).abs() < 5e-7, "{sigma}");
    }

    #[test]
    fn constant_rewards_are_exact() {
        let bank = CategoricalBank::new(&COUNTS, None, 3, 5, 0).unwrap();
        assert_eq!(bayes(&bank, &[0.25; 3]), (0.25, 0.0));
        assert_eq!(avg(&bank, &[0.25; 3]), (0.25, 0.0));
    }

    #[test]
    fn huge_rewards_stay_finite() {
        let counts = [3u32, 2];
        let bank = CategoricalBank::new(&counts, None, 2, 5, 0).unwrap();
        let (mu, sigma) = bayes(&bank, &[-1e308, 1e308]);
        assert!(mu.is_finite() && sigma.is_finite());
        assert!(close(mu, -1e308 / 7.0), "{mu}");
    }
}
