//! Real-world seeds for the generators, labeled by oracles nobody on the
//! project wrote (see corpora/real-world/README.md): statements that
//! PostgreSQL refused as writes or saw an effect from, and URLs whose host a
//! WHATWG parser resolved.

use serde_json::Value;
use std::sync::OnceLock;

// `harness/seeds/` links to `corpora/real-world/` (the files stay where their
// scripts and README are); `cargo package` copies the linked files into the
// crate, so the published rbv builds with the same seeds.
const SQL: &str = include_str!("../../../seeds/sql-pg-regress.jsonl");
const URLS: &str = include_str!("../../../seeds/url-wpt.jsonl");

// A checkout without symbolic links (git's `core.symlinks=false`) would hold
// the links' target paths instead of the data, and the generators would
// silently lose their seeds: refuse to build then.
const _: () = assert!(
    SQL.len() > 100_000 && URLS.len() > 100_000,
    "harness/seeds/*.jsonl are not the real-world corpora (a checkout without symbolic links?)"
);

fn records(text: &'static str) -> impl Iterator<Item = Value> {
    text.lines().filter_map(|l| serde_json::from_str(l).ok())
}

/// Statements PostgreSQL refused inside a read-only transaction, or saw an
/// effect from: dangerous by an outside oracle.
pub fn pg_writes() -> &'static [String] {
    static CELL: OnceLock<Vec<String>> = OnceLock::new();
    CELL.get_or_init(|| {
        records(SQL)
            .filter(|r| {
                r["pg_label"] == "readonly_violation"
                    || r["oracle_effects"]
                        .as_array()
                        .is_some_and(|a| !a.is_empty())
            })
            .filter_map(|r| r["sql"].as_str().map(str::to_owned))
            .collect()
    })
}

/// Absolute http(s) URLs as the WHATWG parser wrote them back (`href`),
/// with its loopback verdict.
pub fn http_urls() -> &'static [(String, bool)] {
    static CELL: OnceLock<Vec<(String, bool)>> = OnceLock::new();
    CELL.get_or_init(|| {
        records(URLS)
            .filter(|r| {
                r["parse_ok"] == true && matches!(r["protocol"].as_str(), Some("http:" | "https:"))
            })
            .filter_map(|r| Some((r["href"].as_str()?.to_owned(), r["is_loopback"].as_bool()?)))
            .collect()
    })
}

/// Bytes that make a generator pick record `index` of its corpus: a
/// selector byte below [`SELECT_BELOW`], then the index as a little-endian
/// u16 (how `arbitrary` reads integers).
pub fn seed_for(index: usize) -> Vec<u8> {
    let i = index as u16;
    let mut bytes = vec![0u8];
    bytes.extend_from_slice(&i.to_le_bytes());
    bytes.extend_from_slice(&[0x55; 32]);
    bytes
}

/// A selector byte below this picks a corpus record (about one input in five).
pub const SELECT_BELOW: u8 = 48;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corpora_load_with_their_labels() {
        assert_eq!(pg_writes().len(), 362);
        let urls = http_urls();
        assert_eq!(urls.len(), 229);
        assert_eq!(urls.iter().filter(|(_, lb)| *lb).count(), 2);
    }
}
