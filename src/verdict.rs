//! Does a claimed value hold? The one verdict of `audit` (a deployment's claimed (ε, δ)) and
//! `check` (a value another library printed).
//!
//! Both ask the same question of a quantity whose *smallest valid value* `t*` dpcert can only
//! bracket: a claimed value `c` holds when `c ≥ t*` (a δ at least the exact δ(ε), an ε at least
//! the exact ε(δ), a σ at least the smallest sufficient σ), and fails when `c < t*`. From
//! certified bounds `lower ≤ t* ≤ upper` the answer is [`Verdict::read_off`]: holds when
//! `upper ≤ c`, fails when `lower > c`, else undecided.
//!
//! The words differ by face and stay where they are printed: `audit` says verified / refuted /
//! undecided, and "no-claim" for a deployment that makes none (`Option<Verdict>`,
//! [`crate::audit::verdict_word`]); `check` says sound / unsound / undecided, and "invalid" for
//! a malformed record (`Result<Verdict, Invalid>`, [`crate::reference::check::verdict_word`]).
use crate::exit;

#[cfg(test)]
mod tests;

/// Whether a claimed value holds, read off certified bounds of the smallest valid value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Certified: the claimed value is at least the smallest valid value (`upper ≤ c`).
    Holds,
    /// Certified: the claimed value is below the smallest valid value (`lower > c`), or is not
    /// a value of the quantity at all (`check`'s screening: NaN, −∞, a negative ε).
    Fails,
    /// The certified bounds do not separate the claimed value from the smallest valid value.
    Undecided,
}

impl Verdict {
    /// The verdict on a claimed value `c` from certified bounds `lower ≤ t* ≤ upper` of the
    /// smallest valid value `t*` (`None`: that end is unknown): [`Verdict::Holds`] when
    /// `upper ≤ c`, else [`Verdict::Fails`] when `lower > c`, else [`Verdict::Undecided`].
    /// An end that does not compare with `c` (a NaN bound) decides nothing.
    ///
    /// The bounds must be certified (rounded outward): then a verdict of holds or fails is
    /// a theorem, and with `lower ≤ upper` the two tests never both pass.
    pub fn read_off<L, U, C>(lower: Option<&L>, upper: Option<&U>, c: &C) -> Verdict
    where
        L: PartialOrd<C> + ?Sized,
        U: PartialOrd<C> + ?Sized,
        C: ?Sized,
    {
        if upper.is_some_and(|u| u <= c) {
            Verdict::Holds
        } else if lower.is_some_and(|l| l > c) {
            Verdict::Fails
        } else {
            Verdict::Undecided
        }
    }

    /// `Some(self)` when decided (holds or fails), `None` when undecided.
    pub fn decided(self) -> Option<Verdict> {
        (self != Verdict::Undecided).then_some(self)
    }

    /// The process exit code (see [`crate::exit`]): fails 1, undecided 4, holds 0.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Holds => exit::OK,
            Verdict::Fails => exit::REFUTED,
            Verdict::Undecided => exit::UNDECIDED,
        }
    }
}
