//! Row sums of byte-sized outcomes (bool, int8, uint8), the common case and
//! the one that must run at memory speed: 16 bytes at a time with SSE2's
//! sum-of-absolute-differences on x86-64, 8 at a time with SWAR elsewhere and
//! for the tail. The second result is the OR of all bytes, so `> 1` means
//! some entry was not 0/1 (the sum is then meaningless and the caller rescans).
//!
//! The portable versions (`*_portable`) are compiled everywhere: they are the
//! code on other architectures, and with the `force-scalar` feature also on
//! x86-64 (CI runs the tests that way); a unit test checks that both give the
//! same integers.

const ONES: u64 = 0x0101_0101_0101_0101;

/// Sum and OR of 8-byte words whose bytes are 0/1 (SWAR: one multiply adds
/// the 8 bytes into the top byte).
#[inline(always)]
fn sum_or_words(xs: &[u8]) -> (u64, u64, usize) {
    let mut sum = 0u64;
    let mut or = 0u64;
    let words = xs.chunks_exact(8);
    let used = xs.len() - words.remainder().len();
    for w in words {
        let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        sum += w.wrapping_mul(ONES) >> 56;
        or |= w;
    }
    (sum, or, used)
}

#[inline(always)]
fn finish(xs: &[u8], mut sum: u64, mut or: u64) -> (u64, u64) {
    let (s, o, used) = sum_or_words(xs);
    sum += s;
    or |= o;
    for &b in &xs[used..] {
        sum += b as u64;
        or |= b as u64;
    }
    // Fold the OR to one byte so "> 1" means a non-binary byte.
    let folded = or | (or >> 32);
    let folded = folded | (folded >> 16);
    let folded = folded | (folded >> 8);
    (sum, folded & 0xff)
}

/// Sum and OR of bytes.
#[inline]
pub fn sum_or(xs: &[u8]) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    return sum_or_sse2(xs);
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    return sum_or_portable(xs);
}

/// Sum and OR of bytes with SSE2 (the x86-64 baseline).
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[inline]
fn sum_or_sse2(xs: &[u8]) -> (u64, u64) {
    use std::arch::x86_64::*;
    if xs.len() < 32 {
        return finish(xs, 0, 0);
    }
    // SAFETY: SSE2 is part of the x86-64 baseline; loads are unaligned and
    // stay inside `xs` (chunks_exact).
    unsafe {
        let zero = _mm_setzero_si128();
        let mut acc0 = _mm_setzero_si128();
        let mut acc1 = _mm_setzero_si128();
        let mut or0 = _mm_setzero_si128();
        let mut or1 = _mm_setzero_si128();
        let pairs = xs.chunks_exact(32);
        let tail = pairs.remainder();
        for p in pairs {
            let a = _mm_loadu_si128(p.as_ptr() as *const __m128i);
            let b = _mm_loadu_si128(p.as_ptr().add(16) as *const __m128i);
            acc0 = _mm_add_epi64(acc0, _mm_sad_epu8(a, zero));
            acc1 = _mm_add_epi64(acc1, _mm_sad_epu8(b, zero));
            or0 = _mm_or_si128(or0, a);
            or1 = _mm_or_si128(or1, b);
        }
        let acc = _mm_add_epi64(acc0, acc1);
        let or = _mm_or_si128(or0, or1);
        let mut lanes = [0u64; 2];
        _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, acc);
        let mut ors = [0u64; 2];
        _mm_storeu_si128(ors.as_mut_ptr() as *mut __m128i, or);
        finish(tail, lanes[0] + lanes[1], ors[0] | ors[1])
    }
}

/// Sum and OR of bytes (portable SWAR).
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "force-scalar"), not(test)),
    allow(dead_code)
)]
#[inline]
fn sum_or_portable(xs: &[u8]) -> (u64, u64) {
    finish(xs, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_binary_bytes_of_every_length() {
        for len in 0..200usize {
            let xs: Vec<u8> = (0..len).map(|i| ((i * 7 + len) % 3 == 0) as u8).collect();
            let (s, o) = sum_or(&xs);
            assert_eq!(s, xs.iter().map(|&b| b as u64).sum::<u64>());
            assert!(o <= 1);
        }
    }

    /// The SSE2 paths and the portable ones give the same verdicts, and the
    /// same integers where those mean something, at every length around the
    /// block sizes.
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    #[test]
    fn sse2_and_portable_paths_agree() {
        for len in (0..300usize).chain([4079, 4080, 4081, 4096, 4111, 9000]) {
            for spoil in [None, Some(2u8), Some(0xff), Some(7)] {
                let mut xs: Vec<u8> = (0..len).map(|i| ((i * 13 + len) % 5 < 2) as u8).collect();
                if let (Some(b), true) = (spoil, len > 0) {
                    xs[(len * 7) / 11] = b;
                }
                let (s1, o1) = sum_or_sse2(&xs);
                let (s2, o2) = sum_or_portable(&xs);
                // The sum is only meaningful for binary bytes (module doc).
                assert_eq!(o1 > 1, o2 > 1, "len={len} spoil={spoil:?}");
                if o1 <= 1 {
                    assert_eq!(s1, s2, "len={len}");
                }
            }
        }
    }

    #[test]
    fn flags_non_binary_bytes_anywhere() {
        for len in 1..100usize {
            for pos in [0, len / 2, len - 1] {
                let mut xs = vec![1u8; len];
                xs[pos] = 0xff; // -1 as int8
                assert!(sum_or(&xs).1 > 1, "len={len} pos={pos}");
                xs[pos] = 2;
                assert!(sum_or(&xs).1 > 1);
            }
        }
    }
}
