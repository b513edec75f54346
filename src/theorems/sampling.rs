//! How DP-SGD draws its batches, and which neighbouring datasets a guarantee is about.
//!
//! These are the *names* of the models; each theorem function that takes one states, in its
//! note, the adjacency and the sensitivity it uses.

/// Neighbouring datasets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// One example added or removed (the DP-SGD default).
    AddRemove,
    /// One example replaced by another (replace-one); the clipped gradient sum moves by up to
    /// twice the clipping norm.
    Substitution,
}

impl Relation {
    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            Relation::AddRemove => "add-remove",
            Relation::Substitution => "substitution",
        }
    }
    /// Parse the command-line spelling.
    pub fn parse(s: &str) -> crate::Result<Relation> {
        match s {
            "add-remove" | "add/remove" => Ok(Relation::AddRemove),
            "substitution" | "replace-one" => Ok(Relation::Substitution),
            _ => Err(crate::Error::arg(
                "relation",
                format!("expected add-remove or substitution, got '{s}'"),
            )),
        }
    }
}

/// How each step's batch is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Each example independently with probability q (the accountants' model).
    Poisson,
    /// Each epoch a random permutation cut into batches: each example exactly once per epoch.
    Shuffled,
    /// Each step B of the N examples uniformly without replacement.
    FixedSize,
    /// Balls-and-bins: each epoch every example goes to one of the t steps, uniformly (the
    /// run's `steps_per_epoch` and whole `epochs`).
    BallsAndBins,
    /// Random allocation: each epoch every example takes part in K of the t steps, uniformly
    /// (the run's `steps_per_epoch`, `uses_per_epoch` and whole `epochs`).
    RandomAllocation,
    /// Poisson batches cut at a maximum size B (the run's `max_batch`, dataset size N).
    TruncatedPoisson,
}

impl Sampling {
    /// The command-line spelling.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Poisson => "poisson",
            Sampling::Shuffled => "shuffled",
            Sampling::FixedSize => "fixed-size",
            Sampling::BallsAndBins => "balls-and-bins",
            Sampling::RandomAllocation => "random-allocation",
            Sampling::TruncatedPoisson => "truncated-poisson",
        }
    }
    /// Parse the command-line spelling.
    pub fn parse(s: &str) -> crate::Result<Sampling> {
        match s {
            "poisson" => Ok(Sampling::Poisson),
            "shuffled" | "shuffle" => Ok(Sampling::Shuffled),
            "fixed-size" | "fixed" => Ok(Sampling::FixedSize),
            // named, so that the refusal says where they are accounted
            "truncated-poisson" | "truncated" | "random-allocation" | "balls-and-bins" => Err(crate::Error::arg(
                "sampling",
                format!("`{s}` is accounted by `dpcert dpsgd --sampling {s}` only (two-sided: theorems::random_allocation), not by this command"),
            )),
            _ => Err(crate::Error::arg(
                "sampling",
                format!("expected poisson, shuffled or fixed-size, got '{s}'"),
            )),
        }
    }
}

/// How a user-level DP-SGD run draws its batches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserSampling {
    /// Each user is Poisson-sampled with all of their examples: sensitivity K, exact.
    Users,
    /// Each example is Poisson-sampled on its own: group privacy over K add/remove hops.
    Examples,
}

impl UserSampling {
    /// `users` or `examples`; anything else is an error naming `--user-sampling`.
    pub fn parse(text: &str) -> crate::Result<Self> {
        match text.trim() {
            "users" => Ok(UserSampling::Users),
            "examples" => Ok(UserSampling::Examples),
            other => Err(crate::Error::arg(
                "--user-sampling",
                format!("must be users or examples, got `{other}`"),
            )),
        }
    }
    /// The name in JSON.
    pub fn name(self) -> &'static str {
        match self {
            UserSampling::Users => "users",
            UserSampling::Examples => "examples",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The samplers accounted by `dpsgd` alone are refused elsewhere by name, saying where.
    #[test]
    fn uncertified_samplers_are_refused_with_a_reason() {
        for (s, why) in [
            (
                "truncated-poisson",
                "dpcert dpsgd --sampling truncated-poisson",
            ),
            ("balls-and-bins", "dpcert dpsgd --sampling balls-and-bins"),
            ("random-allocation", "only"),
            ("bogus", "expected poisson"),
        ] {
            match Sampling::parse(s) {
                Err(crate::Error::InvalidArgument { name, reason }) => {
                    assert_eq!(name, "sampling");
                    assert!(reason.contains(why), "{s}: {reason}");
                }
                other => panic!("{s}: {other:?}"),
            }
        }
        assert_eq!(Sampling::parse("fixed").unwrap(), Sampling::FixedSize);
    }
}
