//! Each question's answers grouped by equality, in order of first appearance.
//!
//! An answer is `width` bytes (one element of a fixed-width numpy array: an
//! integer, a float with -0.0 made 0.0 by the caller, a UCS-4 string padded
//! with zeros); two answers are equal when their bytes are. A row's groups are
//! numbered 0, 1, ... as they first appear, so "ties to the earliest
//! appearance" is "ties to the smaller number".

use rayon::prelude::*;

use crate::par::Grain;
use crate::{Error, Result};

/// FxHash's step over a byte string, 8 bytes at a time.
#[inline]
fn hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h: u64 = 0;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        h = (h.rotate_left(5) ^ w).wrapping_mul(K);
    }
    for &b in chunks.remainder() {
        h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
    }
    h
}

/// Group codes of `rows` x `cols` answers of `width` bytes each (`answers` in C
/// order; `valid[i]` false marks an unparsable answer, code -1). Returns the
/// codes (row-local group numbers) in C order.
pub fn group_rows(answers: &[u8], valid: &[bool], rows: usize, cols: usize, width: usize) -> Result<Vec<i32>> {
    if answers.len() != rows * cols * width || valid.len() != rows * cols {
        return Err(Error::value("answers, valid and the shape disagree"));
    }
    if cols > i32::MAX as usize {
        return Err(Error::value("too many candidates per question"));
    }
    let mut codes = vec![-1_i32; rows * cols];
    let slots = (2 * cols).next_power_of_two().max(2);
    let row_ns = cols * (20 + width);
    codes
        .par_chunks_mut(cols.max(1))
        .with_grain(row_ns)
        .enumerate()
        .for_each_init(
            || (vec![u32::MAX; slots], Vec::<usize>::with_capacity(cols)),
            |(table, first), (r, out)| {
                table.iter_mut().for_each(|s| *s = u32::MAX);
                first.clear();
                let row = &answers[r * cols * width..(r + 1) * cols * width];
                for j in 0..cols {
                    if !valid[r * cols + j] {
                        continue;
                    }
                    let a = &row[j * width..(j + 1) * width];
                    let mut s = (hash(a) as usize) & (slots - 1);
                    let g = loop {
                        let t = table[s];
                        if t == u32::MAX {
                            table[s] = first.len() as u32;
                            first.push(j);
                            break first.len() - 1;
                        }
                        let f = first[t as usize];
                        if &row[f * width..(f + 1) * width] == a {
                            break t as usize;
                        }
                        s = (s + 1) & (slots - 1);
                    };
                    out[j] = g as i32;
                }
            },
        );
    Ok(codes)
}

/// What the bytes of an answer are, for [`group_typed`]: which answers are valid
/// and which bytes are equal answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Integers, booleans: every answer valid, equal bytes equal answers.
    Bytes,
    /// IEEE floats of 4 or 8 bytes: NaN is unparsable, `-0.0` equals `0.0`
    /// (Python's `==`); otherwise equal values equal answers.
    Float,
    /// Zero-padded UCS-4 strings: all-zero bytes (`""`) are unparsable.
    Text,
}

impl Kind {
    pub fn parse(name: &str) -> Option<Kind> {
        Some(match name {
            "bytes" => Kind::Bytes,
            "float" => Kind::Float,
            "text" => Kind::Text,
            _ => return None,
        })
    }
}

/// One row's grouping, with the hash table kept between rows (a thread's
/// scratch): [`group_typed`] runs it over every row, and the fused rules of
/// [`super::select`] run it on one row at a time, so the codes of a row are
/// made and read while they are in cache.
pub(crate) struct RowGroups {
    table: Vec<u32>,
    keys: Vec<u64>,
    first: Vec<usize>,
    bits: u32,
    /// A row of UCS-4 text packed to one byte a character (all below 256).
    packed: Vec<u8>,
}

impl RowGroups {
    pub(crate) fn new(cols: usize) -> RowGroups {
        let bits = (2 * cols).next_power_of_two().max(2).trailing_zeros();
        RowGroups {
            table: vec![u32::MAX; 1 << bits],
            keys: Vec::with_capacity(cols),
            first: Vec::with_capacity(cols),
            bits,
            packed: Vec::new(),
        }
    }

    /// The codes of one row of `width`-byte answers into `out` (`out.len()`
    /// answers; -1 where unparsable), validity read from the bytes by `kind`.
    pub(crate) fn group(&mut self, row: &[u8], width: usize, kind: Kind, out: &mut [i32]) {
        if kind == Kind::Text && short_text(width) && text_lanes() {
            // 1 to 8 characters: each string read with one masked load and narrowed to
            // its key in AVX-512 lanes, looked up among the row's first 16 distinct keys
            // with two comparisons (no hashing); a row with a character past 255 or more
            // distinct strings takes the paths below
            // SAFETY: the CPU has AVX-512F/BW/VL (text_lanes), the width is checked.
            if unsafe { text_codes_avx512(row, width / 4, out) } {
                return;
            }
        }
        if kind == Kind::Text && width > 8 && width <= 32 && width.is_multiple_of(4) && latin1(row) {
            // up to 8 characters, all below 256: each string's characters as the
            // bytes of one integer key, read straight from the UCS-4 words (no
            // packed copy); "" is the key 0
            match width / 4 {
                3 => self.keyed(out, |j| text_key::<3>(row, j)),
                4 => self.keyed(out, |j| text_key::<4>(row, j)),
                5 => self.keyed(out, |j| text_key::<5>(row, j)),
                6 => self.keyed(out, |j| text_key::<6>(row, j)),
                7 => self.keyed(out, |j| text_key::<7>(row, j)),
                _ => self.keyed(out, |j| text_key::<8>(row, j)),
            }
            return;
        }
        if kind == Kind::Text && width > 8 && width.is_multiple_of(4) && self.pack(row) {
            // numpy's UCS-4 strings of characters below 256: one byte each (equal
            // strings, equal bytes; "" all zeros), a quarter of the bytes to hash and
            // compare, one integer key up to 8 characters
            let packed = std::mem::take(&mut self.packed);
            self.group(&packed, width / 4, kind, out);
            self.packed = packed;
            return;
        }
        self.table.iter_mut().for_each(|s| *s = u32::MAX);
        let mask = self.table.len() - 1;
        if width > 8 {
            self.first.clear();
            for (j, a) in row.chunks_exact(width).enumerate() {
                if kind == Kind::Text && a.iter().all(|&b| b == 0) {
                    out[j] = -1;
                    continue;
                }
                let mut s = (hash(a) as usize) & mask;
                let g = loop {
                    let t = self.table[s];
                    if t == u32::MAX {
                        self.table[s] = self.first.len() as u32;
                        self.first.push(j);
                        break self.first.len() - 1;
                    }
                    let f = self.first[t as usize];
                    if &row[f * width..(f + 1) * width] == a {
                        break t as usize;
                    }
                    s = (s + 1) & mask;
                };
                out[j] = g as i32;
            }
            return;
        }
        match width {
            // numpy's widths: one load a key (no per-answer copy)
            8 => return self.keyed(out, |j| key_w::<8>(row, j, kind)),
            4 => return self.keyed(out, |j| key_w::<4>(row, j, kind)),
            2 => return self.keyed(out, |j| key_w::<2>(row, j, kind)),
            1 => return self.keyed(out, |j| key_w::<1>(row, j, kind)),
            _ => {}
        }
        self.keyed(out, |j| key(&row[j * width..(j + 1) * width], width, kind));
    }

    /// The codes of a row whose answer `j` is the integer key `key(j)` (None:
    /// unparsable): equal keys, equal codes, numbered by first appearance.
    #[inline]
    fn keyed(&mut self, out: &mut [i32], key: impl Fn(usize) -> Option<u64>) {
        self.table.iter_mut().for_each(|s| *s = u32::MAX);
        let mask = self.table.len() - 1;
        self.keys.clear();
        for (j, o) in out.iter_mut().enumerate() {
            let Some(k) = key(j) else {
                *o = -1;
                continue;
            };
            let mut s = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize;
            let g = loop {
                let t = self.table[s];
                if t == u32::MAX {
                    self.table[s] = self.keys.len() as u32;
                    self.keys.push(k);
                    break self.keys.len() - 1;
                }
                if self.keys[t as usize] == k {
                    break t as usize;
                }
                s = (s + 1) & mask;
            };
            *o = g as i32;
        }
    }

    /// Integer answers (`Kind::Bytes`, at most 8 bytes) whose values, read as
    /// unsigned, are all below `cap`: each answer's value as its code (equal
    /// values, equal codes; not numbered by first appearance) and true, with
    /// no hashing. False (and `out` part written) for other rows.
    pub(crate) fn direct(row: &[u8], width: usize, kind: Kind, cap: usize, out: &mut [i32]) -> bool {
        if kind != Kind::Bytes {
            return false;
        }
        let cap = cap.min(i32::MAX as usize) as u64;
        match width {
            8 => direct_w::<8>(row, cap, out),
            4 => direct_w::<4>(row, cap, out),
            2 => direct_w::<2>(row, cap, out),
            1 => direct_w::<1>(row, cap, out),
            _ => false,
        }
    }

    /// `row` (UCS-4 code units) into `packed`, one byte a character; false
    /// where a character is 256 or past it.
    fn pack(&mut self, row: &[u8]) -> bool {
        if !latin1(row) {
            return false;
        }
        self.packed.clear();
        self.packed.extend(row.chunks_exact(4).map(|c| c[0]));
        true
    }
}

/// Whether `width` bytes are 1 to 8 UCS-4 characters (the lanes' text keys).
#[inline]
fn short_text(width: usize) -> bool {
    width.is_multiple_of(4) && (4..=32).contains(&width)
}

/// Whether the CPU has the AVX-512 parts [`text_codes_avx512`] uses.
#[inline]
fn text_lanes() -> bool {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    {
        false
    }
}

/// Most distinct strings a row may have for [`text_codes_avx512`] (two registers of keys).
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
const LANE_KEYS: usize = 16;

/// The codes of a row of `chars`-character UCS-4 strings (1 to 8; `out.len()`
/// strings): each string is one masked load of its `chars` words, narrowed to
/// one byte a character (`vpmovdb`: character i is byte i of the key, the same
/// key as [`text_key`]); `""` (key 0) is -1; a key is compared with the row's
/// distinct keys so far (up to [`LANE_KEYS`], in order of first appearance: its
/// lane is its code). False (and `out` part written) where the row has a
/// character of 256 or past (the OR of every word, checked at the end) or more
/// distinct strings than that: the caller groups such a row another way.
///
/// # Safety
/// The CPU must support AVX-512F, BW and VL; `row` must hold `out.len()`
/// strings of `4 * chars` bytes, `1 <= chars <= 8`.
#[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn text_codes_avx512(row: &[u8], chars: usize, out: &mut [i32]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm256_cvtepi32_epi8, _mm256_maskz_loadu_epi32, _mm256_or_si256, _mm256_set1_epi32,
        _mm256_setzero_si256, _mm256_testz_si256, _mm512_cmpeq_epi64_mask, _mm512_mask_set1_epi64, _mm512_set1_epi64,
        _mm512_setzero_si512, _mm_cvtsi128_si64,
    };
    let width = 4 * chars;
    if !(1..=8).contains(&chars) || row.len() < out.len() * width {
        return false;
    }
    let load: u8 = ((1_u16 << chars) - 1) as u8;
    let mut high = _mm256_setzero_si256();
    let (mut low_keys, mut high_keys) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut k = 0_usize;
    let p = row.as_ptr();
    for (j, o) in out.iter_mut().enumerate() {
        // SAFETY: the masked load reads only the `chars` words of string j, inside `row`.
        let v = unsafe { _mm256_maskz_loadu_epi32(load, p.add(j * width).cast()) };
        high = _mm256_or_si256(high, v);
        let narrow: __m128i = _mm256_cvtepi32_epi8(v);
        let key = _mm_cvtsi128_si64(narrow);
        if key == 0 {
            *o = -1;
            continue;
        }
        let b = _mm512_set1_epi64(key);
        let hit = (u32::from(_mm512_cmpeq_epi64_mask(low_keys, b))
            | (u32::from(_mm512_cmpeq_epi64_mask(high_keys, b)) << 8))
            & ((1_u32 << k) - 1);
        if hit != 0 {
            *o = hit.trailing_zeros() as i32;
            continue;
        }
        if k == LANE_KEYS {
            return false;
        }
        if k < 8 {
            low_keys = _mm512_mask_set1_epi64(low_keys, 1 << k, key);
        } else {
            high_keys = _mm512_mask_set1_epi64(high_keys, 1 << (k - 8), key);
        }
        *o = k as i32;
        k += 1;
    }
    // every character below 256: the three high bytes of every word zero
    _mm256_testz_si256(high, _mm256_set1_epi32(0xFFFF_FF00_u32 as i32)) != 0
}

#[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
unsafe fn text_codes_avx512(_row: &[u8], _chars: usize, _out: &mut [i32]) -> bool {
    false
}

/// Whether every UCS-4 code unit of `row` is below 256 (one OR over the row,
/// in vector lanes: the three high bytes of every word are zero).
#[inline]
fn latin1(row: &[u8]) -> bool {
    let mut high = 0_u64;
    for i in 0..row.len() / 8 {
        high |= word::<8>(row, 8 * i);
    }
    if !row.len().is_multiple_of(8) {
        high |= word::<4>(row, row.len() - 4);
    }
    // the three high bytes of each little-endian 4-byte word
    high & 0xFFFF_FF00_FFFF_FF00 == 0
}

/// Answer `j` of a row of `L`-character UCS-4 strings (every character below
/// 256) as one integer: character i is byte i. Equal strings, equal keys; ""
/// (all zeros) is None, unparsable.
#[inline(always)]
fn text_key<const L: usize>(row: &[u8], j: usize) -> Option<u64> {
    let at = j * 4 * L;
    let mut k = 0_u64;
    // two characters an 8-byte word (each below 256: bytes 0 and 4), one odd one
    // as a 4-byte word
    let mut i = 0;
    while i + 2 <= L {
        let w = word::<8>(row, at + 4 * i);
        k |= ((w | (w >> 24)) & 0xFFFF) << (8 * i);
        i += 2;
    }
    if i < L {
        k |= word::<4>(row, at + 4 * i) << (8 * i);
    }
    (k != 0).then_some(k)
}

/// The `W` bytes at `at` of `row` as a little-endian integer: one load (the
/// bytes named one by one, which the compiler merges; no copy through a
/// buffer, which an unoptimised call would make per answer).
#[inline(always)]
fn word<const W: usize>(row: &[u8], at: usize) -> u64 {
    let a = &row[at..at + W];
    match W {
        8 => u64::from_le_bytes([a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]]),
        4 => u64::from(u32::from_le_bytes([a[0], a[1], a[2], a[3]])),
        2 => u64::from(u16::from_le_bytes([a[0], a[1]])),
        _ => u64::from(a[0]),
    }
}

/// Answer `j` of a row of `W`-byte answers as one integer key by `kind`
/// (None: unparsable): [`key`] for numpy's widths.
#[inline(always)]
fn key_w<const W: usize>(row: &[u8], j: usize, kind: Kind) -> Option<u64> {
    let k = word::<W>(row, j * W);
    match kind {
        Kind::Bytes => Some(k),
        Kind::Text => (k != 0).then_some(k),
        Kind::Float => {
            let v = if W == 8 {
                f64::from_bits(k)
            } else {
                f64::from(f32::from_bits(k as u32))
            };
            (!v.is_nan()).then(|| (v + 0.0).to_bits())
        }
    }
}

/// [`RowGroups::direct`] for answers of `W` bytes.
#[inline]
fn direct_w<const W: usize>(row: &[u8], cap: u64, out: &mut [i32]) -> bool {
    let mut all = true;
    let n = out.len().min(row.len() / W);
    for (j, o) in out[..n].iter_mut().enumerate() {
        let k = word::<W>(row, j * W);
        all &= k < cap;
        *o = k as i32;
    }
    all
}

/// Whether each answer of a row is parsable (0) or not (-1), from its bytes
/// by `kind` (the grouping's rule, no groups made): all the Best-of-N needs.
pub(crate) fn validity(row: &[u8], width: usize, kind: Kind, out: &mut [i32]) {
    if kind == Kind::Bytes {
        out.iter_mut().for_each(|o| *o = 0);
        return;
    }
    if kind == Kind::Text && width.is_multiple_of(4) {
        // "" is all zeros; a string whose first character is not zero is not ""
        // (one load an answer), else the rest of its bytes decide
        for (j, o) in out.iter_mut().enumerate() {
            let at = j * width;
            let some = word::<4>(row, at) != 0 || row[at + 4..at + width].iter().any(|&b| b != 0);
            *o = if some { 0 } else { -1 };
        }
        return;
    }
    for (a, o) in row.chunks_exact(width).zip(out.iter_mut()) {
        let ok = match kind {
            Kind::Bytes => true,
            Kind::Text => a.iter().any(|&b| b != 0),
            Kind::Float => {
                !(if width == 8 {
                    f64::from_le_bytes([a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]]).is_nan()
                } else {
                    f32::from_le_bytes([a[0], a[1], a[2], a[3]]).is_nan()
                })
            }
        };
        *o = if ok { 0 } else { -1 };
    }
}

/// An answer of at most 8 bytes as one integer key (None: unparsable).
#[inline]
fn key(a: &[u8], width: usize, kind: Kind) -> Option<u64> {
    let mut b = [0u8; 8];
    b[..width].copy_from_slice(a);
    let k = u64::from_le_bytes(b);
    match kind {
        Kind::Bytes => Some(k),
        Kind::Text => (k != 0).then_some(k),
        Kind::Float => {
            let v = if width == 8 {
                f64::from_bits(k)
            } else {
                f64::from(f32::from_bits(k as u32))
            };
            (!v.is_nan()).then(|| (v + 0.0).to_bits())
        }
    }
}

/// Checks of a typed batch shared by [`group_typed`] and the fused rules.
pub(crate) fn check_typed(answers: &[u8], rows: usize, cols: usize, width: usize, kind: Kind) -> Result<()> {
    if answers.len() != rows * cols * width || width == 0 {
        return Err(Error::value("answers and the shape disagree"));
    }
    if cols > i32::MAX as usize {
        return Err(Error::value("too many candidates per question"));
    }
    if kind == Kind::Float && width != 4 && width != 8 {
        return Err(Error::value("float answers must be 4 or 8 bytes wide"));
    }
    Ok(())
}

/// Group codes of `rows` x `cols` answers of `width` bytes each (C order),
/// validity read from the bytes by `kind` (no mask, no normalised copy):
/// the same codes as [`group_rows`] given numpy's `valid` and `-0.0` made `0.0`.
/// Answers of at most 8 bytes are compared as one integer key.
pub fn group_typed(answers: &[u8], rows: usize, cols: usize, width: usize, kind: Kind) -> Result<Vec<i32>> {
    check_typed(answers, rows, cols, width, kind)?;
    let mut codes = vec![-1_i32; rows * cols];
    codes
        .par_chunks_mut(cols.max(1))
        .with_grain(cols * (8 + width) + 20)
        .enumerate()
        .for_each_init(
            || RowGroups::new(cols),
            |groups, (r, out)| {
                groups.group(&answers[r * cols * width..(r + 1) * cols * width], width, kind, out);
            },
        );
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_in_order_of_first_appearance() {
        let a: Vec<u8> = [3_i64, 1, 3, 7, 1, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
        let valid = [true, true, true, true, true, false];
        let codes = group_rows(&a, &valid, 2, 3, 8).unwrap();
        assert_eq!(codes, vec![0, 1, 0, 0, 1, -1]);
    }

    #[test]
    fn equals_a_brute_force_grouping() {
        let mut seed = 12345_u64;
        for _ in 0..200 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let rows = 1 + (seed >> 60) as usize;
            let cols = 1 + ((seed >> 50) & 31) as usize;
            let kinds = 1 + ((seed >> 40) & 7);
            let mut vals = Vec::new();
            let mut valid = Vec::new();
            for k in 0..rows * cols {
                let x = (seed.rotate_left(k as u32 % 64) ^ (k as u64).wrapping_mul(0x9E37)) % kinds;
                vals.push(x as u32);
                valid.push(x != 0 || k % 3 != 0);
            }
            let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
            let codes = group_rows(&bytes, &valid, rows, cols, 4).unwrap();
            for r in 0..rows {
                let mut seen: Vec<u32> = Vec::new();
                for j in 0..cols {
                    let i = r * cols + j;
                    if !valid[i] {
                        assert_eq!(codes[i], -1);
                        continue;
                    }
                    let g = match seen.iter().position(|&v| v == vals[i]) {
                        Some(g) => g,
                        None => {
                            seen.push(vals[i]);
                            seen.len() - 1
                        }
                    };
                    assert_eq!(codes[i], g as i32);
                }
            }
        }
    }

    #[test]
    fn typed_groups_equal_the_masked_bytes() {
        // floats: NaN unparsable, -0.0 is 0.0; text: zero bytes unparsable.
        let f = [0.0_f64, -0.0, f64::NAN, 1.5, 1.5, 0.0];
        let a: Vec<u8> = f.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(group_typed(&a, 2, 3, 8, Kind::Float).unwrap(), vec![0, 0, -1, 0, 0, 1]);
        let f32s = [2.0_f32, -0.0, 0.0, f32::NAN];
        let a: Vec<u8> = f32s.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(group_typed(&a, 1, 4, 4, Kind::Float).unwrap(), vec![0, 1, 1, -1]);
        let t: Vec<u8> = [0u32, 65, 66, 65].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(group_typed(&t, 1, 4, 4, Kind::Text).unwrap(), vec![-1, 0, 1, 0]);
        // UCS-4 text of characters below 256 is packed: the same codes as unpacked
        let words = ["", "answer 1", "answer 22", "é", "answer 1", "", "Ω", "answer 22"];
        let width = 9 * 4;
        let mut t = vec![0u8; words.len() * width];
        for (i, w) in words.iter().enumerate() {
            for (k, ch) in w.chars().enumerate() {
                t[i * width + 4 * k..i * width + 4 * k + 4].copy_from_slice(&(ch as u32).to_le_bytes());
            }
        }
        let valid: Vec<bool> = words.iter().map(|w| !w.is_empty()).collect();
        let want = group_rows(&t, &valid, 2, 4, width).unwrap();
        assert_eq!(want, vec![-1, 0, 1, 2, 0, -1, 1, 2]);
        assert_eq!(group_typed(&t, 2, 4, width, Kind::Text).unwrap(), want);
        // wide strings go through group_rows with the same validity
        let mut w = vec![0u8; 3 * 12];
        w[12] = 65;
        w[24] = 65;
        assert_eq!(group_typed(&w, 1, 3, 12, Kind::Text).unwrap(), vec![-1, 0, 0]);
        // every UCS-4 width of 1 to 10 characters (the integer keys up to 8, the
        // packed hash past it), few distinct strings (ties), "" and characters past
        // 255 in some rows: the codes of the masked bytes
        let alphabet = [0_u32, 0, 65, 66, 0xE9, 0x3A9, 0x1F600];
        let mut seed = 7_u64;
        for chars in 1..=10_usize {
            for _ in 0..60 {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let (rows, cols) = (1 + (seed >> 61) as usize, 1 + ((seed >> 52) & 63) as usize);
                let wide = (seed >> 40) & 3 == 0; // may hold a character past 255
                let width = 4 * chars;
                let mut t = vec![0u8; rows * cols * width];
                let mut x = seed;
                for i in 0..rows * cols {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let len = (x >> 60) as usize % (chars + 1); // "" among them
                    for k in 0..len {
                        let pick = ((x >> (8 + 3 * k)) % if wide { 7 } else { 5 }) as usize;
                        let ch = alphabet[pick].max(if k + 1 == len { 65 } else { 0 });
                        t[i * width + 4 * k..i * width + 4 * k + 4].copy_from_slice(&ch.to_le_bytes());
                    }
                }
                let valid: Vec<bool> = t.chunks_exact(width).map(|a| a.iter().any(|&b| b != 0)).collect();
                assert_eq!(
                    group_typed(&t, rows, cols, width, Kind::Text).unwrap(),
                    group_rows(&t, &valid, rows, cols, width).unwrap(),
                    "{chars} characters"
                );
            }
        }
        let mut seed = 99_u64;
        for _ in 0..100 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let (rows, cols) = (1 + (seed >> 61) as usize, 1 + ((seed >> 52) & 63) as usize);
            let vals: Vec<i16> = (0..rows * cols).map(|i| ((seed >> (i % 40)) & 7) as i16 - 3).collect();
            let bytes: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
            let valid = vec![true; rows * cols];
            assert_eq!(
                group_typed(&bytes, rows, cols, 2, Kind::Bytes).unwrap(),
                group_rows(&bytes, &valid, rows, cols, 2).unwrap()
            );
        }
    }

    #[test]
    fn lane_keys_up_to_sixteen_distinct_strings_then_the_table() {
        // 15, 16, 17 and 30 distinct 1- to 8-character strings a row, "" among them,
        // some rows with a character past 255: the codes of the masked bytes
        for chars in 1..=8_usize {
            for distinct in [15_usize, 16, 17, 30] {
                let (rows, cols) = (3, 40);
                let width = 4 * chars;
                let mut t = vec![0u8; rows * cols * width];
                for r in 0..rows {
                    for j in 0..cols {
                        let v = ((j * 7 + r) % (distinct + 1)) as u32; // 0: ""
                        let i = r * cols + j;
                        if v == 0 {
                            continue;
                        }
                        for k in 0..chars {
                            let ch = 64 + ((v >> (k % 5)) & 31) + (k as u32 % 2);
                            t[i * width + 4 * k..i * width + 4 * k + 4].copy_from_slice(&ch.to_le_bytes());
                        }
                        // the character that makes each of the distinct values distinct
                        t[i * width..i * width + 4].copy_from_slice(&(64 + v).to_le_bytes());
                        if r == 2 && j == 3 {
                            // a character past 255: the row is grouped by the table
                            let at = i * width + 4 * (chars - 1);
                            t[at..at + 4].copy_from_slice(&0x3A9_u32.to_le_bytes());
                        }
                    }
                }
                let valid: Vec<bool> = t.chunks_exact(width).map(|a| a.iter().any(|&b| b != 0)).collect();
                assert_eq!(
                    group_typed(&t, rows, cols, width, Kind::Text).unwrap(),
                    group_rows(&t, &valid, rows, cols, width).unwrap(),
                    "{chars} characters, {distinct} distinct"
                );
            }
        }
    }
}
