//! Amplification by subsampling of an (ε, δ)-DP mechanism, as a query value (`dpcert
//! subsample`): the scheme and neighbouring relation pick the theorem.
use super::query::require_finite_upper;
use crate::num::{Certified, Precision};
use crate::theorems::subsample;
use crate::{validate, Error, Result};
use rug::Rational;

/// How the subsample is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// Each record independently with probability q.
    Poisson,
    /// A uniformly random subset of size m = q·n.
    WithoutReplacement,
}

/// Which datasets are neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// One record added or removed.
    AddRemove,
    /// One record replaced by another.
    Substitution,
}

impl Scheme {
    /// `poisson` or `without-replacement`.
    pub fn parse(text: &str) -> Result<Scheme> {
        match text {
            "poisson" => Ok(Scheme::Poisson),
            "without-replacement" => Ok(Scheme::WithoutReplacement),
            s => Err(Error::arg(
                "scheme",
                format!("`{s}` is not poisson or without-replacement"),
            )),
        }
    }
    /// The relation its theorem uses by default.
    pub fn default_relation(self) -> Relation {
        match self {
            Scheme::Poisson => Relation::AddRemove,
            Scheme::WithoutReplacement => Relation::Substitution,
        }
    }
}

impl Relation {
    /// `add-remove` or `substitution`.
    pub fn parse(text: &str) -> Result<Relation> {
        match text {
            "add-remove" => Ok(Relation::AddRemove),
            "substitution" => Ok(Relation::Substitution),
            r => Err(Error::arg(
                "relation",
                format!("`{r}` is not add-remove or substitution"),
            )),
        }
    }
    /// The command-line spelling: `add-remove` or `substitution`.
    pub fn name(self) -> &'static str {
        match self {
            Relation::AddRemove => "add-remove",
            Relation::Substitution => "substitution",
        }
    }
}

/// An (ε, δ)-DP mechanism run on a subsample drawn at rate q.
#[derive(Clone, Debug, PartialEq)]
pub struct Subsampling {
    /// The mechanism's ε ≥ 0.
    pub epsilon: Rational,
    /// The mechanism's δ in [0, 1).
    pub delta: Rational,
    /// Sampling rate q in (0, 1] (m/n without replacement).
    pub rate: Rational,
    /// How the subsample is drawn.
    pub scheme: Scheme,
    /// The neighbouring relation the guarantee is stated for.
    pub relation: Relation,
}

/// The amplified guarantee: ε and δ of the subsampled mechanism.
#[derive(Clone, Debug)]
pub struct Amplification {
    /// The amplified ε: two-sided, or an upper bound for Poisson under substitution; finite.
    pub epsilon: Certified,
    /// The amplified δ: two-sided, or an upper bound for Poisson under substitution; finite.
    pub delta: Certified,
    /// The theorem the amplified guarantee rests on.
    pub theorem: &'static str,
}

impl Subsampling {
    /// Check the parameters (the error names the argument).
    pub fn validate(&self) -> Result<()> {
        validate::nonnegative("epsilon", &self.epsilon)?;
        validate::unit_from_zero("delta", &self.delta)?;
        validate::unit_rate("rate", &self.rate)
    }

    /// The certified amplified (ε, δ) by the theorem for this scheme and relation.
    pub fn evaluate(&self, p: Precision) -> Result<Amplification> {
        self.validate()?;
        let (e, d, q) = (&self.epsilon, &self.delta, &self.rate);
        let two = |a: subsample::Amplified| {
            (Certified::TwoSided(a.epsilon), Certified::TwoSided(a.delta))
        };
        let ((epsilon, delta), theorem) = match (self.scheme, self.relation) {
            (Scheme::Poisson, Relation::AddRemove) => (
                two(subsample::poisson_subsampling(e, d, q, p)?),
                "Poisson subsampling, add/remove (Steinke 2022 §6; Balle–Barthe–Gaboardi 2018)",
            ),
            (Scheme::WithoutReplacement, Relation::Substitution) => (
                two(subsample::without_replacement_subsampling(e, d, q, p)?),
                "sampling without replacement, substitution (Balle–Barthe–Gaboardi 2018, Theorem 9)",
            ),
            (Scheme::Poisson, Relation::Substitution) => {
                let a = subsample::poisson_substitution_subsampling(e, d, q, p)?;
                (
                    (Certified::UpperBound(a.epsilon), Certified::UpperBound(a.delta)),
                    "Poisson subsampling analysed for substitution (derived; proofs-notes/poisson_substitution_subsampling.md)",
                )
            }
            (Scheme::WithoutReplacement, Relation::AddRemove) => return Err(Error::arg(
                "relation",
                "no theorem for sampling without replacement under add/remove; use --relation substitution, or --scheme poisson for add/remove",
            )),
        };
        require_finite_upper(epsilon.upper(), "the amplified ε")?;
        require_finite_upper(delta.upper(), "the amplified δ")?;
        Ok(Amplification {
            epsilon,
            delta,
            theorem,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::parse_exact;

    /// Independent reference: Poisson add/remove amplification is ε' = ln(1 + q(e^ε − 1)),
    /// δ' = qδ (exact rationals for δ; MPFR at 256 bits for ε'); the answer encloses both.
    #[test]
    fn poisson_encloses_the_closed_form() {
        let s = Subsampling {
            epsilon: parse_exact("1").unwrap(),
            delta: parse_exact("1e-6").unwrap(),
            rate: parse_exact("1/100").unwrap(),
            scheme: Scheme::Poisson,
            relation: Scheme::Poisson.default_relation(),
        };
        let a = s.evaluate(Precision::Auto).unwrap();
        let e1 = rug::Float::with_val(256, 1).exp() - 1u32;
        let want = (e1 / 100u32 + 1u32).ln();
        let (lo, up) = (
            a.epsilon.lower().unwrap().as_float(),
            a.epsilon.upper().as_float(),
        );
        assert!(*lo <= want && want <= *up, "[{lo}, {up}] misses {want}");
        assert!(rug::Float::with_val(256, up - lo) < 1e-12);
        let qd = parse_exact("1e-8").unwrap();
        assert!(*a.delta.lower().unwrap().as_float() <= qd && *a.delta.upper().as_float() >= qd);
        let bad = Subsampling {
            scheme: Scheme::WithoutReplacement,
            relation: Relation::AddRemove,
            ..s
        };
        assert!(
            matches!(bad.evaluate(Precision::Auto), Err(Error::InvalidArgument { name, .. }) if name == "relation")
        );
    }
}
