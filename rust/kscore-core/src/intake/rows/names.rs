//! The board's name tables: each distinct model, question and attribute
//! value gets a code once (`Interner`), shared by every counting thread
//! (`Names`, behind one lock taken once per batch or per new name), and each
//! thread keeps its own map of the names it met (`Local`), so that a row's
//! id costs a comparison with the previous row's or a lookup in a map no
//! other thread touches.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

/// FxHash (rustc's): a multiply-rotate over 8-byte words, its result
/// rotated so that the bits hash tables index by are mixed; ids are short
/// and not chosen against it.
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
        // The product's high bits depend on every input bit, its low bits
        // only on the low ones; hashbrown picks buckets by the low bits, so
        // names that differ in their later bytes ("q00041", "q00042")
        // would share buckets without this rotation (rustc-hash 2 does the same).
        self.0.rotate_left(26)
    }
}

pub type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<Fx>>;

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

/// A dictionary's bytes checked and measured: its data and each entry's end.
struct Checked<'a> {
    bytes: &'a [u8],
    ends: Vec<u32>,
    key: u64,
}

fn checked<'a, O: Offset>(offsets: &[O], data: &'a [u8]) -> Option<Checked<'a>> {
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
    Some(Checked {
        bytes,
        ends,
        key: h.finish(),
    })
}

/// Distinct strings in first-seen order, each with its code.
#[derive(Default)]
pub struct Interner {
    map: FxMap<Box<[u8]>, u32>,
    names: Vec<Box<[u8]>>,
    cache: FxMap<u64, Vec<Seen>>,
    order: std::collections::VecDeque<u64>,
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
        let d = checked(offsets, data)?;
        if let Some(codes) = self.cached(&d) {
            return Some(codes);
        }
        let codes = self.codes_of(&d);
        self.remember(&d, &codes);
        Some(codes)
    }

    fn cached(&self, d: &Checked<'_>) -> Option<Vec<u32>> {
        let list = self.cache.get(&d.key)?;
        let seen = list.iter().find(|s| s.ends == d.ends && s.data == d.bytes)?;
        Some(seen.codes.clone())
    }

    fn codes_of(&mut self, d: &Checked<'_>) -> Vec<u32> {
        let mut codes = Vec::with_capacity(d.ends.len());
        let mut start = 0usize;
        for &e in &d.ends {
            codes.push(self.code(&d.bytes[start..e as usize]));
            start = e as usize;
        }
        codes
    }

    fn remember(&mut self, d: &Checked<'_>, codes: &[u32]) {
        let size = d.bytes.len() + 8 * codes.len();
        if size > CACHE_BYTES / 4 {
            return;
        }
        while self.cached + size > CACHE_BYTES {
            let Some(old) = self.order.pop_front() else { break };
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
        self.order.push_back(d.key);
        self.cache.entry(d.key).or_default().push(Seen {
            ends: d.ends.clone(),
            data: d.bytes.to_vec(),
            codes: codes.to_vec(),
        });
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no string was seen.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names in code order (the tables are dropped).
    pub fn into_names(self) -> Vec<Box<[u8]>> {
        self.names
    }

    /// The strings in byte order and each code's rank in it.
    pub fn sorted(self) -> (Vec<Box<[u8]>>, Vec<u32>) {
        sorted(self.names)
    }
}

/// Names in byte order and each original position's rank in it (a parallel
/// sort past a few tens of thousands of names).
pub fn sorted(mut names: Vec<Box<[u8]>>) -> (Vec<Box<[u8]>>, Vec<u32>) {
    use rayon::prelude::*;
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    let by_name = |&a: &u32, &b: &u32| names[a as usize].cmp(&names[b as usize]);
    // About 100 ns a comparison step over log2(n) steps.
    if crate::par::worth_splitting(names.len() * 100 * (usize::BITS - names.len().leading_zeros()) as usize) {
        order.par_sort_unstable_by(by_name);
    } else {
        order.sort_unstable_by(by_name);
    }
    let mut rank = vec![0u32; order.len()];
    for (r, &c) in order.iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    let out = order.iter().map(|&c| std::mem::take(&mut names[c as usize])).collect();
    (out, rank)
}

/// Which table a name belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Axis {
    Model,
    Question,
    /// A question attribute (`--cluster`, `--by`), by position.
    Attribute(usize),
}

/// The tables of one board.
#[derive(Default)]
pub struct Tables {
    pub models: Interner,
    pub questions: Interner,
    pub attributes: Vec<Interner>,
}

impl Tables {
    pub fn of(&mut self, axis: Axis) -> &mut Interner {
        match axis {
            Axis::Model => &mut self.models,
            Axis::Question => &mut self.questions,
            Axis::Attribute(i) => {
                if self.attributes.len() <= i {
                    self.attributes.resize_with(i + 1, Interner::default);
                }
                &mut self.attributes[i]
            }
        }
    }
}

/// A board's tables shared by its counting threads.
#[derive(Default)]
pub struct Names {
    tables: Mutex<Tables>,
}

impl Names {
    pub fn new(attributes: usize) -> Names {
        let mut t = Tables::default();
        t.attributes.resize_with(attributes, Interner::default);
        Names { tables: Mutex::new(t) }
    }

    /// The tables, for a batch's dictionaries or new names (a thread that
    /// panicked holding them left nothing half-done that matters: codes are
    /// handed out after the name is stored).
    pub fn lock(&self) -> MutexGuard<'_, Tables> {
        self.tables.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn into_tables(self) -> Tables {
        self.tables.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// One thread's memory of the names it met, per axis: by bytes (text
/// inputs) and by integer value (integer id columns).
#[derive(Default)]
pub struct Local {
    bytes: Vec<FxMap<Box<[u8]>, u32>>,
    ints: Vec<FxMap<i64, u32>>,
}

fn slot(axis: Axis) -> usize {
    match axis {
        Axis::Model => 0,
        Axis::Question => 1,
        Axis::Attribute(i) => 2 + i,
    }
}

impl Local {
    /// The code of `name` on `axis`.
    pub fn bytes(&mut self, names: &Names, axis: Axis, name: &[u8]) -> u32 {
        let at = slot(axis);
        if self.bytes.len() <= at {
            self.bytes.resize_with(at + 1, FxMap::default);
        }
        if let Some(&c) = self.bytes[at].get(name) {
            return c;
        }
        let c = names.lock().of(axis).code(name);
        self.bytes[at].insert(name.into(), c);
        c
    }

    /// `bytes` for names read from text: None where `name` is not UTF-8.
    #[inline]
    pub fn text(&mut self, names: &Names, axis: Axis, name: &[u8]) -> Option<u32> {
        let at = slot(axis);
        if let Some(&c) = self.bytes.get(at).and_then(|m| m.get(name)) {
            return Some(c);
        }
        std::str::from_utf8(name).ok()?;
        Some(self.bytes(names, axis, name))
    }

    /// The code of the integer `value` on `axis` (named by its decimal
    /// digits, as DuckDB's `CAST(x AS VARCHAR)` writes it).
    pub fn int(&mut self, names: &Names, axis: Axis, value: i64) -> u32 {
        let at = slot(axis);
        if self.ints.len() <= at {
            self.ints.resize_with(at + 1, FxMap::default);
        }
        if let Some(&c) = self.ints[at].get(&value) {
            return c;
        }
        let c = names.lock().of(axis).code(value.to_string().as_bytes());
        self.ints[at].insert(value, c);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_codes_are_the_shared_ones() {
        let names = Names::new(1);
        let (mut a, mut b) = (Local::default(), Local::default());
        let x = a.bytes(&names, Axis::Question, b"q1");
        let y = b.bytes(&names, Axis::Question, b"q2");
        assert_eq!(b.bytes(&names, Axis::Question, b"q1"), x);
        assert_ne!(x, y);
        assert_eq!(
            a.int(&names, Axis::Question, -17),
            a.bytes(&names, Axis::Question, b"-17")
        );
        assert_eq!(a.bytes(&names, Axis::Model, b"q1"), 0); // its own table
        assert_eq!(a.bytes(&names, Axis::Attribute(0), b"x"), 0);
        let t = names.into_tables();
        assert_eq!(t.questions.len(), 3);
    }

    #[test]
    fn sorting_names_gives_ranks() {
        let names: Vec<Box<[u8]>> = ["b", "a", "ba", "c"].iter().map(|s| s.as_bytes().into()).collect();
        let (out, rank) = sorted(names);
        let text: Vec<&[u8]> = out.iter().map(|x| &x[..]).collect();
        assert_eq!(text, vec![&b"a"[..], b"b", b"ba", b"c"]);
        assert_eq!(rank, vec![1, 0, 2, 3]);
        // Past the parallel threshold too, the same order as a serial sort.
        let many: Vec<Box<[u8]>> = (0..200_000u64)
            .map(|i| format!("q{}", (i * 7919) % 200_000).into_bytes().into())
            .collect();
        let mut expect: Vec<Box<[u8]>> = many.clone();
        expect.sort();
        assert_eq!(sorted(many).0, expect);
    }
}
