//! Loading the embedded corpus in process, without a process start around
//! it: on one rayon thread and on rayon's default pool, interleaved, and
//! the lint of the loaded suite (sequential), medians in milliseconds.
//! `scripts/bench-parallel.sh` runs it; `--rounds N` (default 21).

use rbv::case::{self, lint, Suite};
use std::time::Instant;

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn load(files: &[(String, String)]) -> (f64, Suite) {
    let started = Instant::now();
    let suite = case::load_files(files).expect("the embedded corpus loads");
    (started.elapsed().as_secs_f64() * 1e3, suite)
}

fn main() {
    let rounds: usize = match std::env::args().skip(1).collect::<Vec<_>>().as_slice() {
        [flag, n] if flag == "--rounds" => n.parse().expect("--rounds N"),
        [] => 21,
        _ => panic!("usage: load_corpus [--rounds N]"),
    };
    let files = rbv::embedded::files();
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a pool");
    let (mut sequential, mut parallel, mut ratios, mut linted) = (vec![], vec![], vec![], vec![]);
    for _ in 0..rounds {
        let (s, _) = one.install(|| load(&files));
        let (p, suite) = load(&files);
        let started = Instant::now();
        std::hint::black_box(lint::lint(&suite));
        linted.push(started.elapsed().as_secs_f64() * 1e3);
        sequential.push(s);
        parallel.push(p);
        ratios.push(s / p);
    }
    println!(
        "load_files, embedded corpus ({} files), {rounds} rounds: 1 thread {:.1} ms, {} threads {:.1} ms, ratio {:.2}×; lint {:.2} ms",
        files.len(),
        median(sequential),
        rayon::current_num_threads(),
        median(parallel),
        median(ratios),
        median(linted)
    );
}
