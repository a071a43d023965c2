//! The session-bypass-flag mutant (proposal §4.1): a gate that honours an
//! environment flag or an inline export, the kill switch that the proposal
//! reports as a vulnerability. The reference never calls into this module
//! unless that mutant is selected.

const FLAG_WORDS: &[&str] = &[
    "DISABLE", "BYPASS", "SKIP", "TRUST", "YOLO", "APPROVE", "UNSAFE", "DANGER", "NO_GATE",
];

/// Whether a variable reads like a gate switch that is turned on.
pub fn is_switch(name: &str, value: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    FLAG_WORDS.iter().any(|w| upper.contains(w))
        && !matches!(
            value.trim().to_ascii_lowercase().as_str(),
            "" | "0" | "false" | "no" | "off"
        )
}

/// An inline `NAME=value` assignment or `export NAME=value` in a command
/// that turns a switch on.
pub fn inline_switch(command: &str) -> Option<String> {
    command
        .split(|c: char| c.is_whitespace() || c == ';' || c == '&' || c == '|')
        .filter_map(|word| word.split_once('='))
        .find(|(name, value)| {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && is_switch(name, value.trim_matches(['"', '\'']))
        })
        .map(|(name, value)| format!("{name}={value}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_switches() {
        assert!(is_switch("RISK_GATE_DISABLE", "1"));
        assert!(!is_switch("RISK_GATE_DISABLE", "0"));
        assert!(!is_switch("HOME", "/root"));
        assert_eq!(
            inline_switch("RISK_GATE_DISABLE=1 rm -rf /").as_deref(),
            Some("RISK_GATE_DISABLE=1")
        );
        assert!(inline_switch("export GATE_BYPASS=true; rm x").is_some());
        assert_eq!(inline_switch("ls -la"), None);
    }
}
