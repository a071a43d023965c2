//! The second oracles under `rbv fuzz`'s findings (`--postgres`,
//! `--parsers`, `--bash`): each finding's payload goes before the judge
//! that nobody on the project wrote, whose word prints as `# ` lines under
//! the finding.

use super::fuzz::FuzzArgs;
use crate::fuzz::{req, targets, Finding, Subject};
use crate::oracle::{postgres::Cluster, shell::Sandbox, url::Parsers};
use anyhow::bail;

/// Which second judges to start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wanted {
    pub postgres: bool,
    pub parsers: bool,
    pub bash: bool,
}

pub struct Oracles {
    cluster: Option<Cluster>,
    parsers: Option<Parsers>,
    /// With `--bash`: the sandbox, or why this machine has none.
    bash: Option<Result<Sandbox, String>>,
}

impl Oracles {
    /// Refuses an oracle for a target whose findings it cannot judge; says
    /// at once, and loudly, when the bash sandbox is unavailable.
    pub fn check(args: &FuzzArgs, target: &str) -> anyhow::Result<()> {
        if args.bash && target != targets::SHELL_BYPASS.name {
            bail!("--bash judges shell_bypass findings; target {target} has none");
        }
        Ok(())
    }

    /// Starts the oracles asked for, when there are findings to judge.
    pub fn start(args: &FuzzArgs, findings: bool) -> anyhow::Result<Oracles> {
        Self::start_these(
            Wanted {
                postgres: args.postgres,
                parsers: args.parsers,
                bash: args.bash,
            },
            findings,
        )
    }

    /// [`Oracles::start`] for the oracles `wanted` names.
    pub fn start_these(args: Wanted, findings: bool) -> anyhow::Result<Oracles> {
        let cluster = if args.postgres && findings {
            Some(Cluster::start()?)
        } else {
            None
        };
        let parsers = if args.parsers && findings {
            let p = Parsers::start()?;
            for (name, why) in &p.missing {
                eprintln!("rbv fuzz: URL parser {name} unavailable: {why}");
            }
            Some(p)
        } else {
            None
        };
        let bash = if args.bash && findings {
            let sandbox = Sandbox::start().map_err(|e| e.to_string());
            if let Err(why) = &sandbox {
                eprintln!("rbv fuzz: WARNING: {why}; no shell finding below is confirmed by bash");
            }
            Some(sandbox)
        } else {
            None
        };
        Ok(Oracles {
            cluster,
            parsers,
            bash,
        })
    }

    /// The oracles' words on `found`, one line each, escaped.
    pub fn judge(&mut self, found: &Finding, subject: &mut dyn Subject) -> Vec<String> {
        let Some(payload) = &found.payload else {
            return Vec::new();
        };
        let mut lines = Vec::new();
        if let Some(pg) = &self.cluster {
            lines.push(match pg.judge(payload) {
                Ok(verdict) => verdict.describe(),
                Err(e) => e.to_string(),
            });
        }
        if let Some(p) = self.parsers.as_mut() {
            lines.push(match targets::fetch_band(subject, payload) {
                Some(band) => match crate::oracle::url::judge(p, payload, band) {
                    Ok(verdict) => verdict,
                    Err(e) => e.to_string(),
                },
                None => "the implementation gave no band for the URL again".to_owned(),
            });
        }
        if let Some(bash) = &self.bash {
            lines.push(bash_word(bash, found, payload, subject));
        }
        lines
            .iter()
            .map(|l| rbv_report::text::terminal(l))
            .collect()
    }
}

fn bash_word(
    bash: &Result<Sandbox, String>,
    found: &Finding,
    line: &str,
    subject: &mut dyn Subject,
) -> String {
    let sandbox = match bash {
        Ok(sandbox) => sandbox,
        Err(why) => return format!("not judged by bash: {why}"),
    };
    if found.requirement == req::SHELL_SECRETS {
        // The band there answers a Rule-of-Two session, and a read of a
        // secret is no effect the sandbox can see.
        return "not judged by bash: a Rule-of-Two finding about secrets, which the sandbox does not see".to_owned();
    }
    match targets::shell_band(subject, line) {
        Some(band) => match crate::oracle::shell::judge(sandbox, line, band) {
            Ok(verdict) => verdict.to_string(),
            Err(e) => e.to_string(),
        },
        None => "the implementation gave no band for the line again".to_owned(),
    }
}
