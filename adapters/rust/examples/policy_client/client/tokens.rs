//! Approval tokens: random, single-use handles, each bound to the exact
//! argument-bearing form of one call and kept in its session's state, so
//! that a reset or another session never redeems it.

use rbv_adapter::protocol::Operation;
use rbv_adapter::serde_json::{Map, Value};
use std::collections::HashMap;

/// The unspent tokens of one session.
#[derive(Default)]
pub struct Tokens {
    /// token → (the call it authorizes, who approved it)
    unspent: HashMap<String, (String, String)>,
}

impl Tokens {
    /// A token for exactly `op`. Unforgeable because it is 128 random bits
    /// the model never sees: nothing computed from the operation redeems.
    pub fn mint(&mut self, op: &Operation, approver: &str) -> String {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes).expect("the OS random source is available");
        let token: String = "tok_"
            .chars()
            .chain(bytes.iter().flat_map(|b| {
                let hex = |n: u8| char::from_digit(u32::from(n), 16).expect("a nibble");
                [hex(b >> 4), hex(b & 0xf)]
            }))
            .collect();
        self.unspent
            .insert(token.clone(), (call_key(op), approver.to_owned()));
        token
    }

    /// Consumes `token` if it authorizes exactly `op`; a token for another
    /// call stays unspent (its own call may still come).
    pub fn redeem(&mut self, op: &Operation, token: &str) -> Result<String, &'static str> {
        match self.unspent.get(token) {
            None => Err("unknown, spent or from another session"),
            Some((key, _)) if *key != call_key(op) => Err("it authorizes another call"),
            Some(_) => Ok(self.unspent.remove(token).expect("present").1),
        }
    }
}

/// The authorization key of a call: plugin, operation id and every
/// argument value with its exact text (numbers keep their digits and their
/// spelling; `412` and `412.0` differ). Object keys are sorted, because
/// key order is not data.
pub fn call_key(op: &Operation) -> String {
    let mut out = String::new();
    write(&Value::from(op.plugin.clone()), &mut out);
    out.push('|');
    write(&Value::from(op.id.clone()), &mut out);
    out.push('|');
    write_object(&op.arguments, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => write_object(map, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        // Scalars as serde_json writes them: with `arbitrary_precision`, a
        // number is its original text.
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn write_object(map: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(&Value::from(k.as_str()), out);
        out.push(':');
        write(v, out);
    }
    out.push('}');
}

/// A public digest of the key, for `evaluation.signature`. It only names
/// the call in logs: tokens are looked up by handle, never by signature.
pub fn signature(op: &Operation) -> String {
    // FNV-1a: stable across runs and platforms, no dependency needed.
    let hash = call_key(op).bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("sig_{hash:016x}")
}
