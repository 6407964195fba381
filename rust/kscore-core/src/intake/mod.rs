//! Intake: outcome matrices and per-question counts in, validated per-row
//! counts and distinct states out. Nothing here knows a metric.
//!
//! - `entry`: one matrix element of any dtype, checked in scorio's order.
//! - `bytes`: SIMD fast paths for one-byte (bool/int8/uint8) rows.
//! - `matrix`: one parallel pass over a matrix of any dtype and layout,
//!   counting successes or categories per row.
//! - `packed`: popcount intake of `numpy.packbits` matrices.
//! - `histogram`: distinct per-row counts with frequencies.
//! - `counts`: per-question `(n, c)` arrays: types and their validation.
//! - `states`: those pairs deduplicated into a `StateTable`.

pub mod bytes;
pub mod counts;
pub mod entry;
pub mod histogram;
pub mod matrix;
pub mod packed;
pub mod states;
