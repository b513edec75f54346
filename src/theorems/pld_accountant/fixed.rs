//! Fixed-point grid measures: the side being computed, the grid PLD (`GridPld`, masses as
//! integers at scale 2^F), and the context (`Ctx`) through which every enclosed mass is
//! rounded to its side. The only place an interval becomes an integer mass.
use super::grid::Setup;
use super::Interval;
use crate::num::{Fi, Real};
use crate::{Error, Result};
use rug::Rational;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    Upper,
    Lower,
}

/// Grid PLD: `mass[i]` is the P-mass at loss shift + (off + i)·h, `inf` at +∞; fixed point,
/// scale 2^F. `shift` is exact: a mechanism's grid offset, summed under convolution.
#[derive(Clone, Debug)]
pub(super) struct GridPld {
    pub(super) shift: Rational,
    pub(super) off: i64,
    pub(super) mass: Vec<u128>,
    pub(super) inf: u128,
}

pub(super) struct Ctx {
    pub(super) h: Rational,
    /// Enclosure of h.
    pub(super) hf: Interval,
    pub(super) f: u32,
    pub(super) tau: u128,
    /// `Setup::fft_budget` at scale 2^F, rounded down (0: exact products only).
    pub(super) fft_budget: u128,
    pub(super) side: Side,
    pub(super) progress: bool,
    pub(super) support: usize,
    /// How many convolutions went through the FFT (a record for tests and reports).
    pub(super) fft_products: usize,
}

/// The point interval [x, x]. A NaN gives ENTIRE: a widening, so every use stays an enclosure
/// (a mass enclosed by ENTIRE is then refused by `Ctx::fixed` on the upper side and counted as 0,
/// a sub-measure, on the lower side).
pub(super) fn pt(x: f64) -> Interval {
    Interval::try_from((x, x)).unwrap_or(Interval::ENTIRE)
}

/// `a += b` on fixed-point masses, refusing an overflow (masses stay far below 2^126, so this
/// never fires on a valid run; a wrapped sum would drop mass from the upper side).
pub(super) fn add_mass(a: &mut u128, b: u128) -> Result<()> {
    *a = a
        .checked_add(b)
        .ok_or_else(|| Error::Numerical("PLD fixed-point mass overflow".into()))?;
    Ok(())
}

/// ⌊r⌋ as an i64 grid index; an index beyond i64 is refused (the grid would have to be absurdly
/// fine or the loss absurdly large), never replaced by another index.
pub(super) fn floor_index(r: &Rational, what: &str) -> Result<i64> {
    r.clone().floor().numer().to_i64().ok_or_else(|| {
        Error::arg(
            "grid",
            format!("{what} lies beyond 2^63 grid steps; use a coarser --grid"),
        )
    })
}

pub(super) fn fi_rat(r: &Rational) -> Interval {
    Fi::from_rational(r, 53).0
}

impl Ctx {
    /// Fixed-point value of an enclosed non-negative mass, rounded to this side: ⌈sup·2^F⌉
    /// (Upper) or ⌊inf·2^F⌋ (Lower). The exact mass is ≥ 0, so a negative end is replaced by 0
    /// (still a bound on the right side). Scaling by 2^F is exact in f64 and the result is an
    /// integer below 2^126 before the cast, so the cast is exact. An empty or unbounded
    /// enclosure, or one at or above 2^126·2^−F, is an error on both sides.
    pub(super) fn fixed(&self, x: Interval) -> Result<u128> {
        let scale = (2f64).powi(self.f as i32);
        if x.is_empty() || x.sup().is_nan() || x.inf().is_nan() {
            return Err(Error::Numerical("PLD mass enclosure is empty".into()));
        }
        let v = match self.side {
            Side::Upper => (x.sup().max(0.0) * scale).ceil(),
            Side::Lower => (x.inf().max(0.0) * scale).floor(),
        };
        if !(v < 2f64.powi(126)) {
            return Err(Error::Numerical(
                "PLD mass enclosure not finite or above the fixed-point range".into(),
            ));
        }
        Ok(v as u128)
    }
    /// Grid point i·h, enclosed. (`i as f64` is exact for |i| ≤ 2^53, which every table
    /// respects by far; beyond that the enclosure comes from the exact rational i·h instead of
    /// a rounded index.)
    pub(super) fn point(&self, i: i64) -> Interval {
        let x = i as f64;
        if x.abs() <= 2f64.powi(53) {
            pt(x) * self.hf
        } else {
            fi_rat(&(Rational::from(i) * &self.h))
        }
    }
}

/// Enclosure of a fixed-point mass m·2^−F. (`lo ≤ hi` by construction, so the ENTIRE
/// fallback below is unreachable; it would be a widening anyway.)
pub(super) fn fixed_iv(m: u128, f: u32) -> Interval {
    let x = m as f64;
    let back = if x >= 2f64.powi(128) {
        u128::MAX
    } else {
        x as u128
    };
    let (lo, hi) = if back == m {
        (x, x)
    } else if back > m {
        (x.next_down(), x)
    } else {
        (x, x.next_up())
    };
    let s = pt((2f64).powi(-(f as i32)));
    Interval::try_from((lo, hi)).unwrap_or(Interval::ENTIRE) * s
}

pub(super) fn new_ctx(s: &Setup, side: Side, progress: bool) -> Result<Ctx> {
    // one progress line: the upper side reports, the lower side (on another thread) is silent
    let progress = progress && side == Side::Upper;
    // τ ≤ 10⁻³ and F ≤ 124, so ⌊τ·2^F⌋ < 2^115 fits; a τ that did not would be refused, not
    // replaced (a huge τ would truncate whole measures)
    let tau = Rational::from(&s.tau << s.f)
        .floor()
        .numer()
        .to_u128()
        .filter(|&t| t < 1u128 << 124)
        .ok_or_else(|| Error::arg("tail", "above the fixed-point range"))?;
    // a budget beyond the fixed-point range is capped (any budget is sound: it only decides
    // which convolutions may use the FFT)
    let fft_budget = Rational::from(&s.fft_budget << s.f)
        .floor()
        .numer()
        .to_u128()
        .unwrap_or(0)
        .min(1u128 << 120);
    Ok(Ctx {
        h: s.h.clone(),
        hf: fi_rat(&s.h),
        f: s.f,
        tau,
        fft_budget,
        side,
        progress,
        support: 0,
        fft_products: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::pld_accountant::grid::Setup;
    use crate::theorems::pld_accountant::test_util::*;
    use rug::Float;

    #[test]
    fn fixed_point_conversion_refuses_what_it_cannot_represent() {
        for side in [Side::Upper, Side::Lower] {
            let c = ctx("1", 100, 0, side);
            assert!(c.fixed(Interval::EMPTY).is_err());
            // ENTIRE: no upper bound exists (error); 0 is a lower bound of any mass
            match side {
                Side::Upper => assert!(c.fixed(Interval::ENTIRE).is_err()),
                Side::Lower => assert_eq!(c.fixed(Interval::ENTIRE).unwrap(), 0),
            }
            // a mass of 2^30 at F = 100 would need 130 bits: both sides refuse (the lower side
            // once clamped it to 2^126 silently)
            assert!(c.fixed(pt(2f64.powi(30))).is_err());
            assert_eq!(c.fixed(pt(0.5)).unwrap(), 1u128 << 99);
            assert_eq!(c.fixed(pt(-0.5)).unwrap(), 0);
            // masses between fixed-point steps round to this side: 2^−101 and 3·2^−101 at F = 100
            let (a, b) = (
                c.fixed(pt(2f64.powi(-101))).unwrap(),
                c.fixed(pt(3.0 * 2f64.powi(-101))).unwrap(),
            );
            match side {
                Side::Upper => assert_eq!((a, b), (1, 2)),
                Side::Lower => assert_eq!((a, b), (0, 1)),
            }
            // an enclosure [lo, hi] rounds from hi up, or from lo down
            let iv = Interval::try_from((0.25, 0.75)).unwrap();
            assert_eq!(
                c.fixed(iv).unwrap(),
                if side == Side::Upper {
                    3u128 << 98
                } else {
                    1u128 << 98
                }
            );
        }
        let mut m = u128::MAX - 1;
        assert!(add_mass(&mut m, 2).is_err());
        assert!(add_mass(&mut m, 1).is_ok());
    }

    #[test]
    fn grid_points_beyond_two_to_the_53_are_still_enclosed() {
        // (2^60 + 1)·2^−60 = 1 + 2^−60: `i as f64` would round the index to 2^60, i.e. to 1
        let c = ctx("1/1152921504606846976", 100, 0, Side::Upper);
        let i = (1i64 << 60) + 1;
        let exact = Float::with_val(P, Rational::from(i) * &c.h);
        let p = c.point(i);
        assert!(Float::with_val(P, p.inf()) <= exact && exact <= Float::with_val(P, p.sup()));
        assert!(p.inf() < p.sup());
        let q = c.point(-i);
        assert!(
            Float::with_val(P, q.inf()) <= -exact.clone() && -exact <= Float::with_val(P, q.sup())
        );
    }

    #[test]
    fn a_tail_beyond_the_fixed_point_range_is_refused() {
        let s = Setup {
            h: r("1"),
            tau: r("1"),
            f: 124,
            fft_budget: Rational::new(),
            terms: vec![],
        };
        assert!(new_ctx(&s, Side::Upper, false).is_err());
        let s = Setup {
            h: r("1"),
            tau: r("1/1000"),
            f: 124,
            fft_budget: Rational::new(),
            terms: vec![],
        };
        assert!(new_ctx(&s, Side::Upper, false).is_ok());
    }
}
