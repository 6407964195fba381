//! Long-format rows (model, question, sample, outcome) to per-(model,
//! question) category counts: the leaderboard's counting of Parquet files
//! whose batches arrive as Arrow buffers (docs/leaderboard.md, *How it
//! reads*).
//!
//! The model and question columns come as dictionary arrays: per batch, a
//! dictionary of strings and an index per row. Each dictionary is mapped to
//! the board's codes once (`Interner`: a string table; a dictionary already
//! seen, as the same questions in every model's file, is recognised by its
//! bytes and not hashed again), so a row costs two array lookups, not a
//! string hash. A cell lives in its model's row of slots, indexed by
//! question code; its counts and a bitmask of the sample ids seen sit side
//! by side. Anything the counting cannot vouch for (an outcome outside
//! `0..C`, a sample id outside `0..ids`, a repeated sample id, an index
//! outside its dictionary, a board too sparse for rows of slots, a count
//! past `u32`) stops it with a `Halt` that says why: the caller then counts
//! the input the general way, which checks and names every row.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Why a counting stopped (the caller counts the general way instead).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Halt {
    /// An outcome outside `0..categories` (or negative).
    Outcome,
    /// A sample id outside `0..ids` (or negative).
    Sample,
    /// A (model, question, sample) seen twice.
    Duplicate,
    /// A dictionary index outside its dictionary.
    Index,
    /// Columns of different lengths.
    Length,
    /// More slots than `SPARSE_SLOTS` per counted cell: the board is too
    /// sparse for rows of slots (the general way holds only the cells).
    Sparse,
    /// A cell's count past `u32::MAX` (only without a sample column).
    Overflow,
}

impl Halt {
    /// A short word for the caller's note.
    pub fn reason(self) -> &'static str {
        match self {
            Halt::Outcome => "an outcome outside the categories",
            Halt::Sample => "a sample id outside the proven range",
            Halt::Duplicate => "a repeated sample id",
            Halt::Index => "a dictionary index out of range",
            Halt::Length => "columns of different lengths",
            Halt::Sparse => "a sparse board",
            Halt::Overflow => "a count past 2^32",
        }
    }
}

/// FxHash (rustc's): a multiply-rotate over 8-byte words; ids are short and
/// not chosen against it.
#[derive(Default)]
pub struct Fx(u64);

const FX_K: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl Fx {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(FX_K);
    }
}

impl Hasher for Fx {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().unwrap_or([0; 8])));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
        self.add(bytes.len() as u64);
    }
    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }
    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

/// Arrow string offsets: `i32` (string) or `i64` (large_string).
pub trait Offset: Copy {
    fn at(self) -> i64;
}
impl Offset for i32 {
    #[inline]
    fn at(self) -> i64 {
        self as i64
    }
}
impl Offset for i64 {
    #[inline]
    fn at(self) -> i64 {
        self
    }
}

/// A dictionary already mapped: its bytes (relative offsets and data) to
/// compare a new one with, and its codes.
struct Seen {
    ends: Vec<u32>,
    data: Vec<u8>,
    codes: Vec<u32>,
}

/// Bytes of dictionaries kept to be recognised again (beyond it the oldest go).
const CACHE_BYTES: usize = 64 << 20;

/// Distinct strings in first-seen order, each with its code.
#[derive(Default)]
pub struct Interner {
    map: FxMap<Box<[u8]>, u32>,
    names: Vec<Box<[u8]>>,
    cache: FxMap<u64, Vec<Seen>>,
    order: Vec<u64>,
    cached: usize,
}

impl Interner {
    /// The code of one string (a new one gets the next code).
    pub fn code(&mut self, name: &[u8]) -> u32 {
        if let Some(&c) = self.map.get(name) {
            return c;
        }
        let c = self.names.len() as u32;
        self.names.push(name.into());
        self.map.insert(name.into(), c);
        c
    }

    /// The codes of an Arrow string dictionary (`offsets`: its `len + 1`
    /// offsets into `data`). `None`: offsets that do not delimit `data`.
    pub fn dictionary<O: Offset>(&mut self, offsets: &[O], data: &[u8]) -> Option<Vec<u32>> {
        let (first, last) = (offsets.first()?.at(), offsets.last()?.at());
        if first < 0 || last < first || last as usize > data.len() {
            return None;
        }
        let bytes = &data[first as usize..last as usize];
        let mut ends = Vec::with_capacity(offsets.len() - 1);
        let mut prev = first;
        for o in &offsets[1..] {
            let at = o.at();
            if at < prev || at > last || at - first > u32::MAX as i64 {
                return None;
            }
            ends.push((at - first) as u32);
            prev = at;
        }
        let mut h = Fx::default();
        h.write(bytes);
        for &e in &ends {
            h.add(e as u64);
        }
        let key = h.finish();
        if let Some(list) = self.cache.get(&key) {
            if let Some(seen) = list.iter().find(|s| s.ends == ends && s.data == bytes) {
                return Some(seen.codes.clone());
            }
        }
        let mut codes = Vec::with_capacity(ends.len());
        let mut start = 0usize;
        for &e in &ends {
            codes.push(self.code(&bytes[start..e as usize]));
            start = e as usize;
        }
        self.remember(
            key,
            Seen {
                ends,
                data: bytes.to_vec(),
                codes: codes.clone(),
            },
        );
        Some(codes)
    }

    fn remember(&mut self, key: u64, seen: Seen) {
        let size = seen.data.len() + 8 * seen.codes.len();
        if size > CACHE_BYTES / 4 {
            return;
        }
        while self.cached + size > CACHE_BYTES && !self.order.is_empty() {
            let old = self.order.remove(0);
            if let Some(list) = self.cache.get_mut(&old) {
                if !list.is_empty() {
                    let gone = list.remove(0);
                    self.cached -= gone.data.len() + 8 * gone.codes.len();
                }
                if list.is_empty() {
                    self.cache.remove(&old);
                }
            }
        }
        self.cached += size;
        self.order.push(key);
        self.cache.entry(key).or_default().push(seen);
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no string was seen.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The strings in byte order and each code's rank in it.
    pub fn sorted(self) -> (Vec<Box<[u8]>>, Vec<u32>) {
        let mut order: Vec<u32> = (0..self.names.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| self.names[a as usize].cmp(&self.names[b as usize]));
        let mut rank = vec![0u32; order.len()];
        for (r, &c) in order.iter().enumerate() {
            rank[c as usize] = r as u32;
        }
        let mut names = self.names;
        let mut out = Vec::with_capacity(names.len());
        for &c in &order {
            out.push(std::mem::take(&mut names[c as usize]));
        }
        (out, rank)
    }
}

/// An integer column of any width.
#[derive(Clone, Copy)]
pub enum Ints<'a> {
    I8(&'a [i8]),
    U8(&'a [u8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
}

impl Ints<'_> {
    pub fn len(&self) -> usize {
        match self {
            Ints::I8(x) => x.len(),
            Ints::U8(x) => x.len(),
            Ints::I16(x) => x.len(),
            Ints::I32(x) => x.len(),
            Ints::I64(x) => x.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

/// Where a batch's model of each row comes from.
pub enum ModelColumn<'a> {
    /// One model for every row (a file named for its model, a single file).
    Constant(u32),
    /// Dictionary indices and the dictionary's codes.
    Coded(&'a [i32], &'a [u32]),
}

/// Slots per counted cell allowed before the board counts as sparse.
pub const SPARSE_SLOTS: usize = 4;
/// Slots always allowed (a small board is never sparse).
pub const FREE_SLOTS: usize = 1 << 22;

/// One model's cells: slot `i` is question code `lo + i`.
#[derive(Default)]
struct ModelRow {
    lo: u32,
    len: u32,
    /// `len x categories` counts.
    counts: Vec<u32>,
    /// `len x words` bitmasks of the sample ids seen.
    seen: Vec<u64>,
}

/// A run of one cell's rows with two categories and ids 0..63: (rows, ones, ids seen).
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

/// The counts so far and the name tables.
pub struct RowCounter {
    categories: usize,
    ids: usize,
    words: usize,
    pub models: Interner,
    pub questions: Interner,
    rows: Vec<ModelRow>,
    slots: usize,
    cells: usize,
}

/// The finished counts: sorted names, and per cell (by model, then question
/// rank) its model and question rank and its category counts (`categories`
/// rows of `cells` each).
pub struct CountedCells {
    pub categories: usize,
    pub models: Vec<Box<[u8]>>,
    pub questions: Vec<Box<[u8]>>,
    pub model: Vec<i64>,
    pub question: Vec<i64>,
    pub counts: Vec<i64>,
}

impl RowCounter {
    /// `ids`: sample ids are `0..ids` (0: no sample column, no duplicate check).
    pub fn new(categories: usize, ids: usize) -> RowCounter {
        RowCounter {
            categories: categories.max(1),
            ids,
            words: ids.div_ceil(64),
            models: Interner::default(),
            questions: Interner::default(),
            rows: Vec::new(),
            slots: 0,
            cells: 0,
        }
    }

    /// Counted cells so far.
    pub fn cells(&self) -> usize {
        self.cells
    }

    /// Count one batch: models, question indices with their dictionary's
    /// codes, outcomes and (with `ids > 0`) sample ids. On a `Halt` the
    /// counts are partial and the counter is not to be used further.
    pub fn add(
        &mut self,
        model: ModelColumn<'_>,
        question: (&[i32], &[u32]),
        outcome: Ints<'_>,
        sample: Option<Ints<'_>>,
    ) -> Result<(), Halt> {
        let n = question.0.len();
        if outcome.len() != n || sample.is_some_and(|s| s.len() != n) || (self.ids > 0) != sample.is_some() {
            return Err(Halt::Length);
        }
        if let ModelColumn::Coded(idx, _) = model {
            if idx.len() != n {
                return Err(Halt::Length);
            }
        }
        match sample {
            None => with_ints!(outcome, v => self.add_typed::<_, i8>(&model, question, v, None)),
            Some(s) => with_ints!(outcome, v => with_ints!(s, s => self.add_typed(&model, question, v, Some(s)))),
        }
    }

    fn add_typed<V: Code, S: Code>(
        &mut self,
        model: &ModelColumn<'_>,
        (q_idx, q_map): (&[i32], &[u32]),
        outcome: &[V],
        sample: Option<&[S]>,
    ) -> Result<(), Halt> {
        let c = self.categories;
        let n = q_idx.len();
        let m_idx = match *model {
            ModelColumn::Coded(idx, _) => Some(idx),
            ModelColumn::Constant(_) => None,
        };
        // Rows of one cell usually come together (a question's samples): each
        // run of equal indices is resolved to its cell once, counted in
        // registers and added to the cell once (a read-modify-write of the
        // cell per row would wait on the previous row's store).
        let mut local = vec![0u64; c];
        let mut seen = vec![0u64; self.words];
        let mut r = 0;
        while r < n {
            let qi = q_idx[r];
            let mut e = r + 1;
            match m_idx {
                None => {
                    while e < n && q_idx[e] == qi {
                        e += 1;
                    }
                }
                Some(mi) => {
                    while e < n && q_idx[e] == qi && mi[e] == mi[r] {
                        e += 1;
                    }
                }
            }
            let m = match *model {
                ModelColumn::Constant(m) => m,
                ModelColumn::Coded(idx, map) => *map.get(idx[r] as u32 as usize).ok_or(Halt::Index)?,
            };
            let q = *q_map.get(qi as u32 as usize).ok_or(Halt::Index)?;
            let (rows, ones, mask) = match sample {
                // Two categories, ids 0..63: a sum and one word of bits.
                Some(s) if c == 2 && self.words == 1 => one_word_run(&outcome[r..e], &s[r..e], self.ids as u64)?,
                Some(s) => {
                    general_run(&outcome[r..e], Some((&s[r..e], self.ids as u64)), &mut local, &mut seen)?;
                    (0, 0, 0)
                }
                None if c == 2 => binary_run(&outcome[r..e])?,
                None => {
                    general_run::<V, S>(&outcome[r..e], None, &mut local, &mut seen)?;
                    (0, 0, 0)
                }
            };
            if rows > 0 {
                (local[0], local[1]) = (rows - ones, ones);
                if !seen.is_empty() {
                    seen[0] = mask;
                }
            }
            self.merge(m, q, &mut local, &mut seen)?;
            r = e;
        }
        Ok(())
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

    /// The counts by model, then question, in the names' byte order; names
    /// of no counted cell (a dictionary's entries no row of the batch used)
    /// are left out.
    pub fn finish(self) -> CountedCells {
        let c = self.categories;
        let used = |row: &ModelRow, slot: usize| row.counts[slot * c..slot * c + c].iter().any(|&x| x > 0);
        let mut q_used = vec![false; self.questions.len()];
        let mut m_used = vec![false; self.models.len()];
        for (m, row) in self.rows.iter().enumerate() {
            for s in 0..row.len as usize {
                if used(row, s) {
                    q_used[row.lo as usize + s] = true;
                    m_used[m] = true;
                }
            }
        }
        let (models, m_rank) = kept_sorted(self.models, &m_used);
        let (questions, q_rank) = kept_sorted(self.questions, &q_used);
        // Used question codes in rank order.
        let mut q_of_rank = vec![0u32; questions.len()];
        for (code, &r) in q_rank.iter().enumerate() {
            if q_used[code] {
                q_of_rank[r as usize] = code as u32;
            }
        }
        let mut model_order: Vec<usize> = (0..self.rows.len()).filter(|&m| m_used[m]).collect();
        model_order.sort_unstable_by_key(|&m| m_rank[m]);
        let cells = self.cells;
        let mut model = Vec::with_capacity(cells);
        let mut question = Vec::with_capacity(cells);
        let mut counts = vec![0i64; cells * c];
        let mut at = 0usize;
        let mut filled: Vec<(u32, usize)> = Vec::new();
        for m in model_order {
            let row = &self.rows[m];
            let mut emit = |rank: u32, slot: usize| {
                model.push(m_rank[m] as i64);
                question.push(rank as i64);
                for j in 0..c {
                    counts[j * cells + at] = row.counts[slot * c + j] as i64;
                }
                at += 1;
            };
            if (row.len as usize) * 16 < q_of_rank.len() {
                // Few slots among many questions: sort this row's cells by rank.
                filled.clear();
                filled.extend(
                    (0..row.len as usize)
                        .filter(|&s| used(row, s))
                        .map(|s| (q_rank[row.lo as usize + s], s)),
                );
                filled.sort_unstable();
                for &(rank, slot) in &filled {
                    emit(rank, slot);
                }
            } else {
                for (rank, &q) in q_of_rank.iter().enumerate() {
                    if q >= row.lo && q - row.lo < row.len && used(row, (q - row.lo) as usize) {
                        emit(rank as u32, (q - row.lo) as usize);
                    }
                }
            }
        }
        debug_assert_eq!(at, cells);
        CountedCells {
            categories: c,
            models,
            questions,
            model,
            question,
            counts,
        }
    }
}

/// The names kept (`keep[code]`) in byte order, and each kept code's rank
/// among them (the rank of a code not kept is meaningless).
fn kept_sorted(names: Interner, keep: &[bool]) -> (Vec<Box<[u8]>>, Vec<u32>) {
    let (sorted, rank) = names.sorted();
    let mut code_of_rank = vec![0usize; rank.len()];
    for (code, &r) in rank.iter().enumerate() {
        code_of_rank[r as usize] = code;
    }
    let mut new_rank = vec![0u32; rank.len()];
    let mut out = Vec::with_capacity(sorted.len());
    for (r, name) in sorted.into_iter().enumerate() {
        let code = code_of_rank[r];
        if keep[code] {
            new_rank[code] = out.len() as u32;
            out.push(name);
        }
    }
    (out, new_rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(names: &[&str]) -> (Vec<i32>, Vec<u8>) {
        let mut offsets = vec![0i32];
        let mut data = Vec::new();
        for n in names {
            data.extend_from_slice(n.as_bytes());
            offsets.push(data.len() as i32);
        }
        (offsets, data)
    }

    /// A brute-force count: a map from (model, question) to category counts.
    fn brute(rows: &[(&str, &str, i64, i64)], c: usize) -> Vec<(String, String, Vec<i64>)> {
        let mut map: std::collections::BTreeMap<(String, String), Vec<i64>> = Default::default();
        for &(m, q, _, v) in rows {
            map.entry((m.to_string(), q.to_string())).or_insert_with(|| vec![0; c])[v as usize] += 1;
        }
        map.into_iter().map(|((m, q), v)| (m, q, v)).collect()
    }

    fn counted(out: &CountedCells, c: usize) -> Vec<(String, String, Vec<i64>)> {
        let n = out.model.len();
        (0..n)
            .map(|i| {
                (
                    String::from_utf8(out.models[out.model[i] as usize].to_vec()).unwrap(),
                    String::from_utf8(out.questions[out.question[i] as usize].to_vec()).unwrap(),
                    (0..c).map(|j| out.counts[j * n + i]).collect(),
                )
            })
            .collect()
    }

    /// Rows split into batches, each batch with its own dictionaries (in
    /// first-seen order within the batch, as a Parquet row group's).
    fn run(rows: &[(&str, &str, i64, i64)], c: usize, ids: usize, batch: usize) -> Result<CountedCells, Halt> {
        let mut counter = RowCounter::new(c, ids);
        for chunk in rows.chunks(batch) {
            let mut m_names: Vec<&str> = Vec::new();
            let mut q_names: Vec<&str> = Vec::new();
            let mut m_idx = Vec::new();
            let mut q_idx = Vec::new();
            for &(m, q, _, _) in chunk {
                let i = m_names.iter().position(|&x| x == m).unwrap_or_else(|| {
                    m_names.push(m);
                    m_names.len() - 1
                });
                m_idx.push(i as i32);
                let j = q_names.iter().position(|&x| x == q).unwrap_or_else(|| {
                    q_names.push(q);
                    q_names.len() - 1
                });
                q_idx.push(j as i32);
            }
            if chunk.len() % 2 == 0 {
                q_names.push("a question no row of the batch has"); // a row group's dictionary, a batch's rows
            }
            let (mo, md) = dict(&m_names);
            let (qo, qd) = dict(&q_names);
            let m_map = counter.models.dictionary(&mo, &md).unwrap();
            let q_map = counter.questions.dictionary(&qo, &qd).unwrap();
            let v: Vec<i64> = chunk.iter().map(|r| r.3).collect();
            let s: Vec<i16> = chunk.iter().map(|r| r.2 as i16).collect();
            let sample = if ids > 0 { Some(Ints::I16(&s)) } else { None };
            counter.add(
                ModelColumn::Coded(&m_idx, &m_map),
                (&q_idx, &q_map),
                Ints::I64(&v),
                sample,
            )?;
        }
        Ok(counter.finish())
    }

    fn lcg(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn counts_equal_brute_force_on_random_boards() {
        let models: Vec<String> = (0..7).map(|i| format!("m{}", (i * 37) % 11)).collect();
        let questions: Vec<String> = (0..40).map(|i| format!("question-{}", (i * 13) % 97)).collect();
        let mut state = 7u64;
        for case in 0..60 {
            let c = 2 + (case % 3);
            let mut rows = Vec::new();
            for m in &models {
                for q in &questions {
                    if lcg(&mut state) % 5 == 0 {
                        continue; // a ragged board
                    }
                    let n = 1 + lcg(&mut state) % 9;
                    for s in 0..n {
                        rows.push((m.as_str(), q.as_str(), s as i64, (lcg(&mut state) % c as u64) as i64));
                    }
                }
            }
            // Shuffle the rows.
            for i in (1..rows.len()).rev() {
                let j = (lcg(&mut state) % (i as u64 + 1)) as usize;
                rows.swap(i, j);
            }
            let batch = 1 + (lcg(&mut state) % 300) as usize;
            let ids = if case % 2 == 0 { 0 } else { 9 + (case % 100) };
            let out = run(&rows, c, ids, batch).unwrap();
            assert_eq!(counted(&out, c), brute(&rows, c), "case {case}");
        }
    }

    #[test]
    fn halts_name_the_problem() {
        let ok = [("a", "q1", 0, 1), ("a", "q1", 1, 0)];
        assert!(run(&ok, 2, 2, 10).is_ok());
        assert_eq!(
            run(&[("a", "q1", 0, 1), ("a", "q1", 0, 0)], 2, 2, 10).err(),
            Some(Halt::Duplicate)
        );
        // The repeat across batches too.
        assert_eq!(
            run(&[("a", "q1", 0, 1), ("a", "q1", 0, 0)], 2, 2, 1).err(),
            Some(Halt::Duplicate)
        );
        assert_eq!(run(&[("a", "q1", 0, 2)], 2, 2, 10).err(), Some(Halt::Outcome));
        assert_eq!(run(&[("a", "q1", 0, -1)], 2, 2, 10).err(), Some(Halt::Outcome));
        assert_eq!(run(&[("a", "q1", 2, 1)], 2, 2, 10).err(), Some(Halt::Sample));
        assert_eq!(run(&[("a", "q1", -1, 1)], 2, 2, 10).err(), Some(Halt::Sample));
        let mut counter = RowCounter::new(2, 0);
        let map = [0u32];
        assert_eq!(
            counter.add(ModelColumn::Constant(0), (&[1], &map), Ints::I8(&[1]), None),
            Err(Halt::Index)
        );
        assert_eq!(
            counter.add(ModelColumn::Constant(0), (&[0, 0], &map), Ints::I8(&[1]), None),
            Err(Halt::Length)
        );
    }

    #[test]
    fn same_dictionary_bytes_give_the_same_codes_without_new_names() {
        let mut names = Interner::default();
        let (o, d) = dict(&["b", "a", "c"]);
        let first = names.dictionary(&o, &d).unwrap();
        // The same bytes at another offset within a larger buffer.
        let mut d2 = b"zz".to_vec();
        d2.extend_from_slice(&d);
        let o2: Vec<i64> = o.iter().map(|&x| x as i64 + 2).collect();
        assert_eq!(names.dictionary(&o2, &d2).unwrap(), first);
        // Same bytes, other boundaries: other strings.
        let other = names.dictionary(&[0i32, 2, 3], b"bac").unwrap();
        assert_eq!(other, vec![3, 2]); // "ba" is new, "c" is known
        assert_eq!(names.len(), 4);
        assert!(names.dictionary(&[0i32, 4], b"abc").is_none());
        assert!(names.dictionary(&[2i32, 1], b"abc").is_none());
        let (sorted, rank) = names.sorted();
        let text: Vec<&[u8]> = sorted.iter().map(|x| &x[..]).collect();
        assert_eq!(text, vec![&b"a"[..], b"b", b"ba", b"c"]);
        assert_eq!(rank, vec![1, 0, 3, 2]);
    }

    #[test]
    fn a_sparse_board_halts() {
        // Each model with questions far apart: rows of slots would be mostly empty.
        let mut counter = RowCounter::new(2, 0);
        let mut state = 1u64;
        let mut halted = false;
        for _ in 0..200 {
            let q = (lcg(&mut state) % 4_000_000_000) as u32;
            let map = [q];
            if counter.add(ModelColumn::Constant(0), (&[0], &map), Ints::I8(&[1]), None) == Err(Halt::Sparse) {
                halted = true;
                break;
            }
        }
        assert!(halted);
    }
}
