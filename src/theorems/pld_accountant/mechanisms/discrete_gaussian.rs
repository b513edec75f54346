//! The discrete Gaussian N_ℤ(0, σ²) (Canonne, Kamath & Steinke 2020) on a query of integer
//! sensitivity Δ: atoms at the exact losses Δ(Δ − 2y)/(2σ²) of the outputs y in a window
//! [−W, W], and the P-mass outside it, bounded above, at +∞.
use super::{Atom, Profile};
use crate::num::{F64Interval, Real};
use crate::theorems::discrete::DiscreteGaussian;
use rug::{Integer, Rational};

/// The window's precision parameter: e^{−W²/(2σ²)} ≤ 2^{−(WINDOW_BITS + 20)}, far below the
/// accountant's smallest tail mass 2⁻¹⁴⁰.
const WINDOW_BITS: u32 = 160;

/// P = N_ℤ(0, σ²), Q = Δ + N_ℤ(0, σ²). Output y has P-mass e^{−y²/(2σ²)}/Z and loss
/// L(y) = Δ(Δ − 2y)/(2σ²) (exact). The outputs |y| > W carry P-mass at most
/// 2·(σ²/W)e^{−W²/(2σ²)}/Z: an atom at +∞ whose mass is enclosed by [0, that bound] — the upper
/// side puts the bound there (moving mass to +∞ raises every (1 − e^{ε−z})₊ to 1), the lower side
/// drops it (a sub-measure).
pub(super) fn discrete_gaussian_profile(
    sigma_squared: &Rational,
    sensitivity: &Integer,
) -> Profile {
    let dg = DiscreteGaussian {
        sigma_squared,
        sensitivity,
    };
    let w = dg.window(WINDOW_BITS);
    let z = dg.normaliser::<F64Interval>(WINDOW_BITS);
    let mut atoms = Vec::new();
    let mut y = Integer::from(-&w);
    while y <= w {
        atoms.push(Atom {
            loss: Some(dg.loss(&y)),
            p: dg.weight::<F64Interval>(&y, WINDOW_BITS).div(&z).0,
        });
        y += 1;
    }
    let out = F64Interval::from_int(2, 53)
        .mul(&dg.tail::<F64Interval>(&w, WINDOW_BITS))
        .div(&z);
    atoms.push(Atom {
        loss: None,
        p: out.0,
    });
    let spread = (2.0 * Rational::from(sensitivity * sensitivity).to_f64()
        / (2.0 * sigma_squared.to_f64()))
    .sqrt();
    Profile::atoms_only(atoms, spread, spread)
}
