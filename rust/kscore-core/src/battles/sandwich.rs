//! The sandwich (robust) covariance of the ratings, `A M A`.
//!
//! `M` is the meat: the sum over battles of the outer products of their
//! scores `w (y - p) (e_i - e_j)` (arena-rank's "gradient covariance": per
//! unique row, `count w^2 (y - p)^2`), or, clustered by prompt, the sum
//! over prompts of the outer products of each prompt's summed scores, times
//! `G / (G - 1)`. `A` is the inverse of the information `H` (minus the
//! Hessian of the log-likelihood) made invertible:
//!
//! - `Ridge::Centred`: `(H + P_prior + 1 1^T / L)^{-1}`. As `M 1 = 0`, `A M
//!   A` is then exactly the covariance of the mean-zero ratings
//!   (the pseudo-inverse sandwich `H^+ M H^+`).
//! - `Ridge::Diagonal(r)`: `(H + r I)^{-1}`, arena-rank 0.1.1's formula
//!   (`r = 1e-5` times the battles on an unweighted board): a ridge that
//!   shrinks every variance a little, models with few battles the most.

use rayon::prelude::*;

use crate::battles::aggregate::Board;
use crate::battles::dense;
use crate::battles::fit::{sigmoid, Prior};
use crate::error::Result;
use crate::par;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ridge {
    Centred,
    Diagonal(f64),
}

/// Adds `v (e_i - e_j)(e_i - e_j)^T` to the `l x l` matrix `m`.
#[inline]
pub fn add_pair(m: &mut [f64], l: usize, i: usize, j: usize, v: f64) {
    m[i * l + i] += v;
    m[j * l + j] += v;
    m[i * l + j] -= v;
    m[j * l + i] -= v;
}

/// The information matrix `H` at `theta`: `sum_p n_p p (1 - p)` over the
/// pairs, as a Laplacian.
pub fn information(board: &Board, n: &[f64], theta: &[f64]) -> Vec<f64> {
    let l = board.models;
    let mut h = vec![0.0; l * l];
    for ((&i, &j), &nk) in board.pair_i.iter().zip(&board.pair_j).zip(n) {
        let p = sigmoid(theta[i as usize] - theta[j as usize]);
        add_pair(&mut h, l, i as usize, j as usize, nk * p * (1.0 - p));
    }
    h
}

/// The meat `M` and the number of clusters it was summed over (None:
/// over battles).
pub fn meat(board: &Board, theta: &[f64], clustered: bool) -> (Vec<f64>, Option<usize>) {
    let l = board.models;
    let prob: Vec<f64> = (0..board.pair_i.len())
        .map(|k| sigmoid(theta[board.pair_i[k] as usize] - theta[board.pair_j[k] as usize]))
        .collect();
    let resid = |r: usize| 0.5 * board.row_outcome[r] as f64 - prob[board.row_pair[r] as usize];
    if !clustered {
        let mut per_pair = vec![0.0; board.pair_i.len()];
        for r in 0..board.row_pair.len() {
            let e = resid(r);
            per_pair[board.row_pair[r] as usize] += board.row_count[r] * board.row_weight[r].powi(2) * e * e;
        }
        let mut m = vec![0.0; l * l];
        for (k, v) in per_pair.iter().enumerate() {
            add_pair(&mut m, l, board.pair_i[k] as usize, board.pair_j[k] as usize, *v);
        }
        return (m, None);
    }
    // Clusters in a fixed number of chunks (by the board's size only), each
    // summed into its own matrix, the chunks added in order: the same bits
    // on any number of threads.
    let g = board.clusters();
    let budget = (64usize << 20) / (8 * l * l).max(1);
    let chunks = g.clamp(1, 16).min(budget.max(1));
    let per = g.div_ceil(chunks);
    let parts: Vec<Vec<f64>> = (0..chunks)
        .into_par_iter()
        .with_min_len(par::min_len((board.row_pair.len() / chunks.max(1)).max(1) * 20))
        .map(|c| {
            let mut m = vec![0.0; l * l];
            let mut s: Vec<(u32, f64)> = Vec::new();
            for cl in c * per..((c + 1) * per).min(g) {
                s.clear();
                for r in board.cluster_start[cl]..board.cluster_start[cl + 1] {
                    let k = board.row_pair[r] as usize;
                    let v = board.row_count[r] * board.row_weight[r] * resid(r);
                    s.push((board.pair_i[k], v));
                    s.push((board.pair_j[k], -v));
                }
                s.sort_unstable_by_key(|x| x.0);
                let mut merged: Vec<(usize, f64)> = Vec::with_capacity(s.len());
                for &(u, v) in &s {
                    match merged.last_mut() {
                        Some(last) if last.0 == u as usize => last.1 += v,
                        _ => merged.push((u as usize, v)),
                    }
                }
                for &(u, a) in &merged {
                    for &(v, b) in &merged {
                        m[u * l + v] += a * b;
                    }
                }
            }
            m
        })
        .collect();
    let mut m = vec![0.0; l * l];
    for part in parts {
        m.iter_mut().zip(&part).for_each(|(x, y)| *x += y);
    }
    let gf = g as f64;
    if g > 1 {
        m.iter_mut().for_each(|x| *x *= gf / (gf - 1.0));
    }
    (m, Some(g))
}

/// `A M A` (module docstring) at `theta`, with the prior the fit used.
pub fn sandwich(board: &Board, theta: &[f64], prior: Prior, ridge: Ridge, clustered: bool) -> Result<Vec<f64>> {
    let l = board.models;
    let (n, _) = board.pair_sums(&board.row_count);
    let mut h = information(board, &n, theta);
    match ridge {
        Ridge::Centred => {
            let shift = 1.0 / l as f64;
            h.iter_mut().for_each(|x| *x += shift);
            h.iter_mut().step_by(l + 1).for_each(|x| *x += prior.precision);
        }
        Ridge::Diagonal(r) => h.iter_mut().step_by(l + 1).for_each(|x| *x += r + prior.precision),
    }
    let a = dense::inverse(&h, l)?;
    let (m, _) = meat(board, theta, clustered);
    let am = dense::matmul(&a, &m, l);
    Ok(dense::matmul(&am, &a, l))
}
