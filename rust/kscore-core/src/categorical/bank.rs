//! A prepared categorical bank: per-row category counts of the observed
//! outcomes R (M x N) and, optionally, of prior outcomes R0 (M x D), plus the
//! grouping of categories into ascending reward levels. The counts come from
//! `intake::matrix::category_counts`; everything downstream (Bayes@N, Avg, Max@k)
//! reads this struct and never the matrices.

use crate::error::{Error, Result};
use crate::intake::moments::CountMoments;
use crate::par;

/// Borrowed category counts, row-major `rows x categories`.
#[derive(Clone, Copy, Debug)]
pub struct CategoricalBank<'a> {
    pub counts: &'a [u32],
    /// Counts of R0 (same shape), or `None` for D = 0.
    pub prior: Option<&'a [u32]>,
    pub rows: usize,
    pub categories: usize,
    /// N, trials per row of R.
    pub trials: usize,
    /// D, trials per row of R0 (0 without R0).
    pub prior_trials: usize,
    /// The moments of `counts` when the intake computed them in its pass.
    pub moments: Option<&'a CountMoments>,
}

impl<'a> CategoricalBank<'a> {
    pub fn new(
        counts: &'a [u32],
        prior: Option<&'a [u32]>,
        categories: usize,
        trials: usize,
        prior_trials: usize,
    ) -> Result<Self> {
        if categories == 0 || !counts.len().is_multiple_of(categories) || counts.is_empty() {
            return Err(Error::value(
                "category counts must be a non-empty rows x categories table",
            ));
        }
        if trials == 0 {
            return Err(Error::value("R must contain at least one trial (N >= 1)."));
        }
        if prior.is_some_and(|p| p.len() != counts.len()) {
            return Err(Error::value("R0 counts must have the same shape as R counts"));
        }
        let rows = counts.len() / categories;
        Ok(CategoricalBank {
            counts,
            prior,
            rows,
            categories,
            trials,
            prior_trials,
            moments: None,
        })
    }

    /// The same bank with the moments of its counts (from the intake).
    pub fn with_moments(self, moments: Option<&'a CountMoments>) -> Self {
        debug_assert!(moments.is_none_or(|m| m.rows == self.rows as u64 && m.categories == self.categories));
        CategoricalBank { moments, ..self }
    }

    /// The Dirichlet total `T = C + D + N` (categories, prior and observed trials).
    pub fn total(&self) -> u64 {
        (self.categories + self.prior_trials + self.trials) as u64
    }

    /// Observed counts of row `i`.
    #[inline]
    pub fn row(&self, i: usize) -> &'a [u32] {
        &self.counts[i * self.categories..(i + 1) * self.categories]
    }

    /// Posterior concentration `n_c + n0_c + 1` of category `c` in row `i`.
    #[inline]
    pub fn concentration(&self, i: usize, c: usize) -> u64 {
        let j = i * self.categories + c;
        self.counts[j] as u64 + self.prior.map_or(0, |p| p[j] as u64) + 1
    }

    /// The distinct rows of counts (of R, plus R0's when `with_prior`) with
    /// how many rows have each, when they fit a dense table: of at most
    /// `MAX_SLOTS` slots when the bank has more rows than that, or of up to
    /// `MAX_LARGE_SLOTS` when it has at least 2 rows per slot (then reading
    /// the table costs less than a pass over the rows). Every per-row kernel
    /// then runs once per distinct row (a 5000 x 16 bank of 3 categories has
    /// at most 289; a 1e6 x 64 bank of 4 categories at most 47,905 in
    /// 274,625 slots). A row's slot is its first C - 1 counts in base
    /// `N (+ D) + 1`; the last count is fixed by the total. Distinct rows
    /// come out in ascending slot order.
    pub fn distinct_rows(&self, with_prior: bool) -> Option<DistinctRows> {
        let c = self.categories;
        let prior = if with_prior { self.prior } else { None };
        let trials = (self.trials + prior.map_or(0, |_| self.prior_trials)) as u64;
        let base = trials + 1;
        let rows = self.rows as u64;
        let slots = base
            .checked_pow((c - 1) as u32)
            .filter(|&s| (s <= MAX_SLOTS && s < rows) || (s <= MAX_LARGE_SLOTS && s.saturating_mul(2) <= rows))?
            as usize;
        const CHUNK: usize = 1 << 14;
        let freq = if par::worth_splitting(self.rows * 4) {
            // One table per thread, added at the end.
            par::fold_per_thread(
                self.rows.div_ceil(CHUNK),
                CHUNK * 4,
                || vec![0u64; slots],
                |f, b| {
                    self.count_slots(b * CHUNK..((b + 1) * CHUNK).min(self.rows), prior, base, f);
                    true
                },
                |mut a, b| {
                    a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
                    a
                },
            )
            .expect("counting slots never stops early")
        } else {
            let mut f = vec![0u64; slots];
            self.count_slots(0..self.rows, prior, base, &mut f);
            f
        };
        let mut counts = Vec::new();
        let mut freqs = Vec::new();
        for (key, &f) in freq.iter().enumerate().filter(|(_, &f)| f > 0) {
            let mut rest = key as u64;
            let mut used = 0u64;
            for _ in 0..c - 1 {
                counts.push((rest % base) as u32);
                used += rest % base;
                rest /= base;
            }
            counts.push((trials - used) as u32);
            freqs.push(f);
        }
        Some(DistinctRows {
            counts,
            freqs,
            trials: trials as usize,
        })
    }

    /// Adds the rows `range` to the slot table `freq` (see `distinct_rows`).
    fn count_slots(&self, range: std::ops::Range<usize>, prior: Option<&[u32]>, base: u64, freq: &mut [u64]) {
        let c = self.categories;
        for i in range {
            let row = &self.counts[i * c..(i + 1) * c];
            let mut key = 0u64;
            match prior {
                None => row[..c - 1].iter().rev().for_each(|&x| key = key * base + x as u64),
                Some(p) => {
                    let pri = &p[i * c..(i + 1) * c];
                    row[..c - 1]
                        .iter()
                        .zip(&pri[..c - 1])
                        .rev()
                        .for_each(|(&x, &y)| key = key * base + (x + y) as u64);
                }
            }
            freq[key as usize] += 1;
        }
    }
}

/// Slot tables up to this size hold the distinct rows of any bank with more
/// rows than slots.
const MAX_SLOTS: u64 = 4096;
/// Slot tables up to this size (8 MiB of counts) hold the distinct rows of a
/// bank with at least 2 rows per slot.
const MAX_LARGE_SLOTS: u64 = 1 << 20;

/// Distinct rows of counts (row-major, `freqs.len() x categories`), how many
/// rows of the bank have each, and the trials per row they sum to.
#[derive(Clone, Debug, PartialEq)]
pub struct DistinctRows {
    pub counts: Vec<u32>,
    pub freqs: Vec<u64>,
    pub trials: usize,
}

/// Categories grouped into distinct reward levels `r_1 < ... < r_L`.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels {
    /// The distinct rewards, ascending.
    pub values: Vec<f64>,
    /// The level index of each category.
    pub of_category: Vec<usize>,
}

impl Levels {
    /// From sorted distinct `values` and each category's index into them.
    pub fn new(values: Vec<f64>, of_category: Vec<usize>) -> Result<Self> {
        if values.is_empty() || of_category.iter().any(|&l| l >= values.len()) {
            return Err(Error::value("every category must map to one of the reward levels"));
        }
        if values
            .windows(2)
            .any(|p| p[0].partial_cmp(&p[1]) != Some(std::cmp::Ordering::Less))
        {
            return Err(Error::value("reward levels must be strictly ascending"));
        }
        Ok(Levels { values, of_category })
    }

    /// Sorted distinct levels of a reward vector, with exact float equality,
    /// as `numpy.unique` gives them: a stable sort in which -0.0 == 0.0, and
    /// the first value of each run of equal ones.
    pub fn from_weights(weights: &[f64]) -> Result<Self> {
        if weights.iter().any(|w| !w.is_finite()) {
            return Err(Error::value("rewards must be finite"));
        }
        let mut values = weights.to_vec();
        values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
        values.dedup_by(|later, first| later == first);
        let of_category = weights.iter().map(|w| values.partition_point(|v| v < w)).collect();
        Self::new(values, of_category)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `out[l] = Σ_{m <= l} Σ_{c at level m} x(c)` for `l < L - 1` (the
    /// cumulative grouped counts below the top level). `group` is scratch.
    #[inline]
    pub fn cumulative(&self, x: impl Fn(usize) -> u64, group: &mut [u64], out: &mut [u64]) {
        group.fill(0);
        for (c, &l) in self.of_category.iter().enumerate() {
            group[l] += x(c);
        }
        let mut acc = 0u64;
        for (o, &g) in out.iter_mut().zip(group.iter()) {
            acc += g;
            *o = acc;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_group_equal_rewards() {
        let lv = Levels::from_weights(&[1.0, 0.0, 1.0, 0.5]).unwrap();
        assert_eq!(lv.values, vec![0.0, 0.5, 1.0]);
        assert_eq!(lv.of_category, vec![2, 0, 2, 1]);
        let mut group = vec![0; 3];
        let mut out = vec![0; 2];
        lv.cumulative(|c| [3, 4, 5, 6][c], &mut group, &mut out);
        assert_eq!(out, vec![4, 10]);
    }

    #[test]
    fn bank_totals_and_concentrations() {
        let counts = [2u32, 1, 0, 3];
        let prior = [1u32, 0, 0, 1];
        let bank = CategoricalBank::new(&counts, Some(&prior), 2, 3, 1).unwrap();
        assert_eq!(bank.rows, 2);
        assert_eq!(bank.total(), 6);
        assert_eq!(bank.concentration(0, 0), 4);
        assert_eq!(bank.concentration(1, 1), 5);
    }
}
