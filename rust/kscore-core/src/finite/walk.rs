//! Relative probability masses from ratio recurrences, walked outward from the
//! mode. The mode gets weight 1 and every other weight is a product of ratios
//! toward it, so nothing overflows, nothing is a ratio of huge binomial
//! coefficients, and weights that underflow end the walk (they stay 0).
//! The hypergeometric (finite-bank) and Beta-binomial (posterior) laws both
//! use this one walker.

/// Fill `out[0..len]` with weights proportional to a pmf on `0..len` whose
/// successive ratio is `ratio(i) = p(i + 1) / p(i)`, normalised so that
/// `out[mode] == 1`. `mode` must be an index where the pmf is maximal.
pub fn walk_from_mode(len: usize, mode: usize, ratio: impl Fn(usize) -> f64, out: &mut Vec<f64>) {
    out.clear();
    out.resize(len, 0.0);
    if len == 0 {
        return;
    }
    out[mode] = 1.0;
    let mut w = 1.0;
    for i in mode..len - 1 {
        w *= ratio(i);
        if w == 0.0 {
            break;
        }
        out[i + 1] = w;
    }
    w = 1.0;
    for i in (0..mode).rev() {
        w /= ratio(i);
        if w == 0.0 {
            break;
        }
        out[i] = w;
    }
}

/// Compact variant of [`walk_from_mode`]: writes only the non-underflowed
/// span. On return `out[i]` is the relative mass at index `first + i`
/// (`out[mode - first] == 1`); returns `first`. Costs O(span), not O(len), so
/// it suits laws whose support is much wider than their bulk. The walk ends
/// at the first subnormal weight (relative mass below 2.2e-308): a subnormal
/// times a ratio above 1/2 rounds back to itself, so waiting for an exact 0
/// would walk far past the bulk. `inv_ratio(i)` is `1 / ratio(i)` written
/// as its own quotient, so that no division sits on the walk's dependency
/// chain.
pub fn walk_span(
    len: usize,
    mode: usize,
    ratio: impl Fn(usize) -> f64,
    inv_ratio: impl Fn(usize) -> f64,
    down: &mut Vec<f64>,
    out: &mut Vec<f64>,
) -> usize {
    out.clear();
    down.clear();
    if len == 0 {
        return 0;
    }
    let mut w = 1.0;
    for i in (0..mode).rev() {
        w *= inv_ratio(i);
        if w < f64::MIN_POSITIVE {
            break;
        }
        down.push(w);
    }
    let first = mode - down.len();
    out.extend(down.iter().rev());
    out.push(1.0);
    w = 1.0;
    for i in mode..len - 1 {
        w *= ratio(i);
        if w < f64::MIN_POSITIVE {
            break;
        }
        out.push(w);
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn span_matches_full_walk() {
        let ratio = |i: usize| (40 - i) as f64 / (i + 1) as f64 * 0.3 / 0.7;
        let inv = |i: usize| (i + 1) as f64 / (40 - i) as f64 * 0.7 / 0.3;
        let mut full = Vec::new();
        walk_from_mode(41, 12, ratio, &mut full);
        let (mut down, mut out) = (Vec::new(), Vec::new());
        let first = walk_span(41, 12, ratio, inv, &mut down, &mut out);
        assert_eq!(first, 0);
        for (a, b) in full.iter().zip(&out) {
            assert!((a - b).abs() <= 1e-14 * a);
        }
    }
}
