//! Ties as their own outcome (`ties="davidson"|"rao_kupper"`): Davidson's
//! (1970) or Rao and Kupper's (1967) model fitted to a board's pair counts
//! by the crate's paired-comparison solver (`crate::pairwise`), the ratings
//! and the tie parameter (`nu`, `kappa`) together; their sandwich
//! covariance (clustered by prompt on request) and bootstrap rounds.
//!
//! The sandwich is `B M B` in `(theta, log nu | log kappa)`: `B` the
//! solver's constrained inverse Hessian at the fit (`Fit::covariance`, the
//! prior included), `M` the sum over battles (or prompts) of the outer
//! products of their scores, each battle's score being its outcome's
//! gradient from the model's own terms (`pairwise::model`). A fitted tie
//! parameter is the last coordinate; with no tie in the data it sits at its
//! boundary (`nu = 0`, `kappa = 1`: the Bradley-Terry fit) and is not a
//! coordinate.

use crate::battles::aggregate::Board;
use crate::battles::bootstrap::{resample, rounds_of, Rounds, Unit};
use crate::battles::rng::{Alias, Rng};
use crate::error::{Error, Result};
use crate::pairwise::model::{davidson, rao_kupper, RaoKupperTie, Term};
use crate::pairwise::table::strongly_connected;
use crate::pairwise::{self as pw, Model, Param};

/// The tie model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TieModel {
    Davidson,
    RaoKupper,
}

impl TieModel {
    fn model(self) -> Model {
        match self {
            TieModel::Davidson => Model::Davidson(Param::Fitted),
            TieModel::RaoKupper => Model::RaoKupper(Param::Fitted),
        }
    }
}

/// Per pair of the board: the weights of `pair_i` winning, of `pair_j`
/// winning and of ties, for row counts `counts`.
pub fn outcomes(board: &Board, counts: &[f64]) -> [Vec<f64>; 3] {
    let p = board.pair_i.len();
    let mut out = [vec![0.0; p], vec![0.0; p], vec![0.0; p]];
    for (r, &c) in counts.iter().enumerate().take(board.row_pair.len()) {
        if c != 0.0 {
            let k = board.row_pair[r] as usize;
            // row_outcome: the result of pair_i (0 loss, 1 tie, 2 win)
            let slot = match board.row_outcome[r] {
                2 => 0,
                0 => 1,
                _ => 2,
            };
            out[slot][k] += c * board.row_weight[r];
        }
    }
    out
}

/// Whether the unpenalised fit has a finite optimum: every model reaches
/// every other along "beat or tied" edges (the solver's condition).
pub fn exists(board: &Board, w: &[Vec<f64>; 3]) -> bool {
    let table = view(board, w);
    strongly_connected(board.models, &table, |p| {
        (w[0][p] > 0.0 || w[2][p] > 0.0, w[1][p] > 0.0 || w[2][p] > 0.0)
    })
}

fn view<'a>(board: &'a Board, w: &'a [Vec<f64>; 3]) -> pw::Pairs<'a> {
    pw::Pairs {
        i: &board.pair_i,
        j: &board.pair_j,
        win_i: &w[0],
        win_j: &w[1],
        tie: &w[2],
    }
}

/// Fit `model` to the board counted `counts` times, with a Gaussian prior
/// of `precision` on the centred ratings (0: none), from `start` (ratings
/// and tie parameter).
pub fn fit(
    board: &Board,
    counts: &[f64],
    model: TieModel,
    precision: f64,
    start: Option<(&[f64], f64)>,
) -> Result<pw::Fit> {
    let l = board.models;
    let w = outcomes(board, counts);
    let (mean, prec) = (vec![0.0; l], vec![precision; l]);
    let prior = if precision > 0.0 {
        pw::Prior::Gaussian {
            mean: &mean,
            precision: &prec,
        }
    } else {
        pw::Prior::None
    };
    // (a start at the boundary, a board without ties, starts from the default)
    let extra_init = start.map(|s| s.1).filter(|&t| match model {
        TieModel::Davidson => t > 0.0,
        TieModel::RaoKupper => t > 1.0,
    });
    let options = pw::Options {
        init: start.map(|s| s.0),
        extra_init,
        ..pw::Options::default()
    };
    let f = pw::fit(l, &view(board, &w), model.model(), &prior, &options)?;
    if !f.converged {
        return Err(Error::FloatingPoint(format!(
            "the {model:?} fit did not converge in {} Newton steps",
            options.max_iter
        )));
    }
    Ok(f)
}

/// One battle's negative log-likelihood term for outcome `o` of `pair_i`
/// (weight `w`), at the fit.
fn term(model: TieModel, a: f64, b: f64, s: f64, tie: Option<&RaoKupperTie>, o: u8, w: f64) -> Term {
    let (wi, wj, t) = match o {
        2 => (w, 0.0, 0.0),
        0 => (0.0, w, 0.0),
        _ => (0.0, 0.0, w),
    };
    match (model, tie) {
        (TieModel::RaoKupper, Some(tie)) => rao_kupper(a, b, s, tie, wi, wj, t),
        _ => davidson(a, b, s, wi, wj, t),
    }
}

/// The sandwich covariance `B M B` (`dim x dim` row-major, `dim` the fit's:
/// the models, then `log nu | log kappa` when fitted).
pub fn sandwich(board: &Board, fit: &pw::Fit, model: TieModel, clustered: bool) -> Result<Vec<f64>> {
    let (l, dim) = (board.models, fit.dim);
    let bread = fit.covariance()?;
    let s = match (fit.tie_parameter, model) {
        (Some(v), TieModel::Davidson) if v > 0.0 => v.ln(),
        (Some(v), TieModel::RaoKupper) if v > 1.0 => v.ln(),
        // no ties: the Bradley-Terry boundary, where the scores are BT's
        _ => f64::NEG_INFINITY,
    };
    let rk = (model == TieModel::RaoKupper && s.is_finite()).then(|| RaoKupperTie::new(s));
    let bt = !s.is_finite();
    // A row's score for one battle: (g_a, g_s) of its term (g_b = -g_a).
    let score = |r: usize| -> (usize, usize, f64, f64) {
        let k = board.row_pair[r] as usize;
        let (i, j) = (board.pair_i[k] as usize, board.pair_j[k] as usize);
        let (a, b, o, w) = (fit.theta[i], fit.theta[j], board.row_outcome[r], board.row_weight[r]);
        let t = if bt {
            let y = 0.5 * f64::from(o);
            pw::model::bradley_terry(a - b, w * y, w * (1.0 - y))
        } else {
            term(model, a, b, s, rk.as_ref(), o, w)
        };
        (i, j, t.ga, t.gs)
    };
    let mut m = vec![0.0; dim * dim];
    let fitted = dim > l;
    let mut add = |v: &[(usize, f64)], c: f64| {
        for &(u, x) in v {
            for &(q, y) in v {
                m[u * dim + q] += c * x * y;
            }
        }
    };
    let entries = |i: usize, j: usize, ga: f64, gs: f64, c: f64| {
        let mut v = vec![(i, c * ga), (j, -c * ga)];
        if fitted {
            v.push((l, c * gs));
        }
        v
    };
    let g = board.clusters();
    if !clustered {
        for r in 0..board.row_pair.len() {
            let (i, j, ga, gs) = score(r);
            add(&entries(i, j, ga, gs, 1.0), board.row_count[r]);
        }
    } else {
        let mut sum = vec![0.0; dim];
        let mut touched: Vec<usize> = Vec::new();
        for cl in 0..g {
            for r in board.cluster_start[cl]..board.cluster_start[cl + 1] {
                let (i, j, ga, gs) = score(r);
                for (u, x) in entries(i, j, ga, gs, board.row_count[r]) {
                    if sum[u] == 0.0 {
                        touched.push(u);
                    }
                    sum[u] += x;
                }
            }
            touched.sort_unstable();
            touched.dedup();
            let v: Vec<(usize, f64)> = touched.iter().map(|&u| (u, sum[u])).collect();
            add(&v, 1.0);
            for &u in &touched {
                sum[u] = 0.0;
            }
            touched.clear();
        }
        if g > 1 {
            let gf = g as f64;
            m.iter_mut().for_each(|x| *x *= gf / (gf - 1.0));
        }
    }
    let bm = product(&bread, &m, dim);
    Ok(product(&bm, &bread, dim))
}

fn product(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for k in 0..n {
            let x = a[i * n + k];
            if x != 0.0 {
                for (o, y) in c[i * n..(i + 1) * n].iter_mut().zip(&b[k * n..(k + 1) * n]) {
                    *o += x * y;
                }
            }
        }
    }
    c
}

/// `rounds` bootstrap rounds from the board's fit: each row of the result
/// holds the models' ratings, then the tie parameter (`models + 1`
/// columns). A resample without a finite unpenalised optimum is fitted
/// with the prior `precision` and counted.
pub fn bootstrap(
    board: &Board,
    fit: &pw::Fit,
    model: TieModel,
    rounds: usize,
    seed: u64,
    unit: Unit,
    precision: f64,
) -> Result<Rounds> {
    let alias = (unit == Unit::Battle).then(|| Alias::new(&board.row_count));
    let tie0 = fit.tie_parameter.unwrap_or(0.0);
    let got = rounds_of(rounds, |r| {
        let mut rng = Rng::new(seed, r as u64);
        let counts = resample(board, unit, &mut rng, alias.as_ref());
        let needs = !exists(board, &outcomes(board, &counts));
        if needs && precision <= 0.0 {
            return Err(Error::value(
                "a bootstrap round has no maximum likelihood estimate and no prior",
            ));
        }
        let f = self::fit(
            board,
            &counts,
            model,
            if needs { precision } else { 0.0 },
            Some((&fit.theta, tie0)),
        )?;
        let mut row = f.theta;
        row.push(f.tie_parameter.unwrap_or(tie0));
        Ok((row, needs))
    })?;
    Ok(Rounds {
        theta: got.0,
        with_prior: got.1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::battles::aggregate::{aggregate, Battles};

    fn board(outcomes: &[(u32, u32, u8, usize)], cluster: bool) -> Board {
        let (mut a, mut b, mut o, mut c) = (vec![], vec![], vec![], vec![]);
        for (k, &(i, j, out, n)) in outcomes.iter().enumerate() {
            for m in 0..n {
                a.push(i);
                b.push(j);
                o.push(out);
                c.push(((k + m) % 5) as u32);
            }
        }
        aggregate(&Battles {
            models: 3,
            a: &a,
            b: &b,
            outcome: &o,
            weight: None,
            cluster: cluster.then_some((&c[..], 5)),
        })
        .expect("board")
    }

    #[test]
    fn davidson_on_two_models_has_the_closed_form() {
        // Davidson, two items: pi_0 / pi_1 = W0 / W1 and nu = T / sqrt(W0 W1).
        let bd = aggregate(&Battles {
            models: 2,
            a: &[0, 0, 0, 0, 1, 1, 0, 1],
            b: &[1, 1, 1, 1, 0, 0, 1, 0],
            outcome: &[2, 2, 2, 0, 2, 1, 1, 1],
            weight: None,
            cluster: None,
        })
        .expect("board");
        // 0 beat 1 three times, 1 beat 0 twice (once as model_a), three ties
        let f = fit(&bd, &bd.row_count, TieModel::Davidson, 0.0, None).expect("fit");
        let (w0, w1, t) = (3.0f64, 2.0f64, 3.0f64);
        assert!((f.theta[0] - f.theta[1] - (w0 / w1).ln()).abs() < 1e-12);
        let nu = f.tie_parameter.expect("nu");
        assert!((nu - t / (w0 * w1).sqrt()).abs() < 1e-12, "{nu}");
    }

    #[test]
    fn sandwich_is_centred_and_clusters_change_it() {
        let bd = board(
            &[
                (0, 1, 2, 7),
                (0, 1, 0, 3),
                (1, 2, 2, 5),
                (1, 2, 1, 4),
                (0, 2, 0, 2),
                (0, 2, 1, 3),
                (2, 0, 0, 4),
            ],
            true,
        );
        for model in [TieModel::Davidson, TieModel::RaoKupper] {
            let f = fit(&bd, &bd.row_count, model, 0.0, None).expect("fit");
            assert_eq!(f.dim, 4);
            let mut first = Vec::new();
            for clustered in [false, true] {
                let v = sandwich(&bd, &f, model, clustered).expect("sandwich");
                for r in 0..4 {
                    let row: f64 = (0..3).map(|c| v[r * 4 + c]).sum();
                    assert!(row.abs() < 1e-12, "{row}");
                    assert!(v[r * 4 + r] > 0.0);
                }
                first.push(v[0]);
            }
            assert!((first[0] / first[1] - 1.0).abs() > 1e-3, "{first:?}");
            let rounds = bootstrap(&bd, &f, model, 8, 3, Unit::Battle, 1.0).expect("rounds");
            assert_eq!(rounds.theta.len(), 8 * 4);
        }
    }
}
