//! Contextual Bradley-Terry (style control): battle `k` between `a` and `b`
//! is won by `a` with probability `sigmoid(theta_a - theta_b + x_k . beta)`,
//! `x_k` its style features (differences of length, headers, lists, bold
//! between the two answers). Maximised over the mean-zero ratings `theta`
//! and the coefficients `beta` with the penalty `precision |beta|^2 / 2`
//! (arena-rank's `reg / 2 |beta|^2` on the mean loss is `precision = reg x
//! battles`), by Newton's method as in `fit`: each iteration is one pass
//! over the battles (gradient, information and log-likelihood together, in
//! a fixed number of chunks added in order: the same bits on any number of
//! threads), and a step is halved while the log-likelihood would fall.

use rayon::prelude::*;

use crate::battles::bootstrap::{rounds_of, Unit};
use crate::battles::dense;
use crate::battles::fit::{sigmoid, softplus, Pairs, Prior, TOL};
use crate::battles::rng::Rng;
use crate::battles::sandwich::{add_pair, Ridge};
use crate::error::{Error, Result};
use crate::par;

const MAX_ITER: usize = 100;
/// Newton steps up to this size (natural-log scale) are taken whole; larger
/// ones are halved while the log-likelihood would fall.
const SAFE_STEP: f64 = 0.5;
/// Style features at the most (each count has its own unrolled pass).
pub const MAX_FEATURES: usize = 8;
/// Battles of a chunk (fixed: the sums do not depend on the threads).
const CHUNK: usize = 1 << 16;

/// The battles of a style-controlled board, held for repeated fits.
pub struct StyleBoard {
    pub models: usize,
    pub features: usize,
    a: Vec<u32>,
    b: Vec<u32>,
    y: Vec<f64>,
    w: Vec<f64>,
    x: Vec<f64>,
    slot: Vec<u32>,
    pub pair_i: Vec<u32>,
    pub pair_j: Vec<u32>,
    /// Battles by prompt (CSR over `order`), if prompt ids were given.
    clusters: Option<(Vec<u32>, Vec<usize>)>,
}

#[derive(Clone, Debug)]
pub struct StyleFit {
    pub theta: Vec<f64>,
    pub beta: Vec<f64>,
    pub iterations: usize,
}

/// One pass's sums: gradient (`models + features`), pair information,
/// rating x feature and feature x feature blocks, log-likelihood.
struct Acc {
    g: Vec<f64>,
    hp: Vec<f64>,
    hx: Vec<f64>,
    hf: Vec<f64>,
    ll: f64,
}

impl Acc {
    fn new(l: usize, f: usize, p: usize) -> Self {
        Acc {
            g: vec![0.0; l + f],
            hp: vec![0.0; p],
            hx: vec![0.0; l * f],
            hf: vec![0.0; f * f],
            ll: 0.0,
        }
    }

    fn add(&mut self, o: &Acc) {
        for (x, y) in [
            (&mut self.g, &o.g),
            (&mut self.hp, &o.hp),
            (&mut self.hx, &o.hx),
            (&mut self.hf, &o.hf),
        ] {
            x.iter_mut().zip(y).for_each(|(u, v)| *u += v);
        }
        self.ll += o.ll;
    }
}

/// The pairs (sorted keys) and each battle's pair slot: through a dense
/// table of `models^2` slots where that is small, else by sorting.
fn slots(n: usize, l: u64, key: impl Fn(usize) -> u64 + Sync) -> (Vec<u64>, Vec<u32>) {
    if l * l <= 1 << 22 {
        let mut seen = vec![false; (l * l) as usize];
        for k in 0..n {
            seen[key(k) as usize] = true;
        }
        let mut index = vec![0u32; (l * l) as usize];
        let mut pairs = Vec::new();
        for (p, &s) in seen.iter().enumerate() {
            if s {
                index[p] = pairs.len() as u32;
                pairs.push(p as u64);
            }
        }
        let slot = (0..n)
            .into_par_iter()
            .with_min_len(par::min_len(4))
            .map(|k| index[key(k) as usize])
            .collect();
        return (pairs, slot);
    }
    let mut pairs: Vec<u64> = (0..n).into_par_iter().with_min_len(par::min_len(4)).map(&key).collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    let slot = (0..n)
        .into_par_iter()
        .with_min_len(par::min_len(30))
        .map(|k| pairs.binary_search(&key(k)).unwrap_or(0) as u32)
        .collect();
    (pairs, slot)
}

impl StyleBoard {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        models: usize,
        a: &[u32],
        b: &[u32],
        y: &[f64],
        w: &[f64],
        x: &[f64],
        features: usize,
        cluster: Option<(&[u32], usize)>,
    ) -> Result<Self> {
        let n = a.len();
        if b.len() != n || y.len() != n || w.len() != n || x.len() != n * features {
            return Err(Error::value("style battles: arrays of different lengths"));
        }
        if !(1..=MAX_FEATURES).contains(&features) {
            return Err(Error::value(format!(
                "style control takes 1 to {MAX_FEATURES} features, not {features}"
            )));
        }
        let l = models as u64;
        for k in 0..n {
            if a[k] as usize >= models || b[k] as usize >= models || a[k] == b[k] {
                return Err(Error::value(format!("battle {k}: bad model codes")));
            }
        }
        if let Some(k) = x.iter().position(|v| !v.is_finite()) {
            return Err(Error::value(format!(
                "battle {}: a style feature is not a finite number",
                k / features.max(1)
            )));
        }
        let key = |k: usize| {
            let (u, v) = (a[k].min(b[k]) as u64, a[k].max(b[k]) as u64);
            u * l + v
        };
        let (pairs, slot) = slots(n, l, key);
        let clusters = match cluster {
            None => None,
            Some((c, g)) => {
                if c.len() != n || c.iter().any(|&v| v as usize >= g) {
                    return Err(Error::value(
                        "prompt codes: one per battle, below the number of prompts",
                    ));
                }
                let mut start = vec![0usize; g + 1];
                c.iter().for_each(|&v| start[v as usize + 1] += 1);
                for k in 0..g {
                    start[k + 1] += start[k];
                }
                let mut fill = start.clone();
                let mut order = vec![0u32; n];
                for (k, &v) in c.iter().enumerate() {
                    order[fill[v as usize]] = k as u32;
                    fill[v as usize] += 1;
                }
                Some((order, start))
            }
        };
        Ok(StyleBoard {
            models,
            features,
            a: a.to_vec(),
            b: b.to_vec(),
            y: y.to_vec(),
            w: w.to_vec(),
            x: x.to_vec(),
            slot,
            pair_i: pairs.iter().map(|&p| (p / l) as u32).collect(),
            pair_j: pairs.iter().map(|&p| (p % l) as u32).collect(),
            clusters,
        })
    }

    pub fn battles(&self) -> usize {
        self.a.len()
    }

    /// Pass over the battles at `(theta, beta)`; `mult`: each battle's
    /// multiplicity (a resample), `square`: sums of squared scores (the
    /// meat) in place of the information.
    fn pass(&self, theta: &[f64], beta: &[f64], mult: Option<&[f64]>, square: bool, want_ll: bool) -> Acc {
        match self.features {
            1 => self.pass_n::<1>(theta, beta, mult, square, want_ll),
            2 => self.pass_n::<2>(theta, beta, mult, square, want_ll),
            3 => self.pass_n::<3>(theta, beta, mult, square, want_ll),
            4 => self.pass_n::<4>(theta, beta, mult, square, want_ll),
            5 => self.pass_n::<5>(theta, beta, mult, square, want_ll),
            6 => self.pass_n::<6>(theta, beta, mult, square, want_ll),
            7 => self.pass_n::<7>(theta, beta, mult, square, want_ll),
            _ => self.pass_n::<8>(theta, beta, mult, square, want_ll),
        }
    }

    /// `pass` for `F` features known when compiled: the features of a
    /// battle, the coefficients and the feature blocks in fixed-size arrays
    /// (unrolled, no bounds checks), the feature x feature block's upper
    /// triangle only.
    fn pass_n<const F: usize>(
        &self,
        theta: &[f64],
        beta: &[f64],
        mult: Option<&[f64]>,
        square: bool,
        want_ll: bool,
    ) -> Acc {
        let (l, n) = (self.models, self.a.len());
        let be: [f64; F] = std::array::from_fn(|q| beta[q]);
        let chunks = n.div_ceil(CHUNK).max(1);
        let parts: Vec<Acc> = (0..chunks)
            .into_par_iter()
            .with_min_len(par::min_len(CHUNK * 20))
            .map(|c| {
                let mut acc = Acc::new(l, F, self.pair_i.len());
                let mut gb = [0.0f64; F];
                let mut hf = [[0.0f64; F]; F];
                let (k0, k1) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                for (k, row) in (k0..k1).zip(self.x[k0 * F..k1 * F].chunks_exact(F)) {
                    let m = mult.map_or(1.0, |m| m[k]);
                    if m == 0.0 {
                        continue;
                    }
                    let xk: [f64; F] = std::array::from_fn(|q| row[q]);
                    let (a, b) = (self.a[k] as usize, self.b[k] as usize);
                    let mut z = theta[a] - theta[b];
                    for q in 0..F {
                        z += xk[q] * be[q];
                    }
                    let p = sigmoid(z);
                    let w = self.w[k] * m;
                    let e = self.y[k] - p;
                    if want_ll {
                        acc.ll += w * (self.y[k] * z - softplus(z));
                    }
                    let r = w * e;
                    acc.g[a] += r;
                    acc.g[b] -= r;
                    let v = if square {
                        self.w[k] * self.w[k] * m * e * e
                    } else {
                        w * p * (1.0 - p)
                    };
                    acc.hp[self.slot[k] as usize] += v;
                    let ha = &mut acc.hx[a * F..a * F + F];
                    for q in 0..F {
                        gb[q] += r * xk[q];
                        ha[q] += v * xk[q];
                    }
                    let hb = &mut acc.hx[b * F..b * F + F];
                    for q in 0..F {
                        hb[q] -= v * xk[q];
                        let vq = v * xk[q];
                        for t in q..F {
                            hf[q][t] += vq * xk[t];
                        }
                    }
                }
                acc.g[l..].copy_from_slice(&gb);
                for (idx, out) in acc.hf.iter_mut().enumerate() {
                    let (q, t) = (idx / F, idx % F);
                    *out = hf[q.min(t)][q.max(t)]; // (the upper triangle, mirrored)
                }
                acc
            })
            .collect();
        let mut total = Acc::new(l, F, self.pair_i.len());
        for part in &parts {
            total.add(part);
        }
        total
    }

    /// The `(models + features)^2` matrix of a pass's blocks, plus the
    /// centring `1 1^T / L` on the ratings and the priors on the diagonal.
    fn matrix(&self, acc: &Acc, centre: bool, prior: Prior, precision: f64) -> Vec<f64> {
        let (l, f) = (self.models, self.features);
        let d = l + f;
        let mut h = vec![0.0; d * d];
        for (k, &v) in acc.hp.iter().enumerate() {
            add_pair(&mut h, d, self.pair_i[k] as usize, self.pair_j[k] as usize, v);
        }
        for i in 0..l {
            for q in 0..f {
                h[i * d + l + q] = acc.hx[i * f + q];
                h[(l + q) * d + i] = acc.hx[i * f + q];
            }
            if centre {
                for j in 0..l {
                    h[i * d + j] += 1.0 / l as f64;
                }
            }
            h[i * d + i] += prior.precision;
        }
        for q in 0..f {
            for t in 0..f {
                h[(l + q) * d + l + t] = acc.hf[q * f + t];
            }
            h[(l + q) * d + l + q] += precision;
        }
        h
    }

    /// Newton's method from `start` (ratings, coefficients; zeros if None).
    pub fn fit(
        &self,
        precision: f64,
        prior: Prior,
        mult: Option<&[f64]>,
        start: Option<(&[f64], &[f64])>,
    ) -> Result<StyleFit> {
        let (l, f) = (self.models, self.features);
        let (mut theta, mut beta) =
            start.map_or_else(|| (vec![0.0; l], vec![0.0; f]), |(t, b)| (t.to_vec(), b.to_vec()));
        crate::battles::fit::centre(&mut theta);
        let penalty = |t: &[f64], b: &[f64]| {
            0.5 * prior.precision * t.iter().map(|v| v * v).sum::<f64>()
                + 0.5 * precision * b.iter().map(|v| v * v).sum::<f64>()
        };
        // The log-likelihood (a logarithm per battle) is computed only for
        // steps large enough to need the line search: from a warm start
        // (the plain ratings) Newton's full steps are taken.
        let mut acc = self.pass(&theta, &beta, mult, false, false);
        for it in 1..=MAX_ITER {
            let mut step = acc.g.clone();
            for i in 0..l {
                step[i] -= prior.precision * theta[i];
            }
            for q in 0..f {
                step[l + q] -= precision * beta[q];
            }
            let mut h = self.matrix(&acc, true, prior, precision);
            dense::cholesky(&mut h, l + f)
                .map_err(|_| Error::FloatingPoint("style information matrix is singular".into()))?;
            dense::solve(&h, l + f, &mut step);
            let big = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            if !big.is_finite() {
                return Err(Error::FloatingPoint("Newton step is not finite".into()));
            }
            let search = big > SAFE_STEP;
            if !search && big <= TOL {
                // (converged: the step is taken without a pass at the new point)
                theta.iter_mut().zip(&step[..l]).for_each(|(a, d)| *a += d);
                beta.iter_mut().zip(&step[l..]).for_each(|(a, d)| *a += d);
                crate::battles::fit::centre(&mut theta);
                return Ok(StyleFit {
                    theta,
                    beta,
                    iterations: it,
                });
            }
            let ll = if search {
                self.pass(&theta, &beta, mult, false, true).ll - penalty(&theta, &beta)
            } else {
                0.0
            };
            let mut t = 1.0;
            loop {
                let nt: Vec<f64> = theta.iter().zip(&step[..l]).map(|(a, d)| a + t * d).collect();
                let nb: Vec<f64> = beta.iter().zip(&step[l..]).map(|(a, d)| a + t * d).collect();
                let nacc = self.pass(&nt, &nb, mult, false, search);
                let ok = !search || nacc.ll - penalty(&nt, &nb) >= ll - 1e-12 * ll.abs().max(1.0) || t < 1e-9;
                if ok {
                    (theta, beta, acc) = (nt, nb, nacc);
                    break;
                }
                t *= 0.5;
            }
            crate::battles::fit::centre(&mut theta);
            if big * t <= TOL {
                return Ok(StyleFit {
                    theta,
                    beta,
                    iterations: it,
                });
            }
        }
        Err(Error::FloatingPoint(format!(
            "style fit did not converge in {MAX_ITER} steps"
        )))
    }

    /// The sandwich covariance of `(theta, beta)` (`(L + F)^2`): the
    /// penalised information's inverse around the centred second moment of
    /// the battles' (or prompts', times `G / (G - 1)`) scores.
    pub fn sandwich(
        &self,
        fit: &StyleFit,
        precision: f64,
        prior: Prior,
        clustered: bool,
        ridge: Ridge,
    ) -> Result<Vec<f64>> {
        let (l, f) = (self.models, self.features);
        let d = l + f;
        let info = self.pass(&fit.theta, &fit.beta, None, false, false);
        let mut h = self.matrix(&info, matches!(ridge, Ridge::Centred), prior, precision);
        if let Ridge::Diagonal(r) = ridge {
            h.iter_mut().step_by(d + 1).for_each(|x| *x += r);
        }
        let a = dense::inverse(&h, d)?;
        let (mut m, units) = if clustered && self.clusters.is_some() {
            self.cluster_meat(fit)
        } else {
            let sq = self.pass(&fit.theta, &fit.beta, None, true, false);
            (self.matrix(&sq, false, Prior { precision: 0.0 }, 0.0), self.a.len())
        };
        // centre the scores: their sum is the penalty's gradient, not zero
        let total = &info.g;
        let u = units.max(1) as f64;
        for i in 0..d {
            for j in 0..d {
                m[i * d + j] -= total[i] * total[j] / u;
            }
        }
        if clustered && self.clusters.is_some() && units > 1 {
            m.iter_mut().for_each(|x| *x *= u / (u - 1.0));
        }
        let am = dense::matmul(&a, &m, d);
        Ok(dense::matmul(&am, &a, d))
    }

    fn cluster_meat(&self, fit: &StyleFit) -> (Vec<f64>, usize) {
        let (l, f) = (self.models, self.features);
        let d = l + f;
        let Some((order, start)) = &self.clusters else {
            return (vec![0.0; d * d], 0);
        };
        let g = start.len() - 1;
        let mut m = vec![0.0; d * d];
        let mut s: Vec<(usize, f64)> = Vec::new();
        let mut sf = vec![0.0; f];
        let mut used = 0;
        for c in 0..g {
            if start[c] == start[c + 1] {
                continue;
            }
            used += 1;
            s.clear();
            sf.iter_mut().for_each(|v| *v = 0.0);
            for &k in &order[start[c]..start[c + 1]] {
                let k = k as usize;
                let (a, b) = (self.a[k] as usize, self.b[k] as usize);
                let xk = &self.x[k * f..(k + 1) * f];
                let z = fit.theta[a] - fit.theta[b] + xk.iter().zip(&fit.beta).map(|(u, v)| u * v).sum::<f64>();
                let r = self.w[k] * (self.y[k] - sigmoid(z));
                s.push((a, r));
                s.push((b, -r));
                sf.iter_mut().zip(xk).for_each(|(v, x)| *v += r * x);
            }
            s.sort_unstable_by_key(|x| x.0);
            let mut merged: Vec<(usize, f64)> = Vec::with_capacity(s.len() + f);
            for &(u, v) in &s {
                match merged.last_mut() {
                    Some(last) if last.0 == u => last.1 += v,
                    _ => merged.push((u, v)),
                }
            }
            merged.extend(sf.iter().enumerate().map(|(q, &v)| (l + q, v)));
            for &(u, x) in &merged {
                for &(v, y) in &merged {
                    m[u * d + v] += x * y;
                }
            }
        }
        (m, used)
    }

    /// Bootstrap rounds (rounds x (models + features)) from `fit`.
    pub fn bootstrap(
        &self,
        fit: &StyleFit,
        precision: f64,
        prior: Prior,
        rounds: usize,
        seed: u64,
        unit: Unit,
    ) -> Result<(Vec<f64>, usize)> {
        let n = self.a.len();
        let unit = if self.clusters.is_none() { Unit::Battle } else { unit };
        rounds_of(rounds, |r| {
            let mut rng = Rng::new(seed, r as u64);
            let mut mult = vec![0.0; n];
            match (&self.clusters, unit) {
                (Some((order, start)), Unit::Prompt) => {
                    let g = start.len() - 1;
                    for _ in 0..g {
                        let c = rng.below(g);
                        for &k in &order[start[c]..start[c + 1]] {
                            mult[k as usize] += 1.0;
                        }
                    }
                }
                _ => {
                    for _ in 0..n {
                        mult[rng.below(n)] += 1.0;
                    }
                }
            }
            let needs = !self.mle_exists(&mult);
            if needs && prior.precision <= 0.0 {
                return Err(Error::value(
                    "a bootstrap round has no maximum likelihood estimate and no prior",
                ));
            }
            let use_prior = if needs { prior } else { Prior { precision: 0.0 } };
            let got = self.fit(precision, use_prior, Some(&mult), Some((&fit.theta, &fit.beta)))?;
            let mut out = got.theta;
            out.extend_from_slice(&got.beta);
            Ok((out, needs))
        })
    }

    /// Whether the ratings' maximum likelihood estimate exists without the
    /// style terms (the win graph of the resample is strongly connected).
    fn mle_exists(&self, mult: &[f64]) -> bool {
        let p = self.pair_i.len();
        let (mut n, mut s) = (vec![0.0; p], vec![0.0; p]);
        for (k, &m) in mult.iter().enumerate() {
            if m == 0.0 {
                continue;
            }
            let slot = self.slot[k] as usize;
            n[slot] += m;
            // score of the pair's first (smaller) model
            let y = if self.a[k] < self.b[k] {
                self.y[k]
            } else {
                1.0 - self.y[k]
            };
            s[slot] += m * y;
        }
        Pairs {
            models: self.models,
            i: &self.pair_i,
            j: &self.pair_j,
            n: &n,
            s: &s,
        }
        .mle_exists()
    }
}
