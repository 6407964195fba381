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

use ndarray::ArrayView2;

use crate::categorical::bank::{CategoricalBank, Levels};
use crate::categorical::joint::{JointCounts, JointTable};
use crate::categorical::maxk::{add_tables, LevelHistograms};
use crate::categorical::rewards::Rewards;
use crate::error::{Error, Result};
use crate::intake::entry::Entry;
use crate::intake::matrix::fold_level_counts;
use crate::numeric::sum::{Fsum, Neumaier};
use crate::par::{self, Grain};
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

/// The log moments a bank needs, each once: for each Γ present, `log E[A^k]`
/// and `log E[A^2k]` of `A ~ Beta(Γ, T - Γ)`, and for each pair `Γ_i < Γ_j`
/// present, `log E[B^k]` of `B ~ Beta(Γ_i, Γ_j - Γ_i)`; computed in parallel.
struct LogMoments {
    singles: Vec<u64>,
    single_logs: Vec<(f64, f64)>,
    pairs: Vec<(u64, u64)>,
    pair_logs: Vec<f64>,
}

impl LogMoments {
    /// From the sorted distinct Γ's and pairs.
    fn new(singles: Vec<u64>, pairs: Vec<(u64, u64)>, total: u64, k: u64) -> Self {
        let terms = 3 * k as usize + 1;
        let single_logs = singles
            .par_iter()
            .with_grain(40 * terms)
            .map_init(Fsum::new, |acc, &g| {
                log_power_moments(g as f64, (total - g) as f64, k, acc)
            })
            .collect();
        let pair_logs = pairs
            .par_iter()
            .with_grain(20 * terms)
            .map_init(Fsum::new, |acc, &(gi, gj)| {
                log_power_moment(gi as f64, (gj - gi) as f64, k, acc)
            })
            .collect();
        LogMoments {
            singles,
            single_logs,
            pairs,
            pair_logs,
        }
    }

    fn single(&self, g: u64) -> (f64, f64) {
        self.single_logs[self.singles.binary_search(&g).expect("every Γ is tabled")]
    }

    fn pair(&self, gi: u64, gj: u64) -> f64 {
        self.pair_logs[self.pairs.binary_search(&(gi, gj)).expect("every pair is tabled")]
    }
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
    let rows = bank.rows;

    if let Some(t) = tables_for(levels, bank.categories, bank.trials + bank.prior_trials, rows) {
        let c = bank.categories;
        let acc = par::fold_per_thread(
            rows.div_ceil(CHUNK),
            CHUNK * t.cost_per_row(),
            || (t.empty(), Vec::new(), Vec::new()),
            |(h, sum, fs), b| {
                let at = b * CHUNK * c..((b + 1) * CHUNK).min(rows) * c;
                match bank.prior {
                    None => t.lh.levels_of(&bank.counts[at], fs),
                    Some(prior) => {
                        // Γ counts the prior's trials too.
                        sum.clear();
                        sum.extend(bank.counts[at.clone()].iter().zip(&prior[at]).map(|(&x, &y)| x + y));
                        t.lh.levels_of(sum, fs);
                    }
                }
                t.add(fs, h);
                true
            },
            |(a, sum, fs), (b, _, _)| (Tables::merge(a, b), sum, fs),
        )
        .map(|(h, _, _)| h)
        .expect("counting tables never stops early");
        return from_tables(&t.histograms(acc), &t.lh, levels, k, bank.total(), rows);
    }
    from_distinct(bank, levels, k)
}

/// `(μ, σ)` from the bank's distinct Γ vectors, one row moment per vector
/// (any number of trials; the tables' way past 2^17 slots).
fn from_distinct(bank: &CategoricalBank, levels: &Levels, k: u64) -> Result<(f64, f64)> {
    let nl = levels.len();
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
    let logs = LogMoments::new(singles, pairs, total, k);
    let single = |g: u64| logs.single(g);
    let pair = |gi: u64, gj: u64| logs.pair(gi, gj);

    let rw = Rewards::new(&levels.values);
    let gaps = rw.gaps();
    let (low, high) = (rw.normalized[0], rw.normalized[nl - 1]);
    let states: Vec<(f64, f64)> = (0..freqs.len())
        .into_par_iter()
        .with_grain(200 * width * width)
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

/// Rows per parallel task of the table path.
const CHUNK: usize = 4096;

/// The level tables (`maxk::LevelHistograms` with pairs) of a bank of
/// `rows` rows whose counts per row sum to `trials` (N + D), where they are
/// worth it: at most 2^17 slots (1 MB, kept in cache while the rows stream
/// past), and not many more than the rows (a small bank reads its few
/// distinct rows faster than it would clear and scan the tables). Counted
/// through the joint table (`joint`) where that one is small enough.
fn tables_for(levels: &Levels, categories: usize, trials: usize, rows: usize) -> Option<Tables> {
    let lh = LevelHistograms::new(levels, categories, trials + 1, true);
    (lh.len() <= 1 << 17 && lh.len() <= 4 * rows).then(|| Tables {
        joint: JointTable::new(&lh, rows),
        lh,
    })
}

/// The level and pair tables, counted directly or as the joint table's
/// marginals.
struct Tables {
    lh: LevelHistograms,
    joint: Option<JointTable>,
}

enum Counts {
    Direct(Vec<u64>),
    Joint(JointCounts),
}

impl Tables {
    fn empty(&self) -> Counts {
        match &self.joint {
            Some(j) => Counts::Joint(j.empty()),
            None => Counts::Direct(self.lh.empty()),
        }
    }

    fn cost_per_row(&self) -> usize {
        match &self.joint {
            Some(_) => 1 + self.lh.levels(),
            None => self.lh.cost_per_row(),
        }
    }

    /// Adds rows given as their F vectors (`lh.levels()` a row).
    fn add(&self, fs: &[u32], acc: &mut Counts) {
        match (&self.joint, acc) {
            (Some(j), Counts::Joint(a)) => j.add(fs, a),
            (_, Counts::Direct(h)) => self.lh.add(fs, h),
            (None, Counts::Joint(_)) => unreachable!("joint counts come from a joint table"),
        }
    }

    fn merge(a: Counts, b: Counts) -> Counts {
        match (a, b) {
            (Counts::Joint(a), Counts::Joint(b)) => Counts::Joint(JointTable::merge(a, b)),
            (Counts::Direct(a), Counts::Direct(b)) => Counts::Direct(add_tables(a, b)),
            _ => unreachable!("one kind of counts a call"),
        }
    }

    fn histograms(&self, acc: Counts) -> Vec<u64> {
        match (&self.joint, acc) {
            (Some(j), Counts::Joint(a)) => j.histograms(a, &self.lh),
            (_, Counts::Direct(h)) => h,
            (None, Counts::Joint(_)) => unreachable!("joint counts come from a joint table"),
        }
    }
}

/// Latent Max@k `(μ, σ)` straight from a C-order outcome matrix, its
/// level counts folded block by block into the level tables (`intake::matrix::
/// fold_level_counts`): the same integers as the bank's tables, so the
/// same numbers as `max_at_k_posterior` of its bank. None where the
/// tables do not apply or the intake declines (the caller counts the bank,
/// which reports any flaw).
pub fn max_at_k_posterior_of_rows<T: Entry>(
    view: ArrayView2<T>,
    levels: &Levels,
    k: u64,
) -> Result<Option<(f64, f64)>> {
    let (rows, n) = view.dim();
    let categories = levels.of_category.len();
    if k < 1 || k.checked_mul(2).is_none() || levels.len() < 2 || n == 0 {
        return Ok(None);
    }
    let Some(t) = tables_for(levels, categories, n, rows) else {
        return Ok(None);
    };
    let Some(acc) = fold_level_counts(
        view,
        &levels.of_category,
        t.lh.levels(),
        || t.empty(),
        |h, fs| t.add(fs, h),
        Tables::merge,
    ) else {
        return Ok(None);
    };
    from_tables(&t.histograms(acc), &t.lh, levels, k, (categories + n) as u64, rows).map(Some)
}

/// `(μ, σ)` of `rows` rows from their level tables. Row α's cumulative
/// concentration at level l is `Γ_l = F_l + g_l` (`g_l` the categories at
/// level l or below: each adds its +1), so each log moment is evaluated once
/// per distinct Γ (or pair) present, and the sums over rows of the row means
/// and variances (K13) are sums over the tables: the mean of
/// `gap_l (1 - E[A_l^k])` per level, and the variance
/// `Σ_l gap_l² Var(A_l^k) + 2 Σ_{i<j} gap_i gap_j Cov(A_i^k, A_j^k)`.
fn from_tables(
    hist: &[u64],
    lh: &LevelHistograms,
    levels: &Levels,
    k: u64,
    total: u64,
    rows: usize,
) -> Result<(f64, f64)> {
    let (l1, width) = (lh.levels(), lh.width);
    let g: Vec<u64> = (0..l1)
        .map(|l| levels.of_category.iter().filter(|&&c| c <= l).count() as u64)
        .collect();
    let level = |l: usize| &hist[l * width..(l + 1) * width];
    // The pair tables, in the order of `LevelHistograms::count`.
    let mut pair_tables = Vec::new();
    for i in 0..l1 {
        for j in i + 1..l1 {
            pair_tables.push((i, j));
        }
    }
    let pair = |p: usize| &hist[l1 * width + p * width * width..l1 * width + (p + 1) * width * width];

    let mut singles: Vec<u64> = (0..l1)
        .flat_map(|l| {
            let gl = g[l];
            level(l)
                .iter()
                .enumerate()
                .filter(|(_, &h)| h > 0)
                .map(move |(f, _)| f as u64 + gl)
        })
        .collect();
    singles.sort_unstable();
    singles.dedup();
    let mut pairs: Vec<(u64, u64)> = pair_tables
        .iter()
        .enumerate()
        .flat_map(|(p, &(i, j))| {
            let (gi, gj) = (g[i], g[j]);
            pair(p)
                .iter()
                .enumerate()
                .filter(|(_, &h)| h > 0)
                .map(move |(at, _)| ((at / width) as u64 + gi, (at % width) as u64 + gj))
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let logs = LogMoments::new(singles, pairs, total, k);
    let single = |gm: u64| logs.single(gm);

    let rw = Rewards::new(&levels.values);
    let gaps = rw.gaps();
    let (low, high) = (rw.normalized[0], rw.normalized[l1]);
    let mut mean_sum = Neumaier::new();
    let mut var_sum = Neumaier::new();
    for l in 0..l1 {
        let mut m = Neumaier::new();
        let mut v = Neumaier::new();
        for (f, &h) in level(l).iter().enumerate().filter(|(_, &h)| h > 0) {
            let (lk, l2k) = single(f as u64 + g[l]);
            m.add(h as f64 * -lk.exp_m1());
            v.add(h as f64 * covariance_from_logs(l2k, lk, lk)?);
        }
        mean_sum.add(gaps[l] * m.value());
        var_sum.add(gaps[l] * gaps[l] * v.value());
    }
    for (&(gi, gj), &log_pair) in logs.pairs.iter().zip(&logs.pair_logs) {
        // Every table holding this pair of Γ's (levels i < j with those offsets).
        let (li, lj) = (single(gi), single(gj));
        let cov = covariance_from_logs(lj.1 + log_pair, li.0, lj.0)?;
        for (p, &(i, j)) in pair_tables.iter().enumerate() {
            let (Some(fi), Some(fj)) = (gi.checked_sub(g[i]), gj.checked_sub(g[j])) else {
                continue;
            };
            if fi as usize >= width || fj as usize >= width {
                continue;
            }
            let h = pair(p)[fi as usize * width + fj as usize];
            if h > 0 {
                var_sum.add(2.0 * gaps[i] * gaps[j] * h as f64 * cov);
            }
        }
    }
    let mu = rw.restore((low + mean_sum.value() / rows as f64).clamp(low, high));
    let mut variance = var_sum.value();
    if variance < 0.0 {
        if variance >= -EPS64 * rows as f64 {
            variance = 0.0;
        } else {
            return Err(Error::FloatingPoint(
                "Max@k posterior variance is materially negative".into(),
            ));
        }
    }
    Ok((mu, rw.scale * (variance.sqrt() / rows as f64)))
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
                .with_grain(1024 * 10 * width)
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

    /// The tables (from the bank, with and without a prior, and straight
    /// from the matrix) against the distinct Γ vectors: the same sums in
    /// another order, so equal to rounding; bank and matrix bit for bit.
    #[test]
    fn tables_equal_distinct_rows() {
        use crate::intake::matrix::category_counts;
        let mut next = crate::testutil::xorshift(11);
        for (m, n, w) in [
            (400usize, 16usize, vec![0.0, 0.5, 1.0]),
            (3000, 8, vec![0.2, -1.0, 0.2, 3.0]),
            (900, 12, vec![0.0, 1.0, 0.25, 0.5, 2.0]),
            (700, 30, vec![1.0, 0.0]),
        ] {
            let c = w.len();
            let r =
                ndarray::Array2::from_shape_fn((m, n), |(i, _)| ((next() % 97) as usize * (i % 5 + 1) / 97 % c) as u8);
            let counts = category_counts(r.view(), c, "R").unwrap();
            // A prior of D = 2 trials per row, in a category that varies by row.
            let prior: Vec<u32> = (0..m * c).map(|j| if (j / c) % c == j % c { 2 } else { 0 }).collect();
            let d = 2u32;
            let lv = Levels::from_weights(&w).unwrap();
            for k in [1u64, 3, 40] {
                let bank = CategoricalBank::new(&counts.counts, None, c, n, 0).unwrap();
                let tables = max_at_k_posterior(&bank, &lv, k).unwrap();
                assert!(tables_for(&lv, c, n, m).is_some());
                let distinct = from_distinct(&bank, &lv, k).unwrap();
                assert!(
                    (tables.0 - distinct.0).abs() <= 1e-14 * distinct.0.abs().max(1e-300),
                    "{tables:?} {distinct:?}"
                );
                assert!(
                    (tables.1 - distinct.1).abs() <= 1e-13 * distinct.1,
                    "{tables:?} {distinct:?}"
                );
                let direct = max_at_k_posterior_of_rows(r.view(), &lv, k)
                    .unwrap()
                    .expect("tables fit");
                assert_eq!(
                    (direct.0.to_bits(), direct.1.to_bits()),
                    (tables.0.to_bits(), tables.1.to_bits())
                );
                let with = CategoricalBank::new(&counts.counts, Some(&prior), c, n, d as usize).unwrap();
                assert!(tables_for(&lv, c, n + d as usize, m).is_some());
                let (a, b) = (
                    max_at_k_posterior(&with, &lv, k).unwrap(),
                    from_distinct(&with, &lv, k).unwrap(),
                );
                assert!(
                    (a.0 - b.0).abs() <= 1e-14 * b.0.abs() && (a.1 - b.1).abs() <= 1e-13 * b.1,
                    "{a:?} {b:?}"
                );
                assert!((a.0 - tables.0).abs() > 1e-9, "the prior moves the posterior");
            }
        }
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
