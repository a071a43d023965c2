//! The one syntax of every duration option (`--timeout`, `--deadline`,
//! `--fuzz`, `rbv fuzz --duration`): humantime's (`500ms`, `5s`, `15m`,
//! `1h 30m`). A bare number is refused rather than given a unit: the
//! options once read bare numbers as milliseconds or as seconds, and a
//! guess would silently turn one into the other.

use std::time::Duration;

pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "`{text}` needs a unit: `{text}ms`, `{text}s` or `{text}m`"
        ));
    }
    humantime::parse_duration(text).map_err(|e| format!("`{text}` is not a duration like 60s: {e}"))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn durations_parse_with_a_unit() {
        assert_eq!(parse_duration("60s"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration(" 5s "), Ok(Duration::from_secs(5)));
    }

    #[test]
    fn a_bare_number_or_an_unknown_unit_is_refused() {
        let bare = parse_duration("5000").unwrap_err();
        assert!(bare.contains("`5000ms`"), "{bare}");
        for bad in ["7 fortnights", "s", "", "-5s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
