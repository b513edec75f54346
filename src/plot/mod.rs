//! Charts as SVG: the privacy profile δ(ε) of a deployment ([`profile()`], what `dpcert audit`
//! certifies, drawn) and the membership-inference ROC of DP-SGD ([`roc`], f-DP on log–log
//! axes). Both draw certified samples as steps that stay bounds between them; both are
//! pictures (read numbers from the audit or the query). Ticks sit at round values, labels never
//! overlap ([`axis`]), and files are written atomically ([`write_atomic`]).
pub mod axis;
pub mod profile;
pub mod roc;
pub mod svg;

pub use profile::{profile, profile_svg, Profile};
pub use roc::{dpsgd_roc, Roc};

use crate::{Error, Result};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where a chart goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Standard output (`-`).
    Stdout,
    /// A file ending in `.svg`.
    File(PathBuf),
}

/// The chart output a command-line argument names: `-` is standard output, else a path ending
/// in `.svg` (any case). Any other name is refused (only SVG is written), naming `flag`.
pub fn svg_output(path: &Path, flag: &str) -> Result<Output> {
    if path.as_os_str() == "-" {
        return Ok(Output::Stdout);
    }
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"))
    {
        return Ok(Output::File(path.to_path_buf()));
    }
    Err(Error::arg(
        flag,
        format!(
            "{}: dpcert writes only SVG (name the file *.svg, or - for standard output); convert it with e.g. `rsvg-convert -o chart.png chart.svg`",
            path.display()
        ),
    ))
}

/// Write `bytes` to `path` atomically: into a new temporary file in the same directory, then
/// renamed over `path`. On any failure `path` is untouched (a previous file keeps its content,
/// a missing one stays missing) and the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let written = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()
    })();
    let result = written.and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Write a chart to its output: standard output, or the file by [`write_atomic`]. Errors name
/// `flag` and the file.
pub fn write_svg(out: &Output, svg: &str, flag: &str) -> Result<()> {
    match out {
        Output::Stdout => {
            // through the CLI's one writer: a closed pipe ends quietly, never a panic
            crate::cli::out::print(svg);
            Ok(())
        }
        Output::File(p) => write_atomic(p, svg.as_bytes())
            .map_err(|e| Error::arg(flag, format!("cannot write {}: {e}", p.display()))),
    }
}
