//! The probability that the count leader has the largest share under
//! `Dirichlet(v + 1)` (Adaptive-Consistency's Eq. 1), for many count vectors.
//!
//! With independent `G_j ~ Gamma(v_j + 1, 1)` the probability is
//! `int_0^inf f_{a_L}(x) prod_{j != L} F_{a_j}(x) dx`; for integer shapes
//! `1 - F_a(x) = e^-x sum_{k<a} x^k / k!`, one table of terms per node serves
//! every answer of a question. The rule is the caller's composite
//! Gauss-Legendre nodes and weights on [0, 1], mapped onto
//! `[a_L - 10 sqrt(a_L) - 10, a_L + 10 sqrt(a_L) + 30]` (clipped at 0), where
//! the leader's density keeps all but 1e-18 of its mass (python/kscore/aggregate/_leader.py
//! explains the bounds; the tests check 1e-12 against mpmath).

use rayon::prelude::*;

use super::confidence::np_sum;
use crate::par::Grain;
use crate::{Error, Result};

/// Per row of `counts` (`rows` x `width`, C order; 0: no answer), the
/// probability that answer `leader[r]` has the largest share, by the rule
/// `nodes`/`weights` on [0, 1]. `log_fact[k] = ln k!` (the caller's
/// `math.lgamma`, for counts past the direct recurrence's range) up to the
/// largest count.
pub fn leader_probabilities(
    counts: &[i64],
    rows: usize,
    width: usize,
    leader: &[i64],
    nodes: &[f64],
    weights: &[f64],
    log_fact: &[f64],
) -> Result<Vec<f64>> {
    if counts.len() != rows * width || leader.len() != rows || nodes.len() != weights.len() {
        return Err(Error::value("counts, leader and the rule disagree"));
    }
    if counts.iter().any(|&c| c < 0) || leader.iter().any(|&l| l < 0 || l as usize >= width.max(1)) {
        return Err(Error::value("counts must be non-negative and each leader a column"));
    }
    let top = counts.iter().copied().max().unwrap_or(0) as usize + 1;
    if log_fact.len() < top {
        return Err(Error::value("log_fact must reach the largest count"));
    }
    let q = nodes.len();
    let mut out = vec![0.0_f64; rows];
    out.par_iter_mut()
        .with_grain(q * top * 3 + q * width * 2 + 200)
        .enumerate()
        .for_each_init(
            || (vec![0.0_f64; q * top], vec![0.0_f64; q]),
            |(upper, terms), (r, out)| {
                let c = &counts[r * width..(r + 1) * width];
                let lead = leader[r] as usize;
                let a_lead = c[lead] as f64 + 1.0;
                let spread = 10.0 * a_lead.sqrt();
                let lo = (a_lead - spread - 10.0).max(0.0);
                let hi = a_lead + spread + 30.0;
                let need = c.iter().copied().max().unwrap_or(0) as usize + 1;
                // upper[i * need + k] = sum_{j <= k} e^-x x^j / j! at node i; terms[i]: the
                // leader's density e^-x x^(a-1) / (a-1)!.
                let ka = c[lead] as usize;
                for (i, &t) in nodes.iter().enumerate() {
                    let x = lo + (hi - lo) * t;
                    let row = &mut upper[i * need..(i + 1) * need];
                    let mut acc = 0.0;
                    if hi < 600.0 {
                        let mut term = (-x).exp();
                        for (k, u) in row.iter_mut().enumerate() {
                            if k > 0 {
                                term *= x / k as f64;
                            }
                            if k == ka {
                                terms[i] = term;
                            }
                            acc += term;
                            *u = acc;
                        }
                    } else {
                        let log_x = x.ln();
                        for (k, u) in row.iter_mut().enumerate() {
                            let term = if k == 0 {
                                (-x).exp()
                            } else {
                                (-x + k as f64 * log_x - log_fact[k]).exp()
                            };
                            if k == ka {
                                terms[i] = term;
                            }
                            acc += term;
                            *u = acc;
                        }
                    }
                }
                let width_of = hi - lo;
                for i in 0..q {
                    let mut product = 1.0_f64;
                    for (j, &cj) in c.iter().enumerate() {
                        if j == lead || cj <= 0 {
                            continue;
                        }
                        product *= (1.0 - upper[i * need + cj as usize]).max(0.0);
                    }
                    // numpy's order: (width * density) * product
                    terms[i] = (width_of * weights[i]) * terms[i] * product;
                }
                *out = np_sum(&terms[..q]).clamp(0.0, 1.0);
            },
        );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gauss-Legendre on [0, 1] by Newton on the Legendre polynomial, in panels.
    fn rule(panels: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
        let mut t = Vec::new();
        let mut w = Vec::new();
        for p in 0..panels {
            for i in 0..n {
                let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
                let mut d = 0.0;
                for _ in 0..100 {
                    let (mut p0, mut p1) = (1.0, x);
                    for k in 2..=n {
                        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
                        p0 = p1;
                        p1 = p2;
                    }
                    d = n as f64 * (x * p1 - p0) / (x * x - 1.0);
                    x -= p1 / d;
                }
                t.push((p as f64 + (x + 1.0) / 2.0) / panels as f64);
                w.push(1.0 / ((1.0 - x * x) * d * d) / panels as f64);
            }
        }
        (t, w)
    }

    #[test]
    fn two_answers_is_the_beta_probability() {
        // Two answers: P(G_1 > G_2) for a = 3, 2 (counts 2, 1) = P(Bin(4, 1/2) <= 2) = 11/16.
        let (t, w) = rule(8, 20);
        let lf: Vec<f64> = (0..8).map(|k: u64| ((1..=k).product::<u64>() as f64).ln()).collect();
        let p = leader_probabilities(&[2, 1], 1, 2, &[0], &t, &w, &lf).unwrap();
        assert!((p[0] - 11.0 / 16.0).abs() < 1e-14, "{}", p[0]);
        // A tie of three answers: exactly 1/3; a zero count is no answer.
        let p = leader_probabilities(&[4, 4, 4, 0], 1, 4, &[0], &t, &w, &lf).unwrap();
        assert!((p[0] - 1.0 / 3.0).abs() < 1e-14, "{}", p[0]);
    }
}
