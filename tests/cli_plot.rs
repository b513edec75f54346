//! Charts: `dpcert plot` (the privacy profile the audit certifies) and `tradeoff dpsgd --plot`
//! (the membership-inference ROC on log–log axes).
//!
//! References independent of the code under test: Corollary 8 at 1024 bits (the exact δ(ε) of a
//! Gaussian composition, `common::gaussian_delta`) for the profile's curves; Φ(Φ⁻¹(α) + μ) at
//! 1024 bits (Φ⁻¹ by bisection on MPFR's erfc) for the ROC of full-batch DP-SGD, which is an
//! exact Gaussian composition. Geometry is checked from the SVG itself: ticks round and covering
//! the drawn data, no two texts overlapping (extents from font size × characters), the upper
//! curve never below the lower one. Snapshots of the SVG's structure are change detectors only.
mod common;
use common::{gaussian_delta, phi, rational, run, REF};
use dpcert::deploy::Deployment;
use dpcert::event::Event;
use dpcert::plot::axis::CHAR_WIDTH;
use rug::{Float, Rational};

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("dpcert-plot-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An attribute of an SVG element line.
fn attr<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let i = line.find(&key)? + key.len();
    Some(&line[i..i + line[i..].find('"')?])
}

/// The points of the polyline with this class.
fn polyline(svg: &str, class: &str) -> Vec<(f64, f64)> {
    let line = svg
        .lines()
        .find(|l| l.starts_with("<polyline") && attr(l, "class") == Some(class))
        .unwrap_or_else(|| panic!("no polyline `{class}`"));
    attr(line, "points")
        .unwrap()
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// The y of a step polyline at x strictly inside one of its horizontal segments.
fn step_at(pts: &[(f64, f64)], x: f64) -> Option<f64> {
    pts.windows(2)
        .find(|w| w[0].1 == w[1].1 && w[0].0 < x && x < w[1].0)
        .map(|w| w[0].1)
}

struct Text {
    class: String,
    x: f64,
    y: f64,
    anchor: String,
    size: f64,
    rotated: bool,
    body: String,
}

fn texts(svg: &str) -> Vec<Text> {
    svg.lines()
        .filter(|l| l.starts_with("<text"))
        .map(|l| Text {
            class: attr(l, "class").unwrap_or("").into(),
            x: attr(l, "x").unwrap().parse().unwrap(),
            y: attr(l, "y").unwrap().parse().unwrap(),
            anchor: attr(l, "text-anchor").unwrap_or("start").into(),
            size: attr(l, "font-size")
                .expect("every text has its size")
                .parse()
                .unwrap(),
            rotated: attr(l, "transform").is_some(),
            body: l[l.find('>').unwrap() + 1..l.rfind("</text>").unwrap()]
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&quot;", "\"")
                .replace("&amp;", "&"),
        })
        .collect()
}

/// (x0, x1, y0, y1) of a text: width = characters × size × CHAR_WIDTH, from 0.8 size above the
/// baseline to 0.25 below; a rotated (−90°) text is the same box turned about its anchor.
fn bbox(t: &Text) -> (f64, f64, f64, f64) {
    let w = t.body.chars().count() as f64 * t.size * CHAR_WIDTH;
    let start = match t.anchor.as_str() {
        "middle" => -w / 2.0,
        "end" => -w,
        _ => 0.0,
    };
    if t.rotated {
        (
            t.x - 0.8 * t.size,
            t.x + 0.25 * t.size,
            t.y - start - w,
            t.y - start,
        )
    } else {
        (
            t.x + start,
            t.x + start + w,
            t.y - 0.8 * t.size,
            t.y + 0.25 * t.size,
        )
    }
}

/// No two texts overlap, and every text lies inside the canvas.
fn assert_texts_apart(svg: &str) {
    let head = svg.lines().next().unwrap();
    let (w, h): (f64, f64) = (
        attr(head, "width").unwrap().parse().unwrap(),
        attr(head, "height").unwrap().parse().unwrap(),
    );
    let ts = texts(svg);
    let boxes: Vec<_> = ts.iter().map(bbox).collect();
    for (i, a) in boxes.iter().enumerate() {
        assert!(
            a.0 >= 0.0 && a.1 <= w && a.2 >= 0.0 && a.3 <= h,
            "`{}` leaves the {w}×{h} canvas: {a:?}",
            ts[i].body
        );
        for (j, b) in boxes.iter().enumerate().skip(i + 1) {
            let apart = a.1 <= b.0 || b.1 <= a.0 || a.3 <= b.2 || b.3 <= a.2;
            assert!(
                apart,
                "`{}` {a:?} overlaps `{}` {b:?}",
                ts[i].body, ts[j].body
            );
        }
    }
}

/// The value a tick label names ("0.5", "10⁻⁵", "1").
fn tick_value(label: &str) -> f64 {
    if let Some(exp) = label.strip_prefix("10") {
        if !exp.is_empty() && !exp.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
            let digits: String = exp
                .chars()
                .map(|c| match c {
                    '⁻' => '-',
                    c => char::from_digit(
                        "⁰¹²³⁴⁵⁶⁷⁸⁹".chars().position(|d| d == c).unwrap() as u32,
                        10,
                    )
                    .unwrap(),
                })
                .collect();
            return 10f64.powi(digits.parse().unwrap());
        }
    }
    label.parse().unwrap()
}

/// (pixel, value) of the ticks of one axis.
fn ticks(svg: &str, class: &str) -> Vec<(f64, f64)> {
    texts(svg)
        .into_iter()
        .filter(|t| t.class == class)
        .map(|t| {
            let px = if class == "xtick" { t.x } else { t.y - 4.0 };
            (px, tick_value(&t.body))
        })
        .collect()
}

/// Linear ticks are 1, 2 or 5 × 10ᵏ apart and multiples of that step; log ticks are powers of
/// ten. Both cover [lo, hi].
fn assert_round_ticks(t: &[(f64, f64)], log: bool, lo: f64, hi: f64) {
    assert!(t.len() >= 2, "{t:?}");
    let vals: Vec<f64> = t.iter().map(|p| p.1).collect();
    if log {
        for v in &vals {
            assert_eq!(
                *v,
                10f64.powi(v.log10().round() as i32),
                "{v} is not a power of ten"
            );
        }
    } else {
        let step = vals[1] - vals[0];
        let m = step / 10f64.powf(step.log10().floor());
        assert!(
            [1.0, 2.0, 5.0].iter().any(|r| (m - r).abs() < 1e-9),
            "step {step}"
        );
        for w in vals.windows(2) {
            assert!(
                ((w[1] - w[0]) - step).abs() < 1e-9 * step,
                "uneven ticks {vals:?}"
            );
        }
        for v in &vals {
            assert!(
                ((v / step) - (v / step).round()).abs() < 1e-9,
                "{v} off the step {step}"
            );
        }
    }
    let (first, last) = (
        vals[0].min(vals[vals.len() - 1]),
        vals[0].max(vals[vals.len() - 1]),
    );
    assert!(
        first <= lo && last >= hi,
        "ticks {vals:?} do not cover [{lo}, {hi}]"
    );
}

/// A Gaussian deployment: 104 counts with σ = 8 (ρ = 104/128), budget δ = 10⁻⁶, claimed
/// (2, 10⁻⁶). The best route is the exact Gaussian composition (two-sided).
fn gaussian_deployment() -> (Deployment, Rational) {
    let d = Deployment::new(Event::gaussian(8).unwrap().self_composed(104).unwrap())
        .at_delta("1e-6")
        .unwrap()
        .with_claim(2, "1e-6")
        .unwrap();
    (d, Rational::from((104, 128)))
}

/// The drawn samples bracket Corollary 8 at every ε (upper ≥ exact ≥ lower), the upper end
/// within 10⁻⁹ relative of it (only f64 rounding apart), and the samples reach past the
/// audit's certified ε.
#[test]
fn profile_samples_bracket_corollary_8() {
    let (d, rho) = gaussian_deployment();
    let p = dpcert::plot::profile(&d).unwrap();
    assert_eq!(p.best.route.name(), "exact Gaussian composition");
    assert_eq!(p.best.points.len(), dpcert::plot::profile::FINE_SAMPLES + 1);
    for &(e, up, lo) in &p.best.points {
        let exact = gaussian_delta(&rho, &Rational::from_f64(e).unwrap());
        let lo = lo.expect("an exact route draws its lower curve");
        assert!(
            Float::with_val(REF, up) >= exact,
            "ε = {e}: upper {up} below {exact}"
        );
        assert!(
            Float::with_val(REF, lo) <= exact,
            "ε = {e}: lower {lo} above {exact}"
        );
        let tol = Float::with_val(REF, &exact * 1e-9) + 1e-300;
        assert!(
            Float::with_val(REF, up - &exact) <= tol,
            "ε = {e}: upper {up} loose"
        );
    }
    let (_, eps) = p.report.best_epsilon.as_ref().unwrap();
    assert!(p.x.hi >= eps.upper().to_f64());
}

/// The SVG draws those samples: the upper step curve lies on or above the lower one at every
/// cell, and read back through the tick labels, the drawn upper curve is at or above Corollary 8
/// and the lower one at or below (up to the picture's 0.01 px rounding: 0.3 % in δ here).
#[test]
fn profile_svg_draws_the_certified_side_of_corollary_8() {
    let (d, rho) = gaussian_deployment();
    let svg = dpcert::plot::profile_svg(&d).unwrap();
    let (up, lo) = (polyline(&svg, "upper best"), polyline(&svg, "lower best"));
    let (xt, yt) = (ticks(&svg, "xtick"), ticks(&svg, "ytick"));
    // pixel → value maps from the first and last ticks (linear ε, logarithmic δ)
    let (xa, xb) = (xt[0], xt[xt.len() - 1]);
    let eps_at = |px: f64| xa.1 + (px - xa.0) * (xb.1 - xa.1) / (xb.0 - xa.0);
    let (ya, yb) = (yt[0], yt[yt.len() - 1]);
    let delta_at = |py: f64| {
        10f64.powf(ya.1.log10() + (py - ya.0) * (yb.1.log10() - ya.1.log10()) / (yb.0 - ya.0))
    };
    let mut checked = 0;
    for w in up
        .windows(2)
        .filter(|w| w[0].1 == w[1].1 && w[0].0 < w[1].0)
    {
        let mid = (w[0].0 + w[1].0) / 2.0;
        let y_lo = step_at(&lo, mid).expect("the lower curve spans the same cells");
        assert!(
            w[0].1 <= y_lo,
            "at x = {mid} the upper curve ({}) is below the lower ({y_lo})",
            w[0].1
        );
        let e = Rational::from_f64(eps_at(mid)).unwrap();
        let exact = gaussian_delta(&rho, &e).to_f64();
        if exact < 1e-16 {
            continue; // below the drawn δ axis
        }
        let (du, dl) = (delta_at(w[0].1), delta_at(y_lo));
        assert!(
            du >= exact * (1.0 - 3e-3),
            "ε ≈ {e}: drawn upper {du} below exact {exact}"
        );
        assert!(
            dl <= exact * (1.0 + 3e-3),
            "ε ≈ {e}: drawn lower {dl} above exact {exact}"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} cells checked");
    // the axes: round ticks covering every drawn value; the budget line and claim drawn
    let xs: Vec<f64> = up.iter().map(|p| eps_at(p.0)).collect();
    assert_round_ticks(
        &xt,
        false,
        0.0,
        xs.iter().cloned().fold(0.0, f64::max) - 1e-9,
    );
    assert_round_ticks(&yt, true, 1e-6, 0.3);
    assert!(svg.contains(r#"class="budget""#) && svg.contains(r#"class="claim""#));
    assert!(svg.contains("claim (2, 1e-6): refuted"), "{svg}");
    assert_texts_apart(&svg);
}

/// A DP-SGD deployment: the audit's best route is the PLD accountant, so the chart draws its
/// two-sided curve (one composition per side and direction), Rényi DP faint; the upper end is
/// never below the lower at any sample, and both fall with ε.
#[test]
fn dpsgd_profile_draws_the_pld_bracket_and_rdp_faint() {
    let path = tmp("dpsgd").join("d.toml");
    std::fs::write(
        &path,
        "[budget]\ndelta = \"1e-5\"\n[claim]\nepsilon = 2\ndelta = \"1e-5\"\n[[mechanism]]\nname = \"training\"\ntype = \"subsampled-gaussian\"\nsigma = \"1\"\nrate = \"1/100\"\nsteps = 1000\nsampling = \"poisson\"\n",
    )
    .unwrap();
    let d = Deployment::load(&path).unwrap();
    let p = dpcert::plot::profile(&d).unwrap();
    assert_eq!(p.best.route.name(), "PLD");
    assert_eq!(p.others.len(), 1);
    assert_eq!(p.others[0].route.name(), "Rényi DP");
    for w in p.best.points.windows(2) {
        let (a, b) = (w[0], w[1]);
        assert!(b.1 <= a.1 && b.2.unwrap() <= a.2.unwrap(), "{a:?} {b:?}");
    }
    for &(e, up, lo) in &p.best.points {
        assert!(lo.unwrap() <= up, "ε = {e}: [{lo:?}, {up}]");
    }
    // the audit's ε at the budget δ is where the drawn curves cross the budget line: the upper
    // curve is at most δ beyond the audit's upper ε, the lower at least δ before its lower ε
    let (_, a) = p.report.best_epsilon.as_ref().unwrap();
    let (elo, ehi) = (a.lower().unwrap().to_f64(), a.upper().to_f64());
    for &(e, up, lo) in &p.best.points {
        if e >= ehi * 1.01 {
            assert!(up <= 1e-5, "ε = {e} > {ehi}: upper δ {up}");
        }
        if e <= elo * 0.99 {
            assert!(lo.unwrap() >= 1e-5, "ε = {e} < {elo}: lower δ {lo:?}");
        }
    }
    let svg = p.svg();
    polyline(&svg, "upper other");
    assert_texts_apart(&svg);
}

/// The structure of the charts (element kinds, classes and texts; no coordinates): a change
/// detector, never the oracle.
#[test]
fn chart_structure_snapshots() {
    let structure = |svg: &str| -> String {
        svg.lines()
            .map(|l| {
                let tag = l.split([' ', '>']).next().unwrap_or("");
                match (attr(l, "class"), l.contains("<text")) {
                    (Some(c), true) => format!(
                        "{tag} {c}: {}",
                        &l[l.find('>').unwrap() + 1..l.rfind('<').unwrap()]
                    ),
                    (Some(c), false) => format!("{tag} {c}"),
                    (None, _) => tag.to_string(),
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (d, _) = gaussian_deployment();
    let svg = dpcert::plot::profile_svg(&d).unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("plot_profile_gaussian", structure(&svg));
    });
    let opts = dpcert::theorems::pld_accountant::PldOptions::default();
    let roc = dpcert::plot::dpsgd_roc(
        &rational("1/10"),
        &rational("1"),
        &rug::Integer::from(10),
        &opts,
        "test",
    )
    .unwrap();
    insta::with_settings!({snapshot_path => "../snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("plot_roc_dpsgd", structure(&roc.svg()));
    });
}

/// Φ⁻¹(p) at 1024 bits by bisection on Φ (MPFR's erfc), to 2⁻²⁰⁰.
fn phi_inv(p: &Float) -> Float {
    let (mut a, mut b) = (Float::with_val(REF, -40), Float::with_val(REF, 40));
    for _ in 0..260 {
        let m = Float::with_val(REF, &a + &b) / 2u32;
        if phi(&m) < *p {
            a = m;
        } else {
            b = m;
        }
    }
    b
}

/// Full-batch DP-SGD (q = 1) is the composition of T Gaussians, μ = √T/σ: TPR*(α) =
/// Φ(Φ⁻¹(α) + μ) exactly. Every certified point brackets it; the drawn upper curve lies on or
/// above the lower one; both axes are logarithmic with power-of-ten ticks covering 10⁻⁵ … 1;
/// no texts overlap.
#[test]
fn roc_brackets_the_exact_gaussian_tradeoff_on_log_log_axes() {
    let opts = dpcert::theorems::pld_accountant::PldOptions::default();
    let (sigma, steps) = (rational("2"), 16u32);
    let roc = dpcert::plot::dpsgd_roc(
        &rational("1"),
        &sigma,
        &rug::Integer::from(steps),
        &opts,
        "q = 1",
    )
    .unwrap();
    let mu = Float::with_val(REF, steps).sqrt() / Float::with_val(REF, &sigma);
    for (a, r) in &roc.points {
        let alpha = Float::with_val(REF, a);
        let exact = if *a == 1 {
            Float::with_val(REF, 1)
        } else {
            phi(&(phi_inv(&alpha) + &mu))
        };
        let (lo, up) = (
            r.enclosure.lower().to_float(),
            r.enclosure.upper().to_float(),
        );
        assert!(
            lo <= exact && exact <= up,
            "α = {a}: {exact} outside [{lo}, {up}]"
        );
    }
    let svg = roc.svg();
    let (up, lo) = (polyline(&svg, "upper best"), polyline(&svg, "lower best"));
    for w in up
        .windows(2)
        .filter(|w| w[0].1 == w[1].1 && w[0].0 < w[1].0)
    {
        let mid = (w[0].0 + w[1].0) / 2.0;
        if let Some(y) = step_at(&lo, mid) {
            assert!(
                w[0].1 <= y,
                "at x = {mid}: upper {} below lower {y}",
                w[0].1
            );
        }
    }
    assert_round_ticks(&ticks(&svg, "xtick"), true, 1e-5, 1.0);
    assert_round_ticks(&ticks(&svg, "ytick"), true, 1e-5, 1.0);
    assert!(svg.contains(r#"class="reference""#) && svg.contains("not a bound"));
    assert_texts_apart(&svg);
}

#[test]
fn plot_to_stdout_and_refusals() {
    let (code, out, err) = run(&["plot", &example("laplace-dashboard.toml"), "-o", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("<svg") && out.trim_end().ends_with("</svg>"));
    assert!(out.contains("optimal composition"), "{out}");
    assert_texts_apart(&out);
    let dir = tmp("refuse");
    for bad in ["x.png", "x", "x.svg.pdf"] {
        let p = dir.join(bad);
        let (code, out, err) = run(&[
            "plot",
            &example("mixed-release.toml"),
            "-o",
            p.to_str().unwrap(),
        ]);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(out.is_empty() && err.contains("only SVG"), "{err}");
        assert!(!p.exists());
    }
}

/// A failed write leaves neither the file nor a temporary beside it, and keeps an existing
/// file's content: the target is a directory (the rename fails after the temporary was
/// written), or its directory does not exist; and, when not running as root, a read-only
/// directory.
#[test]
fn failed_writes_leave_no_partial_file() {
    let dir = tmp("atomic");
    let blocked = dir.join("taken.svg");
    std::fs::create_dir(&blocked).unwrap();
    std::fs::write(blocked.join("inside"), "x").unwrap();
    assert!(dpcert::plot::write_atomic(&blocked, b"<svg/>").is_err());
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        names,
        vec![std::ffi::OsString::from("taken.svg")],
        "leftovers: {names:?}"
    );
    assert!(blocked.join("inside").exists());
    assert!(dpcert::plot::write_atomic(&dir.join("no/such/dir.svg"), b"<svg/>").is_err());
    // an existing file is replaced whole, or not at all
    let kept = dir.join("kept.svg");
    std::fs::write(&kept, "old").unwrap();
    dpcert::plot::write_atomic(&kept, b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), "new");
    // the CLI: exit 2 naming the file, nothing written
    let (code, _, err) = run(&[
        "plot",
        &example("mixed-release.toml"),
        "-o",
        blocked.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("cannot write") && err.contains("taken.svg"),
        "{err}"
    );
    let count = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(count, 2, "only taken.svg and kept.svg");
    // a read-only directory (root ignores permissions: then only check nothing is left over)
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let target = ro.join("chart.svg");
    match dpcert::plot::write_atomic(&target, b"<svg/>") {
        Err(_) => assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0),
        Ok(()) => assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 1), // running as root
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

const DPSGD: [&str; 8] = [
    "tradeoff", "dpsgd", "--rate", "0.1", "--sigma", "1", "--steps", "10",
];

fn tradeoff(extra: &[&str]) -> (i32, String, String) {
    let mut args: Vec<&str> = DPSGD.to_vec();
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn tradeoff_plot_outputs() {
    let dir = tmp("tradeoff");
    let file = dir.join("roc.svg");
    let f = file.to_str().unwrap();
    // --plot FILE --json: the file and the JSON (the certified points), schema-valid
    let (code, out, err) = tradeoff(&["--plot", f, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
    assert!(
        common::schema_errors(&common::schema_validator(), &v).is_empty(),
        "{v}"
    );
    let pts = v["result"]["points"].as_array().unwrap();
    assert_eq!(pts.len(), 201);
    assert_eq!(pts[0]["fpr"], "1e-5");
    assert!(std::fs::read_to_string(&file).unwrap().starts_with("<svg"));
    // --plot FILE --fpr A --json: the file, then the answer at A
    std::fs::remove_file(&file).unwrap();
    let (code, out, err) = tradeoff(&["--plot", f, "--fpr", "0.01", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["result"]["quantity"], "tpr");
    assert!(file.exists());
    // --plot -: the SVG alone on stdout; with --json or --fpr refused (exit 2), nothing written
    let (code, out, err) = tradeoff(&["--plot", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("<svg") && out.trim_end().ends_with("</svg>"),
        "{out}"
    );
    assert!(!std::path::Path::new("-").exists());
    for extra in [&["--json"][..], &["--fpr", "0.1"][..]] {
        let mut a = vec!["--plot", "-"];
        a.extend_from_slice(extra);
        let (code, out, err) = tradeoff(&a);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains("standard output"), "{err}");
        assert!(!out.contains("<svg"));
    }
    // another format: refused, exit 2, no file
    let png = dir.join("roc.png");
    let (code, _, err) = tradeoff(&["--plot", png.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("only SVG") && !png.exists(), "{err}");
}
