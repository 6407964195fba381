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

/// The `with_min_len` for items that each cost about `item_ns` nanoseconds.
#[inline]
pub fn min_len(item_ns: usize) -> usize {
    grain().div_ceil(item_ns.max(1)).max(1)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_len_covers_the_grain() {
        let g = grain();
        assert_eq!(min_len(g), 1);
        assert_eq!(min_len(1), g);
        assert_eq!(min_len(0), g);
        assert!(min_len(g / 3) * (g / 3) >= g);
        assert!(worth_splitting(2 * g) && !worth_splitting(g));
    }
}
