//! One balls-and-bins DP-SGD epoch as the accountant's term: its certified dominating atoms
//! (computed by `random_allocation::epoch_atoms`), at exact losses k·2⁻¹². No continuous part.
use super::super::enclose::point;
use super::{Atom, Profile};
use rug::{Integer, Rational};

/// The dominating atoms of one balls-and-bins epoch in one direction: (loss in units of
/// 2^−`UNIT_BITS`, P-mass upper bound), None = +∞. An upper-side term only.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochAtoms {
    pub(in super::super) atoms: Vec<(Option<i64>, f64)>,
    pub(in super::super) spread: f64,
}

/// Loss unit of the atoms: 2⁻¹².
pub(in super::super) const UNIT_BITS: u32 = 12;

/// The accountant's profile of one epoch: its atoms, exact losses k·2⁻¹².
pub(super) fn balls_and_bins_profile(e: &EpochAtoms) -> Profile {
    let unit = Rational::from((1, 1u32 << UNIT_BITS));
    let atoms = e
        .atoms
        .iter()
        .map(|(k, m)| Atom {
            loss: k.map(|k| Rational::from(&unit * Integer::from(k))),
            p: point(*m),
        })
        .collect();
    Profile::atoms_only(atoms, e.spread, e.spread)
}

/// The exact loss unit of the epoch atoms.
pub(super) fn balls_and_bins_unit() -> Rational {
    Rational::from((1, 1u32 << UNIT_BITS))
}
