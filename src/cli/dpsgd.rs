//! `dpcert dpsgd`: ε at δ of DP-SGD (Poisson-subsampled Gaussian steps), by the PLD accountant
//! or the RDP route.
use super::rdp::SgmArgs;
use super::{count, num, Common, QueryCmd};
use crate::calibrate::{self, Run};
use crate::reference::query::{Answer, Dpsgd, DpsgdMethod, GaussianShape, Query};
use crate::theorems::sampling::{Relation, Sampling};
use crate::Error;
use rug::Rational;
use clap::Args;
use serde_json::{json, Value};

#[derive(Args)]
#[command(after_help = super::EXIT_CODES)]
pub(super) struct DpsgdArgs {
    #[command(flatten)]
    sgm: SgmArgs,
    /// Target δ in (0, 1), per example (the privacy unit is one example), e.g. 1e-5; usually
    /// below 1 / dataset size.
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    /// pld = the certified PLD accountant (two-sided bracket, both neighbour directions);
    /// rdp = Rényi DP (an upper bound resting on a cited result); best = pld, or rdp where
    /// pld cannot run on automatic settings.
    #[arg(long, value_name = "METHOD", default_value = "best")]
    method: String,
    /// PLD grid width h (privacy losses on the grid i·h; smaller = tighter and slower).
    /// Default: chosen from the composed spread.
    #[arg(long, value_name = "H", allow_hyphen_values = true)]
    grid: Option<String>,
    /// PLD tail mass one truncation may move, in (0, 1e-3]. Default: δ·10⁻⁶/(2·steps).
    #[arg(long, value_name = "TAU", allow_hyphen_values = true)]
    tail: Option<String>,
    /// poisson (default) | shuffled: each example once per epoch, accounted without
    /// amplification as ⌈T/⌊1/q⌋⌉ Gaussian releases (the Poisson figure printed beside it)
    /// | fixed-size (refused: no certified route yet).
    #[arg(long, value_name = "KIND", default_value = "poisson")]
    sampling: String,
    /// Neighbouring datasets: add-remove (default: one example added or removed) |
    /// substitution (one example replaced by another; clipped gradients may then differ by 2).
    /// Poisson + substitution: two-sided, lower from the pair gradient +1 vs −1, upper by
    /// group privacy over add/remove (a remove then an add step); PLD only.
    #[arg(long, value_name = "REL", default_value = "add-remove")]
    relation: String,
    #[command(flatten)]
    pub(super) common: Common,
}

impl DpsgdArgs {
    /// Shuffled runs: the exact Gaussian composition of the passes (`shuffled_dpsgd_epsilon`'s
    /// quantity), as the Gaussian ε query; other non-default samplers are refused.
    fn sampler_query(&self, d: &Dpsgd) -> Result<Option<Query>, Error> {
        let sampling = Sampling::parse(&self.sampling).map_err(|e| relabel(e, "--sampling"))?;
        let relation = Relation::parse(&self.relation).map_err(|e| relabel(e, "--relation"))?;
        match (sampling, relation) {
            (Sampling::Poisson, Relation::AddRemove) => Ok(None),
            (Sampling::Shuffled, rel) => {
                let mut run = Run::poisson(d.rate.clone(), d.sigma.clone(), d.steps.clone());
                run.sampling = Sampling::Shuffled;
                let k = calibrate::shuffled_participations(&run)?;
                let c = if rel == Relation::Substitution { 2 } else { 1 };
                Ok(Some(Query::GaussianEpsilon {
                    shape: GaussianShape {
                        sigma: d.sigma.clone(),
                        sensitivity: Rational::from(c),
                        compositions: k,
                    },
                    delta: d.delta.clone(),
                }))
            }
            (Sampling::Poisson, Relation::Substitution) => {
                Ok(Some(Query::DpsgdSubstitution(d.clone())))
            }
            (Sampling::FixedSize, _) => Err(Error::arg(
                "--sampling",
                "fixed-size batches have no certified route in dpcert yet; use poisson or shuffled",
            )),
        }
    }
}

fn relabel(e: Error, flag: &str) -> Error {
    match e {
        Error::InvalidArgument { reason, .. } => Error::arg(flag, reason),
        other => other,
    }
}

impl QueryCmd for DpsgdArgs {
    fn command(&self) -> &'static str {
        "dpsgd"
    }
    fn common(&self) -> &Common {
        &self.common
    }
    fn input(&self) -> Value {
        json!({"rate": self.sgm.rate, "sigma": self.sgm.sigma, "steps": self.sgm.steps,
               "delta": self.delta, "method": self.method, "grid": self.grid, "tail": self.tail,
               "sampling": self.sampling, "relation": self.relation,
               "precision": self.common.precision})
    }
    fn to_query(&self) -> Result<Query, Error> {
        let d = Dpsgd {
            rate: num("--rate", &self.sgm.rate)?,
            sigma: num("--sigma", &self.sgm.sigma)?,
            steps: count("--steps", &self.sgm.steps)?,
            delta: num("--delta", &self.delta)?,
            method: DpsgdMethod::parse(&self.method)?,
            grid: self.grid.as_deref().map(|g| num("--grid", g)).transpose()?,
            tail: self.tail.as_deref().map(|t| num("--tail", t)).transpose()?,
        };
        Ok(self.sampler_query(&d)?.unwrap_or(Query::Dpsgd(d)))
    }
    fn asked(&self) -> String {
        format!(
            "The ε at δ = {} of DP-SGD with q = {}, σ = {}, {} steps",
            self.delta, self.sgm.rate, self.sgm.sigma, self.sgm.steps
        )
    }
    fn note(&self, a: &Answer) -> String {
        if self.sampling != "poisson" {
            return self.shuffled_note();
        }
        if self.relation == "substitution" {
            return " (Poisson, substitution neighbours: lower bound from the certified PLD of the pair (1−q)N(0,σ²)+qN(1,σ²) vs (1−q)N(0,σ²)+qN(−1,σ²); upper bound by group privacy over the certified add/remove accountant)".to_string();
        }
        let detail = |k: &str| {
            a.details
                .iter()
                .find(|(n, _)| *n == k)
                .and_then(|(_, v)| v.as_str().map(str::to_string))
        };
        match (detail("grid"), detail("order")) {
            (Some(h), _) => format!(" (certified PLD accountant, grid {h})"),
            (None, Some(alpha)) => format!(
                " (RDP at order {alpha}; rests on a cited result: {})",
                a.value.rests_on().unwrap_or("none")
            ),
            _ => String::new(),
        }
    }
}

impl DpsgdArgs {
    /// The shuffled answer's note: what was counted, and the Poisson figure beside it (a
    /// labelled comparison, from the PLD accountant).
    fn shuffled_note(&self) -> String {
        let poisson = (|| {
            let (q, s, t, d) = (
                num("--rate", &self.sgm.rate).ok()?,
                num("--sigma", &self.sgm.sigma).ok()?,
                count("--steps", &self.sgm.steps).ok()?,
                num("--delta", &self.delta).ok()?,
            );
            let opts = crate::theorems::pld_accountant::PldOptions::default();
            let r = crate::theorems::pld_accountant::dpsgd_pld_epsilon(&q, &s, &t, &d, &opts).ok()?;
            Some(format!(
                "; for comparison, Poisson sampling (add/remove) would give ε ∈ [{}, {}]",
                super::lower_digits(r.enclosure.lower(), 8),
                super::upper_digits(r.enclosure.upper(), 8)
            ))
        })();
        format!(
            " (shuffled epochs without amplification, {} relation: each pass over the data is one Gaussian release per example, ⌈T/⌊1/q⌋⌉ passes{})",
            self.relation,
            poisson.unwrap_or_default()
        )
    }
}
