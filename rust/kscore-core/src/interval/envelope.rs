//! The monotone envelope of the default interval over questions
//! (python/kscore/leaderboard/stats/default_interval.py, whose numpy code is
//! the reference this kernel is tested against: tests/test_default_interval.py).
//!
//! A model's units (questions, or clusters) come as runs of equal units: a
//! run's unit total `s` (of per-question estimates rescaled into [0, 1]), its
//! questions `m` and how many units it holds `c`, the runs of a model in
//! order, best first for the lower bound (worst first for the upper). The
//! model's sums `t1 = sum c s`, `t2 = sum c s^2`, `t3 = sum c s m`, `t4 =
//! sum c m^2` give its mean `t1 / n` and its units' sum of squared
//! residuals `t2 - 2 mu t3 + mu^2 t4`. Moving `j` units of a run to the end
//! of the range (the top `m`, or 0), after every run before it, changes the
//! sums by `j` times the run's deltas: for every such board (every `j` of
//! every run that moves) the bound of [`bound`] is taken, and the least
//! (greatest) of them and the model's own is the envelope. Work: one
//! bound per unit that is not already at the end; a stop is checked every
//! `CHECK` of them.

use rayon::prelude::*;

use crate::cancel;
use crate::error::{Error, Result};
use crate::par::Grain;

/// Bounds between checks for a stop.
const CHECK: usize = 1 << 16;
/// Every `j` of a run up to this many units; beyond, `j` grows by a
/// sixteenth at a step (a run of 100,000 equal units: some 170 bounds).
pub const DENSE: usize = 64;

/// The `j` of a run of `count` units: 1..=min(count, DENSE), then up by a
/// sixteenth (at least 1) to `count`.
fn moves(count: usize) -> impl Iterator<Item = usize> {
    let mut j = 0usize;
    std::iter::from_fn(move || {
        if j >= count {
            return None;
        }
        j = if j < DENSE {
            j + 1
        } else {
            (j + j / 16).max(j + 1).min(count)
        };
        Some(j)
    })
}

/// The per-model sums (one value per model each).
#[derive(Clone, Copy)]
pub struct Models<'a> {
    /// Model `i`'s runs are `offsets[i]..offsets[i + 1]` (nondecreasing).
    pub offsets: &'a [usize],
    /// Questions.
    pub n: &'a [f64],
    /// Units (clusters, or questions).
    pub g: &'a [f64],
    pub t1: &'a [f64],
    pub t2: &'a [f64],
    pub t3: &'a [f64],
    pub t4: &'a [f64],
    /// `n^2 / t4`: the all-or-nothing number of outcomes.
    pub n_w: &'a [f64],
    /// Answers behind the estimates.
    pub samples: &'a [f64],
}

/// The runs of equal units, in model order (see the module's docs).
#[derive(Clone, Copy)]
pub struct Runs<'a> {
    pub s: &'a [f64],
    pub m: &'a [f64],
    pub c: &'a [f64],
}

/// The Wilson score bound with continuity correction (Newcombe 1998, method
/// 4) of a proportion `p` of `n` (fractional allowed), as the numpy
/// `wilson_cc`: 0 (1) at `p = 0` (1) for the lower (upper) bound, clipped
/// into [0, 1].
pub fn wilson_cc(p: f64, n: f64, z: f64, upper: bool) -> f64 {
    let z2 = z * z;
    if upper {
        if p >= 1.0 {
            return 1.0;
        }
        let r = z2 + 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) - 1.0);
        let b = (2.0 * n * p + z2 + 1.0 + z * r.max(0.0).sqrt()) / (2.0 * (n + z2));
        b.clamp(0.0, 1.0)
    } else {
        if p <= 0.0 {
            return 0.0;
        }
        let r = z2 - 2.0 - 1.0 / n + 4.0 * p * (n * (1.0 - p) + 1.0);
        let b = (2.0 * n * p + z2 - 1.0 - z * r.max(0.0).sqrt()) / (2.0 * (n + z2));
        b.clamp(0.0, 1.0)
    }
}

/// One end of the interval of a board with mean `p` (rescaled) and units'
/// sum of squared residuals `ss`: the continuity-corrected Wilson bound on
/// the effective number of outcomes `min(n_w / phi, samples)`, `phi = se^2
/// n_w / (p (1 - p))` in (0, 1], 1 at the ends (as the numpy `_bound`).
#[allow(clippy::too_many_arguments)]
pub fn bound(p: f64, ss: f64, g: f64, n: f64, n_w: f64, samples: f64, z: f64, upper: bool) -> f64 {
    let p = if p > 1.0 - 1e-9 {
        1.0
    } else if p < 1e-9 {
        0.0
    } else {
        p
    };
    let v = p * (1.0 - p);
    let se2 = g / (g - 1.0) * ss / (n * n);
    let phi = if v > 0.0 {
        (se2 * n_w / v).clamp(1e-12, 1.0)
    } else {
        1.0
    };
    let phi = if phi.is_nan() { 1.0 } else { phi };
    let n_eff = (n_w / phi).min(samples.max(n_w));
    wilson_cc(p, n_eff, z, upper)
}

/// Each model's envelope (see the module's docs): the least lower bound
/// (`upper`: the greatest upper bound), on the rescaled scale.
pub fn envelope(models: Models<'_>, runs: Runs<'_>, z: f64, upper: bool) -> Result<Vec<f64>> {
    let l = models.n.len();
    let per_model = [
        models.g,
        models.t1,
        models.t2,
        models.t3,
        models.t4,
        models.n_w,
        models.samples,
    ];
    if models.offsets.len() != l + 1 || per_model.iter().any(|a| a.len() != l) {
        return Err(Error::value(
            "the models' sums must have one value per model and offsets one more",
        ));
    }
    let u = check_units(models.offsets, [runs.s.len(), runs.m.len(), runs.c.len()], "runs")?;
    // Models are independent: blocks of them on the pool's threads, their
    // bounds joined in model order (the same values at any thread count).
    let blocks = l.div_ceil(BLOCK);
    let block_ns = BLOCK * (u / l.max(1) + 1) * CANDIDATE_NS * 8;
    let parts: Vec<Vec<f64>> = (0..blocks)
        .into_par_iter()
        .with_grain(block_ns)
        .map(|b| {
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(l));
            let mut out = Vec::with_capacity(hi - lo);
            let mut done = 0usize;
            for i in lo..hi {
                out.push(model_envelope(&models, &runs, i, z, upper, &mut done));
                if done >= CHECK {
                    cancel::check()?;
                    done = 0;
                }
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    Ok(parts.concat())
}

/// The units' (or runs') three columns of one length `u`, returned, and the
/// models' `offsets` (one more than the models: checked before) nondecreasing
/// within them: what [`envelope`] and [`bounds`] both check.
fn check_units(offsets: &[usize], lens: [usize; 3], what: &str) -> Result<usize> {
    let u = lens[0];
    if lens[1] != u || lens[2] != u {
        return Err(Error::value(format!(
            "the {what}' totals, sizes and counts must have the same length"
        )));
    }
    if offsets.windows(2).any(|w| w[0] > w[1]) || offsets.last().is_some_and(|&last| last > u) {
        return Err(Error::value(format!(
            "the offsets must be nondecreasing and at most the {what}' number"
        )));
    }
    Ok(u)
}

/// Models per piece of [`envelope`]'s work.
const BLOCK: usize = 512;
/// Single-core nanoseconds of one candidate bound (a Wilson bound: a square
/// root and a few divisions).
const CANDIDATE_NS: usize = 20;

/// Model `i`'s envelope (`done`: counts the bounds computed).
fn model_envelope(models: &Models<'_>, runs: &Runs<'_>, i: usize, z: f64, upper: bool, done: &mut usize) -> f64 {
    let sums = Sums {
        n: models.n[i],
        g: models.g[i],
        t1: models.t1[i],
        t2: models.t2[i],
        t3: models.t3[i],
        t4: models.t4[i],
        n_w: models.n_w[i],
        samples: models.samples[i],
    };
    let order = (models.offsets[i]..models.offsets[i + 1]).map(|r| (runs.s[r], runs.m[r], runs.c[r]));
    run_envelope(&sums, order, z, upper, done)
}

/// One model's sums (see [`Models`]).
#[derive(Clone, Copy)]
struct Sums {
    n: f64,
    g: f64,
    t1: f64,
    t2: f64,
    t3: f64,
    t4: f64,
    n_w: f64,
    samples: f64,
}

/// The envelope of one model of sums `sums` whose runs `(s, m, c)` come in
/// the order they move (best first for the lower bound, worst first for the
/// upper).
fn run_envelope(
    sums: &Sums,
    order: impl Iterator<Item = (f64, f64, f64)>,
    z: f64,
    upper: bool,
    done: &mut usize,
) -> f64 {
    let Sums {
        n,
        g,
        t1,
        t2,
        t3,
        t4,
        n_w,
        samples,
    } = *sums;
    let at = |a1: f64, a2: f64, a3: f64| {
        let mu = ((t1 + a1) / n).clamp(0.0, 1.0);
        let ss = ((t2 + a2) - 2.0 * mu * (t3 + a3) + mu * mu * t4).max(0.0);
        bound(mu, ss, g, n, n_w, samples, z, upper)
    };
    let mut best = at(0.0, 0.0, 0.0);
    let (mut a1, mut a2, mut a3) = (0.0, 0.0, 0.0);
    for (s, m, c) in order {
        let top = if upper { 0.0 } else { m };
        let (d1, d2, d3) = (top - s, top * top - s * s, (top - s) * m);
        if d1 == 0.0 {
            continue; // (units already at the end: moving them changes nothing)
        }
        let count = c.max(0.0) as usize;
        for j in moves(count) {
            let jf = j as f64;
            let b = at(a1 + jf * d1, a2 + jf * d2, a3 + jf * d3);
            best = if upper { best.max(b) } else { best.min(b) };
            *done += 1;
        }
        a1 += c * d1;
        a2 += c * d2;
        a3 += c * d3;
    }
    best
}

/// A board's units (questions, or clusters) in model order, each model's in
/// any order within its run: unit `r` has the total `total[r]` of its
/// questions' estimates (on the metric's scale), `size[r]` questions and
/// stands for `mult[r]` equal units.
#[derive(Clone, Copy)]
pub struct Units<'a> {
    /// Model `i`'s units are `offsets[i]..offsets[i + 1]` (nondecreasing).
    pub offsets: &'a [usize],
    pub total: &'a [f64],
    pub size: &'a [f64],
    pub mult: &'a [f64],
}

/// Every model's default interval before its last rescaling: `lo` and `hi`
/// on the rescaled scale (the envelopes, unclipped) and `g` its units.
pub struct Bounds {
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub g: Vec<f64>,
}

/// The whole of the default interval's work for every model, as the numpy
/// `bounds()` does it with [`envelope`] (the same floats: the same sums in
/// the same order): each unit's total rescaled by its model's range
/// (`(total - size lo_b) / span`), the model's sums over its units in their
/// order (`n = sum c m`, `g = sum c`, `t1 = sum c s`, `t2 = sum c s s`, `t3 =
/// sum c s m`, `t4 = sum c m m`, `n_w = n n / t4`), its units ordered by
/// `s / m` (stably: best first for the lower bound, worst first for the
/// upper), and both envelopes. `lo_b`, `span` and `samples`: one per model.
pub fn bounds(units: Units<'_>, lo_b: &[f64], span: &[f64], samples: &[f64], z: f64) -> Result<Bounds> {
    let l = lo_b.len();
    if units.offsets.len() != l + 1 || span.len() != l || samples.len() != l {
        return Err(Error::value(
            "the models' ranges and samples must have one value per model and offsets one more",
        ));
    }
    let u = check_units(
        units.offsets,
        [units.total.len(), units.size.len(), units.mult.len()],
        "units",
    )?;
    let blocks = l.div_ceil(BLOCK);
    let block_ns = BLOCK * (u / l.max(1) + 1) * CANDIDATE_NS * 16;
    let parts: Vec<Bounds> = (0..blocks)
        .into_par_iter()
        .with_grain(block_ns)
        .map(|b| {
            let (first, end) = (b * BLOCK, ((b + 1) * BLOCK).min(l));
            let mut out = Bounds {
                lo: Vec::with_capacity(end - first),
                hi: Vec::with_capacity(end - first),
                g: Vec::with_capacity(end - first),
            };
            let (mut s, mut y, mut order) = (Vec::new(), Vec::new(), Vec::new());
            let mut done = 0usize;
            for i in first..end {
                let (a, e) = (units.offsets[i], units.offsets[i + 1]);
                let (total, size, mult) = (&units.total[a..e], &units.size[a..e], &units.mult[a..e]);
                s.clear();
                s.extend(total.iter().zip(size).map(|(&t, &m)| (t - m * lo_b[i]) / span[i]));
                let mut sums = Sums {
                    n: 0.0,
                    g: 0.0,
                    t1: 0.0,
                    t2: 0.0,
                    t3: 0.0,
                    t4: 0.0,
                    n_w: 0.0,
                    samples: samples[i],
                };
                for ((&si, &m), &c) in s.iter().zip(size).zip(mult) {
                    // (as numpy's bincount of the weights c m, c, c s, c s s, c s m, c m m: in order)
                    sums.n += c * m;
                    sums.g += c;
                    sums.t1 += c * si;
                    sums.t2 += c * si * si;
                    sums.t3 += c * si * m;
                    sums.t4 += c * m * m;
                }
                sums.n_w = sums.n * sums.n / sums.t4;
                y.clear();
                y.extend(s.iter().zip(size).map(|(&si, &m)| si / m));
                order.clear();
                order.extend(0..e - a);
                // Lower bound: best (greatest s / m) first; ties in their order (numpy's stable lexsort).
                order.sort_by(|&p, &q| y[q].partial_cmp(&y[p]).unwrap_or(std::cmp::Ordering::Equal));
                let runs = order.iter().map(|&r| (s[r], size[r], mult[r]));
                out.lo.push(run_envelope(&sums, runs, z, false, &mut done));
                order.clear();
                order.extend(0..e - a);
                order.sort_by(|&p, &q| y[p].partial_cmp(&y[q]).unwrap_or(std::cmp::Ordering::Equal));
                let runs = order.iter().map(|&r| (s[r], size[r], mult[r]));
                out.hi.push(run_envelope(&sums, runs, z, true, &mut done));
                out.g.push(sums.g);
                if done >= CHECK {
                    cancel::check()?;
                    done = 0;
                }
            }
            Ok(out)
        })
        .collect::<Result<_>>()?;
    let mut all = Bounds {
        lo: Vec::with_capacity(l),
        hi: Vec::with_capacity(l),
        g: Vec::with_capacity(l),
    };
    for p in parts {
        all.lo.extend(p.lo);
        all.hi.extend(p.hi);
        all.g.extend(p.g);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_cc_matches_newcombe() {
        // scipy.stats.binomtest(10, 20).proportion_ci(0.95, "wilsoncc"): (0.278537, 0.721463)
        let z = 1.959963984540054;
        assert!((wilson_cc(0.5, 20.0, z, false) - 0.278537).abs() < 1e-6);
        assert!((wilson_cc(0.5, 20.0, z, true) - 0.721463).abs() < 1e-6);
        assert_eq!(wilson_cc(0.0, 20.0, z, false), 0.0);
        assert_eq!(wilson_cc(1.0, 20.0, z, true), 1.0);
    }

    #[test]
    fn every_answer_right_gives_the_rule_of_three() {
        // 30 questions at 1: n_w = 30, the bound of 30 all-right outcomes (0.85868).
        let (s, m, c) = ([1.0], [1.0], [30.0]);
        let models = Models {
            offsets: &[0, 1],
            n: &[30.0],
            g: &[30.0],
            t1: &[30.0],
            t2: &[30.0],
            t3: &[30.0],
            t4: &[30.0],
            n_w: &[30.0],
            samples: &[120.0],
        };
        let lo = envelope(models, Runs { s: &s, m: &m, c: &c }, 1.959963984540054, false).unwrap();
        assert!((lo[0] - 0.8586795203175484).abs() < 1e-12);
    }

    #[test]
    fn a_board_moved_to_the_top_lowers_the_lower_bound() {
        // 29 questions at 1 and one at 0.75 (4 samples each): the envelope reaches the all-right board's bound.
        let (s, m, c) = ([1.0, 0.75], [1.0, 1.0], [29.0, 1.0]);
        let t1 = 29.75;
        let t2 = 29.0 + 0.5625;
        let models = Models {
            offsets: &[0, 2],
            n: &[30.0],
            g: &[30.0],
            t1: &[t1],
            t2: &[t2],
            t3: &[t1],
            t4: &[30.0],
            n_w: &[30.0],
            samples: &[120.0],
        };
        let lo = envelope(models, Runs { s: &s, m: &m, c: &c }, 1.959963984540054, false).unwrap();
        assert!((lo[0] - 0.8586795203175484).abs() < 1e-12);
    }

    #[test]
    fn moves_are_dense_then_geometric_and_end_at_the_count() {
        assert_eq!(moves(5).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
        let m: Vec<usize> = moves(100_000).collect();
        assert_eq!(&m[..DENSE], &(1..=DENSE).collect::<Vec<_>>()[..]);
        assert_eq!(*m.last().unwrap(), 100_000);
        assert!(m.len() < 200 && m.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(moves(0).count(), 0);
    }

    #[test]
    fn models_in_many_blocks_are_each_their_own_envelope() {
        // 3 blocks and a part, split on the pool (a grain of 1 ns): each model's bound is the one it has alone.
        let l = 3 * BLOCK + 7;
        let mut offsets = vec![0usize];
        let (mut s, mut m, mut c) = (Vec::new(), Vec::new(), Vec::new());
        let mut sums = vec![Vec::new(); 8];
        for i in 0..l {
            let units = 1 + i % 4;
            let (mut t1, mut t2, mut t3, mut t4, mut n, mut g) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            for k in 0..units {
                let (si, ci) = (((i * 7 + k * 3) % 11) as f64 / 10.0, (1 + (i + k) % 5) as f64);
                s.push(si);
                m.push(1.0);
                c.push(ci);
                (t1, t2, t3, t4, n, g) = (t1 + ci * si, t2 + ci * si * si, t3 + ci * si, t4 + ci, n + ci, g + ci);
            }
            offsets.push(s.len());
            for (v, x) in sums.iter_mut().zip([n, g, t1, t2, t3, t4, n * n / t4, 4.0 * n]) {
                v.push(x);
            }
        }
        let models = Models {
            offsets: &offsets,
            n: &sums[0],
            g: &sums[1],
            t1: &sums[2],
            t2: &sums[3],
            t3: &sums[4],
            t4: &sums[5],
            n_w: &sums[6],
            samples: &sums[7],
        };
        let runs = Runs { s: &s, m: &m, c: &c };
        let old = crate::par::set_grain(1);
        let got = [false, true].map(|upper| envelope(models, runs, 1.96, upper).unwrap());
        crate::par::set_grain(old);
        for (upper, got) in [false, true].into_iter().zip(got) {
            assert_eq!(got.len(), l);
            for (i, x) in got.iter().enumerate() {
                let alone = model_envelope(&models, &runs, i, 1.96, upper, &mut 0);
                assert_eq!(x.to_bits(), alone.to_bits(), "model {i}");
            }
        }
    }

    #[test]
    fn one_call_bounds_order_each_models_units_as_the_per_direction_kernel() {
        // Two models, units out of order within each (and a tie of s / m): bounds() sums, orders (stably) and
        // moves them as envelope() does on the runs ordered by hand, the same bits.
        let offsets = [0usize, 3, 5];
        let (total, size, mult) = (
            [0.5, 1.0, 0.25, 2.0, 1.0],
            [1.0, 1.0, 1.0, 2.0, 1.0],
            [3.0, 20.0, 2.0, 4.0, 70.0],
        );
        let (lo_b, span, samples) = ([0.0, 0.0], [1.0, 1.0], [100.0, 300.0]);
        let got = bounds(
            Units {
                offsets: &offsets,
                total: &total,
                size: &size,
                mult: &mult,
            },
            &lo_b,
            &span,
            &samples,
            1.96,
        )
        .unwrap();
        for upper in [false, true] {
            // by hand: model 0 best first 1.0, 0.5, 0.25; model 1 (s / m 1.0 and 1.0: a tie) in its order
            let order: [usize; 5] = if upper { [2, 0, 1, 3, 4] } else { [1, 0, 2, 3, 4] };
            let (s, m, c): (Vec<f64>, Vec<f64>, Vec<f64>) = (
                order.iter().map(|&r| total[r]).collect(),
                order.iter().map(|&r| size[r]).collect(),
                order.iter().map(|&r| mult[r]).collect(),
            );
            let mut sums = vec![Vec::new(); 8];
            for i in 0..2 {
                let (mut n, mut g, mut t1, mut t2, mut t3, mut t4) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
                for r in offsets[i]..offsets[i + 1] {
                    let (si, mi, ci) = (total[r], size[r], mult[r]);
                    (n, g) = (n + ci * mi, g + ci);
                    (t1, t2, t3, t4) = (t1 + ci * si, t2 + ci * si * si, t3 + ci * si * mi, t4 + ci * mi * mi);
                }
                for (v, x) in sums.iter_mut().zip([n, g, t1, t2, t3, t4, n * n / t4, samples[i]]) {
                    v.push(x);
                }
            }
            let models = Models {
                offsets: &offsets,
                n: &sums[0],
                g: &sums[1],
                t1: &sums[2],
                t2: &sums[3],
                t3: &sums[4],
                t4: &sums[5],
                n_w: &sums[6],
                samples: &sums[7],
            };
            let want = envelope(models, Runs { s: &s, m: &m, c: &c }, 1.96, upper).unwrap();
            let got = if upper { &got.hi } else { &got.lo };
            assert_eq!(
                got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
            );
            assert_eq!(sums[1], [25.0, 74.0]);
        }
        assert_eq!(got.g, vec![25.0, 74.0]);
        let short = Units {
            offsets: &[0, 1],
            total: &[1.0],
            size: &[1.0],
            mult: &[1.0, 2.0],
        };
        assert!(bounds(short, &[0.0], &[1.0], &[1.0], 1.96).is_err());
    }

    #[test]
    fn bad_shapes_are_errors() {
        let models = Models {
            offsets: &[0],
            n: &[1.0],
            g: &[1.0],
            t1: &[1.0],
            t2: &[1.0],
            t3: &[1.0],
            t4: &[1.0],
            n_w: &[1.0],
            samples: &[1.0],
        };
        assert!(envelope(models, Runs { s: &[], m: &[], c: &[] }, 1.96, false).is_err());
    }
}
