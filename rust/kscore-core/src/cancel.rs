//! Stopping long kernels early (the binding's Ctrl-C).
//!
//! A caller that wants the kernels running now to stop holds a [`Stop`]
//! while it waits for them; long kernels look at [`stopping`] between pieces
//! of work (per state, per coefficient, per block of rows: one atomic load)
//! and skip what is left, and a kernel that may have skipped anything returns
//! [`Error::Interrupted`] instead of a result: it opens a [`Watch`] before
//! its work and asks it at the end, so a stop that came and went while it
//! ran is still seen. Kernels that return plain values (per-state values,
//! curves) fill what they skipped with NaN: a caller that holds stops opens a
//! [`Watch`] around its whole call, as the binding's `enter` does, and
//! discards the result if the watch saw one.
//!
//! The state is process-wide, not per call: kernels run on rayon's shared
//! pool, where a worker does not know whose work it is doing. A stop thus
//! also interrupts other calls running at the same moment; their callers
//! (the binding) run them again once no stop is held, and as every result is
//! deterministic the rerun gives the same bits.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Low 32 bits: stops held now. High 32 bits: stops ever requested (wrapping),
/// so that a [`Watch`] sees one that was held and dropped while it looked away.
static STATE: AtomicU64 = AtomicU64::new(0);

const HELD: u64 = 0xffff_ffff;
const REQUESTED: u64 = 1 << 32;

/// Whether a stop is held now: the check long kernels make between pieces
/// of work (one atomic load).
#[inline]
pub fn stopping() -> bool {
    STATE.load(Ordering::Acquire) & HELD != 0
}

/// `Err(Error::Interrupted)` if a stop is held now.
#[inline]
pub fn check() -> Result<()> {
    if stopping() {
        Err(Error::Interrupted)
    } else {
        Ok(())
    }
}

/// A request that every kernel running now stop; held until dropped.
#[must_use = "the stop is released when dropped"]
pub struct Stop(());

impl Stop {
    pub fn new() -> Self {
        STATE.fetch_add(REQUESTED + 1, Ordering::AcqRel);
        Stop(())
    }
}

impl Default for Stop {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Stop {
    fn drop(&mut self) {
        STATE.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Opened before a piece of work that may skip items on [`stopping`]:
/// [`Watch::check`] at the end fails if any stop was requested since.
#[derive(Clone, Copy)]
pub struct Watch(u64);

impl Watch {
    #[inline]
    pub fn new() -> Self {
        Watch(STATE.load(Ordering::Acquire) >> 32)
    }

    /// Whether a stop was held at any moment since the watch was opened.
    #[inline]
    pub fn interrupted(&self) -> bool {
        let now = STATE.load(Ordering::Acquire);
        now >> 32 != self.0 || now & HELD != 0
    }

    /// `Err(Error::Interrupted)` if [`Watch::interrupted`].
    #[inline]
    pub fn check(&self) -> Result<()> {
        if self.interrupted() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }
}

impl Default for Watch {
    fn default() -> Self {
        Self::new()
    }
}
