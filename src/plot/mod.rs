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

use std::io::Write;
use std::path::Path;

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
