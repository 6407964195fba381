//! Long-format rows (model, question, sample, outcome) to per-(model,
//! question) category counts: the leaderboard's direct count of Parquet
//! files (batches decoded by pyarrow as Arrow buffers) and of CSV/TSV and
//! JSON Lines text (parsed here, `text`), on every core (docs/leaderboard.md,
//! *How it reads*; docs/threads.md).
//!
//! Id columns come as dictionaries: per batch, a dictionary of names and an
//! index per row (text and integer ids are put in that form as they are
//! read). Each dictionary is mapped to the board's codes once (`names`: a
//! dictionary already seen, as the same questions in every model's file,
//! is recognised by its bytes and not hashed again), so a row costs two
//! array lookups, not a string hash. Each reading thread counts into a
//! `Tally` of its own: per model a row of slots indexed by question code,
//! each slot a cell's counts and a bitmask of the sample ids seen; `finish`
//! adds the tallies up per model and names the cells, in parallel.
//! Anything the counting cannot vouch for (an outcome outside `0..C`, a
//! sample id outside `0..ids`, a repeated sample id, an index outside its
//! dictionary, a board too sparse for rows of slots, a count past `u32`, a
//! line of text it does not read) stops it with a `Halt` that says why: the
//! caller then counts the input the general way, which checks and names
//! every row.

pub mod finish;
pub mod names;
pub mod tally;
pub mod text;

pub use finish::{finish, merge, CountedCells, Merged, Stopped};
pub use names::{Axis, Interner, Local, Names, Tables};
pub use tally::{Ids, Tally, FREE_SLOTS, MAX_IDS, SPARSE_SLOTS};

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
    /// A question with two values of a `--cluster`/`--by` column.
    Attribute,
    /// A line of text the direct reader does not take (its words say why).
    Line(&'static str),
}

impl Halt {
    /// A short phrase for the caller's note.
    pub fn reason(self) -> &'static str {
        match self {
            Halt::Outcome => "an outcome outside the categories",
            Halt::Sample => "a sample id outside the proven range",
            Halt::Duplicate => "a repeated sample id",
            Halt::Index => "a dictionary index out of range",
            Halt::Length => "columns of different lengths",
            Halt::Sparse => "a sparse board",
            Halt::Overflow => "a count past 2^32",
            Halt::Attribute => "a question with two values of a --cluster/--by column",
            Halt::Line(why) => why,
        }
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

/// An integer id column as a dictionary column: per row an index into a
/// list of codes, one entry per run of equal values (an index per distinct
/// value would need a map; runs are what the tally looks at).
pub fn int_ids(values: Ints<'_>, names: &Names, local: &mut Local, axis: Axis) -> (Vec<i32>, Vec<u32>) {
    fn go<T: Copy + PartialEq + Into<i64>>(
        v: &[T],
        names: &Names,
        local: &mut Local,
        axis: Axis,
    ) -> (Vec<i32>, Vec<u32>) {
        let mut idx = Vec::with_capacity(v.len());
        let mut codes: Vec<u32> = Vec::new();
        let mut last: Option<T> = None;
        for &x in v {
            if last != Some(x) {
                codes.push(local.int(names, axis, x.into()));
                last = Some(x);
            }
            idx.push(codes.len() as i32 - 1);
        }
        (idx, codes)
    }
    match values {
        Ints::I8(v) => go(v, names, local, axis),
        Ints::U8(v) => go(v, names, local, axis),
        Ints::I16(v) => go(v, names, local, axis),
        Ints::I32(v) => go(v, names, local, axis),
        Ints::I64(v) => go(v, names, local, axis),
    }
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
    /// first-seen order within the batch, as a Parquet row group's), the
    /// batches dealt to `threads` tallies in turn.
    fn run(
        rows: &[(&str, &str, i64, i64)],
        c: usize,
        ids: usize,
        batch: usize,
        threads: usize,
    ) -> Result<CountedCells, Stopped> {
        let names = Names::new(0);
        let mut tallies: Vec<Tally> = (0..threads).map(|_| Tally::new(c, ids, 1, 0)).collect();
        for (b, chunk) in rows.chunks(batch).enumerate() {
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
            let m_map = names.lock().models.dictionary(&mo, &md).unwrap();
            let q_map = names.lock().questions.dictionary(&qo, &qd).unwrap();
            let v: Vec<i64> = chunk.iter().map(|r| r.3).collect();
            let s: Vec<i16> = chunk.iter().map(|r| r.2 as i16).collect();
            let sample = if ids > 0 { Some(Ints::I16(&s)) } else { None };
            tallies[b % threads].add(
                Ids::Coded(&m_idx, &m_map),
                Ids::Coded(&q_idx, &q_map),
                Ints::I64(&v),
                sample,
                &[],
            )?;
        }
        finish(names.into_tables(), tallies)
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
                    if lcg(&mut state).is_multiple_of(5) {
                        continue; // a ragged board
                    }
                    let n = 1 + lcg(&mut state) % 9;
                    for s in 0..n {
                        // Sample ids past 64 in some cases: the bitmask grows.
                        let id = if case % 4 == 3 { s * 97 % 300 } else { s };
                        rows.push((m.as_str(), q.as_str(), id as i64, (lcg(&mut state) % c as u64) as i64));
                    }
                }
            }
            // Shuffle the rows.
            for i in (1..rows.len()).rev() {
                let j = (lcg(&mut state) % (i as u64 + 1)) as usize;
                rows.swap(i, j);
            }
            let batch = 1 + (lcg(&mut state) % 300) as usize;
            let ids = if case % 2 == 0 { 0 } else { 300 + (case % 100) };
            let expect = brute(&rows, c);
            for threads in [1, 3] {
                let out = run(&rows, c, ids, batch, threads).unwrap();
                assert_eq!(counted(&out, c), expect, "case {case}, {threads} threads");
            }
        }
    }

    #[test]
    fn halts_name_the_problem() {
        let ok = [("a", "q1", 0, 1), ("a", "q1", 1, 0)];
        assert!(run(&ok, 2, 2, 10, 1).is_ok());
        let dup = [("a", "q1", 0, 1), ("a", "q1", 0, 0)];
        assert_eq!(run(&dup, 2, 2, 10, 1).err(), Some(Stopped::Halt(Halt::Duplicate)));
        // The repeat across batches too, and across threads (found when added up).
        assert_eq!(run(&dup, 2, 2, 1, 1).err(), Some(Stopped::Halt(Halt::Duplicate)));
        assert_eq!(run(&dup, 2, 2, 1, 2).err(), Some(Stopped::Halt(Halt::Duplicate)));
        assert_eq!(
            run(&[("a", "q1", 0, 2)], 2, 2, 10, 1).err(),
            Some(Stopped::Halt(Halt::Outcome))
        );
        assert_eq!(
            run(&[("a", "q1", 0, -1)], 2, 2, 10, 1).err(),
            Some(Stopped::Halt(Halt::Outcome))
        );
        assert_eq!(
            run(&[("a", "q1", 2, 1)], 2, 2, 10, 1).err(),
            Some(Stopped::Halt(Halt::Sample))
        );
        assert_eq!(
            run(&[("a", "q1", -1, 1)], 2, 2, 10, 1).err(),
            Some(Stopped::Halt(Halt::Sample))
        );
        assert_eq!(
            run(&[("a", "q1", 200, 1)], 2, 100, 10, 1).err(),
            Some(Stopped::Halt(Halt::Sample))
        );
        let mut tally = Tally::new(2, 0, 0, 0);
        let map = [0u32];
        let q = |idx: &'static [i32]| Ids::Coded(idx, &map);
        let (one, two, bad): (&'static [i32], &'static [i32], &'static [i32]) = (&[0], &[0, 0], &[1]);
        assert_eq!(
            tally.add(Ids::Constant(0), q(bad), Ints::I8(&[1]), None, &[]),
            Err(Halt::Index)
        );
        assert_eq!(
            tally.add(Ids::Constant(0), q(two), Ints::I8(&[1]), None, &[]),
            Err(Halt::Length)
        );
        assert!(tally.add(Ids::Constant(0), q(one), Ints::I8(&[1]), None, &[]).is_ok());
    }

    #[test]
    fn attributes_follow_their_questions_and_refuse_two_values() {
        let names = Names::new(1);
        let mut local = Local::default();
        let q: Vec<u32> = ["q2", "q1"]
            .iter()
            .map(|s| local.bytes(&names, Axis::Question, s.as_bytes()))
            .collect();
        let x: Vec<u32> = ["easy", "hard"]
            .iter()
            .map(|s| local.bytes(&names, Axis::Attribute(0), s.as_bytes()))
            .collect();
        let m = local.bytes(&names, Axis::Model, b"m");
        let mut a = Tally::new(2, 0, 0, 1);
        let mut b = Tally::new(2, 0, 0, 1);
        a.add(
            Ids::Constant(m),
            Ids::Coded(&[0, 1], &q),
            Ints::I8(&[1, 0]),
            None,
            &[Ids::Coded(&[0, 1], &x)],
        )
        .unwrap();
        b.add(
            Ids::Constant(m),
            Ids::Coded(&[0], &q),
            Ints::I8(&[1]),
            None,
            &[Ids::Coded(&[0], &x)],
        )
        .unwrap();
        let out = finish(names.into_tables(), vec![a, b]).unwrap();
        let text: Vec<Option<&[u8]>> = out.attributes[0].iter().map(|v| v.as_deref()).collect();
        assert_eq!(text, vec![Some(&b"hard"[..]), Some(&b"easy"[..])]); // q1, q2
        assert_eq!(out.counts, vec![1, 0, 0, 2]);
        // Two values for one question: within a batch, or across threads.
        let names = Names::new(1);
        let mut a = Tally::new(2, 0, 0, 1);
        assert_eq!(
            a.add(
                Ids::Constant(0),
                Ids::Coded(&[0, 0], &[0]),
                Ints::I8(&[1, 0]),
                None,
                &[Ids::Coded(&[0, 1], &[0, 1])]
            ),
            Err(Halt::Attribute)
        );
        let mut a = Tally::new(2, 0, 0, 1);
        let mut b = Tally::new(2, 0, 0, 1);
        a.add(
            Ids::Constant(0),
            Ids::Coded(&[0], &[0]),
            Ints::I8(&[1]),
            None,
            &[Ids::Constant(0)],
        )
        .unwrap();
        b.add(
            Ids::Constant(1),
            Ids::Coded(&[0], &[0]),
            Ints::I8(&[1]),
            None,
            &[Ids::Constant(1)],
        )
        .unwrap();
        {
            let mut t = names.lock();
            t.models.code(b"a");
            t.models.code(b"b");
            t.questions.code(b"q");
        }
        assert_eq!(
            finish(names.into_tables(), vec![a, b]).err(),
            Some(Stopped::Halt(Halt::Attribute))
        );
    }

    #[test]
    fn integer_ids_get_decimal_names_per_run() {
        let names = Names::new(0);
        let mut local = Local::default();
        let (idx, codes) = int_ids(Ints::I64(&[7, 7, -3, 7, 10]), &names, &mut local, Axis::Question);
        assert_eq!(idx, vec![0, 0, 1, 2, 3]);
        assert_eq!(codes, vec![0, 1, 0, 2]);
        let t = names.into_tables();
        let (sorted, _) = t.questions.sorted();
        let text: Vec<&[u8]> = sorted.iter().map(|x| &x[..]).collect();
        assert_eq!(text, vec![&b"-3"[..], b"10", b"7"]); // byte order, as DuckDB's names sort
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
        let mut tally = Tally::new(2, 0, 0, 0);
        let mut state = 1u64;
        let mut halted = false;
        for _ in 0..200 {
            let q = (lcg(&mut state) % 4_000_000_000) as u32;
            let map = [q];
            if tally.add(Ids::Constant(0), Ids::Coded(&[0], &map), Ints::I8(&[1]), None, &[]) == Err(Halt::Sparse) {
                halted = true;
                break;
            }
        }
        assert!(halted);
    }
}
