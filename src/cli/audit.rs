//! `dpcert audit FILE`: the audit report of a deployment file, with a one-sentence verdict on
//! its claim; exit 1 when the claim is refuted, 4 when undecided, 0 when verified or absent.
use super::fail;
use crate::audit;
use crate::{json as contract, Error};
use clap::Args;
use serde_json::{json, Value};

#[derive(Args)]
#[command(after_help = super::EXIT_CODES)]
pub(super) struct AuditArgs {
    /// The deployment file (`.toml`, or `.json`): mechanisms, counts, and optionally a
    /// budget δ and a claimed (ε, δ) to verify.
    file: std::path::PathBuf,
    /// The file's format: `deployment` (TOML, or JSON by the `.json` extension) or
    /// `dp-event` (JSON {"budget", "claim", "event"} with a dp_accounting DpEvent tree).
    #[arg(long, value_name = "FORMAT", default_value = "deployment")]
    format: String,
    /// Print one JSON object (the dpcert/1 envelope; full digits).
    #[arg(long)]
    pub(super) json: bool,
    /// Significant digits printed (human output; default 8, outward rounded).
    #[arg(long, value_name = "N", default_value = "8")]
    digits: String,
}

impl AuditArgs {
    fn input(&self) -> Value {
        json!({"file": self.file.display().to_string(), "format": self.format})
    }
}

pub(super) fn run_audit(a: &AuditArgs) -> i32 {
    let report = (|| -> Result<(audit::Report, usize), Error> {
        let n = super::digits_arg(&a.digits)?;
        let d = match a.format.as_str() {
            "deployment" => crate::deploy::Deployment::load(&a.file)?,
            "dp-event" => crate::dp_event::load(&a.file)?,
            f => {
                return Err(Error::arg(
                    "--format",
                    format!("`{f}` is not deployment or dp-event"),
                ))
            }
        };
        Ok((audit::audit(&d)?, n))
    })();
    let (r, n) = match report {
        Ok(r) => r,
        Err(e) => return fail("audit", a.input(), &e, a.json),
    };
    if a.json {
        println!(
            "{}",
            contract::envelope("audit", a.input(), r.result_json())
        );
    } else {
        print!("{}", r.text(n));
    }
    r.verdict().exit_code()
}
