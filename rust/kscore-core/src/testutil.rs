//! Helpers shared by the unit tests.

/// Binomial coefficient C(n, r) as a float (0 when r > n); exact for the
/// small arguments the tests use.
pub fn choose(n: u64, r: u64) -> f64 {
    if r > n {
        return 0.0;
    }
    (0..r).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64)
}
