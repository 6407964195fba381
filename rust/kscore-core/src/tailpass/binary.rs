//! Binary TailPass kernels (docs/kernels.md, K16). A state is a question's
//! posterior Beta(a, b) on its success probability (a for successes, b for
//! failures); a cutoff `c` in `0..=k + 1` is the least success count that
//! meets a threshold, so each profile coordinate is `P(X >= c)`.

use rayon::prelude::*;

use super::laws::{hypergeometric_span, upper, Span};
use crate::error::{Error, Result};
use crate::numeric::sum::Neumaier;
use crate::par::Grain;

/// States handled by one task of the parallel loops; fixed, so that results
/// never depend on the number of threads.
const BLOCK: usize = 32;

fn check_cutoffs(k: u64, cutoffs: &[u64]) -> Result<()> {
    if cutoffs.iter().any(|&c| c > k + 1) {
        return Err(Error::value("TailPass cutoffs must lie in 0..=k+1"));
    }
    Ok(())
}

fn check_states(a: &[f64], b: &[f64]) -> Result<()> {
    if a.len() != b.len() {
        return Err(Error::value("TailPass state parameters must have equal lengths"));
    }
    if a.iter().chain(b).any(|&x| !(x.is_finite() && x > 0.0)) {
        return Err(Error::value("TailPass state parameters must be finite and positive"));
    }
    Ok(())
}

/// Posterior predictive profile of each state: `out[u * T + t] = P(X >= c_t)`
/// for `X ~ BB(k, a_u, b_u)`.
pub fn state_tails(k: u64, a: &[f64], b: &[f64], cutoffs: &[u64]) -> Result<Vec<f64>> {
    check_states(a, b)?;
    check_cutoffs(k, cutoffs)?;
    let t = cutoffs.len();
    let mut out = vec![0.0; a.len() * t];
    if t == 0 {
        return Ok(out);
    }
    let cost = 20 * (k as usize + t + 1);
    out.par_chunks_mut(t).with_grain(cost).enumerate().try_for_each_init(
        || (Span::default(), Vec::new(), Vec::new()),
        |(span, up, low), (u, row)| {
            crate::cancel::check()?;
            span.beta_binomial(k, a[u], b[u])?;
            span.cumulative(up, low);
            for (r, &c) in row.iter_mut().zip(cutoffs) {
                *r = upper(span, up, c);
            }
            Ok(())
        },
    )?;
    Ok(out)
}

/// Per-state mean and variance of the payoff `u(X)` (a credit vector of
/// length k + 1) under the posterior of its success probability:
/// `mean = sum_x pi_x u_x` and, by the two-draw identity,
/// `var = sum_x pi_x (u_x - mean) (E[u(Y) | X = x] - mean)`, where Y given
/// X = x is `BB(k, a + x, b + k - x)`.
pub fn payoff_moments(k: u64, a: &[f64], b: &[f64], payoff: &[f64]) -> Result<(Vec<f64>, Vec<f64>)> {
    check_states(a, b)?;
    if payoff.len() as u64 != k + 1 || payoff.iter().any(|v| !v.is_finite()) {
        return Err(Error::value("payoff must hold k + 1 finite values"));
    }
    let cost = 10 * (k as usize + 1) * (k as usize + 1);
    let pairs: Vec<(f64, f64)> = (0..a.len())
        .into_par_iter()
        .with_grain(cost)
        .map_init(
            || (Span::default(), Span::default()),
            |(pi, cond), u| -> Result<(f64, f64)> {
                pi.beta_binomial(k, a[u], b[u])?;
                // Work in deviations from the payoff at the mode, so that a
                // near-certain payoff keeps its tiny variance: most of the
                // mass then deviates by exactly 0.
                let top = (0..pi.p.len()).fold(0, |m, i| if pi.p[i] > pi.p[m] { i } else { m });
                let shift = payoff[pi.first + top];
                let mut dev = Neumaier::new();
                for (i, &p) in pi.p.iter().enumerate() {
                    dev.add(p * (payoff[pi.first + i] - shift));
                }
                let dbar = dev.value();
                let mean = shift + dbar;
                let mut var = Neumaier::new();
                for (i, &p) in pi.p.iter().enumerate() {
                    let x = (pi.first + i) as u64;
                    let dx = (payoff[x as usize] - shift) - dbar;
                    if dx == 0.0 {
                        continue;
                    }
                    cond.beta_binomial(k, a[u] + x as f64, b[u] + (k - x) as f64)?;
                    let mut m = Neumaier::new();
                    for (j, &q) in cond.p.iter().enumerate() {
                        m.add(q * (payoff[cond.first + j] - shift));
                    }
                    var.add(p * dx * (m.value() - dbar));
                }
                Ok((mean, var.value().max(0.0)))
            },
        )
        .collect::<Result<_>>()?;
    Ok(pairs.into_iter().unzip())
}

/// The exact profile covariance `sum_u f_u Cov_u` (row-major T x T, not yet
/// divided by M^2). Per state, with `e_t(x) = 1{x >= c_t}`,
/// `Cov_u[s, t] = sum_{x >= c_s} pi_x (G_t(x) - ebar_t)`, where
/// `G_t(x) = P(Y >= c_t | X = x)` (the two-draw identity: the sum over all x
/// vanishes, so the centring of `e_s` drops out). Each side is taken from its
/// small tail, so near-certain coordinates keep their tiny variances: the
/// complement `1 - e` has the same covariances up to sign.
pub fn covariance(k: u64, a: &[f64], b: &[f64], freqs: &[f64], cutoffs: &[u64]) -> Result<Vec<f64>> {
    check_states(a, b)?;
    check_cutoffs(k, cutoffs)?;
    if freqs.len() != a.len() {
        return Err(Error::value("one frequency per state is required"));
    }
    let t = cutoffs.len();
    let mut total = vec![0.0; t * t];
    let (mut pi, mut up, mut low) = (Span::default(), Vec::new(), Vec::new());
    for u in 0..a.len() {
        pi.beta_binomial(k, a[u], b[u])?;
        pi.cumulative(&mut up, &mut low);
        // Side of each coordinate: +1 uses P(X >= c), -1 uses P(X < c).
        let sign: Vec<f64> = cutoffs
            .iter()
            .map(|&c| if upper(&pi, &up, c) <= 0.5 { 1.0 } else { -1.0 })
            .collect();
        let small: Vec<f64> = cutoffs
            .iter()
            .zip(&sign)
            .map(|(&c, &s)| if s > 0.0 { upper(&pi, &up, c) } else { low[pi.index(c)] })
            .collect();
        // d[i * t + j] = pi_x (G_j(x) - ebar_j), from the small side.
        let len = pi.p.len();
        let mut d = vec![0.0; len * t];
        let cost = 20 * (k as usize + t + 1);
        let (first, p) = (pi.first, &pi.p);
        d.par_chunks_mut(t.max(1))
            .with_grain(cost)
            .enumerate()
            .try_for_each_init(
                || (Span::default(), Vec::new(), Vec::new()),
                |(cond, cup, clow), (i, row)| -> Result<()> {
                    if t == 0 {
                        return Ok(());
                    }
                    crate::cancel::check()?;
                    let x = (first + i) as u64;
                    cond.beta_binomial(k, a[u] + x as f64, b[u] + (k - x) as f64)?;
                    cond.cumulative(cup, clow);
                    for j in 0..t {
                        let c = cutoffs[j];
                        let g = if sign[j] > 0.0 {
                            upper(cond, cup, c) - small[j]
                        } else {
                            small[j] - clow[cond.index(c)]
                        };
                        row[j] = p[i] * g;
                    }
                    Ok(())
                },
            )?;
        // Column sums from either end: suffix over x >= c_s, or minus the
        // prefix over x < c_s, whichever side of c_s holds less mass.
        let mut suffix = vec![0.0; (len + 1) * t];
        for i in (0..len).rev() {
            for j in 0..t {
                suffix[i * t + j] = suffix[(i + 1) * t + j] + d[i * t + j];
            }
        }
        let mut prefix = vec![0.0; (len + 1) * t];
        for i in 0..len {
            for j in 0..t {
                prefix[(i + 1) * t + j] = prefix[i * t + j] + d[i * t + j];
            }
        }
        let f = freqs[u];
        for (s, &cs) in cutoffs.iter().enumerate() {
            let at = pi.index(cs);
            let row = &mut total[s * t..(s + 1) * t];
            if cs == 0 {
                continue; // e_s == 1: no covariance
            }
            for j in 0..t {
                let v = if sign[s] > 0.0 {
                    suffix[at * t + j]
                } else {
                    -prefix[at * t + j]
                };
                row[j] += f * v;
            }
        }
    }
    // Symmetrise (each entry is exact up to rounding either way).
    for s in 0..t {
        for j in s + 1..t {
            let m = 0.5 * (total[s * t + j] + total[j * t + s]);
            total[s * t + j] = m;
            total[j * t + s] = m;
        }
    }
    Ok(total)
}

/// The finite-bank profile summed over states: `sum_u f_u P(X_u >= c_t)`
/// with `X_u` hypergeometric (k of n trials, `c_u` successes). Not divided
/// by M. Each state's masses are walked from the mode over their
/// non-underflowed span only (`laws::hypergeometric_span`) and added, scaled
/// by `f_u / total`, into one mass array over 0..=k; one compensated suffix
/// sum then gives every threshold in O(1). Cost O(sum of spans + k + T), not
/// O(states * (k + T)).
pub fn empirical(n: u64, successes: &[u64], freqs: &[u64], k: u64, cutoffs: &[u64]) -> Result<Vec<f64>> {
    check_cutoffs(k, cutoffs)?;
    if k > n || successes.iter().any(|&c| c > n) || freqs.len() != successes.len() {
        return Err(Error::value("invalid finite-bank states"));
    }
    let width = k as usize + 1;
    // A span is about 40 standard deviations of the law wide (at most k + 1).
    let sd = ((k as f64) * ((n - k) as f64) / (4.0 * n.max(2) as f64)).sqrt();
    let span = (40.0 * sd + 2.0).min(width as f64) as usize;
    let cost = BLOCK * 8 * span + width;
    let partial: Vec<Vec<f64>> = successes
        .par_chunks(BLOCK)
        .zip(freqs.par_chunks(BLOCK))
        .with_grain(cost)
        .map_init(
            || (Vec::new(), Vec::new()),
            |(down, buf), (cs, fs)| {
                let mut mass = vec![0.0; width];
                for (&c, &f) in cs.iter().zip(fs) {
                    if f == 0 {
                        continue;
                    }
                    let first = hypergeometric_span(n, c, k, down, buf);
                    let scale = f as f64 / buf.iter().sum::<f64>();
                    for (m, &w) in mass[first..].iter_mut().zip(buf.iter()) {
                        *m += w * scale;
                    }
                }
                mass
            },
        )
        .collect();
    let mut mass = vec![0.0; width];
    for block in partial {
        for (m, v) in mass.iter_mut().zip(block) {
            *m += v;
        }
    }
    // up[x] = sum_{y >= x} mass[y], compensated, from the small end.
    let mut up = vec![0.0; width + 1];
    let mut acc = Neumaier::new();
    for x in (0..width).rev() {
        acc.add(mass[x]);
        up[x] = acc.value();
    }
    let states: f64 = freqs.iter().map(|&f| f as f64).sum();
    Ok(cutoffs
        .iter()
        .map(|&c| if c == 0 { states } else { up[c as usize] })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::beta_binomial;

    #[test]
    fn state_tails_are_beta_binomial_tails() {
        let cut = [0u64, 1, 3, 6, 7];
        let out = state_tails(6, &[2.0, 0.5], &[3.0, 9.0], &cut).unwrap();
        for (u, &(a, b)) in [(2.0, 3.0), (0.5, 9.0)].iter().enumerate() {
            let p = beta_binomial(6, a, b);
            for (j, &c) in cut.iter().enumerate() {
                let e: f64 = p[c.min(7) as usize..].iter().sum();
                assert!((out[u * 5 + j] - e).abs() < 1e-15, "{u} {c}");
            }
        }
    }

    #[test]
    fn covariance_matches_the_direct_double_sum() {
        // Cov[s, t] = sum_x sum_y P(x, y) e_s(x) e_t(y) - ebar_s ebar_t, where
        // (x, y) are two draws sharing p ~ Beta(a, b).
        let (k, a, b) = (5u64, 1.7, 2.2);
        let cut = [1u64, 2, 4, 5];
        let cov = covariance(k, &[a], &[b], &[1.0], &cut).unwrap();
        let pi = beta_binomial(k, a, b);
        let tail = |p: &[f64], c: u64| -> f64 { p[c as usize..].iter().sum() };
        for (s, &cs) in cut.iter().enumerate() {
            for (t, &ct) in cut.iter().enumerate() {
                let mut joint = 0.0;
                for (x, &px) in pi.iter().enumerate().skip(cs as usize) {
                    let cond = beta_binomial(k, a + x as f64, b + (k as usize - x) as f64);
                    joint += px * tail(&cond, ct);
                }
                let e = joint - tail(&pi, cs) * tail(&pi, ct);
                assert!((cov[s * 4 + t] - e).abs() < 1e-15, "{s} {t}: {} {e}", cov[s * 4 + t]);
            }
        }
    }

    #[test]
    fn payoff_variance_matches_covariance_of_events() {
        let (k, a, b) = (4u64, 3.0, 1.5);
        let payoff = [0.0, 0.0, 1.0, 1.0, 1.0];
        let (m, v) = payoff_moments(k, &[a], &[b], &payoff).unwrap();
        let cov = covariance(k, &[a], &[b], &[1.0], &[2]).unwrap();
        let tails = state_tails(k, &[a], &[b], &[2]).unwrap();
        assert!((m[0] - tails[0]).abs() < 1e-15);
        assert!((v[0] - cov[0]).abs() < 1e-15);
    }

    #[test]
    fn empirical_small_case() {
        let out = empirical(4, &[2], &[1], 2, &[1, 2]).unwrap();
        assert!((out[0] - 5.0 / 6.0).abs() < 1e-15 && (out[1] - 1.0 / 6.0).abs() < 1e-15);
    }

    #[test]
    fn empirical_matches_full_support_tails() {
        // Against per-state tails over the full hypergeometric support,
        // cutoffs in any order, far tails included.
        let mut span = Span::default();
        let (mut up, mut low) = (Vec::new(), Vec::new());
        for &(n, k) in &[(1u64, 1u64), (9, 4), (60, 60), (300, 120), (4096, 2048), (5000, 17)] {
            let states: Vec<u64> = [0, 1, n / 7, n / 2, n - 1, n].to_vec();
            let freqs: Vec<u64> = (1..=states.len() as u64).collect();
            let cut: Vec<u64> = [k + 1, 0, 1, k / 2, k, k / 3, 2.min(k)].to_vec();
            let got = empirical(n, &states, &freqs, k, &cut).unwrap();
            for (j, &c) in cut.iter().enumerate() {
                let mut want = 0.0;
                for (&s, &f) in states.iter().zip(&freqs) {
                    span.hypergeometric(n, s, k).unwrap();
                    span.cumulative(&mut up, &mut low);
                    want += f as f64 * upper(&span, &up, c);
                }
                assert!(
                    (got[j] - want).abs() <= 1e-14 * want + 1e-300,
                    "n={n} k={k} c={c}: {} {want}",
                    got[j]
                );
            }
        }
        assert!(empirical(4, &[5], &[1], 2, &[1]).is_err());
        assert!(empirical(4, &[2], &[1], 5, &[1]).is_err());
        assert!(empirical(4, &[2], &[1], 2, &[4]).is_err());
    }
}
