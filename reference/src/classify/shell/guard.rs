//! Bounds checked before any text reaches the parser. brush-parser is a
//! recursive-descent parser: nesting (`$(`, `(`, `{`, `if`, `[[ ! …`) costs
//! stack per level, and a stack overflow aborts the process, which no caller
//! can catch. Instead of estimating nesting (quoting makes an estimate
//! unsound), the guard counts every construct that *can* open a level: the
//! count bounds the depth from above, whatever the quoting. Text above the
//! bounds fails safe (escalates) without being parsed; text within them is
//! parsed on a stack with room for that many levels (`stack_needed`).

/// Longest payload inspected; longer text escalates unread.
pub const MAX_LEN: usize = 1 << 20;

/// Most constructs that can open a nesting level.
pub const MAX_OPENERS: usize = 1_500;

/// Stack reserved per opener for parsing and walking one level. Measured
/// (binary search on a thread's stack size, 100–1,000 levels of each
/// construct): at most 23 KiB per level in a debug build (`f() {`), 6 KiB
/// in release; this is twice the worst.
const STACK_PER_OPENER: usize = 48 << 10;

/// Stack reserved for a payload with no opener: the walker's own frames.
const STACK_BASE: usize = 512 << 10;

/// The stack one payload with `openers` openers may need to be parsed and
/// walked: the caller grows onto a fresh segment when less is left.
pub fn stack_needed(openers: usize) -> usize {
    STACK_BASE + openers * STACK_PER_OPENER
}

/// Most levels of code run inside code (`bash -c` inside `$(…)` inside
/// `eval` …) that are inspected; deeper text fails safe.
pub const MAX_DEPTH: usize = 24;

/// Function calls walked per command: each walks a body again with its
/// words, so calls that call two functions each would double per level.
pub const MAX_CALLS: usize = 256;

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

/// Checks the bounds of one payload; within them, its count of openers.
pub fn check(text: &str) -> Result<usize, Refusal> {
    if text.len() > MAX_LEN {
        return Err(Refusal::Long(text.len()));
    }
    let openers = count_openers(text);
    if openers > MAX_OPENERS {
        return Err(Refusal::Nested(openers));
    }
    Ok(openers)
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
