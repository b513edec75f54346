//! Every `$ dpcert …` example in the README and in `docs/` is a `console` block with its
//! output; this runs each one with the binary under test and compares (trycmd). An example
//! that drifts fails here. Regenerate after an intended change with
//! `TRYCMD=overwrite cargo test --test docs`, then read the diff.
#[test]
fn documented_examples_run_as_written() {
    trycmd::TestCases::new()
        .register_bin("dpcert", trycmd::cargo::cargo_bin("dpcert"))
        .case("README.md")
        .case("docs/*.md");
}
