//! `dpcert audit FILE`: the audit report of a deployment file, with a one-sentence verdict on
//! its claim; exit 1 when the claim is refuted, 4 when undecided, 0 when verified or absent.
use super::{fail, out};
use clap::Args;
use dpcert::audit;
use dpcert::calibrate::Calibration;
use dpcert::deploy::Deployment;
use dpcert::request::{calibration_json, calibration_text, digits_arg, flagged};
use dpcert::{json as contract, Error};
use serde_json::{json, Value};

#[derive(Args)]
#[command(after_help = dpcert::request::EXIT_CODES)]
pub(super) struct AuditArgs {
    /// The deployment file (`.toml`, or `.json`): mechanisms, counts, and optionally a
    /// budget δ and a claimed (ε, δ) to verify. A DP-SGD run (`subsampled-gaussian`) takes
    /// sampling = poisson | shuffled | fixed-size (how batches are drawn) and relation =
    /// add-remove (one example added or removed; default) | substitution (one example
    /// replaced; audited alone, ε at δ only; fixed-size needs it). At most 16 MiB, UTF-8
    /// (a byte-order mark and CRLF line ends are fine); a JSON object may not repeat a key.
    file: std::path::PathBuf,
    /// The file's format: `deployment` (TOML, or JSON by the `.json` extension) or
    /// `dp-event` (JSON {"budget", "claim", "event"} with a dp_accounting DpEvent tree).
    #[arg(
        long,
        value_name = "FORMAT",
        default_value = "deployment",
        value_parser = ["deployment", "dp-event"]
    )]
    format: String,
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    pub(super) json: bool,
    /// Significant digits printed (human output; default 8, outward rounded).
    #[arg(long, value_name = "N", default_value = "8")]
    digits: String,
    /// sigma: the smallest noise multiplier σ (noise standard deviation / clipping norm) of
    /// the deployment's one DP-SGD entry (subsampled-gaussian) that meets its [claim] (ε, δ),
    /// certified feasible, with a certificate that σ·(1 − 10⁻³) is not (as `calibrate
    /// dpsgd`); the deployment is then audited at that σ.
    #[arg(long, value_name = "PARAM")]
    calibrate: Option<String>,
}

/// `--calibrate sigma`: the calibration and the deployment at the calibrated σ.
fn calibrated(a: &AuditArgs, d: Deployment) -> Result<(Deployment, Option<Calibration>), Error> {
    match a.calibrate.as_deref() {
        None => Ok((d, None)),
        Some("sigma") => {
            let (c, d) = flagged(dpcert::calibrate::deployment_sigma(&d))?;
            Ok((d, Some(c)))
        }
        Some(p) => Err(Error::arg(
            "--calibrate",
            format!("`{p}` is not a parameter dpcert calibrates in a deployment (sigma)"),
        )),
    }
}

impl AuditArgs {
    fn input(&self) -> Value {
        json!({"file": self.file.display().to_string(), "format": self.format,
               "calibrate": self.calibrate})
    }
}

pub(super) fn run_audit(a: &AuditArgs) -> i32 {
    let report = (|| -> Result<(audit::Report, Option<Calibration>, usize), Error> {
        let n = digits_arg(&a.digits)?;
        let d = match a.format.as_str() {
            "deployment" => dpcert::deploy::Deployment::load(&a.file)?,
            "dp-event" => dpcert::dp_event::load(&a.file)?,
            f => {
                return Err(Error::arg(
                    "--format",
                    format!("`{f}` is not deployment or dp-event"),
                ))
            }
        };
        let (d, cal) = calibrated(a, d)?;
        Ok((audit::audit(&d)?, cal, n))
    })();
    let (r, cal, n) = match report {
        Ok(r) => r,
        Err(e) => return fail("audit", a.input(), &e, a.json),
    };
    if a.json {
        let mut result = r.result_json();
        if let Some(c) = &cal {
            result["calibration"] = calibration_json(c);
        }
        out::println(&contract::envelope("audit", a.input(), result).to_string());
    } else {
        if let Some(c) = &cal {
            out::print(&calibration_text(c, n));
        }
        out::print(&r.text(n));
    }
    audit::exit_code(r.verdict())
}
