//! One theorem, one function, one proof note (`proofs-notes/<function>.md`).
pub mod approx;
pub mod basic;
pub mod discrete;
pub mod fixed_size;
pub mod gaussian;
pub mod gdp;
pub mod optimal;
pub mod pld;
pub mod pld_accountant;
pub mod randomized_response;
pub mod rdp;
pub mod sampling;
pub mod schedule;
pub mod shuffle;
pub mod subsample;
pub mod tradeoff;
pub mod zcdp;
