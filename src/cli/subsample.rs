//! `dpcert subsample`: amplification by subsampling of an (ε, δ)-DP mechanism.
use super::{lower_dec, num, precision, require_finite_upper, Common};
use crate::num::Certified;
use crate::{validate, Error};
use clap::Args;
use serde_json::json;

#[derive(Args)]
pub(super) struct SubsampleArgs {
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    epsilon: String,
    #[arg(long, value_name = "D", allow_hyphen_values = true)]
    delta: String,
    /// Sampling rate q (Poisson) or m/n (without replacement).
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    rate: String,
    /// poisson | without-replacement
    #[arg(long, value_name = "SCHEME")]
    scheme: String,
    /// add-remove | substitution (default: add-remove for poisson, substitution without replacement)
    #[arg(long, value_name = "RELATION")]
    relation: Option<String>,
    #[command(flatten)]
    pub(super) common: Common,
}

pub(super) fn run_subsample(a: &SubsampleArgs) -> Result<i32, Error> {
    let SubsampleArgs {
        epsilon,
        delta,
        rate,
        scheme,
        relation,
        common,
    } = a;
    let (scheme, relation) = (scheme.as_str(), relation.as_deref());
    use crate::theorems::subsample;
    let e = num("--epsilon", epsilon)?;
    validate::nonnegative("--epsilon", &e)?;
    let d = num("--delta", delta)?;
    validate::unit_from_zero("--delta", &d)?;
    let q = num("--rate", rate)?;
    if q <= 0 || q > 1 {
        return Err(Error::arg(
            "--rate",
            format!("must lie in (0, 1], got {}", validate::show(&q)),
        ));
    }
    let p = precision(common)?;
    let relation = match (scheme, relation) {
        ("poisson", None) => "add-remove",
        ("without-replacement", None) => "substitution",
        (_, Some(r)) => r,
        (s, None) => s,
    };
    let certified =
        |a: subsample::Amplified| (Certified::TwoSided(a.epsilon), Certified::TwoSided(a.delta));
    let bound = |a: subsample::AmplifiedBound| {
        (
            Certified::UpperBound(a.epsilon),
            Certified::UpperBound(a.delta),
        )
    };
    let ((eps_out, delta_out), theorem) = match (scheme, relation) {
        ("poisson", "add-remove") => (
            certified(subsample::poisson_subsampling(&e, &d, &q, p)?),
            "Poisson subsampling, add/remove (Steinke 2022 §6; Balle–Barthe–Gaboardi 2018)",
        ),
        ("without-replacement", "substitution") => (
            certified(subsample::without_replacement_subsampling(&e, &d, &q, p)?),
            "sampling without replacement, substitution (Balle–Barthe–Gaboardi 2018, Theorem 9)",
        ),
        ("poisson", "substitution") => (
            bound(subsample::poisson_substitution_subsampling(&e, &d, &q, p)?),
            "Poisson subsampling analysed for substitution (derived; proofs-notes/poisson_substitution_subsampling.md)",
        ),
        ("without-replacement", "add-remove") => {
            return Err(Error::arg(
                "--relation",
                "no theorem for sampling without replacement under add/remove; use --relation substitution, or --scheme poisson for add/remove",
            ))
        }
        ("poisson" | "without-replacement", r) => {
            return Err(Error::arg("--relation", format!("`{r}` is not add-remove or substitution")))
        }
        (s, _) => return Err(Error::arg("--scheme", format!("`{s}` is not poisson or without-replacement"))),
    };
    require_finite_upper(eps_out.upper(), "the amplified ε")?;
    require_finite_upper(delta_out.upper(), "the amplified δ")?;
    let side = |c: &Certified| json!({"kind": c.kind(), "lower": c.lower().map(lower_dec), "upper": c.upper().to_decimal()});
    if common.json {
        println!(
            "{}",
            json!({
                "query": "subsample",
                "scheme": scheme,
                "relation": relation,
                "epsilon": side(&eps_out),
                "delta": side(&delta_out),
                "exact": eps_out.is_two_sided(),
                "theorem": theorem,
                "precision_bits": eps_out.formula().precision_bits(),
                "arithmetic": eps_out.formula().arithmetic().name(),
            })
        );
    } else {
        println!(
            "subsampled at rate {}: ({}, {})-DP [{theorem}]",
            validate::show(&q),
            eps_out.upper().to_decimal(),
            delta_out.upper().to_decimal()
        );
    }
    Ok(0)
}
