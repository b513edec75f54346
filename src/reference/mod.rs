//! Reference services for other implementations: single-value queries as values ([`query`]),
//! the certified test vectors ([`vectors`]) and judging the values another library printed
//! ([`check`]: values, verdicts, brackets; [`judge`]: the certified evaluations that decide).
//! The command line only parses arguments into a [`query::Query`] and prints.
pub mod check;
pub mod judge;
pub mod query;
pub mod subsampling;
pub mod vectors;
