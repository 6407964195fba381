//! One pass over the cells of an `l x m` matrix, rows in parallel.
//!
//! Rows are cut into a fixed number of chunks that depends only on the
//! matrix's size (never on the thread count). Each chunk writes its rows'
//! outputs and adds its items' parts into an accumulator of its own; the
//! accumulators are then summed in chunk order, so the floating-point
//! result is the same whatever the pool does.

use std::ops::Range;

use rayon::prelude::*;

use crate::cancel;
use crate::error::Result;
use crate::par;

/// Cells per chunk below which a matrix is not split further, and the most
/// chunks (each holds an accumulator of the items' parts: 64 x 28,000 items
/// x 6 floats is 86 MB for the 2PL).
const CELLS_PER_CHUNK: usize = 1 << 17;
const MOST_CHUNKS: usize = 64;

/// The row ranges of an `l x m` matrix's chunks.
pub fn chunks(l: usize, m: usize) -> Vec<Range<usize>> {
    let n = (l.saturating_mul(m) / CELLS_PER_CHUNK)
        .clamp(1, MOST_CHUNKS)
        .min(l.max(1));
    (0..n).map(|c| (c * l / n)..((c + 1) * l / n)).collect()
}

/// Scratch space of a pass, kept between passes.
#[derive(Default)]
pub struct Scratch {
    acc: Vec<f64>,
}

/// A model's passes over its `l x m` cells: the row chunks, the scratch
/// and the two outputs, kept between passes (`rows`: each row's outputs,
/// `items`: the items' sums).
pub struct Passes {
    l: usize,
    ranges: Vec<Range<usize>>,
    scratch: Scratch,
    pub rows: Vec<f64>,
    pub items: Vec<f64>,
}

impl Passes {
    pub fn new(l: usize, m: usize) -> Self {
        Passes {
            l,
            ranges: chunks(l, m),
            scratch: Scratch::default(),
            rows: Vec::new(),
            items: Vec::new(),
        }
    }

    /// [`pass`] with `per_row` outputs a row into `rows` and `per_items`
    /// sums into `items` (both sized here).
    pub fn run<F>(&mut self, m: usize, cell_ns: usize, per_row: usize, per_items: usize, work: F) -> Result<f64>
    where
        F: Fn(Range<usize>, &mut [f64], &mut [f64]) -> Result<f64> + Sync,
    {
        self.rows.resize(self.l * per_row, 0.0);
        self.items.resize(per_items, 0.0);
        pass(
            &self.ranges,
            m,
            cell_ns,
            &mut self.scratch,
            &mut self.rows,
            per_row,
            &mut self.items,
            work,
        )
    }
}

/// Run `work(rows, row_out, item_acc)` on every chunk (`row_out`: the
/// chunk's rows' `per_row` outputs; `item_acc`: `per_item` zeros, which the
/// chunk adds its parts into), then sum the accumulators into `items` in
/// chunk order. Returns the sum of the chunks' return values, in order.
/// `cell_ns`: estimated nanoseconds a cell (for the pool's grain).
#[allow(clippy::too_many_arguments)]
pub fn pass<F>(
    ranges: &[Range<usize>],
    m: usize,
    cell_ns: usize,
    scratch: &mut Scratch,
    rows: &mut [f64],
    per_row: usize,
    items: &mut [f64],
    work: F,
) -> Result<f64>
where
    F: Fn(Range<usize>, &mut [f64], &mut [f64]) -> Result<f64> + Sync,
{
    let per_item = items.len();
    if ranges.len() <= 1 {
        items.iter_mut().for_each(|v| *v = 0.0);
        let all = ranges.first().cloned().unwrap_or(0..0);
        return work(all, rows, items);
    }
    scratch.acc.clear();
    scratch.acc.resize(ranges.len() * per_item, 0.0);
    let mut row_parts = Vec::with_capacity(ranges.len());
    let mut rest = rows;
    for r in ranges {
        let (head, tail) = rest.split_at_mut(r.len() * per_row);
        row_parts.push(head);
        rest = tail;
    }
    let rows_per_chunk = ranges.iter().map(|r| r.len()).max().unwrap_or(1);
    let len = par::min_len(cell_ns.saturating_mul(m).saturating_mul(rows_per_chunk));
    let values = row_parts
        .into_par_iter()
        .zip(scratch.acc.par_chunks_mut(per_item))
        .zip(ranges.par_iter())
        .with_min_len(len)
        .map(|((out, acc), r)| {
            cancel::check()?;
            work(r.clone(), out, acc)
        })
        .collect::<Result<Vec<f64>>>()?;
    // Sum the accumulators in chunk order, items split among threads.
    let acc = &scratch.acc;
    let n = ranges.len();
    items
        .par_chunks_mut(4096)
        .enumerate()
        .with_min_len(par::min_len(4096 * n))
        .for_each(|(b, out)| {
            let start = b * 4096;
            for (t, o) in out.iter_mut().enumerate() {
                let mut v = 0.0;
                for c in 0..n {
                    v += acc[c * per_item + start + t];
                }
                *o = v;
            }
        });
    Ok(values.iter().sum())
}

/// A matrix's rows handed to the chunks of a pass, each writing only its
/// own (disjoint) rows from whichever thread runs it.
pub(crate) struct SharedRows<T>(*mut T);

impl<T> Clone for SharedRows<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for SharedRows<T> {}

// SAFETY: only used to hand each chunk its own rows (disjoint ranges).
unsafe impl<T> Send for SharedRows<T> {}
unsafe impl<T> Sync for SharedRows<T> {}

impl<T> SharedRows<T> {
    pub(crate) fn new(data: &mut [T]) -> Self {
        SharedRows(data.as_mut_ptr())
    }

    /// Row `row` of a matrix with `width` columns.
    ///
    /// # Safety
    /// The row must lie inside the slice given to `new`, which must outlive
    /// the returned slice, and no other thread may touch it meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn row(&self, row: usize, width: usize) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(row * width), width)
    }
}
