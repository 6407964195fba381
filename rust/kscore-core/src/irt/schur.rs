//! One Newton step of `dynamic_irt`'s longitudinal fits (`"growth"`,
//! `"state_space"`) with the difficulties eliminated: the ability side's
//! Schur complement `S = A - B D^-1 B^T + u u^T / kappa` (`D` the
//! difficulties' diagonal Hessian, `u = B D^-1 1`, `kappa = sum 1/D`: the
//! centring's multiplier eliminated too), factored by Cholesky and solved.
//!
//! Why in the core: the system is small (`2 L` or `L N` unknowns) but the
//! product `B D^-1 B^T` reads every question, and a threaded BLAS on small
//! matrices costs more in hand-offs than in arithmetic (100x on a loaded
//! machine). Here the rows of `S` are dot products of contiguous rows,
//! split over the pool by rows.

use rayon::prelude::*;

use crate::pairwise::dense::{cholesky, dot, solve};
use crate::par;

/// The ability-side step `dp` of the eliminated KKT system, from the
/// ability Hessian `a` (`p x p`), the cross block `b` (`p x m`), the
/// difficulties' diagonal `dg` (`m`, positive) and the gradients `gp`
/// (`p`), `gb` (`m`): `S dp = -gp + B D^-1 gb - u (1^T D^-1 gb) / kappa`.
/// None when `S` is not positive definite to working precision (the
/// caller then takes a least-squares step).
pub fn eliminated_step(a: &[f64], b: &[f64], dg: &[f64], gp: &[f64], gb: &[f64]) -> Option<Vec<f64>> {
    let (p, m) = (gp.len(), gb.len());
    debug_assert!(a.len() == p * p && b.len() == p * m && dg.len() == m);
    let inv: Vec<f64> = dg.iter().map(|d| 1.0 / d).collect();
    let kappa: f64 = inv.iter().sum();
    // Rows of B D^-1.
    let mut bd = vec![0.0; p * m];
    for (row, src) in bd.chunks_exact_mut(m.max(1)).zip(b.chunks_exact(m.max(1))) {
        for ((o, &x), &w) in row.iter_mut().zip(src).zip(&inv) {
            *o = x * w;
        }
    }
    let ones = vec![1.0; m];
    let u: Vec<f64> = (0..p).map(|i| dot(&bd[i * m..(i + 1) * m], &ones)).collect();
    let mut s = vec![0.0; p * p];
    s.par_chunks_mut(p.max(1))
        .enumerate()
        .with_min_len(par::min_len(p * m / 2 + 1))
        .for_each(|(i, row)| {
            let bdi = &bd[i * m..(i + 1) * m];
            for j in 0..=i {
                let g = dot(bdi, &b[j * m..(j + 1) * m]);
                row[j] = (a[i * p + j] - g) + u[i] * u[j] / kappa;
            }
        });
    let ig = dot(&inv, gb);
    let mut rhs: Vec<f64> = (0..p)
        .map(|i| (-gp[i] + dot(&bd[i * m..(i + 1) * m], gb)) - u[i] * ig / kappa)
        .collect();
    if !cholesky(&mut s, p) {
        return None;
    }
    solve(&s, p, &mut rhs);
    Some(rhs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_step_solves_the_full_kkt_system() {
        // p = 3 abilities, m = 5 difficulties with sum(db) = 0: the step
        // (dp, db, lambda) must solve [[A, B, 0], [B^T, D, 1], [0, 1^T, 0]]
        // (dp, db, lambda) = (-gp, -gb, 0).
        let (p, m) = (3, 5);
        let mut state = 11u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let b: Vec<f64> = (0..p * m).map(|_| next()).collect();
        let dg: Vec<f64> = (0..m).map(|_| 2.0 + next()).collect();
        let mut a = vec![0.0; p * p];
        for i in 0..p {
            for j in 0..p {
                // A = B D^-1 B^T + 2 I + a small symmetric part: S positive definite.
                a[i * p + j] = (0..m).map(|k| b[i * m + k] * b[j * m + k] / dg[k]).sum::<f64>()
                    + if i == j { 2.0 } else { 0.1 * ((i + j) as f64) };
            }
        }
        let gp: Vec<f64> = (0..p).map(|_| next()).collect();
        let gb: Vec<f64> = (0..m).map(|_| next()).collect();
        let dp = eliminated_step(&a, &b, &dg, &gp, &gb).unwrap();
        // Recover db and lambda as the Python side does, then check every equation.
        let w: Vec<f64> = (0..m)
            .map(|k| -gb[k] - (0..p).map(|i| b[i * m + k] * dp[i]).sum::<f64>())
            .collect();
        let inv: Vec<f64> = dg.iter().map(|d| 1.0 / d).collect();
        let kappa: f64 = inv.iter().sum();
        let iw: f64 = inv.iter().zip(&w).map(|(a, b)| a * b).sum();
        let db: Vec<f64> = (0..m).map(|k| inv[k] * w[k] - inv[k] * iw / kappa).collect();
        let lambda = iw / kappa;
        for i in 0..p {
            let r: f64 = (0..p).map(|j| a[i * p + j] * dp[j]).sum::<f64>()
                + (0..m).map(|k| b[i * m + k] * db[k]).sum::<f64>()
                + gp[i];
            assert!(r.abs() < 1e-12, "row {i}: {r}");
        }
        for k in 0..m {
            let r = (0..p).map(|i| b[i * m + k] * dp[i]).sum::<f64>() + dg[k] * db[k] + lambda + gb[k];
            assert!(r.abs() < 1e-12, "column {k}: {r}");
        }
        assert!(db.iter().sum::<f64>().abs() < 1e-12);
        // Not positive definite: None.
        let neg: Vec<f64> = a.iter().map(|v| -v).collect();
        assert!(eliminated_step(&neg, &b, &dg, &gp, &gb).is_none());
    }
}
