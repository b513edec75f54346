//! The discrete Laplace mechanism DLap(a) (P\[Y = y\] = tanh(a/2)·e^{−a|y|} on the integers) on a
//! query of integer sensitivity Δ: atoms only, at the losses a(Δ − 2y) of the outputs y = 0 … Δ.
use super::super::enclose::point;
use super::{Atom, Profile};
use crate::num::{F64Interval, Real};
use rug::{Integer, Rational};

/// Largest sensitivity the accountant takes for the discrete Laplace (its Δ + 1 atoms).
pub(super) const MAX_DISCRETE_LAPLACE_SENSITIVITY: u32 = 100_000;

/// P = DLap(a), Q = Δ + DLap(a). An output y ≤ 0 has loss aΔ (P-mass P\[Y ≤ 0\] = 1/(1 + e^{−a})),
/// y ≥ Δ has loss −aΔ (P-mass P\[Y ≥ Δ\] = e^{−aΔ}/(1 + e^{−a})), and 0 < y < Δ has loss
/// a(Δ − 2y) (P-mass tanh(a/2)·e^{−ay} = −expm1(−a)·e^{−ay}/(1 + e^{−a})). Every loss is exact.
pub(super) fn discrete_laplace_profile(a: &Rational, sensitivity: &Integer) -> Profile {
    let r = |q: Rational| F64Interval::from_rational(&q, 53);
    let ema = r(Rational::from(-a)).exp();
    let denom = ema.add(&F64Interval(point(1.0)));
    let inner = r(Rational::from(-a)).expm1().neg().div(&denom);
    let d = sensitivity.to_u32().unwrap_or(0);
    let loss = |y: u32| a * Rational::from(Integer::from(sensitivity - 2 * y));
    let mut atoms = vec![Atom {
        loss: Some(loss(0)),
        p: F64Interval(point(1.0)).div(&denom).0,
    }];
    for y in 1..d {
        let w = r(Rational::from(a * y)).neg().exp();
        atoms.push(Atom {
            loss: Some(loss(y)),
            p: inner.mul(&w).0,
        });
    }
    let far = r(Rational::from(a * sensitivity)).neg().exp().div(&denom);
    atoms.push(Atom {
        loss: Some(loss(d)),
        p: far.0,
    });
    let top = Rational::from(a * sensitivity).to_f64();
    Profile::atoms_only(atoms, top, a.to_f64())
}
