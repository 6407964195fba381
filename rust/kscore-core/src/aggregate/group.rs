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
}
