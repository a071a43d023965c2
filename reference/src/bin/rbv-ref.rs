//! `rbv-ref [--mutant NAME] [--profile KEY=VALUE]...`: the reference
//! implementation as an rbv adapter on stdin/stdout. `--profile` sets one
//! profile key (repeatable; the last value of a key wins; unset keys keep
//! their defaults). `--list-mutants` prints each mutant's name and defect;
//! `--list-profile` each profile key with its values and the default.
//! `RBV_MUTANT=NAME` selects a mutant too (the flag wins).

use rbv_reference::profile::KEYS;
use rbv_reference::{serve, Mutant, Profile};
use std::io::{self, BufWriter};
use std::process::ExitCode;

const USAGE: &str =
    "usage: rbv-ref [--mutant NAME] [--profile KEY=VALUE]... | --list-mutants | --list-profile";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut mutant = match Mutant::from_env() {
        Ok(m) => m,
        Err(e) => return usage_error(&format!("RBV_MUTANT: {e}")),
    };
    let mut profile = Profile::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list-mutants" => {
                for m in Mutant::ALL {
                    println!("{}\t{}", m.name(), m.description());
                }
                return ExitCode::SUCCESS;
            }
            "--list-profile" => {
                let defaults = Profile::default().to_handshake_map();
                for (key, values) in KEYS {
                    let default = match &defaults[key] {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    println!("{key}\t{}\tdefault {default}", values.join(","));
                }
                return ExitCode::SUCCESS;
            }
            "--profile" => match args.next().map(|a| profile.apply(&a)) {
                Some(Ok(())) => {}
                Some(Err(e)) => return usage_error(&format!("--profile: {e}")),
                None => return usage_error("--profile needs KEY=VALUE"),
            },
            "--mutant" => match args.next().map(|n| n.parse::<Mutant>()) {
                Some(Ok(m)) => mutant = Some(m),
                Some(Err(e)) => return usage_error(&e),
                None => return usage_error("--mutant needs a name"),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => return usage_error(&format!("unexpected argument `{other}`")),
        }
    }
    let stdin = io::stdin().lock();
    let stdout = BufWriter::new(io::stdout().lock());
    match serve(stdin, stdout, mutant, profile) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rbv-ref: {e}");
            ExitCode::from(2)
        }
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprintln!("rbv-ref: {message}\n{USAGE}");
    ExitCode::from(2)
}
