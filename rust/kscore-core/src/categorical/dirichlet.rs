//! Bayes@N and Avg (docs/kernels.md, K11): closed-form moments of the Dirichlet(+1)
//! posterior over categories, per row, aggregated over the bank.
//!
//! Row α has concentrations `ν_c = n_c + n0_c + 1` summing to `T = C + D + N`
//! and posterior mean probabilities `π_c = ν_c / T`. In normalised rewards ŵ
//! (see `rewards`): row mean `m = Σ π_c ŵ_c`, row variance
//! `s = Σ π_c (ŵ_c - m)^2` (the centred form, which cannot go negative), and
//!
//! `μ = offset + scale * (Σ_α m_α) / M`,
//! `σ = scale * sqrt(Σ_α s_α / (M^2 (T + 1)))`.
//!
//! `Σ_α m_α` is linear in the counts, so it comes from exact integer column
//! totals; the variances need each row (or, with two categories, each
//! distinct count, from a histogram).

use rayon::prelude::*;

use crate::categorical::bank::{CategoricalBank, DistinctRows};
use crate::categorical::rewards::Rewards;
use crate::numeric::sum::Neumaier;
use crate::par;

/// Rows per parallel task; results are merged in task order (deterministic).
const CHUNK: usize = 4096;
/// Estimated cost of one chunk of rows (a few categories each).
const CHUNK_NS: usize = 20 * CHUNK;

/// Ordered parallel compensated sums of `f(row)` over all rows, for two
/// per-row quantities at once.
fn sum_rows(rows: usize, f: impl Fn(usize) -> (f64, f64) + Sync) -> (f64, f64) {
    let parts: Vec<(Neumaier, Neumaier)> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .with_min_len(par::min_len(CHUNK_NS))
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

/// Exact per-category totals over all rows: `Σ_α n_αc` (plus `Σ_α n0_αc`
/// when `with_prior`). Integers, so the bank mean needs no per-row rounding.
fn column_sums(bank: &CategoricalBank, with_prior: bool) -> Vec<u64> {
    let c = bank.categories;
    let prior = if with_prior { bank.prior } else { None };
    (0..bank.rows.div_ceil(CHUNK))
        .into_par_iter()
        .with_min_len(par::min_len(CHUNK_NS))
        .map(|b| {
            let mut acc = vec![0u64; c];
            let rows = b * CHUNK..((b + 1) * CHUNK).min(bank.rows);
            for row in bank.counts[rows.start * c..rows.end * c].chunks_exact(c) {
                acc.iter_mut().zip(row).for_each(|(a, &x)| *a += x as u64);
            }
            if let Some(p) = prior {
                for row in p[rows.start * c..rows.end * c].chunks_exact(c) {
                    acc.iter_mut().zip(row).for_each(|(a, &x)| *a += x as u64);
                }
            }
            acc
        })
        .reduce(
            || vec![0u64; c],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// `Σ_c ŵ_c (s_c + extra)`, compensated.
fn weighted_total(w: &[f64], sums: &[u64], extra: u64) -> f64 {
    let mut acc = Neumaier::new();
    for (&wc, &sc) in w.iter().zip(sums) {
        acc.add((sc + extra) as f64 * wc);
    }
    acc.value()
}

/// `T` times a row's posterior variance: `Σ_c ν_c (ŵ_c - m)^2`, `m = Σ_c ν_c ŵ_c / T`.
#[inline]
fn row_spread(nu: impl Fn(usize) -> f64, w: &[f64], inv_t: f64) -> f64 {
    let mut sw = 0.0;
    for (c, &wc) in w.iter().enumerate() {
        sw += nu(c) * wc;
    }
    let m = sw * inv_t;
    let mut ss = 0.0;
    for (c, &wc) in w.iter().enumerate() {
        let d = wc - m;
        ss += nu(c) * (d * d);
    }
    ss
}

/// `Σ_α T s_α`: per row, or for two categories per distinct `ν_1` (a row is
/// then fixed by one number, so a histogram replaces the row loop).
fn total_spread(bank: &CategoricalBank, w: &[f64], total: u64) -> f64 {
    let c = bank.categories;
    let t = total as f64;
    let inv_t = 1.0 / t;
    let nu1 = |i: usize| bank.counts[i * c + 1] as usize + bank.prior.map_or(0, |p| p[i * c + 1] as usize);
    let states = bank.trials + bank.prior_trials + 1;
    if c == 2 && states <= CHUNK {
        let hist = (0..bank.rows.div_ceil(CHUNK))
            .into_par_iter()
            .with_min_len(par::min_len(CHUNK_NS))
            .map(|b| {
                let mut h = vec![0u64; states];
                for i in b * CHUNK..((b + 1) * CHUNK).min(bank.rows) {
                    h[nu1(i)] += 1;
                }
                h
            })
            .reduce(
                || vec![0u64; states],
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            );
        let mut acc = Neumaier::new();
        for (v, &f) in hist.iter().enumerate().filter(|(_, &f)| f > 0) {
            let one = v as f64 + 1.0;
            acc.add(f as f64 * row_spread(|j| if j == 0 { t - one } else { one }, w, inv_t));
        }
        return acc.value();
    }
    let (spread, _) = match bank.prior {
        None => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            (row_spread(|j| row[j] as f64 + 1.0, w, inv_t), 0.0)
        }),
        Some(prior) => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            let pri = &prior[i * c..(i + 1) * c];
            (
                row_spread(|j| (row[j] as u64 + pri[j] as u64 + 1) as f64, w, inv_t),
                0.0,
            )
        }),
    };
    spread
}

/// `(Σ_c ŵ_c Σ_α ν_αc, Σ_α T s_α)` from the distinct rows of the bank (R's
/// counts plus R0's), each row once with its frequency: the same two sums
/// as `column_sums` and `total_spread`, without a pass per row.
fn distinct_sums(rows: &DistinctRows, c: usize, w: &[f64], inv_t: f64) -> (f64, f64) {
    let mut totals = vec![0u64; c];
    let mut spread = Neumaier::new();
    for (row, &f) in rows.counts.chunks_exact(c).zip(&rows.freqs) {
        totals.iter_mut().zip(row).for_each(|(a, &x)| *a += f * (x as u64 + 1));
        spread.add(f as f64 * row_spread(|j| row[j] as f64 + 1.0, w, inv_t));
    }
    (weighted_total(w, &totals, 0), spread.value())
}

/// Bayes@N `(μ, σ)` for rewards `weights` (one per category, finite).
pub fn bayes(bank: &CategoricalBank, weights: &[f64]) -> (f64, f64) {
    bayes_from(bank, weights, bank.distinct_rows(true).as_ref())
}

/// `bayes` with the bank's distinct rows (R's counts plus R0's) when known.
fn bayes_from(bank: &CategoricalBank, weights: &[f64], distinct: Option<&DistinctRows>) -> (f64, f64) {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return (rw.offset, 0.0);
    }
    let w = &rw.normalized;
    let total = bank.total();
    let t = total as f64;
    let rows = bank.rows as f64;
    // Σ_α m_α = Σ_c ŵ_c Σ_α ν_αc / T, with Σ_α ν_αc = S_c + M exact.
    let (weighted, spread) = match distinct {
        Some(distinct) => distinct_sums(distinct, bank.categories, w, 1.0 / t),
        None => (
            weighted_total(w, &column_sums(bank, true), bank.rows as u64),
            total_spread(bank, w, total),
        ),
    };
    let sum_means = weighted / t;
    let mu = rw.restore(sum_means / rows);
    let sum_vars = spread / t;
    let denom = (bank.rows as u128 * bank.rows as u128 * (total as u128 + 1)) as f64;
    let sigma = rw.scale * (sum_vars / denom).sqrt();
    (mu, sigma)
}

/// The observed weighted mean `offset + scale * Σ_c ŵ_c Σ_α n_αc / (M N)`.
pub fn observed_mean(bank: &CategoricalBank, weights: &[f64]) -> f64 {
    observed_mean_from(bank, weights, None)
}

/// `observed_mean` with the bank's distinct rows of R when known (the
/// column totals are the same exact integers either way).
fn observed_mean_from(bank: &CategoricalBank, weights: &[f64], distinct: Option<&DistinctRows>) -> f64 {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return rw.offset;
    }
    let totals = match distinct {
        Some(d) => {
            let mut totals = vec![0u64; bank.categories];
            for (row, &f) in d.counts.chunks_exact(bank.categories).zip(&d.freqs) {
                totals.iter_mut().zip(row).for_each(|(a, &x)| *a += f * x as u64);
            }
            totals
        }
        None => column_sums(bank, false),
    };
    let sum = weighted_total(&rw.normalized, &totals, 0);
    let cells = (bank.rows as u128 * bank.trials as u128) as f64;
    rw.restore(sum / cells)
}

/// Avg@N `(a, σ_a)`: the observed mean and `((C + N)/N) σ_Bayes` with D = 0.
pub fn avg(bank: &CategoricalBank, weights: &[f64]) -> (f64, f64) {
    let observed = CategoricalBank {
        prior: None,
        prior_trials: 0,
        ..*bank
    };
    let distinct = observed.distinct_rows(false);
    let (_, sigma) = bayes_from(&observed, weights, distinct.as_ref());
    let factor = (bank.categories + bank.trials) as f64 / bank.trials as f64;
    (observed_mean_from(bank, weights, distinct.as_ref()), factor * sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-15 + 1e-13 * b.abs()
    }

    #[test]
    fn distinct_rows_give_the_row_sum() {
        // 200 rows of 3 categories over 6 trials (+ 2 prior trials): the slot
        // table path against the plain per-row sum.
        let (rows, c) = (200usize, 3usize);
        let mut counts = vec![0u32; rows * c];
        let mut prior = vec![0u32; rows * c];
        for i in 0..rows {
            let (a, b) = ((i * 7) % 7, (i * 3) % 4);
            let a = a.min(6);
            let b = b.min(6 - a);
            counts[i * c..(i + 1) * c].copy_from_slice(&[a as u32, b as u32, (6 - a - b) as u32]);
            prior[i * c + (i % 3)] = 2;
        }
        let w = [0.1, 0.7, 0.35];
        for with_prior in [false, true] {
            let p = with_prior.then_some(prior.as_slice());
            let bank = CategoricalBank::new(&counts, p, c, 6, if with_prior { 2 } else { 0 }).unwrap();
            let t = bank.total() as f64;
            let distinct = bank.distinct_rows(true).unwrap();
            assert_eq!(distinct.freqs.iter().sum::<u64>(), rows as u64);
            let (fast_mean, fast) = distinct_sums(&distinct, c, &w, 1.0 / t);
            let mut slow = 0.0;
            for i in 0..rows {
                slow += row_spread(|j| bank.concentration(i, j) as f64, &w, 1.0 / t);
            }
            assert!(close(fast, slow), "{fast} vs {slow}");
            let slow_mean = weighted_total(&w, &column_sums(&bank, true), rows as u64);
            assert!(close(fast_mean, slow_mean), "{fast_mean} vs {slow_mean}");
        }
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
    fn two_category_histogram_matches_rows() {
        let counts: Vec<u32> = (0..40u32).flat_map(|i| [i % 7, 6 - i % 7]).collect();
        let prior: Vec<u32> = (0..40u32).flat_map(|i| [i % 3, 2 - i % 3]).collect();
        let w = [0.25, -1.0];
        for p in [None, Some(prior.as_slice())] {
            let bank = CategoricalBank::new(&counts, p, 2, 6, if p.is_some() { 2 } else { 0 }).unwrap();
            let t = bank.total() as f64;
            let direct: f64 = (0..bank.rows)
                .map(|i| row_spread(|c| bank.concentration(i, c) as f64, &w, 1.0 / t))
                .sum();
            let hist = total_spread(&bank, &w, bank.total());
            assert!((hist - direct).abs() <= 1e-13 * direct, "{hist} vs {direct}");
        }
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
