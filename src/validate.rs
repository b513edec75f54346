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
            format!("must lie in (0, 1), got {}{}", show(x), delta_hint(x)),
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
            format!("must lie in [0, 1), got {}{}", show(x), delta_hint(x)),
        ))
    }
}

/// A hint for a δ of 1 or more: it is probably an ε.
fn delta_hint(x: &Rational) -> &'static str {
    if *x >= 1 {
        " (δ is a probability such as 1e-5; a value ≥ 1 looks like an ε)"
    } else {
        ""
    }
}

/// A sampling rate q ∈ (0, 1].
pub fn unit_rate(name: &str, x: &Rational) -> Result<()> {
    if *x > 0 && *x <= 1 {
        Ok(())
    } else {
        let hint = if *x > 1 {
            " (the rate is a fraction, batch size / dataset size: e.g. 256/60000)"
        } else {
            ""
        };
        Err(Error::arg(
            name,
            format!("must lie in (0, 1], got {}{hint}", show(x)),
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

/// Refuse an answer whose upper end overflowed to +∞ (an input far outside any sensible
/// range): a numerical failure with a clear message, never `inf` printed as a bound.
pub fn require_finite_upper(u: &crate::Upper, what: &str) -> Result<()> {
    if u.as_float().is_finite() {
        Ok(())
    } else {
        Err(Error::Numerical(format!(
            "the certified upper bound of {what} overflowed (beyond MPFR's exponent range); an input is too extreme for this route"
        )))
    }
}

/// Longest exact echo of a number, in characters; anything longer is shown as `≈` and a
/// 20-significant-digit decimal (an echo of an input, never a bound).
pub const MAX_ECHO_CHARS: usize = 40;

/// Display of an exact rational: the exact decimal when it terminates (`0.1`, `1e-8`,
/// `2.5`), otherwise `p/q`; when that would exceed [`MAX_ECHO_CHARS`] characters,
/// `≈` followed by a 20-digit decimal approximation (`≈5.0000000000000000000e199997`).
/// Cost is bounded by the size of the input, never quadratic in it.
pub fn show(x: &Rational) -> String {
    let den = x.denom();
    let twos = den.find_one(0).unwrap_or(0);
    let mut d = Integer::from(den >> twos);
    let fives = d.remove_factor_mut(&Integer::from(5u32));
    // decimal digits of an integer with b bits: at most ⌊b·log₁₀2⌋ + 1
    let digits = |b: u32| (f64::from(b) * std::f64::consts::LOG10_2) as usize + 1;
    let (nb, db) = (x.numer().significant_bits(), x.denom().significant_bits());
    if d != 1 {
        if digits(nb) + digits(db) + 2 > MAX_ECHO_CHARS {
            return approximate(x);
        }
        return format!("{x}");
    }
    // terminating: the digits of m = x·10^k are at most those of numer·2^(k−twos)·5^(k−fives)
    let k = twos.max(fives);
    let m_bits =
        f64::from(nb) + f64::from(k - twos) + f64::from(k - fives) * std::f64::consts::LOG2_10;
    if m_bits > 4.0 * MAX_ECHO_CHARS as f64 {
        return approximate(x);
    }
    let exact = show_terminating(x, k, twos, fives);
    if exact.chars().count() > MAX_ECHO_CHARS {
        approximate(x)
    } else {
        exact
    }
}

/// Echo of an exact rational as `p/q` (Rational's own display) when that has at most
/// [`MAX_ECHO_CHARS`] characters, otherwise as [`show`] bounds it (`≈` and 20 digits).
pub fn echo(x: &Rational) -> String {
    let digits = |b: u32| (f64::from(b) * std::f64::consts::LOG10_2) as usize + 1;
    if digits(x.numer().significant_bits()) + digits(x.denom().significant_bits()) + 2
        <= MAX_ECHO_CHARS
    {
        return x.to_string();
    }
    show(x)
}

/// `≈` and a 20-significant-digit decimal of x (round to nearest; MPFR's exponent range).
fn approximate(x: &Rational) -> String {
    let f = rug::Float::with_val(80, x);
    if f.is_finite() && !f.is_zero() {
        format!("≈{}", f.to_string_radix(10, Some(20)))
    } else {
        format!(
            "≈(a rational of {} + {} bits)",
            x.numer().significant_bits(),
            x.denom().significant_bits()
        )
    }
}

/// The exact decimal of x = m/10^k, where the denominator of x is 2^twos·5^fives and
/// k = max(twos, fives), so m = numer·2^(k−twos)·5^(k−fives).
fn show_terminating(x: &Rational, k: u32, twos: u32, fives: u32) -> String {
    let m = Integer::from(x.numer() << (k - twos)) * Integer::from(Integer::u_pow_u(5, k - fives));
    let (neg, digits) = (m < 0, m.abs().to_string());
    let sign = if neg { "-" } else { "" };
    let k = k as usize;
    if k == 0 {
        return format!("{sign}{digits}");
    }
    let t = digits.trim_end_matches('0');
    let exp = t.len() as i64 - 1 - k as i64 + (digits.len() - t.len()) as i64;
    // one style for every number dpcert prints (as [`plain_decimal`]): plain from 10⁻⁴ up,
    // scientific below (1e-5, not 0.00001)
    if exp >= -4 {
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

/// MPFR's `d.ddde-1` as plain decimal when the exponent is in −4..=6 (the same digits, so the
/// same number: no rounding happens here). With [`show`]'s rule this is the one number style
/// of the human output: plain from 10⁻⁴ to 10⁷, scientific outside.
pub fn plain_decimal(s: String) -> String {
    let Some((mant, exp)) = s.split_once('e') else {
        return s;
    };
    let Ok(e) = exp.parse::<i32>() else {
        return s;
    };
    if !(-4..=6).contains(&e) {
        return s;
    }
    let (sign, m) = match mant.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mant),
    };
    let digits: String = m.chars().filter(|c| *c != '.').collect();
    let point = 1 + e; // digits before the decimal point
    let mut out: String = if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if (point as usize) >= digits.len() {
        format!("{digits}{}", "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    if out.ends_with('.') {
        out.pop();
    }
    format!("{sign}{out}")
}

pub(crate) use crate::num::{precision, MAX_PRECISION, MIN_PRECISION};

#[cfg(test)]
mod bounded_echo {
    use super::{echo, show, MAX_ECHO_CHARS};
    use crate::num::parse_exact;
    /// Long exact values are echoed as ≈ and 20 digits, cheaply (ρ of a tiny σ used to be
    /// printed in full: 20 MB for σ = 1e-10000000); short ones stay exact.
    #[test]
    fn long_values_are_bounded() {
        let tiny = parse_exact("1e-99999").unwrap();
        assert_eq!(show(&tiny), "1e-99999");
        // ρ of σ = 1e-99999: 5·10¹⁹⁹⁹⁹⁷, 199 998 digits (was echoed in full)
        let rho =
            rug::Rational::from(rug::Integer::from(rug::Integer::u_pow_u(10, 199_997)) * 5u32);
        assert_eq!(show(&rho), "≈5.0000000000000000000e199997");
        assert_eq!(echo(&rho), "≈5.0000000000000000000e199997");
        let third = parse_exact("1/3").unwrap();
        assert_eq!(echo(&third), "1/3");
        let long = parse_exact("1234567890123456789012345678901234567890.5").unwrap();
        let s = show(&long);
        assert!(
            s.starts_with('≈') && s.chars().count() <= MAX_ECHO_CHARS,
            "{s}"
        );
        let ratio = parse_exact("1e-60/3").unwrap();
        assert!(
            show(&ratio).starts_with("≈3.3333333333333333333e-61"),
            "{}",
            show(&ratio)
        );
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
            ("0.000001", "1e-6"),
            ("0.00001", "1e-5"),
            ("0.0001", "0.0001"),
            ("0.000123", "0.000123"),
            ("0.0000123", "1.23e-5"),
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
