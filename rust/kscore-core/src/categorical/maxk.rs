//! Finite-bank Max@k (docs/kernels.md, K12): the expected best reward of a uniformly
//! random k-subset of a row's N trials, in the level form
//!
//! `Max@k = r_1 + Σ_{l<L} (r_{l+1} - r_l) [1 - C(F_l, k) / C(N, k)]`,
//!
//! with `F_l` the number of trials rewarded at most `r_l`. The bracket is
//! Pass@k of a row with `N - F_l` "successes" (`expectation::state_value`), and it
//! depends on F_l only, so it is computed once per distinct F_l over the whole
//! bank; each row then costs L - 1 multiply-adds. Rewards are summed in
//! normalised units (`rewards`), the offset being the lowest level.

use rayon::prelude::*;

use crate::categorical::bank::{CategoricalBank, Levels};
use crate::categorical::rewards::Rewards;
use crate::error::{Error, Result};
use crate::finite::credit::Credit;
use crate::finite::expectation;
use crate::numeric::sum::Neumaier;
use crate::par;

const CHUNK: usize = 4096;

/// Dataset Max@k for `1 <= k <= N`. (scorio's k = 1 path is the observed mean
/// in category order, `dirichlet::observed_mean`; callers dispatch it.)
pub fn max_at_k(bank: &CategoricalBank, levels: &Levels, k: u64) -> Result<f64> {
    let n = bank.trials as u64;
    if k < 1 || k > n {
        return Err(Error::value(format!("k must satisfy 1 <= k <= N (N={n}); got k={k}")));
    }
    if levels.of_category.len() != bank.categories {
        return Err(Error::value("one reward level per category is required"));
    }
    let nl = levels.len();
    if nl == 1 {
        return Ok(levels.values[0]);
    }
    let rw = Rewards::new(&levels.values);
    let gaps = rw.gaps();
    let low = rw.normalized[0];
    // A chunk of rows costs a few nanoseconds per row and level.
    let chunk_min_len = par::min_len(CHUNK * 5 * nl);

    // Per level l, the histogram of the rows' cumulative counts F_l (exact
    // integers): Max@k is linear in P(best of k exceeds level l), a function
    // of F_l alone, so each distinct F is evaluated once and weighted by how
    // many rows have it, instead of one evaluation per row and level.
    let width = n as usize + 1;
    let hist: Vec<u64> = match bank.distinct_rows(false) {
        Some(distinct) => {
            // Few distinct rows: each once, weighted by its frequency.
            let mut h = vec![0u64; (nl - 1) * width];
            let mut group = vec![0u64; nl];
            let mut cum = vec![0u64; nl - 1];
            for (row, &f) in distinct.counts.chunks_exact(bank.categories).zip(&distinct.freqs) {
                levels.cumulative(|c| row[c] as u64, &mut group, &mut cum);
                for (l, &x) in cum.iter().enumerate() {
                    h[l * width + x as usize] += f;
                }
            }
            h
        }
        None => per_row_level_histograms(bank, levels, width, chunk_min_len),
    };

    // P(best of k exceeds level l) = 1 - C(F, k)/C(N, k), once per distinct F.
    let credit = Credit::pass(k);
    let distinct: Vec<u64> = (0..=n)
        .filter(|&f| (0..nl - 1).any(|l| hist[l * width + f as usize] > 0))
        .collect();
    let values = expectation::state_values(&distinct.iter().map(|&f| (n, n - f)).collect::<Vec<_>>(), &credit);
    let mut exceed = vec![0.0f64; width];
    for (&f, &v) in distinct.iter().zip(&values) {
        exceed[f as usize] = v;
    }
    let mut total = Neumaier::new();
    for (l, &g) in gaps.iter().enumerate() {
        let mut level = Neumaier::new();
        for &f in &distinct {
            let rows_with_f = hist[l * width + f as usize];
            if rows_with_f > 0 {
                level.add(rows_with_f as f64 * exceed[f as usize]);
            }
        }
        total.add(g * level.value());
    }
    Ok(rw.restore(low + total.value() / bank.rows as f64))
}

/// Per level l, the histogram of the rows' cumulative counts F_l, in one
/// parallel pass over the rows (`width` = N + 1 slots per level).
fn per_row_level_histograms(bank: &CategoricalBank, levels: &Levels, width: usize, chunk_min_len: usize) -> Vec<u64> {
    let nl = levels.len();
    (0..bank.rows.div_ceil(CHUNK))
        .into_par_iter()
        .with_min_len(chunk_min_len)
        .map(|b| {
            let mut h = vec![0u64; (nl - 1) * width];
            let mut group = vec![0u64; nl];
            let mut cum = vec![0u64; nl - 1];
            for i in b * CHUNK..((b + 1) * CHUNK).min(bank.rows) {
                let row = bank.row(i);
                levels.cumulative(|c| row[c] as u64, &mut group, &mut cum);
                for (l, &f) in cum.iter().enumerate() {
                    h[l * width + f as usize] += 1;
                }
            }
            h
        })
        .reduce(
            || vec![0u64; (nl - 1) * width],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::choose;

    /// The order-statistic definition on one row of rewards.
    fn direct(rewards: &mut [f64], k: u64) -> f64 {
        rewards.sort_by(f64::total_cmp);
        let n = rewards.len() as u64;
        (k..=n)
            .map(|i| choose(i - 1, k - 1) * rewards[i as usize - 1])
            .sum::<f64>()
            / choose(n, k)
    }

    #[test]
    fn doc_examples() {
        // R = [[0,1,1,0,1],[1,1,0,1,1]], w = [0, 1]: Pass@2 = 0.95.
        let counts = [2u32, 3, 1, 4];
        let bank = CategoricalBank::new(&counts, None, 2, 5, 0).unwrap();
        let lv = Levels::from_weights(&[0.0, 1.0]).unwrap();
        assert!((max_at_k(&bank, &lv, 2).unwrap() - 0.95).abs() < 1e-15);
        // R = [[0,1,2,2,1],[1,1,0,2,2]], w = [0, .5, 1]: 0.85.
        let counts = [1u32, 2, 2, 1, 2, 2];
        let bank = CategoricalBank::new(&counts, None, 3, 5, 0).unwrap();
        let lv = Levels::from_weights(&[0.0, 0.5, 1.0]).unwrap();
        assert!((max_at_k(&bank, &lv, 2).unwrap() - 0.85).abs() < 1e-15);
    }

    #[test]
    fn matches_order_statistics() {
        let w = [0.3, -2.0, 0.3, 5.0];
        let rows: [[usize; 7]; 3] = [[0, 1, 2, 3, 3, 1, 0], [1, 1, 1, 1, 1, 1, 1], [3, 2, 0, 0, 2, 1, 3]];
        let mut counts = vec![0u32; 12];
        for (i, r) in rows.iter().enumerate() {
            for &c in r {
                counts[i * 4 + c] += 1;
            }
        }
        let bank = CategoricalBank::new(&counts, None, 4, 7, 0).unwrap();
        let lv = Levels::from_weights(&w).unwrap();
        for k in 1..=7 {
            let expect: f64 = rows
                .iter()
                .map(|r| direct(&mut r.iter().map(|&c| w[c]).collect::<Vec<_>>(), k))
                .sum::<f64>()
                / 3.0;
            let got = max_at_k(&bank, &lv, k).unwrap();
            assert!((got - expect).abs() < 1e-14, "k={k}: {got} vs {expect}");
        }
        assert!(max_at_k(&bank, &lv, 8).is_err());
    }

    #[test]
    fn single_level_is_that_level() {
        let counts = [4u32, 1];
        let bank = CategoricalBank::new(&counts, None, 2, 5, 0).unwrap();
        let lv = Levels::new(vec![0.7], vec![0, 0]).unwrap();
        assert_eq!(max_at_k(&bank, &lv, 3).unwrap(), 0.7);
    }
}
