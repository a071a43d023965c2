//! Approval tokens (proposal §4.1, §4.2): keyed, operation-bound, data-bound,
//! single-use.
//!
//! A token is `rbv1.<nonce>.<mac>`: `mac` is HMAC-SHA256 under a per-session
//! secret over the nonce and the operation's canonical argument-bearing form
//! (the authorization key). The nonce is remembered until the token is
//! redeemed once; a second redemption finds it gone.
//!
//! The nonce only has to be unique within its session (it names the token
//! for single use; the MAC, not the nonce, makes a token unforgeable), so
//! it counts. Session secrets are derived, HKDF-Expand style, from one
//! 32-byte key the operating system gives the process: HMAC-SHA256 over a
//! per-process counter. That keeps system calls off the path of every
//! session and every token (the fuzzers mint 100k tokens a second).
//! The classification key (the normalized shape the inspectors reason about)
//! is a different key and never authorizes anything.

use crate::canonical::{to_canonical, write_object, write_string};
use crate::mutant::Mutant;
use hmac::{Hmac, KeyInit, Mac};
use rbv_protocol::{Operation, OperationKind};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
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
    // Written in place rather than through a `json!` copy of the arguments:
    // it is on the path of every evaluation. Keys in canonical order.
    let mut out = String::with_capacity(64);
    out.push_str("{\"arguments\":");
    write_object(&op.arguments, &mut out);
    out.push_str(",\"id\":");
    write_string(&op.id, &mut out);
    out.push_str(",\"plugin\":");
    match &op.plugin {
        Some(plugin) => write_string(plugin, &mut out),
        None => out.push_str("null"),
    }
    out.push('}');
    out
}

/// The audit signature: SHA-256 of the authorization key, in hex. Public;
/// knowing it does not help forge a token, which needs the session secret.
pub fn signature(op: &Operation) -> String {
    hex::encode(Sha256::digest(authorization_form(op).as_bytes()))
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

/// A secret no other session of any process shares: HMAC-SHA256 under the
/// process key (random, read once) over a counter never repeated in the
/// process.
fn fresh_secret() -> [u8; 32] {
    static PROCESS_KEY: OnceLock<[u8; 32]> = OnceLock::new();
    static SESSIONS: AtomicU64 = AtomicU64::new(0);
    let key = PROCESS_KEY.get_or_init(|| {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).expect("the operating system's random source is available");
        key
    });
    let n = SESSIONS.fetch_add(1, Ordering::Relaxed);
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(b"rbv session secret v1\0");
    mac.update(&n.to_be_bytes());
    mac.finalize().into_bytes().into()
}

/// The tokens of one session. Safe to share between threads: redemption is
/// one atomic remove, so two concurrent redemptions of one token cannot both
/// succeed.
///
/// The store is state, the mutant is configuration: each call names the
/// mutant it runs under, so that a session needs nothing but `Default`.
pub struct TokenStore {
    secret: [u8; 32],
    minted: AtomicU64,
    unspent: Mutex<HashMap<[u8; 16], String>>,
}

impl Default for TokenStore {
    /// A store with a fresh secret.
    fn default() -> Self {
        TokenStore {
            secret: fresh_secret(),
            minted: AtomicU64::new(0),
            unspent: Mutex::new(HashMap::new()),
        }
    }
}

impl TokenStore {
    /// What the MAC covers: the authorization key (the shape, in the
    /// shape-bound-token mutant).
    fn bound_form(mutant: Option<Mutant>, op: &Operation) -> String {
        if mutant == Some(Mutant::ShapeBoundToken) {
            classification_key(op)
        } else {
            authorization_form(op)
        }
    }

    fn mac(&self, mutant: Option<Mutant>, nonce: &[u8; 16], op: &Operation) -> Vec<u8> {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(DOMAIN);
        mac.update(nonce);
        mac.update(Self::bound_form(mutant, op).as_bytes());
        mac.finalize().into_bytes().to_vec()
    }

    /// Mints a single-use token for exactly this operation. The caller has
    /// checked that a human approves.
    pub fn mint(&self, mutant: Option<Mutant>, op: &Operation, approver: &str) -> String {
        let n = self.minted.fetch_add(1, Ordering::Relaxed);
        let nonce = u128::from(n).to_be_bytes();
        let mac = self.mac(mutant, &nonce, op);
        self.unspent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(nonce, approver.to_owned());
        format!("{PREFIX}.{}.{}", hex::encode(nonce), hex::encode(mac))
    }

    /// Redeems a token for this operation; returns who approved it.
    pub fn redeem(
        &self,
        mutant: Option<Mutant>,
        op: &Operation,
        token: &str,
    ) -> Result<String, TokenError> {
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
        let expected = self.mac(mutant, &nonce, op);
        if !bool::from(expected.as_slice().ct_eq(mac.as_slice())) {
            return Err(TokenError::WrongOperation);
        }
        let mut unspent = self.unspent.lock().unwrap_or_else(|e| e.into_inner());
        let approver = if mutant == Some(Mutant::ReplayableToken) {
            unspent.get(&nonce).cloned()
        } else {
            unspent.remove(&nonce)
        };
        approver.ok_or(TokenError::Spent)
    }
}

/// A nonce or MAC as written in a token: lowercase only, since a token
/// has one spelling (`hex::encode` never writes uppercase).
fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
        return None;
    }
    hex::decode(text).ok()
}

#[cfg(test)]
mod tests;
