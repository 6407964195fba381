//! The setwise likelihoods against their definitions: values by brute
//! force over subsets, derivatives by differences, the profiled
//! Davidson-Luce optimum against the full likelihood in `(theta, delta)`.
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use super::luce::{Composite, DavidsonLuce};
use super::*;
use crate::pairwise::counts::Packed;
use crate::pairwise::newton::Objective;

fn random_rows(models: usize, events: usize, seed: u64) -> Vec<Vec<u8>> {
    crate::testutil::random_rows(models, events, seed, |m| 30 + 10 * m as u64 % 50)
}

fn events_of(rows: &[Vec<u8>]) -> Events {
    let (data, bytes) = crate::testutil::pack_rows(rows);
    let events = rows[0].len();
    Events::of(Packed {
        data: &data,
        rows: rows.len(),
        bytes,
        events,
    })
}

#[test]
fn events_drop_unanimous_columns_and_count_repeats() {
    let rows = vec![vec![1, 1, 0, 1, 0], vec![0, 1, 0, 0, 1], vec![1, 1, 0, 1, 0]];
    let ev = events_of(&rows);
    assert_eq!(ev.winners, vec![vec![0, 2], vec![1]]);
    assert_eq!(ev.counts, vec![2.0, 1.0]);
    assert_eq!(ev.by_order(), vec![1.0, 2.0, 0.0]);
    assert_eq!(ev.losers(0), vec![1]);
    // model 0 wins two events with 2 winners
    assert_eq!(ev.memberships()[0..3], [0.0, 2.0, 0.0]);
    assert!(ev.strongly_connected(false)); // 0 -> 1 -> 2 -> 1 -> 0
                                           // Model 2 never loses: connected only through co-winner edges.
    let ev = events_of(&[vec![1, 0], vec![0, 1], vec![1, 1]]);
    assert!(!ev.strongly_connected(false));
    assert!(ev.strongly_connected(true));
}

/// `e_t(x)` by brute force over subsets.
fn elementary(x: &[f64], t: usize) -> f64 {
    let n = x.len();
    (0u32..1 << n)
        .filter(|m| m.count_ones() as usize == t)
        .map(|m| (0..n).filter(|&i| m >> i & 1 == 1).map(|i| x[i]).product::<f64>())
        .sum()
}

/// scorio's Davidson-Luce negative log-likelihood in (theta, log delta_2..D).
fn full_davidson_luce(ev: &Events, theta: &[f64], log_delta: &[f64]) -> f64 {
    let l = ev.models;
    let z: f64 = (1..=l - 1)
        .map(|t| {
            let d = if t == 1 { 0.0 } else { log_delta[t - 2] };
            let x: Vec<f64> = theta.iter().map(|a| (a / t as f64).exp()).collect();
            d.exp() * elementary(&x, t)
        })
        .sum();
    ev.winners
        .iter()
        .zip(&ev.counts)
        .map(|(w, &c)| {
            let t = w.len();
            let d = if t == 1 { 0.0 } else { log_delta[t - 2] };
            let mean: f64 = w.iter().map(|&i| theta[i as usize]).sum::<f64>() / t as f64;
            -c * (d + mean - z.ln())
        })
        .sum()
}

fn gradient_by_differences(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|k| {
            let h = 1e-6;
            let mut up = x.to_vec();
            let mut down = x.to_vec();
            up[k] += h;
            down[k] -= h;
            (f(&up) - f(&down)) / (2.0 * h)
        })
        .collect()
}

#[test]
fn derivatives_match_differences() {
    let rows = random_rows(6, 40, 3);
    let ev = events_of(&rows);
    let x = [0.3, -0.7, 0.1, 1.2, -0.5, -0.4];
    let objectives: [Box<dyn Objective>; 2] =
        [Box::new(Composite::new(&ev)), Box::new(DavidsonLuce::new(&ev).unwrap())];
    for obj in &objectives {
        let mut g = vec![0.0; 6];
        let mut h = vec![0.0; 36];
        let v = obj.evaluate(&x, Some((&mut g, &mut h))).unwrap();
        assert_eq!(v, obj.evaluate(&x, None).unwrap());
        let f = |y: &[f64]| obj.evaluate(y, None).unwrap();
        let fd = gradient_by_differences(&f, &x);
        for k in 0..6 {
            assert!(
                (g[k] - fd[k]).abs() < 1e-6 * (1.0 + fd[k].abs()),
                "g[{k}] {} {}",
                g[k],
                fd[k]
            );
        }
        if obj.extra() == 0
            && std::ptr::eq(
                obj.as_ref() as *const dyn Objective as *const u8,
                objectives[1].as_ref() as *const dyn Objective as *const u8,
            )
        {
            // Davidson-Luce's Hessian is Hajek's approximation: symmetric,
            // null along 1, positive semi-definite diagonal.
            for k in 0..6 {
                let row: f64 = (0..6).map(|m| h[k * 6 + m]).sum();
                assert!(row.abs() < 1e-12 && h[k * 7] > 0.0);
            }
            continue;
        }
        for k in 0..6 {
            let gk = |y: &[f64]| {
                let mut gg = vec![0.0; 6];
                let mut hh = vec![0.0; 36];
                obj.evaluate(y, Some((&mut gg, &mut hh))).unwrap();
                gg[k]
            };
            let fd = gradient_by_differences(&gk, &x);
            for m in 0..6 {
                assert!((h[k * 6 + m] - fd[m]).abs() < 1e-5 * (1.0 + fd[m].abs()), "h[{k},{m}]");
            }
        }
    }
}

#[test]
fn composite_value_is_the_rank_breaking_likelihood() {
    let rows = random_rows(5, 30, 8);
    let ev = events_of(&rows);
    let x: [f64; 5] = [0.5, -0.2, 0.9, -1.0, -0.2];
    let want: f64 = (0..ev.winners.len())
        .map(|k| {
            let s: f64 = ev.losers(k).iter().map(|&j| x[j as usize].exp()).sum();
            ev.winners[k]
                .iter()
                .map(|&i| ev.counts[k] * ((x[i as usize].exp() + s).ln() - x[i as usize]))
                .sum::<f64>()
        })
        .sum();
    let got = Composite::new(&ev).evaluate(&x, None).unwrap();
    assert!((got - want).abs() < 1e-12 * want);
}

#[test]
fn profiled_davidson_luce_optimum_is_the_full_likelihoods() {
    // Every order 1..=4 observed among 5 models.
    let rows = random_rows(5, 60, 21);
    let ev = events_of(&rows);
    let by_order = ev.by_order();
    assert!(by_order[..4].iter().all(|&n| n > 0.0), "{by_order:?}");
    let sol = fit(&ev, Kind::DavidsonLuce, &Prior::None, &Default::default()).unwrap();
    assert!(sol.converged);
    let theta = &sol.x;
    // The optimal delta given theta: delta_t e_t / Z = n_t / E, delta_1 = 1.
    let c: Vec<f64> = (1..=4)
        .map(|t| elementary(&theta.iter().map(|a| (a / t as f64).exp()).collect::<Vec<_>>(), t))
        .collect();
    let log_delta: Vec<f64> = (2..=4)
        .map(|t| (by_order[t - 1] / by_order[0] * c[0] / c[t - 1]).ln())
        .collect();
    let mut x = theta.clone();
    x.extend(&log_delta);
    let f = |y: &[f64]| full_davidson_luce(&ev, &y[..5], &y[5..]);
    let g = gradient_by_differences(&f, &x);
    // theta's gradient along centred directions; delta's plainly.
    let mean = g[..5].iter().sum::<f64>() / 5.0;
    for (k, v) in g.iter().enumerate() {
        let v = if k < 5 { v - mean } else { *v };
        assert!(v.abs() < 1e-6, "full-likelihood gradient {k} = {v}");
    }
}

#[test]
fn two_models_composite_is_bradley_terry() {
    let rows = vec![vec![1, 1, 0, 1, 0, 1], vec![0, 1, 1, 0, 0, 0]];
    let ev = events_of(&rows);
    let sol = fit(&ev, Kind::Composite, &Prior::None, &Default::default()).unwrap();
    // 0 beat 1 three times, lost once.
    assert!((sol.x[0] - sol.x[1] - 3f64.ln()).abs() < 1e-13);
    let dl = fit(&ev, Kind::DavidsonLuce, &Prior::None, &Default::default()).unwrap();
    assert!((dl.x[0] - dl.x[1] - 3f64.ln()).abs() < 1e-9);
}

/// The composite likelihood's Hessian from its definition, pair by pair:
/// `d^2/dtheta_a dtheta_b` of `c log(pi_i + S)` over every winner `i`.
fn composite_hessian_by_pairs(ev: &Events, x: &[f64]) -> Vec<f64> {
    let l = ev.models;
    let pi: Vec<f64> = x.iter().map(|t| t.exp()).collect();
    let mut h = vec![0.0; l * l];
    for k in 0..ev.winners.len() {
        let (c, losers) = (ev.counts[k], ev.losers(k));
        let s: f64 = losers.iter().map(|&j| pi[j as usize]).sum();
        for &i in &ev.winners[k] {
            // The choice set {i} + losers: log-sum-exp's Hessian diag(q) - q q^T.
            let z = pi[i as usize] + s;
            let set: Vec<usize> = std::iter::once(i as usize)
                .chain(losers.iter().map(|&j| j as usize))
                .collect();
            for &u in &set {
                h[u * l + u] += c * pi[u] / z;
                for &v in &set {
                    h[u * l + v] -= c * pi[u] * pi[v] / (z * z);
                }
            }
        }
    }
    h
}

#[test]
fn composite_hessian_in_blocks_equals_the_pairwise_one() {
    // Large enough for several blocks of the cross term.
    for (models, events, seed) in [(60, 4000, 5u64), (7, 50, 6)] {
        let rows = random_rows(models, events, seed);
        let ev = events_of(&rows);
        let x: Vec<f64> = (0..models).map(|m| ((m * 37 % 11) as f64 - 5.0) * 0.1).collect();
        let mut g = vec![0.0; models];
        let mut h = vec![0.0; models * models];
        Composite::new(&ev).evaluate(&x, Some((&mut g, &mut h))).unwrap();
        let want = composite_hessian_by_pairs(&ev, &x);
        let size = want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for (k, (a, b)) in h.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-12 * size,
                "h[{}, {}]: {a} vs {b}",
                k / models,
                k % models
            );
        }
    }
}

/// Strong connectivity from the definition: a flag per edge, reachability
/// by search both ways.
fn connected_by_pairs(ev: &Events, co_winners: bool) -> bool {
    let l = ev.models;
    let mut edge = vec![false; l * l];
    for k in 0..ev.winners.len() {
        for &w in &ev.winners[k] {
            for &v in &ev.losers(k) {
                edge[w as usize * l + v as usize] = true;
            }
            if co_winners {
                for &v in &ev.winners[k] {
                    edge[w as usize * l + v as usize] = true;
                }
            }
        }
    }
    let reach = |forward: bool| {
        let mut seen = vec![false; l];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(a) = stack.pop() {
            for b in 0..l {
                let e = if forward { edge[a * l + b] } else { edge[b * l + a] };
                if e && !seen[b] {
                    seen[b] = true;
                    stack.push(b);
                }
            }
        }
        seen.iter().all(|&s| s)
    };
    reach(true) && reach(false)
}

#[test]
fn bitset_connectivity_matches_the_pairs() {
    // Few events among many models (often not connected), across the
    // 64-model word boundary; a never-winning and a never-losing model.
    let mut seen = [0usize; 2];
    for (models, events, seed) in [
        (3, 4, 1u64),
        (5, 3, 2),
        (63, 40, 3),
        (64, 80, 4),
        (65, 30, 5),
        (130, 200, 6),
    ] {
        for variant in 0..3 {
            let mut rows = random_rows(models, events, seed + 10 * variant);
            if variant == 1 {
                rows[models - 1].iter_mut().for_each(|v| *v = 0);
            }
            if variant == 2 {
                rows[0].iter_mut().for_each(|v| *v = 1);
            }
            let ev = events_of(&rows);
            for co in [false, true] {
                let want = connected_by_pairs(&ev, co);
                seen[want as usize] += 1;
                assert_eq!(
                    ev.strongly_connected(co),
                    want,
                    "{models} x {events} seed {seed} variant {variant} co {co}"
                );
            }
        }
    }
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
}
