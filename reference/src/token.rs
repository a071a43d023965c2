//! Approval tokens (proposal §4.1, §4.2): keyed, operation-bound, data-bound,
//! single-use.
//!
//! A token is `rbv1.<nonce>.<mac>`: `mac` is HMAC-SHA256 under a per-session
//! random secret over the nonce and the operation's canonical
//! argument-bearing form (the authorization key). The nonce is remembered
//! until the token is redeemed once; a second redemption finds it gone.
//! The classification key (the normalized shape the inspectors reason about)
//! is a different key and never authorizes anything.

use crate::canonical::to_canonical;
use crate::mutant::Mutant;
use hmac::{Hmac, KeyInit, Mac};
use rbv_protocol::{Operation, OperationKind};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::Mutex;
use subtle::ConstantTimeEq;

const PREFIX: &str = "rbv1";
const DOMAIN: &[u8] = b"rbv approval token v1\0";

/// Why a token was not redeemed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    #[error("the token is not one this client minted (malformed)")]
    Malformed,
    #[error("the token does not authorize this operation with these arguments in this session")]
    WrongOperation,
    #[error("the token was already used or is void (single-use, replay blocked)")]
    Spent,
}

/// The authorization key: the canonical JSON of plugin, operation id and
/// every argument value.
pub fn authorization_form(op: &Operation) -> String {
    to_canonical(&json!({
        "plugin": op.plugin,
        "id": op.id,
        "arguments": Value::Object(op.arguments.clone()),
    }))
}

/// The audit signature: SHA-256 of the authorization key, in hex. Public;
/// knowing it does not help forge a token, which needs the session secret.
pub fn signature(op: &Operation) -> String {
    hex(&Sha256::digest(authorization_form(op).as_bytes()))
}

/// The classification key: the operation's normalized shape, with argument
/// data stripped (quoted literals and numbers of the payload, every other
/// argument value reduced to its type). Two operations that differ only in
/// data share it — which is why it must never bind an approval.
pub fn classification_key(op: &Operation) -> String {
    let payload_key = match op.kind {
        Some(OperationKind::Sql) => Some("sql"),
        Some(OperationKind::Shell) => Some("command"),
        Some(OperationKind::Fetch) => Some("url"),
        _ => None,
    };
    let args: Map<String, Value> = op
        .arguments
        .iter()
        .map(|(k, v)| {
            let shaped = match (Some(k.as_str()) == payload_key, v) {
                (true, Value::String(text)) => Value::String(normalize_text(text)),
                _ => shape(v),
            };
            (k.clone(), shaped)
        })
        .collect();
    to_canonical(&json!({"plugin": op.plugin, "id": op.id, "kind": op.kind, "arguments": args}))
}

fn shape(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::Bool(_) => json!("<bool>"),
        Value::Number(_) => json!("<number>"),
        Value::String(_) => json!("<string>"),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect())
        }
    }
}

/// Strips quoted literals and digit runs and collapses whitespace, the way a
/// command classifier normalizes before matching.
fn normalize_text(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                for d in chars.by_ref() {
                    if d == c {
                        break;
                    }
                }
                out.push('?');
            }
            c if c.is_ascii_digit() => {
                while chars.peek().is_some_and(|d| d.is_ascii_digit()) {
                    chars.next();
                }
                out.push('?');
            }
            c if c.is_whitespace() => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    out.trim().to_owned()
}

/// The tokens of one session. Safe to share between threads: redemption is
/// one atomic remove, so two concurrent redemptions of one token cannot both
/// succeed.
pub struct TokenStore {
    secret: [u8; 32],
    unspent: Mutex<HashMap<[u8; 16], String>>,
    mutant: Option<Mutant>,
}

impl TokenStore {
    /// A store with a fresh random secret.
    pub fn new(mutant: Option<Mutant>) -> Self {
        let mut secret = [0u8; 32];
        getrandom::fill(&mut secret).expect("the operating system's random source is available");
        TokenStore {
            secret,
            unspent: Mutex::new(HashMap::new()),
            mutant,
        }
    }

    /// What the MAC covers: the authorization key (the shape, in the
    /// shape-bound-token mutant).
    fn bound_form(&self, op: &Operation) -> String {
        if self.mutant == Some(Mutant::ShapeBoundToken) {
            classification_key(op)
        } else {
            authorization_form(op)
        }
    }

    fn mac(&self, nonce: &[u8; 16], op: &Operation) -> Vec<u8> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(DOMAIN);
        mac.update(nonce);
        mac.update(self.bound_form(op).as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// Mints a single-use token for exactly this operation. The caller has
    /// checked that a human approves.
    pub fn mint(&self, op: &Operation, approver: &str) -> String {
        let mut nonce = [0u8; 16];
        getrandom::fill(&mut nonce).expect("the operating system's random source is available");
        let mac = self.mac(&nonce, op);
        self.unspent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(nonce, approver.to_owned());
        format!("{PREFIX}.{}.{}", hex(&nonce), hex(&mac))
    }

    /// Redeems a token for this operation; returns who approved it.
    pub fn redeem(&self, op: &Operation, token: &str) -> Result<String, TokenError> {
        let mut parts = token.split('.');
        let (Some(PREFIX), Some(nonce), Some(mac), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        let nonce: [u8; 16] = unhex(nonce)
            .and_then(|n| n.try_into().ok())
            .ok_or(TokenError::Malformed)?;
        let mac = unhex(mac).ok_or(TokenError::Malformed)?;
        let expected = self.mac(&nonce, op);
        if !bool::from(expected.as_slice().ct_eq(mac.as_slice())) {
            return Err(TokenError::WrongOperation);
        }
        let mut unspent = self.unspent.lock().unwrap_or_else(|e| e.into_inner());
        let approver = if self.mutant == Some(Mutant::ReplayableToken) {
            unspent.get(&nonce).cloned()
        } else {
            unspent.remove(&nonce)
        };
        approver.ok_or(TokenError::Spent)
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2)
        || !text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests;
