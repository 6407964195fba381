//! Intake: outcome matrices and per-question counts in, validated per-row
//! counts and distinct states out. Nothing here knows a metric.
//!
//! - `entry`: one matrix element of any dtype, checked in scorio's order.
//! - `bytes`: SIMD fast paths for one-byte (bool/int8/uint8) rows (and
//!   their portable twins; `vector_paths` says which run).
//! - `matrix`: one parallel pass over a matrix of any dtype and layout,
//!   counting successes or categories per row.
//! - `packed`: popcount intake of `numpy.packbits` matrices.
//! - `planes`: category counts of C-order rows through bit planes.
//! - `moments`: exact sums and sums of products of per-row counts.
//! - `wide`: category counts of 8-byte integer rows with their moments.
//! - `histogram`: distinct per-row counts with frequencies.
//! - `counts`: per-question `(n, c)` arrays: types and their validation.
//! - `states`: those pairs deduplicated into a `StateTable`.
//! - `cells`: a leaderboard's cells as distinct states, on the pool.
//! - `rows`: long-format rows (Arrow dictionary batches) to per-(model,
//!   question) category counts, for the leaderboard.

pub mod bytes;
pub mod cells;
pub mod counts;
pub mod entry;
pub mod histogram;
pub mod matrix;
pub mod moments;
pub mod packed;
pub mod planes;
pub mod rows;
pub mod states;
pub mod wide;

/// The vector code the intake runs in this build on this CPU: `"sse2+avx2"`
/// or `"sse2"` on x86-64 (AVX2 is detected at run time), `"portable"` on
/// other architectures and with the `force-scalar` feature, which compiles
/// only the portable loops (how CI tests them on x86-64).
pub fn vector_paths() -> &'static str {
    #[cfg(all(target_arch = "x86_64", not(feature = "force-scalar")))]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            "sse2+avx2"
        } else {
            "sse2"
        }
    }
    #[cfg(not(all(target_arch = "x86_64", not(feature = "force-scalar"))))]
    {
        "portable"
    }
}
