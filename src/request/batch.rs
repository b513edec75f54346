//! DP-SGD's run length and batch fraction in either vocabulary — `--rate`/`--steps`, or the ML
//! one (`--batch-size`, `--dataset-size`, `--epochs`) — shared by `dpsgd` and `calibrate dpsgd`.
use super::{count, flagged, num};
use crate::dpsgd;
use crate::Error;
use clap::Args;
use rug::{Integer, Rational};
use serde::Deserialize;
use serde_json::{json, Value};

/// The flags as given (exact strings; `None` when absent).
#[derive(Args, Clone, Debug, Default, Deserialize)]
pub struct BatchArgs {
    /// Sampling rate q = batch size / dataset size, in (0, 1]: each example is in a batch
    /// independently with probability q (Poisson sampling). Or give --batch-size and
    /// --dataset-size.
    #[arg(long, value_name = "Q", allow_hyphen_values = true)]
    pub(super) rate: Option<String>,
    /// Batch size B (expected number of examples per step), an integer ≥ 1; with
    /// --dataset-size, q = B/N (instead of --rate).
    #[arg(long = "batch-size", value_name = "B", allow_hyphen_values = true)]
    #[serde(rename = "batch_size")]
    pub(super) batch: Option<String>,
    /// Dataset size N (number of training examples), an integer ≥ B.
    #[arg(long = "dataset-size", value_name = "N", allow_hyphen_values = true)]
    #[serde(rename = "dataset_size")]
    pub(super) dataset: Option<String>,
    /// Number of training steps T (optimizer updates), an integer ≥ 1. Or give --epochs.
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub(super) steps: Option<String>,
    /// Epochs (passes over the training data; may be fractional, e.g. 2.5): T = ⌈epochs·N/B⌉
    /// steps. Needs --batch-size and --dataset-size (instead of --steps).
    #[arg(long, value_name = "X", allow_hyphen_values = true)]
    pub(super) epochs: Option<String>,
}

/// The flags read exactly: q and T when they can be worked out, and the ML quantities given.
#[derive(Clone, Debug, Default)]
pub(super) struct Batch {
    pub(super) rate: Option<Rational>,
    pub(super) steps: Option<Integer>,
    pub(super) epochs: Option<Rational>,
    pub(super) batch: Option<Integer>,
    pub(super) dataset: Option<Integer>,
}

/// `a` conflicts with `b`: exit 2 naming both.
pub(super) fn conflict(a: &str, b: &str) -> Error {
    Error::arg(a, format!("conflicts with {b}: give one of them"))
}

/// `--rate`: a whole number above 1 is taken for what it probably is, a batch size.
fn rate(text: &str) -> Result<Rational, Error> {
    let q = num("--rate", text)?;
    if q > 1 && q.denom() == &1 {
        return Err(Error::arg(
            "--rate",
            format!(
                "must lie in (0, 1], got {q}: that looks like a batch size; give --batch-size {q} --dataset-size N (q = B/N), or --rate {q}/N"
            ),
        ));
    }
    Ok(q)
}

impl BatchArgs {
    /// Whether any of the five flags was given.
    pub(super) fn any(&self) -> Option<&'static str> {
        [
            (&self.rate, "--rate"),
            (&self.batch, "--batch-size"),
            (&self.dataset, "--dataset-size"),
            (&self.steps, "--steps"),
            (&self.epochs, "--epochs"),
        ]
        .into_iter()
        .find(|(v, _)| v.is_some())
        .map(|(_, f)| f)
    }

    /// The flags as data, under the JSON input's keys.
    pub(super) fn input(&self) -> Vec<(&'static str, Value)> {
        vec![
            ("rate", json!(self.rate)),
            ("batch_size", json!(self.batch)),
            ("dataset_size", json!(self.dataset)),
            ("steps", json!(self.steps)),
            ("epochs", json!(self.epochs)),
        ]
    }

    /// q from --rate or --batch-size/--dataset-size, T from --steps or --epochs (⌈epochs·N/B⌉);
    /// conflicting or incomplete flags are errors naming them.
    pub(super) fn resolve(&self) -> Result<Batch, Error> {
        let dataset = self
            .dataset
            .as_deref()
            .map(|t| count("--dataset-size", t))
            .transpose()?;
        let batch = self
            .batch
            .as_deref()
            .map(|t| count("--batch-size", t))
            .transpose()?;
        let rate = match (&self.rate, &batch, &dataset) {
            (Some(_), Some(_), _) => return Err(conflict("--rate", "--batch-size")),
            (Some(r), None, _) => Some(rate(r)?),
            (None, Some(b), Some(n)) => {
                if b > n {
                    return Err(Error::arg(
                        "--batch-size",
                        format!("must be at most --dataset-size {n}, got {b}"),
                    ));
                }
                Some(Rational::from((b.clone(), n.clone())))
            }
            (None, Some(_), None) => {
                return Err(Error::arg("--dataset-size", "is needed with --batch-size"))
            }
            (None, None, _) => None,
        };
        if self.steps.is_some() && self.epochs.is_some() {
            return Err(conflict("--steps", "--epochs"));
        }
        let epochs = self
            .epochs
            .as_deref()
            .map(|e| num("--epochs", e))
            .transpose()?;
        let steps = match (&self.steps, &epochs) {
            (Some(t), _) => Some(count("--steps", t)?),
            (None, Some(e)) => {
                let (Some(b), Some(n)) = (&batch, &dataset) else {
                    return Err(Error::arg(
                        "--epochs",
                        "needs --batch-size and --dataset-size",
                    ));
                };
                Some(flagged(dpsgd::steps_from_epochs(e, b, n))?.1.into_inner())
            }
            (None, None) => None,
        };
        Ok(Batch {
            rate,
            steps,
            epochs,
            batch,
            dataset,
        })
    }
}
