//! Searches that choose *where* to evaluate; they never produce a reported number. The
//! crate's one search module: it sits below the theorems and imports only `num` and `Error`.
//! Calibration's bracketing of a target (`calibrate/bracket.rs`), which runs the DP-SGD
//! accountant, builds on [`ln_f64`] from here.
//!
//! [`minimize`] picks a free parameter (Proposition 14's `t`) in plain `f64`: any value it
//! returns gives a valid bound, the search only affects tightness. [`invert_nonincreasing`]
//! brackets the crossing of a certified non-increasing function with a target, returning two
//! points whose certified evaluations lie on opposite sides of the target. Its points are
//! 53-bit MPFR numbers rounded to nearest: the same arithmetic as `f64` inside the `f64` range,
//! and MPFR's exponent range (about 10^±3·10⁸) beyond it.
use crate::num::{Enclosure, Precision, Tri, DEFAULT_PREC, MAX_AUTO_PREC};
use crate::{Error, Result};
use rug::{Float, Rational};

/// Approximate minimiser of `f` over `[lo, hi]`: a 97-point grid, then golden-section
/// refinement around the best grid point. `f` may return NaN/∞ where undefined.
pub fn minimize(f: impl Fn(f64) -> f64, lo: f64, hi: f64) -> f64 {
    minimize_with(f, lo, hi, 96, 100)
}

/// [`minimize`] with a chosen grid size and number of golden-section steps (for costly `f`).
pub fn minimize_with(f: impl Fn(f64) -> f64, lo: f64, hi: f64, n: usize, steps: usize) -> f64 {
    let val = |x: f64| {
        let v = f(x);
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    };
    let step = (hi - lo) / n as f64;
    let mut best = (lo, val(lo));
    for i in 1..=n {
        let x = lo + step * i as f64;
        let v = val(x);
        if v < best.1 {
            best = (x, v);
        }
    }
    let (mut a, mut b) = ((best.0 - step).max(lo), (best.0 + step).min(hi));
    let g = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..steps {
        let c = b - g * (b - a);
        let d = a + g * (b - a);
        if val(c) < val(d) {
            b = d;
        } else {
            a = c;
        }
    }
    let m = (a + b) / 2.0;
    if val(m) <= best.1 {
        m
    } else {
        best.0
    }
}

/// ln r in plain `f64` for a positive exact rational, finite even when r itself is outside the
/// `f64` range (δ = 1e-400): for searches only.
pub fn ln_f64(r: &Rational) -> f64 {
    rug::Float::with_val(64, r).ln().to_f64()
}

/// Precision of search points: that of `f64`, with MPFR's exponent range.
pub const SEARCH_BITS: u32 = 53;
/// Search points stay within 2^±SEARCH_MAX_EXP (about 10^±8·10⁷): far inside MPFR's exponent
/// range (2^±(2³⁰ − 1)), so squares of the points still fit.
pub const SEARCH_MAX_EXP: i32 = 1 << 28;
/// Plain doublings (halvings) before the step itself starts doubling (galloping).
const PLAIN_STEPS: u32 = 64;

/// A 53-bit search point from an `f64` (exact).
pub fn point(x: f64) -> Float {
    Float::with_val(SEARCH_BITS, x)
}

/// Where the certified value at `x` lies relative to the target.
fn side(e: &Enclosure, target: &Rational) -> Tri {
    e.cmp_rational(target)
}

/// Evaluate `g(x)` and decide `g(x) ≤ target` (feasible) or `g(x) > target`, raising MPFR
/// precision while undecided. Under `Auto` the evaluations run at 64, 128, … bits and stop at
/// the first decided one (a decision needs no narrower enclosure; `Auto`'s own climb towards
/// 10⁻³⁰ would be wasted here). Returns `Tri::Undecided` only at [`MAX_AUTO_PREC`].
pub fn decide(
    g: &impl Fn(&Rational, Precision) -> Result<Enclosure>,
    x: &Float,
    target: &Rational,
    prec: Precision,
) -> Result<Tri> {
    let xr = x
        .to_rational()
        .ok_or_else(|| Error::Numerical("search left the finite range".into()))?;
    let mut p = match prec {
        Precision::Bits(b) => b,
        Precision::Auto => DEFAULT_PREC / 2,
    };
    let mut t = side(&g(&xr, Precision::Bits(p))?, target);
    while t == Tri::Undecided && p < MAX_AUTO_PREC {
        p *= 2;
        t = side(&g(&xr, Precision::Bits(p))?, target);
    }
    Ok(t)
}

/// A certified bracket of the crossing point `x* = inf{x ≥ floor : g(x) ≤ target}` of a
/// non-increasing `g`: `g(infeasible) > target` and `g(feasible) ≤ target` were both
/// certified, so `infeasible < x* ≤ feasible`. When `g(floor) ≤ target` is certified, the
/// crossing is the floor itself and `infeasible` is `None`. Both are exact 53-bit points.
#[derive(Clone, Debug, PartialEq)]
pub struct Bracket {
    pub infeasible: Option<Float>,
    pub feasible: Float,
}

/// `x·2^{±step}` for the `n`-th move away from the start: ×2 for the first [`PLAIN_STEPS`]
/// moves, then the exponent step doubles (2², 2⁴, 2⁸, …), so a crossing 10^±(10⁸) away is
/// reached in about 90 evaluations. Exact (an exponent shift).
fn gallop(x: &Float, n: u32, up: bool) -> Float {
    let shift = if n < PLAIN_STEPS {
        1
    } else {
        1i32 << (n - PLAIN_STEPS + 1).min(27)
    };
    let mut y = x.clone();
    if up {
        y <<= shift;
    } else {
        y >>= shift;
    }
    y
}

/// 2^e as a search point.
fn pow2(e: i32) -> Float {
    Float::with_val(SEARCH_BITS, 1) << e
}

/// Midpoint of `lo < hi` for bisection: the arithmetic mean, or, when 0 < 4·lo < hi (only
/// after galloping), the geometric mean rounded to a power of two, so that a bracket spanning
/// many binades shrinks in O(log log) steps. Rounded to 53 bits (placement only).
fn midpoint(lo: &Float, hi: &Float) -> Float {
    if *lo > 0 && Float::with_val(SEARCH_BITS, lo * 4u32) < *hi {
        let (el, eh) = (lo.get_exp().unwrap_or(0), hi.get_exp().unwrap_or(0));
        if eh - el >= 3 {
            return pow2(el + (eh - el) / 2);
        }
    }
    let half = Float::with_val(SEARCH_BITS, hi - lo) / 2u32;
    Float::with_val(SEARCH_BITS, lo + &half)
}

/// Bracket the crossing of a non-increasing function with `target`, to relative width
/// `rel_tol` where precision allows. `floor` is the smallest admissible `x` (≥ 0); if
/// `floor_is_admissible` is false, `g(floor)` is not evaluated (e.g. σ = 0). `start` is any
/// positive 53-bit point; the search leaves 2^±[`SEARCH_MAX_EXP`] only with an error.
pub fn invert_nonincreasing(
    g: impl Fn(&Rational, Precision) -> Result<Enclosure>,
    target: &Rational,
    floor: f64,
    floor_is_admissible: bool,
    start: Float,
    rel_tol: f64,
    prec: Precision,
) -> Result<Bracket> {
    let floor = point(floor);
    if floor_is_admissible {
        match decide(&g, &floor, target, prec)? {
            Tri::Less => {
                return Ok(Bracket {
                    infeasible: None,
                    feasible: floor,
                })
            }
            Tri::Greater => {}
            Tri::Undecided => {
                // g(floor) equals the target to within 2^-2048: treat the floor as the answer
                // only if certified; otherwise keep searching above it.
            }
        }
    }
    let (mut lo, mut hi) = gallop_to_feasible(&g, target, &floor, &start, prec)?;
    // shrink `lo` until certified infeasible (needed when `start` was already feasible)
    if lo == floor {
        (lo, hi) = gallop_to_infeasible(&g, target, &floor, floor_is_admissible, hi, prec)?;
    }
    let (lo, hi) = bisect(&g, target, lo, hi, rel_tol, prec)?;
    if lo == floor && floor_is_admissible && decide(&g, &floor, target, prec)? != Tri::Greater {
        return Err(undecided());
    }
    Ok(Bracket {
        infeasible: Some(lo),
        feasible: hi,
    })
}

/// Persistent indecision at the maximum precision.
fn undecided() -> Error {
    Error::Numerical("could not decide the crossing at maximum precision".into())
}

/// Grow `hi` from `start` (at least the smallest normal f64) until g(hi) < target is certified;
/// returns (lo, hi) with `lo` the last point certified infeasible, or `floor` if none was.
fn gallop_to_feasible(
    g: &impl Fn(&Rational, Precision) -> Result<Enclosure>,
    target: &Rational,
    floor: &Float,
    start: &Float,
    prec: Precision,
) -> Result<(Float, Float)> {
    let max = pow2(SEARCH_MAX_EXP);
    let min_normal = point(f64::MIN_POSITIVE);
    let mut hi = if start.is_nan() || *start < min_normal {
        min_normal
    } else {
        Float::with_val(SEARCH_BITS, start)
    };
    let mut lo = floor.clone();
    let (mut moves, mut nudges) = (0u32, 0u32);
    loop {
        if !hi.is_finite() || hi > max {
            return Err(Error::Numerical(
                "no feasible value below 2^268435456".into(),
            ));
        }
        match decide(g, &hi, target, prec)? {
            Tri::Less => return Ok((lo, hi)),
            Tri::Greater => {
                lo = hi.clone();
                hi = gallop(&hi, moves, true);
                moves += 1;
                nudges = 0;
            }
            Tri::Undecided => {
                // a crossing hit exactly is nudged past; persistent indecision is an error,
                // never an endless loop
                nudges += 1;
                if nudges > 64 {
                    return Err(undecided());
                }
                hi *= 1.0 + 1e-9;
            }
        }
    }
}

/// Halve (galloping) down from the feasible `hi` until a point is certified infeasible, or the
/// floor is reached (then the floor, when admissible, is `lo`); returns (lo, hi) with `hi` the
/// smallest point certified feasible on the way.
fn gallop_to_infeasible(
    g: &impl Fn(&Rational, Precision) -> Result<Enclosure>,
    target: &Rational,
    floor: &Float,
    floor_is_admissible: bool,
    mut hi: Float,
    prec: Precision,
) -> Result<(Float, Float)> {
    let mut cand = Float::with_val(SEARCH_BITS, &hi / 2u32);
    let mut moves = 1u32;
    // the old f64 search stopped at 1e-300; below it only with the galloping floor
    let stop = if floor_is_admissible {
        point(1e-300)
    } else {
        pow2(-SEARCH_MAX_EXP)
    };
    loop {
        if cand <= *floor || cand < stop {
            if !floor_is_admissible {
                return Err(Error::Numerical(
                    "no infeasible value above the floor".into(),
                ));
            }
            return Ok((floor.clone(), hi));
        }
        match decide(g, &cand, target, prec)? {
            Tri::Greater => return Ok((cand, hi)),
            Tri::Less => {
                hi = cand.clone();
                cand = gallop(&cand, moves, false);
                moves += 1;
            }
            Tri::Undecided => {
                cand = gallop(&cand, moves, false);
                moves += 1;
            }
        }
    }
}

/// Bisect [lo, hi] (g(lo) > target > g(hi) certified, or lo the floor) until relative width
/// `rel_tol`, or until a midpoint is undecided or no longer representable.
fn bisect(
    g: &impl Fn(&Rational, Precision) -> Result<Enclosure>,
    target: &Rational,
    mut lo: Float,
    mut hi: Float,
    rel_tol: f64,
    prec: Precision,
) -> Result<(Float, Float)> {
    while Float::with_val(SEARCH_BITS, &hi - &lo) > Float::with_val(SEARCH_BITS, &hi * rel_tol) {
        let mid = midpoint(&lo, &hi);
        if mid <= lo || mid >= hi {
            break;
        }
        match decide(g, &mid, target, prec)? {
            Tri::Less => hi = mid,
            Tri::Greater => lo = mid,
            Tri::Undecided => break,
        }
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_exact;

    /// g(x) = 1/x, enclosed exactly-rounded at the requested bits: the crossing with a target t
    /// is x* = 1/t exactly, an independent reference.
    fn recip(x: &Rational, p: Precision) -> Result<Enclosure> {
        let bits = p.fixed_bits()?;
        Ok(Enclosure::rational(&Rational::from(x.recip_ref()), bits))
    }

    /// Brackets around 1/t for targets whose crossings lie inside, above and below the f64
    /// range (galloping both ways, geometric mid-points): infeasible < x* ≤ feasible, width
    /// within the tolerance, every endpoint a 53-bit point.
    #[test]
    fn brackets_the_exact_crossing_at_any_magnitude() {
        // crossings 1/t that are not dyadic (an exactly hit crossing is undecided and stops
        // the bisection early, by design)
        for t in ["3", "3e-5", "7e-400", "7e-100000", "1e400", "3e100000"] {
            let target = parse_exact(t).unwrap();
            let star = Rational::from(target.recip_ref());
            let b = invert_nonincreasing(
                recip,
                &target,
                0.0,
                false,
                point(1.0),
                1e-12,
                Precision::Auto,
            )
            .unwrap();
            let (lo, hi) = (b.infeasible.clone().unwrap(), b.feasible.clone());
            assert!(lo < star && star <= hi, "{t}: [{lo}, {hi}] misses 1/t");
            let w = Float::with_val(64, &hi - &lo);
            assert!(
                w <= Float::with_val(64, &hi * 1.000001e-12),
                "{t}: width {w}"
            );
            assert!(lo.prec() == SEARCH_BITS && hi.prec() == SEARCH_BITS);
        }
    }

    /// A function whose enclosure never decides (always [0, 2] against the target 1) ends in
    /// an error after a bounded number of evaluations, never a hang or a bracket.
    #[test]
    fn persistent_indecision_is_an_error() {
        let wide = |_: &Rational, _: Precision| {
            Enclosure::from_rationals(
                &Rational::new(),
                &Rational::from(2),
                64,
                crate::num::Arithmetic::Mpfr(64),
            )
        };
        let r = invert_nonincreasing(
            wide,
            &Rational::from(1),
            0.0,
            false,
            point(1.0),
            1e-12,
            Precision::Auto,
        );
        assert!(r.is_err());
    }

    /// `minimize` finds the minimiser of a smooth unimodal function and of one with a kink,
    /// against the known minimisers; `ln_f64` of δ far below the f64 range against
    /// k·ln 10 formed independently in f64.
    #[test]
    fn minimize_and_ln_f64() {
        let m = minimize(|x| (x - 0.3) * (x - 0.3), 0.0, 1.0);
        assert!((m - 0.3).abs() < 1e-8, "{m}");
        let m = minimize(|x| (x - 2.0 / 3.0).abs() + 1.0, 0.0, 5.0);
        assert!((m - 2.0 / 3.0).abs() < 1e-8, "{m}");
        let m = minimize_with(
            |x| if x < 0.1 { f64::NAN } else { (x - 0.7).powi(2) },
            0.0,
            1.0,
            24,
            48,
        );
        assert!((m - 0.7).abs() < 1e-6, "{m}");
        let l = ln_f64(&parse_exact("3e-400").unwrap());
        let want = 3f64.ln() - 400.0 * 10f64.ln();
        assert!((l - want).abs() <= 1e-12 * want.abs(), "{l} vs {want}");
    }

    /// A feasible floor returns [floor] at once.
    #[test]
    fn feasible_floor() {
        let floor_ok = |_: &Rational, _: Precision| Ok(Enclosure::rational(&Rational::new(), 64));
        let b = invert_nonincreasing(
            floor_ok,
            &Rational::from(1),
            0.0,
            true,
            point(1.0),
            1e-12,
            Precision::Auto,
        )
        .unwrap();
        assert_eq!(
            b,
            Bracket {
                infeasible: None,
                feasible: point(0.0)
            }
        );
    }
}
