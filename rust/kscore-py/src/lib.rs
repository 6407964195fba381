//! `kscore._kscore`: the thin PyO3 layer over `kscore-core`. Numpy in, numbers
//! out; every call goes through `enter::enter` (interpreter released, panics
//! caught, errors mapped). No numerics live here.

use pyo3::prelude::*;

mod aggregate;
mod aggregate_confidence;
mod bank;
mod battles;
mod categorical;
mod choice;
mod counts;
mod credit;
mod enter;
mod grid_sums;
mod inspect;
mod interval;
mod irt;
mod matrix;
mod pairwise;
mod posterior;
mod rank;
mod rankers;
mod ratings;
mod rows;
mod tailpass;
mod text;

/// Inverse standard normal CDF (Cephes `ndtri`, as `scipy.special.ndtri`).
#[pyfunction]
fn ndtri(py: Python<'_>, p: f64) -> PyResult<f64> {
    enter::enter(py, || Ok(kscore_core::numeric::ndtri::ndtri(p)))
}

/// Set the core's parallel grain in estimated nanoseconds (0 restores the
/// default) and return the previous one. For tests and measurements only:
/// results never depend on it (docs/threads.md).
#[pyfunction]
fn _set_parallel_grain(ns: usize) -> usize {
    kscore_core::par::set_grain(ns)
}

/// Set the smallest piece a split call is cut into, in estimated
/// nanoseconds (0 restores the default), and return the previous one. For
/// measurements only (benches/grain_scan.py): results never depend on it.
#[pyfunction]
fn _set_parallel_piece(ns: usize) -> usize {
    kscore_core::par::set_piece(ns)
}

/// Run the core's parallel work on `n` threads (0: the default, every
/// core); returns the threads it uses now (docs/threads.md, *Thread count*).
#[pyfunction]
fn _set_threads(n: usize) -> usize {
    enter::set_threads(n)
}

/// The vector code of the intake in this build on this CPU: "sse2+avx2",
/// "sse2" or "portable" (other architectures, or built with the
/// `force-scalar` feature).
#[pyfunction]
fn _vector_paths() -> &'static str {
    kscore_core::intake::vector_paths()
}

/// rust-numpy finds numpy's C tables (and its borrow checker's) on first
/// use by running numpy's own Python code (`numpy.lib.NumpyVersion`), and
/// panics if that raises: a Ctrl-C landing there became a panic in the first
/// call that made an array (the leaderboard's metrics phase). Found here
/// instead, while the package imports this module with Ctrl-C held
/// (`kscore/__init__.py`).
fn prime_numpy(py: Python<'_>) {
    use numpy::PyArrayMethods as _;
    let empty = numpy::PyArray1::<f64>::zeros(py, 0, false);
    drop(empty.readonly());
}

// No global interpreter state is touched outside `enter` (the interpreter is
// released there) but by `inspect_columns`, which only reads a list through
// PyO3's owned references, and every class is frozen: safe without the GIL.
#[pymodule(gil_used = false)]
fn _kscore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    enter::note_loading_process();
    // KSCORE_THREADS sizes the pool before any call (docs/threads.md).
    if let Some(n) = std::env::var("KSCORE_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
    {
        if n > 0 {
            enter::set_threads(n);
        }
    }
    prime_numpy(m.py());
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(aggregate::group_answers, m)?)?;
    m.add_function(wrap_pyfunction!(aggregate::vote, m)?)?;
    m.add_class::<credit::Credit>()?;
    m.add_function(wrap_pyfunction!(credit::metric_table, m)?)?;
    m.add_function(wrap_pyfunction!(grid_sums::grid_sums, m)?)?;
    m.add_function(wrap_pyfunction!(grid_sums::segment_sums, m)?)?;
    m.add_function(wrap_pyfunction!(grid_sums::gather_rows, m)?)?;
    m.add_function(wrap_pyfunction!(interval::interval_envelope, m)?)?;
    m.add_function(wrap_pyfunction!(interval::interval_bounds, m)?)?;
    m.add_class::<bank::BinaryBank>()?;
    m.add_class::<counts::CountStates>()?;
    m.add_function(wrap_pyfunction!(ndtri, m)?)?;
    m.add_function(wrap_pyfunction!(_set_parallel_grain, m)?)?;
    m.add_function(wrap_pyfunction!(_vector_paths, m)?)?;
    m.add_function(wrap_pyfunction!(_set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(_set_parallel_piece, m)?)?;
    m.add_class::<categorical::CategoryCounts>()?;
    m.add_class::<rows::RowBoard>()?;
    m.add_class::<rows::RowShard>()?;
    m.add_class::<rows::TextLayout>()?;
    m.add_function(wrap_pyfunction!(rows::cell_states, m)?)?;
    m.add_function(wrap_pyfunction!(rows::grid_table, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::bayes, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::dirichlet_of_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::avg, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::observed_mean, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::max_at_k, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::max_at_k_of_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::max_at_k_posterior, m)?)?;
    m.add_function(wrap_pyfunction!(categorical::max_at_k_posterior_of_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(posterior::posterior_moments, m)?)?;
    m.add_function(wrap_pyfunction!(posterior::joint_posterior_moments, m)?)?;
    m.add_function(wrap_pyfunction!(posterior::delta_blend, m)?)?;
    m.add_function(wrap_pyfunction!(posterior::blend, m)?)?;
    m.add_function(wrap_pyfunction!(posterior::geom_posterior, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_state_tails, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_payoff_moments, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_endpoint, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_covariance, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_empirical, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_draw_tails, m)?)?;
    m.add_function(wrap_pyfunction!(tailpass::tailpass_add_gamma_tails, m)?)?;
    m.add_function(wrap_pyfunction!(inspect::inspect_columns, m)?)?;
    m.add_function(wrap_pyfunction!(rank::max_t_block, m)?)?;
    rank::register_lattice(m)?;
    pairwise::register(m)?;
    choice::register(m)?;
    ratings::register(m)?;
    // scorio.rank's pairwise, voting and graph rankers (rankers.rs)
    m.add_function(wrap_pyfunction!(rankers::rank_board, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::schulze_paths, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::ranked_pairs_lock, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::dominance_levels, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::majority_classes, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::kemeny_search, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::markov_stationary, m)?)?;
    m.add_function(wrap_pyfunction!(rankers::inverse_difficulty_scores, m)?)?;
    // arena (python/kscore/arena/): battles to ratings
    m.add_class::<battles::BattleBoard>()?;
    m.add_class::<battles::StyleBoard>()?;
    m.add_function(wrap_pyfunction!(battles::battle_board, m)?)?;
    m.add_function(wrap_pyfunction!(battles::style_board, m)?)?;
    m.add_function(wrap_pyfunction!(battles::encode_strings, m)?)?;
    m.add_function(wrap_pyfunction!(battles::encode_sorted_strings, m)?)?;
    m.add_function(wrap_pyfunction!(battles::code_battles, m)?)?;
    // irt (python/kscore/rank/_irt/): item response theory fits
    irt::register(m)?;
    // kscore.aggregate's confidence signals (aggregate_confidence.rs)
    aggregate_confidence::register(m)?;
    // kscore.aggregate's speed pass (aggregate.rs: order_by_score, ...)
    aggregate::register_speed(m)?;
    // present (python/kscore/present/tabular.py): the CSV's lines, floats as repr
    m.add_function(wrap_pyfunction!(text::csv_lines, m)?)?;
    Ok(())
}
