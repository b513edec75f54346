//! A DP-SGD run's numbers as types that cannot hold an invalid value: a rate in (0, 1], a
//! positive noise multiplier, a δ in (0, 1), a positive number of steps. Each is checked once,
//! where it enters (the constructor names the argument as the caller spells it: `rate` in the
//! library, `--rate` on the command line); the dispatch and the theorems it calls then read a
//! valid value. Each dereferences to its exact `rug` value. They live on `validate`'s floor,
//! below `theorems`, so that theorem functions can take them (`dpsgd` re-exports them).
use crate::{validate, Result};
use rug::{Integer, Rational};
use std::ops::Deref;

macro_rules! checked {
    ($(#[$doc:meta])* $name:ident($inner:ty), $check:path) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name($inner);

        impl $name {
            /// The value, checked; the error names the argument `name`.
            pub fn new(name: &str, value: $inner) -> Result<$name> {
                $check(name, &value)?;
                Ok($name(value))
            }
            /// The exact value.
            pub fn into_inner(self) -> $inner {
                self.0
            }
        }

        impl Deref for $name {
            type Target = $inner;
            fn deref(&self) -> &$inner {
                &self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

checked!(
    /// A sampling rate q in (0, 1].
    Rate(Rational),
    validate::unit_rate
);
checked!(
    /// A noise multiplier σ > 0.
    Sigma(Rational),
    validate::positive
);
checked!(
    /// A δ in (0, 1).
    Delta(Rational),
    validate::open_unit
);
checked!(
    /// A number of steps T ≥ 1.
    Steps(Integer),
    validate::count
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each type refuses the values outside its domain, naming the argument, and keeps the
    /// ones inside exactly.
    #[test]
    fn constructors_refuse_out_of_domain_values() {
        let rational = |s: &str| crate::num::parse_exact(s).unwrap();
        let name = |e: crate::Error| match e {
            crate::Error::InvalidArgument { name, .. } => name,
            other => panic!("{other:?}"),
        };
        for bad in ["0", "-1/2", "3/2"] {
            assert_eq!(
                name(Rate::new("--rate", rational(bad)).unwrap_err()),
                "--rate"
            );
        }
        assert_eq!(*Rate::new("rate", rational("1")).unwrap(), 1);
        for bad in ["0", "-1"] {
            assert_eq!(
                name(Sigma::new("sigma", rational(bad)).unwrap_err()),
                "sigma"
            );
        }
        for bad in ["0", "1", "2"] {
            assert_eq!(
                name(Delta::new("delta", rational(bad)).unwrap_err()),
                "delta"
            );
        }
        assert_eq!(
            *Delta::new("delta", rational("1e-5")).unwrap(),
            rational("1/100000")
        );
        assert!(Steps::new("steps", Integer::from(0)).is_err());
        assert_eq!(*Steps::new("steps", Integer::from(7)).unwrap(), 7);
    }
}
