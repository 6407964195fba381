//! A leaderboard's cells (one per (model, question), a count per outcome
//! category) as distinct states, on the core's pool: what
//! `kscore.leaderboard.stats.states` makes of every board after the count
//! (docs/threads.md, *The phases after the count*).
//!
//! - [`cell_states`]: each cell's state, the states numbered in the order of
//!   their key in mixed radix (the Python side's `_keys`: the last category
//!   least significant, then the first, second, ...), so the same numbers
//!   as its numpy passes.
//! - [`grid_table`]: where the cells are the grid (model `i`'s cells
//!   `i Q .. (i + 1) Q`, questions `0..Q` in order), the cells per (model,
//!   state); `None` where they are not.
//!
//! Both are integer work split by rows or models: the split changes no
//! result.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::grid_sums::StateIndex;
use crate::par::{self, Grain};

/// Rows per piece of the passes over the cells.
const CHUNK: usize = 1 << 16;

/// Largest key table [`cell_states`] takes (one per pool thread).
pub const MAX_KEYS: usize = 1 << 22;

/// Each cell's state index, in the smallest signed type that holds them
/// (as numpy's `small_int` of the Python side picks).
#[derive(Debug, Clone, PartialEq)]
pub enum StateCodes {
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

#[inline(always)]
fn key(cols: &[&[i64]], radix: &[usize], r: usize) -> Option<usize> {
    let w = cols.len();
    let digit = |j: usize| -> Option<usize> {
        let v = cols[j][r];
        if v < 0 || v as usize >= radix[j] {
            None
        } else {
            Some(v as usize)
        }
    };
    if w == 1 {
        return digit(0);
    }
    let mut k = digit(w - 2)?;
    for j in (0..w - 2).rev() {
        k = k * radix[j] + digit(j)?;
    }
    Some(k * radix[w - 1] + digit(w - 1)?)
}

/// The distinct keys (ascending) of the rows of `cols` (one slice per
/// category, all the same length, each value in `0..radix[j]`) and each
/// row's index among them. An error where a value is out of its radix, the
/// columns differ in length, or the key space passes [`MAX_KEYS`].
pub fn cell_states(cols: &[&[i64]], radix: &[usize]) -> Result<(Vec<i64>, StateCodes)> {
    if cols.is_empty() || cols.len() != radix.len() {
        return Err(Error::value("one radix per category column is needed"));
    }
    let n = cols[0].len();
    if cols.iter().any(|c| c.len() != n) {
        return Err(Error::value("the category columns differ in length"));
    }
    let space = radix
        .iter()
        .try_fold(1usize, |a, &r| a.checked_mul(r).filter(|&s| s <= MAX_KEYS))
        .ok_or_else(|| Error::value("the states' key space is too large"))?;
    let pieces = n.div_ceil(CHUNK);
    let piece_ns = CHUNK * cols.len();
    let seen = par::fold_per_thread(
        pieces,
        piece_ns,
        || vec![false; space],
        |seen, p| {
            for r in p * CHUNK..((p + 1) * CHUNK).min(n) {
                match key(cols, radix, r) {
                    Some(k) => seen[k] = true,
                    None => return false,
                }
            }
            true
        },
        |mut a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= y;
            }
            a
        },
    )
    .ok_or_else(|| Error::value("a category count is outside its radix"))?;
    let mut slot = vec![0i64; space];
    let mut keys = Vec::new();
    for (k, &s) in seen.iter().enumerate() {
        if s {
            slot[k] = keys.len() as i64;
            keys.push(k as i64);
        }
    }
    fn fill<T: Copy + Default + Send>(
        n: usize,
        piece_ns: usize,
        cols: &[&[i64]],
        radix: &[usize],
        slot: &[i64],
        conv: fn(i64) -> T,
    ) -> Vec<T> {
        let mut out = vec![T::default(); n];
        out.par_chunks_mut(CHUNK)
            .enumerate()
            .with_grain(piece_ns)
            .for_each(|(p, part)| {
                for (i, o) in part.iter_mut().enumerate() {
                    // (every key was seen in the first pass: in range)
                    *o = conv(slot[key(cols, radix, p * CHUNK + i).unwrap_or(0)]);
                }
            });
        out
    }
    let top = keys.len().saturating_sub(1);
    let codes = if top <= i8::MAX as usize {
        StateCodes::I8(fill(n, piece_ns, cols, radix, &slot, |v| v as i8))
    } else if top <= i16::MAX as usize {
        StateCodes::I16(fill(n, piece_ns, cols, radix, &slot, |v| v as i16))
    } else if top <= i32::MAX as usize {
        StateCodes::I32(fill(n, piece_ns, cols, radix, &slot, |v| v as i32))
    } else {
        StateCodes::I64(fill(n, piece_ns, cols, radix, &slot, |v| v))
    };
    Ok((keys, codes))
}

/// Cells per (model, state), `models x states` row-major, where the cells
/// are the grid: model `i`'s `questions` cells at `i * questions ..`, with
/// model code `i` and question codes `0..questions` in order; `None` where
/// they are not (or a state is past `states`).
pub fn grid_table<S: StateIndex>(
    of_row: &[S],
    model: &[i64],
    question: &[i64],
    models: usize,
    questions: usize,
    states: usize,
) -> Option<Vec<i64>> {
    let n = models.checked_mul(questions)?;
    if of_row.len() != n || model.len() != n || question.len() != n || states == 0 {
        return None;
    }
    let mut table = vec![0i64; models * states];
    let ok = table
        .par_chunks_mut(states)
        .enumerate()
        .with_grain(2 * questions.max(1))
        .all(|(i, row)| {
            let (a, b) = (i * questions, (i + 1) * questions);
            let mine = i as i64;
            for ((&s, &m), (t, &q)) in of_row[a..b].iter().zip(&model[a..b]).zip((0i64..).zip(&question[a..b])) {
                let s = s.index();
                if m != mine || q != t || s >= states {
                    return false;
                }
                row[s] += 1;
            }
            true
        });
    ok.then_some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_are_numbered_by_their_key() {
        // Two categories: key = c1 + c0 * radix[1]... as the Python side's _keys (width 2: c0 then c1).
        let c0 = [3i64, 0, 3, 1, 0];
        let c1 = [0i64, 2, 0, 1, 2];
        let (keys, codes) = cell_states(&[&c0, &c1], &[4, 3]).unwrap();
        // keys: c0 * 3 + c1 = 9, 2, 9, 4, 2
        assert_eq!(keys, vec![2, 4, 9]);
        assert_eq!(codes, StateCodes::I8(vec![2, 0, 2, 1, 0]));
        assert!(cell_states(&[&c0, &c1], &[3, 3]).is_err());
        let one = [5i64, 1, 5];
        assert_eq!(
            cell_states(&[&one], &[6]).unwrap(),
            (vec![1, 5], StateCodes::I8(vec![1, 0, 1]))
        );
    }

    #[test]
    fn three_categories_and_many_states_split_alike() {
        let n = 300_000;
        let mut x: u64 = 11;
        let mut next = || {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) as i64
        };
        let cols: Vec<Vec<i64>> = (0..3).map(|_| (0..n).map(|_| next() % 30).collect()).collect();
        let refs: Vec<&[i64]> = cols.iter().map(|c| c.as_slice()).collect();
        let (keys, codes) = cell_states(&refs, &[30, 30, 30]).unwrap();
        // 30^3 = 27,000 keys, all met in 300,000 rows: more than i8 holds, less than i16 (40^3 would need i32)
        let StateCodes::I16(codes) = codes else {
            panic!("wider codes")
        };
        for r in (0..n).step_by(997) {
            let k = (cols[1][r] * 30 + cols[0][r]) * 30 + cols[2][r];
            assert_eq!(keys[codes[r] as usize], k);
        }
        let old = par::set_grain(1);
        let again = cell_states(&refs, &[30, 30, 30]).unwrap();
        par::set_grain(old);
        assert_eq!(again.1, StateCodes::I16(codes));
    }

    #[test]
    fn the_grid_is_counted_and_anything_else_refused() {
        let of_row = [0u8, 1, 1, 2, 2, 2];
        let model = [0i64, 0, 0, 1, 1, 1];
        let question = [0i64, 1, 2, 0, 1, 2];
        assert_eq!(
            grid_table(&of_row, &model, &question, 2, 3, 3),
            Some(vec![1, 2, 0, 0, 0, 3])
        );
        assert_eq!(grid_table(&of_row, &model, &[0, 2, 1, 0, 1, 2], 2, 3, 3), None);
        assert_eq!(grid_table(&of_row, &[0, 0, 1, 1, 1, 1], &question, 2, 3, 3), None);
        assert_eq!(grid_table(&of_row, &model, &question, 2, 3, 2), None);
    }
}
