//! The hypergeometric law of the number of successes X in a uniformly random
//! k-subset of a bank of n trials holding c successes: its support and its
//! relative masses (see `walk`).

use crate::finite::walk::walk_from_mode;

/// Support `lo..=hi` of X ~ Hypergeom(n, c, k).
#[inline]
pub fn support(n: u64, c: u64, k: u64) -> (u64, u64) {
    ((k + c).saturating_sub(n), k.min(c))
}

/// Relative masses of X for j = lo..=hi into `out` (mode = 1); returns lo.
pub fn weights(n: u64, c: u64, k: u64, out: &mut Vec<f64>) -> u64 {
    debug_assert!(c <= n && k <= n);
    let (lo, hi) = support(n, c, k);
    // Mode of the hypergeometric law: floor((k+1)(c+1)/(n+2)), clamped.
    let mode = (((k as u128 + 1) * (c as u128 + 1)) / (n as u128 + 2)) as u64;
    let mode = mode.clamp(lo, hi);
    // p(j+1)/p(j) = (c-j)(k-j) / ((j+1)(n-c-k+j+1)): float products of exact
    // integers, so each ratio carries at most three roundings.
    let (cf, kf, lof) = (c as f64, k as f64, lo as f64);
    let base = (n - c) as f64 + 1.0 - kf; // n - c - k + j + 1 = base + j (>= 1 on the support)
    let ratio = |i: usize| {
        let j = lof + i as f64;
        ((cf - j) * (kf - j)) / ((j + 1.0) * (base + j))
    };
    walk_from_mode((hi - lo + 1) as usize, (mode - lo) as usize, ratio, out);
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::choose;

    #[test]
    fn weights_are_proportional_to_the_pmf() {
        let (n, c, k) = (20u64, 7u64, 9u64);
        let mut w = Vec::new();
        let lo = weights(n, c, k, &mut w);
        let total: f64 = w.iter().sum();
        for (i, &x) in w.iter().enumerate() {
            let j = lo + i as u64;
            let exact = choose(c, j) * choose(n - c, k - j) / choose(n, k);
            assert!((x / total - exact).abs() < 1e-15, "j={j}");
        }
    }

    #[test]
    fn degenerate_supports() {
        let mut w = Vec::new();
        assert_eq!(weights(5, 0, 3, &mut w), 0);
        assert_eq!(w, vec![1.0]);
        assert_eq!(weights(5, 5, 3, &mut w), 3);
        assert_eq!(w, vec![1.0]);
        assert_eq!(weights(5, 2, 5, &mut w), 2);
        assert_eq!(w, vec![1.0]);
    }
}
