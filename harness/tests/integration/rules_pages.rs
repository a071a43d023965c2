//! docs/rules/*.md are `rbv rules LANGUAGE` of the corpus: the normative
//! page an implementer reads says exactly what the cases check.

use rbv::case::{self, rules};
use std::path::Path;

#[test]
fn the_checked_in_rules_pages_are_the_corpus_read_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let suite = case::load_dir(&root.join("cases")).expect("the corpus loads");
    let mut stale = Vec::new();
    for &language in rules::LANGUAGES {
        let path = root.join(format!("docs/rules/{language}.md"));
        let want = rules::page(&suite, language).expect("a language has a page");
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            stale.push(format!(
                "{}: regenerate with `cargo run -q -p rbv -- rules {language} > docs/rules/{language}.md`",
                path.display()
            ));
        }
    }
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}
