//! Normalised masses of the three count laws TailPass needs, each over its
//! non-underflowed span (walked from the mode, see `finite::walk`), and
//! their tails at integer cutoffs (docs/kernels.md, K16).

use crate::error::{Error, Result};
use crate::finite::{hypergeom, walk::walk_span};
use crate::numeric::sum::Neumaier;
use crate::posterior::betabinom;

/// A pmf on `first..first + p.len()`, zero elsewhere, summing to one.
#[derive(Debug, Default, Clone)]
pub struct Span {
    pub first: usize,
    pub p: Vec<f64>,
    down: Vec<f64>,
}

impl Span {
    fn normalise(&mut self) -> Result<()> {
        let mut total = Neumaier::new();
        for &w in &self.p {
            total.add(w);
        }
        let total = total.value();
        if !(total.is_finite() && total > 0.0) {
            return Err(Error::FloatingPoint("non-finite TailPass count masses".into()));
        }
        for w in &mut self.p {
            *w /= total;
        }
        Ok(())
    }

    /// `BB(.; n, a, b)`: successes in n Bernoulli(p) draws, p ~ Beta(a, b).
    pub fn beta_binomial(&mut self, n: u64, a: f64, b: f64) -> Result<()> {
        self.first = betabinom::weights(n, a, b, &mut self.down, &mut self.p)? as usize;
        self.normalise()
    }

    /// `Bin(n, theta)`, with the point masses of theta = 0 and theta = 1.
    pub fn binomial(&mut self, n: u64, theta: f64) -> Result<()> {
        self.p.clear();
        if theta <= 0.0 || theta >= 1.0 || n == 0 {
            self.first = if theta >= 1.0 { n as usize } else { 0 };
            self.p.push(1.0);
            return Ok(());
        }
        let nf = n as f64;
        let odds = theta / (1.0 - theta);
        let inv_odds = (1.0 - theta) / theta;
        let mode = (((nf + 1.0) * theta).floor() as u64).min(n) as usize;
        self.first = walk_span(
            n as usize + 1,
            mode,
            |i| ((nf - i as f64) / (i as f64 + 1.0)) * odds,
            |i| ((i as f64 + 1.0) / (nf - i as f64)) * inv_odds,
            &mut self.down,
            &mut self.p,
        );
        self.normalise()
    }

    /// Successes in a uniformly random k-subset of n trials holding c.
    pub fn hypergeometric(&mut self, n: u64, c: u64, k: u64) -> Result<()> {
        self.first = hypergeom::weights(n, c, k, &mut self.p) as usize;
        self.normalise()
    }

    /// Suffix sums `up[i] = sum_{j >= first + i} p_j` (`up[len] = 0`) and
    /// prefix sums `low[i] = sum_{j < first + i} p_j`, each summed from its
    /// small end.
    pub fn cumulative(&self, up: &mut Vec<f64>, low: &mut Vec<f64>) {
        let len = self.p.len();
        up.clear();
        up.resize(len + 1, 0.0);
        for i in (0..len).rev() {
            up[i] = up[i + 1] + self.p[i];
        }
        low.clear();
        low.resize(len + 1, 0.0);
        for i in 0..len {
            low[i + 1] = low[i] + self.p[i];
        }
    }

    /// Position of cutoff `c` in the cumulative arrays.
    #[inline]
    pub fn index(&self, c: u64) -> usize {
        (c as usize).saturating_sub(self.first).min(self.p.len())
    }
}

/// Relative masses of `Hyp(n, c, k)` (successes in a uniformly random
/// k-subset of n trials holding c) over their non-underflowed span, walked
/// from the mode with the ratio of K3 (`finite::hypergeom`), stopping below
/// the smallest normal double rather than at an exact 0: `out[i]` is the
/// relative mass at `first + i` (the mode's is 1); returns `first`. Costs
/// the width of the bulk, not the support.
pub fn hypergeometric_span(n: u64, c: u64, k: u64, down: &mut Vec<f64>, out: &mut Vec<f64>) -> usize {
    let (lo, hi) = hypergeom::support(n, c, k);
    let mode = ((((k as u128 + 1) * (c as u128 + 1)) / (n as u128 + 2)) as u64).clamp(lo, hi);
    let (cf, kf, lof) = (c as f64, k as f64, lo as f64);
    let base = (n - c) as f64 + 1.0 - kf; // n - c - k + j + 1 = base + j (>= 1 on the support)
    let first = walk_span(
        (hi - lo + 1) as usize,
        (mode - lo) as usize,
        |i| {
            let j = lof + i as f64;
            ((cf - j) * (kf - j)) / ((j + 1.0) * (base + j))
        },
        |i| {
            let j = lof + i as f64;
            ((j + 1.0) * (base + j)) / ((cf - j) * (kf - j))
        },
        down,
        out,
    );
    lo as usize + first
}

/// `P(X >= c)` from suffix sums; `c = 0` is always met (exactly 1).
#[inline]
pub fn upper(span: &Span, up: &[f64], c: u64) -> f64 {
    if c == 0 {
        1.0
    } else {
        up[span.index(c)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::choose;

    #[test]
    fn binomial_matches_the_pmf() {
        let mut s = Span::default();
        for &(n, t) in &[(10u64, 0.3), (33, 0.999), (1, 0.5), (40, 1e-9)] {
            s.binomial(n, t).unwrap();
            for (i, &p) in s.p.iter().enumerate() {
                let j = (s.first + i) as u64;
                let exact = choose(n, j) * t.powi(j as i32) * (1.0 - t).powi((n - j) as i32);
                assert!((p - exact).abs() <= 1e-14 * exact.max(1e-300), "n={n} t={t} j={j}");
            }
        }
        s.binomial(5, 0.0).unwrap();
        assert_eq!((s.first, s.p.clone()), (0, vec![1.0]));
        s.binomial(5, 1.0).unwrap();
        assert_eq!((s.first, s.p.clone()), (5, vec![1.0]));
    }

    #[test]
    fn tails_add_up() {
        let mut s = Span::default();
        s.beta_binomial(12, 2.5, 7.0).unwrap();
        let (mut up, mut low) = (Vec::new(), Vec::new());
        s.cumulative(&mut up, &mut low);
        for c in 0..=13u64 {
            let i = s.index(c);
            let u = upper(&s, &up, c);
            assert!((u + low[i] - 1.0).abs() < 1e-15 || c == 0);
        }
        assert_eq!(upper(&s, &up, 13), 0.0);
    }
}
