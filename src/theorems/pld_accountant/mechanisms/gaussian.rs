//! The Gaussian mechanism: PrivLoss = N(ρ, 2ρ) (Proposition 3), no atoms.
use super::super::enclose::{point, rational};
use super::{phi2, Profile, Tails};
use rug::Rational;

/// Tails of N(ρ, 2ρ) under P, and of N(−ρ, 2ρ) (the loss's law under Q), through the
/// certified Φ: P[Z > a] = Φ((ρ − a)/√(2ρ)), Q[Z > a] = Φ((−ρ − a)/√(2ρ)).
pub(super) fn gaussian_profile(rho: &Rational) -> Profile {
    let r = rational(rho);
    let s = (point(2.0) * r).sqrt();
    Profile {
        tails: Some(Box::new(move |a| {
            let (vp, vq) = ((r - a) / s, (-r - a) / s);
            let (p_gt, p_le) = phi2(vp);
            let (q_gt, q_le) = phi2(vq);
            Tails::plain(p_gt, q_gt, p_le, q_le)
        })),
        atoms: vec![],
        support: (f64::NEG_INFINITY, f64::INFINITY),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread: (2.0 * rho.to_f64()).sqrt(),
        detail: (2.0 * rho.to_f64()).sqrt(),
        mix: None,
    }
}
