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

use ndarray::ArrayView2;

use crate::categorical::bank::{CategoricalBank, Levels};
use crate::categorical::rewards::Rewards;
use crate::error::{Error, Result};
use crate::finite::credit::Credit;
use crate::finite::expectation;
use crate::intake::entry::Entry;
use crate::intake::matrix::{fold_level_counts, levels_of_counts};
use crate::numeric::sum::Neumaier;
use crate::par;

const CHUNK: usize = 4096;

/// Dataset Max@k for `1 <= k <= N`. (scorio's k = 1 path is the observed mean
/// in category order, `dirichlet::observed_mean`; callers dispatch it.)
pub fn max_at_k(bank: &CategoricalBank, levels: &Levels, k: u64) -> Result<f64> {
    let n = bank.trials as u64;
    check(n, bank.categories, levels, k)?;
    if levels.len() == 1 {
        return Ok(levels.values[0]);
    }
    let lh = LevelHistograms::new(levels, bank.categories, n as usize + 1, false);
    let c = bank.categories;
    let hist = par::fold_per_thread(
        bank.rows.div_ceil(CHUNK),
        CHUNK * lh.cost_per_row(),
        || (lh.empty(), Vec::new()),
        |(h, fs), b| {
            lh.add_counts(&bank.counts[b * CHUNK * c..((b + 1) * CHUNK).min(bank.rows) * c], fs, h);
            true
        },
        |(a, fs), (b, _)| (add_tables(a, b), fs),
    )
    .map(|(h, _)| h)
    .expect("counting levels never stops early");
    Ok(from_histograms(&hist, levels, n, k, bank.rows))
}

/// Max@k straight from a C-order outcome matrix (`intake::matrix::
/// fold_level_counts`: its level counts are folded into the histograms
/// block by block, never written out): the same integers, so the same
/// number as `max_at_k` of its bank. None where the intake declines (a
/// layout, an entry or a width it does not take: the caller counts the
/// bank, which reports any flaw).
pub fn max_at_k_of_rows<T: Entry>(view: ArrayView2<T>, levels: &Levels, k: u64) -> Result<Option<f64>> {
    let (rows, n) = (view.nrows(), view.ncols() as u64);
    let categories = levels.of_category.len();
    check(n, categories, levels, k)?;
    if levels.len() == 1 {
        return Ok(None);
    }
    let lh = LevelHistograms::new(levels, categories, n as usize + 1, false);
    let hist = fold_level_counts(
        view,
        &levels.of_category,
        lh.levels(),
        || lh.empty(),
        |h, fs| lh.add(fs, h),
        add_tables,
    );
    Ok(hist.map(|h| from_histograms(&h, levels, n, k, rows)))
}

fn check(n: u64, categories: usize, levels: &Levels, k: u64) -> Result<()> {
    if k < 1 || k > n {
        return Err(Error::value(format!("k must satisfy 1 <= k <= N (N={n}); got k={k}")));
    }
    if levels.of_category.len() != categories {
        return Err(Error::value("one reward level per category is required"));
    }
    Ok(())
}

pub(crate) fn add_tables(mut a: Vec<u64>, b: Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
    a
}

/// Max@k of `rows` rows from their level histograms (at least two levels).
/// Per level l, the histogram of the rows' cumulative counts F_l (exact
/// integers): Max@k is linear in P(best of k exceeds level l), a function
/// of F_l alone, so each distinct F is evaluated once and weighted by how
/// many rows have it, instead of one evaluation per row and level.
fn from_histograms(hist: &[u64], levels: &Levels, n: u64, k: u64, rows: usize) -> f64 {
    let nl = levels.len();
    let width = n as usize + 1;
    let rw = Rewards::new(&levels.values);
    let gaps = rw.gaps();
    let low = rw.normalized[0];
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
    rw.restore(low + total.value() / rows as f64)
}

/// Per level l < L - 1, the histogram of the rows' cumulative counts F_l
/// (`width` slots per level, level-major: F in `0..width`) and, with
/// `pairs`, per pair of levels i < j the joint histogram of (F_i, F_j)
/// (`width²` slots per pair, after the levels; the posterior's covariances,
/// `maxk_posterior`). The rows come as their F vectors (the intake's
/// `fold_level_counts`, or a bank's counts through `add_counts`), and the
/// tables (a few hundred bytes for N = 64, 100 KB with pairs of 3 levels)
/// stay in cache while the rows stream past: on a 1e6 x 64 bank of 4
/// categories several times faster than a table of distinct rows (2 MB of
/// slots hit at random).
pub(crate) struct LevelHistograms {
    /// The level of each category.
    level_of: Vec<usize>,
    levels: usize,
    pub(crate) width: usize,
    pairs: bool,
}

impl LevelHistograms {
    pub(crate) fn new(levels: &Levels, categories: usize, width: usize, pairs: bool) -> Self {
        debug_assert_eq!(levels.of_category.len(), categories);
        LevelHistograms {
            level_of: levels.of_category.clone(),
            levels: levels.len() - 1,
            width,
            pairs,
        }
    }

    pub(crate) fn categories(&self) -> usize {
        self.level_of.len()
    }

    /// L - 1: the levels below the top.
    pub(crate) fn levels(&self) -> usize {
        self.levels
    }

    /// Slots of all the tables.
    pub(crate) fn len(&self) -> usize {
        let l = self.levels();
        l * self.width
            + if self.pairs {
                l * (l - 1) / 2 * self.width * self.width
            } else {
                0
            }
    }

    pub(crate) fn empty(&self) -> Vec<u64> {
        vec![0u64; self.len()]
    }

    /// Estimated nanoseconds per row.
    pub(crate) fn cost_per_row(&self) -> usize {
        let l = self.levels();
        1 + l / 2 + if self.pairs { l * l } else { 0 }
    }

    /// The F vectors of rows of category counts (`categories` a row) into
    /// `fs` (a buffer kept between calls).
    pub(crate) fn levels_of(&self, counts: &[u32], fs: &mut Vec<u32>) {
        fs.resize(counts.len() / self.categories() * self.levels, 0);
        levels_of_counts(counts, &self.level_of, self.levels, fs);
    }

    /// `add` for rows of category counts.
    pub(crate) fn add_counts(&self, counts: &[u32], fs: &mut Vec<u32>, hist: &mut [u64]) {
        self.levels_of(counts, fs);
        self.add(fs, hist);
    }

    /// Adds the rows of `fs` (their F vectors, `levels()` a row). Without
    /// pairs: two tables, even and odd rows, where the rows outnumber the
    /// slots (neighbouring rows often land in the same slot, and one table
    /// would chain their increments).
    pub(crate) fn add(&self, fs: &[u32], hist: &mut [u64]) {
        let (l, width) = (self.levels, self.width);
        if self.pairs {
            for f in fs.chunks_exact(l) {
                for (i, &x) in f.iter().enumerate() {
                    hist[i * width + x as usize] += 1;
                }
                let mut at = l * width;
                for (i, &a) in f.iter().enumerate() {
                    for &b in &f[i + 1..] {
                        hist[at + a as usize * width + b as usize] += 1;
                        at += width * width;
                    }
                }
            }
            return;
        }
        if fs.len() / l < 2 * hist.len() {
            for f in fs.chunks_exact(l) {
                for (i, &x) in f.iter().enumerate() {
                    hist[i * width + x as usize] += 1;
                }
            }
            return;
        }
        let mut tables = vec![0u64; 2 * hist.len()];
        let (even, odd) = tables.split_at_mut(hist.len());
        let mut pairs = fs.chunks_exact(2 * l);
        for pair in &mut pairs {
            let (a, b) = pair.split_at(l);
            for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
                even[i * width + x as usize] += 1;
                odd[i * width + y as usize] += 1;
            }
        }
        for f in pairs.remainder().chunks_exact(l) {
            for (i, &x) in f.iter().enumerate() {
                even[i * width + x as usize] += 1;
            }
        }
        for ((h, &x), &y) in hist.iter_mut().zip(even.iter()).zip(odd.iter()) {
            *h += x + y;
        }
    }
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

    /// The matrix path (counts folded block by block) gives the bank's bits,
    /// across block boundaries, category counts with and without the fixed
    /// arrays, levels out of category order and tied rewards.
    #[test]
    fn matrix_path_equals_the_bank() {
        use crate::intake::matrix::category_counts;
        let mut next = crate::testutil::xorshift(7);
        for (m, n, c) in [
            (1usize, 5usize, 3usize),
            (9000, 16, 4),
            (70_000, 8, 3),
            (300, 200, 9),
            (5000, 3, 2),
            (2000, 40, 12),
        ] {
            let r = ndarray::Array2::from_shape_fn((m, n), |_| (next() % c as u64) as i8);
            let w: Vec<f64> = (0..c).map(|i| ((i * 7) % c) as f64 / 3.0).collect();
            let mut w_tied = w.clone();
            w_tied[c - 1] = w_tied[0];
            for w in [w, w_tied] {
                let lv = Levels::from_weights(&w).unwrap();
                if lv.len() < 2 {
                    continue;
                }
                let counts = category_counts(r.view(), c, "R").unwrap();
                let bank = CategoricalBank::new(&counts.counts, None, c, n, 0).unwrap();
                for k in [1, 2, n as u64 / 2 + 1, n as u64] {
                    let direct = max_at_k_of_rows(r.view(), &lv, k).unwrap().expect("C-order rows");
                    assert_eq!(
                        direct.to_bits(),
                        max_at_k(&bank, &lv, k).unwrap().to_bits(),
                        "m={m} n={n} c={c} k={k}"
                    );
                    let wide = r.mapv(i64::from);
                    assert_eq!(max_at_k_of_rows(wide.view(), &lv, k).unwrap(), Some(direct));
                }
            }
        }
        // An entry outside 0..C, or Fortran order: declined (the bank path reports or takes them).
        let mut r = ndarray::Array2::from_shape_fn((50, 6), |(i, j)| ((i + j) % 3) as i8);
        let lv = Levels::from_weights(&[0.0, 0.5, 1.0]).unwrap();
        assert!(max_at_k_of_rows(r.t(), &lv, 2).unwrap().is_none());
        r[[31, 4]] = 3;
        assert!(max_at_k_of_rows(r.view(), &lv, 2).unwrap().is_none());
        assert!(max_at_k_of_rows(r.view(), &lv, 7).is_err());
    }
}
