//! Dense symmetric linear algebra for the Newton solvers: Cholesky factor,
//! solves, and the constrained inverse. Row-major `n x n` matrices; only
//! the lower triangle is read.

/// Dot product of two equal-length slices in four lanes (vectorises; the
/// order of the sum is fixed, so results are deterministic).
#[inline]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut lanes = [0.0f64; 4];
    let mut ca = a.chunks_exact(4);
    let mut cb = b.chunks_exact(4);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for k in 0..4 {
            lanes[k] += x[k] * y[k];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ca.remainder().iter().zip(cb.remainder()) {
        tail += x * y;
    }
    (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]) + tail
}

/// Replace the lower triangle of `a` (`n x n`) by its Cholesky factor `L`
/// (`a = L L^T`). False when a pivot is not positive and finite: `a` is not
/// positive definite to working precision (its contents are then spoiled).
pub fn cholesky(a: &mut [f64], n: usize) -> bool {
    for i in 0..n {
        let (done, rest) = a.split_at_mut(i * n);
        let row_i = &mut rest[..n];
        for j in 0..i {
            let row_j = &done[j * n..j * n + j];
            let s = row_i[j] - dot(&row_i[..j], row_j);
            row_i[j] = s / done[j * n + j];
        }
        let d = row_i[i] - dot(&row_i[..i], &row_i[..i]);
        if !(d > 0.0 && d.is_finite()) {
            return false;
        }
        row_i[i] = d.sqrt();
    }
    true
}

/// Solve `L L^T x = b` in place, with `l` from [`cholesky`].
pub fn solve(l: &[f64], n: usize, b: &mut [f64]) {
    for i in 0..n {
        let s = b[i] - dot(&l[i * n..i * n + i], &b[..i]);
        b[i] = s / l[i * n + i];
    }
    for i in (0..n).rev() {
        let mut s = b[i];
        for k in i + 1..n {
            s -= l[k * n + i] * b[k];
        }
        b[i] = s / l[i * n + i];
    }
}

/// The inverse of the factored matrix (`l` from [`cholesky`]), full and
/// symmetric, row-major.
pub fn inverse(l: &[f64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * n];
    let mut col = vec![0.0; n];
    for c in 0..n {
        col.iter_mut().for_each(|v| *v = 0.0);
        col[c] = 1.0;
        solve(l, n, &mut col);
        for r in 0..n {
            out[r * n + c] = col[r];
        }
    }
    // Exactly symmetric (the two triangular solves round differently).
    for r in 0..n {
        for c in 0..r {
            let m = 0.5 * (out[r * n + c] + out[c * n + r]);
            out[r * n + c] = m;
            out[c * n + r] = m;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_a_known_system() {
        // A = M M^T + I for a fixed M: positive definite.
        let n = 7;
        let m: Vec<f64> = (0..n * n).map(|k| ((k * 37 % 11) as f64 - 5.0) / 3.0).collect();
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] =
                    (0..n).map(|k| m[i * n + k] * m[j * n + k]).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        let x: Vec<f64> = (0..n).map(|k| k as f64 - 2.5).collect();
        let mut b: Vec<f64> = (0..n).map(|i| (0..n).map(|j| a[i * n + j] * x[j]).sum()).collect();
        let mut l = a.clone();
        assert!(cholesky(&mut l, n));
        solve(&l, n, &mut b);
        for (got, want) in b.iter().zip(&x) {
            assert!((got - want).abs() < 1e-10, "{got} {want}");
        }
        let inv = inverse(&l, n);
        for i in 0..n {
            for j in 0..n {
                let e: f64 = (0..n).map(|k| a[i * n + k] * inv[k * n + j]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((e - want).abs() < 1e-10);
            }
        }
    }

    #[test]
    fn cholesky_refuses_an_indefinite_matrix() {
        let mut a = vec![1.0, 2.0, 2.0, 1.0];
        assert!(!cholesky(&mut a, 2));
    }
}
