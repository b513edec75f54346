//! Every byte the command line writes. Standard output goes through [`print`], which never
//! panics: the first write error is kept and later output is dropped, as C's stdio keeps an
//! error flag that coreutils check when they exit; [`finish`] flushes and turns a kept error
//! into the exit code. Standard error goes through [`warn`], whose own errors are ignored
//! (there is nowhere left to report them): a full or closed stderr changes no exit code.
//! A chart ([`dpcert::plot`] draws it as SVG text) goes to standard output or, atomically, to
//! the file its flag names ([`svg_output`], [`write_svg`]).
//!
//! Exit codes of an output failure (documented under `--help`):
//! - the reader closed the pipe (EPIPE, e.g. `dpcert vectors --json | head -c 10`): exit
//!   [`dpcert::exit::BROKEN_PIPE`] = 141 = 128 + SIGPIPE, quietly — what a shell reports for a
//!   coreutils program killed by SIGPIPE. (ripgrep exits 0 there; dpcert's exit code carries a
//!   verdict, and a 0 after truncated output would read as "verified".)
//! - any other write error (ENOSPC on a full disk, EIO): one line on stderr and exit
//!   [`dpcert::exit::OUTPUT`].
use dpcert::{exit, Error, Result};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The first error writing standard output, if any.
static FAILED: Mutex<Option<io::Error>> = Mutex::new(None);

fn failed() -> std::sync::MutexGuard<'static, Option<io::Error>> {
    FAILED.lock().unwrap_or_else(|p| p.into_inner())
}

/// Write `text` to standard output (nothing once a write has failed).
pub(super) fn print(text: &str) {
    let mut kept = failed();
    if kept.is_some() {
        return;
    }
    if let Err(e) = io::stdout().lock().write_all(text.as_bytes()) {
        *kept = Some(e);
    }
}

/// [`print`] of `text` and a newline.
pub(super) fn println(text: &str) {
    print(&format!("{text}\n"));
}

/// Write `text` and a newline to standard error, ignoring a failure.
pub(super) fn warn(text: &str) {
    let _ = writeln!(io::stderr().lock(), "{text}");
}

/// Write `text` to standard error without a newline (progress lines), ignoring a failure.
pub(super) fn progress(text: &str) {
    let mut e = io::stderr().lock();
    let _ = e.write_all(text.as_bytes()).and_then(|()| e.flush());
}

/// Flush standard output and return the process exit code: `code`, unless writing the
/// output failed (then [`exit::BROKEN_PIPE`] quietly, or [`exit::OUTPUT`] with one line on
/// stderr).
pub(super) fn finish(code: i32) -> i32 {
    if failed().is_none() {
        if let Err(e) = io::stdout().lock().flush() {
            *failed() = Some(e);
        }
    }
    match failed().as_ref() {
        None => code,
        Some(e) if e.kind() == io::ErrorKind::BrokenPipe => exit::BROKEN_PIPE,
        Some(e) => {
            warn(&format!("dpcert: cannot write the output: {e}"));
            exit::OUTPUT
        }
    }
}

/// Where a chart goes (`--output` of `dpcert plot`, `--plot` of `dpcert tradeoff`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Output {
    /// Standard output (`-`).
    Stdout,
    /// A file ending in `.svg`.
    File(PathBuf),
}

/// The chart output a command-line argument names: `-` is standard output, else a path ending
/// in `.svg` (any case). Any other name is refused (only SVG is written), naming `flag`.
pub(super) fn svg_output(path: &Path, flag: &str) -> Result<Output> {
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

/// Write a chart to its output: standard output through [`print`], or the file by
/// [`dpcert::plot::write_atomic`]. Errors name `flag` and the file.
pub(super) fn write_svg(out: &Output, svg: &str, flag: &str) -> Result<()> {
    match out {
        Output::Stdout => {
            // through the one writer: a closed pipe ends quietly, never a panic
            print(svg);
            Ok(())
        }
        Output::File(p) => dpcert::plot::write_atomic(p, svg.as_bytes())
            .map_err(|e| Error::arg(flag, format!("cannot write {}: {e}", p.display()))),
    }
}
