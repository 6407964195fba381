//! The counting threads' tallies added up and named (`finish`): per model
//! in parallel, the rows of every tally are added (a sample id counted by
//! two threads is a repeat); the names used are sorted (by 8-byte words:
//! `names::sorted`); and the cells are written out by model, then
//! question, in the names' byte order, each model's cells into its own
//! place in the output, on the pool (the models read in code order). Every step is exact and its result does not depend
//! on which thread counted what.

use rayon::prelude::*;

use super::names::{self, Tables};
use super::tally::{add_rows, ModelRow, Tally};
use super::Halt;
use crate::cancel;
use crate::par::{self, Grain};

/// The finished counts: sorted names, and per cell (by model, then question
/// rank) its model and question rank and its category counts (`categories`
/// rows of `cells` each); per attribute, each question's value (by question
/// rank; None where no row named one).
pub struct CountedCells {
    pub categories: usize,
    pub models: Vec<Box<[u8]>>,
    pub questions: Vec<Box<[u8]>>,
    pub model: Vec<i64>,
    pub question: Vec<i64>,
    pub counts: Vec<i64>,
    pub attributes: Vec<Vec<Option<Box<[u8]>>>>,
}

/// Estimated nanoseconds to add or scan one slot of a model row.
const SLOT_NS: usize = 4;

/// Why finishing stopped: a `Halt` of the counts, or a Ctrl-C.
#[derive(Debug, PartialEq, Eq)]
pub enum Stopped {
    Halt(Halt),
    Interrupted,
}

impl From<Halt> for Stopped {
    fn from(h: Halt) -> Self {
        Stopped::Halt(h)
    }
}

fn check() -> Result<(), Stopped> {
    if cancel::stopping() {
        Err(Stopped::Interrupted)
    } else {
        Ok(())
    }
}

/// Add up `tallies` (counted with codes of `tables`) and name the cells.
pub fn finish(tables: Tables, tallies: Vec<Tally>) -> Result<CountedCells, Stopped> {
    merge(tables, tallies)?.name()
}

/// The tallies added up: one row per model, the attributes per question.
pub struct Merged {
    categories: usize,
    tables: Tables,
    rows: Vec<ModelRow>,
    attributes: Vec<Vec<u32>>,
    mean_slots: usize,
}

/// Add up `tallies` (counted with codes of `tables`), per model in parallel.
pub fn merge(tables: Tables, tallies: Vec<Tally>) -> Result<Merged, Stopped> {
    let c = tallies.first().map_or(1, |t| t.categories);
    let words = tallies.iter().map(|t| t.words).max().unwrap_or(0);
    let n_attributes = tallies.first().map_or(0, |t| t.attributes.len());
    let n_models = tables.models.len();
    let n_questions = tables.questions.len();
    // Each tally's rows, by model; their attributes by question.
    let mut per_model: Vec<Vec<ModelRow>> = (0..n_models).map(|_| Vec::new()).collect();
    let mut attributes: Vec<Vec<u32>> = vec![vec![0; n_questions]; n_attributes];
    for mut t in tallies {
        t.widen(words);
        for (m, row) in t.rows.into_iter().enumerate() {
            if row.len > 0 {
                per_model[m].push(row);
            }
        }
        for (held, theirs) in attributes.iter_mut().zip(&t.attributes) {
            for (h, &v) in held.iter_mut().zip(theirs) {
                match (*h, v) {
                    (_, 0) => {}
                    (0, v) => *h = v,
                    (x, v) if x == v => {}
                    _ => return Err(Halt::Attribute.into()),
                }
            }
        }
    }
    check()?;
    let slots_of = |rows: &Vec<ModelRow>| rows.iter().map(|r| r.len as usize).sum::<usize>();
    let mean_slots = per_model.iter().map(slots_of).sum::<usize>() / n_models.max(1) + 1;
    // Every model's rows added into one.
    let rows: Vec<ModelRow> = per_model
        .into_par_iter()
        .with_grain(SLOT_NS * (c + words) * mean_slots)
        .map(|rows| {
            check()?;
            let mut it = rows.into_iter();
            let first = it.next().unwrap_or_default();
            it.try_fold(first, |a, b| add_rows(a, b, c, words))
                .map_err(Stopped::from)
        })
        .collect::<Result<_, Stopped>>()?;
    Ok(Merged {
        categories: c,
        tables,
        rows,
        attributes,
        mean_slots,
    })
}

impl Merged {
    /// Slots held (an estimate of the naming's work).
    pub fn cells(&self) -> usize {
        self.rows.iter().map(|r| r.len as usize).sum()
    }

    /// The cells named: by model, then question, in the names' byte order.
    pub fn name(self) -> Result<CountedCells, Stopped> {
        let Merged {
            categories: c,
            tables,
            rows,
            attributes,
            mean_slots,
        } = self;
        name(c, tables, rows, attributes, mean_slots)
    }
}

fn name(
    c: usize,
    tables: Tables,
    rows: Vec<ModelRow>,
    attributes: Vec<Vec<u32>>,
    mean_slots: usize,
) -> Result<CountedCells, Stopped> {
    let n_models = tables.models.len();
    let n_questions = tables.questions.len();
    // The cells of each model, and which questions have any.
    let q_words = n_questions.div_ceil(64);
    let min_len = par::min_len(SLOT_NS * c * mean_slots);
    let cells_of: Vec<usize> = rows
        .par_iter()
        .with_min_len(min_len)
        .map(|row| (0..row.len as usize).filter(|&s| row.used(s, c)).count())
        .collect();
    let q_used = par::fold_per_thread(
        rows.len(),
        SLOT_NS * c * mean_slots,
        || vec![0u64; q_words],
        |bits, m| {
            let row = &rows[m];
            for s in 0..row.len as usize {
                if row.used(s, c) {
                    let q = row.lo as usize + s;
                    bits[q >> 6] |= 1 << (q & 63);
                }
            }
            !cancel::stopping()
        },
        |mut a, b| {
            a.iter_mut().zip(b).for_each(|(x, y)| *x |= y);
            a
        },
    )
    .ok_or(Stopped::Interrupted)?;
    let q_used: Vec<bool> = (0..n_questions).map(|q| q_used[q >> 6] >> (q & 63) & 1 == 1).collect();
    let m_used: Vec<bool> = (0..n_models).map(|m| cells_of.get(m).is_some_and(|&x| x > 0)).collect();
    let attribute_names: Vec<Vec<Box<[u8]>>> = tables.attributes.into_iter().map(|t| t.into_names()).collect();
    let (models, m_rank) = kept_sorted(tables.models.into_names(), &m_used);
    let (questions, q_rank) = kept_sorted(tables.questions.into_names(), &q_used);
    check()?;
    // Used question codes in rank order.
    let mut q_of_rank = vec![0u32; questions.len()];
    for (code, &r) in q_rank.iter().enumerate() {
        if q_used[code] {
            q_of_rank[r as usize] = code as u32;
        }
    }
    let mut order: Vec<usize> = (0..rows.len()).filter(|&m| m_used[m]).collect();
    order.sort_unstable_by_key(|&m| m_rank[m]);
    // Each model's first cell in the output (the models in rank order).
    let mut first = vec![0usize; rows.len()];
    let mut cells = 0usize;
    for &m in &order {
        first[m] = cells;
        cells += cells_of[m];
    }
    let mut model = vec![0i64; cells];
    let mut question = vec![0i64; cells];
    let mut counts = vec![0i64; cells * c];
    {
        // The models read in code order (the order their tables were made, and lie in memory:
        // read in rank order, each row was a cache miss, a fifth of the naming's time at 100 000
        // models), in runs of about `RUN_CELLS` cells, one job of the pool each, every model's
        // cells written at its own place in rank order (disjoint places: `first` and `cells_of`).
        let out = Columns {
            model: model.as_mut_ptr(),
            question: question.as_mut_ptr(),
            counts: counts.as_mut_ptr(),
            cells,
        };
        let mut runs: Vec<(usize, usize)> = Vec::with_capacity(cells / RUN_CELLS + 1);
        let mut a = 0usize;
        while a < rows.len() {
            let (mut b, mut n) = (a, 0usize);
            while b < rows.len() && (b == a || n < RUN_CELLS) {
                n += cells_of[b];
                b += 1;
            }
            runs.push((a, b));
            a = b;
        }
        let run_ns = SLOT_NS * q_of_rank.len().max(1) * (rows.len() / runs.len().max(1) + 1);
        runs.into_par_iter().with_grain(run_ns).try_for_each(|(a, b)| {
            check()?;
            for m in a..b {
                if !m_used[m] {
                    continue;
                }
                let row = &rows[m];
                let mut at = first[m];
                let mut emit = |rank: u32, slot: usize| {
                    // SAFETY: `at` runs over model m's own cells, first[m]..first[m] + cells_of[m]
                    // (one per used slot, as counted), within the columns and written by no other job.
                    unsafe { out.put(at, m_rank[m] as i64, rank as i64, &row.counts[slot * c..(slot + 1) * c]) };
                    at += 1;
                };
                if (row.len as usize) * 16 < q_of_rank.len() {
                    // Few slots among many questions: sort this row's cells by rank.
                    let mut filled: Vec<(u32, usize)> = (0..row.len as usize)
                        .filter(|&s| row.used(s, c))
                        .map(|s| (q_rank[row.lo as usize + s], s))
                        .collect();
                    filled.sort_unstable();
                    for &(rank, slot) in &filled {
                        emit(rank, slot);
                    }
                } else {
                    for (rank, &q) in q_of_rank.iter().enumerate() {
                        if q >= row.lo && q - row.lo < row.len && row.used((q - row.lo) as usize, c) {
                            emit(rank as u32, (q - row.lo) as usize);
                        }
                    }
                }
                debug_assert_eq!(at, first[m] + cells_of[m]);
            }
            Ok::<(), Stopped>(())
        })?;
    }
    // The rows' tables freed on the pool (two allocations a model: on one thread, a tenth of a
    // second at 100 000 models).
    rows.into_par_iter().with_grain(SLOT_NS * mean_slots).for_each(drop);
    let attributes = attributes
        .iter()
        .zip(&attribute_names)
        .map(|(held, values)| {
            q_of_rank
                .iter()
                .map(|&q| match held[q as usize] {
                    0 => None,
                    v => values.get(v as usize - 1).cloned(),
                })
                .collect()
        })
        .collect();
    Ok(CountedCells {
        categories: c,
        models,
        questions,
        model,
        question,
        counts,
        attributes,
    })
}

/// The output columns, written by the pool's jobs each at its own models'
/// cells: model and question ranks, and the `categories` rows of `cells`
/// category counts.
#[derive(Clone, Copy)]
struct Columns {
    model: *mut i64,
    question: *mut i64,
    counts: *mut i64,
    cells: usize,
}

// SAFETY: the jobs write disjoint cells (each model's own), and the columns outlive the jobs.
unsafe impl Send for Columns {}
unsafe impl Sync for Columns {}

impl Columns {
    /// Writes cell `at`: its model and question ranks and its category counts.
    ///
    /// # Safety
    /// `at < cells`, and no other thread writes cell `at` meanwhile.
    #[inline]
    unsafe fn put(&self, at: usize, model: i64, question: i64, counts: &[u32]) {
        debug_assert!(at < self.cells);
        *self.model.add(at) = model;
        *self.question.add(at) = question;
        for (j, &x) in counts.iter().enumerate() {
            *self.counts.add(j * self.cells + at) = x as i64;
        }
    }
}

/// Cells of a run of models written by one job of the pool.
const RUN_CELLS: usize = 4096;

/// The names kept (`keep[code]`) in byte order, and each kept code's rank
/// among them (the rank of a code not kept is meaningless).
fn kept_sorted(names: Vec<Box<[u8]>>, keep: &[bool]) -> (Vec<Box<[u8]>>, Vec<u32>) {
    let n = names.len();
    let mut codes = Vec::with_capacity(n);
    let mut kept = Vec::with_capacity(n);
    for (code, name) in names.into_iter().enumerate() {
        if keep[code] {
            codes.push(code);
            kept.push(name);
        }
    }
    let (sorted, rank_of_kept) = names::sorted(kept);
    let mut rank = vec![0u32; n];
    for (i, &code) in codes.iter().enumerate() {
        rank[code] = rank_of_kept[i];
    }
    (sorted, rank)
}
