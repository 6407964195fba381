//! The 2PL and 3PL joint likelihoods on the full count matrix (scorio's
//! `_estimate_2pl_abilities` and `_estimate_3pl_abilities`, and their MAP
//! forms with the prior added by the driver).
//!
//! Cell `(l, m)` has `k` of `N` correct with probability
//! `P = c_m + (1 - c_m) sigmoid(z)`, `z = a_m (theta_l - b_m)`, `a_m =
//! exp(alpha_m)`, and costs `-k log P - (N - k) log(1 - P)` (for `c = 0`,
//! `N softplus(z) - k z`). Item parameters: `(b, alpha)`, and the guessing
//! logit `gamma` (`c = upper sigmoid(gamma)`) when guessing is estimated;
//! ridge terms `reg_d alpha^2` and `reg_g gamma^2`.
//!
//! A pass computes the value, gradient and the Fisher information's
//! diagonal blocks (the preconditioner) and keeps `sigmoid(z)` per cell
//! (float32: it only feeds Hessian-vector products, which set the Newton
//! direction, never the optimum); a Hessian-vector product is a pass over
//! the kept values with the exact second derivatives.

use super::cells::{Passes, SharedRows};
use super::newton::Model;
use super::{sigmoid, sigmoid_softplus, softplus, Count};
use crate::error::Result;

/// The guessing parameter of every item.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Guessing {
    /// 2PL: `c = 0`.
    Zero,
    /// 3PL with `c` fixed (`fix_guessing`, in `(0, 1)`).
    Fixed(f64),
    /// 3PL with `c = upper sigmoid(gamma)` estimated, ridge `reg` on `gamma`.
    Free { upper: f64, reg: f64 },
}

/// The 2PL/3PL data term over an `l x m` count matrix.
pub struct Logistic<'a, T: Count> {
    k: &'a [T],
    l: usize,
    m: usize,
    n: f64,
    guessing: Guessing,
    reg_d: f64,
    /// `sigmoid(z)` per cell at the last `eval`.
    s: Vec<f32>,
    /// Per item at the last `eval`: `a`, `c`, `dc/dgamma`, `d2c/dgamma2`.
    a: Vec<f64>,
    c: Vec<f64>,
    cg: Vec<f64>,
    cgg: Vec<f64>,
    cells: Passes,
}

impl<'a, T: Count> Logistic<'a, T> {
    /// (`Guessing::Fixed(0.0)` is the 2PL.)
    pub fn new(k: &'a [T], l: usize, m: usize, n: u32, guessing: Guessing, reg_d: f64) -> Self {
        let guessing = if guessing == Guessing::Fixed(0.0) {
            Guessing::Zero
        } else {
            guessing
        };
        Logistic {
            k,
            l,
            m,
            n: n as f64,
            guessing,
            reg_d,
            s: vec![0.0; l * m],
            a: vec![0.0; m],
            c: vec![0.0; m],
            cg: vec![0.0; m],
            cgg: vec![0.0; m],
            cells: Passes::new(l, m),
        }
    }

    fn free_c(&self) -> bool {
        matches!(self.guessing, Guessing::Free { .. })
    }

    /// Item parameters at `x` into `a`, `c`, `cg`, `cgg`.
    fn items_at(&mut self, x: &[f64]) {
        let (l, p) = (self.l, self.p());
        for i in 0..self.m {
            self.a[i] = x[l + i * p + 1].exp();
            match self.guessing {
                Guessing::Zero => {
                    self.c[i] = 0.0;
                }
                Guessing::Fixed(c) => {
                    self.c[i] = c;
                }
                Guessing::Free { upper, .. } => {
                    let u = sigmoid(x[l + i * p + 2]);
                    self.c[i] = upper * u;
                    self.cg[i] = upper * u * (1.0 - u);
                    self.cgg[i] = self.cg[i] * (1.0 - 2.0 * u);
                }
            }
        }
    }
}

impl<T: Count> Model for Logistic<'_, T> {
    fn n_theta(&self) -> usize {
        self.l
    }

    fn n_items(&self) -> usize {
        self.m
    }

    fn p(&self) -> usize {
        if self.free_c() {
            3
        } else {
            2
        }
    }

    fn eval(&mut self, x: &[f64], grad: &mut [f64], theta_diag: &mut [f64], blocks: &mut [f64]) -> Result<f64> {
        self.items_at(x);
        let (l, m, p) = (self.l, self.m, self.p());
        let q = p + p * p;
        let (k, n, guessing) = (self.k, self.n, self.guessing);
        let (a, c, cg) = (&self.a, &self.c, &self.cg);
        let free = self.free_c();
        // Split the cache by chunk so each chunk writes its own rows.
        let s_ptr = SharedRows::new(&mut self.s);
        let value = self.cells.run(m, 12, 2, m * q, |rows, out, acc| {
            let mut value = 0.0;
            for (r, row) in rows.clone().enumerate() {
                let theta = x[row];
                let (mut g_t, mut d_t) = (0.0, 0.0);
                let krow = &k[row * m..(row + 1) * m];
                // SAFETY: chunks cover disjoint rows, so each cell of the
                // cache is written by one chunk only.
                let srow = unsafe { s_ptr.row(row, m) };
                for i in 0..m {
                    let b = x[l + i * p];
                    let ai = a[i];
                    let z = ai * (theta - b);
                    let kf = krow[i].get() as f64;
                    let o = &mut acc[i * q..(i + 1) * q];
                    if guessing == Guessing::Zero {
                        let (s, sp) = sigmoid_softplus(z);
                        srow[i] = s as f32;
                        value += n * sp - kf * z;
                        let r = n * s - kf;
                        let h = n * s * (1.0 - s);
                        g_t += r * ai;
                        d_t += h * ai * ai;
                        o[0] -= r * ai;
                        o[1] += r * z;
                        o[2] += h * ai * ai;
                        o[3] -= h * ai * z;
                        o[5] += h * z * z;
                    } else {
                        let ci = c[i];
                        let (s, sp) = sigmoid_softplus(z);
                        srow[i] = s as f32;
                        let pr = ci + (1.0 - ci) * s;
                        let log_q = (-ci).ln_1p() - sp;
                        let fails = n - kf;
                        if kf > 0.0 {
                            value -= kf * pr.ln();
                        }
                        if fails > 0.0 {
                            value -= fails * log_q;
                        }
                        let rho = (1.0 - ci) * s / pr;
                        let rz = fails * s - kf * rho * (1.0 - s);
                        let izz = n * s * (1.0 - s) * rho;
                        g_t += rz * ai;
                        d_t += izz * ai * ai;
                        o[0] -= rz * ai;
                        o[1] += rz * z;
                        if free {
                            let nll_c = -kf * (1.0 - s) / pr + fails / (1.0 - ci);
                            let izc = n * s * (1.0 - s) / pr;
                            let icc = n * (1.0 - s) / (pr * (1.0 - ci));
                            let cgi = cg[i];
                            o[2] += nll_c * cgi;
                            // Fisher block over (b, alpha, gamma): rows 3.. of o.
                            let jb = -ai;
                            let ja = z;
                            o[3] += izz * jb * jb;
                            o[4] += izz * jb * ja;
                            o[5] += izc * jb * cgi;
                            o[7] += izz * ja * ja;
                            o[8] += izc * ja * cgi;
                            o[11] += icc * cgi * cgi;
                        } else {
                            o[2] += izz * ai * ai;
                            o[3] -= izz * ai * z;
                            o[5] += izz * z * z;
                        }
                    }
                }
                out[2 * r] = g_t;
                out[2 * r + 1] = d_t;
            }
            Ok(value)
        })?;
        let mut value = value;
        for j in 0..l {
            grad[j] = self.cells.rows[2 * j];
            theta_diag[j] = self.cells.rows[2 * j + 1];
        }
        for i in 0..m {
            let o = &self.cells.items[i * q..(i + 1) * q];
            let base = l + i * p;
            grad[base..base + p].copy_from_slice(&o[..p]);
            let blk = &mut blocks[i * p * p..(i + 1) * p * p];
            for a_ in 0..p {
                for b_ in a_..p {
                    let v = o[p + a_ * p + b_];
                    blk[a_ * p + b_] = v;
                    blk[b_ * p + a_] = v;
                }
            }
            let alpha = x[base + 1];
            value += self.reg_d * alpha * alpha;
            grad[base + 1] += 2.0 * self.reg_d * alpha;
            blk[p + 1] += 2.0 * self.reg_d;
            if let Guessing::Free { reg, .. } = self.guessing {
                let gamma = x[base + 2];
                value += reg * gamma * gamma;
                grad[base + 2] += 2.0 * reg * gamma;
                blk[2 * p + 2] += 2.0 * reg;
            }
        }
        Ok(value)
    }

    fn hv(&mut self, x: &[f64], v: &[f64], out: &mut [f64]) -> Result<()> {
        let (l, m, p) = (self.l, self.m, self.p());
        let (k, n, guessing) = (self.k, self.n, self.guessing);
        let (a, c, cg, cgg, s) = (&self.a, &self.c, &self.cg, &self.cgg, &self.s);
        let free = self.free_c();
        self.cells.run(m, 6, 1, m * p, |rows, out_rows, acc| {
            for (r, row) in rows.clone().enumerate() {
                let theta = x[row];
                let vt = v[row];
                let mut o_t = 0.0;
                let krow = &k[row * m..(row + 1) * m];
                let srow = &s[row * m..(row + 1) * m];
                for i in 0..m {
                    let base = l + i * p;
                    let ai = a[i];
                    let z = ai * (theta - x[base]);
                    let si = srow[i] as f64;
                    let kf = krow[i].get() as f64;
                    let (vb, va) = (v[base], v[base + 1]);
                    let jv = ai * (vt - vb) + z * va;
                    let o = &mut acc[i * p..(i + 1) * p];
                    if guessing == Guessing::Zero {
                        let h = n * si * (1.0 - si);
                        let r = n * si - kf;
                        let t = h * ai * jv + r * ai * va;
                        o_t += t;
                        o[0] -= t;
                        o[1] += (h * z + r) * jv;
                    } else {
                        let ci = c[i];
                        let pr = ci + (1.0 - ci) * si;
                        let rho = (1.0 - ci) * si / pr;
                        let fails = n - kf;
                        let zz =
                            fails * si * (1.0 - si) + kf * rho * (1.0 - si) * (rho * (1.0 - si) - (1.0 - 2.0 * si));
                        let rz = fails * si - kf * rho * (1.0 - si);
                        let mut tz = zz * jv;
                        if free {
                            let vg = v[base + 2];
                            let cgi = cg[i];
                            let zc = kf * (1.0 - si) * (rho * (1.0 - si) + si) / pr;
                            let cc = kf * (1.0 - si) * (1.0 - si) / (pr * pr) + fails / ((1.0 - ci) * (1.0 - ci));
                            let nll_c = -kf * (1.0 - si) / pr + fails / (1.0 - ci);
                            tz += zc * cgi * vg;
                            o[2] += cgi * (zc * jv + cc * cgi * vg) + nll_c * cgg[i] * vg;
                        }
                        let t = ai * tz + rz * ai * va;
                        o_t += t;
                        o[0] -= t;
                        o[1] += z * tz + rz * jv;
                    }
                }
                out_rows[r] = o_t;
            }
            Ok(0.0)
        })?;
        out[..l].copy_from_slice(&self.cells.rows[..l]);
        for i in 0..m {
            let base = l + i * p;
            for t in 0..p {
                out[base + t] = self.cells.items[i * p + t];
            }
            out[base + 1] += 2.0 * self.reg_d * v[base + 1];
            if let Guessing::Free { reg, .. } = self.guessing {
                out[base + 2] += 2.0 * reg * v[base + 2];
            }
        }
        Ok(())
    }
}

/// The 2PL/3PL objective of scorio at `x` (value only), for tests.
pub fn value_of<T: Count>(k: &[T], l: usize, m: usize, n: u32, guessing: Guessing, reg_d: f64, x: &[f64]) -> f64 {
    let p = if matches!(guessing, Guessing::Free { .. }) {
        3
    } else {
        2
    };
    let n = n as f64;
    let mut v = 0.0;
    for row in 0..l {
        for i in 0..m {
            let b = x[l + i * p];
            let a = x[l + i * p + 1].exp();
            let z = a * (x[row] - b);
            let kf = k[row * m + i].get() as f64;
            let c = match guessing {
                Guessing::Zero => 0.0,
                Guessing::Fixed(c) => c,
                Guessing::Free { upper, .. } => upper * sigmoid(x[l + i * p + 2]),
            };
            if c == 0.0 {
                v += n * softplus(z) - kf * z;
            } else {
                let pr = c + (1.0 - c) * sigmoid(z);
                v -= kf * pr.ln() + (n - kf) * ((-c).ln_1p() - softplus(z));
            }
        }
    }
    for i in 0..m {
        let alpha = x[l + i * p + 1];
        v += reg_d * alpha * alpha;
        if let Guessing::Free { reg, .. } = guessing {
            v += reg * x[l + i * p + 2].powi(2);
        }
    }
    v
}
