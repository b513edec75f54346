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

/// Display of an exact rational: the exact decimal when it terminates (`0.1`, `1e-8`,
/// `2.5`), otherwise `p/q`.
pub fn show(x: &Rational) -> String {
    let mut d = x.denom().clone();
    let twos = d.remove_factor_mut(&Integer::from(2));
    let fives = d.remove_factor_mut(&Integer::from(5));
    if d != 1 || twos.max(fives) > 20_000 {
        return format!("{x}");
    }
    // x = m / 10^k exactly
    let k = twos.max(fives);
    let m = Integer::from(x.numer() * Integer::from(Integer::u_pow_u(10, k))) / x.denom();
    let (neg, digits) = (m < 0, m.abs().to_string());
    let sign = if neg { "-" } else { "" };
    let k = k as usize;
    if k == 0 {
        return format!("{sign}{digits}");
    }
    let t = digits.trim_end_matches('0');
    let exp = t.len() as i64 - 1 - k as i64 + (digits.len() - t.len()) as i64;
    if k <= 6 || exp >= -6 {
        let padded = format!("{digits:0>width$}", width = k + 1);
        let (a, b) = padded.split_at(padded.len() - k);
        return format!("{sign}{a}.{}", b.trim_end_matches('0'))
            .trim_end_matches('.')
            .to_string();
    }
    let mant = if t.len() > 1 {
        format!("{}.{}", &t[..1], &t[1..])
    } else {
        t.to_string()
    };
    format!("{sign}{mant}e{exp}")
}

/// Smallest MPFR precision accepted (MPFR itself allows 1; we refuse nonsense).
pub const MIN_PRECISION: u32 = 16;
/// Largest MPFR precision accepted: 8192 bits (2466 decimal digits, twice what `check` climbs
/// to). The cost of a query grows about quadratically with the precision; at 8192 bits the
/// slowest query (RDP at a fractional order) takes about 3 s, at 65536 bits over a minute.
pub const MAX_PRECISION: u32 = 8192;

/// MPFR precision in bits: within [`MIN_PRECISION`]..=[`MAX_PRECISION`].
pub fn precision(bits: u32) -> Result<()> {
    if (MIN_PRECISION..=MAX_PRECISION).contains(&bits) {
        Ok(())
    } else {
        Err(Error::arg(
            "precision",
            format!("{bits} bits is outside {MIN_PRECISION}..={MAX_PRECISION}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::show;
    use crate::num::parse_exact;
    #[test]
    fn show_is_exact() {
        for (t, want) in [
            ("1e-8", "1e-8"),
            ("0.1", "0.1"),
            ("2.5", "2.5"),
            ("1/3", "1/3"),
            ("256/60000", "8/1875"),
            ("-0.25", "-0.25"),
            ("1.5e-7", "1.5e-7"),
            ("12", "12"),
            ("1200e-10", "1.2e-7"),
            ("0", "0"),
            ("0.000001", "0.000001"),
            ("8317/1024", "8.1220703125"),
            ("1e-7", "1e-7"),
        ] {
            let r = parse_exact(t).unwrap();
            let s = show(&r);
            assert_eq!(s, want, "{t}");
            assert_eq!(parse_exact(&s).unwrap(), r);
        }
    }
}
