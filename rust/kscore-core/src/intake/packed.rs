//! Outcome matrices whose trial axis was packed with `numpy.packbits`
//! (8 trials per byte, big-endian bit order: trial t is bit `7 - t % 8` of
//! byte `t / 8`). One parallel popcount pass gives the per-row success
//! counts; the padding bits past the true N (the low bits of the last byte)
//! must be zero. (Unpacked matrices go through `intake`.)

use ndarray::{s, ArrayView2};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par::{self, Grain};

/// Popcount of a run of bytes, 8 at a time.
#[inline]
fn popcount(bytes: &[u8]) -> u32 {
    let mut it = bytes.chunks_exact(8);
    let mut total = 0u32;
    for w in &mut it {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        total += u64::from_ne_bytes(word).count_ones();
    }
    total + it.remainder().iter().map(|b| b.count_ones()).sum::<u32>()
}

/// Per-row success counts of a packed binary matrix with `n` true trials.
/// Errors: no rows, an `n` that does not need exactly `view.ncols()` bytes,
/// and nonzero padding bits (naming the first offending row).
pub fn packed_counts(view: ArrayView2<u8>, n: u64, name: &str) -> Result<Vec<u32>> {
    let (m, bytes) = view.dim();
    if m == 0 {
        return Err(Error::value(format!(
            "{name} must contain at least one question (M >= 1)."
        )));
    }
    if n == 0 || n > u32::MAX as u64 || n.div_ceil(8) != bytes as u64 {
        return Err(Error::value(format!(
            "packed_n={n} is impossible for {name} with {bytes} bytes per row: it needs \
             {} < packed_n <= {} (ceil(packed_n / 8) bytes per row)",
            8 * bytes.saturating_sub(1),
            8 * bytes
        )));
    }
    let pad = 8 * bytes as u64 - n;
    let mask: u8 = ((1u16 << pad) - 1) as u8;
    let mut counts = vec![0u32; m];
    let block = ((1 << 18) / bytes.max(1)).clamp(1, 1 << 16);
    let bad = counts
        .par_chunks_mut(block)
        .with_grain(par::intake_ns(block * bytes))
        .enumerate()
        .map(|(b, out)| {
            let r0 = b * block;
            let sub = view.slice(s![r0..r0 + out.len(), ..]);
            let mut first_bad: Option<usize> = None;
            for (i, (o, row)) in out.iter_mut().zip(sub.rows()).enumerate() {
                let (cnt, last) = match row.as_slice() {
                    Some(xs) => (popcount(xs), xs[bytes - 1]),
                    None => (row.iter().map(|b| b.count_ones()).sum(), row[bytes - 1]),
                };
                *o = cnt;
                if last & mask != 0 && first_bad.is_none() {
                    first_bad = Some(r0 + i);
                }
            }
            first_bad
        })
        .reduce(|| None, |a, b| a.into_iter().chain(b).min());
    if let Some(i) = bad {
        return Err(Error::value(format!(
            "{name}[{i}] has nonzero padding bits past packed_n={n} (the last {pad} bits of each row must be 0)"
        )));
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::Array2;

    /// numpy.packbits along axis 1 (big-endian).
    fn packbits(bits: &Array2<u8>) -> Array2<u8> {
        let (m, n) = bits.dim();
        let bytes = n.div_ceil(8);
        Array2::from_shape_fn((m, bytes), |(i, b)| {
            (0..8).fold(0u8, |acc, t| {
                let col = b * 8 + t;
                let bit = if col < n { bits[[i, col]] } else { 0 };
                acc | (bit << (7 - t))
            })
        })
    }

    #[test]
    fn packed_equals_unpacked() {
        for n in [1usize, 7, 8, 9, 63, 64, 65, 200] {
            let bits = Array2::from_shape_fn((37, n), |(i, j)| (((i * 31 + j * 17) % 5) < 2) as u8);
            let want = crate::intake::matrix::binary_counts(bits.view()).unwrap();
            let packed = packbits(&bits);
            assert_eq!(packed_counts(packed.view(), n as u64, "R").unwrap(), want, "n={n}");
            // Fortran order and strided views read the same.
            let f = packed.t().as_standard_layout().t().to_owned();
            assert_eq!(packed_counts(f.view(), n as u64, "R").unwrap(), want);
        }
    }

    #[test]
    fn rejects_impossible_n_and_padding() {
        let packed = Array2::from_shape_vec((2, 2), vec![0xffu8, 0x80, 0xff, 0xc0]).unwrap();
        assert_eq!(packed_counts(packed.view(), 10, "R").unwrap(), vec![9u32, 10]);
        let e = packed_counts(packed.view(), 9, "R").unwrap_err().to_string();
        assert!(e.starts_with("R[1] has nonzero padding bits past packed_n=9"), "{e}");
        let e = packed_counts(packed.view(), 17, "R").unwrap_err().to_string();
        assert!(
            e.starts_with("packed_n=17 is impossible for R with 2 bytes per row"),
            "{e}"
        );
        assert!(packed_counts(packed.view(), 8, "R").is_err());
        assert!(packed_counts(packed.view(), 0, "R").is_err());
    }
}
