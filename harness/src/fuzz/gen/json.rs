//! Arbitrary argument data with the edges that canonicalizations merge:
//! integers around 2^53 and 2^64, floats one ulp apart, Unicode in NFC and
//! NFD, whitespace inside strings, strings that spell other types.

use arbitrary::{Result, Unstructured};
use serde_json::{Map, Number, Value};

/// Integers that a double-based canonicalization (RFC 8785, JavaScript)
/// cannot tell apart from a neighbor.
pub const EDGE_INTS: &[i128] = &[
    0,
    1,
    -1,
    9_007_199_254_740_992,
    9_007_199_254_740_993,
    -9_007_199_254_740_993,
    i64::MAX as i128,
    i64::MIN as i128,
    u64::MAX as i128,
    u64::MAX as i128 - 1,
];

/// Floats that round-trip exactly through f64 but that sloppy formatting
/// merges (`0.1` vs `0.1 + ulp`, `-0.0` vs `0.0`).
pub const EDGE_FLOATS: &[f64] = &[
    0.1,
    // The next double after 0.1: distinct data that a lossy formatter merges.
    f64::from_bits(0.1f64.to_bits() + 1),
    0.30000000000000004,
    -0.0,
    1e300,
    5e-324,
];

/// Strings whose variants are distinct data: NFC vs NFD, padded, typed
/// look-alikes, paths that differ by one character.
pub const EDGE_STRINGS: &[&str] = &[
    "A",
    "B",
    "café",
    "cafe\u{301}",
    "prod-db",
    "prod-db ",
    " prod-db",
    "prod\u{a0}db",
    "true",
    "1",
    "null",
    "/tmp/build",
    "/tmp/build/",
    "users/42",
    "users/43",
    "ℌ",
    "H",
];

pub const KEYS: &[&str] = &[
    "id", "path", "table", "target", "to", "body", "force", "ids", "where", "options",
];

pub fn number(u: &mut Unstructured) -> Result<Value> {
    Ok(if u.ratio(1, 2)? {
        let n = *u.choose(EDGE_INTS)?;
        int_value(n)
    } else if u.ratio(1, 2)? {
        float_value(*u.choose(EDGE_FLOATS)?)
    } else {
        Value::from(u.int_in_range(-1000..=1000i64)?)
    })
}

pub fn int_value(n: i128) -> Value {
    if let Ok(v) = i64::try_from(n) {
        Value::from(v)
    } else if let Ok(v) = u64::try_from(n) {
        Value::from(v)
    } else {
        Value::from(n as f64)
    }
}

pub fn float_value(f: f64) -> Value {
    Number::from_f64(f)
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

pub fn string(u: &mut Unstructured) -> Result<String> {
    Ok(if u.ratio(3, 4)? {
        (*u.choose(EDGE_STRINGS)?).to_owned()
    } else {
        let s: String = u.arbitrary()?;
        s.chars().take(24).collect()
    })
}

/// A JSON value of bounded depth and size.
pub fn value(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let kinds = if depth == 0 { 4 } else { 6 };
    Ok(match u.int_in_range(0..=kinds - 1)? {
        0 => Value::String(string(u)?),
        1 => number(u)?,
        2 => Value::Bool(u.arbitrary()?),
        3 => Value::Null,
        4 => {
            let n = u.int_in_range(0..=3)?;
            Value::Array((0..n).map(|_| value(u, depth - 1)).collect::<Result<_>>()?)
        }
        _ => Value::Object(object(u, depth - 1)?),
    })
}

pub fn object(u: &mut Unstructured, depth: u32) -> Result<Map<String, Value>> {
    let n = u.int_in_range(1..=4)?;
    let mut map = Map::new();
    for _ in 0..n {
        let key = (*u.choose(KEYS)?).to_owned();
        map.insert(key, value(u, depth)?);
    }
    Ok(map)
}
