//! Audit records (proposal §5): every decision yields one.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current time as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_rfc3339(since.as_secs(), since.subsec_millis())
}

/// Formats seconds since the Unix epoch (civil-from-days, H. Hinnant).
pub fn format_rfc3339(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (h, m, s) = (rem / 3600, (rem % 3600) / 60, rem % 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    // Digits placed by hand: every evaluation stamps its audit record, and
    // `format!` with padding was a visible share of a fuzzing profile.
    let mut out = *b"0000-00-00T00:00:00.000Z";
    let mut put = |at: usize, width: usize, mut value: u64| {
        for i in (at..at + width).rev() {
            out[i] = b'0' + (value % 10) as u8;
            value /= 10;
        }
    };
    put(0, 4, year.clamp(0, 9999) as u64);
    put(5, 2, month as u64);
    put(8, 2, day as u64);
    put(11, 2, h);
    put(14, 2, m);
    put(17, 2, s);
    put(20, 3, u64::from(millis.min(999)));
    out.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(
            format_rfc3339(1_798_761_599, 999),
            "2026-12-31T23:59:59.999Z"
        );
        assert_eq!(format_rfc3339(4_107_542_400, 0), "2100-03-01T00:00:00.000Z");
    }

    #[test]
    fn now_looks_like_rfc3339() {
        let t = now_rfc3339();
        assert_eq!(t.len(), 24, "{t}");
        assert!(
            t.ends_with('Z') && &t[10..11] == "T" && t.as_bytes()[4] == b'-',
            "{t}"
        );
    }
}
