//! `inspect_columns`: inspect_ai's unreduced `SampleScore` list read in one
//! pass, each score's `.score.value` and `.sample_id`, into the two columns
//! `kscore.inspect` counts (python/kscore/inspect/_samples.py).
//!
//! Why here: a metric of a million scores spends most of its time on these
//! attribute reads (memory-bound walks through pydantic objects). One pass
//! reading both fields, from each model's `__dict__`, with the common cases
//! (one-letter values, int ids) stored straight into byte and int64 columns,
//! costs about two thirds of Python's two list comprehensions
//! (benches/bench_inspect.py). It touches Python objects, so it holds the
//! interpreter (no `enter`); it only reads.

use numpy::IntoPyArray;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyType};

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

/// The values: one byte each while every value is a one-character str below
/// U+0100 (inspect's "C", "I", "P", "N"), else the value objects.
enum Values<'py> {
    Letters(Vec<u8>),
    Objects(Vec<Bound<'py, PyAny>>),
}

/// The sample ids: int64 while every id is an int that fits, else the id objects.
enum Ids<'py> {
    Ints(Vec<i64>),
    Objects(Vec<Bound<'py, PyAny>>),
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

impl<'py> Values<'py> {
    fn push(&mut self, v: Bound<'py, PyAny>) {
        match self {
            Values::Letters(bytes) => match letter(&v) {
                Some(b) => bytes.push(b),
                None => {
                    // Back to objects: the earlier letters as equal strs.
                    let py = v.py();
                    let mut letters: Vec<Option<Bound<'py, PyAny>>> = vec![None; 256];
                    let mut objs: Vec<Bound<'py, PyAny>> = Vec::with_capacity(bytes.capacity());
                    for &b in bytes.iter() {
                        let s = letters[usize::from(b)].get_or_insert_with(|| {
                            PyString::new(py, char::from(b).encode_utf8(&mut [0; 4])).into_any()
                        });
                        objs.push(s.clone());
                    }
                    objs.push(v);
                    *self = Values::Objects(objs);
                }
            },
            Values::Objects(objs) => objs.push(v),
        }
    }

    fn into_py(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Values::Letters(bytes) => Ok(PyBytes::new(py, &bytes).into_any()),
            Values::Objects(objs) => Ok(PyList::new(py, objs)?.into_any()),
        }
    }
}

impl<'py> Ids<'py> {
    fn push(&mut self, v: Bound<'py, PyAny>) -> PyResult<()> {
        match self {
            Ids::Ints(ints) => match int64(&v) {
                Some(i) => ints.push(i),
                None => {
                    let py = v.py();
                    let mut objs: Vec<Bound<'py, PyAny>> = Vec::with_capacity(ints.capacity());
                    for &i in ints.iter() {
                        objs.push(i.into_pyobject(py)?.into_any());
                    }
                    objs.push(v);
                    *self = Ids::Objects(objs);
                }
            },
            Ids::Objects(objs) => objs.push(v),
        }
        Ok(())
    }

    fn into_py(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Ids::Ints(ints) => Ok(ints.into_pyarray(py).into_any()),
            Ids::Objects(objs) => Ok(PyList::new(py, objs)?.into_any()),
        }
    }
}

/// Each score's `.score.value` and `.sample_id`, as `getattr` reads them,
/// in one pass: `(values, ids)`, values a `bytes` (one latin-1 code per
/// score, when every value is a one-character str below U+0100) or a list,
/// ids an int64 array (every id an int in int64) or a list.
#[pyfunction]
pub fn inspect_columns<'py>(
    py: Python<'py>,
    scores: &Bound<'py, PyList>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
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
        values.push(inner.get(&score, d.as_ref(), 0)?);
        ids.push(sid)?;
    }
    Ok((values.into_py(py)?, ids.into_py(py)?))
}
