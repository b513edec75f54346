//! Reference services for other implementations: the certified test vectors ([`vectors`]) and
//! judging the values another library printed ([`check`]). The CLI's `dpcert check` parses the query, makes the certified evaluations and
//! hands them to this module, which keeps the bracket, screens impossible values and decides.
pub mod check;
pub mod vectors;
