//! Per-state values back to the output a caller asked for: one value per
//! question, the mean over questions, or the mean over each segment of
//! questions (one model of several); plus the metrics read straight off the
//! counts (avg@n, the harness's cons@k). Means are frequency-weighted
//! compensated sums, so a single bank gives the same bits as `kscore.eval`.

use rayon::prelude::*;

use crate::finite::credit::Credit;
use crate::finite::expectation;
use crate::intake::states::StateTable;
use crate::par::Grain;

/// How per-state values are turned into the output.
#[derive(Clone, Copy, Debug)]
pub enum Reduce<'a> {
    /// One value per question, in input order.
    Question,
    /// The mean over all questions (a single value).
    Mean,
    /// The mean over each segment `offsets[j]..offsets[j + 1]` of questions.
    Segments(&'a [usize]),
}

/// Metrics read straight off the counts (no hypergeometric draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direct {
    /// avg@n: `c / n`.
    Ratio,
    /// cons@k of the harness: `1{c > k/2}` (i.e. `2c > k`).
    MajorityOf(u64),
    /// cons@n with each question's own n: `1{2c > n}`.
    MajorityOfOwn,
}

impl StateTable {
    /// Per-state values of a direct metric.
    pub fn direct_values(&self, metric: Direct) -> Vec<f64> {
        self.states
            .iter()
            .map(|&(n, c)| match metric {
                Direct::Ratio => c as f64 / n as f64,
                Direct::MajorityOf(k) => (2 * c > k) as u8 as f64,
                Direct::MajorityOfOwn => (2 * c > n) as u8 as f64,
            })
            .collect()
    }

    /// Reduce per-state values (`width` values per state, row-major) to the
    /// output: per question (`M x width`), the mean (`width`), or per
    /// segment (`L x width`). Means use the frequency-weighted compensated
    /// sum of `expectation::weighted_mean`, so a single bank gives the same bits as
    /// `kscore.eval`.
    pub fn reduce(&self, values: &[f64], width: usize, how: Reduce<'_>) -> Vec<f64> {
        assert!(
            matches!(how, Reduce::Mean) || self.has_index(),
            "per-question and per-segment output need a table built with Index::Keep"
        );
        let width = width.max(1);
        match how {
            Reduce::Question if width == 1 => {
                let mut out = vec![0.0; self.len()];
                out.par_chunks_mut(1 << 14)
                    .zip(self.index.par_chunks(1 << 14))
                    .with_grain(1 << 14)
                    .for_each(|(o, ix)| {
                        for (x, &s) in o.iter_mut().zip(ix) {
                            *x = values[s as usize];
                        }
                    });
                out
            }
            Reduce::Question => {
                let mut out = vec![0.0; self.len() * width];
                out.par_chunks_mut(width)
                    .zip(self.index.par_iter())
                    .with_grain(width)
                    .for_each(|(o, &s)| {
                        let s = s as usize;
                        o.copy_from_slice(&values[s * width..(s + 1) * width]);
                    });
                out
            }
            Reduce::Mean => columns_mean(&self.freqs, values, width),
            Reduce::Segments(offsets) => {
                let u = self.states.len();
                let segs: Vec<(usize, usize)> = offsets.windows(2).map(|w| (w[0], w[1])).collect();
                let per_seg = self.len() / segs.len().max(1) + u * width;
                segs.par_iter()
                    .with_grain(2 * per_seg)
                    .flat_map_iter(|&(a, b)| {
                        let mut freqs = vec![0u64; u];
                        for &s in &self.index[a..b] {
                            freqs[s as usize] += 1;
                        }
                        columns_mean(&freqs, values, width).into_iter()
                    })
                    .collect()
            }
        }
    }

    /// Per-state `E[A_X]` of a credit vector (each state once, in parallel).
    /// Requires `credit.k <= n` for every state (see `first_short`).
    pub fn credit_values(&self, credit: &Credit) -> Vec<f64> {
        expectation::state_values(&self.states, credit)
    }
}

/// Frequency-weighted column means of a `states x width` matrix.
fn columns_mean(freqs: &[u64], values: &[f64], width: usize) -> Vec<f64> {
    if width == 1 {
        return vec![expectation::weighted_mean(freqs, values)];
    }
    (0..width)
        .into_par_iter()
        .with_grain(4 * freqs.len())
        .map(|j| {
            let col: Vec<f64> = values.iter().skip(j).step_by(width).copied().collect();
            expectation::weighted_mean(freqs, &col)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banks_and_direct_metrics() {
        let (t, off) = StateTable::from_banks(&[(3, vec![0, 3, 2]), (5, vec![5])]);
        assert_eq!(off, vec![0, 3, 4]);
        assert_eq!(t.states, vec![(3, 0), (3, 2), (3, 3), (5, 5)]);
        let v = t.direct_values(Direct::MajorityOf(3));
        assert_eq!(t.reduce(&v, 1, Reduce::Question), vec![0.0, 1.0, 1.0, 1.0]);
        let own = t.direct_values(Direct::MajorityOfOwn);
        assert_eq!(t.reduce(&own, 1, Reduce::Question), vec![0.0, 1.0, 1.0, 1.0]);
        let r = t.direct_values(Direct::Ratio);
        let seg = t.reduce(&r, 1, Reduce::Segments(&off));
        assert!((seg[0] - 5.0 / 9.0).abs() < 1e-15 && seg[1] == 1.0, "{seg:?}");
    }
}
