//! The paired-comparison likelihoods: each pair's negative log-likelihood,
//! its gradient and Hessian in the log-strengths `a = theta_i`,
//! `b = theta_j` and the log tie parameter `s`, written so that nothing
//! cancels (each term is minus the log of a probability, from
//! `softplus`/`logsumexp` forms).
//!
//! Every model is invariant to shifting all `theta` by a constant, so the
//! derivatives of one pair satisfy `g_b = -g_a`, `H_bb = H_aa = -H_ab`,
//! `H_bs = -H_as`: a pair's contribution is the six numbers of [`Term`].

/// How Bradley-Terry treats ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// Ties carry no information (scorio's `bradley_terry`).
    Ignore,
    /// A tie counts as half a win for each side (Elo's convention).
    HalfWin,
}

/// A tie parameter: fixed at a value, or fitted with the strengths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Param {
    Fixed(f64),
    Fitted,
}

/// The paired-comparison model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Model {
    /// `P(i > j) = pi_i / (pi_i + pi_j)` (Bradley & Terry 1952).
    BradleyTerry(Ties),
    /// Davidson (1970): `P(i > j) = pi_i / D`, `P(tie) = nu sqrt(pi_i pi_j) / D`,
    /// `D = pi_i + pi_j + nu sqrt(pi_i pi_j)`, `nu > 0`.
    Davidson(Param),
    /// Rao & Kupper (1967): `P(i > j) = pi_i / (pi_i + kappa pi_j)`,
    /// `P(tie) = (kappa^2 - 1) pi_i pi_j / ((pi_i + kappa pi_j)(kappa pi_i + pi_j))`,
    /// `kappa >= 1` (scorio's `tie_strength`; `kappa = exp(threshold)`).
    RaoKupper(Param),
}

impl Model {
    /// Whether the tie parameter is a variable of the fit.
    pub fn fits_extra(&self) -> bool {
        matches!(self, Model::Davidson(Param::Fitted) | Model::RaoKupper(Param::Fitted))
    }

    /// Whether ties enter the likelihood.
    pub fn uses_ties(&self) -> bool {
        !matches!(self, Model::BradleyTerry(Ties::Ignore))
    }
}

/// One pair's contribution: the value, `g_a`, `g_s`, `H_aa`, `H_as`, `H_ss`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Term {
    pub value: f64,
    pub ga: f64,
    pub gs: f64,
    pub h: f64,
    pub has: f64,
    pub hss: f64,
}

/// `log(1 + exp(x))` without overflow or cancellation, with `exp(-|x|)`.
#[inline]
fn softplus_parts(x: f64) -> (f64, f64) {
    let e = (-x.abs()).exp();
    (x.max(0.0) + e.ln_1p(), e)
}

/// Bradley-Terry: `d = a - b`, weights of `i` and `j` winning.
#[inline]
pub fn bradley_terry(d: f64, wi: f64, wj: f64) -> Term {
    let e = (-d.abs()).exp();
    let l = e.ln_1p();
    // -log P(i > j) = softplus(-d), -log P(j > i) = softplus(d)
    let value = wi * ((-d).max(0.0) + l) + wj * (d.max(0.0) + l);
    let one = 1.0 + e;
    let p = if d >= 0.0 { 1.0 / one } else { e / one };
    let n = wi + wj;
    Term {
        value,
        ga: n * p - wi,
        gs: 0.0,
        h: n * (e / (one * one)),
        has: 0.0,
        hss: 0.0,
    }
}

/// Davidson with `s = log nu`.
#[inline]
pub fn davidson(a: f64, b: f64, s: f64, wi: f64, wj: f64, t: f64) -> Term {
    let u3 = s + 0.5 * (a + b);
    let m = a.max(b).max(u3);
    let (e1, e2, e3) = ((a - m).exp(), (b - m).exp(), (u3 - m).exp());
    let z = e1 + e2 + e3;
    let lz = z.ln();
    let (q1, q2, q3) = (e1 / z, e2 / z, e3 / z);
    // -log of each probability: log D - u_k = ln z + (m - u_k).
    let value = wi * (lz + (m - a)) + wj * (lz + (m - b)) + t * (lz + (m - u3));
    let n = wi + wj + t;
    let q12 = q1 + q2;
    Term {
        value,
        ga: n * (q1 + 0.5 * q3) - wi - 0.5 * t,
        gs: n * q3 - t,
        h: n * (q1 * q2 + 0.25 * q3 * q12),
        has: n * 0.5 * (q2 - q1) * q3,
        hss: n * q3 * q12,
    }
}

/// The `s`-only pieces of Rao-Kupper's tie probability,
/// `log(kappa^2 - 1)` and its first two derivatives in `s = log kappa`.
#[derive(Clone, Copy, Debug)]
pub struct RaoKupperTie {
    pub log_gap: f64,
    pub d1: f64,
    pub d2: f64,
}

impl RaoKupperTie {
    pub fn new(s: f64) -> Self {
        // kappa^2 - 1 = expm1(2s); d/ds = 2 / (1 - e^{-2s}); d2 = -4 e^{-2s} / (1 - e^{-2s})^2
        let em = -(-2.0 * s).exp_m1(); // 1 - e^{-2s}
        let back = (-2.0 * s).exp();
        RaoKupperTie {
            log_gap: (2.0 * s).exp_m1().ln(),
            d1: 2.0 / em,
            d2: -4.0 * back / (em * em),
        }
    }
}

/// Rao-Kupper with `s = log kappa` (`tie` from `RaoKupperTie::new(s)`).
#[inline]
pub fn rao_kupper(a: f64, b: f64, s: f64, tie: &RaoKupperTie, wi: f64, wj: f64, t: f64) -> Term {
    // -log P(i > j) = softplus(s + b - a); -log P(j > i) = softplus(s + a - b);
    // -log P(tie) = both - log(kappa^2 - 1).
    let x1 = a - s - b;
    let x2 = s + a - b;
    let (sp1, e1) = softplus_parts(-x1);
    let (sp2, e2) = softplus_parts(x2);
    let (n1, n2) = (wi + t, wj + t);
    let mut value = n1 * sp1 + n2 * sp2;
    if t > 0.0 {
        value -= t * tie.log_gap;
    }
    // p1 = sigma(x1), p2 = sigma(x2); 1 - p1 = sigma(-x1).
    let one1 = 1.0 + e1;
    let (_, q1) = if x1 >= 0.0 {
        (1.0 / one1, e1 / one1)
    } else {
        (e1 / one1, 1.0 / one1)
    };
    let one2 = 1.0 + e2;
    let (p2, _) = if x2 >= 0.0 {
        (1.0 / one2, e2 / one2)
    } else {
        (e2 / one2, 1.0 / one2)
    };
    let c1 = n1 * (e1 / (one1 * one1));
    let c2 = n2 * (e2 / (one2 * one2));
    let (gs_tie, hss_tie) = if t > 0.0 {
        (-t * tie.d1, -t * tie.d2)
    } else {
        (0.0, 0.0)
    };
    Term {
        value,
        ga: -n1 * q1 + n2 * p2,
        gs: gs_tie + n1 * q1 + n2 * p2,
        h: c1 + c2,
        has: c2 - c1,
        hss: c1 + c2 + hss_tie,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Central differences of `f` at `x` in coordinate `k`.
    fn diff(f: &dyn Fn(&[f64; 3]) -> f64, x: [f64; 3], k: usize) -> f64 {
        let h = 1e-5;
        let (mut up, mut down) = (x, x);
        up[k] += h;
        down[k] -= h;
        (f(&up) - f(&down)) / (2.0 * h)
    }

    /// The naive probabilities of each model, straight from its definition.
    fn naive(model: &str, x: &[f64; 3], w: (f64, f64, f64)) -> f64 {
        let (pi, pj, e) = (x[0].exp(), x[1].exp(), x[2].exp());
        let (win_i, win_j, tie) = match model {
            "bt" => (pi / (pi + pj), pj / (pi + pj), 1.0),
            "davidson" => {
                let d = pi + pj + e * (pi * pj).sqrt();
                (pi / d, pj / d, e * (pi * pj).sqrt() / d)
            }
            _ => {
                let k = e;
                let (d1, d2) = (pi + k * pj, k * pi + pj);
                (pi / d1, pj / d2, (k * k - 1.0) * pi * pj / (d1 * d2))
            }
        };
        -(w.0 * win_i.ln() + w.1 * win_j.ln() + w.2 * tie.ln())
    }

    fn term(model: &str, x: &[f64; 3], w: (f64, f64, f64)) -> Term {
        match model {
            "bt" => bradley_terry(x[0] - x[1], w.0, w.1),
            "davidson" => davidson(x[0], x[1], x[2], w.0, w.1, w.2),
            _ => rao_kupper(x[0], x[1], x[2], &RaoKupperTie::new(x[2]), w.0, w.1, w.2),
        }
    }

    #[test]
    fn terms_match_the_definitions_and_their_differences() {
        let w = (3.0, 1.5, 2.0);
        for model in ["bt", "davidson", "rk"] {
            let w = if model == "bt" { (w.0, w.1, 0.0) } else { w };
            for x in [
                [0.3, -0.2, 0.4],
                [2.5, -1.0, 0.05],
                [-4.0, 3.0, 1.3],
                [10.0, -12.0, 0.7],
            ] {
                let t = term(model, &x, w);
                let want = naive(model, &x, w);
                assert!(
                    (t.value - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "{model} {x:?}: {} {want}",
                    t.value
                );
                let f = |y: &[f64; 3]| naive(model, y, w);
                let close = |got: f64, fd: f64| (got - fd).abs() < 1e-6 * (1.0 + fd.abs().max(t.value.abs()));
                let tol = 1e-6 * (1.0 + t.value.abs());
                assert!((t.ga - diff(&f, x, 0)).abs() < tol, "{model} ga {x:?}");
                assert!((-t.ga - diff(&f, x, 1)).abs() < tol, "{model} gb {x:?}");
                if model != "bt" {
                    assert!((t.gs - diff(&f, x, 2)).abs() < tol, "{model} gs {x:?}");
                }
                let ga = |y: &[f64; 3]| term(model, y, w).ga;
                let gs = |y: &[f64; 3]| term(model, y, w).gs;
                assert!((t.h - diff(&ga, x, 0)).abs() < tol, "{model} h {x:?}");
                assert!((t.h + diff(&ga, x, 1)).abs() < tol, "{model} hab {x:?}");
                if model != "bt" {
                    assert!((t.has - diff(&ga, x, 2)).abs() < tol, "{model} has {x:?}");
                    let fd = diff(&gs, x, 2);
                    assert!(close(t.hss, fd), "{model} hss {x:?}: {} {fd}", t.hss);
                }
            }
        }
    }
}
