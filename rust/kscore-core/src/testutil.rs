//! Helpers shared by the unit tests.

/// Binomial coefficient C(n, r) as a float (0 when r > n); exact for the
/// small arguments the tests use.
pub fn choose(n: u64, r: u64) -> f64 {
    if r > n {
        return 0.0;
    }
    (0..r).fold(1.0, |a, i| a * (n - i) as f64 / (i + 1) as f64)
}

/// Beta-binomial pmf BB(0..=n; a, b) by direct products (small n): the
/// reference the posterior and TailPass tests check their walks against.
pub fn beta_binomial(n: u64, a: f64, b: f64) -> Vec<f64> {
    let mut p = vec![0.0; n as usize + 1];
    // BB(0) = B(a, b + n) / B(a, b) = prod (b + i) / (a + b + i)
    p[0] = (0..n).fold(1.0, |w, i| w * (b + i as f64) / (a + b + i as f64));
    let nf = n as f64;
    for j in 0..n as usize {
        let jf = j as f64;
        p[j + 1] = p[j] * ((nf - jf) / (jf + 1.0)) * ((a + jf) / (b + nf - 1.0 - jf));
    }
    p
}

/// Straightforward per-row category counts of `n`-entry rows: (counts,
/// every entry a category below `c`) — the reference of the intake tests.
pub fn naive_counts<T: Copy + Into<u64>>(xs: &[T], n: usize, c: usize) -> (Vec<u32>, bool) {
    let mut out = vec![0u32; xs.len() / n * c];
    let mut ok = true;
    for (o, row) in out.chunks_exact_mut(c).zip(xs.chunks_exact(n)) {
        for &x in row {
            let v: u64 = x.into();
            match o.get_mut(v as usize) {
                Some(slot) if v < c as u64 => *slot += 1,
                _ => ok = false,
            }
        }
    }
    (out, ok)
}

/// A xorshift64 stream from `seed` (non-zero): reproducible test inputs.
pub fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// 0/1 rows packed as `numpy.packbits(rows, axis=1)` does (the first
/// outcome in a byte's high bit): the data and the bytes per row.
pub fn pack_rows(rows: &[Vec<u8>]) -> (Vec<u8>, usize) {
    let bytes = rows[0].len().div_ceil(8);
    let mut data = vec![0u8; rows.len() * bytes];
    for (r, row) in rows.iter().enumerate() {
        for (e, &v) in row.iter().enumerate() {
            if v == 1 {
                data[r * bytes + e / 8] |= 0x80 >> (e % 8);
            }
        }
    }
    (data, bytes)
}

/// Pseudo-random 0/1 rows (xorshift from `seed`): model `m` right with
/// probability `percent(m) / 100`.
pub fn random_rows(models: usize, events: usize, seed: u64, percent: impl Fn(usize) -> u64) -> Vec<Vec<u8>> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..models)
        .map(|m| {
            (0..events)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    u8::from(state % 100 < percent(m))
                })
                .collect()
        })
        .collect()
}
