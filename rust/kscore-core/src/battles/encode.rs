//! Strings to codes (model names, winner words): the Arrow layout of a
//! string column (offsets into one byte buffer) in, a code per string and
//! the distinct strings in order of first appearance out. Chunks of rows
//! are encoded in parallel with a map each, then merged in chunk order:
//! the same codes on any number of threads. Thousands of times faster per
//! row than the interpreter, and some ten times faster than a general
//! dictionary encoding on the few distinct names a board has.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par;

/// A small multiplicative hash for short keys (FxHash's step).
#[derive(Default)]
struct Fx(u64);

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ b as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        self.0 = h;
    }
}

type Map<'a> = HashMap<&'a [u8], u32, BuildHasherDefault<Fx>>;

const CHUNK: usize = 1 << 16;

/// Codes of the `offsets.len() - 1` strings `data[offsets[k]..offsets[k + 1]]`
/// and the distinct strings.
pub fn encode<O: Copy + Into<i64> + Sync>(offsets: &[O], data: &[u8]) -> Result<(Vec<u32>, Vec<Vec<u8>>)> {
    let n = offsets.len().saturating_sub(1);
    let at = |k: usize| offsets[k].into();
    if (0..n).any(|k| at(k) > at(k + 1) || at(k) < 0) || (n > 0 && at(n) as usize > data.len()) {
        return Err(Error::value("string offsets out of order or past the data"));
    }
    let item = |k: usize| &data[at(k) as usize..at(k + 1) as usize];
    let chunks = n.div_ceil(CHUNK);
    let parts: Vec<(Vec<u32>, Vec<&[u8]>)> = (0..chunks)
        .into_par_iter()
        .with_min_len(par::min_len(CHUNK * 15))
        .map(|c| {
            let mut map = Map::default();
            let mut uniq: Vec<&[u8]> = Vec::new();
            let mut codes = Vec::with_capacity(CHUNK);
            let mut last: (&[u8], u32) = (&[], u32::MAX);
            for k in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let s = item(k);
                if last.1 != u32::MAX && s == last.0 {
                    codes.push(last.1);
                    continue;
                }
                let code = *map.entry(s).or_insert_with(|| {
                    uniq.push(s);
                    (uniq.len() - 1) as u32
                });
                last = (s, code);
                codes.push(code);
            }
            (codes, uniq)
        })
        .collect();
    let mut global = Map::default();
    let mut names: Vec<Vec<u8>> = Vec::new();
    let mut out = Vec::with_capacity(n);
    for (codes, uniq) in parts {
        let remap: Vec<u32> = uniq
            .iter()
            .map(|s| {
                *global.entry(s).or_insert_with(|| {
                    names.push(s.to_vec());
                    (names.len() - 1) as u32
                })
            })
            .collect();
        out.extend(codes.iter().map(|&c| remap[c as usize]));
    }
    Ok((out, names))
}

/// One string array of Arrow's layout: offsets (int32 or int64) into one
/// byte buffer.
#[derive(Clone, Copy)]
pub enum Strings<'a> {
    Narrow(&'a [i32], &'a [u8]),
    Wide(&'a [i64], &'a [u8]),
}

impl<'a> Strings<'a> {
    /// Whether the array holds no string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of strings.
    pub fn len(&self) -> usize {
        match self {
            Strings::Narrow(o, _) => o.len().saturating_sub(1),
            Strings::Wide(o, _) => o.len().saturating_sub(1),
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        fn ok<O: Copy + Into<i64> + Sync>(offsets: &[O], data: &[u8]) -> bool {
            let n = offsets.len().saturating_sub(1);
            let bad = (0..n).into_par_iter().with_min_len(par::min_len(2)).any(|k| {
                let (lo, hi): (i64, i64) = (offsets[k].into(), offsets[k + 1].into());
                lo > hi || lo < 0
            });
            !bad && (n == 0 || offsets[n].into() as u64 <= data.len() as u64)
        }
        let good = match *self {
            Strings::Narrow(o, d) => ok(o, d),
            Strings::Wide(o, d) => ok(o, d),
        };
        if good {
            Ok(())
        } else {
            Err(Error::value("string offsets out of order or past the data"))
        }
    }

    /// String `k` (checked offsets).
    #[inline]
    pub(crate) fn at(&self, k: usize) -> &'a [u8] {
        match *self {
            Strings::Narrow(o, d) => &d[o[k] as usize..o[k + 1] as usize],
            Strings::Wide(o, d) => &d[o[k] as usize..o[k + 1] as usize],
        }
    }
}

const FX: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// FxHash's step over the bytes read eight at a time, the length first.
#[inline]
fn hash(s: &[u8]) -> u64 {
    let mut h = (s.len() as u64).wrapping_mul(FX);
    let mut chunks = s.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(FX);
    }
    let r = chunks.remainder();
    if !r.is_empty() {
        let mut w = [0u8; 8];
        w[..r.len()].copy_from_slice(r);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(FX);
    }
    h
}

/// A string of up to 16 bytes as two words: its first and last 8 bytes
/// (overlapping from 8 bytes on), for shorter ones its first and last 4, or
/// its bytes 0, n/2 and n-1: for strings of one length, equal words mean
/// equal strings, so a lookup compares two integers instead of calling
/// `memcmp` (a sixth of the time of coding battles' columns when it did).
#[inline]
fn short_key(s: &[u8]) -> (u64, u64) {
    let n = s.len();
    if n >= 8 {
        let (mut lo, mut hi) = ([0u8; 8], [0u8; 8]);
        lo.copy_from_slice(&s[..8]);
        hi.copy_from_slice(&s[n - 8..]);
        (u64::from_le_bytes(lo), u64::from_le_bytes(hi))
    } else if n >= 4 {
        let (mut lo, mut hi) = ([0u8; 4], [0u8; 4]);
        lo.copy_from_slice(&s[..4]);
        hi.copy_from_slice(&s[n - 4..]);
        (u32::from_le_bytes(lo) as u64 | (u32::from_le_bytes(hi) as u64) << 32, 0)
    } else if n > 0 {
        (s[0] as u64 | (s[n / 2] as u64) << 8 | (s[n - 1] as u64) << 16, 0)
    } else {
        (0, 0)
    }
}

/// Longest string compared by `short_key`.
const SHORT: usize = 16;

/// The distinct strings of a run of rows: open addressing (linear probing),
/// each slot the code plus one (0: empty), each code's hash kept so that a
/// probe compares strings only when the hashes agree; strings of up to
/// `SHORT` bytes are hashed and compared by their `short_key`, longer ones
/// by `hash` and their bytes. A board has a few hundred names: the table
/// stays in the first-level cache.
pub(crate) struct Table<'a> {
    slots: Vec<u32>,
    shift: u32,
    hashes: Vec<u64>,
    keys: Vec<(u64, u64)>,
    pub(crate) uniq: Vec<&'a [u8]>,
}

impl<'a> Table<'a> {
    pub(crate) fn new() -> Self {
        Table {
            slots: vec![0; 256],
            shift: 64 - 8,
            hashes: Vec::new(),
            keys: Vec::new(),
            uniq: Vec::new(),
        }
    }

    #[inline]
    pub(crate) fn code(&mut self, s: &'a [u8]) -> u32 {
        let n = s.len();
        if n <= SHORT {
            let k = short_key(s);
            let h = (k.0.wrapping_mul(FX) ^ k.1 ^ n as u64).wrapping_mul(FX);
            self.find_or_add(h, k, s, |t, c| t.keys[c] == k && t.uniq[c].len() == n)
        } else {
            let h = hash(s);
            self.find_or_add(h, (0, 0), s, |t, c| t.uniq[c] == s)
        }
    }

    #[inline]
    fn find_or_add(&mut self, h: u64, key: (u64, u64), s: &'a [u8], same: impl Fn(&Self, usize) -> bool) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = (h >> self.shift) as usize;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                break;
            }
            let c = (slot - 1) as usize;
            if self.hashes[c] == h && same(self, c) {
                return c as u32;
            }
            i = (i + 1) & mask;
        }
        let code = self.uniq.len() as u32;
        self.slots[i] = code + 1;
        self.hashes.push(h);
        self.keys.push(key);
        self.uniq.push(s);
        if self.uniq.len() * 2 > self.slots.len() {
            self.grow();
        }
        code
    }

    fn grow(&mut self) {
        let cap = self.slots.len() * 2;
        self.shift -= 1;
        let mask = cap - 1;
        let mut slots = vec![0u32; cap];
        for (c, &h) in self.hashes.iter().enumerate() {
            let mut i = (h >> self.shift) as usize;
            while slots[i] != 0 {
                i = (i + 1) & mask;
            }
            slots[i] = c as u32 + 1;
        }
        self.slots = slots;
    }
}

/// A code array per string array, and the names (sorted).
pub type Coded = (Vec<Vec<u32>>, Vec<Vec<u8>>);

/// Codes of the strings of several arrays over one set of names, and the
/// names, sorted by their bytes (for UTF-8, the order of code points:
/// Python's `sorted`). Rows are hashed in parallel, `CHUNK` rows a piece
/// with a table each; the pieces' names are merged and sorted once, and
/// each piece's codes are then mapped to the sorted order in parallel: the
/// same codes on any number of threads.
pub fn encode_sorted(arrays: &[Strings<'_>]) -> Result<Coded> {
    for s in arrays {
        s.check()?;
    }
    let pieces: Vec<(usize, usize, usize)> = arrays
        .iter()
        .enumerate()
        .flat_map(|(p, s)| {
            let n = s.len();
            (0..n.div_ceil(CHUNK)).map(move |c| (p, c * CHUNK, ((c + 1) * CHUNK).min(n)))
        })
        .collect();
    let coded: Vec<(Vec<u32>, Vec<&[u8]>)> = pieces
        .par_iter()
        .with_min_len(par::min_len(CHUNK * 10))
        .map(|&(p, lo, hi)| {
            let s = arrays[p];
            let mut table = Table::new();
            let mut codes = Vec::with_capacity(hi - lo);
            let mut last: (&[u8], u32) = (&[], u32::MAX);
            for k in lo..hi {
                let w = s.at(k);
                if last.1 != u32::MAX && w == last.0 {
                    codes.push(last.1);
                    continue;
                }
                let c = table.code(w);
                last = (w, c);
                codes.push(c);
            }
            (codes, table.uniq)
        })
        .collect();
    // the names of all pieces, then their sorted order
    let mut all = Table::new();
    let locals: Vec<Vec<u32>> = coded
        .iter()
        .map(|(_, uniq)| uniq.iter().map(|&w| all.code(w)).collect())
        .collect();
    let mut order: Vec<u32> = (0..all.uniq.len() as u32).collect();
    order.sort_unstable_by(|&x, &y| all.uniq[x as usize].cmp(all.uniq[y as usize]));
    let mut rank = vec![0u32; order.len()];
    for (r, &g) in order.iter().enumerate() {
        rank[g as usize] = r as u32;
    }
    let names: Vec<Vec<u8>> = order.iter().map(|&g| all.uniq[g as usize].to_vec()).collect();
    let mapped: Vec<Vec<u32>> = coded
        .into_par_iter()
        .zip(locals.into_par_iter())
        .with_min_len(par::min_len(CHUNK))
        .map(|((mut codes, _), local)| {
            let remap: Vec<u32> = local.iter().map(|&g| rank[g as usize]).collect();
            for c in codes.iter_mut() {
                *c = remap[*c as usize];
            }
            codes
        })
        .collect();
    let mut out: Vec<Vec<u32>> = arrays.iter().map(|s| Vec::with_capacity(s.len())).collect();
    for (&(p, _, _), codes) in pieces.iter().zip(mapped) {
        if out[p].is_empty() {
            let more = arrays[p].len().saturating_sub(codes.len());
            out[p] = codes;
            out[p].reserve(more);
        } else {
            out[p].extend_from_slice(&codes);
        }
    }
    Ok((out, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_in_order_of_first_appearance() {
        let words = ["b", "a", "b", "", "a", "ccc"];
        let mut data = Vec::new();
        let mut offsets = vec![0i64];
        for w in words {
            data.extend_from_slice(w.as_bytes());
            offsets.push(data.len() as i64);
        }
        let (codes, names) = encode(&offsets, &data).expect("valid");
        assert_eq!(
            encode(&offsets.iter().map(|&o| o as i32).collect::<Vec<_>>(), &data)
                .expect("valid")
                .0,
            codes
        );
        assert_eq!(codes, vec![0, 1, 0, 2, 1, 3]);
        assert_eq!(names, vec![b"b".to_vec(), b"a".to_vec(), b"".to_vec(), b"ccc".to_vec()]);
        assert!(encode(&[0i64, 5], b"ab").is_err());
    }

    #[test]
    fn short_and_long_strings_of_every_length_stay_apart() {
        // every length 0..=40 (the short keys' three layouts and the long path), strings that differ in
        // one byte at every position, and the same bytes at another length
        let mut words: Vec<Vec<u8>> = Vec::new();
        for n in 0..=40usize {
            let base: Vec<u8> = (0..n).map(|k| b'a' + (k % 7) as u8).collect();
            words.push(base.clone());
            for at in 0..n {
                let mut w = base.clone();
                w[at] = b'Z';
                words.push(w);
            }
        }
        words.push(vec![0u8; 5]);
        words.push(vec![0u8; 3]);
        let mut table = Table::new();
        let codes: Vec<u32> = words.iter().map(|w| table.code(w)).collect();
        let mut seen = std::collections::HashMap::new();
        for (w, &c) in words.iter().zip(&codes) {
            assert_eq!(*seen.entry(w.clone()).or_insert(c), c);
        }
        let distinct: std::collections::HashSet<&Vec<u8>> = words.iter().collect();
        assert_eq!(table.uniq.len(), distinct.len());
        for (w, &c) in words.iter().zip(&codes) {
            assert_eq!(table.uniq[c as usize], w.as_slice());
            assert_eq!(table.code(w), c);
        }
    }

    #[test]
    fn sorted_codes_over_several_arrays_on_any_threads() {
        // many names (the table grows) over pieces of several chunks
        let words: Vec<String> = (0..300_000u64)
            .map(|k| format!("m{}", (k * 2_654_435_761) % 1_001))
            .chain(["", "b", "a"].iter().map(|s| s.to_string()))
            .collect();
        let mut data = Vec::new();
        let mut offsets = vec![0i64];
        for w in &words {
            data.extend_from_slice(w.as_bytes());
            offsets.push(data.len() as i64);
        }
        let narrow: Vec<i32> = offsets[..11].iter().map(|&o| o as i32).collect();
        let arrays = [Strings::Wide(&offsets, &data), Strings::Narrow(&narrow, &data)];
        let (codes, names) = encode_sorted(&arrays).expect("valid");
        let mut want: Vec<&[u8]> = words.iter().map(|w| w.as_bytes()).collect();
        want.sort_unstable();
        want.dedup();
        assert_eq!(names, want.iter().map(|w| w.to_vec()).collect::<Vec<_>>());
        for (k, w) in words.iter().enumerate() {
            assert_eq!(names[codes[0][k] as usize], w.as_bytes());
        }
        assert_eq!(codes[1], codes[0][..10].to_vec());
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
        assert_eq!(one.install(|| encode_sorted(&arrays)).expect("valid").0, codes);
        assert!(encode_sorted(&[Strings::Narrow(&[0, 5], b"ab")]).is_err());
        assert!(encode_sorted(&[Strings::Narrow(&[2, 1], b"ab")]).is_err());
        let (none, empty) = encode_sorted(&[Strings::Wide(&[0], b"")]).expect("valid");
        assert!(none[0].is_empty() && empty.is_empty());
    }
}
