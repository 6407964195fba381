//! TrueSkill (Herbrich, Minka & Graepel 2006) as scorio's two-player
//! stream: each induced match of an event updates its two players' Gaussian
//! beliefs from the event's starting beliefs (`v`, `w` corrections of a win
//! or a draw with margin), the updates are combined in natural parameters,
//! and after every trial each `sigma^2` grows by `tau^2`.

use std::f64::consts::{FRAC_1_SQRT_2, PI};

use rayon::prelude::*;

use crate::cancel;
use crate::error::Result;
use crate::numeric::expln::exp;
use crate::pairwise::counts::Packed;
use crate::par;

use super::normal::{erfc, erfcx, truncated_moments};
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
        // phi(x) / Phi(x) with Phi(x) = 1 - erfc(x / sqrt2) / 2 in [1/2, 1]
        // (scorio: exp(-x^2/2 - log sqrt(2 pi) - log_ndtr(x)), the same value).
        let v = exp(-0.5 * x * x) / ((2.0 * PI).sqrt() * (1.0 - 0.5 * erfc(x * FRAC_1_SQRT_2)));
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
    // Each match's four site increments, row by row: (i, j > i) at (i * l + j) * 4
    // (the parallel path's; sized on first use).
    let mut sites = Vec::new();
    // A row's matches: about 40 ns each on the scalar path, 4 ns in lanes.
    let lanes = super::has_avx512();
    let row_ns = if lanes { 4 * l } else { 40 * l };
    let mut groups = Groups::default();
    #[cfg(target_arch = "x86_64")]
    let mut buffers = super::trueskill_lanes::Lanes::default();
    let mut start_buf = (vec![0.0; l], vec![0.0; l], vec![0.0; l]);
    for e in 0..rows.events {
        check_stop(e)?;
        outcomes(&rows, e, &mut o);
        precision.iter_mut().for_each(|v| *v = 0.0);
        natural.iter_mut().for_each(|v| *v = 0.0);
        // The rows split over the pool from about 71 models on the scalar
        // path (at 100 models under load the split's wall time was 2.6x
        // shorter than one thread's), about 225 in lanes; below, one pass
        // over the playing pairs.
        if l > par::min_len(row_ns) {
            let (mu, sigma, o) = (&mu, &sigma, &o);
            sites.resize(l * l * 4, 0.0);
            sites
                .par_chunks_mut(l * 4)
                .enumerate()
                .with_min_len(par::min_len(row_ns))
                .for_each(|(i, row)| matches_of(i, mu, sigma, o, &p, row));
            for i in 0..l {
                for j in i + 1..l {
                    let site = &sites[(i * l + j) * 4..(i * l + j) * 4 + 4];
                    precision[i] += site[0];
                    natural[i] += site[1];
                    precision[j] += site[2];
                    natural[j] += site[3];
                }
            }
        } else {
            groups.fill(&o);
            let start = Start::of(&mu, &sigma, &mut start_buf);
            let mut sums = Sums {
                precision: &mut precision,
                natural: &mut natural,
            };
            #[cfg(target_arch = "x86_64")]
            if lanes && !groups.right.is_empty() && !groups.wrong.is_empty() {
                let beliefs = super::trueskill_lanes::Beliefs {
                    mu: start.mu,
                    s2: start.s2,
                    inv: start.inv,
                    nat: start.nat,
                };
                // SAFETY: the CPU runs AVX-512 F and DQ (checked).
                unsafe { buffers.decisive(&groups.right, &groups.wrong, &beliefs, &p, sums.precision, sums.natural) };
                groups.play_draws(&start, &p, &mut sums);
            } else {
                groups.play(&start, &p, &mut sums);
            }
            #[cfg(not(target_arch = "x86_64"))]
            groups.play(&start, &p, &mut sums);
        }
        continue_event(&mut mu, &mut sigma, &precision, &natural, questions, e, &p);
    }
    watch.check()?;
    Ok((mu, sigma))
}

/// The event's sites into the beliefs, and after a trial's last question
/// each `sigma^2` grown by `tau^2`.
fn continue_event(
    mu: &mut [f64],
    sigma: &mut [f64],
    precision: &[f64],
    natural: &[f64],
    questions: usize,
    e: usize,
    p: &TrueSkill,
) {
    for k in 0..mu.len() {
        let s2 = sigma[k] * sigma[k];
        let post = 1.0 / s2 + precision[k];
        let nat = mu[k] / s2 + natural[k];
        sigma[k] = (1.0 / post).sqrt();
        mu[k] = nat / post;
    }
    if questions > 0 && (e + 1).is_multiple_of(questions) {
        for v in sigma.iter_mut() {
            *v = (*v * *v + p.tau * p.tau).sqrt();
        }
    }
}

/// Row `i`'s matches `(i, j > i)` of one event: each pair's increments of
/// precision and natural mean for both players (zeros where no match).
fn matches_of(i: usize, mu: &[f64], sigma: &[f64], o: &[u8], p: &TrueSkill, row: &mut [f64]) {
    let beta2 = 2.0 * p.beta * p.beta;
    for j in i + 1..mu.len() {
        let site = &mut row[j * 4..j * 4 + 4];
        let Some(s) = p.policy.score(o[i], o[j]) else {
            site.iter_mut().for_each(|v| *v = 0.0);
            continue;
        };
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
        for (slot, (k, m, s2)) in [(i, mi, si2), (j, mj, sj2)].into_iter().enumerate() {
            let new_sigma = sigma[k] * (1.0 - (s2 / c2) * w).max(1e-12).sqrt();
            let nv = new_sigma * new_sigma;
            site[2 * slot] = 1.0 / nv - 1.0 / s2;
            site[2 * slot + 1] = m / nv - mu[k] / s2;
        }
    }
}

/// An event's models by outcome, in model order.
#[derive(Default)]
struct Groups {
    right: Vec<usize>,
    wrong: Vec<usize>,
}

impl Groups {
    fn fill(&mut self, o: &[u8]) {
        self.right.clear();
        self.wrong.clear();
        for (k, &ok) in o.iter().enumerate() {
            if ok == 1 {
                self.right.push(k);
            } else {
                self.wrong.push(k);
            }
        }
    }

    /// Every match of the event (right against wrong, then the draws of
    /// each group), each site added to its two players' sums: the same
    /// site arithmetic as `matches_of` (the pair's lower index first in
    /// `c`), the sums in another order.
    fn play(&self, start: &Start<'_>, p: &TrueSkill, sums: &mut Sums<'_>) {
        for &w in &self.right {
            for &x in &self.wrong {
                decisive(w, x, start, p, sums);
            }
        }
        self.play_draws(start, p, sums);
    }

    /// The draws of each group (as the policy has them).
    fn play_draws(&self, start: &Start<'_>, p: &TrueSkill, sums: &mut Sums<'_>) {
        if p.policy != TiePolicy::Skip {
            draws(&self.right, start, p, sums);
        }
        if p.policy == TiePolicy::Draw {
            draws(&self.wrong, start, p, sums);
        }
    }
}

/// The event's starting beliefs and, per model, `sigma^2`, `1 / sigma^2`
/// and `mu / sigma^2` (each computed as `matches_of` computes it).
struct Start<'a> {
    mu: &'a [f64],
    sigma: &'a [f64],
    s2: &'a [f64],
    inv: &'a [f64],
    nat: &'a [f64],
}

impl<'a> Start<'a> {
    fn of(mu: &'a [f64], sigma: &'a [f64], buf: &'a mut (Vec<f64>, Vec<f64>, Vec<f64>)) -> Start<'a> {
        let (s2, inv, nat) = buf;
        for k in 0..mu.len() {
            s2[k] = sigma[k] * sigma[k];
            inv[k] = 1.0 / s2[k];
            nat[k] = mu[k] / s2[k];
        }
        Start {
            mu,
            sigma,
            s2,
            inv,
            nat,
        }
    }
}

/// The event's running sums of precision and natural-mean increments.
struct Sums<'a> {
    precision: &'a mut [f64],
    natural: &'a mut [f64],
}

impl Sums<'_> {
    /// Player `k`'s site: its mean `m` after the match and the factor `w`.
    #[inline(always)]
    fn add(&mut self, k: usize, m: f64, w: f64, c2: f64, start: &Start<'_>) {
        let s2 = start.s2[k];
        let new_sigma = start.sigma[k] * (1.0 - (s2 / c2) * w).max(1e-12).sqrt();
        let nv = new_sigma * new_sigma;
        self.precision[k] += 1.0 / nv - start.inv[k];
        self.natural[k] += m / nv - start.nat[k];
    }
}

/// One match of `first` against `second` (the winner first where there is
/// one): `corrections` gives `(v, w)` from the mean difference and the draw
/// margin, both over `c`. `c` sums the variances in model order, whichever
/// plays first, as scorio does.
#[inline(always)]
fn one_match<F: Fn(f64, f64) -> (f64, f64)>(
    first: usize,
    second: usize,
    corrections: F,
    start: &Start<'_>,
    p: &TrueSkill,
    sums: &mut Sums<'_>,
) {
    let (lo, hi) = if first < second {
        (first, second)
    } else {
        (second, first)
    };
    let c = (2.0 * p.beta * p.beta + start.s2[lo] + start.s2[hi]).sqrt();
    let epsilon = p.draw_margin / c;
    let (v, w) = corrections((start.mu[first] - start.mu[second]) / c, epsilon);
    let m_first = start.mu[first] + (start.s2[first] / c) * v;
    let m_second = start.mu[second] - (start.s2[second] / c) * v;
    let c2 = c * c;
    sums.add(first, m_first, w, c2, start);
    sums.add(second, m_second, w, c2, start);
}

/// `winner` beat `loser`.
#[inline(always)]
fn decisive(winner: usize, loser: usize, start: &Start<'_>, p: &TrueSkill, sums: &mut Sums<'_>) {
    one_match(winner, loser, win_corrections, start, p, sums);
}

/// Draws between every two models of a group (in model order).
fn draws(group: &[usize], start: &Start<'_>, p: &TrueSkill, sums: &mut Sums<'_>) {
    for (a, &i) in group.iter().enumerate() {
        for &j in &group[a + 1..] {
            one_match(i, j, draw_corrections, start, p, sums);
        }
    }
}
