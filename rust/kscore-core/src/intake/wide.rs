//! Category counts (3 or 4 categories) of C-order rows of 8-byte integers,
//! and the moments of those counts, in one pass (docs/kernels.md, K11);
//! and the row sums of binary ones (`row_sums`).
//!
//! Each entry v adds `1 << 16 v` to its row's u64: four 16-bit fields that
//! count the values 0..3 (rows of up to 65,535 entries). With AVX2 four rows
//! are read at once, four entries per instruction; each row's lanes are
//! folded and the four rows' packed counts land in one vector, whose lanes
//! also give the sums and pairwise products of categories 1..3 that Bayes@N
//! needs (`moments`), so no per-row scalar work remains but the stores.
//! Any value outside `0..categories` (negative ones wrap to huge ones) is
//! caught by an OR of all entries, or, for 3 categories, by a non-zero
//! count of 3s.

use crate::intake::moments::CountMoments;

/// Sums and pairwise products of the counts of categories 1..3 over some
/// rows (products in the order (1,1) (1,2) (1,3) (2,2) (2,3) (3,3)).
/// A block of at most 2^16 rows of at most 2^16 entries fits u64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub rows: u64,
    pub sums: [u64; 3],
    pub products: [u64; 6],
}

impl Sums {
    pub fn merge(&mut self, o: &Sums) {
        self.rows += o.rows;
        self.sums.iter_mut().zip(&o.sums).for_each(|(a, b)| *a += b);
        self.products.iter_mut().zip(&o.products).for_each(|(a, b)| *a += b);
    }

    #[inline]
    fn add_row(&mut self, c: [u64; 3]) {
        self.rows += 1;
        self.sums.iter_mut().zip(c).for_each(|(s, x)| *s += x);
        let mut k = 0;
        for (i, &x) in c.iter().enumerate() {
            for &y in &c[i..] {
                self.products[k] += x * y;
                k += 1;
            }
        }
    }

    /// The moments of all `categories` counts of rows of `n` entries: those
    /// of category 0 follow from `c_0 = n - c_1 - c_2 - c_3`.
    pub fn moments(&self, categories: usize, n: u64) -> CountMoments {
        let m = self.rows as i128;
        let n = n as i128;
        let s = |c: usize| -> i128 {
            if c == 0 {
                0
            } else {
                self.sums[c - 1] as i128
            }
        };
        let p = |c: usize, d: usize| -> i128 {
            let (c, d) = (c.min(d), c.max(d));
            let at = [[0, 1, 2], [1, 3, 4], [2, 4, 5]][c - 1][d - 1];
            self.products[at] as i128
        };
        let s0 = m * n - (1..4).map(s).sum::<i128>();
        let p0 = |d: usize| n * s(d) - (1..4).map(|e| p(e, d)).sum::<i128>();
        let p00 = n * s0 - (1..4).map(p0).sum::<i128>();
        let mut sums = vec![s0 as u64];
        sums.extend((1..categories).map(|c| s(c) as u64));
        let mut products = Vec::new();
        for c in 0..categories {
            for d in c..categories {
                products.push(match (c, d) {
                    (0, 0) => p00,
                    (0, d) => p0(d),
                    (c, d) => p(c, d),
                } as u128);
            }
        }
        CountMoments::from_parts(self.rows, sums, products)
    }
}

/// The packed counts of one row (fields of 16 bits for the values 0..3) and
/// the OR of its entries.
#[inline(always)]
fn packed_row(row: &[u64]) -> (u64, u64) {
    let mut acc = 0u64;
    let mut or = 0u64;
    for &v in row {
        or |= v;
        acc = acc.wrapping_add(1u64 << ((v & 3) << 4));
    }
    (acc, or)
}

/// Store one row's counts from its packed fields (when `out` is given,
/// `categories` slots) and add it to `sums`; false if it holds a 3 and
/// only 3 categories are allowed.
#[inline(always)]
fn put_row(packed: u64, n: usize, categories: usize, out: Option<&mut [u32]>, sums: &mut Sums) -> bool {
    let c = [(packed >> 16) & 0xffff, (packed >> 32) & 0xffff, packed >> 48];
    if let Some(out) = out {
        out[0] = (n as u64 - c[0] - c[1] - c[2]) as u32;
        out[1] = c[0] as u32;
        out[2] = c[1] as u32;
        if let Some(o) = out.get_mut(3) {
            *o = c[2] as u32;
        }
    }
    sums.add_row(c);
    categories == 4 || c[2] == 0
}

/// Count the categories of consecutive rows of `n` entries (`n < 2^16`,
/// 3 or 4 categories, at most 2^16 rows) into `out` and `sums`; false if
/// some entry lies outside `0..categories` (then `out` is meaningless).
pub fn count_rows(flat: &[u64], n: usize, out: &mut [u32], sums: &mut Sums) -> bool {
    debug_assert!(n > 0 && n < 1 << 16 && flat.len() / n <= 1 << 16);
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    if n.is_multiple_of(4) && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { count_rows_avx2(flat, n, out, sums) };
    }
    count_rows_portable(flat, n, out, sums)
}

/// The moments of the category counts of consecutive rows of `n` entries
/// (as `count_rows`) into `sums`, without writing any row's counts: all
/// Bayes@N and Avg need. False if some entry lies outside `0..categories`.
pub fn row_moments(flat: &[u64], n: usize, categories: usize, sums: &mut Sums) -> bool {
    debug_assert!(n > 0 && n < 1 << 16 && flat.len() / n <= 1 << 16 && (3..=4).contains(&categories));
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    if n.is_multiple_of(4) && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); with STORE
        // false nothing is written to `out`.
        return unsafe {
            match categories {
                3 => count_rows_avx2_c::<3, false>(flat, n, &mut [], sums),
                _ => count_rows_avx2_c::<4, false>(flat, n, &mut [], sums),
            }
        };
    }
    row_moments_portable(flat, n, categories, sums)
}

/// `row_moments` one row at a time.
fn row_moments_portable(flat: &[u64], n: usize, categories: usize, sums: &mut Sums) -> bool {
    let mut ok = true;
    let mut or = 0u64;
    for row in flat.chunks_exact(n) {
        let (packed, row_or) = packed_row(row);
        or |= row_or;
        ok &= put_row(packed, n, categories, None, sums);
    }
    ok && or >> 2 == 0
}

/// The portable loop: one row at a time.
fn count_rows_portable(flat: &[u64], n: usize, out: &mut [u32], sums: &mut Sums) -> bool {
    if flat.is_empty() {
        return true;
    }
    let c = out.len() / (flat.len() / n).max(1);
    let mut ok = true;
    let mut or = 0u64;
    for (o, row) in out.chunks_exact_mut(c).zip(flat.chunks_exact(n)) {
        let (packed, row_or) = packed_row(row);
        or |= row_or;
        ok &= put_row(packed, n, c, Some(o), sums);
    }
    ok && or >> 2 == 0
}

/// Rows `r..r + 4` of `quads` vectors each, every entry through `term` and
/// summed per row, and folded: lane j of the result is row r + j's sum.
/// Every entry is ORed into `or`. The caller guarantees the rows exist.
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn four_rows(
    base: *const std::arch::x86_64::__m256i,
    r: usize,
    quads: usize,
    or: &mut std::arch::x86_64::__m256i,
    term: impl Fn(std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let mut acc = [_mm256_setzero_si256(); 4];
    // The four rows side by side, one vector of each a step: one loop of
    // `quads` steps (not four), four independent chains.
    // SAFETY: rows r..r + 4's `quads` vectors lie inside the caller's slice.
    let row = unsafe { base.add(r * quads) };
    for q in 0..quads {
        for (j, a) in acc.iter_mut().enumerate() {
            // SAFETY: as above.
            let v = unsafe { _mm256_loadu_si256(row.add(j * quads + q)) };
            *or = _mm256_or_si256(*or, v);
            *a = _mm256_add_epi64(*a, term(v));
        }
    }
    let s01 = _mm256_add_epi64(
        _mm256_unpacklo_epi64(acc[0], acc[1]),
        _mm256_unpackhi_epi64(acc[0], acc[1]),
    );
    let s23 = _mm256_add_epi64(
        _mm256_unpacklo_epi64(acc[2], acc[3]),
        _mm256_unpackhi_epi64(acc[2], acc[3]),
    );
    _mm256_add_epi64(
        _mm256_permute2x128_si256(s01, s23, 0x20),
        _mm256_permute2x128_si256(s01, s23, 0x31),
    )
}

/// Four rows at a time (`n % 4 == 0`): see the module note.
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2")]
unsafe fn count_rows_avx2(flat: &[u64], n: usize, out: &mut [u32], sums: &mut Sums) -> bool {
    if out.len() == 3 * (flat.len() / n) {
        count_rows_avx2_c::<3, true>(flat, n, out, sums)
    } else {
        count_rows_avx2_c::<4, true>(flat, n, out, sums)
    }
}

/// `count_rows_avx2` for `C` categories. For valid entries the four 16-bit
/// fields of a row are exactly its counts of 0, 1, 2 and 3, so four rows'
/// counts are widened to u32 and stored from the vector: with `C = 3` each
/// pair of rows is stored as 8 u32 whose last 2 the next store overwrites,
/// so the last group of rows goes through the portable loop. Without
/// `STORE` only `sums` is kept (`out` is not touched; it may be empty).
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2")]
unsafe fn count_rows_avx2_c<const C: usize, const STORE: bool>(
    flat: &[u64],
    n: usize,
    out: &mut [u32],
    sums: &mut Sums,
) -> bool {
    use std::arch::x86_64::*;
    let rows = flat.len() / n;
    // Rows whose stores stay inside `out` (C = 3 writes 2 u32 past a group).
    let vector_rows = if C == 3 && STORE { rows.saturating_sub(1) } else { rows } / 4 * 4;
    let quads = n / 4;
    let one = _mm256_set1_epi64x(1);
    let field = _mm256_set1_epi64x(0xffff);
    let drop_fourth = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 7, 7);
    let zero = _mm256_setzero_si256();
    let mut or = zero;
    let mut threes = zero;
    let (mut s1, mut s2, mut s3) = (zero, zero, zero);
    let mut p = [zero; 6];
    let base = flat.as_ptr() as *const __m256i;
    let dst = out.as_mut_ptr();
    let mut r = 0;
    while r < vector_rows {
        // SAFETY: rows r..r + 4 < rows lie inside `flat`. An entry v >= 4
        // shifts by 64 or more (0) or wraps: caught by `or`.
        let w = four_rows(base, r, quads, &mut or, |v| {
            _mm256_sllv_epi64(one, _mm256_slli_epi64(v, 4))
        });
        let c1 = _mm256_and_si256(_mm256_srli_epi64(w, 16), field);
        let c2 = _mm256_and_si256(_mm256_srli_epi64(w, 32), field);
        let c3 = _mm256_srli_epi64(w, 48);
        s1 = _mm256_add_epi64(s1, c1);
        s2 = _mm256_add_epi64(s2, c2);
        p[0] = _mm256_add_epi64(p[0], _mm256_mul_epu32(c1, c1));
        p[1] = _mm256_add_epi64(p[1], _mm256_mul_epu32(c1, c2));
        p[3] = _mm256_add_epi64(p[3], _mm256_mul_epu32(c2, c2));
        if C == 4 {
            s3 = _mm256_add_epi64(s3, c3);
            p[2] = _mm256_add_epi64(p[2], _mm256_mul_epu32(c1, c3));
            p[4] = _mm256_add_epi64(p[4], _mm256_mul_epu32(c2, c3));
            p[5] = _mm256_add_epi64(p[5], _mm256_mul_epu32(c3, c3));
        } else {
            threes = _mm256_or_si256(threes, c3);
        }
        if !STORE {
            r += 4;
            continue;
        }
        // Rows r, r + 1 and r + 2, r + 3 as 8 u32 each (fields widened).
        let lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(w));
        let hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(w, 1));
        // SAFETY: rows r..r + 4 < vector_rows end at C (r + 4) <= out.len(),
        // and for C = 3 at least one more row (3 u32) follows the group.
        if C == 4 {
            _mm256_storeu_si256(dst.add(4 * r) as *mut __m256i, lo);
            _mm256_storeu_si256(dst.add(4 * r + 8) as *mut __m256i, hi);
        } else {
            _mm256_storeu_si256(
                dst.add(3 * r) as *mut __m256i,
                _mm256_permutevar8x32_epi32(lo, drop_fourth),
            );
            _mm256_storeu_si256(
                dst.add(3 * r + 6) as *mut __m256i,
                _mm256_permutevar8x32_epi32(hi, drop_fourth),
            );
        }
        r += 4;
    }
    let lanes = |v: __m256i| -> [u64; 4] {
        let mut lanes = [0u64; 4];
        // SAFETY: a 32-byte store into a 32-byte array.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, v) };
        lanes
    };
    let total = |v: __m256i| lanes(v).iter().fold(0u64, |a, &b| a.wrapping_add(b));
    let any = |v: __m256i| lanes(v).iter().fold(0u64, |a, &b| a | b);
    let mut block = Sums {
        rows: r as u64,
        sums: [total(s1), total(s2), total(s3)],
        products: [0; 6],
    };
    for (t, v) in block.products.iter_mut().zip(p) {
        *t = total(v);
    }
    sums.merge(&block);
    let ok = any(or) >> 2 == 0 && any(threes) == 0;
    let tail_ok = if STORE {
        count_rows_portable(&flat[r * n..], n, &mut out[r * C..], sums)
    } else {
        row_moments_portable(&flat[r * n..], n, C, sums)
    };
    ok && tail_ok
}

/// Row sums of consecutive rows of `n` entries (8-byte integers, binary
/// outcomes) into `out`; returns the OR of all entries (> 1: not binary).
/// AVX2 reads four rows at once as in `count_rows`, so rows as short as a
/// few vectors cost no horizontal sum each.
pub fn row_sums(flat: &[u64], n: usize, out: &mut [u32]) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    if n.is_multiple_of(4) && n > 0 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above).
        return unsafe { row_sums_avx2(flat, n, out) };
    }
    row_sums_portable(flat, n, out)
}

fn row_sums_portable(flat: &[u64], n: usize, out: &mut [u32]) -> u64 {
    let mut or = 0u64;
    for (o, row) in out.iter_mut().zip(flat.chunks_exact(n.max(1))) {
        let mut sum = 0u64;
        for &v in row {
            sum = sum.wrapping_add(v);
            or |= v;
        }
        *o = sum as u32;
    }
    or
}

#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx2")]
unsafe fn row_sums_avx2(flat: &[u64], n: usize, out: &mut [u32]) -> u64 {
    use std::arch::x86_64::*;
    let rows = out.len().min(flat.len() / n);
    let quads = n / 4;
    let zero = _mm256_setzero_si256();
    let low_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    let mut or = zero;
    let base = flat.as_ptr() as *const __m256i;
    let mut r = 0;
    while r + 4 <= rows {
        // SAFETY: rows r..r + 4 < rows lie inside `flat`.
        let w = four_rows(base, r, quads, &mut or, |v| v);
        // The four sums' low halves (valid sums are below 2^32).
        let sums = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(w, low_halves));
        // SAFETY: rows r..r + 4 lie inside `out`.
        _mm_storeu_si128(out.as_mut_ptr().add(r) as *mut __m128i, sums);
        r += 4;
    }
    let mut lanes = [0u64; 4];
    _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, or);
    let or = lanes.iter().fold(0u64, |a, &b| a | b);
    or | row_sums_portable(&flat[r * n..rows * n], n, &mut out[r..rows])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::naive_counts;

    #[test]
    fn counts_and_moments_match_a_naive_count() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for c in [3usize, 4] {
            for n in [1usize, 3, 4, 8, 12, 16, 20, 64, 200] {
                for rows in [1usize, 3, 4, 5, 9, 64, 257] {
                    let flat: Vec<u64> = (0..rows * n).map(|_| rnd() % c as u64).collect();
                    let (want, ok) = naive_counts(&flat, n, c);
                    assert!(ok);
                    let mut got = vec![0u32; rows * c];
                    let mut sums = Sums::default();
                    assert!(count_rows(&flat, n, &mut got, &mut sums), "{c} {n} {rows}");
                    assert_eq!(got, want, "{c} {n} {rows}");
                    let mut portable = vec![0u32; rows * c];
                    let mut psums = Sums::default();
                    assert!(count_rows_portable(&flat, n, &mut portable, &mut psums));
                    assert_eq!((portable, psums), (want.clone(), sums));
                    let mut only = Sums::default();
                    assert!(row_moments(&flat, n, c, &mut only));
                    assert_eq!(only, sums, "moments only: {c} {n} {rows}");
                    let moments = sums.moments(c, n as u64);
                    assert_eq!(
                        moments,
                        CountMoments::of_rows(&want, None, c, n as u64),
                        "{c} {n} {rows}"
                    );
                }
            }
        }
    }

    #[test]
    fn row_sums_match_the_portable_loop() {
        for n in [4usize, 8, 16, 64, 200] {
            for rows in [1usize, 4, 7, 65] {
                let flat: Vec<u64> = (0..rows * n).map(|i| ((i * 2_654_435_761) >> 7) as u64 & 1).collect();
                let want: Vec<u32> = flat.chunks_exact(n).map(|r| r.iter().sum::<u64>() as u32).collect();
                let mut got = vec![0u32; rows];
                assert_eq!(row_sums(&flat, n, &mut got), u64::from(flat.contains(&1)));
                assert_eq!(got, want);
                let mut bad = flat.clone();
                bad[rows * n - 1] = 2;
                assert!(row_sums(&bad, n, &mut got) > 1, "{n} {rows}");
            }
        }
    }

    #[test]
    fn out_of_range_values_are_flagged_anywhere() {
        // A 3 among 3 categories, a 4, a huge value and a negative one
        // (wrapped), in the first, a middle and the last row (the AVX2 quads
        // and the portable tail).
        for bad in [3u64, 4, 1 << 40, (-1i64) as u64] {
            for n in [4usize, 5, 16] {
                for at in [0usize, 7 * n + 2, 10 * n - 1] {
                    let mut flat = vec![1u64; 10 * n];
                    flat[at] = bad;
                    let mut out = vec![0u32; 30];
                    let ok = count_rows(&flat, n, &mut out, &mut Sums::default());
                    assert!(!ok, "{bad} at {at}, n = {n}");
                    let ok4 = count_rows(&flat, n, &mut [0u32; 40], &mut Sums::default());
                    assert_eq!(ok4, bad == 3, "{bad} at {at}, n = {n}, 4 categories");
                    assert!(
                        !row_moments(&flat, n, 3, &mut Sums::default()),
                        "{bad} at {at}, n = {n}"
                    );
                    assert_eq!(row_moments(&flat, n, 4, &mut Sums::default()), bad == 3);
                }
            }
        }
    }
}
