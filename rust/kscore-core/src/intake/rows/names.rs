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

/// Names in byte order and each original position's rank in it: sorted by
/// their first 8 bytes held beside the codes, each run of names that share
/// them by the next 8 ([`by_words`]), not by comparing names through their
/// codes (100 000 model names of 50 bytes that share long prefixes: a
/// memory look-up and a `memcmp` of some 30 bytes a comparison, a tenth of
/// the naming's time).
pub fn sorted(mut names: Vec<Box<[u8]>>) -> (Vec<Box<[u8]>>, Vec<u32>) {
    let mut order: Vec<u32> = (0..names.len() as u32).collect();
    by_words(&mut order, &names, 0, &mut Vec::new());
    let mut rank = vec![0u32; order.len()];
    for (r, &c) in order.iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    let out = order.iter().map(|&c| std::mem::take(&mut names[c as usize])).collect();
    (out, rank)
}

/// The 8 bytes of `name` from `at` as a big-endian word (compared as the
/// bytes are; zeros past the end) and how many bytes it has from `at`, at
/// most 9 (a name that ends within the word sorts before a longer one of
/// the same bytes: "ab" before "ab\0").
#[inline]
fn word(name: &[u8], at: usize) -> (u64, u8) {
    let rest = name.get(at..).unwrap_or(&[]);
    let mut w = [0u8; 8];
    let k = rest.len().min(8);
    w[..k].copy_from_slice(&rest[..k]);
    (u64::from_be_bytes(w), rest.len().min(9) as u8)
}

/// Sorts `order` (codes of `names` whose names agree on their first `at`
/// bytes) by the names' bytes from `at`: by their next 8-byte word and
/// length (held beside the codes in `keys`), then each run of one word
/// that goes on past it by the word after. Runs of a few names are sorted
/// by comparing them.
fn by_words(order: &mut [u32], names: &[Box<[u8]>], at: usize, keys: &mut Vec<(u64, u8, u32)>) {
    if order.len() < 2 {
        return;
    }
    if order.len() <= 16 {
        order.sort_unstable_by(|&a, &b| names[a as usize][at..].cmp(&names[b as usize][at..]));
        return;
    }
    keys.clear();
    keys.extend(order.iter().map(|&code| {
        let (w, n) = word(&names[code as usize], at);
        (w, n, code)
    }));
    keys.sort_unstable();
    for (o, k) in order.iter_mut().zip(keys.iter()) {
        *o = k.2;
    }
    let runs: Vec<(usize, usize)> = keys
        .chunk_by(|x, y| (x.0, x.1) == (y.0, y.1))
        .scan(0usize, |a, run| {
            let b = *a + run.len();
            let out = (*a, b, run[0].1);
            *a = b;
            Some(out)
        })
        .filter(|&(a, b, n)| n == 9 && b - a > 1)
        .map(|(a, b, _)| (a, b))
        .collect();
    for (a, b) in runs {
        by_words(&mut order[a..b], names, at + 8, keys);
    }
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

    /// Byte order by words: names that share 8, 16 or 24 bytes, end inside
    /// or at the end of a word, hold NULs (a shorter name before the longer
    /// one of the same bytes) and bytes past 0x7f, in runs of one word longer
    /// than the compared runs and shorter: the order of a plain sort, each
    /// code's rank its place in it.
    #[test]
    fn sorting_by_words_is_byte_order() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let stems: [&[u8]; 6] = [
            b"",
            b"sweep-3/",
            b"sweep-3/qwen2.5-",
            b"sweep-3/qwen2.5-7b-grpo-",
            b"ab\0",
            b"\xff\x00",
        ];
        let alphabet: [u8; 5] = [0, b'a', b'b', 0x7f, 0xff];
        let mut seen = std::collections::HashSet::new();
        let names: Vec<Box<[u8]>> = (0..5000)
            .filter_map(|_| {
                let mut n = stems[(next() % 6) as usize].to_vec();
                for _ in 0..(next() % 19) {
                    n.push(alphabet[(next() % 5) as usize]);
                }
                seen.insert(n.clone()).then(|| n.into_boxed_slice())
            })
            .collect();
        let mut expect = names.clone();
        expect.sort();
        let (out, rank) = sorted(names.clone());
        assert_eq!(out, expect);
        for (code, name) in names.iter().enumerate() {
            assert_eq!(&expect[rank[code] as usize], name);
        }
    }
}
