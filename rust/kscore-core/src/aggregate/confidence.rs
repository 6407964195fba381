//! Per-trace confidence signals from token log-probabilities (scorio.aggregate's
//! `confidence`, `prm_aggregate` and DeepConf's online stop), for many traces at once.
//!
//! Each trace is a run of positions; each position a row of candidates (one
//! chosen-token log-probability, or the top-k log-probabilities). A per-token
//! statistic ([`Stat`]) is computed per row, then reduced over the trace
//! ([`Reduce`]). scorio computes the same with numpy: every sum here is numpy's
//! float64 `add.reduce` (pairwise, 8 accumulators, blocks of 128: [`np_sum`]),
//! every cumulative sum sequential, every quantile numpy's default (linear), so
//! results without `exp`/`log` are scorio's to the bit. `exp` and `ln` are the
//! C library's (Python's `math`); numpy may use its own vector `exp`/`log`
//! (AVX-512), which agree to about an ulp.

use rayon::prelude::*;

use crate::par::Grain;
use crate::{Error, Result};

/// The traces' tokens: position `p`'s candidates are `values[row(p)]`; trace
/// `t` holds positions `starts[t] .. starts[t] + lens[t]`.
pub struct Tokens<'a> {
    pub values: &'a [f64],
    pub rows: Rows<'a>,
    pub starts: &'a [usize],
    pub lens: &'a [usize],
}

/// Candidates per position: the same `k` everywhere, or each row's bounds
/// (`bounds[p] .. bounds[p + 1]`, positions + 1 entries).
#[derive(Clone, Copy)]
pub enum Rows<'a> {
    Fixed(usize),
    Bounds(&'a [usize]),
}

/// The per-token statistic of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stat {
    /// The value itself (chosen-token log-probabilities, step scores).
    Value,
    /// DeepConf's `-mean(row)` (raw top-k log-probabilities).
    Confidence,
    /// Shannon entropy of the renormalised row.
    Entropy,
    /// Variance of the surprisal under the renormalised row.
    Varentropy,
    /// KL from uniform to the renormalised row.
    SelfCertainty,
    /// `exp(max(row))`.
    MaxProb,
    /// Top-1 minus top-2 (0 for one candidate).
    Margin,
    /// `exp(top1) - exp(top2)` (0 for one candidate).
    ProbMargin,
}

impl Stat {
    pub fn parse(name: &str) -> Option<Stat> {
        Some(match name {
            "value" => Stat::Value,
            "confidence" => Stat::Confidence,
            "entropy" => Stat::Entropy,
            "varentropy" => Stat::Varentropy,
            "self_certainty" => Stat::SelfCertainty,
            "max_prob" => Stat::MaxProb,
            "margin" => Stat::Margin,
            "prob_margin" => Stat::ProbMargin,
            _ => return None,
        })
    }

    /// Rough nanoseconds per candidate (for the parallel grain).
    fn cost(self) -> usize {
        match self {
            Stat::Value | Stat::Confidence | Stat::MaxProb | Stat::Margin | Stat::ProbMargin => 1,
            Stat::Entropy | Stat::SelfCertainty => 12,
            Stat::Varentropy => 18,
        }
    }
}

/// How a trace's per-token statistics become one number.
#[derive(Clone, Copy, Debug)]
pub enum Reduce<'a> {
    Mean,
    Min,
    Max,
    Sum,
    Last,
    Prod,
    /// `exp(-mean)`.
    Perplexity,
    /// Mean of the last `tau` (clamped to `1..=T`).
    Tail(usize),
    /// Minimum sliding-window mean (window clamped to `T`).
    Lowest(usize),
    /// Mean of the window means at or below their `q` quantile.
    Bottom(usize, f64),
    /// Reasoning (`..a`, divided by `a` if `normalize`) plus answer (`a..`)
    /// sums, `a` per trace (status 4 outside `0..=T`).
    Picsar {
        answer_start: &'a [i64],
        normalize: bool,
    },
    /// The last token of the first window whose mean is below the trace's
    /// threshold, or -1.
    Stop {
        window: usize,
        thresholds: &'a [f64],
    },
}

/// Per-trace outcome: 0 fine, else the first problem met (scorio's order).
pub const OK: u8 = 0;
pub const NO_TOKENS: u8 = 1;
pub const EMPTY_ROW: u8 = 2;
pub const NOT_FINITE: u8 = 3;
pub const BAD_ANSWER_START: u8 = 4;

/// numpy's float64 sum of `n` values `f(0..n)` (its `pairwise_sum`): below 8
/// values in order; up to 128 in 8 running lanes, combined
/// `((0+1)+(2+3))+((4+5)+(6+7))`, then the rest in order; above, split at
/// half rounded down to a multiple of 8. The reduction starts from 0.0.
#[inline]
pub fn np_sum_by(n: usize, f: &impl Fn(usize) -> f64) -> f64 {
    0.0 + pairwise(0, n, f)
}

/// numpy's float64 sum of a slice ([`np_sum_by`]).
#[inline]
pub fn np_sum(x: &[f64]) -> f64 {
    np_sum_by(x.len(), &|i| x[i])
}

fn pairwise(lo: usize, n: usize, f: &impl Fn(usize) -> f64) -> f64 {
    if n < 8 {
        let mut res = 0.0;
        for i in lo..lo + n {
            res += f(i);
        }
        res
    } else if n <= 128 {
        let mut r = [0.0f64; 8];
        for (j, x) in r.iter_mut().enumerate() {
            *x = f(lo + j);
        }
        let full = n - n % 8;
        let mut i = 8;
        while i < full {
            for (j, x) in r.iter_mut().enumerate() {
                *x += f(lo + i + j);
            }
            i += 8;
        }
        let mut res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        while i < n {
            res += f(lo + i);
            i += 1;
        }
        res
    } else {
        let mut n2 = n / 2;
        n2 -= n2 % 8;
        pairwise(lo, n2, f) + pairwise(lo + n2, n - n2, f)
    }
}

/// numpy's `np.quantile(x, q)` (method "linear") of a non-empty slice without
/// NaN; `x` is reordered.
pub fn np_quantile(x: &mut [f64], q: f64) -> f64 {
    let n = x.len();
    let vi = (n - 1) as f64 * q;
    let cmp = |a: &f64, b: &f64| a.total_cmp(b);
    if vi >= (n - 1) as f64 {
        return x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    }
    let prev = vi.floor();
    let lo = prev as usize;
    let (_, a, rest) = x.select_nth_unstable_by(lo, cmp);
    let a = *a;
    let b = rest.iter().copied().fold(f64::INFINITY, f64::min);
    let gamma = vi - prev;
    let diff = b - a;
    if gamma >= 0.5 {
        b - diff * (1.0 - gamma)
    } else {
        a + diff * gamma
    }
}

#[inline]
fn row_max(r: &[f64]) -> f64 {
    r.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}

/// The statistic of one non-empty, finite row (scorio's formulas, numpy's sums).
fn token(stat: Stat, r: &[f64]) -> f64 {
    let k = r.len();
    match stat {
        Stat::Value => r[0],
        Stat::Confidence => -(np_sum(r) / k as f64),
        Stat::MaxProb => row_max(r).exp(),
        Stat::Margin | Stat::ProbMargin => {
            if k < 2 {
                return 0.0;
            }
            let (mut top1, mut top2) = (f64::NEG_INFINITY, f64::NEG_INFINITY);
            for &x in r {
                if x > top1 {
                    top2 = top1;
                    top1 = x;
                } else if x > top2 {
                    top2 = x;
                }
            }
            if stat == Stat::Margin {
                top1 - top2
            } else {
                top1.exp() - top2.exp()
            }
        }
        Stat::Entropy | Stat::Varentropy | Stat::SelfCertainty => {
            let m = row_max(r);
            if stat != Stat::SelfCertainty && k <= SMALL_ROW {
                return renormalised(stat, r, m);
            }
            let lse = np_sum_by(k, &|i| (r[i] - m).exp()).ln();
            let log_p = |i: usize| (r[i] - m) - lse;
            match stat {
                Stat::Entropy => -np_sum_by(k, &|i| {
                    let lp = log_p(i);
                    lp.exp() * lp
                }),
                Stat::Varentropy => {
                    let h = np_sum_by(k, &|i| {
                        let lp = log_p(i);
                        lp.exp() * -lp
                    });
                    np_sum_by(k, &|i| {
                        let lp = log_p(i);
                        let d = -lp - h;
                        lp.exp() * (d * d)
                    })
                }
                _ => -(k as f64).ln() - np_sum_by(k, &log_p) / k as f64,
            }
        }
    }
}

/// Rows up to this many candidates take [`renormalised`]'s one `exp` per candidate.
const SMALL_ROW: usize = 64;

/// Entropy or varentropy of a row of at most [`SMALL_ROW`] candidates with one
/// `exp` per candidate: `e_j = exp(r_j - max)`, `p_j = e_j / sum(e)` where scorio
/// takes `exp(log p_j)` (both within about an ulp of the true `p_j`; the log
/// probabilities `log p_j = (r_j - max) - log(sum(e))` are scorio's own).
fn renormalised(stat: Stat, r: &[f64], m: f64) -> f64 {
    let k = r.len();
    let mut e = [0.0f64; SMALL_ROW];
    let e = &mut e[..k];
    for (x, &v) in e.iter_mut().zip(r) {
        *x = (v - m).exp();
    }
    let total = np_sum(e);
    let lse = total.ln();
    let log_p = |i: usize| (r[i] - m) - lse;
    let p = |i: usize| e[i] / total;
    if stat == Stat::Entropy {
        return -np_sum_by(k, &|i| p(i) * log_p(i));
    }
    let h = np_sum_by(k, &|i| p(i) * -log_p(i));
    np_sum_by(k, &|i| {
        let d = -log_p(i) - h;
        p(i) * (d * d)
    })
}

/// Window means of `c` for a window of `w` (1 <= w): one group (the mean)
/// when `w >= len`, else scorio's cumulative-sum differences.
fn groups(c: &[f64], w: usize, csum: &mut Vec<f64>, out: &mut Vec<f64>) {
    let t = c.len();
    let w = w.min(t);
    out.clear();
    if w == t {
        out.push(np_sum(c) / t as f64);
        return;
    }
    csum.clear();
    csum.push(0.0);
    let mut acc = 0.0;
    for &x in c {
        acc += x;
        csum.push(acc);
    }
    let wf = w as f64;
    out.extend((0..=t - w).map(|s| (csum[s + w] - csum[s]) / wf));
}

fn check(tk: &Tokens<'_>) -> Result<usize> {
    let positions = match tk.rows {
        Rows::Fixed(k) => {
            if k == 0 || !tk.values.len().is_multiple_of(k) {
                return Err(Error::value("the token values do not fill whole rows"));
            }
            tk.values.len() / k
        }
        Rows::Bounds(b) => {
            if b.is_empty() || b[0] != 0 || b.windows(2).any(|w| w[1] < w[0]) || b[b.len() - 1] != tk.values.len() {
                return Err(Error::value("the row bounds do not cover the token values"));
            }
            b.len() - 1
        }
    };
    if tk.starts.len() != tk.lens.len() {
        return Err(Error::value("starts and lens differ in length"));
    }
    if tk
        .starts
        .iter()
        .zip(tk.lens)
        .any(|(&s, &l)| s.checked_add(l).is_none_or(|e| e > positions))
    {
        return Err(Error::value("a trace runs past the token values"));
    }
    Ok(positions)
}

/// Fills `buf` with trace `t`'s per-token statistics; the status.
fn trace_tokens(tk: &Tokens<'_>, stat: Stat, t: usize, buf: &mut Vec<f64>) -> u8 {
    buf.clear();
    let (s, l) = (tk.starts[t], tk.lens[t]);
    if l == 0 {
        return NO_TOKENS;
    }
    if let Rows::Fixed(k) = tk.rows {
        // Fast paths (no per-row slicing): a trace's rows are one run.
        let run = &tk.values[s * k..(s + l) * k];
        match stat {
            Stat::Value if k == 1 => {
                if !all_finite(run) {
                    return NOT_FINITE;
                }
                buf.extend_from_slice(run);
                return OK;
            }
            Stat::Confidence => {
                let kf = k as f64;
                for r in run.chunks_exact(k) {
                    let sum = np_sum(r);
                    // A NaN or inf makes the sum so; a finite sum needs no second look.
                    if !sum.is_finite() && !all_finite(r) {
                        return NOT_FINITE;
                    }
                    buf.push(-(sum / kf));
                }
                return OK;
            }
            _ => {}
        }
    }
    for p in s..s + l {
        let r = match tk.rows {
            Rows::Fixed(k) => &tk.values[p * k..(p + 1) * k],
            Rows::Bounds(b) => &tk.values[b[p]..b[p + 1]],
        };
        if r.is_empty() {
            return EMPTY_ROW;
        }
        if !r.iter().all(|x| x.is_finite()) {
            return NOT_FINITE;
        }
        buf.push(token(stat, r));
    }
    OK
}

/// Whether every value is finite (a branch-free pass per block).
fn all_finite(x: &[f64]) -> bool {
    x.chunks(256).all(|c| c.iter().fold(true, |a, v| a & v.is_finite()))
}

fn mean_tokens(tk: &Tokens<'_>) -> usize {
    let traces = tk.lens.len().max(1);
    let cells = match tk.rows {
        Rows::Fixed(k) => tk.lens.iter().sum::<usize>() * k,
        Rows::Bounds(_) => tk.values.len(),
    };
    cells / traces + 1
}

/// One number per trace and its status (values of bad traces are NaN).
pub fn trace_signal(tk: &Tokens<'_>, stat: Stat, reduce: Reduce<'_>) -> Result<(Vec<f64>, Vec<u8>)> {
    check(tk)?;
    let n = tk.lens.len();
    match reduce {
        Reduce::Picsar { answer_start, .. } if answer_start.len() != n => {
            return Err(Error::value("one answer_start per trace"));
        }
        Reduce::Stop { thresholds, .. } if thresholds.len() != n => {
            return Err(Error::value("one threshold per trace"));
        }
        Reduce::Tail(0) | Reduce::Lowest(0) | Reduce::Bottom(0, _) | Reduce::Stop { window: 0, .. } => {
            return Err(Error::value("window must be positive"));
        }
        _ => {}
    }
    let item_ns = mean_tokens(tk) * stat.cost() + 100;
    let mut value = vec![f64::NAN; n];
    let mut status = vec![OK; n];
    value
        .par_iter_mut()
        .zip(status.par_iter_mut())
        .with_grain(item_ns)
        .enumerate()
        .for_each_init(
            || (Vec::<f64>::new(), Vec::<f64>::new(), Vec::<f64>::new()),
            |(buf, csum, grp), (t, (v, st))| {
                *st = trace_tokens(tk, stat, t, buf);
                if *st != OK {
                    return;
                }
                let c = &buf[..];
                let len = c.len();
                let lf = len as f64;
                *v = match reduce {
                    Reduce::Mean => np_sum(c) / lf,
                    Reduce::Sum => np_sum(c),
                    Reduce::Min => c.iter().copied().fold(f64::INFINITY, f64::min),
                    Reduce::Max => row_max(c),
                    Reduce::Last => c[len - 1],
                    Reduce::Prod => c.iter().fold(1.0, |a, &x| a * x),
                    Reduce::Perplexity => (-(np_sum(c) / lf)).exp(),
                    Reduce::Tail(tau) => {
                        let tau = tau.clamp(1, len);
                        np_sum(&c[len - tau..]) / tau as f64
                    }
                    Reduce::Lowest(w) => {
                        groups(c, w, csum, grp);
                        grp.iter().copied().fold(f64::INFINITY, f64::min)
                    }
                    Reduce::Bottom(w, q) => {
                        groups(c, w, csum, grp);
                        csum.clear();
                        csum.extend_from_slice(grp);
                        let thresh = np_quantile(csum, q);
                        // numpy's `groups[groups <= thresh]`: kept in order, then summed.
                        csum.clear();
                        csum.extend(grp.iter().copied().filter(|&g| g <= thresh));
                        np_sum(csum) / csum.len() as f64
                    }
                    Reduce::Picsar {
                        answer_start,
                        normalize,
                    } => {
                        let a = answer_start[t];
                        if a < 0 || a as usize > len {
                            *st = BAD_ANSWER_START;
                            return;
                        }
                        let a = a as usize;
                        let mut r = np_sum(&c[..a]);
                        if normalize && a > 0 {
                            r /= a as f64;
                        }
                        r + np_sum(&c[a..])
                    }
                    Reduce::Stop { window, thresholds } => {
                        let w = window.min(len);
                        groups(c, w, csum, grp);
                        match grp.iter().position(|&g| g < thresholds[t]) {
                            Some(s) => (s + w - 1) as f64,
                            None => -1.0,
                        }
                    }
                };
            },
        );
    Ok((value, status))
}

/// Every position's statistic (traces concatenated in order; a bad trace's
/// positions are NaN) and each trace's status.
pub fn token_signal(tk: &Tokens<'_>, stat: Stat) -> Result<(Vec<f64>, Vec<u8>)> {
    check(tk)?;
    let n = tk.lens.len();
    let mut at = Vec::with_capacity(n + 1);
    at.push(0usize);
    for &l in tk.lens {
        at.push(at[at.len() - 1] + l);
    }
    let mut out = vec![f64::NAN; at[n]];
    let mut status = vec![OK; n];
    let mut pieces: Vec<&mut [f64]> = Vec::with_capacity(n);
    let mut rest = &mut out[..];
    for &l in tk.lens {
        let (head, tail) = rest.split_at_mut(l);
        pieces.push(head);
        rest = tail;
    }
    let item_ns = mean_tokens(tk) * stat.cost() + 100;
    pieces
        .par_iter_mut()
        .zip(status.par_iter_mut())
        .with_grain(item_ns)
        .enumerate()
        .for_each_init(Vec::<f64>::new, |buf, (t, (piece, st))| {
            *st = trace_tokens(tk, stat, t, buf);
            if *st == OK {
                piece.copy_from_slice(buf);
            }
        });
    Ok((out, status))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(values: &[f64], k: usize, stat: Stat, reduce: Reduce<'_>) -> f64 {
        let lens = [values.len() / k];
        let tk = Tokens {
            values,
            rows: Rows::Fixed(k),
            starts: &[0],
            lens: &lens,
        };
        let (v, s) = trace_signal(&tk, stat, reduce).unwrap();
        assert_eq!(s[0], OK);
        v[0]
    }

    #[test]
    fn numpy_sum_order() {
        // Below 8 values: left to right from 0.0.
        assert_eq!(np_sum(&[1e16, 1.0, -1e16]), 0.0);
        // 8 lanes: the 1.0s added to lanes 0 and 1 are lost in 1e16 (numpy: np.sum gives 12.0).
        let mut x = vec![1.0; 16];
        x[0] = 1e16;
        x[1] = -1e16;
        assert_eq!(np_sum(&x), 12.0);
        assert_eq!(np_sum(&[]), 0.0);
    }

    #[test]
    fn deepconf_examples() {
        // scorio's docstring: confidences 1,1,1,2,2,2.
        let tk: Vec<f64> = [[0.0, -2.0]; 3]
            .iter()
            .chain([[-1.0, -3.0]; 3].iter())
            .flatten()
            .copied()
            .collect();
        assert_eq!(one(&tk, 2, Stat::Confidence, Reduce::Mean), 1.5);
        assert_eq!(one(&tk, 2, Stat::Confidence, Reduce::Tail(3)), 2.0);
        assert_eq!(one(&tk, 2, Stat::Confidence, Reduce::Lowest(3)), 1.0);
        let th = [2.0];
        assert_eq!(
            one(
                &tk,
                2,
                Stat::Confidence,
                Reduce::Stop {
                    window: 3,
                    thresholds: &th
                }
            ),
            2.0
        );
        let th = [0.5];
        assert_eq!(
            one(
                &tk,
                2,
                Stat::Confidence,
                Reduce::Stop {
                    window: 3,
                    thresholds: &th
                }
            ),
            -1.0
        );
    }

    #[test]
    fn quantile_linear() {
        // numpy: np.quantile([1, 2, 3, 4, 5], 0.8) == 4.2
        assert_eq!(np_quantile(&mut [5.0, 3.0, 1.0, 4.0, 2.0], 0.8), 4.2);
        assert_eq!(np_quantile(&mut [2.0], 0.1), 2.0);
        assert_eq!(np_quantile(&mut [1.0, 2.0], 1.0), 2.0);
    }

    #[test]
    fn statuses() {
        let v = [0.0, f64::NAN, -1.0];
        let tk = Tokens {
            values: &v,
            rows: Rows::Fixed(1),
            starts: &[0, 0, 2],
            lens: &[0, 2, 1],
        };
        let (out, s) = trace_signal(&tk, Stat::Value, Reduce::Mean).unwrap();
        assert_eq!(s, vec![NO_TOKENS, NOT_FINITE, OK]);
        assert_eq!(out[2], -1.0);
        let b = [0, 1, 1, 3];
        let tk = Tokens {
            values: &v,
            rows: Rows::Bounds(&b),
            starts: &[0],
            lens: &[3],
        };
        let (_, s) = trace_signal(&tk, Stat::Entropy, Reduce::Mean).unwrap();
        assert_eq!(s, vec![EMPTY_ROW]);
        let tk = Tokens {
            values: &v,
            rows: Rows::Fixed(1),
            starts: &[2],
            lens: &[2],
        };
        assert!(trace_signal(&tk, Stat::Value, Reduce::Mean).is_err());
    }

    #[test]
    fn entropy_of_uniform() {
        let l3 = -(3.0f64).ln();
        let h = one(&[l3, l3, l3], 3, Stat::Entropy, Reduce::Mean);
        assert!((h - 3.0f64.ln()).abs() < 1e-15);
        let sc = one(&[l3, l3, l3], 3, Stat::SelfCertainty, Reduce::Mean);
        assert!(sc.abs() < 1e-15);
    }
}
