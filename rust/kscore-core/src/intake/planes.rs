//! Category counts of C-order rows through bit planes (docs/kernels.md,
//! "Categorical intake"): the entries of a chunk are narrowed to bytes
//! (`Entry::lanes`: a byte matrix is read in place), the low B bits of every
//! byte become B plane words of 64 entries each (SIMD `movemask`), the
//! planes (and their complements) ANDed give one mask word per category, and
//! a row's count of a category is the popcount of its mask over the row's
//! range of bits.
//!
//! Why: one equality pass per category costs C compares per entry and a
//! horizontal sum per row and category, and rows of 8-200 entries make the
//! per-row sums dominate. Here each entry costs B shifts and B movemask bits
//! (1/8 of an instruction per byte), and each row C popcounts, so 3-16
//! categories read at about the speed of the binary row sums. Any byte with
//! a bit at or above B (255 for out-of-range wide values, negative bytes)
//! fails the block, as does a row whose counts miss entries (a value of the
//! bit range at or above C); the caller then rescans for the flaw.

use crate::intake::entry::Entry;

/// Entries narrowed to bytes at a time (4 KiB, on the stack).
const CHUNK: usize = 4096;

/// Category counts (`out`, rows x C with C <= 2^B) of the C-order rows of
/// `n` entries in `flat`; false if some entry is not a category below C.
/// B is 2, 3 or 4.
#[inline]
pub fn plane_rows<T: Entry, const B: usize>(flat: &[T], n: usize, categories: usize, out: &mut [u32]) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt") {
            // SAFETY: the CPU has AVX2 and POPCNT (checked just above).
            return unsafe { plane_rows_avx2::<T, B>(flat, n, categories, out) };
        }
        plane_rows_body::<T, B, simd::Sse2>(flat, n, categories, out)
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    plane_rows_body::<T, B, Portable>(flat, n, categories, out)
}

#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn plane_rows_avx2<T: Entry, const B: usize>(flat: &[T], n: usize, categories: usize, out: &mut [u32]) -> bool {
    plane_rows_body::<T, B, simd::Avx2>(flat, n, categories, out)
}

/// How bytes become plane words, 64 at a time (one word per plane).
trait Planes {
    /// The OR of the bytes read so far, kept in a vector register.
    type Or: Copy;
    fn none() -> Self::Or;
    /// Bit b of each of 64 bytes, for b < B.
    fn word<const B: usize>(block: &[u8], or: &mut Self::Or) -> [u64; B];
    fn fold(or: Self::Or) -> u8;
}

/// What a word of 64 entries (as bytes) becomes: up to 16 masks (bit j for
/// entry j), whose popcounts over a row's range of bits the walk sums.
trait Words {
    /// The masks per word.
    const K: usize;
    /// The K masks of one 64-byte block.
    fn masks(&mut self, block: &[u8]) -> [u64; 16];
    /// A finished row of `len` entries: its K popcounts into `out` (the
    /// row's slots); false if they show an entry that is not a category.
    fn finish(&self, acc: &[u32; 16], len: u32, out: &mut [u32]) -> bool;
    /// After the last word: whether every byte (and `wide_or`, the OR of
    /// the full values of wider integers) was a category.
    fn valid(&self, wide_or: u64) -> bool;
}

/// Reads one word at a time, masks to row counts, so that the loads of the
/// next word overlap the counting of this one (a separate counting pass per
/// chunk stalls on memory at every page). `out` holds `width` slots a row.
#[inline(always)]
fn walk_rows<T: Entry, W: Words>(flat: &[T], n: usize, width: usize, words: &mut W, out: &mut [u32]) -> bool {
    let rows = flat.len().checked_div(n).unwrap_or(0);
    debug_assert!(W::K <= 16 && out.len() == rows * width);
    if rows == 0 {
        return true;
    }
    let total = rows * n;
    let mut buf = [0u8; CHUNK];
    // Counts of the row being read (it may span words and chunks).
    let mut acc = [0u32; 16];
    let mut good = true;
    let mut row = 0usize;
    let mut row_end = n;
    let mut pos = 0usize; // first entry of the current word
    let mut wide_or = 0u64;
    for chunk in flat[..total].chunks(CHUNK) {
        let (bytes, or) = T::lanes(chunk, &mut buf);
        wide_or |= or;
        let blocks = bytes.chunks_exact(64);
        let tail = blocks.remainder();
        // The last word of the matrix may be partial: zero-padded (the
        // padding lies past the last row's bits, so it is never counted).
        let mut padded = [0u8; 64];
        padded[..tail.len()].copy_from_slice(tail);
        let last = (!tail.is_empty()).then_some(&padded[..]);
        for block in blocks.chain(last) {
            let masks = words.masks(block);
            let word_end = (pos + 64).min(total);
            let mut from = 0usize;
            while row_end <= word_end {
                let to = row_end - pos;
                let mask = if to == from {
                    0
                } else {
                    (u64::MAX >> (64 - (to - from))) << from
                };
                add_masked::<W>(&mut acc, &masks, mask);
                good &= words.finish(&acc, n as u32, &mut out[row * width..(row + 1) * width]);
                acc = [0; 16];
                from = to;
                row += 1;
                row_end += n;
            }
            let to = word_end - pos;
            if from < to {
                add_masked::<W>(&mut acc, &masks, (u64::MAX >> (64 - (to - from))) << from);
            }
            pos += 64;
        }
    }
    debug_assert_eq!(row, rows);
    good && words.valid(wide_or)
}

/// Adds to each mask's count its entries among the bits of `mask`.
#[inline(always)]
fn add_masked<W: Words>(acc: &mut [u32; 16], masks: &[u64; 16], mask: u64) {
    for (a, &m) in acc.iter_mut().zip(masks).take(W::K) {
        *a += (m & mask).count_ones();
    }
}

/// Category counts through the B plane words of a word: one mask per value
/// of the bit range, the planes (and their complements) ANDed.
struct CategoryWords<P: Planes, const B: usize> {
    or: P::Or,
    categories: usize,
}

impl<P: Planes, const B: usize> Words for CategoryWords<P, B> {
    const K: usize = 1 << B;
    #[inline(always)]
    fn masks(&mut self, block: &[u8]) -> [u64; 16] {
        let planes = P::word::<B>(block, &mut self.or);
        // One mask per value of the bit range: loops over all 2^B values
        // (a constant) unroll; values at or above C must count zero.
        let mut cats = [0u64; 16];
        for (v, m) in cats.iter_mut().enumerate().take(1 << B) {
            let mut x = !0u64;
            for (b, &p) in planes.iter().enumerate() {
                x &= if v >> b & 1 == 1 { p } else { !p };
            }
            *m = x;
        }
        cats
    }
    #[inline(always)]
    fn finish(&self, acc: &[u32; 16], _len: u32, out: &mut [u32]) -> bool {
        // A loop over all 2^B values (a constant) with a test of C keeps
        // `acc` in registers; a loop over C would not.
        let mut good = true;
        for (v, &a) in acc.iter().enumerate().take(1 << B) {
            match out.get_mut(v) {
                Some(slot) => *slot = a,
                None => good &= a == 0,
            }
        }
        debug_assert_eq!(out.len(), self.categories);
        good
    }
    #[inline(always)]
    fn valid(&self, wide_or: u64) -> bool {
        wide_or >> B == 0 && (P::fold(self.or) as u32) >> B == 0
    }
}

#[inline(always)]
fn plane_rows_body<T: Entry, const B: usize, P: Planes>(
    flat: &[T],
    n: usize,
    categories: usize,
    out: &mut [u32],
) -> bool {
    let mut words = CategoryWords::<P, B> {
        or: P::none(),
        categories,
    };
    walk_rows(flat, n, categories, &mut words, out)
}

/// Cumulative level counts of C-order rows of `n` entries (`out`, rows x
/// L): `F_l`, the entries whose category's level (`level_of[c]`, C <= 16)
/// is at most l, for l < L (the levels below the top; L <= 8). Max@k needs
/// only these (docs/kernels.md, K12-K13), and counting them straight from
/// the bytes (each byte mapped to its level by one shuffle, one compare
/// and `movemask` per level) costs fewer operations per row than C
/// category counts summed per level afterwards. None where this CPU has no
/// AVX2 (the caller counts categories); else false if some entry is not a
/// category below C.
#[inline]
pub fn level_rows<T: Entry>(flat: &[T], n: usize, level_of: &[usize], levels: usize, out: &mut [u32]) -> Option<bool> {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt") {
            let run = match levels {
                1 => simd::level_rows_avx2::<T, 1>,
                2 => simd::level_rows_avx2::<T, 2>,
                3 => simd::level_rows_avx2::<T, 3>,
                4 => simd::level_rows_avx2::<T, 4>,
                5 => simd::level_rows_avx2::<T, 5>,
                6 => simd::level_rows_avx2::<T, 6>,
                7 => simd::level_rows_avx2::<T, 7>,
                8 => simd::level_rows_avx2::<T, 8>,
                _ => return None,
            };
            if !level_rows_available(level_of.len(), levels) || level_of.iter().any(|&l| l > 15) {
                return None;
            }
            // SAFETY: the CPU has AVX2 and POPCNT (checked just above).
            return Some(unsafe { run(flat, n, level_of, out) });
        }
    }
    let _ = (flat, n, level_of, levels, out);
    None
}

/// Whether `level_rows` counts `levels` levels of `categories` categories
/// on this CPU (AVX2, up to 16 categories and 8 levels).
pub fn level_rows_available(categories: usize, levels: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        (1..=16).contains(&categories)
            && (1..=8).contains(&levels)
            && std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    {
        let _ = (categories, levels);
        false
    }
}

/// Plane words 8 bytes at a time: one multiply gathers the chosen bit of
/// each of 8 bytes into the top byte (the partial products never overlap).
#[cfg_attr(
    all(target_arch = "x86_64", not(feature = "force-scalar"), not(test)),
    allow(dead_code)
)]
struct Portable;

impl Planes for Portable {
    type Or = u64;
    #[inline(always)]
    fn none() -> u64 {
        0
    }
    #[inline(always)]
    fn word<const B: usize>(block: &[u8], or: &mut u64) -> [u64; B] {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const GATHER: u64 = 0x0102_0408_1020_4080;
        let mut word = [0u64; B];
        for (g, group) in block.chunks_exact(8).enumerate() {
            let x = u64::from_le_bytes(group.try_into().expect("8 bytes"));
            *or |= x;
            for (b, p) in word.iter_mut().enumerate() {
                *p |= (((x >> b) & ONES).wrapping_mul(GATHER) >> 56) << (8 * g);
            }
        }
        word
    }
    #[inline(always)]
    fn fold(or: u64) -> u8 {
        or.to_le_bytes().iter().fold(0, |a, &b| a | b)
    }
}

#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
mod simd {
    use super::{walk_rows, Planes, Words};
    use crate::intake::entry::Entry;
    use std::arch::x86_64::*;

    /// 16 bytes at a time (the x86-64 baseline).
    pub struct Sse2;
    /// 32 bytes at a time; only called from `plane_rows_avx2`.
    pub struct Avx2;

    /// Bit b of each byte moved to the byte's top bit, for `movemask`.
    macro_rules! top_bit {
        ($shift:ident, $v:expr, $b:expr) => {
            match $b {
                0 => $shift::<7>($v),
                1 => $shift::<6>($v),
                2 => $shift::<5>($v),
                _ => $shift::<4>($v),
            }
        };
    }

    /// Cumulative level counts (`super::level_rows`), 32 bytes at a time.
    #[target_feature(enable = "avx2,popcnt")]
    pub unsafe fn level_rows_avx2<T: Entry, const L: usize>(
        flat: &[T],
        n: usize,
        level_of: &[usize],
        out: &mut [u32],
    ) -> bool {
        let mut lut = [0u8; 32];
        for (c, &l) in level_of.iter().enumerate() {
            lut[c] = l as u8;
            lut[16 + c] = l as u8;
        }
        let mut words = LevelWords::<L> {
            lut: _mm256_loadu_si256(lut.as_ptr() as *const __m256i),
            max: _mm256_setzero_si256(),
            categories: level_of.len() as u8,
        };
        walk_rows(flat, n, L, &mut words, out)
    }

    /// Per level l < L, the mask of entries above level l.
    struct LevelWords<const L: usize> {
        /// The level of each category, in both 16-byte halves (`pshufb`
        /// looks up within a half).
        lut: __m256i,
        /// The largest byte read (unsigned): below C if all are categories.
        max: __m256i,
        categories: u8,
    }

    impl<const L: usize> Words for LevelWords<L> {
        const K: usize = L;
        #[inline(always)]
        fn masks(&mut self, block: &[u8]) -> [u64; 16] {
            assert!(block.len() >= 64);
            let mut above = [0u64; 16];
            // SAFETY: only reached from `level_rows_avx2`, compiled for and
            // called on CPUs with AVX2; the unaligned loads stay inside the
            // 64 bytes checked above.
            unsafe {
                let lo = _mm256_loadu_si256(block.as_ptr() as *const __m256i);
                let hi = _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i);
                self.max = _mm256_max_epu8(self.max, _mm256_max_epu8(lo, hi));
                // Bytes of 16 or more may map to anything: `max` fails them.
                let lo = _mm256_shuffle_epi8(self.lut, lo);
                let hi = _mm256_shuffle_epi8(self.lut, hi);
                for (l, m) in above.iter_mut().enumerate().take(L) {
                    let t = _mm256_set1_epi8(l as i8);
                    let a = _mm256_movemask_epi8(_mm256_cmpgt_epi8(lo, t)) as u32 as u64;
                    let b = _mm256_movemask_epi8(_mm256_cmpgt_epi8(hi, t)) as u32 as u64;
                    *m = a | (b << 32);
                }
            }
            above
        }
        #[inline(always)]
        fn finish(&self, acc: &[u32; 16], len: u32, out: &mut [u32]) -> bool {
            for (o, &a) in out.iter_mut().zip(acc).take(L) {
                *o = len - a;
            }
            true
        }
        #[inline(always)]
        fn valid(&self, wide_or: u64) -> bool {
            let mut lanes = [0u8; 32];
            // SAFETY: only reached from `level_rows_avx2` (AVX2 present).
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, self.max) };
            wide_or >> 8 == 0 && lanes.iter().all(|&b| b < self.categories)
        }
    }

    impl Planes for Sse2 {
        type Or = __m128i;
        #[inline(always)]
        fn none() -> __m128i {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe { _mm_setzero_si128() }
        }
        #[inline(always)]
        fn word<const B: usize>(block: &[u8], or: &mut __m128i) -> [u64; B] {
            assert!(block.len() >= 64);
            let mut word = [0u64; B];
            // SAFETY: SSE2 is part of the x86-64 baseline; the unaligned
            // loads stay inside the 64 bytes checked above.
            unsafe {
                for q in 0..4 {
                    let v = _mm_loadu_si128(block.as_ptr().add(16 * q) as *const __m128i);
                    *or = _mm_or_si128(*or, v);
                    for (b, p) in word.iter_mut().enumerate() {
                        let bits = _mm_movemask_epi8(top_bit!(_mm_slli_epi16, v, b)) as u32 as u64;
                        *p |= bits << (16 * q);
                    }
                }
            }
            word
        }
        #[inline(always)]
        fn fold(or: __m128i) -> u8 {
            let mut lanes = [0u8; 16];
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr() as *mut __m128i, or) };
            lanes.iter().fold(0, |a, &b| a | b)
        }
    }

    impl Planes for Avx2 {
        type Or = __m256i;
        #[inline(always)]
        fn none() -> __m256i {
            // SAFETY: only reached from `plane_rows_avx2` (AVX2 present).
            unsafe { _mm256_setzero_si256() }
        }
        #[inline(always)]
        fn word<const B: usize>(block: &[u8], or: &mut __m256i) -> [u64; B] {
            assert!(block.len() >= 64);
            let mut word = [0u64; B];
            // SAFETY: only reached from `plane_rows_avx2`, compiled for and
            // called on CPUs with AVX2; the unaligned loads stay inside the
            // 64 bytes checked above.
            unsafe {
                let lo = _mm256_loadu_si256(block.as_ptr() as *const __m256i);
                let hi = _mm256_loadu_si256(block.as_ptr().add(32) as *const __m256i);
                *or = _mm256_or_si256(*or, _mm256_or_si256(lo, hi));
                for (b, p) in word.iter_mut().enumerate() {
                    let l = _mm256_movemask_epi8(top_bit!(_mm256_slli_epi16, lo, b)) as u32 as u64;
                    let h = _mm256_movemask_epi8(top_bit!(_mm256_slli_epi16, hi, b)) as u32 as u64;
                    *p = l | (h << 32);
                }
            }
            word
        }
        #[inline(always)]
        fn fold(or: __m256i) -> u8 {
            let mut lanes = [0u8; 32];
            // SAFETY: only reached from `plane_rows_avx2` (AVX2 present).
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, or) };
            lanes.iter().fold(0, |a, &b| a | b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::naive_counts;

    fn check<P: Planes>(xs: &[u8], n: usize, c: usize) {
        let (expect, ok) = naive_counts(xs, n, c);
        let mut got = vec![0u32; expect.len()];
        let verdict = match c {
            0..=4 => plane_rows_body::<u8, 2, P>(xs, n, c, &mut got),
            5..=8 => plane_rows_body::<u8, 3, P>(xs, n, c, &mut got),
            _ => plane_rows_body::<u8, 4, P>(xs, n, c, &mut got),
        };
        assert_eq!(verdict, ok, "n={n} c={c}");
        if ok {
            assert_eq!(got, expect, "n={n} c={c}");
        }
    }

    fn every_path(xs: &[u8], n: usize, c: usize) {
        check::<Portable>(xs, n, c);
        #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
        {
            check::<simd::Sse2>(xs, n, c);
            if std::arch::is_x86_feature_detected!("avx2") {
                let (expect, ok) = naive_counts(xs, n, c);
                let mut got = vec![0u32; expect.len()];
                // SAFETY: AVX2 and POPCNT are present (checked).
                let verdict = if std::arch::is_x86_feature_detected!("popcnt") {
                    unsafe { plane_rows_avx2::<u8, 4>(xs, n, c, &mut got) }
                } else {
                    return;
                };
                assert_eq!(verdict, ok);
                if ok {
                    assert_eq!(got, expect);
                }
            }
        }
    }

    #[test]
    fn counts_rows_of_every_length_across_chunks() {
        for n in [1usize, 3, 8, 16, 63, 64, 65, 200, 4095, 4097, 9000] {
            for c in [3usize, 4, 5, 8, 9, 16] {
                let rows = (20_000 / n).clamp(1, 40);
                let xs: Vec<u8> = (0..rows * n).map(|i| ((i * i + 7 * i / 3) % c) as u8).collect();
                every_path(&xs, n, c);
                // A value at the bit range's edge but not a category, and a
                // byte above it, both fail.
                for spoil in [c as u8, 16, 0x80, 0xff] {
                    let mut bad = xs.clone();
                    bad[(rows * n * 5) / 7] = spoil;
                    every_path(&bad, n, c);
                }
            }
        }
    }

    /// `level_rows` gives each row's F vector (naive category counts summed
    /// per level) for every row length across chunks, level maps in and
    /// out of category order with ties, and fails every non-category.
    #[test]
    fn level_rows_count_cumulative_levels() {
        if !level_rows_available(4, 3) {
            return;
        }
        for n in [1usize, 3, 8, 16, 63, 64, 65, 200, 4095, 4097, 9000] {
            for c in [2usize, 3, 4, 5, 8, 9, 16] {
                let rows = (20_000 / n).clamp(1, 40);
                let xs: Vec<u8> = (0..rows * n).map(|i| ((i * i + 7 * i / 3) % c) as u8).collect();
                let identity: Vec<usize> = (0..c).collect();
                let shuffled: Vec<usize> = (0..c).map(|i| (i * 5 + 3) % c % 9).collect();
                for level_of in [identity, shuffled] {
                    let levels = *level_of.iter().max().unwrap();
                    if levels == 0 || levels > 8 {
                        continue;
                    }
                    let (counts, ok) = naive_counts(&xs, n, c);
                    assert!(ok);
                    let mut expect = vec![0u32; rows * levels];
                    crate::intake::matrix::levels_of_counts(&counts, &level_of, levels, &mut expect);
                    let mut got = vec![0u32; rows * levels];
                    assert_eq!(level_rows(&xs, n, &level_of, levels, &mut got), Some(true));
                    assert_eq!(got, expect, "n={n} c={c} {level_of:?}");
                    for spoil in [c as u8, 16, 0x80, 0xff] {
                        let mut bad = xs.clone();
                        bad[(rows * n * 5) / 7] = spoil;
                        assert_eq!(level_rows(&bad, n, &level_of, levels, &mut got), Some(false), "{spoil}");
                    }
                    // Wider integers: values past a byte fail even where
                    // their low byte is a category.
                    let mut wide: Vec<i32> = xs.iter().map(|&x| x as i32).collect();
                    assert_eq!(level_rows(&wide, n, &level_of, levels, &mut got), Some(true));
                    assert_eq!(got, expect);
                    wide[rows * n / 2] = 256;
                    assert_eq!(level_rows(&wide, n, &level_of, levels, &mut got), Some(false));
                }
            }
        }
    }

    #[test]
    fn portable_gather_takes_each_bytes_bit() {
        let bytes: Vec<u8> = (0..64u32).map(|i| (i * 37 % 16) as u8).collect();
        let mut or = Portable::none();
        let word = Portable::word::<4>(&bytes, &mut or);
        assert_eq!(Portable::fold(or), 15);
        for (i, &x) in bytes.iter().enumerate() {
            for (b, plane) in word.iter().enumerate() {
                assert_eq!((plane >> i) & 1, (x as u64 >> b) & 1, "entry {i} bit {b}");
            }
        }
    }
}
