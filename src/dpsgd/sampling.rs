//! How a DP-SGD run draws its batches: the sampler a [`super::Run`] names, whose parameters
//! are the run's fields and whose theorem [`super::route()`] chooses.

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
