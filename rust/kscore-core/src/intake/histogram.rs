//! Distinct per-row success counts and their frequencies: every finite-bank
//! metric is a weighted mean over at most N + 1 states, so per-count work is
//! done once per distinct count, never per row.

use ndarray::{s, ArrayView2};

use crate::error::Result;
use crate::intake::entry::Entry;
use crate::intake::matrix;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Histogram {
    /// Trials per row.
    pub n: u64,
    /// Distinct success counts, ascending (the canonical state order).
    pub values: Vec<u64>,
    /// How many rows have each count.
    pub freqs: Vec<u64>,
}

impl Histogram {
    /// Rows in the bank.
    pub fn rows(&self) -> u64 {
        self.freqs.iter().sum()
    }

    /// From a dense histogram indexed by count.
    pub fn from_dense(n: u64, dense: &[u64]) -> Self {
        let (values, freqs) = dense
            .iter()
            .enumerate()
            .filter(|(_, &f)| f > 0)
            .map(|(c, &f)| (c as u64, f))
            .unzip();
        Histogram { n, values, freqs }
    }

    /// From per-row counts (sorted copy; O(M log M)).
    pub fn from_counts(n: u64, counts: &[u32]) -> Self {
        let mut sorted = counts.to_vec();
        sorted.sort_unstable();
        let mut values = Vec::new();
        let mut freqs: Vec<u64> = Vec::new();
        for c in sorted {
            if values.last() == Some(&(c as u64)) {
                *freqs.last_mut().expect("nonempty") += 1;
            } else {
                values.push(c as u64);
                freqs.push(1);
            }
        }
        Histogram { n, values, freqs }
    }

    /// Validate a binary matrix and histogram its row counts in one pass.
    pub fn from_binary<T: Entry>(view: ArrayView2<T>) -> Result<Self> {
        let (m, n) = view.dim();
        if m > 1 && view.strides()[0] == 0 {
            // One row repeated (`np.broadcast_to`): read it once, whatever M is.
            let row = Self::from_binary(view.slice(s![..1, ..]))?;
            return Ok(Histogram {
                freqs: vec![m as u64],
                ..row
            });
        }
        // A dense table costs O(N) per thread; prefer sorting for tall-thin N.
        if n < 4 * m.max(1) || n <= 4096 {
            let dense = matrix::binary_count_histogram(view)?;
            Ok(Self::from_dense(n as u64, &dense))
        } else {
            let counts = matrix::binary_counts(view)?;
            Ok(Self::from_counts(n as u64, &counts))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sorted_agree() {
        let counts = [3u32, 0, 3, 5, 0, 3];
        let h = Histogram::from_counts(5, &counts);
        assert_eq!(h.values, vec![0, 3, 5]);
        assert_eq!(h.freqs, vec![2, 3, 1]);
        let dense = [2u64, 0, 0, 3, 0, 1];
        assert_eq!(Histogram::from_dense(5, &dense), h);
        assert_eq!(h.rows(), 6);
    }

    #[test]
    fn broadcast_rows_read_once() {
        let row = ndarray::array![[1i64, 0, 1, 1]];
        let view = row.broadcast((1 << 40, 4)).expect("broadcast");
        let h = Histogram::from_binary(view).expect("valid");
        assert_eq!((h.values.clone(), h.freqs.clone()), (vec![3], vec![1 << 40]));
        let bad = ndarray::array![[1i64, 2]];
        assert!(Histogram::from_binary(bad.broadcast((1 << 40, 2)).expect("broadcast")).is_err());
    }
}
