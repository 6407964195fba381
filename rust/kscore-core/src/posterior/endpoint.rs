//! Closed forms for the two endpoint credits under p ~ Beta(a, b) (docs/kernels.md, K7):
//! Pass@k, `g = 1 - q^k` with q = 1 - p ~ Beta(b, a), and Unanimous@k,
//! `g = p^k`, plus their covariance. No Bernstein product is needed.
//!
//! Means follow scorio: `log E[p^n] = sum_j -log1p(b / (a + j))` (terms of
//! one sign, compensated sum).
//! Variances and the covariance use the *ratio* forms, which have no
//! cancellation (scorio's log-difference form loses relative accuracy
//! roughly linearly in N; the two agree within the parity tolerance):
//! `E[p^2k] / E[p^k]^2 = prod_{j<k} (1 + k b / ((a + j)(a + b + k + j)))` and
//! `E[p^u] E[q^v] / E[p^u q^v] = prod_{j<min(u,v)} (1 + max(u,v) / (a + b + j))`.

use crate::numeric::sum::Neumaier;
use crate::posterior::beta_moments::log_power_moments;

/// `log E[p^n]` for p ~ Beta(a, b).
pub fn log_power_moment(a: f64, b: f64, n: u64) -> f64 {
    log_power_moments(a, b, n, n, &mut Neumaier::new()).0
}

/// `(log E[p^k], log E[p^2k])` sharing the first k terms.
pub fn log_power_moments_k_2k(a: f64, b: f64, k: u64) -> (f64, f64) {
    log_power_moments(a, b, k, 2 * k, &mut Neumaier::new())
}

/// `Var(p^k)` for p ~ Beta(a, b), given `l2 = log E[p^2k]`:
/// `exp(l2) * (1 - 1/prod_j (1 + (k/(a+j)) (b/(a+b+k+j))))`.
pub fn power_variance(a: f64, b: f64, k: u64, l2: f64) -> f64 {
    let kf = k as f64;
    let mut s = Neumaier::new();
    for j in 0..k {
        let jf = j as f64;
        let term = ((kf / (a + jf)) * (b / (a + b + kf + jf))).ln_1p();
        if term == f64::INFINITY {
            // A subnormal prior: the ratio is infinite, Var = E[p^2k].
            return l2.exp();
        }
        s.add(term);
    }
    l2.exp() * -(-s.value()).exp_m1()
}

/// Budgets up to this size may take the short product forms.
const SHORT_K: u64 = 64;

/// `prod (1 + x) - 1` of positive terms, accumulated as `P + x + P x`: every
/// step adds positive terms (no cancellation, a few ulps each), so a short
/// product keeps full relative accuracy with no logarithm per term.
#[inline]
fn excess_product(p: f64, xs: impl Iterator<Item = f64>) -> f64 {
    xs.fold(p, |p, x| p + x + p * x)
}

/// `(log E[p^k], Var(p^k))` for p ~ Beta(a, b): for small k whose products
/// stay far from overflow, from excess products (one logarithm per call
/// instead of 3k; the common small-budget interval is several times faster),
/// else from the logarithmic sums.
fn power_moments(a: f64, b: f64, k: u64) -> (f64, f64) {
    let kf = k as f64;
    // prod (1 + b/(a+j)) over 2k terms <= (1 + b/a)^(2k); the variance
    // product is smaller still. Subnormal priors (b/a infinite) fail here.
    if k <= SHORT_K && 2.0 * kf * (b / a).ln_1p() < 600.0 {
        let ratio = |j: u64| b / (a + j as f64);
        let p1 = excess_product(0.0, (0..k).map(ratio));
        let p2 = excess_product(p1, (k..2 * k).map(ratio));
        let (l1, l2) = (-p1.ln_1p(), -p2.ln_1p());
        // Var = E[p^2k] (1 - 1/prod(1 + t_j)) = E[p^2k] T / (1 + T).
        let t = excess_product(
            0.0,
            (0..k).map(|j| (kf / (a + j as f64)) * (b / (a + b + kf + j as f64))),
        );
        // A subnormal prior makes k / a infinite: the log path's limit.
        if t.is_finite() {
            return (l1, l2.exp() * (t / (1.0 + t)));
        }
    }
    let (l1, l2) = log_power_moments_k_2k(a, b, k);
    (l1, power_variance(a, b, k, l2))
}

/// Mean and variance of Unanimous@k, `p^k`, for p ~ Beta(a, b); also
/// returns `log E[p^k]`.
pub fn unanimous(a: f64, b: f64, k: u64) -> (f64, f64, f64) {
    let (l1, var) = power_moments(a, b, k);
    (l1.exp(), var, l1)
}

/// Mean and variance of Pass@k, `1 - q^k` with q ~ Beta(b, a); also returns
/// `log E[q^k]`.
pub fn pass(a: f64, b: f64, k: u64) -> (f64, f64, f64) {
    let (l1, var) = power_moments(b, a, k);
    (-l1.exp_m1(), var, l1)
}

/// `Cov(1 - q^v, p^u) = E[p^u] E[q^v] - E[p^u q^v]` (always >= 0), given
/// `log_p = log E[p^u]` and `log_q = log E[q^v]`.
pub fn pass_unanimous_covariance(a: f64, b: f64, u: u64, v: u64, log_p: f64, log_q: f64) -> f64 {
    let (short, long) = (u.min(v), u.max(v) as f64);
    let s = a + b;
    let mut acc = Neumaier::new();
    for j in 0..short {
        let term = (long / (s + j as f64)).ln_1p();
        if term == f64::INFINITY {
            return (log_p + log_q).exp();
        }
        acc.add(term);
    }
    (log_p + log_q).exp() * -(-acc.value()).exp_m1()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_match_rational_forms() {
        // p ~ Beta(2, 3): E[p] = 2/5, E[p^2] = 2*3/(5*6) = 1/5, Var = 1/25.
        let (m, v, _) = unanimous(2.0, 3.0, 1);
        assert!((m - 0.4).abs() < 1e-16 && (v - 0.04).abs() < 1e-17);
        // Pass@1 is the same target.
        let (m2, v2, _) = pass(2.0, 3.0, 1);
        assert!((m2 - 0.4).abs() < 1e-16 && (v2 - 0.04).abs() < 1e-17);
        // Cov(p, p) = Var(p) at u = v = 1.
        let lp = log_power_moment(2.0, 3.0, 1);
        let lq = log_power_moment(3.0, 2.0, 1);
        let c = pass_unanimous_covariance(2.0, 3.0, 1, 1, lp, lq);
        assert!((c - 0.04).abs() < 1e-17);
        // E[p^2] for Beta(2,3) = 1/5; E[p^4] = 2*3*4*5/(5*6*7*8) = 1/14.
        let (m, v, _) = unanimous(2.0, 3.0, 2);
        assert!((m - 0.2).abs() < 1e-16);
        assert!((v - (1.0 / 14.0 - 0.04)).abs() < 1e-16);
    }

    #[test]
    fn short_products_match_the_log_sums() {
        for &(a, b) in &[
            (1.0, 1.0),
            (0.1, 10.0),
            (65.0, 1.0),
            (1.0, 65.0),
            (3.5, 4096.0),
            (4096.0, 0.5),
            (1e-3, 1e-3),
        ] {
            for k in 1..=SHORT_K {
                let (l1, l2) = log_power_moments_k_2k(a, b, k);
                let var = power_variance(a, b, k, l2);
                let (s1, svar) = power_moments(a, b, k);
                assert!(
                    (s1 - l1).abs() <= 1e-14 * l1.abs().max(1e-300),
                    "a={a} b={b} k={k}: {s1} vs {l1}"
                );
                assert!((svar - var).abs() <= 1e-13 * var, "a={a} b={b} k={k}: {svar} vs {var}");
            }
        }
    }

    #[test]
    fn subnormal_priors_stay_finite() {
        for &(a, b) in &[(1e-320, 3.0), (3.0, 1e-320), (1e-320, 1e-320)] {
            let (m, v, _) = unanimous(a, b, 3);
            let (m2, v2, _) = pass(a, b, 3);
            assert!(
                m.is_finite() && v.is_finite() && m2.is_finite() && v2.is_finite(),
                "{a} {b}"
            );
            let c = pass_unanimous_covariance(a, b, 3, 3, log_power_moment(a, b, 3), log_power_moment(b, a, 3));
            assert!(c.is_finite() && c >= 0.0);
        }
    }
}
