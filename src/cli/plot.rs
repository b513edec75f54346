//! `dpcert plot FILE -o OUT.svg`: a deployment's privacy profile as SVG.
use super::fail;
use crate::{exit, Error};
use clap::Args;
use serde_json::json;

#[derive(Args)]
#[command(after_help = super::EXIT_CODES)]
pub(super) struct PlotArgs {
    /// The deployment file (`.toml`, or `.json`).
    file: std::path::PathBuf,
    /// Output file: `.svg`, or `-` for stdout (other formats are refused).
    #[arg(short = 'o', long = "output", value_name = "SVG")]
    output: std::path::PathBuf,
}

fn plot(a: &PlotArgs) -> Result<(), Error> {
    let to_stdout = a.output.as_os_str() == "-";
    if !to_stdout
        && a.output
            .extension()
            .is_none_or(|e| !e.eq_ignore_ascii_case("svg"))
    {
        return Err(Error::arg(
            "--output",
            format!(
                "{}: only SVG is supported (name the file *.svg, or - for stdout)",
                a.output.display()
            ),
        ));
    }
    let d = crate::deploy::Deployment::load(&a.file)?;
    let svg = {
        use std::io::IsTerminal;
        crate::plot::profile_svg_with(&d, std::io::stderr().is_terminal())?
    };
    if to_stdout {
        super::out::print(&svg);
        return Ok(());
    }
    std::fs::write(&a.output, svg).map_err(|e| {
        Error::arg(
            "--output",
            format!("cannot write {}: {e}", a.output.display()),
        )
    })?;
    super::out::warn(&format!("dpcert: wrote {}", a.output.display()));
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
