//! Which neighbouring datasets a guarantee is about, and how a user-level run draws its
//! batches (how a run's batches are drawn is `dpsgd::Sampling`).
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
