//! One counting thread's cells (`Tally`): per model a row of slots indexed
//! by question code, each slot a cell's category counts and a bitmask of
//! the sample ids seen; and per question its attributes (`--cluster`,
//! `--by`). Threads count into tallies of their own, with codes from the
//! board's shared tables, and `finish` adds them up.

use super::{Halt, Ints};

/// Where a batch's ids of one axis come from.
#[derive(Clone, Copy)]
pub enum Ids<'a> {
    /// One code for every row (a file named for its model, a hive folder).
    Constant(u32),
    /// Per row an index into the batch's dictionary, and the dictionary's codes.
    Coded(&'a [i32], &'a [u32]),
}

impl Ids<'_> {
    fn len_ok(&self, n: usize) -> bool {
        match self {
            Ids::Constant(_) => true,
            Ids::Coded(idx, _) => idx.len() == n,
        }
    }

    /// The code of row `i`.
    #[inline]
    fn code(&self, i: usize) -> Result<u32, Halt> {
        match *self {
            Ids::Constant(c) => Ok(c),
            Ids::Coded(idx, map) => map.get(idx[i] as u32 as usize).copied().ok_or(Halt::Index),
        }
    }

    /// Whether rows `r..e` all have row `r`'s id.
    #[inline]
    fn same(&self, r: usize, e: usize) -> bool {
        match *self {
            Ids::Constant(_) => true,
            Ids::Coded(idx, _) => idx[r + 1..e].iter().all(|&x| x == idx[r]),
        }
    }
}

/// Slots per counted cell allowed before the board counts as sparse.
pub const SPARSE_SLOTS: usize = 4;
/// Slots always allowed (a small board is never sparse).
pub const FREE_SLOTS: usize = 1 << 22;
/// Sample ids (0..N-1) up to which a cell's bitmask of ids seen is kept.
pub const MAX_IDS: usize = 1024;

/// One model's cells: slot `i` is question code `lo + i`.
#[derive(Default)]
pub(super) struct ModelRow {
    pub lo: u32,
    pub len: u32,
    /// `len x categories` counts.
    pub counts: Vec<u32>,
    /// `len x words` bitmasks of the sample ids seen.
    pub seen: Vec<u64>,
}

impl ModelRow {
    /// Whether slot `s` holds a counted cell.
    #[inline]
    pub fn used(&self, s: usize, c: usize) -> bool {
        self.counts[s * c..s * c + c].iter().any(|&x| x > 0)
    }

    /// The row with `words` words of ids per slot (more than now).
    fn widened(&mut self, from: usize, to: usize) {
        if from == to || self.len == 0 {
            return;
        }
        let mut seen = vec![0u64; self.len as usize * to];
        for s in 0..self.len as usize {
            seen[s * to..s * to + from].copy_from_slice(&self.seen[s * from..s * from + from]);
        }
        self.seen = seen;
    }
}

trait Code: Copy {
    fn code(self) -> i64;
}
macro_rules! code {
    ($($t:ty),*) => {$(impl Code for $t { #[inline] fn code(self) -> i64 { self as i64 } })*};
}
code!(i8, u8, i16, i32, i64);

/// Call `$body` with `$x` bound to the slice of an `Ints`.
macro_rules! with_ints {
    ($ints:expr, $x:ident => $body:expr) => {
        match $ints {
            Ints::I8($x) => $body,
            Ints::U8($x) => $body,
            Ints::I16($x) => $body,
            Ints::I32($x) => $body,
            Ints::I64($x) => $body,
        }
    };
}

/// A run of one cell's rows with two categories and ids below 64: (rows, ones, ids seen).
#[inline]
fn one_word_run<V: Code, S: Code>(outcome: &[V], sample: &[S], ids: u64) -> Result<(u64, u64, u64), Halt> {
    let (mut ones, mut mask) = (0u64, 0u64);
    for (v, s) in outcome.iter().zip(sample) {
        let (v, s) = (v.code(), s.code());
        if v as u64 > 1 {
            return Err(Halt::Outcome);
        }
        if s as u64 >= ids {
            return Err(Halt::Sample);
        }
        let bit = 1u64 << (s & 63);
        if mask & bit != 0 {
            return Err(Halt::Duplicate);
        }
        mask |= bit;
        ones += v as u64;
    }
    Ok((outcome.len() as u64, ones, mask))
}

/// A run with two categories and no sample column: (rows, ones, 0).
#[inline]
fn binary_run<V: Code>(outcome: &[V]) -> Result<(u64, u64, u64), Halt> {
    let mut ones = 0u64;
    for v in outcome {
        let v = v.code();
        if v as u64 > 1 {
            return Err(Halt::Outcome);
        }
        ones += v as u64;
    }
    Ok((outcome.len() as u64, ones, 0))
}

/// Any other run: counts per category into `local`, ids seen into `seen`.
fn general_run<V: Code, S: Code>(
    outcome: &[V],
    sample: Option<(&[S], u64)>,
    local: &mut [u64],
    seen: &mut [u64],
) -> Result<(), Halt> {
    let c = local.len() as u64;
    for (i, v) in outcome.iter().enumerate() {
        let v = v.code();
        if v as u64 >= c {
            return Err(Halt::Outcome);
        }
        if let Some((s, ids)) = sample {
            let s = s[i].code();
            if s as u64 >= ids {
                return Err(Halt::Sample);
            }
            let (w, bit) = (s as usize >> 6, 1u64 << (s & 63));
            if seen[w] & bit != 0 {
                return Err(Halt::Duplicate);
            }
            seen[w] |= bit;
        }
        local[v as usize] += 1;
    }
    Ok(())
}

/// One thread's counts.
pub struct Tally {
    pub(super) categories: usize,
    /// Sample ids are `0..ids` (0: no sample column).
    ids: usize,
    /// Words of ids seen per slot now (grows up to `ids / 64` as larger ids come).
    pub(super) words: usize,
    pub(super) rows: Vec<ModelRow>,
    slots: usize,
    cells: usize,
    /// Per attribute, per question code: its value's code + 1 (0: none yet).
    pub(super) attributes: Vec<Vec<u32>>,
}

impl Tally {
    /// `ids`: sample ids are `0..ids` (0: no sample column, no duplicate
    /// check); `words`: the bitmask words a slot starts with (at least one
    /// where there are ids; more are added when a larger id comes);
    /// `attributes`: question attributes carried.
    pub fn new(categories: usize, ids: usize, words: usize, attributes: usize) -> Tally {
        let top = ids.div_ceil(64);
        Tally {
            categories: categories.max(1),
            ids,
            words: if ids == 0 { 0 } else { words.clamp(1, top) },
            rows: Vec::new(),
            slots: 0,
            cells: 0,
            attributes: vec![Vec::new(); attributes],
        }
    }

    /// Counted cells so far.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Count one batch: models, questions, outcomes, (with `ids > 0`) sample
    /// ids and one id column per attribute. On a `Halt` the counts are
    /// partial and the tally is not to be used further.
    pub fn add(
        &mut self,
        model: Ids<'_>,
        question: Ids<'_>,
        outcome: Ints<'_>,
        sample: Option<Ints<'_>>,
        attributes: &[Ids<'_>],
    ) -> Result<(), Halt> {
        let n = outcome.len();
        if !question.len_ok(n)
            || !model.len_ok(n)
            || sample.is_some_and(|s| s.len() != n)
            || (self.ids > 0) != sample.is_some()
            || attributes.len() != self.attributes.len()
            || attributes.iter().any(|a| !a.len_ok(n))
        {
            return Err(Halt::Length);
        }
        match sample {
            None => with_ints!(outcome, v => self.add_typed::<_, i8>(model, question, v, None, attributes)),
            Some(s) => {
                with_ints!(outcome, v => with_ints!(s, s => self.add_typed(model, question, v, Some(s), attributes)))
            }
        }
    }

    fn add_typed<V: Code, S: Code>(
        &mut self,
        model: Ids<'_>,
        question: Ids<'_>,
        outcome: &[V],
        sample: Option<&[S]>,
        attributes: &[Ids<'_>],
    ) -> Result<(), Halt> {
        let c = self.categories;
        let n = outcome.len();
        let (m_idx, q_idx) = (keys(&model), keys(&question));
        // Rows of one cell usually come together (a question's samples): each
        // run of equal ids is resolved to its cell once, counted in
        // registers and added to the cell once (a read-modify-write of the
        // cell per row would wait on the previous row's store).
        let mut local = vec![0u64; c];
        let mut seen = vec![0u64; self.words];
        let mut r = 0;
        while r < n {
            let e = run_end(q_idx, m_idx, r, n);
            let (m, q) = (model.code(r)?, question.code(r)?);
            if !attributes.is_empty() {
                self.attribute(q, attributes, r, e)?;
            }
            loop {
                if seen.len() != self.words {
                    seen = vec![0u64; self.words];
                }
                let bound = (self.words * 64).min(self.ids) as u64;
                let counted = match sample {
                    // Two categories, ids 0..63: a sum and one word of bits.
                    Some(s) if c == 2 && self.words == 1 => one_word_run(&outcome[r..e], &s[r..e], bound),
                    Some(s) => {
                        general_run(&outcome[r..e], Some((&s[r..e], bound)), &mut local, &mut seen).map(|()| (0, 0, 0))
                    }
                    None if c == 2 => binary_run(&outcome[r..e]),
                    None => general_run::<V, S>(&outcome[r..e], None, &mut local, &mut seen).map(|()| (0, 0, 0)),
                };
                match counted {
                    Ok((rows, ones, mask)) => {
                        if rows > 0 {
                            (local[0], local[1]) = (rows - ones, ones);
                            if !seen.is_empty() {
                                seen[0] = mask;
                            }
                        }
                        break;
                    }
                    Err(Halt::Sample) => {
                        // An id past the words held, within `ids`: more words, the run again.
                        let top = sample.map_or(-1, |s| s[r..e].iter().map(|x| x.code()).max().unwrap_or(-1));
                        if top < 0 || top as usize >= self.ids || (top as usize) < self.words * 64 {
                            return Err(Halt::Sample);
                        }
                        self.widen((top as usize + 1).div_ceil(64));
                        local.iter_mut().for_each(|x| *x = 0);
                    }
                    Err(h) => return Err(h),
                }
            }
            self.merge(m, q, &mut local, &mut seen)?;
            r = e;
        }
        Ok(())
    }

    /// Check and keep the attributes of question `q`'s rows `r..e`.
    fn attribute(&mut self, q: u32, attributes: &[Ids<'_>], r: usize, e: usize) -> Result<(), Halt> {
        for (held, ids) in self.attributes.iter_mut().zip(attributes) {
            if !ids.same(r, e) {
                return Err(Halt::Attribute);
            }
            let v = ids.code(r)? + 1;
            let q = q as usize;
            if held.len() <= q {
                held.resize((q + 1).max(2 * held.len()), 0);
            }
            match held[q] {
                0 => held[q] = v,
                x if x == v => {}
                _ => return Err(Halt::Attribute),
            }
        }
        Ok(())
    }

    /// `words` words of ids per slot from now on.
    pub(super) fn widen(&mut self, words: usize) {
        let words = words.min(self.ids.div_ceil(64));
        if words <= self.words {
            return;
        }
        for row in &mut self.rows {
            row.widened(self.words, words);
        }
        self.words = words;
    }

    /// Add a run's counts (and ids seen) to its cell, growing the model's
    /// row to hold it; `local` and `seen` are left zero.
    fn merge(&mut self, m: u32, q: u32, local: &mut [u64], seen: &mut [u64]) -> Result<(), Halt> {
        let (c, words) = (self.categories, self.words);
        if m as usize >= self.rows.len() {
            self.rows.resize_with(m as usize + 1, ModelRow::default);
        }
        let row = &self.rows[m as usize];
        let slot = match q.wrapping_sub(row.lo) {
            s if s < row.len => s as usize,
            _ => self.grow(m as usize, q)?,
        };
        let row = &mut self.rows[m as usize];
        let cell = &mut row.counts[slot * c..slot * c + c];
        let mut new_cell = cell.iter().all(|&x| x == 0);
        if words > 0 {
            for (stored, local) in row.seen[slot * words..slot * words + words]
                .iter_mut()
                .zip(seen.iter_mut())
            {
                if *stored & *local != 0 {
                    return Err(Halt::Duplicate);
                }
                new_cell &= *stored == 0;
                *stored |= *local;
                *local = 0;
            }
        }
        for (x, add) in cell.iter_mut().zip(local.iter_mut()) {
            *x = u32::try_from(*x as u64 + *add).map_err(|_| Halt::Overflow)?;
            *add = 0;
        }
        self.cells += new_cell as usize;
        Ok(())
    }

    /// Grow model row `at` to hold question `q`; its slot.
    #[cold]
    fn grow(&mut self, at: usize, q: u32) -> Result<usize, Halt> {
        let (c, words) = (self.categories, self.words);
        let row = &mut self.rows[at];
        let (lo, hi) = if row.len == 0 {
            (q, q as u64 + 1)
        } else {
            (row.lo.min(q), (row.lo as u64 + row.len as u64).max(q as u64 + 1))
        };
        // Room to grow by half again on the side that grew (rows usually
        // fill in question order), but not below code 0.
        let span = hi - lo as u64;
        let extra = (span / 2).max(16);
        let (new_lo, new_hi) = if q < row.lo && row.len > 0 {
            ((lo as u64).saturating_sub(extra) as u32, hi)
        } else {
            (lo, hi + extra)
        };
        let new_len = (new_hi - new_lo as u64) as usize;
        let added = new_len - row.len as usize;
        if self.slots + added > FREE_SLOTS.max(SPARSE_SLOTS * (self.cells + 1)) {
            return Err(Halt::Sparse);
        }
        let shift = if row.len > 0 { (row.lo - new_lo) as usize } else { 0 };
        let mut counts = vec![0u32; new_len * c];
        let mut seen = vec![0u64; new_len * words];
        counts[shift * c..(shift + row.len as usize) * c].copy_from_slice(&row.counts);
        seen[shift * words..(shift + row.len as usize) * words].copy_from_slice(&row.seen);
        row.counts = counts;
        row.seen = seen;
        row.lo = new_lo;
        row.len = new_len as u32;
        self.slots += added;
        Ok((q - new_lo) as usize)
    }
}

/// The per-row keys runs are told apart by (None: one id for every row).
#[inline]
fn keys<'a>(ids: &Ids<'a>) -> Option<&'a [i32]> {
    match *ids {
        Ids::Constant(_) => None,
        Ids::Coded(idx, _) => Some(idx),
    }
}

/// The end of the run of rows from `r` with row `r`'s question and model.
#[inline]
fn run_end(q: Option<&[i32]>, m: Option<&[i32]>, r: usize, n: usize) -> usize {
    let mut e = r + 1;
    match (q, m) {
        (Some(q), None) => {
            while e < n && q[e] == q[r] {
                e += 1;
            }
        }
        (Some(q), Some(m)) => {
            while e < n && q[e] == q[r] && m[e] == m[r] {
                e += 1;
            }
        }
        (None, Some(m)) => {
            while e < n && m[e] == m[r] {
                e += 1;
            }
        }
        (None, None) => e = n,
    }
    e
}

/// Add row `b` into row `a` (same model, both widened to `words`); a
/// sample id counted in both is a repeat.
pub(super) fn add_rows(a: ModelRow, b: ModelRow, c: usize, words: usize) -> Result<ModelRow, Halt> {
    if b.len == 0 {
        return Ok(a);
    }
    if a.len == 0 {
        return Ok(b);
    }
    let lo = a.lo.min(b.lo);
    let hi = (a.lo as u64 + a.len as u64).max(b.lo as u64 + b.len as u64);
    let len = (hi - lo as u64) as usize;
    let (mut out, other) = if a.lo == lo && a.len as usize == len {
        (a, b)
    } else if b.lo == lo && b.len as usize == len {
        (b, a)
    } else {
        let mut out = ModelRow {
            lo,
            len: len as u32,
            counts: vec![0u32; len * c],
            seen: vec![0u64; len * words],
        };
        place(&mut out, &a, c, words)?;
        (out, b)
    };
    place(&mut out, &other, c, words)?;
    Ok(out)
}

/// Add `src`'s slots into `dst` (whose span covers them).
fn place(dst: &mut ModelRow, src: &ModelRow, c: usize, words: usize) -> Result<(), Halt> {
    let shift = (src.lo - dst.lo) as usize;
    let n = src.len as usize;
    for (x, add) in dst.counts[shift * c..(shift + n) * c].iter_mut().zip(&src.counts) {
        *x = x.checked_add(*add).ok_or(Halt::Overflow)?;
    }
    for (x, add) in dst.seen[shift * words..(shift + n) * words].iter_mut().zip(&src.seen) {
        if *x & *add != 0 {
            return Err(Halt::Duplicate);
        }
        *x |= *add;
    }
    Ok(())
}
