//! The lines a case sends off the script of typed requests: raw lines
//! (`send_raw`, also before the handshake) and the answers nobody asked
//! for, looked for after each case.

use super::super::lines::Line;
use super::{ProcessConfig, ProcessTransport};
use crate::transport::{fill_raw, Observation, RawObservation, TransportError};
use crate::verdict::ErrorKind;
use rbv_protocol::Response;
use std::time::{Duration, Instant};

impl ProcessTransport {
    /// Starts a fresh child, sends `template` as its first line, then the
    /// handshake (see `Transport::before_handshake`).
    pub fn probe_before_handshake(
        config: &ProcessConfig,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        let mut fresh = Self::start(config)?;
        let raw = fresh.raw_line(session, template)?;
        fresh
            .handshake(&config.harness)
            .map_err(|e| TransportError {
                message: format!(
                    "the handshake after a request before it failed: {}",
                    e.message
                ),
                ..e
            })?;
        Ok(raw)
    }

    /// One raw line and the next answer, whatever its id (`Transport::raw`).
    pub(super) fn raw_line(
        &mut self,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, TransportError> {
        if let Some(error) = &self.broken {
            let mut error = error.clone();
            error.message = format!("the implementation failed earlier: {}", error.message);
            return Err(error);
        }
        // The next line is taken as the answer: none may be waiting.
        self.unsolicited(EARLY)?;
        self.next_id += 1;
        let sent = fill_raw(template, self.next_id, session);
        let mut batch = sent.clone().into_bytes();
        batch.push(b'\n');
        let text = self.next_answer(&batch)?;
        let value = self.parse_answer(&text)?;
        self.case_answers += 1;
        let response = Response::from_json(&value).map_err(|e| e.to_string());
        let answer = Observation {
            line: text,
            value,
            response,
        };
        Ok(RawObservation { sent, answer })
    }

    /// A line that has arrived by now, before a request or after a case's
    /// last answer (`Transport::drain`): it answers nothing in flight, and
    /// is a protocol error said by `message`. Never waits.
    pub(super) fn unsolicited(&mut self, message: &str) -> Result<(), TransportError> {
        if self.broken.is_some() {
            return Ok(());
        }
        while !self.splitter.has_pending() {
            match self.read_some() {
                Ok(true) => {}
                Ok(false) | Err(_) => break,
            }
        }
        let line = match self.splitter.next_line() {
            Some(Line::Text(text)) => text,
            Some(Line::Oversized { prefix }) => format!("{prefix}…"),
            // An end of file is the next case's crash; a read error too.
            Some(other) => {
                self.splitter.unread(other);
                return Ok(());
            }
            None => return Ok(()),
        };
        self.stray = true;
        Err(self.fail(ErrorKind::Protocol, message.to_owned(), Some(&line)))
    }

    /// The end of the connection (`Transport::settle`): stdin closed, the
    /// child's stdout read to its end, for at most [`SETTLE`]. A line
    /// there answered nothing: an unsolicited or late answer, an endless
    /// flood after the last valid one. A child that neither exits nor
    /// writes is no violation (and is killed when dropped).
    pub(super) fn settle_output(&mut self) -> Result<(), TransportError> {
        if self.broken.is_some() {
            return Ok(());
        }
        self.stdin = None;
        let deadline = Instant::now() + self.timeout.min(SETTLE);
        loop {
            let line = match self.splitter.next_line() {
                Some(Line::Text(text)) => text,
                Some(Line::Oversized { prefix }) => format!("{prefix}…"),
                Some(Line::Eof | Line::Failed(_)) => return Ok(()),
                None => {
                    match self.read_some() {
                        Ok(true) => continue,
                        Ok(false) => {}
                        Err(_) => return Ok(()),
                    }
                    if !self.wait(false, deadline) {
                        return Ok(());
                    }
                    continue;
                }
            };
            let message = "an answer nobody asked for, after the last case's last answer \
                           (a duplicate, late or unsolicited answer)"
                .to_owned();
            self.stray = true;
            return Err(self.fail(ErrorKind::Protocol, message, Some(&line)));
        }
    }
}

/// What [`ProcessTransport::unsolicited`] says of a line after a case's
/// last answer, and of one before a request was written.
pub(super) const LATE: &str =
    "an answer nobody asked for, after the case's last answer (a duplicate or unsolicited answer)";
pub(super) const EARLY: &str =
    "an answer nobody asked for, before its request was written (an early or unsolicited answer)";

/// How long the end of a connection waits for the child's output to end.
const SETTLE: Duration = Duration::from_millis(500);
