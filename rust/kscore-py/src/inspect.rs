//! `inspect_columns`: inspect_ai's unreduced `SampleScore` list read in one
//! pass, each score's `.score.value` and `.sample_id`, into the two columns
//! `kscore.inspect` counts (python/kscore/inspect/_samples.py).
//!
//! Why here: a metric of a million scores spends most of its time on these
//! attribute reads (memory-bound walks through pydantic objects). One pass
//! reading both fields, from each model's `__dict__`, with the common cases
//! (one-letter values, int ids) stored straight into byte and int64 columns
//! and the others numbered through a dict as they come, costs about two
//! thirds of Python's two list comprehensions (benches/bench_inspect.py). It touches Python objects, so it holds the
//! interpreter (no `enter`); it only reads.

use numpy::IntoPyArray;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyString, PyType};

/// Reads fields of Python objects as `getattr` does, through the object's
/// `__dict__` when its type cannot put anything in front of it: the type
/// keeps `object.__getattribute__` and has no class attribute of any of
/// the names (so no descriptor, property or class default can win over the
/// instance dict). Pydantic models, inspect's `SampleScore` and `Score`
/// among them, keep their fields in `__dict__`. Any other type, or a name
/// missing from the dict, goes through `getattr` (its errors included).
struct Fields<'py, const N: usize> {
    names: [Bound<'py, PyString>; N],
    generic: Bound<'py, PyAny>,
    dict_name: Bound<'py, PyString>,
    /// Types met so far and whether the dict route is exact for them.
    types: Vec<(Bound<'py, PyType>, bool)>,
    /// The last type met with an exact dict route: the common case tested
    /// first, by its address alone (a list of one model's scores).
    last: Option<Bound<'py, PyType>>,
}

impl<'py, const N: usize> Fields<'py, N> {
    fn new(py: Python<'py>, names: [&str; N]) -> PyResult<Self> {
        let object = py.get_type::<PyAny>();
        Ok(Fields {
            names: names.map(|n| PyString::intern(py, n)),
            generic: object.getattr(intern!(py, "__getattribute__"))?,
            dict_name: PyString::intern(py, "__dict__"),
            types: Vec::new(),
            last: None,
        })
    }

    fn dict_route(&mut self, t: Bound<'py, PyType>) -> PyResult<bool> {
        if let Some((_, ok)) = self.types.iter().find(|(seen, _)| seen.is(&t)) {
            if *ok {
                self.last = Some(t);
            }
            return Ok(*ok);
        }
        let py = t.py();
        let mut ok = t.getattr(intern!(py, "__getattribute__"))?.is(&self.generic);
        for name in &self.names {
            ok = ok && !t.hasattr(name)?;
        }
        self.types.push((t.clone(), ok));
        if ok {
            self.last = Some(t);
        }
        Ok(ok)
    }

    /// The instance dict of `obj` when it gives the fields exactly.
    #[inline]
    fn dict(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let fast = self
            .last
            .as_ref()
            .is_some_and(|t| obj.get_type_ptr() == t.as_type_ptr());
        if !fast && !self.dict_route(obj.get_type())? {
            return Ok(None);
        }
        // (an object without one, __slots__ say: its fields through getattr)
        Ok(obj
            .getattr(&self.dict_name)
            .ok()
            .and_then(|d| d.cast_into::<PyDict>().ok()))
    }

    /// `getattr(obj, names[i])`, from `dict` when it holds it.
    #[inline]
    fn get(&self, obj: &Bound<'py, PyAny>, dict: Option<&Bound<'py, PyDict>>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let name = &self.names[i];
        if let Some(d) = dict {
            if let Some(v) = d.get_item(name)? {
                return Ok(v);
            }
        }
        obj.getattr(name)
    }
}

/// Objects numbered in order of first appearance, equal ones (as dict keys:
/// Python's hash and ==) under one code, the way Python's
/// `{v: None for v in values}` keeps them.
struct Factor<'py> {
    index: Bound<'py, PyDict>,
    distinct: Vec<Bound<'py, PyAny>>,
    codes: Vec<i64>,
    /// The first few distinct objects, found by identity before the dict
    /// (the one-letter strs and small ints Python shares).
    recent: Vec<(Bound<'py, PyAny>, i64)>,
}

impl<'py> Factor<'py> {
    fn new(py: Python<'py>, capacity: usize) -> Self {
        Factor {
            index: PyDict::new(py),
            distinct: Vec::new(),
            codes: Vec::with_capacity(capacity),
            recent: Vec::new(),
        }
    }

    fn push(&mut self, v: &Bound<'py, PyAny>) -> PyResult<()> {
        if let Some((_, c)) = self.recent.iter().find(|(o, _)| o.is(v)) {
            self.codes.push(*c);
            return Ok(());
        }
        let c = match self.index.get_item(v)? {
            Some(c) => c.extract::<i64>()?,
            None => {
                let c = i64::try_from(self.distinct.len())?;
                self.index.set_item(v, c)?;
                self.distinct.push(v.clone());
                if self.recent.len() < 8 {
                    self.recent.push((v.clone(), c));
                }
                c
            }
        };
        self.codes.push(c);
        Ok(())
    }
}

/// The values: one byte each while every value is a one-character str below
/// U+0100 (inspect's "C", "I", "P", "N"), else numbered as [`Factor`] does.
enum Values<'py> {
    Letters(Vec<u8>),
    Numbered(Factor<'py>),
}

/// The sample ids: int64 while every id is an int that fits, else numbered.
enum Ids<'py> {
    Ints(Vec<i64>),
    Numbered(Factor<'py>),
}

fn letter(v: &Bound<'_, PyAny>) -> Option<u8> {
    let s = v.cast_exact::<PyString>().ok()?;
    let text = s.to_str().ok()?;
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => u8::try_from(u32::from(c)).ok(),
        _ => None,
    }
}

fn int64(v: &Bound<'_, PyAny>) -> Option<i64> {
    v.cast_exact::<PyInt>().ok()?.extract::<i64>().ok()
}

/// The str of one latin-1 letter, made once per letter.
fn letter_strs<'py>(py: Python<'py>, bytes: &[u8]) -> Vec<Option<Bound<'py, PyAny>>> {
    let mut strs: Vec<Option<Bound<'py, PyAny>>> = vec![None; 256];
    for &b in bytes {
        strs[usize::from(b)]
            .get_or_insert_with(|| PyString::new(py, char::from(b).encode_utf8(&mut [0; 4])).into_any());
    }
    strs
}

impl<'py> Values<'py> {
    fn push(&mut self, v: Bound<'py, PyAny>) -> PyResult<()> {
        match self {
            Values::Letters(bytes) => match letter(&v) {
                Some(b) => bytes.push(b),
                None => {
                    // Numbered from here on: the earlier letters as equal strs.
                    let py = v.py();
                    let mut factor = Factor::new(py, bytes.capacity());
                    let strs = letter_strs(py, bytes);
                    for &b in bytes.iter() {
                        if let Some(s) = &strs[usize::from(b)] {
                            factor.push(s)?;
                        }
                    }
                    factor.push(&v)?;
                    *self = Values::Numbered(factor);
                }
            },
            Values::Numbered(factor) => factor.push(&v)?,
        }
        Ok(())
    }

    /// `(codes, distinct values)`.
    fn into_py(self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyList>)> {
        let factor = match self {
            Values::Numbered(factor) => factor,
            Values::Letters(bytes) => {
                // The letters' own codes, in order of first appearance.
                let strs = letter_strs(py, &bytes);
                let mut code = [-1i64; 256];
                let mut factor = Factor::new(py, 0);
                factor.codes = bytes
                    .iter()
                    .map(|&b| {
                        let slot = &mut code[usize::from(b)];
                        if *slot < 0 {
                            *slot = i64::try_from(factor.distinct.len()).unwrap_or(i64::MAX);
                            if let Some(s) = &strs[usize::from(b)] {
                                factor.distinct.push(s.clone());
                            }
                        }
                        *slot
                    })
                    .collect();
                factor
            }
        };
        Ok((
            factor.codes.into_pyarray(py).into_any(),
            PyList::new(py, factor.distinct)?,
        ))
    }
}

impl<'py> Ids<'py> {
    fn push(&mut self, v: Bound<'py, PyAny>) -> PyResult<()> {
        match self {
            Ids::Ints(ints) => match int64(&v) {
                Some(i) => ints.push(i),
                None => {
                    // Numbered from here on: the earlier ids as equal ints.
                    let py = v.py();
                    let mut factor = Factor::new(py, ints.capacity());
                    for &i in ints.iter() {
                        factor.push(&i.into_pyobject(py)?.into_any())?;
                    }
                    factor.push(&v)?;
                    *self = Ids::Numbered(factor);
                }
            },
            Ids::Numbered(factor) => factor.push(&v)?,
        }
        Ok(())
    }

    /// `(ids, None)` for int ids, else `(codes, distinct ids)`.
    fn into_py(self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Option<Bound<'py, PyList>>)> {
        match self {
            Ids::Ints(ints) => Ok((ints.into_pyarray(py).into_any(), None)),
            Ids::Numbered(factor) => Ok((
                factor.codes.into_pyarray(py).into_any(),
                Some(PyList::new(py, factor.distinct)?),
            )),
        }
    }
}

/// The two columns of a list of scores: `(value codes, distinct values,
/// ids or id codes, distinct ids or None)`.
type Columns<'py> = (
    Bound<'py, PyAny>,
    Bound<'py, PyList>,
    Bound<'py, PyAny>,
    Option<Bound<'py, PyList>>,
);

/// Each score's `.score.value` and `.sample_id`, as `getattr` reads them,
/// in one pass. The values numbered in order of first appearance (equal
/// values, as dict keys, one number): int64 codes and the distinct values.
/// The ids: an int64 array of the ids themselves when every one is an int
/// that fits (and None), else numbered as the values are. An unhashable
/// value or id raises TypeError.
#[pyfunction]
pub fn inspect_columns<'py>(py: Python<'py>, scores: &Bound<'py, PyList>) -> PyResult<Columns<'py>> {
    let n = scores.len();
    let mut outer = Fields::new(py, ["score", "sample_id"])?;
    let mut inner = Fields::new(py, ["value"])?;
    let mut values = Values::Letters(Vec::with_capacity(n));
    let mut ids = Ids::Ints(Vec::with_capacity(n));
    // (the list's own iterator: a list changed meanwhile is read as it stands)
    for s in scores.iter() {
        let d = outer.dict(&s)?;
        let score = outer.get(&s, d.as_ref(), 0)?;
        let sid = outer.get(&s, d.as_ref(), 1)?;
        let d = inner.dict(&score)?;
        values.push(inner.get(&score, d.as_ref(), 0)?)?;
        ids.push(sid)?;
    }
    let (codes, distinct) = values.into_py(py)?;
    let (id_codes, distinct_ids) = ids.into_py(py)?;
    Ok((codes, distinct, id_codes, distinct_ids))
}
