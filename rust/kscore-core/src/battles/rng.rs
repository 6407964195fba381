//! A small seeded generator (xoshiro256++, seeded by SplitMix64): each
//! bootstrap round draws from its own stream, `Rng::new(seed, round)`, so
//! that the rounds give the same numbers on any number of threads.

pub struct Rng([u64; 4]);

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream of `round` under `seed`.
    pub fn new(seed: u64, round: u64) -> Self {
        let mut x = seed ^ round.wrapping_mul(0xD1B5_4A32_D192_ED03);
        let mut s = [0u64; 4];
        for v in s.iter_mut() {
            *v = splitmix(&mut x);
        }
        Rng(s)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[0].wrapping_add(s[3]).rotate_left(23).wrapping_add(s[0]);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in `0..n` (Lemire's multiply-shift; the bias is below
    /// `n / 2^64`, far under anything a bootstrap can see).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// `ln Gamma(x)` for `x >= 1` (numpy's `random_loggam`: a Stirling
/// series, shifted up to 7 for small `x`).
fn loggam(x: f64) -> f64 {
    const A: [f64; 10] = [
        8.333333333333333e-02,
        -2.777777777777778e-03,
        7.936507936507937e-04,
        -5.952380952380952e-04,
        8.417508417508418e-04,
        -1.917526917526918e-03,
        6.41025641025641e-03,
        -2.955065359477124e-02,
        1.796443723688307e-01,
        -1.39243221690590e+00,
    ];
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let x2 = 1.0 / (x0 * x0);
    let mut gl0 = A[9];
    for k in (0..9).rev() {
        gl0 = gl0 * x2 + A[k];
    }
    let mut gl = gl0 / x0 + 0.5 * (2.0 * std::f64::consts::PI).ln() + (x0 - 0.5) * x0.ln() - x0;
    for _ in 0..n {
        x0 -= 1.0;
        gl -= x0.ln();
    }
    gl
}

impl Rng {
    /// A Poisson draw of mean `lam` (numpy's algorithms: multiplication
    /// below 10, Hörmann's PTRS transformed rejection above).
    pub fn poisson(&mut self, lam: f64) -> u64 {
        if lam <= 0.0 {
            return 0;
        }
        if lam < 10.0 {
            let limit = (-lam).exp();
            let (mut x, mut prod) = (0u64, 1.0);
            loop {
                prod *= self.unit();
                if prod > limit {
                    x += 1;
                } else {
                    return x;
                }
            }
        }
        let slam = lam.sqrt();
        let loglam = lam.ln();
        let b = 0.931 + 2.53 * slam;
        let a = -0.059 + 0.02483 * b;
        let invalpha = 1.1239 + 1.1328 / (b - 3.4);
        let vr = 0.9277 - 3.6224 / (b - 2.0);
        loop {
            let u = self.unit() - 0.5;
            let v = self.unit();
            let us = 0.5 - u.abs();
            let k = ((2.0 * a / us + b) * u + lam + 0.43).floor();
            if us >= 0.07 && v <= vr {
                return k as u64;
            }
            if k < 0.0 || (us < 0.013 && v > us) {
                continue;
            }
            if v.ln() + invalpha.ln() - (a / (us * us) + b).ln() <= -lam + k * loglam - loggam(k + 1.0) {
                return k as u64;
            }
        }
    }
}

/// A multinomial draw of `total` over weights `w` (counts added to `out`),
/// exactly: independent Poisson counts of mean `mu w_k / sum(w)` with `mu`
/// three standard deviations below `total` (given their sum `s`, they are
/// multinomial with `s` draws; a sum above `total` is drawn again), then
/// the `total - s` draws left from the alias table. Some `w.len()` Poisson
/// draws and `3 sqrt(total)` categorical ones instead of `total`.
pub fn multinomial(rng: &mut Rng, total: u64, w: &[f64], alias: &Alias, out: &mut [f64]) {
    let sum: f64 = w.iter().sum();
    let t = total as f64;
    let mu = (t - 3.0 * t.sqrt()).max(0.0);
    let start: Vec<f64> = out.to_vec();
    loop {
        let mut s = 0u64;
        for (o, &x) in out.iter_mut().zip(w) {
            let k = rng.poisson(mu * x / sum);
            *o += k as f64;
            s += k;
        }
        if s <= total {
            for _ in 0..total - s {
                out[alias.draw(rng)] += 1.0;
            }
            return;
        }
        out.copy_from_slice(&start);
    }
}

/// Walker's alias table: draws index `k` with probability `w[k] / sum(w)`
/// from one random word (its high part picks a column, its low part is
/// compared with the column's threshold).
pub struct Alias {
    threshold: Vec<u64>,
    alias: Vec<u32>,
}

impl Alias {
    pub fn new(w: &[f64]) -> Self {
        let n = w.len();
        let total: f64 = w.iter().sum();
        let mut prob: Vec<f64> = w.iter().map(|&x| x * n as f64 / total).collect();
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) = (0..n).partition(|&k| prob[k] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            alias[s] = l as u32;
            prob[l] -= 1.0 - prob[s];
            if prob[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        for k in large.into_iter().chain(small) {
            prob[k] = 1.0;
            alias[k] = k as u32;
        }
        // (2^64 p, saturating: a column kept whole needs no comparison, as its alias is itself)
        let threshold = prob
            .iter()
            .map(|&p| (p * 18_446_744_073_709_551_616.0) as u64)
            .collect();
        Alias { threshold, alias }
    }

    #[inline]
    pub fn draw(&self, rng: &mut Rng) -> usize {
        let m = rng.next_u64() as u128 * self.threshold.len() as u128;
        let k = (m >> 64) as usize;
        if (m as u64) < self.threshold[k] {
            k
        } else {
            self.alias[k] as usize
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alias_draws_follow_the_weights() {
        let w = [1.0, 0.0, 3.0, 6.0];
        let table = Alias::new(&w);
        let mut rng = Rng::new(7, 0);
        let mut seen = [0usize; 4];
        let n = 200_000;
        for _ in 0..n {
            seen[table.draw(&mut rng)] += 1;
        }
        assert_eq!(seen[1], 0);
        for k in [0, 2, 3] {
            let p = w[k] / 10.0;
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((seen[k] as f64 / n as f64 - p).abs() < 5.0 * sd, "{seen:?}");
        }
    }

    #[test]
    fn poisson_and_multinomial_moments() {
        let mut rng = Rng::new(3, 1);
        for lam in [0.3, 4.0, 25.0, 1e4] {
            let n = 40_000;
            let xs: Vec<f64> = (0..n).map(|_| rng.poisson(lam) as f64).collect();
            let m = xs.iter().sum::<f64>() / n as f64;
            let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64;
            assert!((m - lam).abs() < 5.0 * (lam / n as f64).sqrt(), "{lam}: mean {m}");
            assert!((v / lam - 1.0).abs() < 0.05, "{lam}: var {v}");
        }
        let w = [5.0, 1.0, 0.0, 94.0];
        let alias = Alias::new(&w);
        let mut out = vec![0.0; 4];
        for _ in 0..200 {
            let mut one = vec![0.0; 4];
            multinomial(&mut rng, 10_000, &w, &alias, &mut one);
            assert_eq!(one.iter().sum::<f64>(), 10_000.0);
            assert_eq!(one[2], 0.0);
            out.iter_mut().zip(&one).for_each(|(o, x)| *o += x);
        }
        assert!((out[0] / 2e6 - 0.05).abs() < 0.002, "{out:?}");
    }

    #[test]
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1, 2).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(Rng::new(1, 2).next_u64(), Rng::new(1, 3).next_u64());
    }
}
