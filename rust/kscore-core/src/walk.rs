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
