//! The rating systems against literal transcriptions of scorio's loops
//! (per-pair powers, matches in scorio's pair order); the parity with
//! scorio itself is tests/test_rank_ratings.py.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use super::elo::elo;
use super::glicko::{glicko, Glicko};
use super::trueskill::{trueskill, TrueSkill};
use super::TiePolicy;
use crate::pairwise::counts::Packed;

fn board(models: usize, events: usize, seed: u64) -> Vec<Vec<u8>> {
    crate::testutil::random_rows(models, events, seed, |m| 20 + (m as u64 * 13) % 70)
}

use crate::testutil::pack_rows;

/// Rows packed as the core reads them (the bytes owned here, `Packed`
/// borrowing them).
struct Owned {
    data: Vec<u8>,
    models: usize,
    bytes: usize,
    events: usize,
}

impl Owned {
    fn new(rows: &[Vec<u8>]) -> Owned {
        let (data, bytes) = pack_rows(rows);
        Owned {
            data,
            models: rows.len(),
            bytes,
            events: rows.first().map_or(0, Vec::len),
        }
    }

    fn packed(&self) -> Packed<'_> {
        Packed {
            data: &self.data,
            rows: self.models,
            bytes: self.bytes,
            events: self.events,
        }
    }
}

fn close(a: &[f64], b: &[f64], rel: f64) {
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= rel * y.abs().max(1.0), "{x} vs {y}");
    }
}

const POLICIES: [TiePolicy; 3] = [TiePolicy::Skip, TiePolicy::Draw, TiePolicy::CorrectDrawOnly];

/// scorio's `elo` loop transcribed: per-pair powers, matches in its pair order.
fn scorio_elo(rows: &[Vec<u8>], events: usize, k: f64, initial: f64, policy: TiePolicy) -> Vec<f64> {
    let l = rows.len();
    let mut r = vec![initial; l];
    for e in 0..events {
        let snap = r.clone();
        let mut delta = vec![0.0; l];
        for i in 0..l {
            for j in i + 1..l {
                let Some(s) = policy.score(rows[i][e], rows[j][e]) else {
                    continue;
                };
                let ei = 1.0 / (1.0 + 10f64.powf((snap[j] - snap[i]) / 400.0));
                delta[i] += k * (s - ei);
                delta[j] += k * ((1.0 - s) - (1.0 - ei));
            }
        }
        for i in 0..l {
            r[i] += delta[i];
        }
    }
    r
}

#[test]
fn elo_is_scorios_loop() {
    // 9 models: groups shorter than a lane block; 37: full blocks and tails.
    for (models, events, seed) in [(9, 300, 1), (37, 400, 11)] {
        let rows = board(models, events, seed);
        let owned = Owned::new(&rows);
        let packed = owned.packed();
        for policy in POLICIES {
            let got = elo(packed, 32.0, 1500.0, policy).unwrap();
            close(&got, &scorio_elo(&rows, events, 32.0, 1500.0, policy), 1e-13);
        }
    }
    let owned = Owned::new(&board(9, 300, 1));
    let packed = owned.packed();
    // Ratings far apart (a K of 1e6): the per-pair path.
    let got = elo(packed, 1e6, 0.0, TiePolicy::Draw).unwrap();
    assert!(got.iter().all(|v| v.is_finite()));
}

#[test]
fn glicko_is_scorios_loop() {
    // 7 models; 37: opponent lists of full lane blocks and tails.
    for (models, events, seed) in [(7, 200, 2), (37, 150, 12)] {
        glicko_case(models, events, seed);
    }
}

fn glicko_case(models: usize, events: usize, seed: u64) {
    let rows = board(models, events, seed);
    let owned = Owned::new(&rows);
    let packed = owned.packed();
    let q = 10f64.ln() / 400.0;
    for (policy, c) in [
        (TiePolicy::CorrectDrawOnly, 0.0),
        (TiePolicy::Draw, 30.0),
        (TiePolicy::Skip, 5.0),
    ] {
        let p = Glicko {
            initial_rating: 1500.0,
            initial_rd: 350.0,
            c,
            rd_max: 350.0,
            policy,
        };
        let (got_r, got_rd) = glicko(packed, p).unwrap();
        let mut r = vec![1500.0; models];
        let mut rd = vec![350.0f64; models];
        for e in 0..events {
            if c > 0.0 {
                rd.iter_mut().for_each(|v| *v = (*v * *v + c * c).sqrt().min(350.0));
            }
            let (mut nr, mut nrd) = (r.clone(), rd.clone());
            for i in 0..models {
                let mut opp = vec![];
                for j in 0..models {
                    if j != i {
                        if let Some(s) = policy.score(rows[i][e], rows[j][e]) {
                            opp.push((j, s));
                        }
                    }
                }
                if opp.is_empty() {
                    continue;
                }
                let g = |x: f64| 1.0 / (1.0 + 3.0 * q * q * x * x / (std::f64::consts::PI.powi(2))).sqrt();
                let (mut den, mut del) = (0.0, 0.0);
                for &(j, s) in &opp {
                    let gj = g(rd[j]);
                    let ex = 1.0 / (1.0 + 10f64.powf(-(gj * (r[i] - r[j]) / 400.0)));
                    den += gj * gj * ex * (1.0 - ex);
                    del += gj * (s - ex);
                }
                let inv = 1.0 / (rd[i] * rd[i]) + q * q * den;
                nrd[i] = (1.0 / inv).sqrt().clamp(1e-12, 350.0);
                nr[i] = r[i] + (q / inv) * del;
            }
            r = nr;
            rd = nrd;
        }
        close(&got_r, &r, 1e-12);
        close(&got_rd, &rd, 1e-12);
    }
}

#[test]
fn trueskill_moves_winners_up_and_shrinks_sigma() {
    let rows = vec![vec![1u8; 40], vec![0u8; 40], vec![1u8, 0].repeat(20)];
    let owned = Owned::new(&rows);
    let packed = owned.packed();
    let p = TrueSkill {
        mu: 25.0,
        sigma: 25.0 / 3.0,
        beta: 25.0 / 6.0,
        tau: 25.0 / 300.0,
        draw_margin: 0.0,
        policy: TiePolicy::Skip,
    };
    let (mu, sigma) = trueskill(packed, 2, p).unwrap();
    assert!(mu[0] > mu[2] && mu[2] > mu[1], "{mu:?}");
    assert!(sigma.iter().all(|&s| s < 25.0 / 3.0));
    let draws = TrueSkill {
        draw_margin: 0.5,
        policy: TiePolicy::Draw,
        ..p
    };
    let (mu2, _) = trueskill(packed, 2, draws).unwrap();
    assert!(mu2.iter().all(|v| v.is_finite()));
}

/// scorio's `trueskill` loop transcribed: every pair `i < j` of an event in
/// order, its site from the event's starting beliefs, summed per model.
fn scorio_trueskill(rows: &[Vec<u8>], events: usize, trials: usize, p: TrueSkill) -> (Vec<f64>, Vec<f64>) {
    use super::trueskill::{draw_corrections, win_corrections};
    let l = rows.len();
    let questions = events / trials;
    let (mut mu, mut sigma) = (vec![p.mu; l], vec![p.sigma; l]);
    for e in 0..events {
        let (mut prec, mut nat) = (vec![0.0; l], vec![0.0; l]);
        for i in 0..l {
            for j in i + 1..l {
                let Some(s) = p.policy.score(rows[i][e], rows[j][e]) else {
                    continue;
                };
                let (si2, sj2) = (sigma[i] * sigma[i], sigma[j] * sigma[j]);
                let c = (2.0 * p.beta * p.beta + si2 + sj2).sqrt();
                let eps = p.draw_margin / c;
                let (mi, mj, w) = if s == 0.5 {
                    let (v, w) = draw_corrections((mu[i] - mu[j]) / c, eps);
                    (mu[i] + si2 / c * v, mu[j] - sj2 / c * v, w)
                } else if s == 1.0 {
                    let (v, w) = win_corrections((mu[i] - mu[j]) / c, eps);
                    (mu[i] + si2 / c * v, mu[j] - sj2 / c * v, w)
                } else {
                    let (v, w) = win_corrections((mu[j] - mu[i]) / c, eps);
                    (mu[i] - si2 / c * v, mu[j] + sj2 / c * v, w)
                };
                for (k, m, s2) in [(i, mi, si2), (j, mj, sj2)] {
                    let ns = sigma[k] * (1.0 - s2 / (c * c) * w).max(1e-12).sqrt();
                    prec[k] += 1.0 / (ns * ns) - 1.0 / s2;
                    nat[k] += m / (ns * ns) - mu[k] / s2;
                }
            }
        }
        for k in 0..l {
            let s2 = sigma[k] * sigma[k];
            let post = 1.0 / s2 + prec[k];
            let n = mu[k] / s2 + nat[k];
            sigma[k] = (1.0 / post).sqrt();
            mu[k] = n / post;
        }
        if (e + 1) % questions == 0 {
            sigma.iter_mut().for_each(|v| *v = (*v * *v + p.tau * p.tau).sqrt());
        }
    }
    (mu, sigma)
}

#[test]
fn trueskill_is_scorios_loop() {
    // 7 and 37 models (loser blocks of eight with tails; on AVX-512 the
    // decisive matches run in lanes), every policy, a draw margin, and
    // ratings pulled far apart (a small beta: upsets past 10 sigma take
    // scorio's asymptotic series lane by lane).
    for (models, events, seed) in [(7, 240, 3), (37, 160, 13)] {
        let rows = board(models, events, seed);
        let owned = Owned::new(&rows);
        let packed = owned.packed();
        for (policy, margin, beta) in [
            (TiePolicy::Skip, 0.0, 25.0 / 6.0),
            (TiePolicy::Draw, 0.7, 25.0 / 6.0),
            (TiePolicy::CorrectDrawOnly, 0.05, 2.0),
            (TiePolicy::Skip, 0.0, 0.05),
        ] {
            let p = TrueSkill {
                mu: 25.0,
                sigma: 25.0 / 3.0,
                beta,
                tau: 25.0 / 300.0,
                draw_margin: margin,
                policy,
            };
            let (mu, sigma) = trueskill(packed, 4, p).unwrap();
            let (want_mu, want_sigma) = scorio_trueskill(&rows, events, 4, p);
            close(&mu, &want_mu, 1e-12);
            close(&sigma, &want_sigma, 1e-12);
        }
    }
}
