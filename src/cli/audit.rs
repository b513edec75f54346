//! `dpcert audit FILE`: the audit report of a deployment file.
use crate::Error;
use clap::Args;

#[derive(Args)]
pub(super) struct AuditArgs {
    /// The deployment file (`.toml`, or `.json`).
    file: std::path::PathBuf,
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn run_audit(a: &AuditArgs) -> Result<i32, Error> {
    let d = crate::deploy::Deployment::load(&a.file)?;
    let r = crate::audit::audit(&d)?;
    if a.json {
        println!("{}", r.to_json());
    } else {
        print!("{}", r.to_table());
    }
    Ok(0)
}
