//! Searches that choose *where* to evaluate; they never produce a reported number.
//!
//! [`minimize`] picks a free parameter (Proposition 14's `t`) in plain `f64`: any value it
//! returns gives a valid bound, the search only affects tightness. [`invert_nonincreasing`]
//! brackets the crossing of a certified non-increasing function with a target, returning two
//! points whose certified evaluations lie on opposite sides of the target.
use crate::num::{Enclosure, Precision, Tri, DEFAULT_PREC, MAX_AUTO_PREC};
use crate::{Error, Result};
use rug::Rational;

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

/// Where the certified value at `x` lies relative to the target.
fn side(e: &Enclosure, target: &Rational) -> Tri {
    e.cmp_rational(target)
}

/// Evaluate `g(x)` and decide `g(x) ≤ target` (feasible) or `g(x) > target`, raising MPFR
/// precision while undecided. Returns `Tri::Undecided` only at [`MAX_AUTO_PREC`].
pub fn decide(
    g: &impl Fn(&Rational, Precision) -> Result<Enclosure>,
    x: f64,
    target: &Rational,
    prec: Precision,
) -> Result<Tri> {
    let xr = Rational::from_f64(x)
        .ok_or_else(|| Error::Numerical("search left the finite range".into()))?;
    let mut t = side(&g(&xr, prec)?, target);
    let mut p = match prec {
        Precision::Bits(b) => b,
        Precision::Auto => DEFAULT_PREC / 2,
    };
    while t == Tri::Undecided && p < MAX_AUTO_PREC {
        p *= 2;
        t = side(&g(&xr, Precision::Bits(p))?, target);
    }
    Ok(t)
}

/// A certified bracket of the crossing point `x* = inf{x ≥ floor : g(x) ≤ target}` of a
/// non-increasing `g`: `g(infeasible) > target` and `g(feasible) ≤ target` were both
/// certified, so `infeasible < x* ≤ feasible`. When `g(floor) ≤ target` is certified, the
/// crossing is the floor itself and `infeasible` is `None`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bracket {
    pub infeasible: Option<f64>,
    pub feasible: f64,
}

/// Bracket the crossing of a non-increasing function with `target`, to relative width
/// `rel_tol` where precision allows. `floor` is the smallest admissible `x` (≥ 0); if
/// `floor_is_admissible` is false, `g(floor)` is not evaluated (e.g. σ = 0).
pub fn invert_nonincreasing(
    g: impl Fn(&Rational, Precision) -> Result<Enclosure>,
    target: &Rational,
    floor: f64,
    floor_is_admissible: bool,
    start: f64,
    rel_tol: f64,
    prec: Precision,
) -> Result<Bracket> {
    let undecided =
        || Error::Numerical("could not decide the crossing at maximum precision".into());
    if floor_is_admissible {
        match decide(&g, floor, target, prec)? {
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
    // grow `hi` until feasible
    let mut hi = start.max(f64::MIN_POSITIVE);
    let mut lo = floor;
    loop {
        match decide(&g, hi, target, prec)? {
            Tri::Less => break,
            Tri::Greater => {
                lo = hi;
                hi *= 2.0;
            }
            Tri::Undecided => hi *= 1.0 + 1e-9,
        }
        if !hi.is_finite() || hi > 1e300 {
            return Err(Error::Numerical("no feasible value below 1e300".into()));
        }
    }
    // shrink `lo` until certified infeasible (needed when `start` was already feasible)
    if lo == floor {
        let mut cand = hi / 2.0;
        loop {
            if cand <= floor || cand < 1e-300 {
                if !floor_is_admissible {
                    return Err(Error::Numerical(
                        "no infeasible value above the floor".into(),
                    ));
                }
                lo = floor;
                break;
            }
            match decide(&g, cand, target, prec)? {
                Tri::Greater => {
                    lo = cand;
                    break;
                }
                Tri::Less => {
                    hi = cand;
                    cand /= 2.0;
                }
                Tri::Undecided => cand /= 2.0,
            }
        }
    }
    // bisect
    while hi - lo > rel_tol * hi {
        let mid = lo + (hi - lo) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        match decide(&g, mid, target, prec)? {
            Tri::Less => hi = mid,
            Tri::Greater => lo = mid,
            Tri::Undecided => break,
        }
    }
    if lo == floor && floor_is_admissible && decide(&g, floor, target, prec)? != Tri::Greater {
        return Err(undecided());
    }
    Ok(Bracket {
        infeasible: Some(lo),
        feasible: hi,
    })
}
