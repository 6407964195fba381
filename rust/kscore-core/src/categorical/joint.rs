//! The joint histogram of the rows' cumulative level counts (docs/kernels.md,
//! K13): how many rows have each vector `F_1 <= ... <= F_L` (F_l the trials
//! rewarded at level l or below, l < the top level), one slot per
//! non-decreasing vector, ranked in the combinatorial number system
//! `Σ_l C(F_l + l, l + 1)` (0-based l).
//!
//! Why: Max@k's posterior needs, over the rows, the histogram of each F_l
//! and the joint one of each pair (F_i, F_j); counted directly that is L
//! level and L(L-1)/2 pair increments a row into tables too large for the
//! first-level cache (3 + 3 a row into 100 KB at 4 categories and N = 64).
//! One slot per row in the joint table (47 905 slots, 190 KB of u32, at
//! those sizes) costs L table lookups and one increment, and the level
//! and pair tables are its marginals, summed once per call. Where the
//! table is larger than the rows justify (or L > 8), the caller counts the
//! level and pair tables directly (`maxk::LevelHistograms`).

use crate::categorical::maxk::LevelHistograms;

/// At most this many slots (256 KiB of u32): the table stays in the
/// second-level cache while the rows stream past.
pub(crate) const MAX_SLOTS: usize = 1 << 16;

/// Rows per slot before the joint table pays: clearing, merging and
/// summing its marginals cost a few slot visits each, a row one increment.
pub(crate) const ROWS_PER_SLOT: usize = 8;

/// The ranks of one bank's joint table.
pub(crate) struct JointTable {
    levels: usize,
    width: usize,
    /// `rank[l * width + f] = C(f + l, l + 1)`.
    rank: Vec<u32>,
    slots: usize,
}

/// A joint table being counted: u32 slots, spilled into u64 before they
/// could overflow (after 2^32 - 1 rows, so in practice never).
pub(crate) struct JointCounts {
    slots: Vec<u32>,
    rows: u64,
    spilled: Vec<u64>,
}

fn choose(n: usize, k: usize) -> Option<usize> {
    let mut c: usize = 1;
    for i in 0..k {
        c = c.checked_mul(n - i)? / (i + 1);
    }
    Some(c)
}

impl JointTable {
    /// The table of the level tables `lh` describes (at least one level below
    /// the top), if there are at most 8 such levels, it has at most
    /// `MAX_SLOTS` slots and there are at least `ROWS_PER_SLOT` rows per slot.
    pub(crate) fn new(lh: &LevelHistograms, rows: usize) -> Option<Self> {
        let (levels, width) = (lh.levels(), lh.width);
        if !(1..=8).contains(&levels) {
            return None;
        }
        // Non-decreasing vectors of `levels` values below `width`.
        let slots = choose(width - 1 + levels, levels)?;
        if slots > MAX_SLOTS || slots.saturating_mul(ROWS_PER_SLOT) > rows {
            return None;
        }
        let rank = (0..levels)
            .flat_map(|l| (0..width).map(move |f| choose(f + l, l + 1).expect("within the slots") as u32))
            .collect();
        Some(JointTable {
            levels,
            width,
            rank,
            slots,
        })
    }

    pub(crate) fn empty(&self) -> JointCounts {
        JointCounts {
            slots: vec![0; self.slots],
            rows: 0,
            spilled: Vec::new(),
        }
    }

    /// Adds the rows of `fs` (their F vectors, `levels` a row, each below
    /// the width).
    pub(crate) fn add(&self, fs: &[u32], acc: &mut JointCounts) {
        let rows = (fs.len() / self.levels) as u64;
        if acc.rows + rows > u32::MAX as u64 {
            acc.spill();
        }
        acc.rows += rows;
        match self.levels {
            1 => self.add_l::<1>(fs, &mut acc.slots),
            2 => self.add_l::<2>(fs, &mut acc.slots),
            3 => self.add_l::<3>(fs, &mut acc.slots),
            4 => self.add_l::<4>(fs, &mut acc.slots),
            5 => self.add_l::<5>(fs, &mut acc.slots),
            6 => self.add_l::<6>(fs, &mut acc.slots),
            7 => self.add_l::<7>(fs, &mut acc.slots),
            _ => self.add_l::<8>(fs, &mut acc.slots),
        }
    }

    /// One increment a row, at the rank of its F vector. F is non-decreasing
    /// (each level's categories include the ones below), so F_L < width
    /// bounds them all.
    fn add_l<const L: usize>(&self, fs: &[u32], slots: &mut [u32]) {
        let rank: [&[u32]; L] = std::array::from_fn(|l| &self.rank[l * self.width..(l + 1) * self.width]);
        for f in fs.chunks_exact(L) {
            assert!((f[L - 1] as usize) < self.width, "a row's counts exceed its trials");
            let mut at = 0usize;
            for l in 0..L {
                // SAFETY: f[l] <= f[L - 1] < width, the length of rank[l].
                at += unsafe { *rank[l].get_unchecked(f[l] as usize) } as usize;
            }
            // The rank of a non-decreasing vector below the width is below
            // the slot count; `slots` has that length (checked by indexing).
            slots[at] += 1;
        }
    }

    pub(crate) fn merge(mut a: JointCounts, b: JointCounts) -> JointCounts {
        if a.rows + b.rows > u32::MAX as u64 {
            a.spill();
        }
        a.rows += b.rows;
        a.slots.iter_mut().zip(&b.slots).for_each(|(x, &y)| *x += y);
        if !b.spilled.is_empty() {
            a.spilled.resize(a.slots.len(), 0);
            a.spilled.iter_mut().zip(&b.spilled).for_each(|(x, &y)| *x += y);
        }
        a
    }

    /// The level and pair tables of `LevelHistograms` (its `pairs` layout):
    /// the marginals of the joint table, visiting the vectors in rank order.
    pub(crate) fn histograms(&self, mut acc: JointCounts, lh: &LevelHistograms) -> Vec<u64> {
        acc.spill();
        let (l1, width) = (self.levels, self.width);
        let mut hist = lh.empty();
        let mut f = vec![0usize; l1];
        for (at, &h) in acc.spilled.iter().enumerate() {
            if h > 0 {
                debug_assert_eq!(at, (0..l1).map(|l| self.rank[l * width + f[l]] as usize).sum::<usize>());
                for (l, &x) in f.iter().enumerate() {
                    hist[l * width + x] += h;
                }
                let mut p = l1 * width;
                for i in 0..l1 {
                    for j in i + 1..l1 {
                        hist[p + f[i] * width + f[j]] += h;
                        p += width * width;
                    }
                }
            }
            // The next vector in rank (colex) order: raise the first entry
            // that may rise, and clear those below it.
            if let Some(l) = (0..l1).find(|&l| f[l] < if l + 1 < l1 { f[l + 1] } else { width - 1 }) {
                f[l] += 1;
                f[..l].fill(0);
            }
        }
        hist
    }
}

impl JointCounts {
    /// Moves the u32 slots into the u64 ones.
    fn spill(&mut self) {
        self.spilled.resize(self.slots.len(), 0);
        for (w, s) in self.spilled.iter_mut().zip(self.slots.iter_mut()) {
            *w += *s as u64;
            *s = 0;
        }
        self.rows = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::categorical::bank::Levels;

    /// The joint table's marginals are the level and pair tables counted
    /// directly, integer for integer: every category count up to 8, every
    /// number of levels, ties and levels out of category order, across a
    /// spill into the u64 slots and a merge of two halves.
    #[test]
    fn marginals_are_the_direct_tables() {
        let mut next = crate::testutil::xorshift(3);
        for c in 1..=8usize {
            for n in [1usize, 2, 5, 9] {
                let weights: Vec<f64> = (0..c).map(|i| ((i * 5 + 3) % c) as f64).collect();
                let mut tied = weights.clone();
                tied[c - 1] = tied[0];
                for w in [weights, tied] {
                    let lv = Levels::from_weights(&w).unwrap();
                    if lv.len() < 2 {
                        continue;
                    }
                    let lh = LevelHistograms::new(&lv, c, n + 1, true);
                    let Some(joint) = JointTable::new(&lh, usize::MAX / 16) else {
                        assert!(lv.len() - 1 > 8 || choose(n + lv.len() - 1, lv.len() - 1).unwrap() > MAX_SLOTS);
                        continue;
                    };
                    let rows = 3000;
                    let mut counts = vec![0u32; rows * c];
                    for row in counts.chunks_exact_mut(c) {
                        // Skewed draws, so that some vectors repeat and some are rare.
                        for _ in 0..n {
                            let r = next();
                            row[(r % c as u64 * (r >> 60) / 15) as usize % c] += 1;
                        }
                    }
                    let mut direct = lh.empty();
                    let mut fs = Vec::new();
                    lh.add_counts(&counts, &mut fs, &mut direct);
                    let l = lh.levels();
                    let (head, tail) = fs.split_at(1234 * l);
                    let mut a = joint.empty();
                    joint.add(head, &mut a);
                    a.spill();
                    joint.add(&tail[..700 * l], &mut a);
                    let mut b = joint.empty();
                    joint.add(&tail[700 * l..], &mut b);
                    let merged = JointTable::merge(a, b);
                    assert_eq!(joint.histograms(merged, &lh), direct, "c={c} n={n} w={w:?}");
                }
            }
        }
    }

    /// Where the table pays and where it does not.
    #[test]
    fn used_where_small_and_outnumbered() {
        let lv = Levels::from_weights(&[0.0, 0.3, 0.6, 1.0]).unwrap();
        let lh = LevelHistograms::new(&lv, 4, 65, true);
        // 4 categories, N = 64: C(67, 3) = 47 905 slots.
        assert_eq!(JointTable::new(&lh, 8 * 47_905).map(|j| j.slots), Some(47_905));
        assert!(JointTable::new(&lh, 8 * 47_905 - 1).is_none());
        // N = 200: C(203, 3) slots, over the bound.
        assert!(JointTable::new(&LevelHistograms::new(&lv, 4, 201, true), usize::MAX / 16).is_none());
    }
}
