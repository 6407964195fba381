//! The one error type of the core. The binding maps each variant to the Python
//! exception scorio raises in the same situation (ValueError, OverflowError,
//! FloatingPointError), with the message carried verbatim.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Bad input: becomes `ValueError(msg)`.
    Value(String),
    /// A Python float `**` would overflow: becomes `OverflowError(34, msg)`.
    Overflow(String),
    /// A numerical guard that should be unreachable: `FloatingPointError(msg)`.
    FloatingPoint(String),
    /// The work was stopped early (`cancel::Stop`, the binding's Ctrl-C):
    /// becomes `KeyboardInterrupt`, or the call is run again (`cancel`).
    Interrupted,
}

impl Error {
    pub fn value(msg: impl Into<String>) -> Self {
        Error::Value(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Value(m) | Error::Overflow(m) | Error::FloatingPoint(m) => f.write_str(m),
            Error::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
