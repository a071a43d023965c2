//! `rbv-launch CMD`: what `rbv launch CMD` does (see `rbv::adapter::launch`),
//! in a binary of its own that links only the launcher. rbv starts one per
//! implementation it runs, and `--spawn-per-case` one per case: the exec
//! of this small binary costs a fraction of the exec of `rbv` itself
//! (BENCHMARKS.md). rbv falls back to `rbv launch` where this binary is
//! not installed beside it.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    match (args.next().map(|a| a.into_string()), args.next()) {
        (Some(Ok(command)), None) => rbv::adapter::launch::run(&command),
        _ => {
            eprintln!("usage: rbv-launch CMD (rbv starts it; see `rbv run --help`)");
            ExitCode::from(125)
        }
    }
}
