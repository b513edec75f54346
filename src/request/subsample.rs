//! `dpcert subsample`: amplification by subsampling of an (ε, δ)-DP mechanism.
use super::{bracket_words, digits, flagged, num, precision, Common, Failure, Reply};
use crate::reference::subsampling::{Amplification, Relation, Scheme, Subsampling};
use crate::{json as contract, Error};
use clap::Args;
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Args, Debug, Deserialize)]
#[command(after_help = super::EXIT_CODES)]
#[serde(deny_unknown_fields)]
pub struct SubsampleArgs {
    /// ε of the mechanism run on the subsample (≥ 0).
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    epsilon: String,
    /// δ of the mechanism run on the subsample, in [0, 1).
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    /// Sampling rate q = batch size / dataset size, in (0, 1] (m/n without replacement).
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    rate: String,
    /// poisson (each record independently with probability q) | without-replacement (a
    /// uniformly random subset of size m = q·n).
    #[arg(long, value_name = "SCHEME")]
    scheme: String,
    /// Neighbouring datasets: add-remove (one record added or removed) | substitution (one
    /// record replaced). Default: add-remove for poisson, substitution without replacement.
    #[arg(long, value_name = "RELATION")]
    relation: Option<String>,
    #[command(flatten)]
    #[serde(flatten)]
    pub(super) common: Common,
}

impl SubsampleArgs {
    fn input(&self) -> Value {
        json!({"epsilon": self.epsilon, "delta": self.delta, "rate": self.rate,
               "scheme": self.scheme, "relation": self.relation,
               "precision": self.common.precision})
    }
    fn to_subsampling(&self) -> Result<Subsampling, Error> {
        let scheme = Scheme::parse(&self.scheme)?;
        Ok(Subsampling {
            epsilon: num("--epsilon", &self.epsilon)?,
            delta: num("--delta", &self.delta)?,
            rate: num("--rate", &self.rate)?,
            scheme,
            relation: match &self.relation {
                Some(r) => Relation::parse(r)?,
                None => scheme.default_relation(),
            },
        })
    }
}

fn result_json(s: &Subsampling, a: &Amplification) -> Value {
    let f = a.epsilon.formula();
    json!({
        "relation": s.relation.name(),
        "epsilon": contract::quantity(&a.epsilon),
        "delta": contract::quantity(&a.delta),
        "theorem": a.theorem,
        "precision_bits": f.precision_bits(),
        "arithmetic": f.arithmetic().name(),
    })
}

/// The subsampling the flags ask for, and its certified amplification.
fn evaluate(a: &SubsampleArgs) -> Result<(Subsampling, Amplification), Error> {
    flagged((|| {
        let s = a.to_subsampling()?;
        let p = precision(&a.common)?;
        let out = crate::progress::heartbeat("dpcert subsample", || s.evaluate(p))?;
        Ok((s, out))
    })())
}

/// `dpcert subsample`'s answer: the certified ε and δ after amplification.
pub(super) fn reply(a: &SubsampleArgs) -> Result<Reply, Box<Failure>> {
    let evaluated = flagged(digits(&a.common)).and_then(|n| Ok((evaluate(a)?, n)));
    let ((s, out), n) = evaluated.map_err(|error| {
        Box::new(Failure {
            command: "subsample",
            input: a.input(),
            error,
        })
    })?;
    Ok(Reply {
        command: "subsample",
        input: a.input(),
        result: result_json(&s, &out),
        text: format!(
            "Subsampled at rate {} ({}, {}): ε {} and δ {}.\n  [{}]",
            a.rate,
            a.scheme,
            s.relation.name(),
            bracket_words(&out.epsilon, n),
            bracket_words(&out.delta, n),
            out.theorem
        ),
    })
}
