//! Paired counts of binary outcome rows: for each pair of models, how often
//! one is right where the other is wrong (scorio's decisive wins `W_ij`),
//! and how often they agree (its ties `T_ij`); and which models have
//! identical rows.
//!
//! Rows come packed eight outcomes to a byte (`numpy.packbits`, zero
//! padding), so a pair costs one `and-not` and a popcount per 64 outcomes.

use rayon::prelude::*;

use crate::par;

/// Packed binary rows: `rows` rows of `bytes` bytes, `events` outcomes each.
#[derive(Clone, Copy, Debug)]
pub struct Packed<'a> {
    pub data: &'a [u8],
    pub rows: usize,
    pub bytes: usize,
    pub events: usize,
}

impl Packed<'_> {
    pub fn row(&self, r: usize) -> &[u8] {
        &self.data[r * self.bytes..(r + 1) * self.bytes]
    }
}

/// `(a & !b)` and `(b & !a)` popcounts of two packed rows (with the
/// POPCNT instruction where the CPU has it: several times faster than the
/// portable bit count).
fn decisive(a: &[u8], b: &[u8]) -> (u64, u64) {
    #[cfg(target_arch = "x86_64")]
    {
        if has_vpopcnt() {
            // SAFETY: the CPU has AVX-512 F and VPOPCNTDQ (checked above).
            return unsafe { decisive_avx512(a, b) };
        }
        if std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has POPCNT (checked above).
            return unsafe { decisive_popcnt(a, b) };
        }
    }
    decisive_portable(a, b)
}

/// Whether the CPU counts bits in AVX-512 lanes (`vpopcntq`).
#[inline]
fn has_vpopcnt() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// 512 outcomes a step: `and-not` both ways and `vpopcntq`, the counts in
/// eight 64-bit lanes; the tail (under 64 bytes) by the portable count.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
unsafe fn decisive_avx512(a: &[u8], b: &[u8]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let n = a.len().min(b.len());
    let (mut ab, mut ba) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut k = 0;
    while k + 64 <= n {
        // SAFETY: `k + 64 <= n`, inside both slices.
        let (x, y) = unsafe {
            (
                _mm512_loadu_si512(a.as_ptr().add(k).cast()),
                _mm512_loadu_si512(b.as_ptr().add(k).cast()),
            )
        };
        ab = _mm512_add_epi64(ab, _mm512_popcnt_epi64(_mm512_andnot_si512(y, x)));
        ba = _mm512_add_epi64(ba, _mm512_popcnt_epi64(_mm512_andnot_si512(x, y)));
        k += 64;
    }
    let (tail_ab, tail_ba) = decisive_portable(&a[k..n], &b[k..n]);
    (
        _mm512_reduce_add_epi64(ab) as u64 + tail_ab,
        _mm512_reduce_add_epi64(ba) as u64 + tail_ba,
    )
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn decisive_popcnt(a: &[u8], b: &[u8]) -> (u64, u64) {
    decisive_portable(a, b)
}

#[inline(always)]
fn decisive_portable(a: &[u8], b: &[u8]) -> (u64, u64) {
    let (mut ab, mut ba) = (0u64, 0u64);
    let mut ca = a.chunks_exact(8);
    let mut cb = b.chunks_exact(8);
    for (x, y) in (&mut ca).zip(&mut cb) {
        let x = u64::from_le_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]);
        let y = u64::from_le_bytes([y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]]);
        ab += u64::from((x & !y).count_ones());
        ba += u64::from((y & !x).count_ones());
    }
    for (&x, &y) in ca.remainder().iter().zip(cb.remainder()) {
        ab += u64::from((x & !y).count_ones());
        ba += u64::from((y & !x).count_ones());
    }
    (ab, ba)
}

/// The counts of every pair `i < j` in order `(0,1), (0,2), ..., (1,2), ...`:
/// `(i, j, wins of i, wins of j, ties)` as parallel vectors.
pub struct PairCounts {
    pub i: Vec<u32>,
    pub j: Vec<u32>,
    pub win_i: Vec<f64>,
    pub win_j: Vec<f64>,
    pub tie: Vec<f64>,
}

pub fn pair_counts(rows: Packed) -> PairCounts {
    let l = rows.rows;
    // A pair: about a nanosecond per 8 bytes with POPCNT, per 64 with
    // AVX-512's (100 models x 8,000 events: about 80 us in all, on the
    // calling thread: waking the pool cost more CPU than the count).
    let per_row_ns = l * (rows.bytes / if has_vpopcnt() { 64 } else { 8 } + 1) / 2 + 1;
    let row_of = |a: usize| -> Vec<(u64, u64)> { (a + 1..l).map(|b| decisive(rows.row(a), rows.row(b))).collect() };
    let blocks: Vec<Vec<(u64, u64)>> = if par::worth_splitting(l * per_row_ns) {
        (0..l)
            .into_par_iter()
            .with_min_len(par::min_len(per_row_ns))
            .map(row_of)
            .collect()
    } else {
        (0..l).map(row_of).collect()
    };
    let pairs = l * l.saturating_sub(1) / 2;
    let mut out = PairCounts {
        i: Vec::with_capacity(pairs),
        j: Vec::with_capacity(pairs),
        win_i: Vec::with_capacity(pairs),
        win_j: Vec::with_capacity(pairs),
        tie: Vec::with_capacity(pairs),
    };
    let events = rows.events as u64;
    for (a, block) in blocks.into_iter().enumerate() {
        for (k, (ab, ba)) in block.into_iter().enumerate() {
            out.i.push(a as u32);
            out.j.push((a + 1 + k) as u32);
            out.win_i.push(ab as f64);
            out.win_j.push(ba as f64);
            out.tie.push((events - ab - ba) as f64);
        }
    }
    out
}

/// For each row, the first row identical to it (itself if none before).
pub fn twins(rows: Packed) -> Vec<u32> {
    let l = rows.rows;
    let hashes: Vec<u64> = (0..l).map(|r| hash(rows.row(r))).collect();
    let mut order: Vec<usize> = (0..l).collect();
    order.sort_by_key(|&r| (hashes[r], r));
    let mut first: Vec<u32> = (0..l as u32).collect();
    let mut start = 0;
    while start < l {
        let mut end = start + 1;
        while end < l && hashes[order[end]] == hashes[order[start]] {
            end += 1;
        }
        // Within one hash: group by equal rows (rows in index order).
        for a in start..end {
            let ra = order[a];
            if first[ra] as usize != ra {
                continue;
            }
            for &rb in &order[a + 1..end] {
                if first[rb] as usize == rb && rows.row(ra) == rows.row(rb) {
                    first[rb] = ra as u32;
                }
            }
        }
        start = end;
    }
    first
}

/// FNV-1a over 8-byte words (then the tail): a hash to bucket rows.
fn hash(row: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h ^ w).wrapping_mul(0x0000_0100_0000_01b3).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testutil::pack_rows as pack;

    #[test]
    fn counts_match_a_direct_count() {
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as u8 & 1
        };
        // 600 and 1031 events: rows of whole 64-byte blocks and a tail (the
        // AVX-512 count).
        for events in [1usize, 7, 8, 9, 64, 65, 203, 600, 1031] {
            let rows: Vec<Vec<u8>> = (0..6).map(|_| (0..events).map(|_| next()).collect()).collect();
            let mut rows = rows;
            rows[4] = rows[1].clone();
            let (data, bytes) = pack(&rows);
            let packed = Packed {
                data: &data,
                rows: 6,
                bytes,
                events,
            };
            let c = pair_counts(packed);
            let mut k = 0;
            for a in 0..6 {
                for b in a + 1..6 {
                    let ab = (0..events).filter(|&e| rows[a][e] == 1 && rows[b][e] == 0).count() as f64;
                    let ba = (0..events).filter(|&e| rows[b][e] == 1 && rows[a][e] == 0).count() as f64;
                    let tie = (0..events).filter(|&e| rows[a][e] == rows[b][e]).count() as f64;
                    assert_eq!((c.i[k], c.j[k]), (a as u32, b as u32));
                    assert_eq!((c.win_i[k], c.win_j[k], c.tie[k]), (ab, ba, tie));
                    k += 1;
                }
            }
            let first = twins(packed);
            for a in 0..6 {
                let want = (0..=a).find(|&b| rows[b] == rows[a]).unwrap();
                assert_eq!(first[a] as usize, want);
            }
        }
    }
}
