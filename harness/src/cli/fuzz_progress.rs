//! The live line of `rbv fuzz` on a terminal: elapsed, exec/s, findings and
//! generator productions reached (the stable driver keeps no corpus; the
//! productions it has built are its measure of ground covered). Hidden when
//! stderr is not a terminal or `CI` is set, so logs stay clean.

use crate::fuzz::driver::Tick;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

pub struct Progress(Option<ProgressBar>);

impl Progress {
    pub fn new(time: Duration) -> Self {
        let on = std::io::stderr().is_terminal() && std::env::var_os("CI").is_none();
        if !on {
            return Progress(None);
        }
        let bar = ProgressBar::with_draw_target(
            Some(time.as_millis().min(u128::from(u64::MAX)) as u64),
            ProgressDrawTarget::stderr_with_hz(5),
        );
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:24}] {msg}")
                .expect("a valid template")
                .progress_chars("=> "),
        );
        Progress(Some(bar))
    }

    pub fn tick(&self, t: Tick) {
        let Some(bar) = &self.0 else { return };
        bar.set_position(t.elapsed.as_millis() as u64);
        bar.set_message(format!(
            "{} execs, {:.0} exec/s, {} finding(s), {} productions reached",
            t.execs,
            t.execs as f64 / t.elapsed.as_secs_f64().max(1e-9),
            t.findings,
            crate::fuzz::reach::fired_count()
        ));
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}
