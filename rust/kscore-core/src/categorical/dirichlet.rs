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

use crate::categorical::bank::CategoricalBank;
use crate::categorical::rewards::Rewards;
use crate::intake::moments::CountMoments;
use crate::numeric::dd::Dd;
use crate::numeric::sum::Neumaier;
use crate::par::Grain;

/// Rows per parallel task; results are merged in task order (deterministic).
const CHUNK: usize = 4096;
/// Estimated cost of one chunk of rows (a few categories each).
const CHUNK_NS: usize = 20 * CHUNK;

/// Ordered parallel compensated sum of `f(row)` over all rows.
fn sum_rows(rows: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let parts: Vec<Neumaier> = (0..rows.div_ceil(CHUNK))
        .into_par_iter()
        .with_grain(CHUNK_NS)
        .map(|b| {
            let mut acc = Neumaier::new();
            for i in b * CHUNK..((b + 1) * CHUNK).min(rows) {
                acc.add(f(i));
            }
            acc
        })
        .collect();
    let mut acc = Neumaier::new();
    parts.into_iter().for_each(|p| acc.merge(p));
    acc.value()
}

/// Exact per-category totals over all rows: `Σ_α n_αc` (plus `Σ_α n0_αc`
/// when `with_prior`). Integers, so the bank mean needs no per-row rounding.
fn column_sums(bank: &CategoricalBank, with_prior: bool) -> Vec<u64> {
    let c = bank.categories;
    let prior = if with_prior { bank.prior } else { None };
    (0..bank.rows.div_ceil(CHUNK))
        .into_par_iter()
        .with_grain(CHUNK_NS)
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

/// `Σ_α T s_α`, one row at a time (banks of many categories, where the
/// moments' `C^2` products per row would cost more).
fn total_spread(bank: &CategoricalBank, w: &[f64], total: u64, with_prior: bool) -> f64 {
    let c = bank.categories;
    let inv_t = 1.0 / total as f64;
    match bank.prior.filter(|_| with_prior) {
        None => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            row_spread(|j| row[j] as f64 + 1.0, w, inv_t)
        }),
        Some(prior) => sum_rows(bank.rows, |i| {
            let row = &bank.counts[i * c..(i + 1) * c];
            let pri = &prior[i * c..(i + 1) * c];
            row_spread(|j| (row[j] as u64 + pri[j] as u64 + 1) as f64, w, inv_t)
        }),
    }
}

/// Banks of up to this many categories take Bayes@N's sums from the count
/// moments (`C (C + 1) / 2` products per row); wider ones go row by row.
pub const MOMENT_CATEGORIES: usize = 16;

/// The moments of the counts `n (+ n0)` over the bank: the intake's when it
/// computed them (no prior), else one pass over the counts.
fn count_moments(bank: &CategoricalBank, with_prior: bool) -> CountMoments {
    let prior = bank.prior.filter(|_| with_prior);
    match (prior, bank.moments) {
        (None, Some(m)) => m.clone(),
        _ => {
            let max_count = (bank.trials + prior.map_or(0, |_| bank.prior_trials)) as u64;
            CountMoments::of_rows(bank.counts, prior, bank.categories, max_count)
        }
    }
}

/// `Σ_α T s_α = Σ_c ŵ_c^2 Σ_α ν_αc - (1/T) Σ_{c,d} ŵ_c ŵ_d Σ_α ν_αc ν_αd`
/// from the moments of ν. The two sums nearly cancel when the rows are
/// concentrated (relative loss up to T), so they are taken in double-double
/// from the exact integer moments: the result keeps about 2^-104 T of
/// relative accuracy, where a float sum per row keeps 2^-53 T.
fn moment_spread(nu: &CountMoments, w: &[f64], total: u64) -> f64 {
    let mut acc = Dd::new();
    let t = total as u128;
    for (c, &wc) in w.iter().enumerate().filter(|(_, &wc)| wc != 0.0) {
        acc.add_product(wc, wc, t * nu.sums[c] as u128);
        for (d, &wd) in w.iter().enumerate().skip(c).filter(|(_, &wd)| wd != 0.0) {
            let twice = if c == d { 1 } else { 2 };
            acc.add_product(-wc, wd, twice * nu.product(c, d));
        }
    }
    (acc.value() / total as f64).max(0.0)
}

/// Bayes@N `(μ, σ)` for rewards `weights` (one per category, finite).
pub fn bayes(bank: &CategoricalBank, weights: &[f64]) -> (f64, f64) {
    let moments = (bank.categories <= MOMENT_CATEGORIES).then(|| count_moments(bank, true));
    bayes_from(bank, weights, true, moments.as_ref())
}

/// `bayes` over R's counts, plus R0's when `with_prior`, from their moments
/// when given (else row by row).
fn bayes_from(bank: &CategoricalBank, weights: &[f64], with_prior: bool, moments: Option<&CountMoments>) -> (f64, f64) {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return (rw.offset, 0.0);
    }
    let w = &rw.normalized;
    let total = bank.total();
    let t = total as f64;
    let rows = bank.rows as f64;
    // Σ_α m_α = Σ_c ŵ_c Σ_α ν_αc / T, with Σ_α ν_αc = S_c + M exact.
    let (weighted, spread) = match moments {
        Some(m) => {
            let nu = m.plus_one();
            (weighted_total(w, &nu.sums, 0), moment_spread(&nu, w, total))
        }
        None => (
            weighted_total(w, &column_sums(bank, with_prior), bank.rows as u64),
            total_spread(bank, w, total, with_prior),
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
    match bank.moments {
        Some(m) => mean_of_totals(bank, weights, &m.sums),
        None => mean_of_totals(bank, weights, &column_sums(bank, false)),
    }
}

/// `observed_mean` from the column totals of R's counts.
fn mean_of_totals(bank: &CategoricalBank, weights: &[f64], totals: &[u64]) -> f64 {
    let rw = Rewards::new(weights);
    if rw.scale == 0.0 {
        return rw.offset;
    }
    let sum = weighted_total(&rw.normalized, totals, 0);
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
    let factor = (bank.categories + bank.trials) as f64 / bank.trials as f64;
    if bank.categories > MOMENT_CATEGORIES {
        let (_, sigma) = bayes_from(&observed, weights, false, None);
        return (observed_mean(bank, weights), factor * sigma);
    }
    let moments = count_moments(bank, false);
    let (_, sigma) = bayes_from(&observed, weights, false, Some(&moments));
    (mean_of_totals(bank, weights, &moments.sums), factor * sigma)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-15 + 1e-13 * b.abs()
    }

    /// `16 T Σ_α T s_α` exactly, for rewards in quarters (`w4 = 4 ŵ`):
    /// `Σ_α [T Σ_c ν_c w4_c^2 - (Σ_c ν_c w4_c)^2]`, in integers.
    fn exact_spread_x16t(bank: &CategoricalBank, w4: &[i128]) -> i128 {
        let t = bank.total() as i128;
        (0..bank.rows)
            .map(|i| {
                let nu = |c: usize| bank.concentration(i, c) as i128;
                let sq: i128 = (0..bank.categories).map(|c| nu(c) * w4[c] * w4[c]).sum();
                let lin: i128 = (0..bank.categories).map(|c| nu(c) * w4[c]).sum();
                t * sq - lin * lin
            })
            .sum()
    }

    #[test]
    fn moments_give_the_exact_spread() {
        // Random rows and rows concentrated on one category of a huge N
        // (where the two sums cancel to 1 part in T), with and without a
        // prior: the moment path against exact integers.
        let w4 = [0i128, 2, 4, -3];
        let w: Vec<f64> = w4.iter().map(|&x| x as f64 / 4.0).collect();
        for (n, concentrated) in [(6u32, false), (10_000_000u32, true)] {
            let rows = 300usize;
            let mut counts = vec![0u32; rows * 4];
            let mut prior = vec![0u32; rows * 4];
            for i in 0..rows {
                let row = &mut counts[i * 4..(i + 1) * 4];
                if concentrated {
                    row[i % 4] = n - (i % 2) as u32;
                    row[(i + 1) % 4] += (i % 2) as u32;
                } else {
                    let a = (i * 7 % 7) as u32 % (n + 1);
                    let b = (i * 3 % 4) as u32 % (n - a + 1);
                    row.copy_from_slice(&[a, b, (n - a - b) / 2, n - a - b - (n - a - b) / 2]);
                }
                prior[i * 4 + i % 4] = 2;
            }
            for with_prior in [false, true] {
                let p = with_prior.then_some(prior.as_slice());
                let bank = CategoricalBank::new(&counts, p, 4, n as usize, if with_prior { 2 } else { 0 }).unwrap();
                let total = bank.total();
                let fast = moment_spread(&count_moments(&bank, true).plus_one(), &w, total);
                let exact = exact_spread_x16t(&bank, &w4) as f64 / (16.0 * total as f64);
                assert!(
                    (fast - exact).abs() <= 1e-15 * exact,
                    "{n} {with_prior}: {fast} vs {exact}"
                );
                let rows_path = total_spread(&bank, &w, total, true);
                assert!(
                    (rows_path - exact).abs() <= 1e-15 * total as f64 * exact,
                    "{rows_path} vs {exact}"
                );
            }
        }
    }

    #[test]
    fn moments_match_the_row_path() {
        let counts: Vec<u32> = (0..999u32).flat_map(|i| [i % 7, (i / 7) % (7 - i % 7), 0]).collect();
        let counts: Vec<u32> = counts
            .chunks_exact(3)
            .flat_map(|r| [r[0], r[1], 6 - r[0] - r[1]])
            .collect();
        let prior: Vec<u32> = (0..999u32).flat_map(|i| [i % 3, 2 - i % 3, 0]).collect();
        let w = [0.1, 0.7, 0.35];
        for p in [None, Some(prior.as_slice())] {
            let bank = CategoricalBank::new(&counts, p, 3, 6, if p.is_some() { 2 } else { 0 }).unwrap();
            let nu = count_moments(&bank, true).plus_one();
            let rows = total_spread(&bank, &w, bank.total(), true);
            let moments = moment_spread(&nu, &w, bank.total());
            assert!((moments - rows).abs() <= 1e-14 * rows, "{moments} vs {rows}");
            let mean_rows = weighted_total(&w, &column_sums(&bank, true), bank.rows as u64);
            assert!(close(weighted_total(&w, &nu.sums, 0), mean_rows));
        }
        // The intake's moments are used as given.
        let bank = CategoricalBank::new(&counts, None, 3, 6, 0).unwrap();
        let own = CountMoments::of_rows(&counts, None, 3, 6);
        assert_eq!(bayes(&bank.with_moments(Some(&own)), &w), bayes(&bank, &w));
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
