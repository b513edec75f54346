//! Random allocation (balls-and-bins) and truncated Poisson DP-SGD
//! (`theorems::random_allocation`, `pld_accountant::dpsgd_balls_and_bins_pld_epsilon`), against
//! references computed here: the exact δ(ε) of one balls-and-bins epoch with t = 2 steps by
//! quadrature (the inner Gaussian integral in closed form, the outer by Simpson's rule split at
//! the kink, Φ by MPFR's erfc at 128 bits), the exact Gaussian composition (Corollary 8 at 1024
//! bits, tests/common), and the certified Poisson accountant.
mod common;
use common::{rational, typed};
use dpcert::theorems::pld_accountant::{
    dpsgd_balls_and_bins_pld_epsilon, dpsgd_pld_epsilon, PldOptions,
};
use dpcert::theorems::random_allocation::*;
use dpcert::Precision;
use rug::{Float, Integer, Rational};

const P: u32 = 128;

fn phi(x: f64) -> f64 {
    let v = Float::with_val(P, -x) / Float::with_val(P, 2u32).sqrt();
    (v.erfc() / 2u32).to_f64()
}

/// Simpson's rule on [a, b] with n (even) panels.
fn simpson(f: &dyn Fn(f64) -> f64, a: f64, b: f64, n: usize) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = f(a) + f(b);
    for i in 1..n {
        s += f(a + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    s * h / 3.0
}

/// Exact δ(ε) of one epoch of balls-and-bins with t = 2 steps (noise σ, sensitivity 1), the larger
/// direction. Under Q the likelihood ratio is R = (W₁ + W₂)/2, W = e^{(2x−1)/(2σ²)}, x ~ N(0, σ²);
/// x_c = σ² ln c + ½ is W's inverse. Remove: E[(R − γ)₊] = E_{x₁}[½(E(W₂ − c)₊)], c = 2γ − W₁,
/// E(W₂ − c)₊ = Φ((1 − x_c)/σ) − cΦ(−x_c/σ) (c > 0), 1 − c (c ≤ 0). Add: E[(1 − γR)₊] =
/// E_{x₁}[(γ/2)E(c′ − W₂)₊], c′ = 2/γ − W₁, E(c′ − W₂)₊ = c′Φ(x_{c′}/σ) − Φ((x_{c′} − 1)/σ) (c′ > 0).
fn exact_delta_t2(sigma: f64, eps: f64) -> f64 {
    let g = eps.exp();
    let w = |x: f64| ((2.0 * x - 1.0) / (2.0 * sigma * sigma)).exp();
    let xc = |c: f64| sigma * sigma * c.ln() + 0.5;
    let dens = |x: f64| {
        (-x * x / (2.0 * sigma * sigma)).exp() / (sigma * (2.0 * std::f64::consts::PI).sqrt())
    };
    let remove = |x: f64| {
        let c = 2.0 * g - w(x);
        let inner = if c > 0.0 {
            phi((1.0 - xc(c)) / sigma) - c * phi(-xc(c) / sigma)
        } else {
            1.0 - c
        };
        dens(x) * 0.5 * inner
    };
    let add = |x: f64| {
        let c = 2.0 / g - w(x);
        let inner = if c > 0.0 {
            c * phi(xc(c) / sigma) - phi((xc(c) - 1.0) / sigma)
        } else {
            0.0
        };
        dens(x) * 0.5 * g * inner
    };
    let (lo, hi) = (-14.0 * sigma, 1.0 + 14.0 * sigma);
    let n = 40_000;
    let split = |f: &dyn Fn(f64) -> f64, kink: f64| {
        let k = kink.clamp(lo, hi);
        simpson(f, lo, k, n) + simpson(f, k, hi, n)
    };
    let r = split(&remove, xc(2.0 * g));
    let a = split(&add, xc(2.0 / g));
    r.max(a)
}

fn run(sigma: &str, t: u32, k: u32, epochs: u32) -> Allocation {
    Allocation {
        sigma: rational(sigma),
        steps: Integer::from(t),
        selected: Integer::from(k),
        epochs: Integer::from(epochs),
    }
}

/// One epoch, t = 2: the certified bracket on ε(δ) holds the exact ε — δ(upper) ≤ δ ≤ δ(lower) by
/// quadrature — and where the PLD route runs, the upper end is within 3 % of it (δ at 0.97·upper
/// already exceeds δ); at σ = 0.8, δ = 10⁻⁴ the lattice is too coarse for δ with t = 2 and the upper
/// end is the plain composition (containment only).
#[test]
fn one_epoch_of_two_steps_brackets_the_quadrature() {
    for (sigma, delta, pld) in [
        ("1", "1e-3", true),
        ("0.8", "1e-4", false),
        ("2", "1e-3", true),
    ] {
        let a = run(sigma, 2, 1, 1);
        let e = random_allocation_epsilon(
            &a,
            &rational(delta),
            Precision::Auto,
            &PldOptions::default(),
        )
        .unwrap();
        let (lo, hi) = (e.lower().to_f64(), e.upper().to_f64());
        let (s, d) = (rational(sigma).to_f64(), rational(delta).to_f64());
        let at_hi = exact_delta_t2(s, hi);
        let at_lo = exact_delta_t2(s, lo);
        assert!(
            at_hi <= d * (1.0 + 1e-6),
            "σ = {sigma}: δ(upper {hi}) = {at_hi} > δ"
        );
        assert!(
            at_lo >= d * (1.0 - 1e-6),
            "σ = {sigma}: δ(lower {lo}) = {at_lo} < δ"
        );
        let tight = exact_delta_t2(s, 0.97 * hi);
        assert!(
            !pld || tight > d,
            "σ = {sigma}: upper {hi} looser than 3 % (δ(0.97·upper) = {tight})"
        );
        eprintln!("σ = {sigma}: [{lo}, {hi}]");
    }
}

/// δ at ε, one epoch of two steps: lower ≤ quadrature ≤ upper.
#[test]
fn delta_bracket_holds_the_quadrature() {
    for (sigma, eps) in [("1", "1"), ("0.8", "2")] {
        let a = run(sigma, 2, 1, 1);
        let e =
            random_allocation_delta(&a, &rational(eps), Precision::Auto, &PldOptions::default())
                .unwrap();
        let exact = exact_delta_t2(rational(sigma).to_f64(), rational(eps).to_f64());
        assert!(
            e.lower().to_f64() <= exact * (1.0 + 1e-6)
                && exact <= e.upper().to_f64() * (1.0 + 1e-6),
            "σ = {sigma}: {e} misses {exact}"
        );
    }
}

/// MNIST-like balls-and-bins (t = 234, σ = 1.1, 60 epochs, δ = 10⁻⁵): the bracket is ordered, its
/// upper end far below the Gaussian composition without amplification (exact, Corollary 8 at 1024
/// bits) and within 1 % of the certified Poisson figure at q = 1/t over the same 14 040 steps (the
/// Poisson-like amplification Feldman & Shenfeld report; a regression check on tightness).
#[test]
fn mnist_balls_and_bins_is_close_to_poisson() {
    let a = run("1.1", 234, 1, 60);
    let d = rational("1e-5");
    let e = random_allocation_epsilon(&a, &d, Precision::Auto, &PldOptions::default()).unwrap();
    let (lo, hi) = (e.lower().to_f64(), e.upper().to_f64());
    let rho = Rational::from(60) / (rational("1.1") * rational("1.1") * 2u32);
    let plain = common::gaussian_epsilon_star(&rho, &d).to_f64();
    let p = dpsgd_pld_epsilon(
        &typed::rate(&rational("1/234")),
        &typed::sigma(&rational("1.1")),
        &typed::steps(&Integer::from(234 * 60)),
        &typed::delta(&d),
        &PldOptions::default(),
    )
    .unwrap();
    let poisson = p.enclosure.upper().to_f64();
    eprintln!("balls-and-bins [{lo}, {hi}], Poisson ≤ {poisson}, no amplification {plain}");
    assert!(0.8 < lo && lo <= hi, "[{lo}, {hi}]");
    assert!(hi < plain / 10.0, "{hi} vs {plain}");
    assert!(hi <= poisson * 1.01, "{hi} vs Poisson {poisson}");
}

/// k > 1 (no amplification upper end): the upper end is the exact Gaussian composition of the
/// k·epochs releases (Corollary 8 at 1024 bits), the lower end below it; k > t is refused.
#[test]
fn k_of_t_upper_is_the_plain_composition_and_bad_k_is_refused() {
    let a = run("2", 10, 3, 4);
    let d = rational("1e-5");
    let e = random_allocation_epsilon(&a, &d, Precision::Auto, &PldOptions::default()).unwrap();
    let rho = Rational::from(12) / (rational("2") * rational("2") * 2u32);
    let want = common::gaussian_epsilon_star(&rho, &d).to_f64();
    let hi = e.upper().to_f64();
    assert!(hi >= want && hi <= want * (1.0 + 1e-9), "{hi} vs {want}");
    assert!(e.lower().to_f64() > 0.0 && e.lower().to_f64() < hi);
    match random_allocation_epsilon_lower(&run("1", 3, 4, 1), &d) {
        Err(dpcert::Error::InvalidArgument { name, .. }) => assert_eq!(name, "selected"),
        other => panic!("{other:?}"),
    }
}

/// The balls-and-bins upper end is monotone in the epochs and refuses t = 1.
#[test]
fn balls_and_bins_pld_edges() {
    let d = rational("1e-5");
    let o = PldOptions::default();
    let one = dpsgd_balls_and_bins_pld_epsilon(
        &rational("1"),
        &Integer::from(16),
        &Integer::from(1),
        &d,
        &o,
    )
    .unwrap();
    let two = dpsgd_balls_and_bins_pld_epsilon(
        &rational("1"),
        &Integer::from(16),
        &Integer::from(2),
        &d,
        &o,
    )
    .unwrap();
    assert!(one < two, "{one} vs {two}");
    assert!(dpsgd_balls_and_bins_pld_epsilon(
        &rational("1"),
        &Integer::from(1),
        &Integer::from(1),
        &d,
        &o
    )
    .is_err());
}

/// Truncated Poisson: the truncation bound is the Chernoff–Hoeffding bound (recomputed here in
/// MPFR at 256 bits) and 0 when B ≥ N + 1; with a cap far above the mean batch the bracket holds
/// the certified Poisson bracket's ends within the charge, and a tight cap is refused.
#[test]
fn truncated_poisson_brackets_the_poisson_figure() {
    let run = TruncatedPoisson {
        rate: rational("256/60000"),
        sigma: rational("1.1"),
        steps: Integer::from(2000),
        dataset_size: Integer::from(60000),
        max_batch: Integer::from(400),
    };
    let eta = truncation_probability(&run).unwrap();
    // T·exp(−(N+1)·D(x‖q)), x = 401/60001
    let p = 256;
    let (x, qq) = (
        Float::with_val(p, 401) / 60001u32,
        Float::with_val(p, 256) / 60000u32,
    );
    let one = Float::with_val(p, 1);
    let kl = Float::with_val(p, &x * Float::with_val(p, &x / &qq).ln())
        + Float::with_val(p, &one - &x)
            * Float::with_val(
                p,
                Float::with_val(p, &one - &x) / Float::with_val(p, &one - &qq),
            )
            .ln();
    let want = (Float::with_val(p, -kl * 60001u32).exp() * 2000u32).to_f64();
    assert!(
        eta.to_f64() >= want && eta.to_f64() <= want * (1.0 + 1e-9),
        "{} vs {want}",
        eta.to_f64()
    );
    let d = rational("1e-5");
    let o = PldOptions::default();
    let e = truncated_poisson_epsilon(&run, &d, &o).unwrap();
    let pois = dpsgd_pld_epsilon(
        &typed::rate(&run.rate),
        &typed::sigma(&run.sigma),
        &typed::steps(&run.steps),
        &typed::delta(&d),
        &o,
    )
    .unwrap()
    .enclosure;
    assert!(
        e.lower().to_f64() <= pois.upper().to_f64() && e.upper().to_f64() >= pois.lower().to_f64()
    );
    assert!(
        e.upper().to_f64() <= pois.upper().to_f64() * 1.001,
        "{e} vs {pois}"
    );
    let never = TruncatedPoisson {
        max_batch: Integer::from(60001),
        ..run.clone()
    };
    assert_eq!(truncation_probability(&never).unwrap(), 0);
    let tight = TruncatedPoisson {
        max_batch: Integer::from(260),
        ..run
    };
    assert!(truncated_poisson_epsilon(&tight, &d, &o).is_err());
}

/// The command line: answers for each sampler, and bad input refused (exit 2) naming the flag.
#[test]
fn cli_flags_and_refusals() {
    let ok = |args: &[&str], want: &str| {
        let (code, out, err) = common::run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(out.contains(want), "{args:?}: {out}");
    };
    ok(
        &[
            "dpsgd",
            "--sampling",
            "balls-and-bins",
            "--steps-per-epoch",
            "16",
            "--steps",
            "20",
            "--sigma",
            "1",
            "--delta",
            "1e-5",
        ],
        "t = 16 steps of each epoch), σ = 1, 2 epochs",
    );
    ok(
        &[
            "dpsgd",
            "--sampling",
            "random-allocation",
            "--uses-per-epoch",
            "2",
            "--batch-size",
            "10",
            "--dataset-size",
            "100",
            "--epochs",
            "3",
            "--sigma",
            "2",
            "--delta",
            "1e-5",
        ],
        "each example in 2 of the t = 10 steps",
    );
    ok(
        &[
            "dpsgd",
            "--sampling",
            "truncated-poisson",
            "--rate",
            "0.01",
            "--dataset-size",
            "10000",
            "--steps",
            "50",
            "--sigma",
            "1",
            "--max-batch-size",
            "200",
            "--epsilon",
            "1",
        ],
        "δ at ε = 1",
    );
    for (args, flag) in [
        (
            vec![
                "--sampling",
                "random-allocation",
                "--steps-per-epoch",
                "3",
                "--uses-per-epoch",
                "4",
                "--epochs",
                "1",
            ],
            "--uses-per-epoch",
        ),
        (
            vec!["--sampling", "balls-and-bins", "--epochs", "1"],
            "--steps-per-epoch",
        ),
        (
            vec!["--sampling", "balls-and-bins", "--steps-per-epoch", "8"],
            "--epochs",
        ),
        (
            vec![
                "--sampling",
                "balls-and-bins",
                "--steps-per-epoch",
                "8",
                "--epochs",
                "1.5",
            ],
            "--epochs",
        ),
        (
            vec![
                "--sampling",
                "balls-and-bins",
                "--steps-per-epoch",
                "0",
                "--epochs",
                "1",
            ],
            "--steps-per-epoch",
        ),
        (
            vec![
                "--sampling",
                "balls-and-bins",
                "--steps-per-epoch",
                "8",
                "--epochs",
                "1",
                "--relation",
                "substitution",
            ],
            "--relation",
        ),
        (
            vec![
                "--sampling",
                "balls-and-bins",
                "--steps-per-epoch",
                "8",
                "--epochs",
                "1",
                "--tight",
            ],
            "--tight",
        ),
        (
            vec![
                "--sampling",
                "poisson",
                "--rate",
                "0.1",
                "--steps",
                "3",
                "--max-batch-size",
                "5",
            ],
            "--max-batch-size",
        ),
        (
            vec![
                "--sampling",
                "truncated-poisson",
                "--rate",
                "0.1",
                "--steps",
                "3",
                "--max-batch-size",
                "5",
            ],
            "--dataset-size",
        ),
        (
            vec![
                "--sampling",
                "truncated-poisson",
                "--rate",
                "0.1",
                "--steps",
                "3",
                "--dataset-size",
                "100",
            ],
            "--max-batch-size",
        ),
        (
            vec![
                "--sampling",
                "truncated-poisson",
                "--rate",
                "0.1",
                "--steps",
                "3",
                "--dataset-size",
                "100",
                "--max-batch-size",
                "10",
            ],
            "--max-batch-size",
        ),
    ] {
        let mut a = vec!["dpsgd", "--sigma", "1", "--delta", "1e-5"];
        a.extend(args.iter().copied());
        let (code, _, err) = common::run(&a);
        assert_eq!(code, 2, "{a:?}: {err}");
        assert!(
            err.contains(flag) && !err.contains("panicked"),
            "{a:?}: {err}"
        );
    }
}
