//! `dpcert plot`: SVG only (by extension, or `-` for stdout), the certifying routes named on
//! the chart, values below the plotting floor marked rather than clamped silently, and the
//! upper curve drawn as steps that hold each certified value until the next sample.
mod common;
use common::run;

fn example(name: &str) -> String {
    format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn plot_to_stdout_names_routes_and_marks_the_floor() {
    let (code, out, err) = run(&["plot", &example("laplace-dashboard.toml"), "-o", "-"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("<svg") && out.trim_end().ends_with("</svg>"));
    assert!(out.contains("routes — upper: optimal composition"), "{out}");
    // 600 Laplace releases: δ(ε) drops below 1e-16 within the range, so markers appear
    assert!(out.contains("▼ below 1e-16"));
    // the upper curve is a step function: its points come in pairs at one height, and the
    // heights never rise (δ is non-increasing in ε; SVG y grows downwards)
    let line = out
        .lines()
        .find(|l| l.contains("<polyline") && l.contains("#c0392b"))
        .unwrap();
    let pts: Vec<(f64, f64)> = line
        .split("points=\"")
        .nth(1)
        .unwrap()
        .trim_end_matches("\"/>")
        .split(' ')
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect();
    assert!(pts.len() >= 100 && pts.len() % 2 == 0);
    for pair in pts.chunks(2) {
        assert_eq!(pair[0].1, pair[1].1, "a step is horizontal");
        assert!(pair[0].0 < pair[1].0 || pair[0].0 == pair[1].0);
    }
    for w in pts.windows(2) {
        assert!(w[1].1 >= w[0].1, "the upper curve never rises: {w:?}");
    }
}

#[test]
fn plot_refuses_other_formats() {
    let png = std::env::temp_dir().join(format!("dpcert-plot-{}.png", std::process::id()));
    let (code, out, err) = run(&[
        "plot",
        &example("mixed-release.toml"),
        "-o",
        png.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(out.is_empty() && err.contains("only SVG"), "{err}");
    assert!(!png.exists());
}
