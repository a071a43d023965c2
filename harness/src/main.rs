//! The `rbv` binary: everything is in the library (`rbv::cli`).

fn main() -> std::process::ExitCode {
    rbv::cli::main()
}
