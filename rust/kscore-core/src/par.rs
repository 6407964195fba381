//! When work goes to the thread pool (docs/threads.md).
//!
//! Handing a piece of work to rayon's pool and getting it back costs the
//! caller tens of microseconds when the pool's threads are asleep (they
//! sleep after a few microseconds idle), while a whole small call costs a
//! few microseconds. So every parallel iterator in the core is given
//! `with_min_len(par::min_len(cost))`: rayon never splits it into pieces
//! estimated below `grain()` nanoseconds of single-core work. An iterator
//! that is not split runs on the calling thread and never wakes the pool;
//! large inputs still split into as many pieces as there are threads.
//!
//! Splitting never changes a result: every parallel reduction in the core is
//! exact (integers) or collects per-item values in input order before a
//! fixed-order sum. `set_grain` lets tests check both sides bit for bit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, TryLockError};

use rayon::prelude::*;

/// Estimated single-core nanoseconds below which a piece of work is not
/// split off. Measured on the 2-core development machine (docs/threads.md):
/// a hand-off to a sleeping pool costs 20-60 us, so a piece must be worth
/// several times that before a second thread pays.
pub const DEFAULT_GRAIN_NS: usize = 200_000;

static GRAIN_NS: AtomicUsize = AtomicUsize::new(DEFAULT_GRAIN_NS);

/// The current grain in estimated nanoseconds.
#[inline]
pub fn grain() -> usize {
    GRAIN_NS.load(Ordering::Relaxed)
}

/// Set the grain (0 restores the default); returns the previous value. For
/// tests and measurements: results never depend on it.
pub fn set_grain(ns: usize) -> usize {
    let ns = if ns == 0 { DEFAULT_GRAIN_NS } else { ns };
    GRAIN_NS.swap(ns, Ordering::Relaxed)
}

/// Estimated single-core nanoseconds of the smallest piece a call is cut
/// into once it splits at all (`split_len`): a piece taken by an awake pool
/// thread costs a steal of about a microsecond, so pieces of this size keep
/// that under a few percent while a call of a few milliseconds still spreads
/// over 16 or more threads (docs/threads.md, *Grain*).
pub const DEFAULT_PIECE_NS: usize = 25_000;

static PIECE_NS: AtomicUsize = AtomicUsize::new(DEFAULT_PIECE_NS);

/// The current piece: `DEFAULT_PIECE_NS` (or as set), never above the grain.
#[inline]
pub fn piece() -> usize {
    PIECE_NS.load(Ordering::Relaxed).min(grain())
}

/// Set the piece (0 restores the default); returns the previous value. For
/// measurements (benches/grain_scan.py): results never depend on it.
pub fn set_piece(ns: usize) -> usize {
    let ns = if ns == 0 { DEFAULT_PIECE_NS } else { ns };
    PIECE_NS.swap(ns, Ordering::Relaxed)
}

/// The `with_min_len` for items that each cost about `item_ns` nanoseconds.
#[inline]
pub fn min_len(item_ns: usize) -> usize {
    grain().div_ceil(item_ns.max(1)).max(1)
}

/// The `with_min_len` for `items` items of about `item_ns` nanoseconds
/// each: all of them in one piece (on the calling thread, the pool never
/// woken) when their total is below twice the grain, else pieces of about
/// `piece()` nanoseconds, so that a call of a few milliseconds uses every
/// thread (with `min_len` it would be cut only into grain-sized pieces:
/// 6 of 200 us for 1.2 ms of work, 6 threads of 16 busy).
#[inline]
pub fn split_len(items: usize, item_ns: usize) -> usize {
    let item_ns = item_ns.max(1);
    if !worth_splitting(items.saturating_mul(item_ns)) {
        return items.max(1);
    }
    piece().div_ceil(item_ns).max(1)
}

/// `with_min_len(split_len(len, item_ns))` on an indexed parallel iterator.
pub trait Grain: IndexedParallelIterator {
    fn with_grain(self, item_ns: usize) -> rayon::iter::MinLen<Self> {
        let n = self.len();
        self.with_min_len(split_len(n, item_ns))
    }
}

impl<I: IndexedParallelIterator> Grain for I {}

/// Whether `total_ns` of work is worth splitting at all (for calls with no
/// `with_min_len`, such as sorts).
#[inline]
pub fn worth_splitting(total_ns: usize) -> bool {
    total_ns >= 2 * grain()
}

/// Estimated nanoseconds to read and count `bytes` bytes of an outcome
/// matrix (about 10 GB/s on one core for every dtype's fast path).
#[inline]
pub fn intake_ns(bytes: usize) -> usize {
    bytes / 10
}

/// Folds the items `0..items` (of about `item_ns` nanoseconds each, split
/// as `split_len` says) into one
/// accumulator per pool thread that takes part, and merges those: `fold`
/// returns false to stop early (then None). Why: rayon's own `fold` makes
/// an accumulator for every piece it splits off (about twenty a call on a
/// large matrix), and a table of hundreds of KB costs fresh pages, zeroed
/// by the kernel, each time (docs/threads.md, "Accumulators"). The merge
/// order is not fixed, so accumulators must merge exactly (integer tables).
pub fn fold_per_thread<A: Send>(
    items: usize,
    item_ns: usize,
    identity: impl Fn() -> A + Sync + Send,
    fold: impl Fn(&mut A, usize) -> bool + Sync + Send,
    merge: impl Fn(A, A) -> A,
) -> Option<A> {
    let threads = rayon::current_num_threads();
    // One slot per pool thread and one for a caller outside the pool.
    let slots: Vec<Mutex<Option<A>>> = (0..=threads).map(|_| Mutex::new(None)).collect();
    // Items met while their thread's slot is held (only if `fold` itself
    // waited on the pool and the thread took another item meanwhile).
    let spare: Mutex<Vec<A>> = Mutex::new(Vec::new());
    let ok = (0..items).into_par_iter().with_grain(item_ns).all(|i| {
        let at = rayon::current_thread_index()
            .filter(|&t| t < threads)
            .unwrap_or(threads);
        match slots[at].try_lock() {
            Ok(mut slot) => fold(slot.get_or_insert_with(&identity), i),
            Err(TryLockError::Poisoned(e)) => fold(e.into_inner().get_or_insert_with(&identity), i),
            Err(TryLockError::WouldBlock) => {
                let mut acc = identity();
                let good = fold(&mut acc, i);
                spare.lock().unwrap_or_else(|e| e.into_inner()).push(acc);
                good
            }
        }
    });
    if !ok {
        return None;
    }
    let spare = spare.into_inner().unwrap_or_else(|e| e.into_inner());
    slots
        .into_iter()
        .filter_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .chain(spare)
        .reduce(merge)
        .or_else(|| Some(identity()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_calls_stay_whole_and_large_ones_split_into_pieces() {
        let (g, p) = (grain(), piece());
        assert!(p <= g);
        // Below twice the grain: one piece.
        assert_eq!(split_len(10, g / 10), 10);
        assert_eq!(split_len(0, 5), 1);
        // Past it: pieces of the piece's size, so that 16 threads share 16 grains.
        assert_eq!(split_len(1000, 2 * g / 100), p.div_ceil(2 * g / 100));
        let items = 16 * g / 1000;
        assert!(items / split_len(items, 1000) >= 16);
    }

    #[test]
    fn min_len_covers_the_grain() {
        let g = grain();
        assert_eq!(min_len(g), 1);
        assert_eq!(min_len(1), g);
        assert_eq!(min_len(0), g);
        assert!(min_len(g / 3) * (g / 3) >= g);
        assert!(worth_splitting(2 * g) && !worth_splitting(g));
    }

    #[test]
    fn per_thread_fold_sees_every_item_once() {
        for (items, item_ns) in [(0, 1), (1, 1), (1000, 1), (1000, 7_000), (1000, 5_000_000)] {
            let got = fold_per_thread(
                items,
                item_ns,
                Vec::new,
                |v: &mut Vec<usize>, i| {
                    v.push(i);
                    true
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .expect("no item stops it");
            let mut got = got;
            got.sort_unstable();
            assert_eq!(got, (0..items).collect::<Vec<_>>());
        }
        assert!(fold_per_thread(
            100,
            1_000_000,
            || 0u64,
            |s, i| {
                *s += i as u64;
                i != 57
            },
            |a, b| a + b
        )
        .is_none());
    }

    #[test]
    fn per_thread_fold_survives_nested_parallel_work() {
        // A fold that waits on the pool may take another item on the same
        // thread while its slot is held: that item gets a spare accumulator.
        let sum = fold_per_thread(
            64,
            1_000_000,
            || 0u64,
            |s, i| {
                let inner: u64 = (0..1000u32).into_par_iter().with_min_len(1).map(u64::from).sum();
                *s += inner + i as u64;
                true
            },
            |a, b| a + b,
        );
        assert_eq!(sum, Some(64 * 499_500 + 63 * 64 / 2));
    }
}
