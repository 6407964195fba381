//! The Rasch (1PL) joint likelihood on grouped totals (scorio's
//! `_estimate_rasch_abilities` and `_estimate_rasch_abilities_map`).
//!
//! `-log L = sum_lm N softplus(theta_l - b_m) - sum_l r_l theta_l +
//! sum_m c_m b_m` depends on the counts only through the row totals `r`
//! and column totals `c`, and models (items) with equal totals have equal
//! parameters at the optimum. So the fit runs on groups: `G` distinct
//! ability groups (models with one total, or one model each where the
//! prior tells them apart) and `H` distinct difficulty groups, cell `(g, h)`
//! weighted by its `n_g m_h` cells. On a 5,000 x 28,000 board that is at
//! most 5,000 x 5,001 cells, usually far fewer.

use super::cells::{Passes, SharedRows};
use super::newton::Model;
use super::sigmoid_softplus;
use crate::error::Result;

/// The grouped Rasch data term: abilities of `G` groups, then difficulties
/// of `H` groups.
pub struct Rasch {
    n: f64,
    /// Per ability group: its models, and the sum of their totals.
    person_count: Vec<f64>,
    person_total: Vec<f64>,
    /// Per difficulty group: its items, and the sum of their totals.
    item_count: Vec<f64>,
    item_total: Vec<f64>,
    /// `n_g m_h N s (1 - s)` per cell at the last `eval`.
    curv: Vec<f64>,
    cells: Passes,
}

impl Rasch {
    pub fn new(
        n: u32,
        person_count: Vec<f64>,
        person_total: Vec<f64>,
        item_count: Vec<f64>,
        item_total: Vec<f64>,
    ) -> Self {
        let (g, h) = (person_count.len(), item_count.len());
        Rasch {
            n: n as f64,
            person_count,
            person_total,
            item_count,
            item_total,
            curv: vec![0.0; g * h],
            cells: Passes::new(g, h),
        }
    }
}

impl Model for Rasch {
    fn n_theta(&self) -> usize {
        self.person_count.len()
    }

    fn n_items(&self) -> usize {
        self.item_count.len()
    }

    fn p(&self) -> usize {
        1
    }

    fn eval(&mut self, x: &[f64], grad: &mut [f64], theta_diag: &mut [f64], blocks: &mut [f64]) -> Result<f64> {
        let (g, h) = (self.n_theta(), self.n_items());
        let (pc, ic, n) = (&self.person_count, &self.item_count, self.n);
        let curv = SharedRows::new(&mut self.curv);
        let value = self.cells.run(h, 12, 2, 2 * h, |rows, out, acc| {
            let mut value = 0.0;
            for (r, row) in rows.clone().enumerate() {
                let theta = x[row];
                // SAFETY: chunks cover disjoint rows.
                let crow = unsafe { curv.row(row, h) };
                let (mut g_t, mut d_t) = (0.0, 0.0);
                for j in 0..h {
                    let w = pc[row] * ic[j] * n;
                    let (s, sp) = sigmoid_softplus(theta - x[g + j]);
                    value += w * sp;
                    let c = w * s * (1.0 - s);
                    crow[j] = c;
                    g_t += w * s;
                    d_t += c;
                    acc[2 * j] -= w * s;
                    acc[2 * j + 1] += c;
                }
                out[2 * r] = g_t;
                out[2 * r + 1] = d_t;
            }
            Ok(value)
        })?;
        let mut value = value;
        for j in 0..g {
            grad[j] = self.cells.rows[2 * j] - self.person_total[j];
            theta_diag[j] = self.cells.rows[2 * j + 1];
            value -= self.person_total[j] * x[j];
        }
        for j in 0..h {
            grad[g + j] = self.cells.items[2 * j] + self.item_total[j];
            blocks[j] = self.cells.items[2 * j + 1];
            value += self.item_total[j] * x[g + j];
        }
        Ok(value)
    }

    fn hv(&mut self, _x: &[f64], v: &[f64], out: &mut [f64]) -> Result<()> {
        let (g, h) = (self.n_theta(), self.n_items());
        let curv = &self.curv;
        self.cells.run(h, 2, 1, h, |rows, out_rows, acc| {
            for (r, row) in rows.clone().enumerate() {
                let vt = v[row];
                let crow = &curv[row * h..(row + 1) * h];
                let mut o = 0.0;
                for j in 0..h {
                    let t = crow[j] * (vt - v[g + j]);
                    o += t;
                    acc[j] -= t;
                }
                out_rows[r] = o;
            }
            Ok(0.0)
        })?;
        out[..g].copy_from_slice(&self.cells.rows[..g]);
        out[g..g + h].copy_from_slice(&self.cells.items[..h]);
        Ok(())
    }
}
