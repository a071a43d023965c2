//! `rbv-launch CMD`: what `rbv launch CMD` does (see `rbv::transport::launch`),
//! in a binary of its own that links only the launcher. rbv starts one per
//! implementation it runs, and `--spawn-per-case` one per worker, as a
//! fork server (`--serve`): the exec of this small binary costs a fraction
//! of the exec of `rbv` itself (BENCHMARKS.md). rbv falls back to `rbv
//! launch` where this binary is not installed beside it.

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    match &args[..] {
        [Ok(command)] => rbv::transport::launch::run(command),
        [Ok(serve), Ok(command)] if serve == rbv::transport::launch::SERVE => {
            rbv::transport::fork_server::serve(command)
        }
        _ => {
            eprintln!("usage: rbv-launch [--serve] CMD (rbv starts it; see `rbv run --help`)");
            ExitCode::from(125)
        }
    }
}
