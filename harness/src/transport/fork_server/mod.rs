//! One launcher per worker that starts every case's child: the fork
//! server behind `--spawn-per-case`.
//!
//! A launcher per child (`launch`) costs an exec per case on top of the
//! implementation's own. The fork server is the same launcher, started
//! once (`rbv-launch --serve CMD`): a session leader with no terminal, a
//! child subreaper, told of rbv's death. For each case rbv makes the
//! child's three pipes and hands their far ends to the server over a Unix
//! socket (`SCM_RIGHTS`); the server starts `CMD` on them in a process
//! group of its own and says its pid. When the case ends, rbv asks the
//! server to end the child: it kills the child's group, reaps it, and
//! kills and reaps whatever else is left under it (escapees re-parented
//! to it). So one exec per case is saved, and the guarantees of `launch`
//! hold: nothing started survives the case, nor rbv.
//!
//! The server serves one worker and runs one child at a time: ending a
//! child ends everything under the server.
//!
//! The wire, one `SOCK_SEQPACKET` message each way (ASCII):
//!
//! | rbv asks | the server answers |
//! |---|---|
//! | `spawn`, with stdin, stdout and stderr attached | `pid N`, or `error TEXT` |
//! | `wait N MILLIS`: wait at most that long for child N's end | `exited RAW` (a wait status), `running`, or `error TEXT` |
//! | `end N`: kill child N and everything left | `ended RAW`, `ended -` (no status), or `error TEXT` |
//!
//! The server ends, killing everything under it, when rbv closes its end
//! of the socket, when rbv dies (`PR_SET_PDEATHSIG`), or on SIGTERM.

mod client;
mod serve;

pub use client::{ForkServer, Served};
pub use serve::serve;

/// The longest message either side sends.
const MAX_MESSAGE: usize = 512;

/// The longest wait rbv may ask for.
const MAX_WAIT_MILLIS: u64 = 10_000;
