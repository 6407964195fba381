//! The max-t statistic of the simultaneous rank sets, one block of pairs at
//! a time (docs/leaderboard.md, *Rank ranges*).
//!
//! The caller holds `z`, models x draws (row-major, float32: each model's
//! bootstrap estimate per draw), and hands over a block of pairs as a
//! matrix of weights: `inv[i, j]` is `1 / se` (float32) of the pair of
//! model `row0 + i` against model `col0 + j`, or 0 where the pair is left
//! out. Per draw `d` the kernel raises `mx[d]` to
//! `|z[col0 + j, d] - z[row0 + i, d]| * inv[i, j]` over every pair kept:
//! the float32 operations of the numpy loop it replaces, in the same order
//! per element (subtract, absolute value, multiply), so the maxima are the
//! same bits whatever the order of the pairs (a maximum is exact). A pair
//! whose weight is +inf (a standard error below float32's range) and whose
//! estimates are equal gives NaN, as numpy's `0 * inf` does, and a NaN
//! maximum stays NaN (numpy's `maximum`).
//!
//! Memory: the block and one accumulator of `draws` floats per thread.
//! Speed: the columns are taken a tile at a time (their rows of `z` stay in
//! the core's cache while every row of the block passes over them) and the
//! draws a chunk at a time (a chunk's maxima stay in registers), the tiles
//! shared among the pool's threads, the loop compiled for AVX2 where the
//! CPU has it.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par::Grain;

/// Columns of a tile: 64 rows of `z` (64 KB at 250 draws) stay in L2.
const TILE: usize = 64;

/// The block's arguments, checked.
#[derive(Clone, Copy)]
pub struct Block<'a> {
    /// Models x draws, row-major.
    pub z: &'a [f32],
    /// Draws per model.
    pub draws: usize,
    /// Rows x cols, row-major: `1 / se` of each pair, 0 where left out.
    pub inv: &'a [f32],
    /// Rows of `inv`.
    pub rows: usize,
    /// Columns of `inv`.
    pub cols: usize,
    /// The model of row 0.
    pub row0: usize,
    /// The model of column 0.
    pub col0: usize,
}

impl Block<'_> {
    fn check(&self, mx: &[f32]) -> Result<()> {
        let models = self.z.len().checked_div(self.draws).unwrap_or(0);
        if self.draws == 0 || self.z.len() != models * self.draws {
            return Err(Error::value("max_t: z must be models x draws with at least one draw"));
        }
        if mx.len() != self.draws {
            return Err(Error::value("max_t: mx must have one entry per draw"));
        }
        if self.inv.len() != self.rows * self.cols {
            return Err(Error::value("max_t: inv must be rows x cols"));
        }
        if (self.rows > 0 && self.row0 + self.rows > models) || (self.cols > 0 && self.col0 + self.cols > models) {
            return Err(Error::value("max_t: the block's models lie outside z"));
        }
        Ok(())
    }
}

/// Raise `mx` (one entry per draw) to the block's maxima (module docs).
///
/// ```text
/// use kscore_core::rank::max_t::{max_t, Block};
/// // Three models, two draws; pairs (0, 1) and (0, 2) with 1 / se = 2 and 0.5.
/// let z = [0.0f32, 1.0, 1.0, 0.5, 4.0, -1.0];
/// let inv = [0.0f32, 2.0, 0.5];
/// let mut mx = [0.0f32; 2];
/// max_t(Block { z: &z, draws: 2, inv: &inv, rows: 1, cols: 3, row0: 0, col0: 0 }, &mut mx).unwrap();
/// assert_eq!(mx, [2.0, 1.0]);
/// ```
///
/// (This example is the unit test `doc_example`: the crate runs no doc-tests,
/// which would need a second release build of the library.)
pub fn max_t(block: Block<'_>, mx: &mut [f32]) -> Result<()> {
    block.check(mx)?;
    if block.rows == 0 || block.cols == 0 {
        return Ok(());
    }
    let wide = avx2();
    let tiles = block.cols.div_ceil(TILE);
    // About half a nanosecond per pair and draw with AVX2 on one core.
    let tile_ns = (block.rows * TILE * block.draws) / 2 + 1;
    let acc = (0..tiles)
        .into_par_iter()
        .with_grain(tile_ns)
        .fold(
            || vec![0.0f32; block.draws],
            |mut acc, t| {
                let (c0, c1) = (t * TILE, ((t + 1) * TILE).min(block.cols));
                tile(&block, c0, c1, &mut acc, wide);
                acc
            },
        )
        .reduce(|| vec![0.0f32; block.draws], merge);
    for (m, a) in mx.iter_mut().zip(&acc) {
        *m = max_nan(*m, *a);
    }
    Ok(())
}

/// numpy's `maximum`: NaN if either is (that NaN, as numpy returns it).
#[inline]
fn max_nan(a: f32, b: f32) -> f32 {
    if a.is_nan() {
        a
    } else if b.is_nan() || b > a {
        b
    } else {
        a
    }
}

fn merge(mut a: Vec<f32>, b: Vec<f32>) -> Vec<f32> {
    for (x, y) in a.iter_mut().zip(&b) {
        *x = max_nan(*x, *y);
    }
    a
}

fn tile(block: &Block<'_>, c0: usize, c1: usize, acc: &mut [f32], wide: bool) {
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` is only set when the CPU supports AVX2.
        return unsafe { tile_avx2(block, c0, c1, acc) };
    }
    let _ = wide;
    tile_body(block, c0, c1, acc)
}

/// `tile_body` compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn tile_avx2(block: &Block<'_>, c0: usize, c1: usize, acc: &mut [f32]) {
    tile_body(block, c0, c1, acc)
}

/// Draws per chunk: a chunk's accumulators and the row's estimates stay in
/// registers (4 + 4 AVX2 vectors) while the tile's columns pass.
const CHUNK: usize = 32;

/// Columns `c0..c1` against every row of the block, a chunk of draws at a time.
#[inline(always)]
fn tile_body(block: &Block<'_>, c0: usize, c1: usize, acc: &mut [f32]) {
    let d = block.draws;
    let mut d0 = 0;
    while d0 < d {
        let len = CHUNK.min(d - d0);
        if len == CHUNK {
            let mut a = [0.0f32; CHUNK];
            a.copy_from_slice(&acc[d0..d0 + CHUNK]);
            for i in 0..block.rows {
                let mut zi = [0.0f32; CHUNK];
                zi.copy_from_slice(&block.z[(block.row0 + i) * d + d0..][..CHUNK]);
                let w_row = &block.inv[i * block.cols..][..block.cols];
                for (j, &w) in (c0..c1).zip(&w_row[c0..c1]) {
                    if w == 0.0 {
                        continue;
                    }
                    let zj = &block.z[(block.col0 + j) * d + d0..][..CHUNK];
                    if w.is_finite() {
                        // (no NaN can arise: |zj - zi| * w is finite or +inf, and
                        // a NaN already in `a` stays, as `v > NaN` is false)
                        for k in 0..CHUNK {
                            let v = (zj[k] - zi[k]).abs() * w;
                            a[k] = if v > a[k] { v } else { a[k] };
                        }
                    } else {
                        for k in 0..CHUNK {
                            a[k] = max_nan(a[k], (zj[k] - zi[k]).abs() * w);
                        }
                    }
                }
            }
            acc[d0..d0 + CHUNK].copy_from_slice(&a);
        } else {
            let a = &mut acc[d0..d];
            for i in 0..block.rows {
                let zi = &block.z[(block.row0 + i) * d + d0..][..len];
                let w_row = &block.inv[i * block.cols..][..block.cols];
                for (j, &w) in (c0..c1).zip(&w_row[c0..c1]) {
                    if w != 0.0 {
                        let zj = &block.z[(block.col0 + j) * d + d0..][..len];
                        for ((a, &x), &y) in a.iter_mut().zip(zj).zip(zi) {
                            *a = max_nan(*a, (x - y).abs() * w);
                        }
                    }
                }
            }
        }
        d0 += CHUNK;
        if crate::cancel::stopping() {
            return; // (the binding's watch sees the stop and discards the result)
        }
    }
}

/// Whether this CPU runs the AVX2 twin.
fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doc_example() {
        // Three models, two draws; pairs (0, 1) and (0, 2) with 1 / se = 2 and 0.5.
        let z = [0.0f32, 1.0, 1.0, 0.5, 4.0, -1.0];
        let inv = [0.0f32, 2.0, 0.5];
        let mut mx = [0.0f32; 2];
        max_t(
            Block {
                z: &z,
                draws: 2,
                inv: &inv,
                rows: 1,
                cols: 3,
                row0: 0,
                col0: 0,
            },
            &mut mx,
        )
        .unwrap();
        assert_eq!(mx, [2.0, 1.0]);
    }

    /// The numpy loop's definition, pair by pair.
    fn naive(b: &Block<'_>, mx: &mut [f32]) {
        for i in 0..b.rows {
            for j in 0..b.cols {
                let w = b.inv[i * b.cols + j];
                if w == 0.0 {
                    continue;
                }
                for (d, m) in mx.iter_mut().enumerate().take(b.draws) {
                    let v = (b.z[(b.col0 + j) * b.draws + d] - b.z[(b.row0 + i) * b.draws + d]).abs() * w;
                    *m = max_nan(*m, v);
                }
            }
        }
    }

    /// A small deterministic generator (xorshift), values in [-4, 4).
    fn values(n: usize, seed: u64) -> Vec<f32> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
            })
            .collect()
    }

    #[test]
    fn equals_the_pairwise_definition_bit_for_bit() {
        for (models, draws, rows, row0, col0, seed) in [
            (300, 250, 37, 11, 11, 1u64),
            (200, 7, 200, 0, 0, 2),
            (130, 33, 5, 120, 100, 3),
            (9, 1, 3, 2, 0, 4),
        ] {
            let z = values(models * draws, seed);
            let cols = models - col0;
            let mut inv: Vec<f32> = values(rows * cols, seed + 10).iter().map(|v| v.abs() * 3.0).collect();
            for (k, w) in inv.iter_mut().enumerate() {
                if k % 7 == 0 {
                    *w = 0.0; // (pairs left out)
                }
            }
            let b = Block {
                z: &z,
                draws,
                inv: &inv,
                rows,
                cols,
                row0,
                col0,
            };
            let mut want = vec![0.5f32; draws];
            naive(&b, &mut want);
            for grain in [1usize, 1 << 40] {
                let old = crate::par::set_grain(grain);
                let mut got = vec![0.5f32; draws];
                max_t(b, &mut got).unwrap();
                crate::par::set_grain(old);
                assert_eq!(
                    got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                    want.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
                );
            }
        }
    }

    /// A block of one row (`row0`) against `cols` columns from `col0`.
    fn row<'a>(z: &'a [f32], draws: usize, inv: &'a [f32], cols: usize, row0: usize, col0: usize) -> Block<'a> {
        Block {
            z,
            draws,
            inv,
            rows: 1,
            cols,
            row0,
            col0,
        }
    }

    #[test]
    fn an_infinite_weight_on_equal_estimates_is_nan_as_in_numpy() {
        let z = [1.0f32, 2.0, 1.0, 5.0];
        let inv = [0.0f32, f32::INFINITY];
        let mut mx = [0.0f32; 2];
        max_t(row(&z, 2, &inv, 2, 0, 0), &mut mx).unwrap();
        assert!(mx[0].is_nan() && mx[1] == f32::INFINITY);
        // A NaN stays whatever follows.
        let inv = [0.0f32, 1.0];
        max_t(row(&z, 2, &inv, 2, 0, 0), &mut mx).unwrap();
        assert!(mx[0].is_nan());
    }

    #[test]
    fn bad_shapes_are_errors() {
        let z = [0.0f32; 6];
        let inv = [1.0f32; 2];
        let mut mx = [0.0f32; 2];
        assert!(max_t(row(&z, 2, &inv, 2, 3, 0), &mut mx).is_err()); // row past the models
        assert!(max_t(row(&z, 2, &inv, 3, 0, 0), &mut mx).is_err()); // inv too short for the columns
        assert!(max_t(row(&z, 4, &inv, 2, 0, 0), &mut mx).is_err()); // draws not dividing z
        let mut short = [0.0f32; 1];
        assert!(max_t(row(&z, 2, &inv, 2, 0, 0), &mut short).is_err());
    }
}
