//! Dense symmetric matrices (row-major `n x n`): Cholesky factor, solve,
//! inverse and products, enough for Newton steps and sandwiches on boards
//! of up to a few thousand models. Rows of long loops go to rayon above
//! the parallel grain (`par`); every sum keeps a fixed order.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par;

/// Overwrites the lower triangle of `a` with `L` (`a = L L^T`); fails if
/// `a` is not positive definite (to rounding).
pub fn cholesky(a: &mut [f64], n: usize) -> Result<()> {
    for j in 0..n {
        let (_, tail) = a.split_at_mut(j * n);
        let (row_j, rest) = tail.split_at_mut(n);
        let mut d = row_j[j];
        for v in &row_j[..j] {
            d -= v * v;
        }
        if d.is_nan() || d <= 0.0 {
            return Err(Error::FloatingPoint(format!("matrix not positive definite at row {j}")));
        }
        let d = d.sqrt();
        row_j[j] = d;
        let rj: &[f64] = &row_j[..j];
        let update = |row_i: &mut [f64]| {
            let mut s = row_i[j];
            for (x, y) in row_i[..j].iter().zip(rj) {
                s -= x * y;
            }
            row_i[j] = s / d;
        };
        let rows = n - j - 1;
        if par::worth_splitting(rows * j * 2) {
            rest.par_chunks_mut(n)
                .with_min_len(par::min_len(2 * j.max(1)))
                .for_each(update);
        } else {
            rest.chunks_mut(n).for_each(update);
        }
    }
    Ok(())
}

/// Solves `L L^T x = b` in place (`l` from `cholesky`).
pub fn solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let s: f64 = row.iter().zip(&b[..i]).map(|(x, y)| x * y).sum();
        b[i] = (b[i] - s) / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// `a^{-1}` of a positive definite `a` (full symmetric result), as
/// `X^T X` with `X = L^{-1}` (rows of `X` built one from the previous:
/// contiguous row operations throughout).
pub fn inverse(a: &[f64], n: usize) -> Result<Vec<f64>> {
    let mut l = a.to_vec();
    cholesky(&mut l, n)?;
    let mut x = vec![0.0; n * n];
    for i in 0..n {
        let (done, rest) = x.split_at_mut(i * n);
        let row = &mut rest[..n];
        row[i] = 1.0;
        for k in 0..i {
            let c = l[i * n + k];
            if c != 0.0 {
                for (r, v) in row[..=k].iter_mut().zip(&done[k * n..k * n + k + 1]) {
                    *r -= c * v;
                }
            }
        }
        let d = l[i * n + i];
        row[..=i].iter_mut().for_each(|v| *v /= d);
    }
    // a^{-1} = X^T X: row i is sum_k X[k][i] X[k][..], k >= i
    let mut inv = vec![0.0; n * n];
    let body = |(i, out): (usize, &mut [f64])| {
        for k in i..n {
            let c = x[k * n + i];
            if c != 0.0 {
                for (o, v) in out[..=k].iter_mut().zip(&x[k * n..k * n + k + 1]) {
                    *o += c * v;
                }
            }
        }
    };
    if par::worth_splitting(n * n * n / 2) {
        inv.par_chunks_mut(n)
            .enumerate()
            .with_min_len(par::min_len(n * n / 2))
            .for_each(body);
    } else {
        inv.chunks_mut(n).enumerate().for_each(body);
    }
    Ok(inv)
}

/// `a b` for `n x n` matrices.
pub fn matmul(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    let body = |(i, row): (usize, &mut [f64])| {
        for (k, &x) in a[i * n..(i + 1) * n].iter().enumerate() {
            if x != 0.0 {
                for (r, y) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                    *r += x * y;
                }
            }
        }
    };
    if par::worth_splitting(n * n * n) {
        c.par_chunks_mut(n)
            .enumerate()
            .with_min_len(par::min_len(n * n))
            .for_each(body);
    } else {
        c.chunks_mut(n).enumerate().for_each(body);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_a_small_matrix() {
        let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.2, 0.5, 0.2, 2.0];
        let inv = inverse(&a, 3).expect("positive definite");
        let id = matmul(&a, &inv, 3);
        for i in 0..3 {
            for j in 0..3 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((id[i * 3 + j] - want).abs() < 1e-14, "{id:?}");
            }
        }
        let mut not_pd = [1.0, 2.0, 2.0, 1.0];
        assert!(cholesky(&mut not_pd, 2).is_err());
    }
}
