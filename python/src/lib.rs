//! `dpcert._native`: the Rust crate behind the `dpcert` Python package.
//!
//! Every function takes exact decimal strings (a query as a JSON request: the command line's
//! typed question, not its argument vector) and returns the JSON text the `dpcert` command
//! prints with `--json` (the same library entry points, so the numbers are bit-for-bit the
//! CLI's). The Python layer (`dpcert/__init__.py`) turns it into `Bound` / `Report` objects;
//! it does no arithmetic.
//!
//! Each call runs on a worker thread while the GIL is released; the calling thread polls for
//! Ctrl-C every 50 ms and raises `KeyboardInterrupt` at once (the worker then finishes in the
//! background: the Rust computation has no cancellation point). A panic is caught and raised
//! as `RuntimeError`, never carried across the boundary.
#![forbid(unsafe_code)]
use dpcert::theorems::pld_accountant::PldOptions;
use dpcert::theorems::schedule::Phase;
use pyo3::create_exception;
use pyo3::exceptions::{PyArithmeticError, PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;
use std::sync::mpsc;
use std::time::Duration;

create_exception!(
    _native,
    NumericalError,
    PyArithmeticError,
    "No finite certified enclosure could be produced (the CLI's exit status 3)."
);

/// The Python argument name for a CLI flag or library argument (`--delta-each` → `delta_each`).
fn py_name(name: &str) -> String {
    name.trim_start_matches("--").replace('-', "_")
}

fn to_py(e: dpcert::Error) -> PyErr {
    match e {
        dpcert::Error::InvalidArgument { name, reason } => {
            PyValueError::new_err(format!("invalid {}: {reason}", py_name(&name)))
        }
        dpcert::Error::Numerical(m) => NumericalError::new_err(format!("numerical failure: {m}")),
    }
}

/// The progress bar (`dpcert/_progress.py`): after a call has run `_progress.delay` seconds
/// (1 unless `set_progress` changed it), each change of the accountant's progress
/// ([`dpcert::progress`]) is passed to `update(done, total)`, and `close()` ends the bar.
/// Display only: a failure to draw is ignored — except a Ctrl-C that Python delivers while the
/// bar's own code runs, which is the user's and is passed on.
struct Bar {
    started: std::time::Instant,
    /// read from `_progress.delay` at the first change of progress
    delay: Option<Duration>,
    last: (u64, u64),
    shown: bool,
}

impl Bar {
    fn new() -> Bar {
        dpcert::progress::reset();
        Bar {
            started: std::time::Instant::now(),
            delay: None,
            last: (0, 0),
            shown: false,
        }
    }
    fn tick(&mut self, py: Python<'_>) -> PyResult<()> {
        let now = dpcert::progress::get();
        if now.1 == 0 || now == self.last {
            return Ok(());
        }
        let delay = *self.delay.get_or_insert_with(|| {
            // `set_progress` admits finite delays ≥ 0; one beyond Duration's range means never
            match py
                .import("dpcert._progress")
                .and_then(|m| m.getattr("delay"))
                .and_then(|d| d.extract::<f64>())
            {
                Ok(d) if d >= 0.0 => Duration::try_from_secs_f64(d).unwrap_or(Duration::MAX),
                _ => Duration::from_secs(1),
            }
        });
        if self.started.elapsed() < delay {
            return Ok(());
        }
        self.last = now;
        match py
            .import("dpcert._progress")
            .and_then(|m| m.call_method1("update", now))
        {
            Ok(_) => self.shown = true,
            Err(e) if e.is_instance_of::<PyKeyboardInterrupt>(py) => return Err(e),
            Err(_) => {}
        }
        Ok(())
    }
    fn close(&self, py: Python<'_>) {
        if self.shown {
            if let Ok(m) = py.import("dpcert._progress") {
                let _ = m.call_method0("close");
            }
        }
    }
}

/// Run `f` on a worker thread with the GIL released, interruptible with Ctrl-C, drawing a
/// progress bar for long calls.
fn blocking<T, F>(py: Python<'_>, f: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> dpcert::Result<T> + Send + 'static,
{
    let mut bar = Bar::new();
    let r = wait(py, f, &mut bar);
    bar.close(py);
    r
}

fn wait<T, F>(py: Python<'_>, f: F, bar: &mut Bar) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce() -> dpcert::Result<T> + Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("dpcert".into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
            let _ = tx.send(r);
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    let mut rx = rx;
    loop {
        // the receiver moves into the GIL-free closure and back (it is Send, not Sync)
        let (got, back) =
            py.allow_threads(move || (rx.recv_timeout(Duration::from_millis(50)), rx));
        rx = back;
        match got {
            Ok(Ok(r)) => return r.map_err(to_py),
            Ok(Err(_)) => {
                return Err(PyRuntimeError::new_err(
                    "dpcert: internal error (a panic; please report); no number is returned",
                ))
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                py.check_signals()?;
                bar.tick(py)?;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "dpcert: the worker thread vanished",
                ))
            }
        }
    }
}

fn parse_json(what: &str, text: &str) -> dpcert::Result<Value> {
    serde_json::from_str(text).map_err(|e| dpcert::Error::arg(what, format!("not JSON: {e}")))
}

/// The `dpcert/1` envelope (JSON text) of a single-value query given as a request (JSON text
/// of an object): `{"command": "gaussian", "subcommand": "delta", "sigma": "1", ...}`, the
/// flags' long names with underscores as keys and their exact texts as values — the command
/// line's own typed question (`dpcert::request::query_envelope_json`), no argument vector.
#[pyfunction]
fn query(py: Python<'_>, request: String) -> PyResult<String> {
    blocking(py, move || {
        let v = parse_json("request", &request)?;
        dpcert::request::query_envelope_json(&v).map(|v| v.to_string())
    })
}

/// The request object (JSON text) of a command line's argument list (without the program
/// name), for `dpcert.query(args)`, whose documented input is that list: every flag given
/// becomes its key (`dpcert::request::Request::json_of_args`); the request is then asked as
/// any other. A list clap refuses raises, naming `query`.
#[pyfunction]
fn request_of_args(args: Vec<String>) -> PyResult<String> {
    dpcert::request::Request::json_of_args(&args)
        .map(|v| v.to_string())
        .map_err(to_py)
}

/// The `dpcert/1` envelope (JSON text) of `dpcert calibrate` for a request (JSON text of
/// `{"command": "calibrate", "subcommand": "dpsgd" | "gaussian", ...}`, as `query`).
#[pyfunction]
fn calibrate(py: Python<'_>, request: String) -> PyResult<String> {
    blocking(py, move || {
        let v = parse_json("request", &request)?;
        dpcert::request::calibrate_envelope_json(&v).map(|v| v.to_string())
    })
}

/// The audit report (JSON text) of a deployment given as text: `format` is `toml`, `json`
/// (the deployment schema) or `dp-event` (`{"budget", "claim", "event"}`).
#[pyfunction]
fn audit(py: Python<'_>, text: String, format: String) -> PyResult<String> {
    blocking(py, move || {
        let d = match format.as_str() {
            "toml" => dpcert::deploy::Deployment::parse(&text, false)?,
            "json" => dpcert::deploy::Deployment::parse(&text, true)?,
            "dp-event" => dpcert::dp_event::parse(&text)?,
            other => {
                return Err(dpcert::Error::arg(
                    "format",
                    format!("`{other}` is not toml, json or dp-event"),
                ))
            }
        };
        Ok(dpcert::audit::audit(&d)?.result_json().to_string())
    })
}

/// The deployment entries (JSON text of a list) a DpEvent tree (JSON text) releases.
#[pyfunction]
fn dp_event_mechanisms(py: Python<'_>, event: String) -> PyResult<String> {
    blocking(py, move || {
        let v = parse_json("event", &event)?;
        let d = dpcert::deploy::Deployment::new(dpcert::dp_event::to_event(&v)?);
        Ok(d.to_json()?["mechanism"].to_string())
    })
}

/// `dpcert check`'s result for each record of a JSON list (JSON text of the results list).
#[pyfunction]
fn check(py: Python<'_>, records: String) -> PyResult<String> {
    blocking(py, move || {
        let v = parse_json("records", &records)?;
        let list = v
            .as_array()
            .ok_or_else(|| dpcert::Error::arg("records", "must be a list"))?;
        // the CLI's progress line, on a terminal, once the run has taken 2 s
        use std::io::IsTerminal;
        let progress = std::io::stderr().is_terminal();
        let started = std::time::Instant::now();
        let shown = || progress && started.elapsed().as_secs() >= 2;
        let mut out = Vec::with_capacity(list.len());
        for (i, r) in list.iter().enumerate() {
            if shown() {
                eprint!("\rdpcert check: record {}/{} ", i + 1, list.len());
            }
            out.push(dpcert::request::check_record_json(i, r));
        }
        if shown() {
            eprintln!();
        }
        Ok(Value::Array(out).to_string())
    })
}

/// An exact number argument (a decimal or fraction string), the error naming it.
fn exact(name: &str, text: &str) -> dpcert::Result<dpcert::rug::Rational> {
    dpcert::num::parse_exact(text).map_err(|e| dpcert::Error::arg(name, e))
}

/// A schedule's phases from (rate, sigma, steps) strings.
fn phases(list: &[(String, String, String)]) -> dpcert::Result<Vec<Phase>> {
    list.iter()
        .map(|(q, s, t)| {
            Ok(Phase {
                rate: exact("rate", q)?,
                sigma: exact("noise_multiplier", s)?,
                steps: dpcert::num::parse_positive_integer(t)
                    .map_err(|e| dpcert::Error::arg("steps", e))?,
            })
        })
        .collect()
}

/// δ(ε) of DP-SGD (Poisson, add/remove) in phases at every ε of `epsilons`: the JSON list of
/// the quantities (`{lower, upper, kind, upper_f64, rests_on}`), one composition per side and
/// direction for the whole list (`schedule::dpsgd_pld_delta`).
#[pyfunction]
#[pyo3(signature = (phases_, epsilons, grid=None, tail=None))]
fn dpsgd_delta_profile(
    py: Python<'_>,
    phases_: Vec<(String, String, String)>,
    epsilons: Vec<String>,
    grid: Option<String>,
    tail: Option<String>,
) -> PyResult<String> {
    blocking(py, move || {
        let ph = phases(&phases_)?;
        let eps = epsilons
            .iter()
            .map(|e| exact("epsilon", e))
            .collect::<dpcert::Result<Vec<_>>>()?;
        let opts = PldOptions {
            grid: grid.as_deref().map(|g| exact("grid", g)).transpose()?,
            tail: tail.as_deref().map(|t| exact("tail", t)).transpose()?,
            ..PldOptions::default()
        };
        let reports = dpcert::theorems::schedule::dpsgd_pld_delta(&ph, &eps, &opts)?;
        let list: Vec<Value> = reports
            .iter()
            .map(|r| dpcert::json::enclosure(&r.enclosure))
            .collect();
        Ok(Value::Array(list).to_string())
    })
}

/// `None` when the audit certifies the DpEvent tree (JSON text): it reads onto dpcert's
/// events and at least one route applies to it; otherwise why not (no number is computed).
#[pyfunction]
fn dp_event_unsupported(py: Python<'_>, event: String) -> PyResult<Option<String>> {
    blocking(py, move || {
        let v = parse_json("event", &event)?;
        let e = match dpcert::dp_event::to_event(&v) {
            Ok(e) => e,
            Err(err) => return Ok(Some(err.to_string())),
        };
        let ledger = match dpcert::audit::ledger::Ledger::from_event(&e) {
            Ok(l) => l,
            Err(err) => return Ok(Some(err.to_string())),
        };
        let mut why = Vec::new();
        for route in dpcert::audit::ROUTES.iter() {
            match route.applies(&ledger) {
                Ok(()) => return Ok(None),
                Err(w) => why.push(format!("{}: {}", route.name(), w.0)),
            }
        }
        Ok(Some(format!("no route certifies it ({})", why.join("; "))))
    })
}

/// The queries of `dpcert vectors` (argument lists).
#[pyfunction]
fn vector_queries() -> Vec<Vec<String>> {
    dpcert::reference::vectors::vector_queries()
}

/// The version of the Rust crate.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // the package draws its own bar (dpcert/_progress.py) where it is watched; the library's
    // stderr lines would double it on a terminal and ignore `set_progress`
    dpcert::progress::set_stderr_lines(false);
    m.add("NumericalError", m.py().get_type::<NumericalError>())?;
    m.add_function(wrap_pyfunction!(query, m)?)?;
    m.add_function(wrap_pyfunction!(request_of_args, m)?)?;
    m.add_function(wrap_pyfunction!(audit, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate, m)?)?;
    m.add_function(wrap_pyfunction!(dp_event_mechanisms, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(vector_queries, m)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_delta_profile, m)?)?;
    m.add_function(wrap_pyfunction!(dp_event_unsupported, m)?)?;
    Ok(())
}
