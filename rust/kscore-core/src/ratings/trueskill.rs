//! TrueSkill (Herbrich, Minka & Graepel 2006) as scorio's two-player
//! stream: each induced match of an event updates its two players' Gaussian
//! beliefs from the event's starting beliefs (`v`, `w` corrections of a win
//! or a draw with margin), the updates are combined in natural parameters,
//! and after every trial each `sigma^2` grows by `tau^2`.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use crate::cancel;
use crate::error::Result;
use crate::pairwise::counts::Packed;

use super::normal::{erfcx, log_ndtr, truncated_moments};
use super::{check_stop, outcomes, TiePolicy};

/// TrueSkill's parameters.
#[derive(Clone, Copy, Debug)]
pub struct TrueSkill {
    pub mu: f64,
    pub sigma: f64,
    pub beta: f64,
    pub tau: f64,
    pub draw_margin: f64,
    pub policy: TiePolicy,
}

/// scorio's decisive-outcome corrections `(v, w)` at `x = t - epsilon`.
pub fn win_corrections(t: f64, epsilon: f64) -> (f64, f64) {
    let x = t - epsilon;
    let (v, w) = if x < -10.0 {
        let y = -x;
        let iy = 1.0 / y;
        let iy2 = iy * iy;
        let v = y + iy * (1.0 + iy2 * (-2.0 + iy2 * (10.0 + iy2 * (-74.0))));
        let w = 1.0 + iy2 * (-1.0 + iy2 * (6.0 + iy2 * (-50.0)));
        (v, w)
    } else if x < 0.0 {
        let v = (2.0 / PI).sqrt() / erfcx(-x * FRAC_1_SQRT_2);
        (v, v * (v + x))
    } else {
        let log_v = -0.5 * x * x - 0.5 * (2.0 * PI).ln() - log_ndtr(x);
        let v = log_v.exp();
        (v, v * (v + x))
    };
    (v, w.clamp(0.0, 1.0))
}

/// scorio's draw corrections `(v, w)`.
pub fn draw_corrections(t: f64, epsilon: f64) -> (f64, f64) {
    if epsilon <= f64::EPSILON.sqrt() * (1.0 + t.abs()) {
        return (-t, 1.0);
    }
    let (a, b) = (-epsilon - t, epsilon - t);
    if a < -10.0 && b > 10.0 {
        return (0.0, 0.0);
    }
    let (mean, variance) = truncated_moments(a, b);
    (mean, (1.0 - variance).clamp(0.0, 1.0))
}

/// Final means and deviations (scorio's `trueskill` ranks by the means).
pub fn trueskill(rows: Packed, trials: usize, p: TrueSkill) -> Result<(Vec<f64>, Vec<f64>)> {
    let watch = cancel::Watch::new();
    let l = rows.rows;
    let questions = rows.events.checked_div(trials).unwrap_or(0);
    let mut mu = vec![p.mu; l];
    let mut sigma = vec![p.sigma; l];
    let mut o = vec![0u8; l];
    let (mut precision, mut natural) = (vec![0.0; l], vec![0.0; l]);
    let beta2 = 2.0 * p.beta * p.beta;
    for e in 0..rows.events {
        check_stop(e)?;
        outcomes(&rows, e, &mut o);
        precision.iter_mut().for_each(|v| *v = 0.0);
        natural.iter_mut().for_each(|v| *v = 0.0);
        for i in 0..l {
            for j in i + 1..l {
                let Some(s) = p.policy.score(o[i], o[j]) else { continue };
                let (si2, sj2) = (sigma[i] * sigma[i], sigma[j] * sigma[j]);
                let c = (beta2 + si2 + sj2).sqrt();
                let epsilon = p.draw_margin / c;
                let (mi, mj, w) = if s == 0.5 {
                    let (v, w) = draw_corrections((mu[i] - mu[j]) / c, epsilon);
                    (mu[i] + (si2 / c) * v, mu[j] - (sj2 / c) * v, w)
                } else if s == 1.0 {
                    let (v, w) = win_corrections((mu[i] - mu[j]) / c, epsilon);
                    (mu[i] + (si2 / c) * v, mu[j] - (sj2 / c) * v, w)
                } else {
                    let (v, w) = win_corrections((mu[j] - mu[i]) / c, epsilon);
                    (mu[i] - (si2 / c) * v, mu[j] + (sj2 / c) * v, w)
                };
                let c2 = c * c;
                for (k, m, s2) in [(i, mi, si2), (j, mj, sj2)] {
                    let new_sigma = sigma[k] * (1.0 - (s2 / c2) * w).max(1e-12).sqrt();
                    let nv = new_sigma * new_sigma;
                    precision[k] += 1.0 / nv - 1.0 / s2;
                    natural[k] += m / nv - mu[k] / s2;
                }
            }
        }
        for k in 0..l {
            let s2 = sigma[k] * sigma[k];
            let post = 1.0 / s2 + precision[k];
            let nat = mu[k] / s2 + natural[k];
            sigma[k] = (1.0 / post).sqrt();
            mu[k] = nat / post;
        }
        if questions > 0 && (e + 1) % questions == 0 {
            for v in sigma.iter_mut() {
                *v = (*v * *v + p.tau * p.tau).sqrt();
            }
        }
    }
    watch.check()?;
    Ok((mu, sigma))
}
