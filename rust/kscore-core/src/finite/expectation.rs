//! Finite-bank expectations: the mean credit `E[A_X]` of X ~ Hypergeom(n, c, k)
//! per state, and the dataset mean over a histogram of states. This single
//! kernel computes Pass@k, Pass^k, G-Pass@k_tau, Maj@k, mG-Pass@k, AUC@k and
//! the threshold spectrum; the credit vector is the only difference.

use rayon::prelude::*;

use crate::cancel;
use crate::finite::credit::{Credit, Shape};
use crate::finite::hypergeom;
use crate::intake::histogram::Histogram;
use crate::numeric::sum::{pairwise_dot, pairwise_sum, Neumaier};
use crate::par;

/// `E[A_X]` for one state with c successes out of n trials (requires
/// `c <= n`, `credit.k <= n`). Both tails of a step are summed directly and
/// divided by their total, so small and near-one results keep full relative
/// accuracy without a `1 - x` cancellation.
pub fn state_value(n: u64, c: u64, credit: &Credit, buf: &mut Vec<f64>) -> f64 {
    let k = credit.k;
    match &credit.shape {
        Shape::Constant(a) => *a,
        Shape::Step(t) => {
            let (lo, hi) = hypergeom::support(n, c, k);
            if *t <= lo {
                return 1.0;
            }
            if *t > hi {
                return 0.0;
            }
            hypergeom::weights(n, c, k, buf);
            let split = (*t - lo) as usize;
            let below = pairwise_sum(&buf[..split]);
            let above = pairwise_sum(&buf[split..]);
            above / (below + above)
        }
        Shape::General(a) => {
            let lo = hypergeom::weights(n, c, k, buf) as usize;
            let total = pairwise_sum(buf);
            let dot = pairwise_dot(buf, &a[lo..]);
            if dot.abs() >= f64::MIN_POSITIVE {
                dot / total
            } else {
                // A subnormal dot product was rounded to the subnormal grid
                // before the division and can land one step off the true
                // value (credits of order 1e-323): normalise first instead.
                buf.iter_mut().for_each(|w| *w /= total);
                pairwise_dot(buf, &a[lo..])
            }
        }
    }
}

/// `with_min_len` for per-state work: one walk over at most k + 1 terms.
fn state_min_len(credit: &Credit) -> usize {
    par::min_len(5 * (credit.k as usize + 1))
}

/// Per-state values for states `(n, c)`, in parallel, in input order (NaN
/// for the states skipped while a `cancel::Stop` is held: see `cancel`).
pub fn state_values(states: &[(u64, u64)], credit: &Credit) -> Vec<f64> {
    states
        .par_iter()
        .with_min_len(state_min_len(credit))
        .map_init(Vec::new, |buf, &(n, c)| {
            if cancel::stopping() {
                return f64::NAN;
            }
            state_value(n, c, credit, buf)
        })
        .collect()
}

/// Per-state values for a histogram's distinct counts.
pub fn histogram_values(hist: &Histogram, credit: &Credit) -> Vec<f64> {
    hist.values
        .par_iter()
        .with_min_len(state_min_len(credit))
        .map_init(Vec::new, |buf, &c| {
            if cancel::stopping() {
                return f64::NAN;
            }
            state_value(hist.n, c, credit, buf)
        })
        .collect()
}

/// Frequency-weighted mean of per-state values: `(f . s) / M`.
pub fn weighted_mean(freqs: &[u64], values: &[f64]) -> f64 {
    let mut acc = Neumaier::new();
    let mut m = 0u64;
    for (&f, &s) in freqs.iter().zip(values) {
        acc.add(f as f64 * s);
        m += f;
    }
    acc.value() / m as f64
}

/// The dataset value of a finite-bank metric: mean over rows of `E[A_X]`.
pub fn histogram_mean(hist: &Histogram, credit: &Credit) -> f64 {
    weighted_mean(&hist.freqs, &histogram_values(hist, credit))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::choose;

    #[test]
    fn pass_and_unanimous_match_binomial_ratios() {
        let mut buf = Vec::new();
        for n in 1..15u64 {
            for c in 0..=n {
                for k in 1..=n {
                    let pass = 1.0 - choose(n - c, k) / choose(n, k);
                    let unan = choose(c, k) / choose(n, k);
                    let p = state_value(n, c, &Credit::pass(k), &mut buf);
                    let u = state_value(n, c, &Credit::unanimous(k), &mut buf);
                    assert!((p - pass).abs() < 1e-15, "pass n={n} c={c} k={k}");
                    assert!((u - unan).abs() < 1e-15, "unan n={n} c={c} k={k}");
                }
            }
        }
    }

    #[test]
    fn general_credit_is_a_weighted_mean() {
        // mG-Pass@4 on n=6, c=4: (2/4) E[max(X-2, 0)].
        let (n, c, k) = (6u64, 4u64, 4u64);
        let mut expect = 0.0;
        for j in 0..=k {
            let p = choose(c, j) * choose(n - c, k - j) / choose(n, k);
            expect += p * 0.5 * (j.saturating_sub(2)) as f64;
        }
        let got = state_value(n, c, &Credit::mg(k), &mut Vec::new());
        assert!((got - expect).abs() < 1e-15);
    }

    #[test]
    fn subnormal_credits_round_once() {
        // 0.4 * 5e-324 is below half the smallest subnormal: the value is 0.
        let credit = Credit::from_values(vec![0.0, 5e-324]).unwrap();
        assert_eq!(state_value(5, 2, &credit, &mut Vec::new()), 0.0);
        let credit = Credit::from_values(vec![0.0, 1e-320]).unwrap();
        assert_eq!(state_value(5, 2, &credit, &mut Vec::new()), 0.4 * 1e-320);
    }

    #[test]
    fn histogram_mean_weights_by_frequency() {
        let h = Histogram {
            n: 4,
            values: vec![0, 4],
            freqs: vec![3, 1],
        };
        assert_eq!(histogram_mean(&h, &Credit::pass(2)), 0.25);
    }
}
