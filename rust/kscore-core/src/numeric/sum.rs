//! Summation that does not lose digits: a Neumaier running sum for the hot
//! loops, and a correctly rounded sum (Shewchuk, as Python's `math.fsum`)
//! where scorio's results depend on one.

/// Compensated (Neumaier) accumulator: error O(eps) independent of length.
#[derive(Clone, Copy, Debug, Default)]
pub struct Neumaier {
    sum: f64,
    comp: f64,
}

impl Neumaier {
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }
    #[inline]
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
    }
    #[inline]
    pub fn merge(&mut self, other: Neumaier) {
        self.add(other.sum);
        self.add(other.comp);
    }
    #[inline]
    pub fn value(&self) -> f64 {
        self.sum + self.comp
    }
}

/// Compensated sum of a slice.
pub fn neumaier_sum(xs: &[f64]) -> f64 {
    let mut acc = Neumaier::new();
    for &x in xs {
        acc.add(x);
    }
    acc.value()
}

/// Pairwise sum with an 8-lane base case: error O(eps log n), at the speed
/// of a plain vectorised loop (numpy's scheme).
pub fn pairwise_sum(xs: &[f64]) -> f64 {
    if xs.len() <= 256 {
        let mut lanes = [0.0f64; 8];
        let chunks = xs.chunks_exact(8);
        let rem = chunks.remainder();
        for c in chunks {
            for i in 0..8 {
                lanes[i] += c[i];
            }
        }
        let mut s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        for &x in rem {
            s += x;
        }
        return s;
    }
    let half = (xs.len() / 2) & !7;
    pairwise_sum(&xs[..half]) + pairwise_sum(&xs[half..])
}

/// Pairwise dot product, same scheme as `pairwise_sum`.
pub fn pairwise_dot(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    if n <= 256 {
        let mut lanes = [0.0f64; 8];
        let ca = a.chunks_exact(8);
        let cb = b.chunks_exact(8);
        let (ra, rb) = (ca.remainder(), cb.remainder());
        for (x, y) in ca.zip(cb) {
            for i in 0..8 {
                lanes[i] += x[i] * y[i];
            }
        }
        let mut s = ((lanes[0] + lanes[1]) + (lanes[2] + lanes[3])) + ((lanes[4] + lanes[5]) + (lanes[6] + lanes[7]));
        for (x, y) in ra.iter().zip(rb) {
            s += x * y;
        }
        return s;
    }
    let half = (n / 2) & !7;
    pairwise_dot(&a[..half], &b[..half]) + pairwise_dot(&a[half..], &b[half..])
}

/// Correctly rounded running sum of finite floats (Shewchuk's partials, as
/// `math.fsum`). Exact until `value()`, so accumulators can be merged in any
/// order (e.g. one per parallel chunk) with a result independent of the order.
#[derive(Clone, Debug, Default)]
pub struct Fsum {
    partials: Vec<f64>,
}

impl Fsum {
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    pub fn add(&mut self, mut x: f64) {
        let mut i = 0;
        for j in 0..self.partials.len() {
            let mut y = self.partials[j];
            if x.abs() < y.abs() {
                std::mem::swap(&mut x, &mut y);
            }
            let hi = x + y;
            let lo = y - (hi - x);
            if lo != 0.0 {
                self.partials[i] = lo;
                i += 1;
            }
            x = hi;
        }
        self.partials.truncate(i);
        self.partials.push(x);
    }

    /// Forget every term (keeps the allocation).
    #[inline]
    pub fn clear(&mut self) {
        self.partials.clear();
    }

    /// Add another accumulator exactly.
    pub fn merge(&mut self, other: &Fsum) {
        for &p in &other.partials {
            self.add(p);
        }
    }

    /// The correctly rounded value of everything added so far.
    pub fn value(&self) -> f64 {
        let partials = &self.partials;
        // Round the partials to nearest, as CPython does (half-way correction).
        let n = partials.len();
        if n == 0 {
            return 0.0;
        }
        let mut idx = n - 1;
        let mut hi = partials[idx];
        let mut lo = 0.0;
        while idx > 0 {
            idx -= 1;
            let x = hi;
            let y = partials[idx];
            hi = x + y;
            let yr = hi - x;
            lo = y - yr;
            if lo != 0.0 {
                break;
            }
        }
        if idx > 0 && ((lo < 0.0 && partials[idx - 1] < 0.0) || (lo > 0.0 && partials[idx - 1] > 0.0)) {
            let y = lo * 2.0;
            let x = hi + y;
            let yr = x - hi;
            if y == yr {
                hi = x;
            }
        }
        hi
    }
}

/// Correctly rounded sum of finite floats (Shewchuk's partials, as `math.fsum`).
pub fn fsum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut acc = Fsum::new();
    for x in xs {
        acc.add(x);
    }
    acc.value()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsum_is_correctly_rounded() {
        assert_eq!(fsum([1e100, 1.0, -1e100]), 1.0);
        assert_eq!(fsum([0.1; 10]), 1.0);
        assert_eq!(fsum([1.0, 1e-16, 1e-16]), 1.0000000000000002);
        assert_eq!(fsum(std::iter::empty()), 0.0);
    }

    #[test]
    fn pairwise_matches_fsum_closely() {
        let xs: Vec<f64> = (0..5000).map(|i| 1.0 / (1.0 + i as f64)).collect();
        let exact = fsum(xs.iter().copied());
        assert!((pairwise_sum(&xs) - exact).abs() <= 4.0 * f64::EPSILON * exact);
        let ones = vec![1.0; 5000];
        assert!((pairwise_dot(&xs, &ones) - exact).abs() <= 4.0 * f64::EPSILON * exact);
        assert_eq!(pairwise_sum(&[]), 0.0);
    }

    #[test]
    fn exact_sum_reads_prefixes() {
        let mut acc = Fsum::new();
        for x in [1e100, 1.0, -1e100] {
            acc.add(x);
        }
        assert_eq!(acc.value(), 1.0);
        acc.add(1e-16);
        acc.add(1e-16);
        assert_eq!(acc.value(), fsum([1.0, 1e-16, 1e-16]));
    }

    #[test]
    fn fsum_merge_is_exact() {
        let xs = [1e100, 0.1, -3.0, 1e-30, -1e100, 7.5, 0.2];
        let mut a = Fsum::new();
        let mut b = Fsum::new();
        for (i, &x) in xs.iter().enumerate() {
            if i % 2 == 0 {
                a.add(x)
            } else {
                b.add(x)
            }
        }
        b.merge(&a);
        assert_eq!(b.value(), fsum(xs));
    }

    #[test]
    fn neumaier_recovers_small_terms() {
        assert_eq!(neumaier_sum(&[1.0, 1e100, 1.0, -1e100]), 2.0);
    }
}
