//! Credit vectors: every finite-bank and Beta-posterior metric scores a bank
//! of k draws with j successes by `A_j`. One representation serves them all;
//! the constant and step shapes are detected (from the values, as scorio
//! does) so that they take the cheap tail-sum path.

use crate::error::{Error, Result};

#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `A_j = a` for every j.
    Constant(f64),
    /// `A_j = 1{j >= t}` with `1 <= t <= k`.
    Step(u64),
    /// Any other vector `A_0..=A_k`.
    General(Vec<f64>),
}

/// A credit vector of degree `k` (k draws, so k + 1 entries).
#[derive(Clone, Debug, PartialEq)]
pub struct Credit {
    pub k: u64,
    pub shape: Shape,
}

impl Credit {
    /// Classify explicit values `A_0..=A_k` as constant, step or general.
    pub fn from_values(values: Vec<f64>) -> Result<Self> {
        if values.is_empty() {
            return Err(Error::value("a credit vector needs at least one entry"));
        }
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Error::FloatingPoint("credit vector must be finite".into()));
        }
        let k = (values.len() - 1) as u64;
        let a0 = values[0];
        let shape = if values.iter().all(|&v| v == a0) {
            Shape::Constant(a0)
        } else if let Some(t) = step_point(&values) {
            Shape::Step(t)
        } else {
            Shape::General(values)
        };
        Ok(Credit { k, shape })
    }

    /// `1{j >= t}`; `t` is clamped to `1..=k` callers validate beforehand.
    pub fn step(k: u64, t: u64) -> Self {
        Credit {
            k,
            shape: Shape::Step(t.clamp(1, k.max(1))),
        }
    }

    /// Pass@k: at least one success.
    pub fn pass(k: u64) -> Self {
        Self::step(k, 1)
    }

    /// Pass^k: all k succeed.
    pub fn unanimous(k: u64) -> Self {
        Self::step(k, k)
    }

    /// Maj@k: a strict majority, at least floor(k/2) + 1 successes.
    pub fn majority(k: u64) -> Self {
        Self::step(k, k / 2 + 1)
    }

    /// G-Pass@k_tau: at least `j0(tau, k)` successes (see `tau_threshold`).
    pub fn tau(k: u64, tau: f64) -> Self {
        Self::step(k, tau_threshold(tau, k))
    }

    /// mG-Pass@k: `A_j = fl(2/k) * max(j - ceil(k/2), 0)`, one rounding per entry.
    pub fn mg(k: u64) -> Self {
        let m = k.div_ceil(2);
        let step = 2.0 / k as f64;
        let values: Vec<f64> = (0..=k).map(|j| step * j.saturating_sub(m) as f64).collect();
        Self::from_values(values).expect("finite mG credit")
    }

    /// The threshold spectrum: `A_0 = 0`, `A_j` the running (left to right)
    /// float sum of `weights[..j]`.
    pub fn spectrum(weights: &[f64]) -> Result<Self> {
        let mut values = Vec::with_capacity(weights.len() + 1);
        let mut acc = 0.0;
        values.push(0.0);
        for &w in weights {
            acc += w;
            values.push(acc);
        }
        Self::from_values(values)
    }

    /// AUC@k: the trapezoid mean of Pass@1..Pass@k over a bank of size k with
    /// s successes, in closed form (O(k) in all):
    /// `A_s = 1 - (k-s)(2k-s-1) / (2k(s+1)(k-1))` for s >= 1, `A_0 = 0`;
    /// k = 1 is Pass@1.
    pub fn auc(k: u64) -> Self {
        if k <= 1 {
            return Self::pass(k.max(1));
        }
        let kk = k as i128;
        let values: Vec<f64> = (0..=k)
            .map(|s| {
                if s == 0 {
                    return 0.0;
                }
                let s = s as i128;
                let den = 2 * kk * (s + 1) * (kk - 1);
                let num = den - (kk - s) * (2 * kk - s - 1);
                num as f64 / den as f64
            })
            .collect();
        Self::from_values(values).expect("finite AUC credit")
    }

    /// The dense values `A_0..=A_k`.
    pub fn values(&self) -> Vec<f64> {
        match &self.shape {
            Shape::Constant(a) => vec![*a; self.k as usize + 1],
            Shape::Step(t) => (0..=self.k).map(|j| (j >= *t) as u8 as f64).collect(),
            Shape::General(v) => v.clone(),
        }
    }
}

/// `Some(t)` if `values` is `0, ..., 0, 1, ..., 1` with its first 1 at t >= 1.
fn step_point(values: &[f64]) -> Option<u64> {
    if values[0] != 0.0 {
        return None;
    }
    let t = values.iter().position(|&v| v != 0.0)?;
    values[t..].iter().all(|&v| v == 1.0).then_some(t as u64)
}

/// The G-Pass threshold j0(tau, k): the smallest j whose double `j/k` is
/// `>= tau`, at least 1. Bit-for-bit scorio's rule: `j = floor(fl(tau*k))`,
/// plus one if `tau > fl(j/k)`.
pub fn tau_threshold(tau: f64, k: u64) -> u64 {
    let kf = k as f64;
    let mut j = (tau * kf).floor();
    if tau > j / kf {
        j += 1.0;
    }
    if j < 1.0 {
        1
    } else {
        (j as u64).min(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::choose;

    #[test]
    fn tau_threshold_follows_float_rule() {
        assert_eq!(tau_threshold(0.3, 10), 3);
        assert_eq!(tau_threshold(0.31, 10), 4);
        assert_eq!(tau_threshold(0.0, 10), 1);
        assert_eq!(tau_threshold(1.0, 7), 7);
        assert_eq!(tau_threshold(0.5, 3), 2);
    }

    #[test]
    fn shapes_are_detected() {
        assert_eq!(Credit::spectrum(&[0.0, 1.0, 0.0]).unwrap().shape, Shape::Step(2));
        assert_eq!(Credit::spectrum(&[0.0, 0.0]).unwrap().shape, Shape::Constant(0.0));
        assert_eq!(Credit::mg(1).shape, Shape::Constant(0.0));
        assert!(matches!(Credit::mg(4).shape, Shape::General(_)));
        assert_eq!(Credit::majority(4).shape, Shape::Step(3));
    }

    #[test]
    fn auc_closed_form_matches_trapezoid_of_pass_curve() {
        // Direct O(k^2) definition with exact small binomials.
        for k in 2..12u64 {
            let a = Credit::auc(k).values();
            for s in 0..=k {
                let mut direct = 0.0;
                for j in 1..=k {
                    let cj = if j == 1 || j == k { 0.5 } else { 1.0 } / (k - 1) as f64;
                    direct += cj * (1.0 - choose(k - s, j) / choose(k, j));
                }
                assert!((a[s as usize] - direct).abs() < 1e-15, "k={k} s={s}");
            }
        }
    }
}
