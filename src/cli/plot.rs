//! `dpcert plot FILE -o OUT.svg`: a deployment's privacy profile as SVG.
use crate::Error;
use clap::Args;

#[derive(Args)]
pub(super) struct PlotArgs {
    file: std::path::PathBuf,
    /// Output SVG file.
    #[arg(short = 'o', long = "output", value_name = "SVG")]
    output: std::path::PathBuf,
}

pub(super) fn run_plot(a: &PlotArgs) -> Result<i32, Error> {
    let d = crate::deploy::Deployment::load(&a.file)?;
    let svg = {
        use std::io::IsTerminal;
        crate::plot::profile_svg_with(&d, std::io::stderr().is_terminal())?
    };
    std::fs::write(&a.output, svg).map_err(|e| {
        Error::arg(
            "--output",
            format!("cannot write {}: {e}", a.output.display()),
        )
    })?;
    eprintln!("dpcert: wrote {}", a.output.display());
    Ok(0)
}
