//! The lines a case sends off the script of typed requests: raw lines
//! (`send_raw`, also before the handshake) and the answers nobody asked
//! for, looked for after each case.

use super::super::lines::Line;
use super::{ProcessConfig, ProcessTransport};
use crate::transport::{fill_raw, AdapterError, Observation, RawObservation};
use crate::verdict::ErrorKind;
use rbv_protocol::Response;

impl ProcessTransport {
    /// Starts a fresh child, sends `template` as its first line, then the
    /// handshake (see `Transport::before_handshake`).
    pub fn probe_before_handshake(
        config: &ProcessConfig,
        session: &str,
        template: &str,
    ) -> Result<RawObservation, AdapterError> {
        let mut fresh = Self::start(config)?;
        let raw = fresh.raw_line(session, template)?;
        fresh.handshake(&config.harness).map_err(|e| AdapterError {
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
    ) -> Result<RawObservation, AdapterError> {
        if let Some(error) = &self.broken {
            let mut error = error.clone();
            error.message = format!("the implementation failed earlier: {}", error.message);
            return Err(error);
        }
        self.next_id += 1;
        let sent = fill_raw(template, self.next_id, session);
        let mut batch = sent.clone().into_bytes();
        batch.push(b'\n');
        let text = self.next_answer(&batch)?;
        let value = self.parse_answer(&text)?;
        let response = Response::from_json(&value).map_err(|e| e.to_string());
        let answer = Observation {
            line: text,
            value,
            response,
        };
        Ok(RawObservation { sent, answer })
    }

    /// An answer that arrived after the case's last one (`Transport::drain`).
    pub(super) fn unsolicited(&mut self) -> Result<(), AdapterError> {
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
        let message = "an answer nobody asked for, after the case's last answer \
                       (a duplicate or unsolicited answer)"
            .to_owned();
        Err(self.fail(ErrorKind::Protocol, message, Some(&line)))
    }
}
