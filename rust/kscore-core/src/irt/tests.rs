//! Derivatives against finite differences, and fits that end at a zero
//! projected gradient.

use super::logistic::{Guessing, Logistic};
use super::newton::{minimise, Model, Setup};
use super::prior::Prior;
use super::rasch::Rasch;

/// A small deterministic pseudo-random board.
fn board(l: usize, m: usize, n: u32, seed: u64) -> Vec<u8> {
    let mut s = seed;
    let mut next = || {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (s >> 33) as f64 / (1u64 << 31) as f64
    };
    let mut k = vec![0u8; l * m];
    for i in 0..l {
        for j in 0..m {
            let p = 1.0 / (1.0 + (-(i as f64 / l as f64 * 3.0 - 1.5 - (j as f64 / m as f64 * 2.0 - 1.0))).exp());
            k[i * m + j] = (0..n).filter(|_| next() < p).count() as u8;
        }
    }
    k
}

fn check_derivatives<M: Model>(model: &mut M, x: &[f64]) {
    let n = x.len();
    let (nt, ni, p) = (model.n_theta(), model.n_items(), model.p());
    let mut g = vec![0.0; n];
    let mut d = vec![0.0; nt];
    let mut b = vec![0.0; ni * p * p];
    let f0 = model.eval(x, &mut g, &mut d, &mut b).unwrap();
    assert!(f0.is_finite());
    let mut scratch = (vec![0.0; n], vec![0.0; nt], vec![0.0; ni * p * p]);
    let h = 1e-6;
    let mut val =
        |model: &mut M, y: &[f64], grad: &mut Vec<f64>| model.eval(y, grad, &mut scratch.1, &mut scratch.2).unwrap();
    for i in 0..n {
        let mut y = x.to_vec();
        y[i] += h;
        let mut gp = vec![0.0; n];
        let fp = val(model, &y, &mut gp);
        y[i] -= 2.0 * h;
        let mut gm = vec![0.0; n];
        let fm = val(model, &y, &mut gm);
        let fd = (fp - fm) / (2.0 * h);
        assert!(
            (fd - g[i]).abs() <= 1e-5 * (1.0 + g[i].abs()),
            "gradient {i}: {fd} vs {}",
            g[i]
        );
    }
    // Hessian-vector products against differences of gradients.
    let v: Vec<f64> = (0..n).map(|i| ((i * 7919) % 13) as f64 / 13.0 - 0.4).collect();
    let mut gp = vec![0.0; n];
    let mut gm = vec![0.0; n];
    let yp: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + h * b).collect();
    let ym: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a - h * b).collect();
    val(model, &yp, &mut gp);
    val(model, &ym, &mut gm);
    model.eval(x, &mut scratch.0, &mut d, &mut b).unwrap();
    let mut hv = vec![0.0; n];
    model.hv(x, &v, &mut hv).unwrap();
    for i in 0..n {
        let fd = (gp[i] - gm[i]) / (2.0 * h);
        // float32 cache of sigmoid(z): about 1e-7 relative.
        assert!(
            (fd - hv[i]).abs() <= 1e-4 * (1.0 + fd.abs()),
            "Hv {i}: {fd} vs {}",
            hv[i]
        );
    }
}

fn start(l: usize, m: usize, p: usize) -> Vec<f64> {
    let mut x = vec![0.0; l + m * p];
    for (i, xi) in x.iter_mut().enumerate().take(l) {
        *xi = 0.3 * (i as f64) / l as f64 - 0.1;
    }
    for j in 0..m {
        x[l + j * p] = 0.2 * (j as f64 / m as f64) - 0.1;
        if p > 1 {
            x[l + j * p + 1] = 0.1 * ((j % 3) as f64 - 1.0);
        }
        if p > 2 {
            x[l + j * p + 2] = -0.5 + 0.1 * (j % 2) as f64;
        }
    }
    x
}

#[test]
fn logistic_derivatives() {
    let (l, m, n) = (5, 7, 3);
    let k = board(l, m, n, 1);
    for guessing in [
        Guessing::Zero,
        Guessing::Fixed(0.2),
        Guessing::Free { upper: 0.5, reg: 0.1 },
    ] {
        let mut model = Logistic::new(&k, l, m, n, guessing, 0.01);
        let x = start(l, m, model.p());
        check_derivatives(&mut model, &x);
    }
}

#[test]
fn rasch_derivatives() {
    let mut model = Rasch::new(
        3,
        vec![1.0, 2.0, 1.0],
        vec![4.0, 10.0, 8.0],
        vec![2.0, 1.0, 3.0],
        vec![5.0, 4.0, 13.0],
    );
    let x = vec![0.1, -0.3, 0.5, 0.2, -0.1, 0.05];
    check_derivatives(&mut model, &x);
}

fn projected_gradient_is_zero<M: Model>(model: &mut M, x: &[f64], prior: &Prior, counts: &[f64], weights: &[f64]) {
    let n = x.len();
    let (nt, ni, p) = (model.n_theta(), model.n_items(), model.p());
    let mut g = vec![0.0; n];
    model
        .eval(x, &mut g, &mut vec![0.0; nt], &mut vec![0.0; ni * p * p])
        .unwrap();
    for j in 0..nt {
        g[j] += counts[j] * prior.term(j, x[j]).1;
    }
    // The difficulties' gradient is a multiple of the centring weights.
    let (mut wg, mut ww) = (0.0, 0.0);
    for i in 0..ni {
        wg += weights[i] * g[nt + i * p];
        ww += weights[i] * weights[i];
    }
    for i in 0..ni {
        g[nt + i * p] -= wg / ww * weights[i];
    }
    let centre: f64 = (0..ni).map(|i| weights[i] * x[nt + i * p]).sum();
    assert!(centre.abs() < 1e-12, "centring {centre}");
    // The fits stop once a full Newton step is below 1e-11; the gradient
    // left is that step times the curvature (at most about L N / 4 = 6 here).
    for (i, v) in g.iter().enumerate() {
        assert!(v.abs() < 1e-10, "gradient {i} = {v}");
    }
}

#[test]
fn fits_reach_a_stationary_point() {
    let (l, m, n) = (6, 9, 4);
    let k = board(l, m, n, 7);
    for (guessing, prior) in [
        (Guessing::Zero, Prior::Flat),
        (
            Guessing::Zero,
            Prior::Gaussian {
                mean: vec![0.0],
                var: vec![1.0],
            },
        ),
        (Guessing::Fixed(0.2), Prior::Cauchy { loc: 0.0, scale: 1.0 }),
        (Guessing::Free { upper: 0.5, reg: 0.1 }, Prior::Flat),
    ] {
        let mut model = Logistic::new(&k, l, m, n, guessing, 0.01);
        let p = model.p();
        let tw = vec![1.0; l];
        let iw = vec![1.0; m];
        let setup = Setup {
            prior: &prior,
            theta_weight: &tw,
            item_weight: &iw,
            bound: Some((1, -8.0, 8.0)),
            max_iter: 200,
        };
        let fit = minimise(&mut model, &setup, &start(l, m, p)).unwrap();
        assert!(fit.converged, "{guessing:?} {prior:?}: {fit:?}");
        projected_gradient_is_zero(&mut model, &fit.x, &prior, &tw, &iw);
    }
}

#[test]
fn rasch_fit_and_laplace_kinks() {
    let counts = vec![1.0, 2.0, 1.0, 1.0];
    let totals = vec![3.0, 10.0, 9.0, 2.0];
    let icounts = vec![2.0, 1.0, 2.0];
    let itotals = vec![6.0, 4.0, 14.0];
    for prior in [
        Prior::Flat,
        Prior::Gaussian {
            mean: vec![0.0],
            var: vec![0.5],
        },
        Prior::Laplace { loc: 0.0, scale: 0.2 },
    ] {
        let mut model = Rasch::new(3, counts.clone(), totals.clone(), icounts.clone(), itotals.clone());
        let setup = Setup {
            prior: &prior,
            theta_weight: &counts,
            item_weight: &icounts,
            bound: None,
            max_iter: 100,
        };
        let fit = minimise(&mut model, &setup, &[0.0; 7]).unwrap();
        assert!(fit.converged, "{prior:?}: {fit:?}");
        if prior.kink().is_none() {
            projected_gradient_is_zero(&mut model, &fit.x, &prior, &counts, &icounts);
        } else {
            // A strong Laplace prior holds some abilities at its location.
            assert!(fit.x[..4].contains(&0.0), "{:?}", fit.x);
            assert!(fit.gradient < 1e-9, "{fit:?}");
        }
    }
}
