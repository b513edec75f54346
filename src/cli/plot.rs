//! `dpcert plot FILE -o OUT.svg`: a deployment's privacy profile as SVG, as the audit
//! certifies it (`dpcert::plot::profile`).
use super::fail;
use clap::Args;
use dpcert::{exit, Error};
use serde_json::json;

#[derive(Args)]
#[command(after_help = dpcert::request::EXIT_CODES)]
pub(super) struct PlotArgs {
    /// The deployment file (`.toml`, or `.json`).
    file: std::path::PathBuf,
    /// Output file: `*.svg` (written whole or not at all: a temporary file, then renamed), or
    /// `-` for stdout; other formats are refused (only SVG is written).
    #[arg(short = 'o', long = "output", value_name = "SVG")]
    output: std::path::PathBuf,
}

fn plot(a: &PlotArgs) -> Result<(), Error> {
    let out = super::out::svg_output(&a.output, "--output")?;
    let d = dpcert::deploy::Deployment::load(&a.file)?;
    let svg = dpcert::plot::profile_svg(&d)?;
    super::out::write_svg(&out, &svg, "--output")?;
    if out != super::out::Output::Stdout {
        super::out::warn(&format!("dpcert: wrote {}", a.output.display()));
    }
    Ok(())
}

pub(super) fn run_plot(a: &PlotArgs) -> i32 {
    match plot(a) {
        Ok(()) => exit::OK,
        Err(e) => {
            let input = json!({"file": a.file.display().to_string(), "output": a.output.display().to_string()});
            fail("plot", input, &e, false)
        }
    }
}
