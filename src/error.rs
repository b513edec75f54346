//! The crate's one error type, defined at the ground floor so that every module — the
//! arithmetic in `num` included — uses it without importing from above (`lib.rs` re-exports it).
use std::fmt;

/// Errors: bad input (naming the argument) or a numerical failure. Never a number.
#[derive(Clone, Debug, PartialEq)]
pub enum Error {
    /// An input is outside the theorem's domain or unparseable.
    InvalidArgument {
        /// The argument's name, as the user wrote it.
        name: String,
        /// Why it was refused.
        reason: String,
    },
    /// The certified evaluation could not produce a finite, valid enclosure.
    Numerical(String),
}

impl Error {
    /// An [`Error::InvalidArgument`] for argument `name`.
    pub fn arg(name: &str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument {
            name: name.to_string(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidArgument { name, reason } => write!(f, "invalid {name}: {reason}"),
            Error::Numerical(m) => write!(f, "numerical failure: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// dpcert's result type: a value, or an [`Error`] (never a NaN or a panic).
pub type Result<T> = std::result::Result<T, Error>;
