//! The Laplace mechanism (scale b, sensitivity Δ, ε0 = Δ/b): atoms ±ε0 and a continuous part.
use super::super::enclose::{point, rational};
use super::super::Interval;
use super::{Atom, Profile, Tails};
use rug::Rational;

/// Loss ε0 with P-mass ½ (outputs below 0), −ε0 with P-mass ½e^{−ε0} (outputs above Δ), and in
/// between the continuous loss (Δ − 2x)/b of outputs x ∈ (0, Δ), whose tails are closed forms.
pub(super) fn laplace_profile(eps: &Rational) -> Profile {
    let one = point(1.0);
    let e = rational(eps);
    let half = point(0.5);
    let em = (-e).exp();
    let ef = eps.to_f64();
    Profile {
        // continuous part: outputs between the two centres, loss (Δ − 2x)/b ∈ (−ε0, ε0)
        tails: Some(Box::new(move |a| {
            // at and beyond ±ε0 one side's tails are exactly 0 (the continuous losses lie in
            // (−ε0, ε0)); the closed form, rounded, would leave ~2⁻⁵⁴ there, which every copy of
            // the upper side carries to +∞ (64 copies: 3.6·10⁻¹⁵ > δ = 10⁻²⁰, no answer)
            let (above, below) = (a.inf() >= e.sup(), a.sup() <= (-e).inf());
            let a = a.max(-e).min(e);
            let zero_if = |z: bool, v: Interval| if z { point(0.0) } else { v };
            Tails::plain(
                zero_if(above, half * (one - ((a - e) * half).exp())),
                zero_if(above, half * ((-(e + a) * half).exp() - em)),
                zero_if(below, half * (((a - e) * half).exp() - em)),
                zero_if(below, half * (one - (-(e + a) * half).exp())),
            )
        })),
        atoms: vec![
            Atom {
                loss: Some(eps.clone()),
                p: half,
            },
            Atom {
                loss: Some(Rational::from(-eps)),
                p: half * em,
            },
        ],
        support: (-ef, ef),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread: ef,
        detail: ef,
        mix: None,
    }
}
