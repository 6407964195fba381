//! Beta-posterior moments of a credit vector (docs/kernels.md, K4-K8): each distinct success
//! count c is a state with p ~ Beta(alpha0 + c, beta0 + N - c), the target is
//! the Bernstein polynomial `g(p) = sum_j A_j C(k,j) p^j (1-p)^(k-j)`, and
//!
//! * `E[g] = sum_j A_j BB(j; k, a, b)` (compensated sums, ~1 ulp),
//! * `E[g^2] = sum_z h_z BB(z; 2k, a, b)` with `h` the self-product of A
//!   (`bernstein`), built once per call,
//! * Var = E[g^2] - E[g]^2 unless that falls under scorio's cancellation
//!   guard `(d + 1) 64 eps max(1, E[g^2], E[g]^2)` (d the product's degree,
//!   2k for a variance), in which case the centred
//!   product `(A - E[g])^2` is integrated instead (docs/kernels.md, K6),
//! * Pass@k and Unanimous@k take the closed forms of `endpoint` (K7),
//! * two credits on the same bank get a covariance the same way (K6),
//!
//! then the frequency-weighted aggregation of K8. States run in parallel;
//! every per-state number is computed independently and every sum is
//! sequential in a fixed order, so results do not depend on the thread count.

use rayon::prelude::*;

use crate::cancel::{self, Watch};
use crate::error::{Error, Result};
use crate::finite::credit::{Credit, Shape};
use crate::intake::histogram::Histogram;
use crate::numeric::sum::Neumaier;
use crate::par::Grain;
use crate::posterior::bernstein::{self, Centred};
use crate::posterior::betabinom;
use crate::posterior::blocked::{self, BracketMoments};
use crate::posterior::endpoint;

const VARIANCE_ROUNDOFF: f64 = 64.0 * f64::EPSILON;

/// Per-state and dataset-level posterior moments of one credit.
#[derive(Clone, Debug)]
pub struct Moments {
    pub state_means: Vec<f64>,
    pub state_vars: Vec<f64>,
    pub mean: f64,
    pub var: f64,
}

/// Marginal moments of two credits and their covariance.
#[derive(Clone, Debug)]
pub struct JointMoments {
    pub left: Moments,
    pub right: Moments,
    pub state_covs: Vec<f64>,
    pub cov: f64,
}

/// Python's `repr` of a float, near enough for error messages.
pub(crate) fn py_repr(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.is_infinite() {
        if v > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        }
    } else {
        format!("{v:?}")
    }
}

fn finite(v: f64, name: &str) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(Error::FloatingPoint(format!(
            "{name} must be finite; got {}",
            py_repr(v)
        )))
    }
}

/// The posterior parameters (a, b) per state.
fn parameters(hist: &Histogram, alpha0: f64, beta0: f64) -> Result<Vec<(f64, f64)>> {
    let n = hist.n;
    let params: Vec<(f64, f64)> = hist
        .values
        .iter()
        .map(|&c| (alpha0 + c as f64, beta0 + (n - c) as f64))
        .collect();
    if params.iter().any(|(a, b)| !a.is_finite() || !b.is_finite()) {
        return Err(Error::FloatingPoint("non-finite Beta-posterior parameters".into()));
    }
    if params.iter().any(|&(a, b)| a <= 0.0 || b <= 0.0) {
        return Err(Error::FloatingPoint(
            "Beta-posterior parameters must be positive".into(),
        ));
    }
    Ok(params)
}

/// How a credit's moments are evaluated (scorio's classification by value).
enum Kind {
    Constant(f64),
    Pass,
    Unanimous,
    /// A step `1{j >= t}` with 1 < t < k, or any other vector.
    Product,
}

fn kind(credit: &Credit) -> Kind {
    match &credit.shape {
        Shape::Constant(a) => Kind::Constant(*a),
        Shape::Step(1) => Kind::Pass,
        Shape::Step(t) if *t == credit.k => Kind::Unanimous,
        Shape::Step(_) | Shape::General(_) => Kind::Product,
    }
}

/// Product coefficients of two credits: step regions or dense.
enum Product {
    /// Region probabilities: `[0]` is the product, `[3]` the product of the
    /// complements `(1 - x)(1 - y)`.
    Steps(Vec<[f64; 4]>),
    /// The product of x and y, and of their complements to the top values,
    /// `(x_k - x)(y_k - y)`.
    Dense(Vec<f64>, Vec<f64>),
    /// Large equal degrees: every bracket moment by blocked FFTs
    /// (docs/kernels.md, K5), centred products from their bilinear form.
    Blocked(BracketMoments),
}

impl Product {
    #[inline]
    fn complement_coef(&self, z: usize) -> f64 {
        match self {
            Product::Steps(r) => r[z][3],
            Product::Dense(_, h) => h[z],
            Product::Blocked(m) => m.cxy[z],
        }
    }

    #[inline]
    fn coef(&self, z: usize) -> f64 {
        match self {
            Product::Steps(r) => r[z][0],
            Product::Dense(h, _) => h[z],
            Product::Blocked(m) => m.exy[z],
        }
    }
}

fn step_threshold(credit: &Credit) -> Option<u64> {
    match credit.shape {
        Shape::Step(t) => Some(t),
        _ => None,
    }
}

/// Dense products of equal degrees at least this take the blocked FFT route
/// (`blocked`): O(k log k) instead of a walked bracket per coefficient.
const BLOCKED_MIN_K: u64 = 512;

fn product_with(x: &Credit, y: &Credit, use_blocked: bool) -> Product {
    match (step_threshold(x), step_threshold(y)) {
        (Some(t1), Some(t2)) => Product::Steps(bernstein::step_regions(x.k, t1, y.k, t2)),
        _ if use_blocked => Product::Blocked(blocked::bracket_moments(&x.values(), &y.values())),
        _ => {
            let (xv, yv) = (x.values(), y.values());
            let (xt, yt) = (xv[xv.len() - 1], yv[yv.len() - 1]);
            let xc: Vec<f64> = xv.iter().map(|v| xt - v).collect();
            let yc: Vec<f64> = yv.iter().map(|v| yt - v).collect();
            Product::Dense(bernstein::product(&xv, &yv), bernstein::product(&xc, &yc))
        }
    }
}

/// Scratch buffers for one worker.
#[derive(Default)]
struct Scratch {
    down: Vec<f64>,
    w: Vec<f64>,
}

/// `(E[A], A_k - E[A])` under BB(.; k, a, b), the second from its own sum
/// (`1 - E[A]` for a step), so neither suffers cancellation.
fn bb_mean(credit: &Credit, a: f64, b: f64, s: &mut Scratch) -> Result<(f64, f64)> {
    let first = betabinom::weights(credit.k, a, b, &mut s.down, &mut s.w)? as usize;
    let mut num = Neumaier::new();
    let mut den = Neumaier::new();
    match &credit.shape {
        Shape::Step(t) => {
            let mut below = Neumaier::new();
            for (i, &w) in s.w.iter().enumerate() {
                if (first + i) as u64 >= *t {
                    num.add(w);
                } else {
                    below.add(w);
                }
                den.add(w);
            }
            let total = den.value();
            let mean = finite(num.value() / total, "Beta-posterior moment")?;
            Ok((mean, below.value() / total))
        }
        Shape::General(v) => {
            let top = v[v.len() - 1];
            let mut below = Neumaier::new();
            for (i, &w) in s.w.iter().enumerate() {
                num.add(v[first + i] * w);
                below.add((top - v[first + i]) * w);
                den.add(w);
            }
            let total = den.value();
            let mean = finite(num.value() / total, "Beta-posterior moment")?;
            Ok((mean, below.value() / total))
        }
        Shape::Constant(a) => Ok((*a, 1.0 - *a)),
    }
}

/// Result of the first, per-state pass of a second moment: either settled,
/// or pending a centred integral (dense products only).
struct Second {
    value: f64,
    threshold: f64,
    pending: Option<(u64, Vec<f64>, f64)>, // (first, BB weights, their total)
}

/// `E[g1 g2]` and the guarded central moment for one state (`mu`, `nu` the
/// two means, `cmu`, `cnu` their complements to the credits' top values,
/// evaluated without cancellation), following docs/kernels.md, K6. `degree` is k1 + k2.
///
/// Where the complements are the smaller pair the raw moment is taken on
/// them, `E[(t1-g1)(t2-g2)] - (t1-mu)(t2-nu)` (mathematically the same
/// number), so states near certainty keep their relative accuracy.
#[allow(clippy::too_many_arguments)]
fn second_moment(
    prod: &Product,
    degree: u64,
    a: f64,
    b: f64,
    (mu, cmu): (f64, f64),
    (nu, cnu): (f64, f64),
    covariance: bool,
    s: &mut Scratch,
) -> Result<Second> {
    let first = betabinom::weights(degree, a, b, &mut s.down, &mut s.w)?;
    let mut num = Neumaier::new();
    let mut den = Neumaier::new();
    for (i, &w) in s.w.iter().enumerate() {
        num.add(prod.coef(first as usize + i) * w);
        den.add(w);
    }
    let total = den.value();
    let cross = finite(num.value() / total, "Beta-posterior moment")?;
    let name = if covariance {
        "posterior covariance"
    } else {
        "posterior variance"
    };
    let raw = if (cmu * cnu).abs() < (mu * nu).abs() {
        let mut low = Neumaier::new();
        for (i, &w) in s.w.iter().enumerate() {
            low.add(prod.complement_coef(first as usize + i) * w);
        }
        finite(low.value() / total - cmu * cnu, name)?
    } else {
        finite(cross - mu * nu, name)?
    };
    let scale = 1f64.max(cross.abs()).max((mu * nu).abs());
    let threshold = (degree + 1) as f64 * VARIANCE_ROUNDOFF * scale;
    let accepted = if covariance {
        raw.abs() > threshold
    } else {
        raw > threshold
    };
    if accepted {
        return Ok(Second {
            value: raw,
            threshold,
            pending: None,
        });
    }
    match prod {
        Product::Steps(r) => {
            let mut c = Neumaier::new();
            for (i, &w) in s.w.iter().enumerate() {
                c.add(bernstein::centred_from_regions(&r[first as usize + i], (mu, cmu), (nu, cnu)) * w);
            }
            Ok(Second {
                value: c.value() / total,
                threshold,
                pending: None,
            })
        }
        Product::Dense(..) => Ok(Second {
            value: f64::NAN,
            threshold,
            pending: Some((first, s.w.clone(), total)),
        }),
        Product::Blocked(m) => {
            // Bilinear in the bracket moments, on the complements where those
            // are the smaller pair (as the raw moment above).
            let on_complements = (cmu * cnu).abs() < (mu * nu).abs();
            let mut c = Neumaier::new();
            for (i, &w) in s.w.iter().enumerate() {
                let z = first as usize + i;
                let parts = if on_complements {
                    [m.cxy[z], -(cnu * m.exc[z]), -(cmu * m.eyc[z]), cmu * cnu]
                } else {
                    [m.exy[z], -(nu * m.ex[z]), -(mu * m.ey[z]), mu * nu]
                };
                c.add(((parts[0] + parts[3]) + (parts[1] + parts[2])) * w);
            }
            Ok(Second {
                value: c.value() / total,
                threshold,
                pending: None,
            })
        }
    }
}

/// Resolve pending centred integrals of dense products in one streamed pass.
fn resolve_pending(x: &Credit, y: &Credit, seconds: &mut [Second], means_x: &[f64], means_y: &[f64]) {
    let idx: Vec<usize> = (0..seconds.len()).filter(|&i| seconds[i].pending.is_some()).collect();
    if idx.is_empty() {
        return;
    }
    let (xv, yv) = (x.values(), y.values());
    let values = {
        let states: Vec<Centred<'_>> = idx
            .iter()
            .map(|&i| {
                let (first, bb, _) = seconds[i].pending.as_ref().expect("pending");
                Centred {
                    mu: means_x[i],
                    nu: means_y[i],
                    first: *first,
                    bb,
                }
            })
            .collect();
        bernstein::centred_integrals(&xv, &yv, &states)
    };
    for (&i, v) in idx.iter().zip(values) {
        let total = seconds[i].pending.as_ref().expect("pending").2;
        seconds[i].value = v / total;
        seconds[i].pending = None;
    }
}

/// Estimated cost of one state's endpoint closed forms: short products up
/// to k = 64 (a few hundred ns), then 3k logarithms (`endpoint::pass`:
/// 2k terms of the log moments, k of the variance product; ~20 ns each).
/// With a flat 400 ns, the 65 states of a k = 1e5 Pass@k (~6 ms each)
/// were one piece on one thread.
fn endpoint_ns(k: u64) -> usize {
    if k <= 64 {
        400
    } else {
        60 * k as usize
    }
}

/// Estimated cost of one state's Beta-binomial walk of degree `k`.
fn walk_ns(k: u64) -> usize {
    20 * (k as usize + 1)
}

/// Per-state means and variances (and, for endpoints, the log moments used
/// by the endpoint covariance).
struct Marginal {
    means: Vec<f64>,
    /// `1 - mean`, evaluated without cancellation where it matters.
    comps: Vec<f64>,
    vars: Vec<f64>,
    logs: Option<Vec<f64>>,
}

fn marginal(credit: &Credit, params: &[(f64, f64)]) -> Result<Marginal> {
    marginal_with(credit, params, credit.k >= BLOCKED_MIN_K)
}

/// `marginal` with the dense product's route chosen by the caller.
fn marginal_with(credit: &Credit, params: &[(f64, f64)], use_blocked: bool) -> Result<Marginal> {
    let k = credit.k;
    match kind(credit) {
        Kind::Constant(a) => Ok(Marginal {
            means: vec![a; params.len()],
            comps: vec![0.0; params.len()],
            vars: vec![0.0; params.len()],
            logs: None,
        }),
        Kind::Pass | Kind::Unanimous => {
            let is_pass = matches!(kind(credit), Kind::Pass);
            // Each state sums O(k) terms: a stop is looked for between them.
            let triples: Vec<(f64, f64, f64)> = params
                .par_iter()
                .with_grain(endpoint_ns(k))
                .map(|&(a, b)| {
                    cancel::check()?;
                    Ok(if is_pass {
                        endpoint::pass(a, b, k)
                    } else {
                        endpoint::unanimous(a, b, k)
                    })
                })
                .collect::<Result<_>>()?;
            // Pass: 1 - mean = E[q^k] = exp(log); Unanimous: -expm1(log).
            let comps = triples
                .iter()
                .map(|t| if is_pass { t.2.exp() } else { -t.2.exp_m1() })
                .collect();
            Ok(Marginal {
                comps,
                means: triples.iter().map(|t| t.0).collect(),
                vars: triples.iter().map(|t| t.1).collect(),
                logs: Some(triples.iter().map(|t| t.2).collect()),
            })
        }
        Kind::Product => {
            let prod = product_with(credit, credit, use_blocked);
            let firsts: Vec<Result<((f64, f64), Second)>> = params
                .par_iter()
                .with_grain(walk_ns(2 * k))
                .map_init(Scratch::default, |s, &(a, b)| {
                    cancel::check()?;
                    let mean = bb_mean(credit, a, b, s)?;
                    let second = second_moment(&prod, 2 * k, a, b, mean, mean, false, s)?;
                    Ok((mean, second))
                })
                .collect();
            let mut means = Vec::with_capacity(params.len());
            let mut comps = Vec::with_capacity(params.len());
            let mut seconds = Vec::with_capacity(params.len());
            for r in firsts {
                let ((m, c), s) = r?;
                means.push(m);
                comps.push(c);
                seconds.push(s);
            }
            resolve_pending(credit, credit, &mut seconds, &means, &means);
            let mut vars = Vec::with_capacity(seconds.len());
            for s in &seconds {
                // An accepted raw variance is above the (positive) threshold.
                if s.value >= 0.0 {
                    vars.push(s.value);
                } else if s.value >= -s.threshold {
                    vars.push(0.0);
                } else {
                    return Err(Error::FloatingPoint(format!(
                        "posterior variance is materially negative ({})",
                        py_repr(s.value)
                    )));
                }
            }
            Ok(Marginal {
                means,
                comps,
                vars,
                logs: None,
            })
        }
    }
}

fn dot(freqs: &[u64], xs: &[f64]) -> f64 {
    let mut acc = Neumaier::new();
    for (&f, &x) in freqs.iter().zip(xs) {
        acc.add(f as f64 * x);
    }
    acc.value()
}

fn rows_squared(hist: &Histogram) -> f64 {
    let m = hist.rows() as u128;
    (m * m) as f64
}

/// Dataset aggregation with scorio's checks (docs/kernels.md, K8).
fn aggregate(hist: &Histogram, means: Vec<f64>, vars: Vec<f64>) -> Result<Moments> {
    if means.iter().any(|v| !v.is_finite()) {
        return Err(Error::FloatingPoint("state_means must be finite".into()));
    }
    if vars.iter().any(|v| !v.is_finite()) {
        return Err(Error::FloatingPoint("state_variances must be finite".into()));
    }
    if vars.iter().any(|&v| v < 0.0) {
        return Err(Error::FloatingPoint("state_variances must be non-negative".into()));
    }
    let mean = finite(dot(&hist.freqs, &means) / hist.rows() as f64, "dataset posterior mean")?;
    let var = finite(
        dot(&hist.freqs, &vars) / rows_squared(hist),
        "dataset posterior variance",
    )?;
    if var < 0.0 {
        return Err(Error::FloatingPoint(
            "dataset posterior variance must be non-negative".into(),
        ));
    }
    Ok(Moments {
        state_means: means,
        state_vars: vars,
        mean,
        var,
    })
}

/// Posterior moments of `credit` over the bank (any k >= 1: latent).
/// `Err(Interrupted)` if a `cancel::Stop` was held while it ran.
pub fn posterior(hist: &Histogram, credit: &Credit, alpha0: f64, beta0: f64) -> Result<Moments> {
    let watch = Watch::new();
    let out = (|| {
        let params = parameters(hist, alpha0, beta0)?;
        let m = marginal(credit, &params)?;
        aggregate(hist, m.means, m.vars)
    })();
    watch.check()?;
    out
}

/// Posterior `(mean, variance)` of `credit` over questions with their own
/// trial counts: distinct states `(n, c)` with frequencies are grouped by n,
/// each group is one Beta-posterior bank, and the groups pool exactly as
/// the questions do: `mean = sum M_g mu_g / M`, `var = sum M_g^2 v_g / M^2`.
pub fn posterior_ragged(
    states: &[(u64, u64)],
    freqs: &[u64],
    credit: &Credit,
    alpha0: f64,
    beta0: f64,
) -> Result<(f64, f64)> {
    let mut groups: std::collections::BTreeMap<u64, Vec<(u64, u64)>> = Default::default();
    for (&(n, c), &f) in states.iter().zip(freqs) {
        groups.entry(n).or_default().push((c, f));
    }
    let m: u64 = freqs.iter().sum();
    let (mut mean, mut var) = (Neumaier::new(), Neumaier::new());
    for (n, mut cs) in groups {
        cs.sort_unstable();
        let (values, freqs): (Vec<u64>, Vec<u64>) = cs.into_iter().unzip();
        let hist = Histogram { n, values, freqs };
        let share = hist.rows() as f64 / m as f64;
        let g = posterior(&hist, credit, alpha0, beta0)?;
        mean.add(share * g.mean);
        var.add(share * share * g.var);
    }
    Ok((mean.value(), var.value()))
}

/// Per-state `Cov(1 - q^v, g)` of Pass@v with any credit g, with no
/// product: tilting Beta(a, b) by `q^v` gives Beta(a, b + v), so
/// `E[q^v g] = E[q^v] E_{a, b+v}[g]` and
/// `Cov = E[q^v] (E_{a,b}[g] - E_{a,b+v}[g])` (docs/kernels.md, K6). The
/// difference of means is taken on the complements when those are smaller.
fn pass_covariances(v: u64, pass: &Marginal, other: &Credit, om: &Marginal, params: &[(f64, f64)]) -> Result<Vec<f64>> {
    let tilted: Vec<Result<f64>> = params
        .par_iter()
        .with_grain(walk_ns(other.k))
        .enumerate()
        .map_init(Scratch::default, |s, (i, &(a, b))| {
            let (mu_t, cmu_t) = bb_mean(other, a, b + v as f64, s)?;
            let (mu, cmu) = (om.means[i], om.comps[i]);
            let diff = if cmu.abs() < mu.abs() { cmu_t - cmu } else { mu - mu_t };
            Ok(pass.comps[i] * diff)
        })
        .collect();
    tilted.into_iter().collect()
}

/// Marginal moments of two credits and their posterior covariance (docs/kernels.md, K6).
/// `Err(Interrupted)` if a `cancel::Stop` was held while it ran.
pub fn joint(hist: &Histogram, left: &Credit, right: &Credit, alpha0: f64, beta0: f64) -> Result<JointMoments> {
    let watch = Watch::new();
    let large = left.k.max(right.k) >= BLOCKED_MIN_K;
    let out = joint_with(hist, left, right, alpha0, beta0, large);
    watch.check()?;
    out
}

/// `joint` with the large-k routes (blocked products, the Pass tilt) on or off.
fn joint_with(
    hist: &Histogram,
    left: &Credit,
    right: &Credit,
    alpha0: f64,
    beta0: f64,
    large: bool,
) -> Result<JointMoments> {
    let params = parameters(hist, alpha0, beta0)?;
    let same = left == right;
    let lm = marginal_with(left, &params, large)?;
    let rm = if same {
        None
    } else {
        Some(marginal_with(right, &params, large)?)
    };
    let state_covs: Vec<f64> = {
        let r = rm.as_ref().unwrap_or(&lm);
        match (kind(left), kind(right)) {
            _ if same => lm.vars.clone(),
            (Kind::Constant(_), _) | (_, Kind::Constant(_)) => vec![0.0; params.len()],
            (Kind::Pass, Kind::Product) if large => pass_covariances(left.k, &lm, right, r, &params)?,
            (Kind::Product, Kind::Pass) if large => pass_covariances(right.k, r, left, &lm, &params)?,
            (Kind::Pass, Kind::Unanimous) | (Kind::Unanimous, Kind::Pass) => {
                let left_is_pass = matches!(kind(left), Kind::Pass);
                let (pm, um) = if left_is_pass { (&lm, r) } else { (r, &lm) };
                let (kp, ku) = if left_is_pass {
                    (left.k, right.k)
                } else {
                    (right.k, left.k)
                };
                let (lq, lp) = (
                    pm.logs.as_ref().expect("endpoint logs"),
                    um.logs.as_ref().expect("endpoint logs"),
                );
                params
                    .par_iter()
                    .with_grain(20 * ku.min(kp) as usize + 400)
                    .enumerate()
                    .map(|(i, &(a, b))| endpoint::pass_unanimous_covariance(a, b, ku, kp, lp[i], lq[i]))
                    .collect()
            }
            _ => {
                let prod = product_with(left, right, large && left.k == right.k);
                let degree = left.k + right.k;
                let firsts: Vec<Result<Second>> = params
                    .par_iter()
                    .with_grain(walk_ns(degree))
                    .enumerate()
                    .map_init(Scratch::default, |s, (i, &(a, b))| {
                        cancel::check()?;
                        second_moment(
                            &prod,
                            degree,
                            a,
                            b,
                            (lm.means[i], lm.comps[i]),
                            (r.means[i], r.comps[i]),
                            true,
                            s,
                        )
                    })
                    .collect();
                let mut seconds = Vec::with_capacity(firsts.len());
                for f in firsts {
                    seconds.push(f?);
                }
                resolve_pending(left, right, &mut seconds, &lm.means, &r.means);
                seconds.iter().map(|s| s.value).collect()
            }
        }
    };
    if state_covs.iter().any(|v| !v.is_finite()) {
        return Err(Error::FloatingPoint("state_covariances must be finite".into()));
    }
    let left_moments = aggregate(hist, lm.means, lm.vars)?;
    let right_moments = match rm {
        Some(r) => aggregate(hist, r.means, r.vars)?,
        None => left_moments.clone(),
    };
    let cov = finite(
        dot(&hist.freqs, &state_covs) / rows_squared(hist),
        "dataset posterior covariance",
    )?;
    Ok(JointMoments {
        left: left_moments,
        right: right_moments,
        state_covs,
        cov,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist(n: u64, values: Vec<u64>) -> Histogram {
        let freqs = vec![1; values.len()];
        Histogram { n, values, freqs }
    }

    /// Direct E[g], Var[g] by the Beta-binomial pmf for small k (product form).
    fn direct(values: &[f64], a: f64, b: f64) -> (f64, f64) {
        let k = values.len() - 1;
        let bb = |n: usize| -> Vec<f64> {
            let mut p = vec![0.0; n + 1];
            for (j, pj) in p.iter_mut().enumerate() {
                // C(n,j) B(a+j, b+n-j)/B(a,b) via products
                let mut v = 1.0;
                for i in 0..j {
                    v *= (a + i as f64) / (a + b + i as f64) * (n - i) as f64 / (i + 1) as f64;
                }
                for i in 0..n - j {
                    v *= (b + i as f64) / (a + b + (j + i) as f64);
                }
                *pj = v;
            }
            p
        };
        let p = bb(k);
        let mean: f64 = values.iter().zip(&p).map(|(x, w)| x * w).sum();
        // E[g^2] through the product.
        let h = bernstein::product(values, values);
        let p2 = bb(2 * k);
        let second: f64 = h.iter().zip(&p2).map(|(x, w)| x * w).sum();
        (mean, second - mean * mean)
    }

    #[test]
    fn general_step_and_endpoint_paths_agree_with_direct() {
        let h = hist(10, vec![0, 3, 7, 10]);
        for credit in [
            Credit::mg(6),
            Credit::majority(6),
            Credit::pass(6),
            Credit::unanimous(6),
            Credit::auc(5),
        ] {
            let m = posterior(&h, &credit, 1.0, 1.0).unwrap();
            for (i, &c) in h.values.iter().enumerate() {
                let (mu, var) = direct(&credit.values(), 1.0 + c as f64, 11.0 - c as f64);
                assert!((m.state_means[i] - mu).abs() < 1e-14, "{credit:?} c={c}");
                assert!((m.state_vars[i] - var).abs() < 1e-14, "{credit:?} c={c}");
            }
        }
    }

    #[test]
    fn step_credit_as_general_vector_agrees() {
        let h = hist(12, vec![0, 1, 5, 6, 11, 12]);
        let step = Credit::majority(8);
        let mut dense = step.values();
        dense[0] = 1e-300; // force the dense path, numerically the same credit
        let dense = Credit::from_values(dense).unwrap();
        let a = posterior(&h, &step, 0.5, 2.0).unwrap();
        let b = posterior(&h, &dense, 0.5, 2.0).unwrap();
        for i in 0..h.values.len() {
            assert!((a.state_means[i] - b.state_means[i]).abs() < 1e-15);
            assert!((a.state_vars[i] - b.state_vars[i]).abs() < 1e-15);
        }
    }

    #[test]
    fn blocked_route_agrees_with_walked_brackets() {
        // Posteriors from narrow to wide, including states sure of the outcome
        // (the centred route) and spectrum credits zero on half the range.
        let n = 40u64;
        let params: Vec<(f64, f64)> = [0u64, 1, 7, 20, 33, 39, 40]
            .iter()
            .map(|&c| (1.0 + c as f64, 1.0 + (n - c) as f64))
            .collect();
        for k in [130u64, 700] {
            let weights: Vec<f64> = (1..=k).map(|r| ((r * 37) % 11) as f64 / (6.0 * k as f64)).collect();
            for credit in [Credit::mg(k), Credit::auc(k), Credit::spectrum(&weights).unwrap()] {
                let old = marginal_with(&credit, &params, false).unwrap();
                let new = marginal_with(&credit, &params, true).unwrap();
                let scale = old.vars.iter().fold(0.0f64, |m, v| m.max(*v));
                for i in 0..params.len() {
                    assert_eq!(old.means[i], new.means[i]);
                    let d = (old.vars[i] - new.vars[i]).abs();
                    assert!(
                        d <= 1e-13 * old.vars[i] + 1e-15 * scale,
                        "k={k} i={i}: {} vs {}",
                        old.vars[i],
                        new.vars[i]
                    );
                }
            }
        }
    }

    #[test]
    fn large_k_joint_routes_agree_with_walked_brackets() {
        let h = hist(30, vec![0, 2, 11, 15, 29, 30]);
        let k = 600;
        let weights: Vec<f64> = (1..=k).map(|r| ((r * 13) % 7) as f64 / (4.0 * k as f64)).collect();
        let spectrum = Credit::spectrum(&weights).unwrap();
        for (x, y) in [
            (Credit::pass(k), spectrum.clone()),
            (spectrum.clone(), Credit::pass(k)),
            (Credit::mg(k), spectrum.clone()),
        ] {
            let old = joint_with(&h, &x, &y, 1.0, 1.0, false).unwrap();
            let new = joint_with(&h, &x, &y, 1.0, 1.0, true).unwrap();
            let scale = old.state_covs.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            for i in 0..h.values.len() {
                let (a, b) = (old.state_covs[i], new.state_covs[i]);
                assert!((a - b).abs() <= 1e-13 * a.abs() + 1e-15 * scale, "i={i}: {a} vs {b}");
            }
            assert!((old.cov - new.cov).abs() <= 1e-13 * old.cov.abs());
        }
    }

    #[test]
    fn joint_covariance_of_pass_with_itself_is_its_variance() {
        let h = hist(9, vec![0, 4, 9]);
        let j = joint(
            &h,
            &Credit::pass(5),
            &Credit::spectrum(&[1.0, 0.0, 0.0, 0.0, 0.0]).unwrap(),
            1.0,
            1.0,
        )
        .unwrap();
        assert_eq!(j.state_covs, j.left.state_vars);
        let j2 = joint(&h, &Credit::pass(5), &Credit::majority(5), 1.0, 1.0).unwrap();
        let pv = j2.left.state_vars.clone();
        let mv = j2.right.state_vars.clone();
        for i in 0..3 {
            assert!(j2.state_covs[i] * j2.state_covs[i] <= pv[i] * mv[i] * (1.0 + 1e-12));
        }
    }
}
