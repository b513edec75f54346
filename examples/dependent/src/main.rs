//! Uses dpcert through its public API only: a certified Gaussian δ, a DP-SGD ε from the PLD
//! accountant, and an audit verdict. Every number printed is a rigorous bound (upper bounds
//! rounded up, lower bounds down).
use dpcert::audit::{audit, verdict_word};
use dpcert::deploy::Deployment;
use dpcert::event::Event;
use dpcert::num::{parse_exact, parse_positive_integer, Precision};
use dpcert::theorems::gaussian::gaussian_delta;
use dpcert::theorems::pld::gaussian_pld;
use dpcert::theorems::pld_accountant::{dpsgd_pld_epsilon, PldOptions};
use dpcert::validated::{Delta, Rate, Sigma, Steps};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// δ at ε = 1 of the Gaussian mechanism with σ = 2 on a sensitivity-1 query (Corollary 8).
fn gaussian() -> Result<()> {
    let pld = gaussian_pld(&parse_exact("2")?, &parse_exact("1")?)?;
    let delta = gaussian_delta(&pld, &parse_exact("1")?, Precision::Auto)?;
    println!("Gaussian σ = 2, sensitivity 1, ε = 1: δ ∈ {delta:.8}");
    Ok(())
}

/// ε at δ = 1e-5 of 1000 DP-SGD steps, noise multiplier 1.1, sampling rate 0.01 (PLD).
fn dpsgd() -> Result<()> {
    let report = dpsgd_pld_epsilon(
        &Rate::new("rate", parse_exact("0.01")?)?,
        &Sigma::new("sigma", parse_exact("1.1")?)?,
        &Steps::new("steps", parse_positive_integer("1000")?)?,
        &Delta::new("delta", parse_exact("1e-5")?)?,
        &PldOptions::default(),
    )?;
    println!("DP-SGD q = 0.01, σ = 1.1, 1000 steps, δ = 1e-5: ε ∈ {:.8}", report.enclosure);
    Ok(())
}

/// Audit a claimed (1, 1e-6) for 10 releases with Gaussian noise σ = 8, built in code.
fn audit_claim() -> Result<()> {
    let releases = Event::gaussian("8")?.self_composed(10)?.named("weekly counts");
    let deployment = Deployment::new(releases).with_claim("1", "1e-6")?;
    let report = audit(&deployment)?;
    let claim = report.claim.as_ref().ok_or("the audit checked no claim")?;
    let word = verdict_word(Some(claim.verdict));
    println!("audit of the claim (1, 1e-6): {word} — {}", claim.explanation);
    Ok(())
}

fn main() -> Result<()> {
    gaussian()?;
    dpsgd()?;
    audit_claim()
}
