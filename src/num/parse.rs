//! Exact parsing of user numbers: a decimal (`0.1`, `1e-5`, `-2.5E+3`) or a fraction of two
//! decimals (`256/60000`) is read as the exact rational it denotes — never through `f64`.
use rug::{Integer, Rational};

/// Largest decimal exponent accepted, after the mantissa's fraction digits are counted in
/// (`1e-100000` and `1e100000` pass). Exact rationals stay below about 340 000 bits, and every
/// computation on them stays fast; a δ of 10⁻¹⁰⁰⁰⁰⁰ is far below anything meaningful.
pub const MAX_EXP10: i64 = 100_000;
/// Most mantissa digits accepted in one decimal (a printed bound has at most a few thousand).
pub const MAX_DIGITS: usize = 10_000;

/// The text for an error message: long inputs are cut (a message never echoes 100 000 digits).
fn clip(s: &str) -> String {
    const KEEP: usize = 40;
    if s.chars().count() <= KEEP {
        return s.to_string();
    }
    let head: String = s.chars().take(KEEP).collect();
    format!("{head}… ({} characters)", s.chars().count())
}

fn parse_decimal(s: &str) -> Result<Rational, String> {
    let (mantissa, exp) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (neg, body) = match mantissa.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
    };
    let (int, frac) = match body.find('.') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, ""),
    };
    let all_digits = |x: &str| x.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !all_digits(int) || !all_digits(frac) {
        return Err(format!("`{}` is not a decimal number or fraction", clip(s)));
    }
    if int.len() + frac.len() > MAX_DIGITS {
        return Err(format!(
            "`{}` has {} digits; at most {MAX_DIGITS} are accepted",
            clip(s),
            int.len() + frac.len()
        ));
    }
    let mut e10: i64 = match exp {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) || digits.len() > 12 {
                return Err(format!("`{}` has a malformed exponent", clip(s)));
            }
            e.parse::<i64>()
                .map_err(|_| format!("`{}` has a malformed exponent", clip(s)))?
        }
    };
    e10 -= frac.len() as i64;
    if e10.abs() > MAX_EXP10 {
        return Err(format!(
            "`{}` has a decimal exponent beyond ±{MAX_EXP10} (the limit on exact inputs)",
            clip(s)
        ));
    }
    let digits: Integer = format!("{int}{frac}")
        .trim_start_matches('0')
        .parse()
        .unwrap_or_default();
    let scale = Integer::from(Integer::u_pow_u(10, e10.unsigned_abs() as u32));
    let mut r = if e10 >= 0 {
        Rational::from(digits * scale)
    } else {
        Rational::from((digits, scale))
    };
    if neg {
        r = -r;
    }
    Ok(r)
}

/// Parse an exact rational from text. Rejects NaN, infinities, empty text, a zero denominator.
pub fn parse_exact(text: &str) -> Result<Rational, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("empty number".into());
    }
    match s.split_once('/') {
        None => parse_decimal(s),
        Some((n, d)) => {
            let (n, d) = (parse_decimal(n.trim())?, parse_decimal(d.trim())?);
            if d == 0 {
                return Err(format!("`{}` divides by zero", clip(s)));
            }
            Ok(n / d)
        }
    }
}

/// Parse a positive integer count (exactly written: `10`, `1e4`, `20/2` are fine; `2.5` is not).
pub fn parse_positive_integer(text: &str) -> Result<Integer, String> {
    let r = parse_exact(text)?;
    if *r.denom() != 1 {
        return Err(format!("`{}` is not an integer", clip(text.trim())));
    }
    if *r.numer() <= 0 {
        return Err(format!("`{}` must be at least 1", clip(text.trim())));
    }
    Ok(r.numer().clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn exact_values() {
        assert_eq!(parse_exact("0.1").unwrap(), Rational::from((1, 10)));
        assert_eq!(parse_exact("1e-5").unwrap(), Rational::from((1, 100000)));
        assert_eq!(
            parse_exact("256/60000").unwrap(),
            Rational::from((256, 60000))
        );
        assert_eq!(parse_exact("-2.5E+3").unwrap(), Rational::from(-2500));
        assert_eq!(parse_exact(".5").unwrap(), Rational::from((1, 2)));
        assert_eq!(parse_exact("0.25/0.5").unwrap(), Rational::from((1, 2)));
        for bad in [
            "",
            "nan",
            "NaN",
            "inf",
            "-inf",
            "1/0",
            "e5",
            "1e",
            "1.2.3",
            "0x10",
            "1e999999999",
            "1e100001",
            "1e-100001",
            "0.01e-99999",
            "--1",
            "1/2/3",
        ] {
            assert!(parse_exact(bad).is_err(), "{bad}");
        }
        // the limits: exponents up to ±100000 and 10 000 digits pass, exactly
        assert_eq!(
            parse_exact("1e-100000").unwrap(),
            Rational::from((1, Integer::from(Integer::u_pow_u(10, 100_000))))
        );
        assert_eq!(
            parse_exact("10e99999").unwrap(),
            Rational::from(Integer::from(Integer::u_pow_u(10, 100_000)))
        );
        let many = "7".repeat(MAX_DIGITS);
        assert_eq!(
            parse_exact(&many).unwrap(),
            many.parse::<Integer>().unwrap()
        );
        let err = parse_exact(&"7".repeat(MAX_DIGITS + 1)).unwrap_err();
        assert!(err.contains("10000") && err.len() < 200, "{err}");
        assert!(parse_positive_integer("2.5").is_err());
        assert!(parse_positive_integer("0").is_err());
        assert_eq!(parse_positive_integer("1e4").unwrap(), 10000);
    }
}
