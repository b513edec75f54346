//! The `dpcert` command-line tool. See `dpcert --help`.
#![forbid(unsafe_code)]

mod cli;

fn main() {
    // Defence in depth: a bug must never print a number after a panic; it prints one line.
    std::panic::set_hook(Box::new(|info| {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "dpcert: internal error (please report): {info}"
        );
    }));
    let code = std::panic::catch_unwind(cli::run).unwrap_or(101);
    std::process::exit(code);
}
