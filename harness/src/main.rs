//! The `rbv` binary: everything is in the library (`rbv::cli`).

// glibc's malloc was a third of a profile of `rbv run` (per-thread arenas
// growing and shrinking around every request); see BENCHMARKS.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    rbv::cli::main()
}
