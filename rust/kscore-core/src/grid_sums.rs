//! Sums over a leaderboard's grid of states (models x questions, a state
//! index per cell): for every model, the sum over its questions, in question
//! order, of a row of values looked up by the cell's state. The sums are
//! sequential (the first term, then each next one added), the same
//! additions in the same order as numpy's column sums of the Python side
//! (`kscore.leaderboard.stats.intervals.column_sums`), so the same bits;
//! kept in registers over a model's run of states instead of gathered and
//! reduced a block at a time.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::par::Grain;

/// A state index of a cell (one or two bytes).
pub trait StateIndex: Copy + Send + Sync {
    fn index(self) -> usize;
}

impl StateIndex for u8 {
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
}

impl StateIndex for u16 {
    #[inline(always)]
    fn index(self) -> usize {
        self as usize
    }
}

/// `out[i, j]` = the sequential sum over `t` of `table[base_i + grid[i, t], j]`
/// for the `models` rows of `grid` (`questions` states each, row-major),
/// `table` row-major with `width` values per row and `rows_per_model` rows
/// of its own per model (`base_i = i * rows_per_model`), or one table for
/// all (`rows_per_model = 0`). No questions: zeros. A state past the
/// table's rows is an error.
pub fn grid_sums<S: StateIndex>(
    grid: &[S],
    models: usize,
    questions: usize,
    table: &[f64],
    width: usize,
    rows_per_model: usize,
) -> Result<Vec<f64>> {
    if grid.len() != models * questions {
        return Err(Error::value("the grid's length is not models x questions"));
    }
    let offsets: Vec<usize> = (0..=models).map(|i| i * questions).collect();
    segment_sums(grid, &offsets, table, width, rows_per_model)
}

/// [`grid_sums`] over segments of `states`: model `i`'s run is
/// `states[offsets[i]..offsets[i + 1]]` (nondecreasing offsets, the last
/// at most the states' length), an empty run's sums zeros.
pub fn segment_sums<S: StateIndex>(
    states: &[S],
    offsets: &[usize],
    table: &[f64],
    width: usize,
    rows_per_model: usize,
) -> Result<Vec<f64>> {
    if offsets.is_empty() || offsets.windows(2).any(|w| w[0] > w[1]) || offsets[offsets.len() - 1] > states.len() {
        return Err(Error::value("the offsets must be nondecreasing and within the states"));
    }
    let models = offsets.len() - 1;
    if width == 0 || !table.len().is_multiple_of(width) {
        return Err(Error::value("the table's length is not a multiple of its width"));
    }
    let rows = table.len() / width;
    let own = if rows_per_model == 0 { rows } else { rows_per_model };
    if rows_per_model > 0 && rows < models * rows_per_model {
        return Err(Error::value("the table has fewer rows than models x rows per model"));
    }
    let mut out = vec![0.0; models * width];
    // Models are independent and each one's sum keeps its order, so the
    // split (over the core's pool: docs/threads.md) changes no bit.
    let item_ns = (states.len() / models.max(1)).max(1) * width.max(1);
    let ok = out
        .par_chunks_exact_mut(width)
        .enumerate()
        .with_grain(item_ns)
        .all(|(i, acc)| {
            let run = &states[offsets[i]..offsets[i + 1]];
            if run.is_empty() {
                return true;
            }
            let base = if rows_per_model == 0 { 0 } else { i * rows_per_model };
            let t = &table[base * width..(base + own) * width];
            match width {
                1 => model_sums::<1, S>(run, t, acc),
                2 => model_sums::<2, S>(run, t, acc),
                3 => model_sums::<3, S>(run, t, acc),
                4 => model_sums::<4, S>(run, t, acc),
                5 => model_sums::<5, S>(run, t, acc),
                6 => model_sums::<6, S>(run, t, acc),
                7 => model_sums::<7, S>(run, t, acc),
                8 => model_sums::<8, S>(run, t, acc),
                _ => model_sums_any(run, t, width, acc),
            }
        });
    if !ok {
        return Err(Error::value("a state index is past the table's rows"));
    }
    Ok(out)
}

/// `out[r, t] = table[min(grid[rows[r], t], table.len() - 1)]`: the rows
/// `rows` of a `models x questions` grid of states (row-major) with each
/// state's value looked up (numpy's `take` with `mode="clip"`, a row at a
/// time), on the pool in pieces of the output. Copies, no arithmetic: the
/// split changes no bit.
pub fn gather_rows<S: StateIndex>(
    grid: &[S],
    models: usize,
    questions: usize,
    rows: &[usize],
    table: &[f64],
) -> Result<Vec<f64>> {
    if grid.len() != models * questions || table.is_empty() || rows.iter().any(|&r| r >= models) {
        return Err(Error::value("the grid, rows or table do not fit together"));
    }
    const PIECE: usize = 1 << 14;
    let last = table.len() - 1;
    let mut out = vec![0.0; rows.len() * questions];
    if questions == 0 {
        return Ok(out);
    }
    out.par_chunks_mut(PIECE)
        .enumerate()
        .with_grain(PIECE)
        .for_each(|(p, part)| {
            let mut at = p * PIECE;
            let mut done = 0;
            while done < part.len() {
                let (r, t) = (at / questions, at % questions);
                let take = (questions - t).min(part.len() - done);
                let src = &grid[rows[r] * questions + t..rows[r] * questions + t + take];
                for (o, &s) in part[done..done + take].iter_mut().zip(src) {
                    *o = table[s.index().min(last)];
                }
                done += take;
                at += take;
            }
        });
    Ok(out)
}

/// One model's sums, `K` values per state held in registers; false where a
/// state is past `t`'s rows.
#[inline(always)]
fn model_sums<const K: usize, S: StateIndex>(states: &[S], t: &[f64], out: &mut [f64]) -> bool {
    let rows = t.len() / K;
    let mut acc = [0.0f64; K];
    let first = states[0].index();
    if first >= rows {
        return false;
    }
    acc.copy_from_slice(&t[first * K..first * K + K]);
    for &s in &states[1..] {
        let s = s.index();
        if s >= rows {
            return false;
        }
        let row: &[f64; K] = t[s * K..s * K + K].try_into().expect("K values");
        for j in 0..K {
            acc[j] += row[j];
        }
    }
    out.copy_from_slice(&acc);
    true
}

/// [`model_sums`] for any width (in memory, not registers).
fn model_sums_any<S: StateIndex>(states: &[S], t: &[f64], width: usize, out: &mut [f64]) -> bool {
    let rows = t.len() / width;
    let first = states[0].index();
    if first >= rows {
        return false;
    }
    out.copy_from_slice(&t[first * width..(first + 1) * width]);
    for &s in &states[1..] {
        let s = s.index();
        if s >= rows {
            return false;
        }
        for (a, v) in out.iter_mut().zip(&t[s * width..(s + 1) * width]) {
            *a += v;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sums written out: the first term, then each next one added.
    fn naive(grid: &[u8], models: usize, table: &[f64], width: usize, per: usize) -> Vec<f64> {
        let q = grid.len() / models;
        let mut out = vec![0.0; models * width];
        for i in 0..models {
            for j in 0..width {
                let base = if per == 0 { 0 } else { i * per };
                let mut acc = table[(base + grid[i * q] as usize) * width + j];
                for t in 1..q {
                    acc += table[(base + grid[i * q + t] as usize) * width + j];
                }
                out[i * width + j] = acc;
            }
        }
        out
    }

    #[test]
    fn sums_are_sequential_at_every_width() {
        let mut x: u64 = 7;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            x >> 33
        };
        for width in [1, 3, 6, 8, 11] {
            for per in [0, 5] {
                let (models, q) = (4, 333);
                let grid: Vec<u8> = (0..models * q).map(|_| (next() % 5) as u8).collect();
                let rows = if per == 0 { 5 } else { models * per };
                let table: Vec<f64> = (0..rows * width).map(|_| (next() % 1000) as f64 / 7.0 - 60.0).collect();
                let got = grid_sums(&grid, models, q, &table, width, per).unwrap();
                let want = naive(&grid, models, &table, width, per);
                assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
    }

    #[test]
    fn segments_are_runs_of_the_states() {
        let states = [0u8, 1, 1, 2, 0, 2, 2];
        let table = [1.0, 10.0, 100.0];
        let got = segment_sums(&states, &[0, 3, 3, 7], &table, 1, 0).unwrap();
        assert_eq!(got, vec![21.0, 0.0, 301.0]);
        assert!(segment_sums(&states, &[0, 4, 3], &table, 1, 0).is_err());
        assert!(segment_sums(&states, &[0, 8], &table, 1, 0).is_err());
    }

    #[test]
    fn gathered_rows_are_the_lookups_at_any_split() {
        let (models, q) = (5, 40_001);
        let grid: Vec<u16> = (0..models * q).map(|i| ((i * 7919) % 13) as u16).collect();
        let table: Vec<f64> = (0..12).map(|v| v as f64 / 3.0).collect();
        let rows = [4, 0, 2];
        let old = crate::par::set_grain(1);
        let split = gather_rows(&grid, models, q, &rows, &table).unwrap();
        crate::par::set_grain(old);
        let whole = gather_rows(&grid, models, q, &rows, &table).unwrap();
        assert_eq!(split, whole);
        for (k, &r) in rows.iter().enumerate() {
            for t in (0..q).step_by(101) {
                let s = (grid[r * q + t] as usize).min(11);
                assert_eq!(whole[k * q + t], table[s]);
            }
        }
        assert!(gather_rows(&grid, models, q, &[5], &table).is_err());
    }

    #[test]
    fn a_state_past_the_table_is_an_error() {
        assert!(grid_sums(&[0u8, 3], 1, 2, &[1.0, 2.0, 3.0], 1, 0).is_err());
        assert_eq!(grid_sums::<u8>(&[], 2, 0, &[1.0], 1, 0).unwrap(), vec![0.0, 0.0]);
    }
}
