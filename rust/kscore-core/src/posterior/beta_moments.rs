//! Log power moments of a Beta variable: `log E[p^n]` for p ~ Beta(a, b) is
//! `sum_{j<n} log((a + j) / (a + b + j))` (docs/kernels.md, K7). The one
//! definition behind the endpoint closed forms (Pass@k, Unanimous@k) and the
//! latent Max@k posterior; each caller picks its summation.

use crate::numeric::sum::{Fsum, Neumaier};

/// A running sum the terms accumulate into (compensated or exact).
pub trait Accumulator {
    fn add(&mut self, x: f64);
    fn value(&self) -> f64;
}

impl Accumulator for Neumaier {
    fn add(&mut self, x: f64) {
        Neumaier::add(self, x)
    }
    fn value(&self) -> f64 {
        Neumaier::value(self)
    }
}

impl Accumulator for Fsum {
    fn add(&mut self, x: f64) {
        Fsum::add(self, x)
    }
    fn value(&self) -> f64 {
        Fsum::value(self)
    }
}

/// One term, `log((a + j) / (a + b + j)) = -log1p(b / (a + j))`: one sign,
/// accurate whether the ratio is near 1 or tiny; a subnormal `a` (infinite
/// ratio) takes the difference of logarithms.
#[inline]
fn term(a: f64, b: f64, j: u64) -> f64 {
    let num = a + j as f64;
    let r = b / num;
    if r.is_finite() {
        -r.ln_1p()
    } else {
        num.ln() - b.ln()
    }
}

/// `(log E[p^n], log E[p^m])` for `n <= m`, sharing the first n terms;
/// `acc` starts empty.
pub fn log_power_moments(a: f64, b: f64, n: u64, m: u64, acc: &mut impl Accumulator) -> (f64, f64) {
    debug_assert!(n <= m);
    for j in 0..n {
        acc.add(term(a, b, j));
    }
    let at_n = if n == 0 { 0.0 } else { acc.value() };
    for j in n..m {
        acc.add(term(a, b, j));
    }
    (at_n, if m == 0 { 0.0 } else { acc.value() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_are_beta_ratios() {
        // E[p^n] = prod_{j<n} (a + j) / (a + b + j).
        let (a, b) = (2.5, 4.0);
        let exact = |n: u64| {
            (0..n)
                .map(|j| (a + j as f64) / (a + b + j as f64))
                .product::<f64>()
                .ln()
        };
        let (l3, l7) = log_power_moments(a, b, 3, 7, &mut Neumaier::new());
        assert!((l3 - exact(3)).abs() < 1e-15 && (l7 - exact(7)).abs() < 1e-14);
        let (f3, f7) = log_power_moments(a, b, 3, 7, &mut Fsum::new());
        assert!((f3 - l3).abs() < 1e-15 && (f7 - l7).abs() < 1e-14);
        assert_eq!(log_power_moments(a, b, 0, 0, &mut Fsum::new()), (0.0, 0.0));
    }
}
