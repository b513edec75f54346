//! (ε, δ)-randomized response: ε-RR (δ = 0), and the worst case of an (ε, δ)-DP black box
//! (Corollary 24). Atoms only.
use super::super::enclose::{point, rational};
use super::{Atom, Profile};
use rug::Rational;

/// (ε, δ)-randomized response: +∞ w.p. δ, ±ε w.p. (1−δ)·e^{±ε}/(1+e^ε) under P.
pub(super) fn approx_atoms(eps: &Rational, delta: &Rational) -> Profile {
    let e = rational(eps);
    let d = rational(delta);
    let rest = point(1.0) - d;
    let up = rest / (point(1.0) + (-e).exp());
    let down = rest / (point(1.0) + e.exp());
    let mut atoms = vec![
        Atom {
            loss: Some(eps.clone()),
            p: up,
        },
        Atom {
            loss: Some(Rational::from(-eps)),
            p: down,
        },
    ];
    if *delta > 0 {
        atoms.push(Atom { loss: None, p: d });
    }
    let e = eps.to_f64();
    Profile::atoms_only(atoms, e, e)
}
