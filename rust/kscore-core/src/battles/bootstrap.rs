//! Bootstrap rounds of the ratings, in parallel: each round resamples the
//! battles (a multinomial draw of the board's size over its unique rows, exact,
//! by Poisson counts topped up from an alias table,
//! as FastChat and arena-rank do: the same law as drawing battles with
//! replacement) or the prompts (clusters drawn with replacement, each
//! bringing all its battles), and refits from the board's ratings. Round
//! `r` draws from its own stream (`Rng::new(seed, r)`): the result does not
//! depend on the number of threads. A round whose resample has no maximum
//! likelihood estimate (a model that only wins or only loses in it, or
//! that drew no battle) is fitted with the prior and counted.

use rayon::prelude::*;

use crate::battles::aggregate::Board;
use crate::battles::fit::{chord, factor, fit, Pairs, Prior};
use crate::battles::rng::{multinomial, Alias, Rng};
use crate::cancel::{self, Watch};
use crate::error::{Error, Result};

/// Chord iterations a round tries before Newton's method (a resample's
/// information is within a few percent of the board's: some 5-15 steps).
const CHORD_STEPS: usize = 60;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    Battle,
    Prompt,
}

pub struct Rounds {
    /// Ratings of each round (rounds x models, mean zero per round).
    pub theta: Vec<f64>,
    /// Rounds that needed the prior.
    pub with_prior: usize,
}

/// The row counts of one resample.
pub fn resample(board: &Board, unit: Unit, rng: &mut Rng, alias: Option<&Alias>) -> Vec<f64> {
    let mut counts = vec![0.0; board.row_pair.len()];
    match (unit, alias) {
        (Unit::Battle, Some(alias)) => multinomial(rng, board.battles, &board.row_count, alias, &mut counts),
        _ => {
            let g = board.clusters();
            for _ in 0..g {
                let c = rng.below(g);
                let rows = board.cluster_start[c]..board.cluster_start[c + 1];
                for (x, &k) in counts[rows.clone()].iter_mut().zip(&board.row_count[rows]) {
                    *x += k;
                }
            }
        }
    }
    counts
}

/// `rounds` bootstrap rounds from `start` (the board's fitted ratings).
pub fn bootstrap(board: &Board, start: &[f64], rounds: usize, seed: u64, unit: Unit, prior: Prior) -> Result<Rounds> {
    let l = board.models;
    let alias = (unit == Unit::Battle).then(|| Alias::new(&board.row_count));
    // The board's information at its ratings, factored once: every round
    // starts with chord iterations on it (module docstring of `fit::chord`).
    let (n0, s0) = board.pair_sums(&board.row_count);
    let f0 = factor(
        &Pairs {
            models: l,
            i: &board.pair_i,
            j: &board.pair_j,
            n: &n0,
            s: &s0,
        },
        start,
        Prior { precision: 0.0 },
    )?;
    let got = rounds_of(rounds, |r| {
        let mut rng = Rng::new(seed, r as u64);
        let counts = resample(board, unit, &mut rng, alias.as_ref());
        let (n, s) = board.pair_sums(&counts);
        let pairs = Pairs {
            models: l,
            i: &board.pair_i,
            j: &board.pair_j,
            n: &n,
            s: &s,
        };
        let needs = !pairs.mle_exists();
        let use_prior = if needs { prior } else { Prior { precision: 0.0 } };
        if needs && prior.precision <= 0.0 {
            return Err(Error::value(
                "a bootstrap round has no maximum likelihood estimate and no prior",
            ));
        }
        if !needs {
            if let Some(theta) = chord(&pairs, use_prior, start, &f0, CHORD_STEPS) {
                return Ok((theta, false));
            }
        }
        fit(&pairs, use_prior, Some(start)).map(|f| (f.theta, needs))
    })?;
    Ok(Rounds {
        theta: got.0,
        with_prior: got.1,
    })
}

/// Runs `round(r)` for `r in 0..rounds` on the pool (each round's own
/// stream: the result does not depend on the threads), stopping at the
/// next round on Ctrl-C; returns the rounds' values end to end and how
/// many needed the prior.
pub fn rounds_of(
    rounds: usize,
    round: impl Fn(usize) -> Result<(Vec<f64>, bool)> + Sync + Send,
) -> Result<(Vec<f64>, usize)> {
    let watch = Watch::new();
    let fits: Vec<Result<(Vec<f64>, bool)>> = (0..rounds)
        .into_par_iter()
        .with_min_len(1)
        .map(|r| {
            if cancel::stopping() {
                Err(Error::Interrupted)
            } else {
                round(r)
            }
        })
        .collect();
    watch.check()?;
    let mut all = Vec::new();
    let mut with_prior = 0;
    for f in fits {
        let (v, p) = f?;
        all.extend_from_slice(&v);
        with_prior += p as usize;
    }
    Ok((all, with_prior))
}
