//! `kscore._kscore`: the thin PyO3 layer over `kscore-core`. Numpy in, numbers
//! out; every call goes through `enter::enter` (interpreter released, panics
//! caught, errors mapped). No numerics live here.

use pyo3::prelude::*;

mod bank;
mod credit;
mod enter;
mod matrix;

#[pymodule]
fn _kscore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<credit::Credit>()?;
    m.add_class::<bank::BinaryBank>()?;
    Ok(())
}
