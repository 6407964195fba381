//! One pass over an outcome matrix: validate every entry and count per row, in
//! place, for any element type and any memory layout, in parallel over blocks
//! of rows. The fast path only sums and ORs; the error path (rare) rescans to
//! report the first flaw in scorio's order.

use ndarray::{s, ArrayView2};
use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::intake::entry::{Entry, Flaw};
use crate::intake::moments::CountMoments;
use crate::intake::{planes, wide};
use crate::par::{self, Grain};

/// The row-counting loops compiled twice: for the x86-64 baseline (SSE2,
/// two u64 lanes) and for AVX2 (four), chosen at run time. The wide integer
/// and float rows vectorise with the lane width, so AVX2 reads int64 and
/// float64 matrices about twice as fast; one-byte rows take the SSE2 byte
/// path either way. Both compile the same Rust, so they give the same
/// integers (tested). With the `force-scalar` feature only the baseline
/// loops are compiled (what other architectures run).
macro_rules! avx2_twin {
    ($(#[$doc:meta])* fn $name:ident / $avx2:ident = $body:ident <$($g:ident $(: $bound:path)?),* $(; const $c:ident: $ct:ty)?> ($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        $(#[$doc])*
        #[inline]
        fn $name<$($g $(: $bound)?),* $(, const $c: $ct)?>($($arg: $ty),*) -> $ret {
            #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above).
                return unsafe { $avx2::<$($g),* $(, $c)?>($($arg),*) };
            }
            $body::<$($g),* $(, $c)?>($($arg),*)
        }

        #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
        #[target_feature(enable = "avx2")]
        unsafe fn $avx2<$($g $(: $bound)?),* $(, const $c: $ct)?>($($arg: $ty),*) -> $ret {
            $body::<$($g),* $(, $c)?>($($arg),*)
        }
    };
}

avx2_twin! {
    /// Count successes of rows `r0..r0 + out.len()` into `out`; return the OR
    /// of all `bin` values (> 1 means some entry was not 0/1).
    fn count_block / count_block_avx2 = count_block_body <T: Entry> (view: &ArrayView2<T>, r0: usize, out: &mut [u32]) -> u64
}

avx2_twin! {
    /// Category counts of C-order rows from bit sums (see `bit_rows_body`).
    fn bit_rows / bit_rows_avx2 = bit_rows_body <T: Entry; const B: usize> (flat: &[T], n: usize, out: &mut [u32]) -> bool
}

/// Rows per parallel task: about 256 KiB of input, at least one row.
fn block_rows(ncols: usize, elem: usize) -> usize {
    ((256 * 1024) / (ncols.max(1) * elem)).clamp(1, 1 << 16)
}

/// `with_min_len` for blocks of `block` rows of `ncols` entries of `elem`
/// bytes: small matrices are read on the calling thread (see `par`).
fn block_min_len(block: usize, ncols: usize, elem: usize) -> usize {
    par::min_len(par::intake_ns(block * ncols.max(1) * elem))
}

/// Sum and OR of the `bin` values of a contiguous run of entries.
#[inline]
fn sum_or<T: Entry>(xs: &[T]) -> (u64, u64) {
    T::sum_or(xs)
}

/// Count successes of rows `r0..r0 + out.len()` into `out`; return the OR of
/// all `bin` values (> 1 means some entry was not 0/1).
#[inline(always)]
fn count_block_body<T: Entry>(view: &ArrayView2<T>, r0: usize, out: &mut [u32]) -> u64 {
    let sub = view.slice(s![r0..r0 + out.len(), ..]);
    let mut or = 0u64;
    if sub.ncols() > 1 && sub.nrows() > 1 && sub.strides()[0] == 1 {
        // Fortran order: walk contiguous columns, adding into the row counts.
        out.fill(0);
        for col in sub.columns() {
            let col = col.as_slice().expect("unit row stride");
            for (o, &x) in out.iter_mut().zip(col) {
                let v = x.bin();
                *o = o.wrapping_add(v as u32);
                or |= v;
            }
        }
        return or;
    }
    let n = sub.ncols();
    if let Some(words) = wide_words(&sub).filter(|_| n.is_multiple_of(4)) {
        return wide::row_sums(words, n, out);
    }
    if let (Some(flat), true) = (sub.as_slice(), n > 0) {
        // C order: rows are consecutive runs of one slice (no per-row views).
        for (o, row) in out.iter_mut().zip(flat.chunks_exact(n)) {
            let (sum, r) = sum_or(row);
            *o = sum as u32;
            or |= r;
        }
        return or;
    }
    for (o, row) in out.iter_mut().zip(sub.rows()) {
        let (sum, r) = match row.as_slice() {
            Some(xs) => sum_or(xs),
            None => row.iter().fold((0u64, 0u64), |(s, r), &x| {
                let v = x.bin();
                (s + v, r | v)
            }),
        };
        *o = sum as u32;
        or |= r;
    }
    or
}

fn check_shape<T>(view: &ArrayView2<T>, name: &str) -> Result<()> {
    if view.nrows() == 0 {
        return Err(Error::value(format!(
            "{name} must contain at least one question (M >= 1)."
        )));
    }
    if view.ncols() > u32::MAX as usize {
        return Err(Error::value(format!("{name} has more than 2^32 - 1 trials per row.")));
    }
    Ok(())
}

/// The first flaw of the whole matrix, in scorio's order of checks.
fn worst_flaw<T: Entry>(view: &ArrayView2<T>) -> Option<Flaw> {
    (0..view.nrows())
        .into_par_iter()
        .with_grain(view.ncols() * 4)
        .map(|i| view.row(i).iter().filter_map(|x| x.check().err()).min())
        .reduce(|| None, |a, b| a.into_iter().chain(b).min())
}

fn flaw_error(flaw: Flaw, name: &str) -> Error {
    Error::value(match flaw {
        Flaw::NonFinite => format!("{name} must contain only finite values."),
        Flaw::NonInteger => format!("{name} must contain only integer-valued entries."),
        Flaw::OutOfInt64 => format!("{name} entries must fit in a signed 64-bit integer."),
    })
}

/// The error for a binary matrix that failed the fast path.
fn binary_error<T: Entry>(view: &ArrayView2<T>, name: &str) -> Error {
    match worst_flaw(view) {
        Some(f) => flaw_error(f, name),
        None => Error::value(format!("Entries of {name} must be integers in [0, 1].")),
    }
}

/// Per-row success counts of a binary matrix (entries must be 0 or 1).
pub fn binary_counts<T: Entry>(view: ArrayView2<T>) -> Result<Vec<u32>> {
    check_shape(&view, "R")?;
    let mut counts = vec![0u32; view.nrows()];
    if row_sums(&view, &mut counts) > 1 {
        return Err(binary_error(&view, "R"));
    }
    Ok(counts)
}

/// Row sums of the matrix into `out` (one per row), in parallel blocks; the
/// OR of every entry, so `> 1` means some entry was not 0 or 1.
fn row_sums<T: Entry>(view: &ArrayView2<T>, out: &mut [u32]) -> u64 {
    let n = view.ncols();
    let block = block_rows(n, std::mem::size_of::<T>());
    out.par_chunks_mut(block)
        .with_min_len(block_min_len(block, n, std::mem::size_of::<T>()))
        .enumerate()
        .map(|(b, out)| count_block(view, b * block, out))
        .reduce(|| 0, |a, b| a | b)
}

/// The histogram of per-row success counts of a binary matrix, without
/// materialising the counts when the histogram is small.
pub fn binary_count_histogram<T: Entry>(view: ArrayView2<T>) -> Result<Vec<u64>> {
    check_shape(&view, "R")?;
    let (m, n) = view.dim();
    let block = block_rows(n, std::mem::size_of::<T>()).min(m);
    let nblocks = m.div_ceil(block);
    let (hist, or) = (0..nblocks)
        .into_par_iter()
        .with_min_len(block_min_len(block, n, std::mem::size_of::<T>()))
        .fold(
            || (vec![0u64; 4 * (n + 1)], vec![0u32; block], 0u64),
            |(mut hist, mut buf, or), b| {
                let r0 = b * block;
                let rows = block.min(m - r0);
                let out = &mut buf[..rows];
                let o = count_block(&view, r0, out);
                if o <= 1 {
                    // Four interleaved tables: neighbouring rows with the same
                    // count do not wait on each other's increment.
                    let stride = n + 1;
                    let quads = out.chunks_exact(4);
                    let tail = quads.remainder();
                    for q in quads {
                        hist[q[0] as usize] += 1;
                        hist[stride + q[1] as usize] += 1;
                        hist[2 * stride + q[2] as usize] += 1;
                        hist[3 * stride + q[3] as usize] += 1;
                    }
                    for &c in tail {
                        hist[c as usize] += 1;
                    }
                }
                (hist, buf, or | o)
            },
        )
        .map(|(h, _, o)| {
            let stride = n + 1;
            let folded: Vec<u64> = (0..stride)
                .map(|c| h[c] + h[stride + c] + h[2 * stride + c] + h[3 * stride + c])
                .collect();
            (folded, o)
        })
        .reduce(
            || (vec![0u64; n + 1], 0u64),
            |(mut a, oa), (b, ob)| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x += y;
                }
                (a, oa | ob)
            },
        );
    if or > 1 {
        return Err(binary_error(&view, "R"));
    }
    Ok(hist)
}

/// Category counts materialised for a matrix of one repeated row at most
/// (1 GiB of u32); `dirichlet_of_matrix` needs none (docs/kernels.md, K11).
pub const MAX_REPEATED_COUNTS: usize = 1 << 28;

/// Per-row counts of each category `0..categories` (row-major, M x categories).
#[derive(Debug, Clone)]
pub struct CategoryCounts {
    pub counts: Vec<u32>,
    pub categories: usize,
    /// False when some entry is a valid int64 outside `0..categories`; then
    /// `counts` is meaningless and the caller raises its range error.
    pub in_range: bool,
    /// The moments of the counts, when the pass that counted them also
    /// summed them (`wide`: 8-byte integer rows of 3 or 4 categories).
    pub moments: Option<CountMoments>,
}

/// Category counts of consecutive C-order rows of `n` entries: wide
/// integers with at most 8 categories by bit sums in their own lanes
/// (`bit_rows_body`: at the binary intake's speed, where narrowing them to
/// bytes first costs a pass), other types and up to 16 categories through
/// bit planes (`planes`), entry by entry past that.
#[inline]
fn rows_categories<T: Entry>(flat: &[T], n: usize, categories: usize, out: &mut [u32]) -> bool {
    match categories {
        0..=4 if T::WIDE => bit_rows::<T, 2>(flat, n, out),
        5..=8 if T::WIDE => bit_rows::<T, 3>(flat, n, out),
        0..=4 => planes::plane_rows::<T, 2>(flat, n, categories, out),
        5..=8 => planes::plane_rows::<T, 3>(flat, n, categories, out),
        9..=16 => planes::plane_rows::<T, 4>(flat, n, categories, out),
        _ => out
            .chunks_mut(categories)
            .zip(flat.chunks_exact(n))
            .all(|(o, xs)| count_row_categories(xs.iter().copied(), o)),
    }
}

/// Category counts (3 to 8 categories) of consecutive rows of `n` integer
/// entries from the bits of each value: with `v = b0 + 2 b1 + 4 b2`, one
/// pass sums every product of bits, `S_m = sum_x prod_{i in m} b_i(x)` for
/// the non-empty bit sets m, and the count of value v follows by inclusion
/// and exclusion, `count(v) = sum_{m ⊇ v} (-1)^{|m \ v|} S_m` with `S_∅ = n`.
/// The pass is shifts, ANDs and adds in u64 lanes, which vectorise, where one
/// equality test per category or a table of increments do not; it reads
/// int64 rows at about the binary intake's speed. False if some entry is
/// outside `0..categories` (negative values wrap to huge ones and set a high
/// bit).
#[inline(always)]
fn bit_rows_body<T: Entry, const B: usize>(flat: &[T], n: usize, out: &mut [u32]) -> bool {
    let rows = flat.len() / n;
    let c = out.len() / rows.max(1);
    let high = !((1u64 << B) - 1);
    let mut bad = 0u64;
    for (o, row) in out.chunks_exact_mut(c).zip(flat.chunks_exact(n)) {
        // s[m] for bit sets m = 1..2^B (index m); s[0] = n.
        let mut s = [0u64; 8];
        for &x in row {
            let v = x.wide();
            bad |= v & high;
            let b0 = v & 1;
            let b1 = (v >> 1) & 1;
            s[1] += b0;
            s[2] += b1;
            s[3] += b0 & b1;
            if B == 3 {
                let b2 = (v >> 2) & 1;
                s[4] += b2;
                s[5] += b0 & b2;
                s[6] += b1 & b2;
                s[7] += b0 & b1 & b2;
            }
        }
        s[0] = n as u64;
        for (v, coef) in MOBIUS.iter().enumerate().take(1 << B) {
            let count: i64 = coef.iter().zip(&s).map(|(&k, &sm)| k * sm as i64).sum();
            match o.get_mut(v) {
                Some(slot) => *slot = count as u32,
                None => bad |= (count != 0) as u64,
            }
        }
    }
    bad == 0
}

/// `MOBIUS[v][m] = (-1)^{|m \ v|}` when the bit set m contains v, else 0.
const MOBIUS: [[i64; 8]; 8] = {
    let mut table = [[0i64; 8]; 8];
    let mut v = 0;
    while v < 8 {
        let mut m = 0;
        while m < 8 {
            if m & v == v {
                table[v][m] = if (m ^ v).count_ones() % 2 == 0 { 1 } else { -1 };
            }
            m += 1;
        }
        v += 1;
    }
    table
};

/// Count one row's categories (any stride); false if some entry is not in
/// `0..categories`.
#[inline]
fn count_row_categories<T: Entry>(row: impl Iterator<Item = T>, out: &mut [u32]) -> bool {
    let c = out.len();
    out.fill(0);
    let mut ok = true;
    for x in row {
        match x.small() {
            Some(v) if (v as usize) < c => out[v as usize] += 1,
            _ => ok = false,
        }
    }
    ok
}

/// Validate every entry (finite, integer, fits int64) and count categories per
/// row. Entries outside `0..categories` give `in_range = false`, not an error,
/// because scorio checks other arguments before it reports them.
pub fn category_counts<T: Entry>(view: ArrayView2<T>, categories: usize, name: &str) -> Result<CategoryCounts> {
    let (m, n) = view.dim();
    if categories == 0 {
        return Err(Error::value("categories must be >= 1"));
    }
    if m > 1 && view.strides()[0] == 0 {
        // One row repeated (`np.broadcast_to`): count it once, then copy,
        // unless the copies would not fit (1e9 rows of 3 categories are
        // 12 GB): then a clear error, before anything is allocated.
        if m.saturating_mul(categories) > MAX_REPEATED_COUNTS {
            let gb = (m as f64) * (categories as f64) * 4e-9;
            return Err(Error::value(format!(
                "{name} repeats one row {m} times (a zero row stride, as np.broadcast_to makes); its \
                 category counts row by row would need {gb:.1} GB: pass the distinct rows instead"
            )));
        }
        let one = category_counts(view.slice(s![..1, ..]), categories, name)?;
        return Ok(CategoryCounts {
            counts: one.counts.repeat(m),
            moments: None,
            ..one
        });
    }
    let mut counts = vec![0u32; m * categories];
    if m == 0 {
        return Ok(CategoryCounts {
            counts,
            categories,
            in_range: true,
            moments: None,
        });
    }
    let block = block_rows(n, std::mem::size_of::<T>());
    if let Some(words) = wide_count_words(&view, categories) {
        let parts: Vec<(bool, wide::Sums)> = counts
            .par_chunks_mut(block * categories)
            .with_min_len(block_min_len(block, n * categories, 8))
            .enumerate()
            .map(|(b, out)| {
                let r0 = b * block;
                let mut sums = wide::Sums::default();
                let ok = wide::count_rows(&words[r0 * n..(r0 + out.len() / categories) * n], n, out, &mut sums);
                (ok, sums)
            })
            .collect();
        if parts.iter().all(|(ok, _)| *ok) {
            let mut total = wide::Sums::default();
            parts.iter().for_each(|(_, s)| total.merge(s));
            return Ok(CategoryCounts {
                counts,
                categories,
                in_range: true,
                moments: Some(total.moments(categories, n as u64)),
            });
        }
        return out_of_range(&view, counts, categories, name);
    }
    let ok = if categories <= 2 {
        // Binary fast path: one sum per row gives both counts.
        let mut ones = vec![0u32; m];
        let or = row_sums(&view, &mut ones);
        for (row, &s) in counts.chunks_mut(categories).zip(&ones) {
            row[0] = (n as u32).wrapping_sub(s);
            if categories == 2 {
                row[1] = s;
            }
        }
        or <= 1 && (categories == 2 || ones.iter().all(|&s| s == 0))
    } else {
        counts
            .par_chunks_mut(block * categories)
            .with_min_len(block_min_len(block, n * categories, std::mem::size_of::<T>()))
            .enumerate()
            .map(|(b, out)| {
                let r0 = b * block;
                let sub = view.slice(s![r0..r0 + out.len() / categories, ..]);
                if sub.ncols() > 1 && sub.nrows() > 1 && sub.strides()[0] == 1 {
                    // Fortran order: walk contiguous columns into the row tables.
                    out.fill(0);
                    let mut ok = true;
                    for col in sub.columns() {
                        for (i, &x) in col.iter().enumerate() {
                            match x.small() {
                                Some(v) if (v as usize) < categories => out[i * categories + v as usize] += 1,
                                _ => ok = false,
                            }
                        }
                    }
                    return ok;
                }
                if let (Some(flat), true) = (sub.as_slice(), n > 0) {
                    return rows_categories(flat, n, categories, out);
                }
                out.chunks_mut(categories).enumerate().all(|(i, o)| {
                    let row = view.row(r0 + i);
                    match row.as_slice() {
                        Some(xs) if n > 0 => rows_categories(xs, n, categories, o),
                        _ => count_row_categories(row.iter().copied(), o),
                    }
                })
            })
            .reduce(|| true, |a, b| a && b)
    };
    if ok {
        return Ok(CategoryCounts {
            counts,
            categories,
            in_range: true,
            moments: None,
        });
    }
    out_of_range(&view, counts, categories, name)
}

/// Category counts of a C-order matrix block by block, each block folded
/// into a per-task accumulator (`fold(acc, counts)`, the block's counts
/// row-major `rows x categories`) and the accumulators merged: the counts
/// are never held for the whole matrix, only a block's (about 256 KiB of
/// input, its counts in L2) at a time. For kernels that need only a small
/// summary of the counts (Max@k's level histograms; docs/kernels.md, K12),
/// this spares writing the counts of every row and reading them back.
/// Merging must not depend on the order (integer tables). None for another
/// layout, no rows or entries, more than 16 categories, an entry outside
/// `0..categories` or a flaw (the caller takes `category_counts`, which
/// reports it).
pub fn fold_category_counts<T: Entry, A: Send>(
    view: ArrayView2<T>,
    categories: usize,
    identity: impl Fn() -> A + Sync + Send,
    fold: impl Fn(&mut A, &[u32]) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> Option<A> {
    let flat = foldable(&view, categories)?;
    let count = block_counter(&view, flat, categories);
    fold_blocks(
        &view,
        categories,
        categories,
        0,
        |rows, out, _| count(rows, out),
        identity,
        fold,
        merge,
    )
}

/// Cumulative level counts of a C-order matrix block by block, folded like
/// `fold_category_counts`: per row, `F_l` = the entries whose category's
/// level (`level_of[c]`) is at most l, for the `levels` levels below the
/// top (Max@k needs only these; docs/kernels.md, K12). One-byte entries
/// and floats are counted per level straight from the bytes
/// (`planes::level_rows`) where the CPU allows; otherwise, and for
/// integers wider than a byte (whose category count runs in their own
/// lanes), categories are counted and summed per level. None where `fold_category_counts`
/// declines.
pub fn fold_level_counts<T: Entry, A: Send>(
    view: ArrayView2<T>,
    level_of: &[usize],
    levels: usize,
    identity: impl Fn() -> A + Sync + Send,
    fold: impl Fn(&mut A, &[u32]) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> Option<A> {
    let categories = level_of.len();
    let flat = foldable(&view, categories)?;
    let n = view.ncols();
    if !T::WIDE && planes::level_rows_available(categories, levels) {
        let count = |rows: std::ops::Range<usize>, out: &mut [u32], _: &mut [u32]| {
            planes::level_rows(&flat[rows.start * n..rows.end * n], n, level_of, levels, out) == Some(true)
        };
        return fold_blocks(&view, categories, levels, 0, count, identity, fold, merge);
    }
    let count = block_counter(&view, flat, categories);
    let by_levels = |rows: std::ops::Range<usize>, out: &mut [u32], tmp: &mut [u32]| {
        let tmp = &mut tmp[..rows.len() * categories];
        count(rows, tmp) && {
            levels_of_counts(tmp, level_of, levels, out);
            true
        }
    };
    fold_blocks(&view, categories, levels, categories, by_levels, identity, fold, merge)
}

/// Per row of category counts (`counts`, `level_of.len()` a row), the
/// cumulative level counts `F_l` for l < `levels` into `out` (`levels` a
/// row): each count added to its category's level, then summed upwards.
pub fn levels_of_counts(counts: &[u32], level_of: &[usize], levels: usize, out: &mut [u32]) {
    let c = level_of.len();
    for (row, f) in counts.chunks_exact(c).zip(out.chunks_exact_mut(levels)) {
        f.fill(0);
        for (&x, &l) in row.iter().zip(level_of) {
            if let Some(slot) = f.get_mut(l) {
                *slot += x;
            }
        }
        for l in 1..levels {
            f[l] += f[l - 1];
        }
    }
}

/// The entries of a C-order matrix that `fold_category_counts` can take.
fn foldable<'a, T: Entry>(view: &ArrayView2<'a, T>, categories: usize) -> Option<&'a [T]> {
    let flat = view.to_slice()?;
    let (m, n) = view.dim();
    (m > 0 && n > 0 && (1..=16).contains(&categories)).then_some(flat)
}

/// The category count of a range of rows of `flat` (`categories` a row).
fn block_counter<'a, T: Entry>(
    view: &ArrayView2<'a, T>,
    flat: &'a [T],
    categories: usize,
) -> impl Fn(std::ops::Range<usize>, &mut [u32]) -> bool + Sync + Send + 'a {
    let n = view.ncols();
    // 8-byte integer rows of 3 or 4 categories: the four-rows-at-a-time
    // count `category_counts` uses (its moments are not needed here).
    let words = wide_count_words(view, categories);
    move |rows: std::ops::Range<usize>, out: &mut [u32]| match words {
        Some(w) => wide::count_rows(&w[rows.start * n..rows.end * n], n, out, &mut wide::Sums::default()),
        None => rows_categories(&flat[rows.start * n..rows.end * n], n, categories, out),
    }
}

/// Blocks of about 256 KiB of a matrix's rows, each counted by `count`
/// (rows, `width` slots a row out, `scratch` slots a row of scratch) and
/// folded into one accumulator per thread; None if a count fails.
#[allow(clippy::too_many_arguments)]
fn fold_blocks<T: Entry, A: Send>(
    view: &ArrayView2<T>,
    categories: usize,
    width: usize,
    scratch: usize,
    count: impl Fn(std::ops::Range<usize>, &mut [u32], &mut [u32]) -> bool + Sync + Send,
    identity: impl Fn() -> A + Sync + Send,
    fold: impl Fn(&mut A, &[u32]) + Sync + Send,
    merge: impl Fn(A, A) -> A + Sync + Send,
) -> Option<A> {
    let (m, n) = view.dim();
    let block = block_rows(n, std::mem::size_of::<T>()).min(m);
    par::fold_per_thread(
        m.div_ceil(block),
        par::intake_ns(block * (n * categories).max(1) * std::mem::size_of::<T>()),
        || (identity(), vec![0u32; block * width], vec![0u32; block * scratch]),
        |(acc, buf, tmp), b| {
            let rows = block.min(m - b * block);
            let out = &mut buf[..rows * width];
            let good = count(b * block..b * block + rows, out, tmp);
            if good {
                fold(acc, out);
            }
            good
        },
        |(a, buf, tmp), (b, _, _)| (merge(a, b), buf, tmp),
    )
    .map(|(acc, _, _)| acc)
}

/// The count moments (docs/kernels.md, K11) of a C-order matrix's rows,
/// with its counts folded block by block (`fold_category_counts`), never
/// written out: Bayes@N and Avg need only these. 8-byte integer rows of 3
/// or 4 categories sum them in the counting pass itself (`wide::row_moments`).
/// None where the count declines or meets an entry outside `0..categories`.
pub fn category_moments<T: Entry>(view: ArrayView2<T>, categories: usize) -> Option<CountMoments> {
    let (m, n) = view.dim();
    if let Some(words) = wide_count_words(&view, categories) {
        let block = block_rows(n, 8);
        let sums = par::fold_per_thread(
            m.div_ceil(block),
            par::intake_ns(block * (n * categories).max(1) * 8),
            wide::Sums::default,
            |sums, b| {
                let rows = b * block..(b * block + block).min(m);
                wide::row_moments(&words[rows.start * n..rows.end * n], n, categories, sums)
            },
            |mut a, b| {
                a.merge(&b);
                a
            },
        )?;
        return Some(sums.moments(categories, n as u64));
    }
    let n = n as u64;
    fold_category_counts(
        view,
        categories,
        || CountMoments::zero(categories),
        |m, counts| m.add_block(counts, n),
        |mut a, b| {
            a.merge(&b);
            a
        },
    )
}

/// The result of a pass that met an entry outside `0..categories`: the
/// matrix's worst flaw as an error, else counts marked out of range.
fn out_of_range<T: Entry>(
    view: &ArrayView2<T>,
    counts: Vec<u32>,
    categories: usize,
    name: &str,
) -> Result<CategoryCounts> {
    if let Some(f) = worst_flaw(view) {
        return Err(flaw_error(f, name));
    }
    Ok(CategoryCounts {
        counts,
        categories,
        in_range: false,
        moments: None,
    })
}

/// The 8-byte integer words of a C-order matrix that `wide::count_rows`
/// counts (3 or 4 categories, rows of fewer than 2^16 entries: its 16-bit
/// fields), or None.
fn wide_count_words<'a, T: Entry>(view: &ArrayView2<'a, T>, categories: usize) -> Option<&'a [u64]> {
    wide_words(view).filter(|_| (3..=4).contains(&categories) && view.ncols() < 1 << 16)
}

/// The entries of a C-order matrix of 8-byte integers as u64 words (the
/// bit pattern; negative values become huge ones, flagged by `wide`).
fn wide_words<'a, T: Entry>(view: &ArrayView2<'a, T>) -> Option<&'a [u64]> {
    if !T::WIDE || std::mem::size_of::<T>() != 8 || view.ncols() == 0 {
        return None;
    }
    let flat = view.to_slice()?;
    // SAFETY: WIDE entries are the integer types, and the 8-byte ones (i64,
    // u64) have the size, alignment and every bit pattern of u64.
    Some(unsafe { std::slice::from_raw_parts(flat.as_ptr() as *const u64, flat.len()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{array, Array2, ShapeBuilder};

    /// The folded moments are those of the written counts, across blocks
    /// and for every entry type, 8-byte rows of 3-4 categories (summed in
    /// the count itself) included; other layouts and entries outside 0..C
    /// are declined.
    #[test]
    fn folded_moments_are_the_counts_moments() {
        let mut next = crate::testutil::xorshift(5);
        for (m, n, c) in [
            (3usize, 5usize, 2usize),
            (70_000, 8, 3),
            (5000, 16, 4),
            (300, 200, 9),
            (9000, 3, 16),
        ] {
            let r = Array2::from_shape_fn((m, n), |_| (next() % c as u64) as u8);
            let counts = category_counts(r.view(), c, "R").unwrap();
            let want = CountMoments::of_rows(&counts.counts, None, c, n as u64);
            assert_eq!(category_moments(r.view(), c), Some(want.clone()), "m={m} n={n} c={c}");
            assert_eq!(category_moments(r.mapv(i32::from).view(), c), Some(want.clone()));
            assert_eq!(category_moments(r.mapv(f64::from).view(), c), Some(want.clone()));
            assert_eq!(category_moments(r.mapv(i64::from).view(), c), Some(want.clone()));
            assert_eq!(category_moments(r.mapv(u64::from).view(), c), Some(want));
        }
        let mut r = Array2::from_shape_fn((50, 6), |(i, j)| ((i + j) % 3) as u8);
        assert!(category_moments(r.t(), 3).is_none());
        r[[31, 4]] = 3;
        assert!(category_moments(r.view(), 3).is_none());
        // 8-byte rows that `wide` counts (n % 4 == 0 on AVX2, else
        // portable), a bad entry in the last block of several.
        for n in [8usize, 6] {
            let mut w = Array2::from_shape_fn((40_000, n), |(i, j)| ((i + j) % 3) as i64);
            assert!(category_moments(w.view(), 3).is_some());
            w[[39_999, n - 1]] = -1;
            assert!(category_moments(w.view(), 3).is_none(), "n = {n}");
            assert!(category_moments(w.view(), 4).is_none(), "n = {n}");
        }
    }

    #[test]
    fn counts_rows_in_every_layout() {
        let a = array![[1u8, 0, 1], [0, 0, 0], [1, 1, 1]];
        assert_eq!(binary_counts(a.view()).unwrap(), vec![2, 0, 3]);
        let f = Array2::from_shape_vec((3, 3).f(), vec![1u8, 0, 1, 0, 0, 1, 1, 0, 1]).unwrap();
        assert_eq!(binary_counts(f.view()).unwrap(), vec![2, 0, 3]);
        let strided = a.slice(s![..;2, ..;2]);
        assert_eq!(binary_counts(strided).unwrap(), vec![2, 2]);
        let reversed = a.slice(s![..;-1, ..]);
        assert_eq!(binary_counts(reversed).unwrap(), vec![3, 0, 2]);
    }

    #[test]
    fn byte_rows_sum_past_the_lane_flush() {
        let long = Array2::from_shape_fn((2, 20_001), |(i, j)| (i == 1 || j % 3 == 0) as u8);
        assert_eq!(binary_counts(long.view()).unwrap(), vec![6_667, 20_001]);
        let b = long.mapv(|x| x == 1);
        assert_eq!(binary_counts(b.view()).unwrap(), vec![6_667, 20_001]);
        let mut signed = long.mapv(|x| x as i8);
        signed[[0, 19_999]] = -1;
        assert!(binary_counts(signed.view()).is_err());
        let cc = category_counts(long.view(), 2, "R").unwrap();
        assert_eq!(cc.counts, vec![13_334, 6_667, 0, 20_001]);
    }

    #[test]
    fn histogram_matches_counts() {
        let a = Array2::from_shape_fn((1000, 7), |(i, j)| ((i * 7 + j) % 3 == 0) as u8);
        let counts = binary_counts(a.view()).unwrap();
        let hist = binary_count_histogram(a.view()).unwrap();
        for (c, &h) in hist.iter().enumerate() {
            assert_eq!(counts.iter().filter(|&&x| x as usize == c).count() as u64, h);
        }
    }

    #[test]
    fn reports_flaws_in_scorio_order() {
        let a = array![[0.5f64, 2.0], [f64::NAN, 1.0]];
        assert_eq!(
            binary_counts(a.view()).unwrap_err(),
            Error::value("R must contain only finite values.")
        );
        let b = array![[0.5f64, 2.0]];
        assert_eq!(
            binary_counts(b.view()).unwrap_err(),
            Error::value("R must contain only integer-valued entries.")
        );
        let c = array![[1e19f64, 2.0]];
        assert_eq!(
            binary_counts(c.view()).unwrap_err(),
            Error::value("R entries must fit in a signed 64-bit integer.")
        );
        let d = array![[-1i32, 0]];
        assert_eq!(
            binary_counts(d.view()).unwrap_err(),
            Error::value("Entries of R must be integers in [0, 1].")
        );
    }

    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    #[test]
    fn avx2_and_baseline_loops_agree() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let a = Array2::from_shape_fn((97, 37), |(i, j)| ((i * 31 + j * 17) % 3) as i64);
        let b = a.mapv(|x| (x == 1) as i64);
        let f = b.mapv(|x| x as f64);
        let mut o1 = vec![0u32; 97];
        let mut o2 = vec![0u32; 97];
        for view in [b.view(), b.slice(s![.., ..;2])] {
            let or1 = count_block_body(&view, 0, &mut o1);
            // SAFETY: AVX2 is present (checked above).
            let or2 = unsafe { count_block_avx2(&view, 0, &mut o2) };
            assert_eq!((or1, &o1), (or2, &o2));
        }
        let or1 = count_block_body(&f.view(), 0, &mut o1);
        let or2 = unsafe { count_block_avx2(&f.view(), 0, &mut o2) };
        assert_eq!((or1, &o1), (or2, &o2));
        let flat = a.as_slice().unwrap();
        let mut c1 = vec![0u32; 97 * 3];
        let mut c2 = vec![0u32; 97 * 3];
        let ok1 = bit_rows_body::<i64, 2>(flat, 37, &mut c1);
        let ok2 = unsafe { bit_rows_avx2::<i64, 2>(flat, 37, &mut c2) };
        assert!(ok1 && ok2);
        assert_eq!(c1, c2);
    }

    #[test]
    fn bit_counts_match_the_row_path() {
        for (trials, cats) in [(300usize, 3usize), (16, 4), (9, 5), (40, 7)] {
            let a = Array2::from_shape_fn((30, trials), |(i, j)| ((i * 7 + j * j) % cats) as i64);
            let mut expect = vec![0u32; 30 * cats];
            for (i, row) in a.rows().into_iter().enumerate() {
                for &x in row {
                    expect[i * cats + x as usize] += 1;
                }
            }
            let got = category_counts(a.view(), cats, "R").unwrap();
            assert!(got.in_range, "{trials} x {cats}");
            assert_eq!(got.counts, expect, "{trials} x {cats}");
            assert_eq!(
                category_counts(a.mapv(|x| x as u32).view(), cats, "R").unwrap().counts,
                expect
            );
            // A value of the bit range but not a category (cats..2^B) is out of range.
            let mut over = a.clone();
            over[[3, 1]] = cats as i64;
            assert!(
                !category_counts(over.view(), cats, "R").unwrap().in_range,
                "{trials} x {cats}"
            );
        }
        // 63 trials and 8 categories, every integer type.
        let a = Array2::from_shape_fn((50, 63), |(i, j)| ((i * 7 + j * j) % 8) as i64);
        let wide = category_counts(a.view(), 8, "R").unwrap();
        let mut expect = vec![0u32; 50 * 8];
        for (i, row) in a.rows().into_iter().enumerate() {
            for &x in row {
                expect[i * 8 + x as usize] += 1;
            }
        }
        assert!(wide.in_range);
        assert_eq!(wide.counts, expect);
        assert_eq!(
            category_counts(a.mapv(|x| x as u16).view(), 8, "R").unwrap().counts,
            expect
        );
        assert_eq!(
            category_counts(a.mapv(|x| x as i8).view(), 8, "R").unwrap().counts,
            expect
        );
        assert_eq!(
            category_counts(a.mapv(|x| x as f64).view(), 8, "R").unwrap().counts,
            expect
        );
        let mut neg = a.clone();
        neg[[49, 62]] = -1;
        assert!(!category_counts(neg.view(), 8, "R").unwrap().in_range);
        let mut big = a.mapv(|x| x as u64);
        big[[0, 0]] = 263; // 263 = 256 + 7: must not alias category 7
        assert!(!category_counts(big.view(), 8, "R").unwrap().in_range);
        assert!(!category_counts(a.view(), 7, "R").unwrap().in_range);
    }

    #[test]
    fn categories_counted_and_ranges_flagged() {
        let a = array![[0i64, 2, 2, 1], [1, 1, 0, 0]];
        let cc = category_counts(a.view(), 3, "R").unwrap();
        assert!(cc.in_range);
        assert_eq!(cc.counts, vec![1, 1, 2, 2, 2, 0]);
        let cc = category_counts(a.view(), 2, "R").unwrap();
        assert!(!cc.in_range);
        let f = Array2::from_shape_vec((2, 4).f(), vec![0i64, 1, 2, 1, 2, 0, 1, 0]).unwrap();
        let cc = category_counts(f.view(), 3, "R").unwrap();
        assert_eq!(cc.counts, vec![1, 1, 2, 2, 2, 0]);
        assert!(!category_counts(f.view(), 2, "R").unwrap().in_range);
        let strided = a.slice(s![.., ..;2]);
        assert_eq!(category_counts(strided, 3, "R").unwrap().counts, vec![1, 0, 1, 1, 1, 0]);
        let floats = array![[0.0f32, -0.0, 2.0], [1.0, 1.0, 7.0]];
        let cc = category_counts(floats.view(), 8, "R").unwrap();
        assert_eq!(&cc.counts[..3], &[2, 0, 1]);
        assert!(cc.in_range);
        let wide = Array2::from_shape_fn((3, 50), |(i, j)| ((i + j) % 12) as i16);
        let cc = category_counts(wide.view(), 12, "R").unwrap();
        assert!(cc.in_range);
        assert_eq!(cc.counts.iter().map(|&x| x as usize).sum::<usize>(), 150);
        let bad = array![[0.0f32, f32::INFINITY]];
        assert!(category_counts(bad.view(), 3, "R0")
            .unwrap_err()
            .to_string()
            .starts_with("R0 must contain only finite"));
    }
}
