//! Latent Max@k under the Dirichlet(+1) posterior (docs/kernels.md, K13).
//!
//! Row α has grouped concentrations `γ_l = Σ_{c at level l} (n_c + n0_c + 1)`
//! over T = C + D + N, and cumulative masses `A_l = θ_1 + ... + θ_l ~
//! Beta(Γ_l, T - Γ_l)` with `Γ_l = γ_1 + ... + γ_l`. The best of k fresh draws
//! scores `g = r_L - Σ_{l<L} (r_{l+1} - r_l) A_l^k` (normalised rewards), so
//!
//! * `E[g] = r_1 + Σ_l gap_l (1 - E[A_l^k])`, clipped to `[r_1, r_L]`,
//! * `Var[g] = gapsᵀ Cov(A^k) gaps`, with `Cov(A_l^k, A_m^k)` for l < m from
//!   Dirichlet neutrality: `E[A_l^k A_m^k] = E[A_m^{2k}] E[(A_l/A_m)^k]`,
//!   where `A_l/A_m ~ Beta(Γ_l, Γ_m - Γ_l)` is independent of `A_m`.
//!
//! `log E[A^n]` for `A ~ Beta(a, b)` is the correctly rounded sum of
//! `log((a+j)/(a+b+j))`, j < n, each term taken as `log1p(-b/(a+b+j))` when
//! that ratio is at most 1/2 (scorio's evaluation, so results agree to the
//! last bits). Rows are deduplicated by their cumulative Γ vector, each log
//! moment is computed once per distinct Γ (or pair of Γ's: integers up to T,
//! shared by many rows), and the distinct rows run in parallel; the dataset
//! mean is the mean of row means
//! and σ the overflow-safe norm of row σ's over M, both taken in normalised
//! reward units and restored once.

use rayon::prelude::*;

use crate::categorical::bank::{CategoricalBank, Levels};
use crate::categorical::rewards::Rewards;
use crate::error::{Error, Result};
use crate::numeric::sum::{Fsum, Neumaier};
use crate::par;
use crate::posterior::beta_moments;

const EPS64: f64 = 64.0 * f64::EPSILON;

/// `log E[A^n]` and `log E[A^{2n}]` for `A ~ Beta(a, b)` (one pass: the
/// first n terms are shared), summed exactly.
fn log_power_moments(a: f64, b: f64, n: u64, acc: &mut Fsum) -> (f64, f64) {
    acc.clear();
    beta_moments::log_power_moments(a, b, n, 2 * n, acc)
}

/// `log E[A^n]` for `A ~ Beta(a, b)`, summed exactly.
fn log_power_moment(a: f64, b: f64, n: u64, acc: &mut Fsum) -> f64 {
    acc.clear();
    beta_moments::log_power_moments(a, b, n, n, acc).0
}

/// `E[XY] - E[X]E[Y] = exp(lc) (1 - exp(ll + lr - lc))` for non-negative X, Y
/// with `lc = log E[XY]` (must not fall materially below `ll + lr`).
fn covariance_from_logs(log_cross: f64, log_left: f64, log_right: f64) -> Result<f64> {
    let log_product = log_left + log_right;
    let mut difference = log_product - log_cross;
    let tolerance = EPS64 * 1f64.max(log_product.abs()).max(log_cross.abs());
    if difference > 0.0 {
        if difference <= tolerance {
            difference = 0.0;
        } else {
            return Err(Error::FloatingPoint(
                "nested cumulative covariance is materially negative".into(),
            ));
        }
    }
    Ok(log_cross.exp() * -difference.exp_m1())
}

/// Normalised `(mean, variance)` of one row from its cumulative Γ (l < L-1),
/// given `log E[A^k], log E[A^2k]` for `A ~ Beta(Γ, T - Γ)` (`single`) and
/// `log E[B^k]` for `B ~ Beta(Γ_i, Γ_j - Γ_i)` (`pair`).
fn row_moments(
    cum: &[u64],
    gaps: &[f64],
    single: impl Fn(u64) -> (f64, f64),
    pair: impl Fn(u64, u64) -> f64,
) -> Result<(f64, f64)> {
    let l1 = cum.len();
    let (log_k, log_2k): (Vec<f64>, Vec<f64>) = cum.iter().map(|&g| single(g)).unzip();
    let mut increment = 0.0;
    for (&g, &lk) in gaps.iter().zip(&log_k) {
        increment += g * -lk.exp_m1();
    }
    let mut cov = vec![0.0f64; l1 * l1];
    for i in 0..l1 {
        cov[i * l1 + i] = covariance_from_logs(log_2k[i], log_k[i], log_k[i])?;
        for j in i + 1..l1 {
            if cum[j] <= cum[i] {
                return Err(Error::value("b must be > 0 for nested cumulative moments"));
            }
            // E[A_j^{2k}] E[(A_i/A_j)^k], A_i/A_j ~ Beta(Γ_i, Γ_j - Γ_i).
            let log_cross = log_2k[j] + pair(cum[i], cum[j]);
            let value = covariance_from_logs(log_cross, log_k[i], log_k[j])?;
            cov[i * l1 + j] = value;
            cov[j * l1 + i] = value;
        }
    }
    // gapsᵀ Cov gaps, as (gaps @ Cov) @ gaps.
    let mut variance = 0.0;
    for j in 0..l1 {
        let mut v = 0.0;
        for i in 0..l1 {
            v += gaps[i] * cov[i * l1 + j];
        }
        variance += v * gaps[j];
    }
    if variance < 0.0 {
        if variance >= -EPS64 {
            variance = 0.0;
        } else {
            return Err(Error::FloatingPoint(
                "Max@k posterior variance is materially negative".into(),
            ));
        }
    }
    Ok((increment, variance))
}

/// Dataset `(μ, σ)` of latent Max@k (k >= 1, any size) under the posterior.
pub fn max_at_k_posterior(bank: &CategoricalBank, levels: &Levels, k: u64) -> Result<(f64, f64)> {
    if k < 1 {
        return Err(Error::value(format!("k must be >= 1; got k={k}")));
    }
    if k.checked_mul(2).is_none() {
        return Err(Error::value(format!(
            "k is too large for the posterior moments; got k={k}"
        )));
    }
    if levels.of_category.len() != bank.categories {
        return Err(Error::value("one reward level per category is required"));
    }
    let nl = levels.len();
    if nl == 1 {
        return Ok((levels.values[0], 0.0));
    }
    let width = nl - 1;
    let rows = bank.rows;

    let (keys, freqs) = distinct_cumulative(bank, levels, width);
    let key = |d: usize| &keys[d * width..(d + 1) * width];

    // Each log moment depends on one Γ (or one pair of Γ's), integers up to
    // T, shared by many rows: computed once per distinct value, in parallel.
    let total = bank.total();
    let mut singles = keys.clone();
    singles.sort_unstable();
    singles.dedup();
    let mut pairs: Vec<(u64, u64)> = (0..freqs.len())
        .flat_map(|d| {
            let cum = key(d);
            (0..width).flat_map(move |i| (i + 1..width).map(move |j| (cum[i], cum[j])))
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let terms = 3 * k as usize + 1;
    let single_logs: Vec<(f64, f64)> = singles
        .par_iter()
        .with_min_len(par::min_len(40 * terms))
        .map_init(Fsum::new, |acc, &g| {
            log_power_moments(g as f64, (total - g) as f64, k, acc)
        })
        .collect();
    let pair_logs: Vec<f64> = pairs
        .par_iter()
        .with_min_len(par::min_len(20 * terms))
        .map_init(Fsum::new, |acc, &(gi, gj)| {
            log_power_moment(gi as f64, (gj - gi) as f64, k, acc)
        })
        .collect();
    let single = |g: u64| single_logs[singles.binary_search(&g).expect("every Γ is tabled")];
    let pair = |gi: u64, gj: u64| pair_logs[pairs.binary_search(&(gi, gj)).expect("every pair is tabled")];

    let rw = Rewards::new(&levels.values);
    let gaps = rw.gaps();
    let (low, high) = (rw.normalized[0], rw.normalized[nl - 1]);
    let states: Vec<(f64, f64)> = (0..freqs.len())
        .into_par_iter()
        .with_min_len(par::min_len(200 * width * width))
        .map(|d| {
            let (inc, var) = row_moments(key(d), &gaps, single, pair)?;
            Ok(((low + inc).clamp(low, high), var.sqrt()))
        })
        .collect::<Result<_>>()?;

    let mut mean_sum = Neumaier::new();
    for (&f, &(m, _)) in freqs.iter().zip(&states) {
        mean_sum.add(f as f64 * m);
    }
    // Averaged in normalised units, then restored once: near ±1e308 the
    // restored row means would overflow a plain sum (scorio returns inf there).
    let mu = rw.restore(mean_sum.value() / rows as f64);
    let smax = states.iter().fold(0.0f64, |a, s| a.max(s.1));
    let sigma = if smax == 0.0 {
        0.0
    } else {
        let mut sq = Neumaier::new();
        for (&f, &(_, s)) in freqs.iter().zip(&states) {
            let r = s / smax;
            sq.add(f as f64 * (r * r));
        }
        rw.scale * (smax * sq.value().sqrt() / rows as f64)
    };
    Ok((mu, sigma))
}

/// The distinct cumulative Γ vectors of the bank's rows (`width` per
/// vector, ascending) and how many rows have each. From the bank's distinct
/// rows when its slot table fits (one pass, no sort), else from a key per
/// row sorted.
fn distinct_cumulative(bank: &CategoricalBank, levels: &Levels, width: usize) -> (Vec<u64>, Vec<u64>) {
    let nl = width + 1;
    let mut group = vec![0u64; nl];
    let mut pairs: Vec<(Vec<u64>, u64)> = match bank.distinct_rows(true) {
        Some(d) => d
            .counts
            .chunks_exact(bank.categories)
            .zip(&d.freqs)
            .map(|(row, &f)| {
                let mut cum = vec![0u64; width];
                levels.cumulative(|c| row[c] as u64 + 1, &mut group, &mut cum);
                (cum, f)
            })
            .collect(),
        None => {
            let mut keys = vec![0u64; bank.rows * width];
            keys.par_chunks_mut(width * 1024)
                .with_min_len(par::min_len(1024 * 10 * width))
                .enumerate()
                .for_each(|(b, out)| {
                    let mut group = vec![0u64; nl];
                    for (r, cum) in out.chunks_mut(width).enumerate() {
                        let i = b * 1024 + r;
                        levels.cumulative(|c| bank.concentration(i, c), &mut group, cum);
                    }
                });
            let mut sorted: Vec<&[u64]> = keys.chunks_exact(width).collect();
            if par::worth_splitting(bank.rows * 20 * width) {
                sorted.par_sort_unstable();
            } else {
                sorted.sort_unstable();
            }
            let mut runs: Vec<(Vec<u64>, u64)> = Vec::new();
            for k in sorted {
                match runs.last_mut() {
                    Some((last, f)) if last.as_slice() == k => *f += 1,
                    _ => runs.push((k.to_vec(), 1)),
                }
            }
            runs
        }
    };
    // Rows that differ only within a level share a Γ vector.
    pairs.sort_unstable();
    let mut keys = Vec::with_capacity(pairs.len() * width);
    let mut freqs: Vec<u64> = Vec::with_capacity(pairs.len());
    for (cum, f) in pairs {
        if freqs.last().is_some() && keys[keys.len() - width..] == cum[..] {
            *freqs.last_mut().expect("nonempty") += f;
        } else {
            keys.extend_from_slice(&cum);
            freqs.push(f);
        }
    }
    (keys, freqs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_moments_match_products() {
        let mut acc = Fsum::new();
        let (a, b) = (3.0, 5.0);
        let exact = |n: u64| {
            (0..n)
                .map(|j| (a + j as f64) / (a + b + j as f64))
                .product::<f64>()
                .ln()
        };
        let (l2, l4) = log_power_moments(a, b, 2, &mut acc);
        assert!((l2 - exact(2)).abs() < 1e-15 && (l4 - exact(4)).abs() < 1e-15);
        assert!((log_power_moment(a, b, 7, &mut acc) - exact(7)).abs() < 1e-14);
    }

    #[test]
    fn doc_examples() {
        // R = [[0,1,1,0,1],[1,1,0,1,1]], k = 2: (0.839286, 0.097263).
        let counts = [2u32, 3, 1, 4];
        let bank = CategoricalBank::new(&counts, None, 2, 5, 0).unwrap();
        let lv = Levels::from_weights(&[0.0, 1.0]).unwrap();
        let (mu, sigma) = max_at_k_posterior(&bank, &lv, 2).unwrap();
        assert!((mu - 0.839286).abs() < 5e-7, "{mu}");
        assert!((sigma - 0.097263).abs() < 5e-7, "{sigma}");
    }

    #[test]
    fn binary_matches_beta_posterior_pass() {
        // Binary Max@k is Pass@k of p ~ Beta(c + 1, N - c + 1): 1 - E[(1-p)^k].
        let counts = [7u32, 3];
        let bank = CategoricalBank::new(&counts, None, 2, 10, 0).unwrap();
        let lv = Levels::from_weights(&[0.0, 1.0]).unwrap();
        let k = 5u64;
        let (a, b) = (4.0, 8.0); // successes + 1, failures + 1
        let q = |n: u64| (0..n).map(|j| (b + j as f64) / (a + b + j as f64)).product::<f64>();
        let mean = 1.0 - q(k);
        let var = q(2 * k) - q(k) * q(k);
        let (mu, sigma) = max_at_k_posterior(&bank, &lv, k).unwrap();
        assert!((mu - mean).abs() < 1e-15);
        assert!((sigma - var.sqrt()).abs() < 1e-14);
    }

    #[test]
    fn duplicate_rows_are_weighted() {
        let counts = [2u32, 3, 2, 3, 1, 4];
        let lv = Levels::from_weights(&[0.0, 1.0]).unwrap();
        let three = CategoricalBank::new(&counts, None, 2, 5, 0).unwrap();
        let (mu, sigma) = max_at_k_posterior(&three, &lv, 3).unwrap();
        let one = |s: &[u32]| max_at_k_posterior(&CategoricalBank::new(s, None, 2, 5, 0).unwrap(), &lv, 3).unwrap();
        let (m1, s1) = one(&counts[..2]);
        let (m2, s2) = one(&counts[4..]);
        assert!((mu - (2.0 * m1 + m2) / 3.0).abs() < 1e-15);
        assert!((sigma - (2.0 * s1 * s1 + s2 * s2).sqrt() / 3.0).abs() < 1e-15);
    }
}
