//! The Beta-binomial law `BB(j; n, a, b) = C(n, j) B(a + j, b + n - j) / B(a, b)`:
//! the number of successes in n fresh Bernoulli(p) draws when
//! p ~ Beta(a, b). Relative masses come from the ratio recurrence walked out
//! of the mode (see `walk`), so far tails underflow to 0 instead of
//! accumulating error, and the walk costs only the non-negligible span.

use crate::error::{Error, Result};
use crate::finite::walk::walk_span;

/// `p(j + 1) / p(j) = (n - j)(a + j) / ((j + 1)(b + n - 1 - j))`, as two
/// quotients so that huge priors do not overflow the products.
#[inline]
fn ratio(n: f64, a: f64, b: f64, j: f64) -> f64 {
    ((n - j) / (j + 1.0)) * ((a + j) / (b + (n - 1.0 - j)))
}

/// An index where `BB(.; n, a, b)` is maximal. The law is unimodal whenever
/// a >= 1 or b >= 1 (always true for a posterior with N >= 1 trials), so
/// this is where the ratio crosses 1.
pub fn mode(n: u64, a: f64, b: f64) -> u64 {
    if n == 0 {
        return 0;
    }
    let nf = n as f64;
    let denom = a + b - 2.0;
    let guess = if denom > 0.0 {
        (nf * (a - 1.0) - (b - 1.0)) / denom
    } else {
        0.0
    };
    let mut m = if guess.is_finite() {
        guess.ceil().clamp(0.0, nf) as u64
    } else {
        0
    };
    while m < n && ratio(nf, a, b, m as f64) > 1.0 {
        m += 1;
    }
    while m > 0 && ratio(nf, a, b, (m - 1) as f64) < 1.0 {
        m -= 1;
    }
    m
}

/// Relative masses of `BB(.; n, a, b)` over its non-underflowed span:
/// `out[i]` is the mass at `j = first + i` (the mode has mass 1); returns
/// `first`. `down` is scratch.
pub fn weights(n: u64, a: f64, b: f64, down: &mut Vec<f64>, out: &mut Vec<f64>) -> Result<u64> {
    let m = mode(n, a, b);
    let nf = n as f64;
    let inv = |i: usize| {
        let j = i as f64;
        ((j + 1.0) / (nf - j)) * ((b + (nf - 1.0 - j)) / (a + j))
    };
    let first = walk_span(
        (n + 1) as usize,
        m as usize,
        |i| ratio(nf, a, b, i as f64),
        inv,
        down,
        out,
    );
    if out.iter().any(|w| !w.is_finite()) {
        return Err(Error::FloatingPoint("non-finite Beta-binomial weights".into()));
    }
    Ok(first as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::beta_binomial;

    #[test]
    fn weights_are_proportional_to_the_pmf() {
        let (mut d, mut o) = (Vec::new(), Vec::new());
        for &(n, a, b) in &[
            (10u64, 3.0, 8.0),
            (7, 0.2, 8.0),
            (7, 8.0, 0.3),
            (12, 1.0, 1.0),
            (1, 1.0, 2.0),
        ] {
            let first = weights(n, a, b, &mut d, &mut o).unwrap() as usize;
            let total: f64 = o.iter().sum();
            let e = beta_binomial(n, a, b);
            let et: f64 = e.iter().sum();
            for (i, &w) in o.iter().enumerate() {
                assert!((w / total - e[first + i] / et).abs() < 1e-15, "n={n} a={a} b={b}");
            }
            assert!(o.iter().all(|&w| w <= 1.0));
        }
    }

    #[test]
    fn far_tails_underflow() {
        let (mut d, mut o) = (Vec::new(), Vec::new());
        let first = weights(200_000, 50_001.0, 50_001.0, &mut d, &mut o).unwrap();
        assert!(first > 0 && o.len() < 100_000, "first={first} len={}", o.len());
    }
}
