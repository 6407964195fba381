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
}
