//! Exact parsing of user numbers: a decimal (`0.1`, `1e-5`, `-2.5E+3`) or a fraction of two
//! decimals (`256/60000`) is read as the exact rational it denotes — never through `f64`.
use rug::{Integer, Rational};

/// Largest decimal exponent accepted (keeps exact rationals a sane size).
const MAX_EXP10: i64 = 10_000_000;

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
        return Err(format!("`{s}` is not a decimal number or fraction"));
    }
    let mut e10: i64 = match exp {
        None => 0,
        Some(e) => {
            let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
            if digits.is_empty() || !all_digits(digits) || digits.len() > 12 {
                return Err(format!("`{s}` has a malformed exponent"));
            }
            e.parse::<i64>()
                .map_err(|_| format!("`{s}` has a malformed exponent"))?
        }
    };
    e10 -= frac.len() as i64;
    if e10.abs() > MAX_EXP10 {
        return Err(format!("`{s}` has an exponent beyond ±{MAX_EXP10}"));
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
                return Err(format!("`{s}` divides by zero"));
            }
            Ok(n / d)
        }
    }
}

/// Parse a positive integer count (exactly written: `10`, `1e4`, `20/2` are fine; `2.5` is not).
pub fn parse_positive_integer(text: &str) -> Result<Integer, String> {
    let r = parse_exact(text)?;
    if *r.denom() != 1 {
        return Err(format!("`{}` is not an integer", text.trim()));
    }
    if *r.numer() <= 0 {
        return Err(format!("`{}` must be at least 1", text.trim()));
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
            "--1",
            "1/2/3",
        ] {
            assert!(parse_exact(bad).is_err(), "{bad}");
        }
        assert!(parse_positive_integer("2.5").is_err());
        assert!(parse_positive_integer("0").is_err());
        assert_eq!(parse_positive_integer("1e4").unwrap(), 10000);
    }
}
