//! The case corpus built into the binary: the `rbv-cases` crate, which embeds
//! `cases/` and refuses to build without a catalogue and cases.

/// Every file of the case corpus: (path relative to `cases/`, contents).
pub static EMBEDDED: &[(&str, &str)] = rbv_cases::FILES;

/// The embedded files as owned pairs, the form `case::load_files` takes.
pub fn files() -> Vec<(String, String)> {
    EMBEDDED
        .iter()
        .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_corpus_holds_the_catalogue_the_fixtures_and_loads() {
        let names: Vec<&str> = EMBEDDED.iter().map(|(name, _)| *name).collect();
        assert!(names.contains(&crate::case::CATALOGUE), "{names:?}");
        assert!(
            names.iter().any(|n| n.starts_with(crate::case::FIXTURES)),
            "{names:?}"
        );
        assert!(names
            .iter()
            .all(|n| !n.contains('\\') && !n.starts_with('/')));
        let suite = crate::case::load_files(&files()).unwrap_or_else(|errors| {
            panic!(
                "{}",
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        assert!(suite.cases.len() > 100, "{} cases", suite.cases.len());
    }
}
