//! `--help` is a contract too: every subcommand documents the exit codes and every option
//! has a description; a mistyped flag or command gets clap's "did you mean" suggestion on the
//! one-line error.
mod common;
use common::run;

/// Subcommands whose options must all be described.
const COMMANDS: [&[&str]; 17] = [
    &["gaussian", "delta"],
    &["gaussian", "epsilon"],
    &["gaussian", "sigma"],
    &["zcdp", "delta"],
    &["zcdp", "epsilon"],
    &["compose", "pure"],
    &["compose", "approx"],
    &["rdp", "subsampled-gaussian"],
    &["dpsgd"],
    &["subsample"],
    &["audit"],
    &["plot"],
    &["vectors"],
    &["check"],
    &["tradeoff", "gaussian"],
    &["gdp", "gaussian"],
    &["gdp", "dpsgd"],
];

#[test]
fn every_option_is_described_and_exit_codes_are_shown() {
    for cmd in COMMANDS {
        let mut args = cmd.to_vec();
        args.push("-h");
        let (code, out, err) = run(&args);
        assert_eq!(code, 0, "{cmd:?}: {err}");
        assert!(out.contains("Exit codes: 0 = verified"), "{cmd:?}: {out}");
        for line in out.lines().filter(|l| l.trim_start().starts_with('-')) {
            // "  --flag <VALUE>   description": something after the flag and its value name
            let rest = line
                .split_whitespace()
                .skip_while(|w| w.starts_with('-') || w.starts_with('<'))
                .collect::<Vec<_>>();
            assert!(
                !rest.is_empty(),
                "{cmd:?}: undocumented option `{}`",
                line.trim()
            );
        }
    }
    // the ML words are there
    let (_, out, _) = run(&["dpsgd", "-h"]);
    for w in [
        "batch size / dataset size",
        "Noise multiplier",
        "epochs",
        "Batch size B",
        "phase of a training schedule",
    ] {
        assert!(out.contains(w), "dpsgd --help lacks `{w}`");
    }
    let (_, out, _) = run(&["-h"]);
    assert!(out.contains("Exit codes:"));
}

#[test]
fn mistyped_flags_and_commands_get_a_suggestion() {
    for (args, want) in [
        (
            vec!["gaussian", "delta", "--sigma", "1", "--epsilom", "1"],
            "--epsilon",
        ),
        (vec!["gausian", "delta"], "gaussian"),
        (vec!["dpsgd", "--sigmaa", "1"], "--sigma"),
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains(want) && err.contains("tip:"),
            "{args:?}: {err}"
        );
    }
}
