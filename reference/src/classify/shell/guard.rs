//! Bounds checked before any text reaches the parser. brush-parser is a
//! recursive-descent parser: nesting (`$(`, `(`, `{`, `if`, `[[ ! …`) costs
//! stack per level, and a stack overflow aborts the process, which no caller
//! can catch. Instead of estimating nesting (quoting makes an estimate
//! unsound), the guard counts every construct that *can* open a level: the
//! count bounds the depth from above, whatever the quoting. Text above the
//! bounds fails safe (escalates) without being parsed.

/// Longest payload inspected; longer text escalates unread.
pub const MAX_LEN: usize = 1 << 20;

/// Most constructs that can open a nesting level. The parser thread's stack
/// holds several times this many levels (measured: over 3,000 levels of any
/// construct in 64 MiB in a debug build).
pub const MAX_OPENERS: usize = 1_500;

/// Stack of the parsing thread.
pub const STACK_BYTES: usize = 128 << 20;

/// Most levels of code run inside code (`bash -c` inside `$(…)` inside
/// `eval` …) that are inspected; deeper text fails safe.
pub const MAX_DEPTH: usize = 24;

/// Why a payload is not parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the command is {0} bytes long (inspected up to {MAX_LEN})")]
    Long(usize),
    #[error("the command has {0} or more nesting constructs (inspected up to {MAX_OPENERS})")]
    Nested(usize),
    #[error("code nested more than {MAX_DEPTH} levels deep")]
    Deep,
}

/// Checks the bounds of one payload.
pub fn check(text: &str) -> Result<(), Refusal> {
    if text.len() > MAX_LEN {
        return Err(Refusal::Long(text.len()));
    }
    let openers = count_openers(text);
    if openers > MAX_OPENERS {
        return Err(Refusal::Nested(openers));
    }
    Ok(())
}

/// Counts characters and words that may open a nesting level: brackets,
/// `!`, `&&`/`||` (left-deep chains in `[[ … ]]`), backticks and the
/// compound-command keywords, stopping once past the bound.
fn count_openers(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() && count <= MAX_OPENERS {
        let b = bytes[i];
        match b {
            b'(' | b'{' | b'[' | b'!' | b'`' => count += 1,
            b'&' | b'|' if bytes.get(i + 1) == Some(&b) => {
                count += 1;
                i += 1;
            }
            b if b.is_ascii_alphabetic() => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                if matches!(
                    &text[start..i],
                    "if" | "while" | "until" | "for" | "case" | "select" | "function" | "coproc"
                ) {
                    count += 1;
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    count
}
