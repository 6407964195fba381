//! `RowBoard` and `RowShard`: the leaderboard's long-format rows counted
//! per (model, question) in the core (`kscore_core::intake::rows`) on
//! every core. A board holds the name tables; each reading thread counts
//! into a shard of its own (Arrow batches as numpy views of their buffers,
//! or CSV/JSON Lines text), and `RowBoard.finish` adds the shards up and
//! names the cells. Rows the core cannot vouch for return why, and the
//! caller counts the input the general way.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use kscore_core::intake::rows::text::{Format, Layout, Outcome, Place, TextReader};
use kscore_core::intake::rows::{self, Axis, Halt, Ids, Ints, Local, Names, Stopped, Tally};
use kscore_core::Error;

use crate::enter::{enter, enter_long, enter_once};

/// A borrowed integer vector of any of the widths the core counts.
enum IntVector<'py> {
    I8(PyReadonlyArray1<'py, i8>),
    U8(PyReadonlyArray1<'py, u8>),
    I16(PyReadonlyArray1<'py, i16>),
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

fn borrow<'py, T: numpy::Element>(obj: &Bound<'py, PyAny>) -> Option<PyResult<PyReadonlyArray1<'py, T>>> {
    obj.cast::<PyArray1<T>>()
        .ok()
        .map(|a| a.try_readonly().map_err(|e| PyValueError::new_err(e.to_string())))
}

fn contiguous<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| PyValueError::new_err(format!("{what} must be contiguous")))
}

impl<'py> IntVector<'py> {
    fn of(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Option<Self>> {
        Ok(Some(if let Some(a) = borrow::<i8>(obj) {
            IntVector::I8(a?)
        } else if let Some(a) = borrow::<u8>(obj) {
            IntVector::U8(a?)
        } else if let Some(a) = borrow::<i16>(obj) {
            IntVector::I16(a?)
        } else if let Some(a) = borrow::<i32>(obj) {
            IntVector::I32(a?)
        } else if let Some(a) = borrow::<i64>(obj) {
            IntVector::I64(a?)
        } else {
            let _ = name;
            return Ok(None);
        }))
    }

    fn required(obj: &Bound<'py, PyAny>, name: &str) -> PyResult<Self> {
        Self::of(obj, name)?.ok_or_else(|| {
            PyTypeError::new_err(format!("{name} must be a 1-D int8/uint8/int16/int32/int64 numpy array"))
        })
    }

    fn ints(&self) -> PyResult<Ints<'_>> {
        Ok(match self {
            IntVector::I8(a) => Ints::I8(contiguous(a, "arrays")?),
            IntVector::U8(a) => Ints::U8(contiguous(a, "arrays")?),
            IntVector::I16(a) => Ints::I16(contiguous(a, "arrays")?),
            IntVector::I32(a) => Ints::I32(contiguous(a, "arrays")?),
            IntVector::I64(a) => Ints::I64(contiguous(a, "arrays")?),
        })
    }
}

/// Dictionary offsets: int32 (string) or int64 (large_string).
enum Offsets<'py> {
    I32(PyReadonlyArray1<'py, i32>),
    I64(PyReadonlyArray1<'py, i64>),
}

/// An id column as Python gave it: a code for every row, a dictionary
/// column `(indices, offsets, data)`, or integers.
enum IdArg<'py> {
    Constant(u32),
    Dictionary(PyReadonlyArray1<'py, i32>, Offsets<'py>, PyReadonlyArray1<'py, u8>),
    Integers(IntVector<'py>),
}

impl<'py> IdArg<'py> {
    fn of(obj: &Bound<'py, PyAny>, name: &str, constant_ok: bool) -> PyResult<Self> {
        if constant_ok {
            if let Ok(code) = obj.extract::<u32>() {
                return Ok(IdArg::Constant(code));
            }
        }
        if let Some(v) = IntVector::of(obj, name)? {
            return Ok(IdArg::Integers(v));
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            if t.len() == 3 {
                let idx =
                    borrow::<i32>(&t.get_item(0)?).ok_or_else(|| PyTypeError::new_err("indices must be int32"))??;
                let off = t.get_item(1)?;
                let offsets = if let Some(o) = borrow::<i32>(&off) {
                    Offsets::I32(o?)
                } else if let Some(o) = borrow::<i64>(&off) {
                    Offsets::I64(o?)
                } else {
                    return Err(PyTypeError::new_err(
                        "dictionary offsets must be an int32 or int64 numpy array",
                    ));
                };
                let data =
                    borrow::<u8>(&t.get_item(2)?).ok_or_else(|| PyTypeError::new_err("data must be uint8"))??;
                return Ok(IdArg::Dictionary(idx, offsets, data));
            }
        }
        Err(PyTypeError::new_err(format!(
            "{name} must be {}a dictionary column (indices, offsets, data) or an integer array",
            if constant_ok { "a code, " } else { "" }
        )))
    }

    fn slices(&self) -> PyResult<IdSlices<'_>> {
        Ok(match self {
            IdArg::Constant(c) => IdSlices::Constant(*c),
            IdArg::Integers(v) => IdSlices::Integers(v.ints()?),
            IdArg::Dictionary(idx, off, data) => IdSlices::Dictionary(
                contiguous(idx, "indices")?,
                match off {
                    Offsets::I32(o) => OffsetSlice::I32(contiguous(o, "offsets")?),
                    Offsets::I64(o) => OffsetSlice::I64(contiguous(o, "offsets")?),
                },
                contiguous(data, "data")?,
            ),
        })
    }
}

#[derive(Clone, Copy)]
enum OffsetSlice<'a> {
    I32(&'a [i32]),
    I64(&'a [i64]),
}

/// An id column's buffers, readable without the interpreter.
#[derive(Clone, Copy)]
enum IdSlices<'a> {
    Constant(u32),
    Dictionary(&'a [i32], OffsetSlice<'a>, &'a [u8]),
    Integers(Ints<'a>),
}

/// An id column with its codes: indices borrowed or made, codes made.
enum Resolved<'a> {
    Constant(u32),
    Borrowed(&'a [i32], Vec<u32>),
    Made(Vec<i32>, Vec<u32>),
}

impl Resolved<'_> {
    fn ids(&self) -> Ids<'_> {
        match self {
            Resolved::Constant(c) => Ids::Constant(*c),
            Resolved::Borrowed(idx, codes) => Ids::Coded(idx, codes),
            Resolved::Made(idx, codes) => Ids::Coded(idx, codes),
        }
    }
}

fn resolve<'a>(s: IdSlices<'a>, names: &Names, local: &mut Local, axis: Axis) -> Result<Resolved<'a>, Halt> {
    Ok(match s {
        IdSlices::Constant(c) => Resolved::Constant(c),
        IdSlices::Integers(v) => {
            let (idx, codes) = rows::int_ids(v, names, local, axis);
            Resolved::Made(idx, codes)
        }
        IdSlices::Dictionary(idx, off, data) => {
            let mut t = names.lock();
            let codes = match off {
                OffsetSlice::I32(o) => t.of(axis).dictionary(o, data),
                OffsetSlice::I64(o) => t.of(axis).dictionary(o, data),
            };
            Resolved::Borrowed(idx, codes.ok_or(Halt::Index)?)
        }
    })
}

/// What every shard of a board shares.
struct Shared {
    names: Names,
    categories: usize,
    ids: usize,
    words: usize,
    attributes: usize,
}

/// One thread's counting: its tally, its memory of names, its text reader;
/// None once it halted or was finished.
struct ShardState {
    tally: Tally,
    local: Local,
    reader: Option<TextReader>,
}

/// The name tables of one count, and the shards counting into them.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct RowBoard {
    shared: Arc<Shared>,
    stage: Mutex<Stage>,
}

/// Where a board is: counting into its shards, merged, or done.
enum Stage {
    Counting,
    Merged(Box<rows::Merged>),
    Done,
}

/// One reading thread's counts of a `RowBoard`.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct RowShard {
    shared: Arc<Shared>,
    state: Mutex<Option<ShardState>>,
}

/// A lock, without waiting: a thread that waited for it while holding the
/// interpreter could deadlock with the holder, which releases the
/// interpreter while it counts and needs it back to return.
fn try_lock<T>(inner: &Mutex<T>) -> PyResult<MutexGuard<'_, T>> {
    match inner.try_lock() {
        Ok(guard) => Ok(guard),
        Err(TryLockError::Poisoned(e)) => Ok(e.into_inner()),
        Err(TryLockError::WouldBlock) => Err(PyRuntimeError::new_err("this RowShard is in use by another thread")),
    }
}

fn spent() -> PyErr {
    PyRuntimeError::new_err("this RowShard has stopped or finished")
}

#[pymethods]
impl RowBoard {
    /// `ids`: sample ids are `0..ids` (0: no sample column); `attributes`:
    /// question attributes carried; `grow`: start each cell with one word
    /// of ids seen and add words as larger ids come (inputs whose largest
    /// id is not known beforehand).
    #[new]
    #[pyo3(signature = (categories, ids, attributes=0, grow=false))]
    fn new(categories: usize, ids: usize, attributes: usize, grow: bool) -> PyResult<Self> {
        if categories < 2 {
            return Err(PyValueError::new_err("categories must be at least 2"));
        }
        if ids > rows::MAX_IDS {
            return Err(PyValueError::new_err(format!("ids must be at most {}", rows::MAX_IDS)));
        }
        Ok(RowBoard {
            shared: Arc::new(Shared {
                names: Names::new(attributes),
                categories,
                ids,
                words: if grow { 1 } else { ids.div_ceil(64) },
                attributes,
            }),
            stage: Mutex::new(Stage::Counting),
        })
    }

    /// The code of a model (or, with `attribute`, of that attribute's value)
    /// named once for a whole batch (a file's model, a hive folder's value).
    #[pyo3(signature = (name, attribute=None))]
    fn code(&self, name: &str, attribute: Option<usize>) -> PyResult<u32> {
        let axis = match attribute {
            None => Axis::Model,
            Some(i) if i < self.shared.attributes => Axis::Attribute(i),
            Some(_) => return Err(PyValueError::new_err("no such attribute")),
        };
        Ok(self.shared.names.lock().of(axis).code(name.as_bytes()))
    }

    /// A shard for one reading thread.
    fn shard(&self) -> RowShard {
        let s = &self.shared;
        RowShard {
            shared: Arc::clone(s),
            state: Mutex::new(Some(ShardState {
                tally: Tally::new(s.categories, s.ids, s.words, s.attributes),
                local: Local::default(),
                reader: None,
            })),
        }
    }

    /// Add up the counts of `shards` (each reading thread's), per model on
    /// every core. Returns None, or why they cannot be used (a sample id
    /// counted by two shards, two values of an attribute for one question);
    /// then `name` gives the cells.
    fn merge<'py>(&self, py: Python<'py>, shards: Vec<Bound<'py, RowShard>>) -> PyResult<Option<&'static str>> {
        let mut stage = try_lock(&self.stage)?;
        if !matches!(*stage, Stage::Counting) {
            return Err(PyRuntimeError::new_err("this RowBoard has merged its shards"));
        }
        let mut tallies = Vec::with_capacity(shards.len());
        for s in &shards {
            let s = s.get();
            if !Arc::ptr_eq(&s.shared, &self.shared) {
                return Err(PyValueError::new_err("a shard of another board"));
            }
            let state = try_lock(&s.state)?.take().ok_or_else(spent)?;
            tallies.push(state.tally);
        }
        let slots: usize = tallies.iter().map(|t| t.cells()).sum();
        // The tables are taken out of the shared board (every shard is done).
        let tables = std::mem::take(&mut *self.shared.names.lock());
        let work = Mutex::new(Some((tables, tallies)));
        let out = enter_long(py, slots.saturating_mul(20), || {
            let (tables, tallies) = taken(&work)?;
            stopped(rows::merge(tables, tallies))
        })?;
        Ok(match out {
            Ok(merged) => {
                *stage = Stage::Merged(Box::new(merged));
                None
            }
            Err(why) => {
                *stage = Stage::Done;
                Some(why)
            }
        })
    }

    /// The merged counts named: (models, questions) sorted, per cell (by
    /// model, then question) its model and question index, the category
    /// counts as a `categories x cells` int64 array, and per attribute each
    /// question's value (None where none); or why they cannot be used (a
    /// name that is not UTF-8).
    fn name(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let merged = {
            let mut stage = try_lock(&self.stage)?;
            match std::mem::replace(&mut *stage, Stage::Done) {
                Stage::Merged(m) => *m,
                _ => return Err(PyRuntimeError::new_err("merge the shards first (once)")),
            }
        };
        let cells = merged.cells();
        let work = Mutex::new(Some(merged));
        let out = enter_long(py, cells.saturating_mul(40), || stopped(taken(&work)?.name()))?;
        let out = match out {
            Ok(out) => out,
            Err(why) => return Ok(why.into_pyobject(py)?.into_any().unbind()),
        };
        let not_utf8 =
            || -> PyResult<Py<PyAny>> { Ok("a name that is not UTF-8".into_pyobject(py)?.into_any().unbind()) };
        let text = |names: Vec<Box<[u8]>>| -> Option<Vec<String>> {
            names
                .into_iter()
                .map(|n| String::from_utf8(n.into_vec()).ok())
                .collect()
        };
        let cells = out.model.len();
        let (Some(models), Some(questions)) = (text(out.models), text(out.questions)) else {
            return not_utf8();
        };
        let mut attributes = Vec::with_capacity(out.attributes.len());
        for values in out.attributes {
            let mut list: Vec<Option<String>> = Vec::with_capacity(values.len());
            for v in values {
                match v.map(|v| String::from_utf8(v.into_vec())) {
                    None => list.push(None),
                    Some(Ok(s)) => list.push(Some(s)),
                    Some(Err(_)) => return not_utf8(),
                }
            }
            attributes.push(PyList::new(py, list)?);
        }
        let counts = ndarray::Array2::from_shape_vec((out.categories, cells), out.counts)
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let result = (
            PyList::new(py, models)?,
            PyList::new(py, questions)?,
            out.model.into_pyarray(py),
            out.question.into_pyarray(py),
            counts.into_pyarray(py),
            PyList::new(py, attributes)?,
        );
        Ok(result.into_pyobject(py)?.into_any().unbind())
    }
}

/// The work a call hands over, taken once (a call run again after another
/// call's interrupt finds it gone and says so).
fn taken<T>(work: &Mutex<Option<T>>) -> Result<T, Error> {
    work.lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
        .ok_or_else(|| Error::Value("the count was stopped by another call's interrupt; run it again".into()))
}

/// A finishing step's result: the value, why the counts cannot be used, or an interrupt.
fn stopped<T>(r: Result<T, Stopped>) -> Result<Result<T, &'static str>, Error> {
    match r {
        Ok(v) => Ok(Ok(v)),
        Err(Stopped::Halt(h)) => Ok(Err(h.reason())),
        Err(Stopped::Interrupted) => Err(Error::Interrupted),
    }
}

/// Run `count` on the shard's state without the interpreter; a halt spends
/// the shard and is returned as its reason.
fn counting<T: Send>(
    py: Python<'_>,
    shard: &RowShard,
    count: impl FnOnce(&Shared, &mut ShardState) -> Result<T, Halt> + Send,
) -> PyResult<Result<T, &'static str>> {
    let mut guard = try_lock(&shard.state)?;
    let state = guard.as_mut().ok_or_else(spent)?;
    let shared = &*shard.shared;
    let out = enter_once(py, || count(shared, state))?;
    if out.is_err() {
        *guard = None;
    }
    Ok(out.map_err(Halt::reason))
}

#[pymethods]
impl RowShard {
    /// Count one batch. `model`: a code (`RowBoard.code`), a dictionary
    /// column `(indices, offsets, data)` or an integer array; `question`: a
    /// dictionary column or an integer array; `outcome`, `sample`: integer
    /// arrays; `attributes`: one id column (as `model`) per attribute.
    /// Returns None, or why the rows cannot be counted here (the shard is
    /// then spent).
    #[pyo3(signature = (model, question, outcome, sample=None, attributes=Vec::new()))]
    fn add(
        &self,
        py: Python<'_>,
        model: &Bound<'_, PyAny>,
        question: &Bound<'_, PyAny>,
        outcome: &Bound<'_, PyAny>,
        sample: Option<&Bound<'_, PyAny>>,
        attributes: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<Option<&'static str>> {
        let outcome = IntVector::required(outcome, "outcome")?;
        let sample = sample.map(|s| IntVector::required(s, "sample")).transpose()?;
        let model = IdArg::of(model, "model", true)?;
        let question = IdArg::of(question, "question", false)?;
        let attributes = attributes
            .iter()
            .map(|a| IdArg::of(a, "an attribute", true))
            .collect::<PyResult<Vec<_>>>()?;
        let (m, q) = (model.slices()?, question.slices()?);
        let xs = attributes.iter().map(IdArg::slices).collect::<PyResult<Vec<_>>>()?;
        let v = outcome.ints()?;
        let s = sample.as_ref().map(IntVector::ints).transpose()?;
        let out = counting(py, self, |shared, state| {
            let names = &shared.names;
            let m = resolve(m, names, &mut state.local, Axis::Model)?;
            let q = resolve(q, names, &mut state.local, Axis::Question)?;
            let xs = xs
                .iter()
                .enumerate()
                .map(|(i, &x)| resolve(x, names, &mut state.local, Axis::Attribute(i)))
                .collect::<Result<Vec<_>, Halt>>()?;
            let ids: Vec<Ids<'_>> = xs.iter().map(Resolved::ids).collect();
            state.tally.add(m.ids(), q.ids(), v, s, &ids)
        })?;
        Ok(out.err())
    }

    /// Count the lines of `data[start:until]` (`start` a line start; the
    /// line under way at `until` is read to its end) of the layout `layout`;
    /// a last line without its line end only if `last`. `model`: the code of
    /// every line's model where the layout has no model column. Returns the
    /// offset where the unread rest begins (an incomplete last line), or why
    /// the lines cannot be counted here (the shard is then spent).
    #[pyo3(signature = (layout, data, start, until, last, model=None))]
    #[allow(clippy::too_many_arguments)]
    fn add_text(
        &self,
        py: Python<'_>,
        layout: &TextLayout,
        data: &Bound<'_, PyAny>,
        start: usize,
        until: usize,
        last: bool,
        model: Option<u32>,
    ) -> PyResult<Py<PyAny>> {
        let data = borrow::<u8>(data).ok_or_else(|| PyTypeError::new_err("data must be a uint8 numpy array"))??;
        let buf = contiguous(&data, "data")?;
        if start > buf.len() {
            return Err(PyValueError::new_err("start past the data"));
        }
        let layout = &layout.0;
        let out = counting(py, self, |shared, state| {
            if state.reader.is_none() {
                state.reader = Some(TextReader::new(layout.clone(), shared.categories)?);
            }
            let reader = state.reader.as_mut().ok_or(Halt::Length)?;
            reader.count(
                buf,
                start,
                until,
                last,
                model,
                &shared.names,
                &mut state.local,
                &mut state.tally,
            )
        })?;
        Ok(match out {
            Ok(at) => at.into_pyobject(py)?.into_any().unbind(),
            Err(why) => why.into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// Cells counted so far.
    fn cells(&self) -> PyResult<usize> {
        Ok(try_lock(&self.state)?.as_ref().map_or(0, |s| s.tally.cells()))
    }
}

/// What a text reader reads from each line (`kscore_core`'s `Layout`):
/// `format` "csv" (with `delimiter` and `columns`, fields by position) or
/// "jsonl" (fields by key); `outcome_is` "number", "boolean" or "words";
/// `numeric_ids`: per id field (model, question, attributes...) whether
/// JSON Lines writes it as a number.
#[pyclass(frozen, module = "kscore._kscore")]
pub struct TextLayout(Layout);

fn place(obj: &Bound<'_, PyAny>) -> PyResult<Place> {
    if let Ok(i) = obj.extract::<usize>() {
        return Ok(Place::Column(i));
    }
    if let Ok(s) = obj.extract::<String>() {
        return Ok(Place::Key(s.into_bytes()));
    }
    Err(PyTypeError::new_err("a field is a column position or a key"))
}

#[pymethods]
impl TextLayout {
    #[new]
    #[pyo3(signature = (format, model, question, outcome, outcome_is, sample=None, attributes=Vec::new(),
                        delimiter=",", columns=0, numeric_ids=Vec::new()))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        format: &str,
        model: Option<&Bound<'_, PyAny>>,
        question: &Bound<'_, PyAny>,
        outcome: &Bound<'_, PyAny>,
        outcome_is: &str,
        sample: Option<&Bound<'_, PyAny>>,
        attributes: Vec<Bound<'_, PyAny>>,
        delimiter: &str,
        columns: usize,
        numeric_ids: Vec<bool>,
    ) -> PyResult<Self> {
        let format = match format {
            "csv" => match delimiter.as_bytes() {
                &[d] if d != b'"' && d != b'\n' && d != b'\r' => Format::Csv { delimiter: d, columns },
                _ => return Err(PyValueError::new_err("the delimiter must be one byte")),
            },
            "jsonl" => Format::JsonLines,
            _ => return Err(PyValueError::new_err("format must be 'csv' or 'jsonl'")),
        };
        let outcome_is = match outcome_is {
            "number" => Outcome::Number,
            "boolean" => Outcome::Boolean,
            "words" => Outcome::Words,
            _ => {
                return Err(PyValueError::new_err(
                    "outcome_is must be 'number', 'boolean' or 'words'",
                ))
            }
        };
        Ok(TextLayout(Layout {
            format,
            model: model.map(place).transpose()?,
            question: place(question)?,
            outcome: place(outcome)?,
            outcome_is,
            sample: sample.map(place).transpose()?,
            attributes: attributes.iter().map(place).collect::<PyResult<_>>()?,
            numeric_ids,
        }))
    }
}

/// The distinct states of a board's cells (`kscore_core::intake::cells`):
/// `cols`, one contiguous int64 array per category (each value in
/// `0..radix[j]`), to the distinct keys in mixed radix (ascending, int64)
/// and each cell's index among them (int8, int16, int32 or int64: the
/// smallest that holds them).
#[pyfunction]
pub fn cell_states<'py>(
    py: Python<'py>,
    cols: Vec<PyReadonlyArray1<'py, i64>>,
    radix: Vec<usize>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyAny>)> {
    let slices: Vec<&[i64]> = cols
        .iter()
        .map(|c| contiguous(c, "each category column"))
        .collect::<PyResult<_>>()?;
    let (keys, codes) = enter(py, || kscore_core::intake::cells::cell_states(&slices, &radix))?;
    use kscore_core::intake::cells::StateCodes;
    let codes = match codes {
        StateCodes::I8(v) => v.into_pyarray(py).into_any(),
        StateCodes::I16(v) => v.into_pyarray(py).into_any(),
        StateCodes::I32(v) => v.into_pyarray(py).into_any(),
        StateCodes::I64(v) => v.into_pyarray(py).into_any(),
    };
    Ok((keys.into_pyarray(py), codes))
}

/// Cells per (model, state) (models x states, int64) where the cells are
/// the grid (model `i`'s cells `i * questions ..`, model code `i`,
/// questions `0..questions` in order); None where they are not. `of_row`:
/// each cell's state, uint8 or uint16.
#[pyfunction]
pub fn grid_table<'py>(
    py: Python<'py>,
    of_row: &Bound<'py, PyAny>,
    model: PyReadonlyArray1<'py, i64>,
    question: PyReadonlyArray1<'py, i64>,
    models: usize,
    questions: usize,
    states: usize,
) -> PyResult<Option<Bound<'py, numpy::PyArray2<i64>>>> {
    let m = contiguous(&model, "model")?;
    let q = contiguous(&question, "question")?;
    macro_rules! run {
        ($ty:ty) => {{
            let a = borrow::<$ty>(of_row).ok_or_else(|| PyTypeError::new_err("of_row must be uint8 or uint16"))??;
            let s = contiguous(&a, "of_row")?;
            enter(py, || {
                Ok(kscore_core::intake::cells::grid_table(
                    s, m, q, models, questions, states,
                ))
            })?
        }};
    }
    let table = if of_row.cast::<PyArray1<u8>>().is_ok() {
        run!(u8)
    } else if of_row.cast::<PyArray1<u16>>().is_ok() {
        run!(u16)
    } else {
        return Err(PyTypeError::new_err("of_row must be uint8 or uint16"));
    };
    match table {
        None => Ok(None),
        Some(t) => {
            let arr = ndarray::Array2::from_shape_vec((models, states), t)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(Some(arr.into_pyarray(py)))
        }
    }
}
