//! # dpcert — certified differential-privacy accounting
//!
//! **The guarantee.** Every reported quantity is an enclosure `[lower, upper]` of the exact
//! value defined by the named theorem: `upper` is a rigorous upper bound and `lower` a rigorous
//! lower bound (absent where none is claimed). Inputs are exact rationals as written; all
//! arithmetic is interval arithmetic with outward rounding ([`num`]); printed upper bounds are
//! rounded up in decimal and lower bounds down. Searches (bisection, best order `t`) may use
//! `f64`, but only ever choose *where* a certified evaluation happens.
//!
//! The mathematics is T. Steinke, *Composition of Differential Privacy & Privacy
//! Amplification by Subsampling* (2022). Each theorem function names its result and has a
//! proof note `proofs-notes/<function>.md`.
//!
//! ## Example
//! ```
//! use dpcert::num::{parse_exact, Precision};
//! use dpcert::theorems::{gaussian::gaussian_delta, pld::gaussian_pld};
//! // N(0, 1) noise on a sensitivity-1 query, at ε = 0.5 (Corollary 8)
//! let pld = gaussian_pld(&parse_exact("1").unwrap(), &parse_exact("1").unwrap()).unwrap();
//! let delta = gaussian_delta(&pld, &parse_exact("0.5").unwrap(), Precision::Bits(128)).unwrap();
//! assert_eq!(delta.upper().to_decimal(), "2.3842170813487662832e-1"); // rounded up
//! assert_eq!(delta.lower().to_decimal(), "2.3842170813487662831e-1"); // rounded down
//! // with 16 bits the rounding is visible, and the bounds stay on their sides
//! let coarse = gaussian_delta(&pld, &parse_exact("0.5").unwrap(), Precision::Bits(16)).unwrap();
//! assert!(coarse.lower().as_float() <= delta.lower().as_float());
//! assert!(delta.upper().as_float() <= coarse.upper().as_float());
//! ```
//!
//! ## Using dpcert from another crate
//! One line in the dependent crate's `Cargo.toml` is enough — no `.cargo` configuration, no
//! `rug` line (its number types are re-exported as [`rug`]), no target-CPU flag:
//! `dpcert = { path = "…" }` or `dpcert = { git = "…" }`. `examples/dependent/` is such a crate.
//! Inputs are exact: [`num::parse_exact`] reads `"0.1"`, `"1e-5"` or `"256/60000"` as the exact
//! rational written, and [`event::Event`]'s builders take strings or integers directly.
//! Precision is passed the same way everywhere, as a [`num::Precision`]: `Auto` (`f64`
//! intervals first, then MPFR as far as needed) or `Bits(b)` (MPFR at `b` bits).
//!
//! ### DP-SGD ε through the PLD accountant
//! ```
//! use dpcert::num::{parse_exact, parse_positive_integer};
//! use dpcert::theorems::pld_accountant::{dpsgd_pld_epsilon, PldOptions};
//! use dpcert::validated::{Delta, Rate, Sigma, Steps};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // Poisson sampling rate 0.01, noise multiplier 1, 100 steps, δ = 1e-5 (each value checked
//! // once, where it is made; the error names the argument)
//! let report = dpsgd_pld_epsilon(
//!     &Rate::new("rate", parse_exact("0.01")?)?,
//!     &Sigma::new("sigma", parse_exact("1")?)?,
//!     &Steps::new("steps", parse_positive_integer("100")?)?,
//!     &Delta::new("delta", parse_exact("1e-5")?)?,
//!     &PldOptions::default(),
//! )?;
//! let eps = &report.enclosure; // lower ≤ ε ≤ upper for the exact add/remove DP-SGD curve
//! assert!(eps.lower().to_f64() > 0.0 && eps.upper().to_f64() < 10.0);
//! println!("ε ∈ {eps}");
//! # Ok(())
//! # }
//! ```
//!
//! ### An audit built in code
//! ```
//! use dpcert::audit::{audit, Verdict};
//! use dpcert::deploy::Deployment;
//! use dpcert::event::Event;
//! # fn main() -> Result<(), dpcert::Error> {
//! // 52 weekly counts with Gaussian noise σ = 8, claimed (2, 1e-6)-DP
//! let weekly = Event::gaussian("8")?.self_composed(52)?.named("weekly count");
//! let report = audit(&Deployment::new(weekly).with_claim("2", "1e-6")?)?;
//! assert_eq!(report.claim.unwrap().verdict, Verdict::Fails); // δ at ε = 2 is far above 1e-6
//! # Ok(())
//! # }
//! ```
//!
//! ### Checking another library's value
//! A value printed by another accountant is a valid guarantee only if it is at least the exact
//! quantity: it is certainly valid when it lies above the certified upper bound, certainly not
//! when it lies below the certified lower bound.
//! ```
//! use dpcert::num::{parse_exact, Precision, Tri};
//! use dpcert::theorems::{gaussian::gaussian_delta, pld::gaussian_pld};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // δ at ε = 1 of N(0, 1) noise on a sensitivity-1 query is 0.12693…
//! let pld = gaussian_pld(&parse_exact("1")?, &parse_exact("1")?)?;
//! let delta = gaussian_delta(&pld, &parse_exact("1")?, Precision::Auto)?;
//! // a library printing δ = 0.127 is sound, one printing 0.1269 is not
//! assert_eq!(delta.cmp_rational(&parse_exact("0.127")?), Tri::Less);
//! assert_eq!(delta.cmp_rational(&parse_exact("0.1269")?), Tri::Greater);
//! # Ok(())
//! # }
//! ```
//! `dpcert check` does this for whole files of records ([`reference::check`]).
//!
//! ## Guarantees in the types
//! A theorem function's return type says what it guarantees:
//! - [`Enclosure`]: a **two-sided** enclosure `lower ≤ exact ≤ upper` of the exact (optimal)
//!   value the theorem defines (Corollary 8's δ, the optimal composition, the PLD accountant's
//!   bracket, …);
//! - [`UpperBound`]: the quantity is **at most** `upper` (zCDP conversions, Rényi DP, advanced
//!   composition, …); it claims nothing below, and [`UpperBound::formula`] encloses the value of
//!   the bound's formula. [`UpperBound::rests_on`] names a cited result the bound depends on
//!   (the DP-SGD Rényi route), if any;
//! - [`LowerBound`]: the quantity is **at least** `lower` (a ρ certified sufficient);
//! - [`Certified`]: either of the first two, where a caller may get both kinds (audit routes).
//!
//! None of them can be built outside the crate, so a value of these types always comes from a
//! certified evaluation:
//! ```compile_fail
//! // private fields
//! let e = dpcert::Enclosure { lower: todo!(), upper: todo!(), arithmetic: todo!() };
//! ```
//! ```compile_fail
//! // the bound's number is crate-private
//! let u = dpcert::Upper(rug::Float::with_val(53, 1.0));
//! ```
//! ```compile_fail
//! // so is the constructor of a bound
//! let b = dpcert::UpperBound::new(todo!());
//! ```
//! ```compile_fail
//! // and an upper bound has no lower end to mistake for one
//! fn lower_of(b: &dpcert::UpperBound) -> &dpcert::Lower { b.lower() }
//! ```
//!
//! ## Adaptive composition (Proposition 19, Corollary 21, Theorem 22)
//! The zCDP ledger ([`theorems::zcdp::ZcdpLedger`], Proposition 19) and the approximate-DP
//! composition of Theorem 22 hold for *adaptively chosen* mechanisms: mechanism `j` may be
//! picked after seeing the outputs of mechanisms `1..j`, as long as it has its stated guarantee
//! for every fixed value of those outputs, and the budgets themselves are fixed in advance
//! (choosing them from outputs is a privacy odometer, which the chapter does not cover). Any
//! post-processing of the outputs keeps the guarantee (Corollary 21), so it has no entry.
//! Theorem 9 (composition as convolution of PLDs) and the exact Gaussian composition built on it
//! are stated for independent mechanisms.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

extern crate self as dpcert;

/// The Rust examples of `README.md`, compiled and run as doctests (so an example
/// that drifts from the API fails `cargo test`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct DocumentedExamples;

pub mod audit;
pub mod calibrate;
pub mod deploy;
pub mod dp_event;
pub mod dpsgd;
pub mod event;
pub mod input;
pub mod json;
pub mod num;
pub mod plot;
#[doc(hidden)]
pub mod progress;
pub mod reference;
pub mod request;
pub(crate) mod search;
pub mod theorems;
pub(crate) mod validate;
pub mod validated;
pub mod verdict;

/// The arbitrary-precision numbers dpcert takes and returns ([`rug::Rational`] inputs,
/// [`rug::Integer`] counts, [`rug::Float`] bounds), re-exported so that a dependent crate needs
/// no dependency line of its own for them.
pub use rug;

mod error;
pub use error::{Error, Result};

/// Process exit codes of the `dpcert` command (documented in the README and `--help`).
pub mod exit {
    /// Verified, or answered.
    pub const OK: i32 = 0;
    /// A claim refuted, or a checked value unsound.
    pub const REFUTED: i32 = 1;
    /// Bad input: unparseable, outside a theorem's domain, conflicting flags.
    pub const BAD_INPUT: i32 = 2;
    /// Numerical failure: no finite certified enclosure could be produced.
    pub const NUMERICAL: i32 = 3;
    /// Undecided: the certified bracket contains the claimed or checked value.
    pub const UNDECIDED: i32 = 4;
    /// The output could not be written (a full disk, an I/O error); one line on stderr.
    pub const OUTPUT: i32 = 5;
    /// The reader of the output closed the pipe (`dpcert … | head`): quiet, 128 + SIGPIPE, the
    /// status a shell reports for a program killed by SIGPIPE.
    pub const BROKEN_PIPE: i32 = 141;
}

pub use num::{Certified, Enclosure, Lower, LowerBound, Precision, Upper, UpperBound};
