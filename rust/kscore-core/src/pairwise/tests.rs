//! The fit against closed forms, an independent algorithm (Hunter's MM for
//! Bradley-Terry) and brute force (the definitions' probabilities:
//! stationarity by central differences, no better point nearby).
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use super::*;
use crate::error::Result;

#[test]
fn doc_example() {
    // The module docs' example: 0 beat 1 three times and lost once, so
    // theta_0 - theta_1 = ln 3.
    let pairs = Pairs {
        i: &[0],
        j: &[1],
        win_i: &[3.0],
        win_j: &[1.0],
        tie: &[0.0],
    };
    let f = fit(
        2,
        &pairs,
        Model::BradleyTerry(Ties::Ignore),
        &Prior::None,
        &Options::default(),
    )
    .unwrap();
    assert!((f.theta[0] - f.theta[1] - 3f64.ln()).abs() < 1e-14);
}

/// A small random tournament: every pair, counts 0..=max each.
#[derive(Default)]
struct Table {
    i: Vec<u32>,
    j: Vec<u32>,
    wi: Vec<f64>,
    wj: Vec<f64>,
    t: Vec<f64>,
}

impl Table {
    fn random(items: usize, seed: u64, max: u64, density: u64) -> Table {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let mut t = Table::default();
        for a in 0..items {
            for b in a + 1..items {
                if next(100) >= density {
                    continue;
                }
                t.push(a, b, next(max + 1) as f64, next(max + 1) as f64, next(max + 1) as f64);
            }
        }
        t
    }

    /// One row: `a` against `b`, their wins and the ties.
    fn push(&mut self, a: usize, b: usize, wi: f64, wj: f64, t: f64) {
        self.i.push(a as u32);
        self.j.push(b as u32);
        self.wi.push(wi);
        self.wj.push(wj);
        self.t.push(t);
    }

    fn pairs(&self) -> Pairs<'_> {
        Pairs {
            i: &self.i,
            j: &self.j,
            win_i: &self.wi,
            win_j: &self.wj,
            tie: &self.t,
        }
    }
}

/// The objective from the definitions: minus the log of each outcome's
/// probability, weighted, plus the penalty (`x`: theta, then log of the
/// tie parameter when `extra` is None).
fn naive(model: &str, table: &Table, x: &[f64], extra: Option<f64>, prior: &Prior) -> f64 {
    let items = if extra.is_some() { x.len() } else { x.len() - 1 };
    let e = extra.unwrap_or_else(|| x[items].exp());
    let mut total = 0.0;
    for r in 0..table.i.len() {
        let (pi, pj) = (x[table.i[r] as usize].exp(), x[table.j[r] as usize].exp());
        let (wi, wj, t) = (table.wi[r], table.wj[r], table.t[r]);
        let (a, b, c) = match model {
            "bt" => (pi / (pi + pj), pj / (pi + pj), 1.0),
            "half" => (pi / (pi + pj), pj / (pi + pj), (pi * pj).sqrt() / (pi + pj)),
            "davidson" => {
                let d = pi + pj + e * (pi * pj).sqrt();
                (pi / d, pj / d, e * (pi * pj).sqrt() / d)
            }
            _ => {
                let (d1, d2) = (pi + e * pj, e * pi + pj);
                (pi / d1, pj / d2, (e * e - 1.0) * pi * pj / (d1 * d2))
            }
        };
        total -= wi * a.ln() + wj * b.ln() + if model == "bt" { 0.0 } else { t * c.ln() };
    }
    total + prior.smooth(&x[..items], None)
}

/// Central-difference gradient of `f` along centred directions (theta) and
/// plainly along the extra coordinate.
fn centred_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64], items: usize) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            if k < items {
                for m in 0..items {
                    let d = if m == k {
                        1.0 - 1.0 / items as f64
                    } else {
                        -1.0 / items as f64
                    };
                    up[m] += h * d;
                    down[m] -= h * d;
                }
            } else {
                up[k] += h;
                down[k] -= h;
            }
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

/// No centred perturbation of size `eps` in 200 pseudo-random directions
/// lowers `f`.
/// Knuth's MMIX linear congruential step: the next state.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state
}

fn no_better_point(f: &dyn Fn(&[f64]) -> f64, x: &[f64], items: usize, eps: f64) {
    let base = f(x);
    let mut state = 99u64;
    for _ in 0..200 {
        let mut y = x.to_vec();
        let mut dir: Vec<f64> = (0..x.len())
            .map(|_| ((lcg(&mut state) >> 11) as f64 / (1u64 << 53) as f64) - 0.5)
            .collect();
        let mean = dir[..items].iter().sum::<f64>() / items as f64;
        dir[..items].iter_mut().for_each(|d| *d -= mean);
        for k in 0..x.len() {
            y[k] += eps * dir[k];
        }
        assert!(
            f(&y) >= base - 1e-9 * base.abs().max(1.0),
            "a better point nearby: {} < {base}",
            f(&y)
        );
    }
}

fn opts() -> Options<'static> {
    Options::default()
}

#[test]
fn two_items_closed_forms() {
    let (wi, wj, t) = (7.0, 3.0, 5.0);
    let p = Pairs {
        i: &[1],
        j: &[0],
        win_i: &[wi],
        win_j: &[wj],
        tie: &[t],
    };
    let bt = fit(2, &p, Model::BradleyTerry(Ties::Ignore), &Prior::None, &opts()).unwrap();
    assert!((bt.theta[1] - bt.theta[0] - (wi / wj).ln()).abs() < 1e-14);
    assert!(bt.converged && bt.tie_parameter.is_none());
    let half = fit(2, &p, Model::BradleyTerry(Ties::HalfWin), &Prior::None, &opts()).unwrap();
    assert!((half.theta[1] - half.theta[0] - ((wi + t / 2.0) / (wj + t / 2.0)).ln()).abs() < 1e-14);
    // Davidson: the observed frequencies are the fitted probabilities.
    let dv = fit(2, &p, Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    assert!((dv.theta[1] - dv.theta[0] - (wi / wj).ln()).abs() < 1e-13);
    assert!((dv.tie_parameter.unwrap() - t / (wi * wj).sqrt()).abs() < 1e-13);
    // Rao-Kupper: kappa^2 = (wj + t)(wi + t) / (wi wj), (pi_0/pi_1)^2 = (wj + t) wj / ((wi + t) wi).
    let rk = fit(2, &p, Model::RaoKupper(Param::Fitted), &Prior::None, &opts()).unwrap();
    let kappa = ((wj + t) * (wi + t) / (wi * wj)).sqrt();
    assert!(
        (rk.tie_parameter.unwrap() - kappa).abs() < 1e-13,
        "{:?}",
        rk.tie_parameter
    );
    let ratio = 0.5 * ((wj + t) * wj / ((wi + t) * wi)).ln();
    assert!((rk.theta[0] - rk.theta[1] - ratio).abs() < 1e-13);
    // Centred.
    for f in [&bt, &half, &dv, &rk] {
        assert!((f.theta[0] + f.theta[1]).abs() < 1e-15);
    }
}

/// Hunter's (2004) MM iteration for Bradley-Terry, run far past convergence.
fn hunter_mm(items: usize, table: &Table) -> Vec<f64> {
    let mut pi = vec![1.0; items];
    let mut wins = vec![0.0; items];
    for r in 0..table.i.len() {
        wins[table.i[r] as usize] += table.wi[r];
        wins[table.j[r] as usize] += table.wj[r];
    }
    for _ in 0..20000 {
        let mut denom = vec![0.0; items];
        for r in 0..table.i.len() {
            let (a, b) = (table.i[r] as usize, table.j[r] as usize);
            let n = table.wi[r] + table.wj[r];
            denom[a] += n / (pi[a] + pi[b]);
            denom[b] += n / (pi[a] + pi[b]);
        }
        for k in 0..items {
            pi[k] = wins[k] / denom[k];
        }
        let g = pi.iter().map(|p| p.ln()).sum::<f64>() / items as f64;
        pi.iter_mut().for_each(|p| *p /= g.exp());
    }
    pi.iter().map(|p| p.ln()).collect()
}

#[test]
fn bradley_terry_agrees_with_hunters_mm() {
    for seed in 0..5 {
        let table = Table::random(9, seed, 6, 80);
        let pairs = table.pairs();
        let Ok(f) = fit(9, &pairs, Model::BradleyTerry(Ties::Ignore), &Prior::None, &opts()) else {
            continue; // not strongly connected: covered by the refusal test
        };
        let mm = hunter_mm(9, &table);
        for k in 0..9 {
            assert!(
                (f.theta[k] - mm[k]).abs() < 1e-10,
                "seed {seed} item {k}: {} {}",
                f.theta[k],
                mm[k]
            );
        }
        assert!(f.converged && f.residual <= 1e-12 * f.scale);
    }
}

#[test]
fn every_model_and_prior_is_stationary_and_optimal() {
    let mean = [0.3, -0.2, 0.0, 0.5, -0.1, 0.2, -0.4];
    let precision = [0.5; 7];
    let priors = [
        Prior::None,
        Prior::Gaussian {
            mean: &mean,
            precision: &precision,
        },
        Prior::Cauchy { loc: 0.1, scale: 0.7 },
    ];
    for seed in 0..4 {
        let table = Table::random(7, seed + 10, 5, 90);
        for (name, model, extra) in [
            ("bt", Model::BradleyTerry(Ties::Ignore), Some(1.0)),
            ("half", Model::BradleyTerry(Ties::HalfWin), Some(1.0)),
            ("davidson", Model::Davidson(Param::Fitted), None),
            ("davidson", Model::Davidson(Param::Fixed(0.8)), Some(0.8)),
            ("rk", Model::RaoKupper(Param::Fitted), None),
            ("rk", Model::RaoKupper(Param::Fixed(1.7)), Some(1.7)),
        ] {
            for prior in &priors {
                let Ok(f) = fit(7, &table.pairs(), model, prior, &opts()) else {
                    assert!(matches!(prior, Prior::None));
                    continue;
                };
                assert!(f.converged, "{name} {prior:?}");
                let mut x = f.theta.clone();
                if extra.is_none() {
                    let v = f.tie_parameter.unwrap();
                    x.push(v.ln());
                }
                let obj = |y: &[f64]| naive(name, &table, y, extra, prior);
                let g = centred_gradient(&obj, &x, 7);
                for (k, v) in g.iter().enumerate() {
                    assert!(v.abs() < 1e-5, "{name} {prior:?} seed {seed}: gradient {k} = {v}");
                }
                assert!((obj(&x) - f.objective).abs() < 1e-9 * f.objective.abs().max(1.0));
                no_better_point(&obj, &x, 7, 1e-3);
            }
        }
    }
}

#[test]
fn hessian_and_covariance_at_the_optimum() {
    let table = Table::random(6, 3, 8, 100);
    let f = fit(6, &table.pairs(), Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    let mut x = f.theta.clone();
    x.push(f.tie_parameter.unwrap().ln());
    let dim = 7;
    // Hessian against differences of the naive objective's gradient.
    let obj = |y: &[f64]| naive("davidson", &table, y, None, &Prior::None);
    let h = 1e-4;
    for k in 0..dim {
        let mut up = x.clone();
        let mut down = x.clone();
        up[k] += h;
        down[k] -= h;
        let gu = plain_gradient(&obj, &up);
        let gd = plain_gradient(&obj, &down);
        for m in 0..dim {
            let fd = (gu[m] - gd[m]) / (2.0 * h);
            // (differences of differences: ~1e-4 of noise)
            assert!(
                (fd - f.hessian[m * dim + k]).abs() < 1e-3 * (1.0 + fd.abs()),
                "H[{m},{k}]"
            );
        }
    }
    // The covariance is the constrained inverse: C H C = C, C c = 0.
    let c = f.covariance().unwrap();
    let ch: Vec<f64> = (0..dim * dim)
        .map(|e| {
            (0..dim)
                .map(|k| c[(e / dim) * dim + k] * f.hessian[k * dim + e % dim])
                .sum()
        })
        .collect();
    for r in 0..dim {
        let row_sum: f64 = (0..6).map(|k| c[r * dim + k]).sum();
        assert!(row_sum.abs() < 1e-10);
        for q in 0..dim {
            let chc: f64 = (0..dim).map(|k| ch[r * dim + k] * c[k * dim + q]).sum();
            assert!((chc - c[r * dim + q]).abs() < 1e-9 * (1.0 + c[r * dim + q].abs()));
        }
    }
}

fn plain_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    let h = 1e-6;
    (0..x.len())
        .map(|k| {
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            up[k] += h;
            down[k] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

#[test]
fn laplace_optimum_satisfies_the_subgradient_conditions() {
    let mut held_seen = 0;
    for seed in 0..12 {
        let table = Table::random(8, seed + 40, 3, 60);
        for (loc, weight) in [(0.0, 2.0), (0.3, 1.0), (-0.2, 4.0)] {
            let prior = Prior::Laplace { loc, weight };
            let f = fit(8, &table.pairs(), Model::BradleyTerry(Ties::Ignore), &prior, &opts()).unwrap();
            assert!(f.converged, "seed {seed}");
            // Smooth gradient from the definition; the multiplier from the free coordinates.
            let smooth = |y: &[f64]| naive("bt", &table, y, Some(1.0), &Prior::None);
            let g = plain_gradient(&smooth, &f.theta);
            let free: Vec<usize> = (0..8).filter(|&k| f.theta[k] != loc).collect();
            let mu = if free.is_empty() {
                // All at loc: the multiplier centres the gradient's range.
                let (lo, hi) = g.iter().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
                -(lo + hi) / 2.0
            } else {
                -free
                    .iter()
                    .map(|&k| g[k] + weight * (f.theta[k] - loc).signum())
                    .sum::<f64>()
                    / free.len() as f64
            };
            for k in 0..8 {
                if f.theta[k] == loc {
                    held_seen += 1;
                    assert!(f.held[k]);
                    assert!((g[k] + mu).abs() <= weight + 1e-6, "held {k}: {}", g[k] + mu);
                } else {
                    let r = g[k] + weight * (f.theta[k] - loc).signum() + mu;
                    assert!(r.abs() < 1e-6, "seed {seed} free {k}: {r}");
                }
            }
            let obj = |y: &[f64]| naive("bt", &table, y, Some(1.0), &prior);
            no_better_point(&obj, &f.theta, 8, 1e-4);
        }
    }
    assert!(held_seen > 0, "no case exercised the kink");
}

#[test]
fn refusals_not_panics() {
    let p = Pairs {
        i: &[0, 1],
        j: &[1, 2],
        win_i: &[3.0, 2.0],
        win_j: &[0.0, 1.0],
        tie: &[0.0, 0.0],
    };
    // Item 0 only wins: no finite maximum likelihood...
    let e = fit(3, &p, Model::BradleyTerry(Ties::Ignore), &Prior::None, &opts()).unwrap_err();
    assert!(e.to_string().contains("not strongly connected"));
    // ...but a penalty holds it.
    let prec = [1.0; 3];
    let mean = [0.0; 3];
    let g = Prior::Gaussian {
        mean: &mean,
        precision: &prec,
    };
    assert!(
        fit(3, &p, Model::BradleyTerry(Ties::Ignore), &g, &opts())
            .unwrap()
            .converged
    );
    // An item without comparisons.
    let e = fit(4, &p, Model::BradleyTerry(Ties::Ignore), &Prior::None, &opts()).unwrap_err();
    assert!(e.to_string().contains("not strongly connected"));
    // Fitted tie parameter without decisive outcomes.
    let ties = Pairs {
        i: &[0],
        j: &[1],
        win_i: &[0.0],
        win_j: &[0.0],
        tie: &[4.0],
    };
    let e = fit(2, &ties, Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap_err();
    assert!(e.to_string().contains("tie parameter"));
    // kappa = 1 with ties; bad parameters.
    let p2 = Pairs {
        i: &[0],
        j: &[1],
        win_i: &[1.0],
        win_j: &[1.0],
        tie: &[1.0],
    };
    assert!(fit(2, &p2, Model::RaoKupper(Param::Fixed(1.0)), &Prior::None, &opts()).is_err());
    assert!(fit(2, &p2, Model::RaoKupper(Param::Fixed(0.5)), &Prior::None, &opts()).is_err());
    assert!(fit(2, &p2, Model::Davidson(Param::Fixed(-1.0)), &Prior::None, &opts()).is_err());
    assert!(fit(0, &p2, Model::Davidson(Param::Fitted), &Prior::None, &opts()).is_err());
    // No ties: a fitted tie parameter sits on its boundary (the BT fit).
    let no_ties = Pairs {
        i: &[0],
        j: &[1],
        win_i: &[2.0],
        win_j: &[1.0],
        tie: &[0.0],
    };
    let d = fit(2, &no_ties, Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    assert_eq!(d.tie_parameter, Some(0.0));
    let r = fit(2, &no_ties, Model::RaoKupper(Param::Fitted), &Prior::None, &opts()).unwrap();
    assert_eq!(r.tie_parameter, Some(1.0));
}

/// A hook (a user's penalty with its own derivatives) adds to the prior.
struct Quadratic(f64);

impl Hook for Quadratic {
    fn eval(&self, theta: &[f64], derivatives: Option<(&mut [f64], &mut [f64])>) -> Result<f64> {
        if let Some((g, h)) = derivatives {
            for k in 0..theta.len() {
                g[k] += self.0 * theta[k];
                h[k] += self.0;
            }
        }
        Ok(0.5 * self.0 * theta.iter().map(|t| t * t).sum::<f64>())
    }
}

#[test]
fn a_hook_is_the_same_penalty_as_the_prior() {
    let table = Table::random(6, 77, 4, 50);
    let mean = [0.0; 6];
    let prec = [0.7; 6];
    let by_prior = fit(
        6,
        &table.pairs(),
        Model::BradleyTerry(Ties::Ignore),
        &Prior::Gaussian {
            mean: &mean,
            precision: &prec,
        },
        &opts(),
    )
    .unwrap();
    let hook = Quadratic(0.7);
    let options = Options {
        hook: Some(&hook),
        ..Options::default()
    };
    let by_hook = fit(
        6,
        &table.pairs(),
        Model::BradleyTerry(Ties::Ignore),
        &Prior::None,
        &options,
    )
    .unwrap();
    for k in 0..6 {
        assert!((by_prior.theta[k] - by_hook.theta[k]).abs() < 1e-12);
    }
}

#[test]
fn repeated_rows_add_up_and_order_does_not_matter() {
    let table = Table::random(6, 5, 4, 100);
    let f = fit(6, &table.pairs(), Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    // Each row split in two halves, listed j-first.
    let mut t2 = Table::default();
    for r in (0..table.i.len()).rev() {
        for _ in 0..2 {
            let (a, b) = (table.j[r] as usize, table.i[r] as usize);
            t2.push(a, b, table.wj[r] / 2.0, table.wi[r] / 2.0, table.t[r] / 2.0);
        }
    }
    let g = fit(6, &t2.pairs(), Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    for k in 0..6 {
        assert!((f.theta[k] - g.theta[k]).abs() < 1e-12);
    }
    assert!((f.tie_parameter.unwrap() - g.tie_parameter.unwrap()).abs() < 1e-12);
}

#[test]
fn a_large_table_converges_and_parallel_fits_agree() {
    // 200 items, 40,000 rows (repeated pairs), Davidson with nu fitted.
    let items = 200;
    let mut state = 7u64;
    let mut next = |m: u64| (lcg(&mut state) >> 33) % m;
    let strength: Vec<f64> = (0..items).map(|k| (k as f64 / items as f64 - 0.5) * 4.0).collect();
    let mut t = Table::default();
    for _ in 0..40_000 {
        let a = next(items as u64) as usize;
        let b = (a + 1 + next(items as u64 - 1) as usize) % items;
        let p = 1.0 / (1.0 + (strength[b] - strength[a]).exp());
        let (wa, wb) = ((p * 10.0).round(), ((1.0 - p) * 10.0).round());
        t.push(a, b, wa + next(3) as f64, wb + next(3) as f64, next(4) as f64);
    }
    let f = fit(items, &t.pairs(), Model::Davidson(Param::Fitted), &Prior::None, &opts()).unwrap();
    assert!(
        f.converged && f.iterations < 30,
        "{} iterations, residual {}",
        f.iterations,
        f.residual
    );
    use rayon::prelude::*;
    let thetas: Vec<Vec<f64>> = (0..4)
        .into_par_iter()
        .map(|_| {
            fit(items, &t.pairs(), Model::Davidson(Param::Fitted), &Prior::None, &opts())
                .unwrap()
                .theta
        })
        .collect();
    for theta in thetas {
        assert_eq!(theta, f.theta, "fits are deterministic on any thread");
    }
}

/// Timing of the arena's size (200 items, 40,000 rows): `cargo test --release
/// -p kscore-core timing_200 -- --ignored --nocapture` (a measurement, not a check).
#[test]
#[ignore]
fn timing_200_items_40000_rows() {
    let items = 200;
    let mut state = 3u64;
    let mut next = |m: u64| (lcg(&mut state) >> 33) % m;
    let mut t = Table::default();
    for _ in 0..40_000 {
        let a = next(items as u64) as usize;
        let b = (a + 1 + next(items as u64 - 1) as usize) % items;
        t.push(a, b, next(12) as f64, next(12) as f64, next(3) as f64);
    }
    for model in [Model::BradleyTerry(Ties::Ignore), Model::Davidson(Param::Fitted)] {
        let start = std::time::Instant::now();
        let mut f = None;
        for _ in 0..20 {
            f = Some(fit(items, &t.pairs(), model, &Prior::None, &opts()).unwrap());
        }
        let f = f.unwrap();
        eprintln!(
            "{model:?}: {:.2} ms per fit, {} iterations",
            start.elapsed().as_secs_f64() * 50.0,
            f.iterations
        );
    }
}
