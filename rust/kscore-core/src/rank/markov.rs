//! The stationary distribution of an irreducible Markov chain, exactly to
//! rounding: the Grassmann-Taksar-Heyman elimination (Grassmann, Taksar &
//! Heyman 1985, Operations Research 33(5)), which adds and divides only
//! non-negative numbers (no cancellation, whatever the chain's mixing time),
//! in n^3 / 3 multiply-adds.
//!
//! scorio's Rank Centrality runs a power iteration until two iterates are
//! within `tol` (1e-12) in L1, which leaves it about `tol / (1 - lambda_2)`
//! from this fixed point.

use crate::error::{Error, Result};

/// The stationary distribution pi (pi P = pi, sum 1) of the row-stochastic
/// matrix `p` (n x n, row-major; the diagonal is not read: it is one minus
/// the rest of its row). The chain must be irreducible.
pub fn stationary(p: &[f64], n: usize) -> Result<Vec<f64>> {
    if p.len() != n * n {
        return Err(Error::value("stationary: the matrix must be n x n"));
    }
    if n == 0 {
        return Ok(Vec::new());
    }
    let mut a = p.to_vec();
    for k in (1..n).rev() {
        // Leaving state k for a state below it: what k's removal reroutes.
        let s: f64 = a[k * n..k * n + k].iter().sum();
        if s.is_nan() || s <= 0.0 || !s.is_finite() {
            return Err(Error::value("stationary: the chain is not irreducible"));
        }
        for i in 0..k {
            a[i * n + k] /= s;
        }
        for i in 0..k {
            let aik = a[i * n + k];
            if aik == 0.0 {
                continue;
            }
            for j in 0..k {
                a[i * n + j] += aik * a[k * n + j];
            }
        }
    }
    let mut pi = vec![0.0; n];
    pi[0] = 1.0;
    for j in 1..n {
        pi[j] = (0..j).map(|i| pi[i] * a[i * n + j]).sum();
    }
    let total: f64 = pi.iter().sum();
    for x in &mut pi {
        *x /= total;
    }
    Ok(pi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_a_long_power_iteration() {
        let n = 7;
        let mut x = 12345u64;
        let mut p = vec![0.0; n * n];
        for i in 0..n {
            let mut row = 0.0;
            for j in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // some zero transitions, the chain still irreducible through the cycle
                let v = if x.is_multiple_of(3) && j != (i + 1) % n {
                    0.0
                } else {
                    (x % 1000) as f64 + 1.0
                };
                p[i * n + j] = v;
                row += v;
            }
            for j in 0..n {
                p[i * n + j] /= row;
            }
        }
        let pi = stationary(&p, n).unwrap();
        let mut v = vec![1.0 / n as f64; n];
        for _ in 0..20_000 {
            let mut next = vec![0.0; n];
            for i in 0..n {
                for j in 0..n {
                    next[j] += v[i] * p[i * n + j];
                }
            }
            v = next;
        }
        for j in 0..n {
            assert!((pi[j] - v[j]).abs() < 1e-14, "{pi:?} {v:?}");
        }
        assert!((pi.iter().sum::<f64>() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn reducible_chains_are_refused() {
        // State 1 never leaves to state 0.
        let p = vec![0.5, 0.5, 0.0, 1.0];
        assert!(stationary(&p, 2).is_err());
    }
}
