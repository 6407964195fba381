//! Double-double accumulation (Dekker; no FMA needed): sums of products
//! carried to about 2^-104 of their largest term, for results that are a
//! difference of two large sums (the Bayes@N variance from count moments,
//! docs/kernels.md K11).

/// An unevaluated sum `hi + lo` with `|lo| <= ulp(hi) / 2`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Dd {
    hi: f64,
    lo: f64,
}

/// `a + b = s + e` exactly.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `a = hi + lo` with both halves of 26 bits (Veltkamp's split).
#[inline]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a * b = p + e` exactly (Dekker), for products far from overflow.
#[inline]
pub fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

impl Dd {
    pub fn new() -> Self {
        Self::default()
    }

    /// Add `x`.
    #[inline]
    pub fn add(&mut self, x: f64) {
        let (s, e) = two_sum(self.hi, x);
        let (hi, lo) = two_sum(s, e + self.lo);
        self.hi = hi;
        self.lo = lo;
    }

    /// Add `a * b * k` for floats `a`, `b` and an integer `k` (below 2^106).
    #[inline]
    pub fn add_product(&mut self, a: f64, b: f64, k: u128) {
        let (p, e) = two_prod(a, b);
        let k1 = k as f64;
        let k2 = (k as i128 - k1 as i128) as f64;
        let (q, r) = two_prod(p, k1);
        self.add(q);
        self.add(r + p * k2 + e * k1);
    }

    /// The nearest float to the sum.
    pub fn value(&self) -> f64 {
        self.hi + self.lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancellation_keeps_the_small_difference() {
        // (1 + 2^-60) - 1 is lost in f64 sums and kept here.
        let mut d = Dd::new();
        d.add(1.0);
        d.add(2f64.powi(-60));
        d.add(-1.0);
        assert_eq!(d.value(), 2f64.powi(-60));
    }

    #[test]
    fn products_with_large_integers_are_exact_enough() {
        // 0.1 * 0.3 * (2^60 + 1) - 0.1 * 0.3 * 2^60 = 0.1 * 0.3 (to double-double accuracy).
        let mut d = Dd::new();
        d.add_product(0.1, 0.3, (1u128 << 60) + 1);
        d.add_product(-0.1, 0.3, 1u128 << 60);
        let (p, e) = two_prod(0.1, 0.3);
        assert!((d.value() - (p + e)).abs() <= 1e-30 + 1e-12 * (p + e));
        assert_eq!(two_prod(3.0, 7.0), (21.0, 0.0));
    }
}
