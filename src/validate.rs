//! Input checks shared by the theorem functions and the CLI. Each names the argument.
use crate::{Error, Result};
use rug::{Integer, Rational};

pub fn positive(name: &str, x: &Rational) -> Result<()> {
    if *x > 0 {
        Ok(())
    } else {
        Err(Error::arg(name, format!("must be > 0, got {}", show(x))))
    }
}

pub fn nonnegative(name: &str, x: &Rational) -> Result<()> {
    if *x >= 0 {
        Ok(())
    } else {
        Err(Error::arg(name, format!("must be ≥ 0, got {}", show(x))))
    }
}

/// δ ∈ (0, 1).
pub fn open_unit(name: &str, x: &Rational) -> Result<()> {
    if *x > 0 && *x < 1 {
        Ok(())
    } else {
        Err(Error::arg(
            name,
            format!("must lie in (0, 1), got {}", show(x)),
        ))
    }
}

/// δ ∈ [0, 1) (a mechanism's own δ may be 0).
pub fn unit_from_zero(name: &str, x: &Rational) -> Result<()> {
    if *x >= 0 && *x < 1 {
        Ok(())
    } else {
        Err(Error::arg(
            name,
            format!("must lie in [0, 1), got {}", show(x)),
        ))
    }
}

pub fn count(name: &str, k: &Integer) -> Result<()> {
    if *k >= 1 {
        Ok(())
    } else {
        Err(Error::arg(
            name,
            format!("must be a positive integer, got {k}"),
        ))
    }
}

pub fn nonempty<T>(name: &str, xs: &[T]) -> Result<()> {
    if xs.is_empty() {
        Err(Error::arg(name, "must list at least one mechanism"))
    } else {
        Ok(())
    }
}

/// Display of an exact rational (`p/q` when not an integer).
pub fn show(x: &Rational) -> String {
    format!("{x}")
}

/// MPFR precision in bits: at least 16 (MPFR itself allows 1; we refuse nonsense).
pub fn precision(bits: u32) -> Result<()> {
    if (16..=1 << 24).contains(&bits) {
        Ok(())
    } else {
        Err(Error::arg("precision", format!("{bits} bits is outside 16..=16777216")))
    }
}
