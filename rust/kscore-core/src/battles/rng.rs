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
        let threshold = prob.iter().map(|&p| (p * 18_446_744_073_709_551_616.0) as u64).collect();
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
    fn streams_differ_and_repeat() {
        let a: Vec<u64> = (0..4).map(|_| Rng::new(1, 2).next_u64()).collect();
        assert!(a.iter().all(|&x| x == a[0]));
        assert_ne!(Rng::new(1, 2).next_u64(), Rng::new(1, 3).next_u64());
    }
}
