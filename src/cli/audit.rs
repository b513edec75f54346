//! `dpcert audit FILE`: the audit report of a deployment file; exit 1 when the claim is
//! refuted, 4 when undecided.
use super::fail;
use crate::audit::{self, Verdict};
use crate::{exit, json as contract, Error};
use clap::Args;
use serde_json::{json, Value};

#[derive(Args)]
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
}

impl AuditArgs {
    fn input(&self) -> Value {
        json!({"file": self.file.display().to_string(), "format": self.format})
    }
}

/// The exit code of a report: 1 when the claim is refuted, 4 when undecided, else 0.
fn exit_code(r: &audit::Report) -> i32 {
    match r.claim.as_ref().map(|c| &c.verdict) {
        Some(Verdict::Refuted) => exit::REFUTED,
        Some(Verdict::Undecided) => exit::UNDECIDED,
        _ => exit::OK,
    }
}

pub(super) fn run_audit(a: &AuditArgs) -> i32 {
    let report = (|| -> Result<audit::Report, Error> {
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
        audit::audit(&d)
    })();
    let r = match report {
        Ok(r) => r,
        Err(e) => return fail("audit", a.input(), &e, a.json),
    };
    if a.json {
        println!("{}", contract::envelope("audit", a.input(), r.to_json()));
    } else {
        print!("{}", r.to_table());
    }
    exit_code(&r)
}
