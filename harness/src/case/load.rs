//! Loading a case tree: every file is read, every error is collected, and
//! each names its file, line and column with the offending source line.

use super::expand;
use super::model::Source;
use super::node::{Node, NodeError, Pos};
use super::requirements::{Catalogue, Entry};
use super::steps::{self, StepCtx};
use super::{Case, Origin, Suite};
use rbv_protocol::{Capability, PluginBundle};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

/// The catalogue's path, relative to the cases root.
pub const CATALOGUE: &str = "REQUIREMENTS.yaml";
/// Plugin fixtures live in this folder of the cases root.
pub const FIXTURES: &str = "plugins/";

/// A problem in a case file. `line` and `column` are 1-based (0 when the
/// problem concerns the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The source line the error points at (empty when there is none).
    pub snippet: String,
}

impl LoadError {
    pub(crate) fn new(path: &str, src: &str, pos: Pos, message: impl Into<String>) -> Self {
        let snippet = match pos.line {
            0 => String::new(),
            n => src.lines().nth(n - 1).unwrap_or_default().to_owned(),
        };
        LoadError {
            path: path.to_owned(),
            line: pos.line,
            column: pos.column,
            message: message.into(),
            snippet,
        }
    }

    fn from_node(path: &str, src: &str, fallback: Pos, prefix: &str, e: NodeError) -> Self {
        LoadError::new(
            path,
            src,
            e.pos.unwrap_or(fallback),
            format!("{prefix}{}", e.message),
        )
    }
}

/// How many characters of a long source line are shown each side of the column.
const SNIPPET_RADIUS: usize = 80;

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A contributed file may hold escape sequences and bidi controls
        // anywhere: its name, the message quoting it, the source line.
        let esc = rbv_report::text::terminal;
        write!(
            f,
            "{}:{}:{}: {}",
            esc(&self.path),
            self.line,
            self.column,
            esc(&self.message)
        )?;
        if !self.snippet.is_empty() {
            // Tabs stay tabs so that the caret lines up in a terminal.
            // Long lines are cropped around the column.
            let chars: Vec<char> = self.snippet.chars().collect();
            let caret = self.column.saturating_sub(1).min(chars.len());
            let start = caret.saturating_sub(SNIPPET_RADIUS);
            let end = (caret + SNIPPET_RADIUS).min(chars.len());
            let shown: String = chars[start..end]
                .iter()
                .map(|c| esc(c.encode_utf8(&mut [0; 4])))
                .collect();
            let lead = if start > 0 { "…" } else { "" };
            let tail = if end < chars.len() { "…" } else { "" };
            let pad: String = std::iter::once(lead)
                .filter(|l| !l.is_empty())
                .map(|_| ' ')
                .chain(chars[start..caret].iter().flat_map(|&c| {
                    let width = esc(c.encode_utf8(&mut [0; 4])).chars().count();
                    let pad = if c == '\t' { '\t' } else { ' ' };
                    std::iter::repeat_n(pad, width)
                }))
                .collect();
            write!(f, "\n    {lead}{shown}{tail}\n    {pad}^")?;
        }
        Ok(())
    }
}

impl std::error::Error for LoadError {}

/// Limits that make hostile YAML (alias bombs, deep nesting) fail fast:
/// case files are small and shallow.
fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = 48;
    budget.max_events = 500_000;
    budget.max_nodes = 200_000;
    budget.max_aliases = 5_000;
    budget.max_documents = 2_000;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits.max_total_replayed_events = 50_000;
    options.alias_limits.max_replay_stack_depth = 16;
    options.with_snippet = false;
    // YAML 1.2: `n`, `no`, `off` are words (a source note, a scope), not booleans.
    options.strict_booleans = true;
    options
}

/// Every non-empty YAML document of a file.
pub(crate) fn parse_yaml(path: &str, src: &str) -> Result<Vec<Node>, LoadError> {
    let mut docs =
        serde_saphyr::from_multiple_with_options::<Node>(src, yaml_options()).map_err(|e| {
            let pos = e.location().map_or(Pos::default(), |l| Pos {
                line: l.line() as usize,
                column: l.column() as usize,
            });
            let mut render = serde_saphyr::RenderOptions::default();
            render.snippets = serde_saphyr::SnippetMode::Off;
            let rendered = e.render_with_options(render);
            // The plain rendering ends in the position, which LoadError shows itself.
            let message = match rendered.find(" at line ") {
                Some(i) if pos.line > 0 => rendered[..i].to_owned(),
                _ => rendered,
            };
            LoadError::new(path, src, pos, message)
        })?;
    docs.iter_mut().for_each(|d| d.exact_numbers(src));
    Ok(docs)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseHead {
    id: String,
    #[serde(default)]
    title: Option<String>,
    requirements: Vec<String>,
    source: Source,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    profile: BTreeMap<String, Value>,
    #[serde(default)]
    needs: Vec<Capability>,
    #[serde(default)]
    #[allow(dead_code)]
    plugins: Option<IgnoredAny>,
    #[allow(dead_code)]
    steps: IgnoredAny,
}

/// Why a case id is not path-like.
fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("a case id is not empty")
    } else if id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a case id holds no whitespace")
    } else if id.split('/').any(str::is_empty) {
        Some("a case id is a path: no empty segment, no leading or trailing `/`")
    } else if id.starts_with(rbv_report::model::FINDING_PREFIX) {
        // A report tells a campaign's findings from cases by this area; a
        // case taking it would be judged as a finding.
        Some("the `fuzz/` area holds the fuzz campaign's findings: a case id cannot start with it")
    } else {
        None
    }
}

/// Builds one case from a case document (or an expanded table row).
fn build_case(
    catalogue: Option<&Catalogue>,
    ctx: &StepCtx,
    node: &Node,
    origin: Origin,
) -> Result<Case, NodeError> {
    let head: CaseHead = node.parse()?;
    let at = |key: &str| node.get(key).map_or(node.pos, |(_, v)| v.pos);
    if let Some(why) = id_problem(&head.id) {
        return Err(NodeError::at(at("id"), format!("`{}`: {why}", head.id)));
    }
    if head.requirements.is_empty() {
        return Err(NodeError::at(
            at("requirements"),
            "a case cites at least one requirement",
        ));
    }
    if let Some(why) = head.source.problem() {
        return Err(NodeError::at(at("source"), why));
    }
    // Without a readable catalogue, its own error says it all.
    for (key, value) in catalogue.map_or(&BTreeMap::new(), |_| &head.profile) {
        let checked = catalogue.map_or(Ok(()), |c| c.check_condition(key, value));
        if let Err(why) = checked {
            let pos = node
                .get("profile")
                .and_then(|(_, p)| p.get(key))
                .map_or(at("profile"), |(k, _)| k.pos);
            return Err(NodeError::at(pos, why));
        }
    }
    let plugins = match node.get("plugins") {
        Some((_, p)) => steps::plugin_specs(ctx, p)?,
        None => Vec::new(),
    };
    let steps = steps::steps(ctx, node.get("steps").expect("`steps` is required").1)?;
    let mut needs = steps::derived_needs(!plugins.is_empty(), &steps);
    needs.extend(head.needs);
    needs.extend(
        head.profile
            .keys()
            .filter_map(|key| catalogue.and_then(|c| c.profile(key))?.needs),
    );
    Ok(Case {
        id: head.id,
        title: head.title,
        requirements: head.requirements,
        source: head.source,
        tags: head.tags,
        reason: head.reason,
        profile_defaults: head
            .profile
            .keys()
            .filter_map(|k| Some((k.clone(), catalogue?.profile(k)?.default.clone())))
            .collect(),
        profile: head.profile,
        needs,
        plugins,
        steps,
        origin,
    })
}

/// Loads a case tree given as `(path relative to the cases root, contents)`.
/// All files are read and all errors collected.
pub fn load_files(files: &[(String, String)]) -> Result<Suite, Vec<LoadError>> {
    let mut errors = Vec::new();
    let mut parsed = Vec::new();
    // A catalogue or fixture with errors is reported once, not again by
    // every case that uses it.
    let mut catalogue_ok = true;
    let mut broken = BTreeSet::new();
    // Parsing is most of a load and each file is parsed on its own: in
    // parallel, collected in file order (BENCHMARKS.md, "Parallel corpus work").
    let results = crate::parallel::map(files, |(path, src)| parse_yaml(path, src));
    for ((path, src), result) in files.iter().zip(results) {
        match result {
            Ok(docs) => parsed.push((path.as_str(), src.as_str(), docs)),
            Err(e) => {
                catalogue_ok &= path != CATALOGUE;
                broken.extend(fixture_name(path).map(str::to_owned));
                errors.push(e);
            }
        }
    }

    let mut catalogue = Catalogue::default();
    let mut fixtures = BTreeMap::new();
    let mut grammars = BTreeMap::new();
    for (path, src, docs) in &parsed {
        if path.starts_with(crate::grammar::DIR) {
            match docs.as_slice() {
                [doc] => match doc.parse::<crate::grammar::Declared>() {
                    Ok(g) => {
                        for message in g.problems() {
                            errors.push(LoadError::new(path, src, doc.pos, message));
                        }
                        grammars.insert(g.grammar.clone(), g);
                    }
                    Err(e) => errors.push(LoadError::from_node(path, src, doc.pos, "", e)),
                },
                _ => errors.push(LoadError::new(
                    path,
                    src,
                    Pos { line: 1, column: 1 },
                    "a grammar file is exactly one document: a grammar's productions",
                )),
            }
        } else if *path == CATALOGUE {
            match docs.as_slice() {
                [] => {}
                [doc] => match doc.parse::<Catalogue>() {
                    Ok(c) => {
                        for (entry, message) in c.problems() {
                            errors.push(LoadError::new(path, src, entry_pos(doc, entry), message));
                        }
                        catalogue = c;
                    }
                    Err(e) => {
                        catalogue_ok = false;
                        errors.push(LoadError::from_node(path, src, doc.pos, "", e));
                    }
                },
                [_, second, ..] => errors.push(LoadError::new(
                    path,
                    src,
                    second.pos,
                    "the catalogue is one document",
                )),
            }
        } else if let Some(name) = fixture_name(path) {
            match docs.as_slice() {
                [doc] => match doc.parse::<PluginBundle>() {
                    Ok(bundle) => {
                        fixtures.insert(name.to_owned(), bundle);
                    }
                    Err(e) => {
                        broken.insert(name.to_owned());
                        errors.push(LoadError::from_node(path, src, doc.pos, "", e));
                    }
                },
                _ => errors.push(LoadError::new(
                    path,
                    src,
                    Pos { line: 1, column: 1 },
                    "a plugin fixture is exactly one document: a plugin bundle",
                )),
            }
        }
    }

    let ctx = StepCtx {
        fixtures: &fixtures,
        broken: &broken,
    };
    let catalogue_ref = catalogue_ok.then_some(&catalogue);
    let mut cases: Vec<Case> = Vec::new();
    let mut seen: BTreeMap<String, Origin> = BTreeMap::new();
    // Expanding and building each file's cases is independent of the other
    // files: in parallel, then the duplicate ids and the errors in file order.
    let case_files: Vec<_> = parsed
        .iter()
        .filter(|(path, _, _)| {
            *path != CATALOGUE
                && fixture_name(path).is_none()
                && !path.starts_with(crate::grammar::DIR)
        })
        .collect();
    let built = crate::parallel::map(&case_files, |(path, src, docs)| {
        (*path, *src, build_file(catalogue_ref, &ctx, path, docs))
    });
    for (path, src, results) in built {
        for result in results {
            match result {
                Ok(case) => match seen.get(&case.id) {
                    Some(first) => errors.push(LoadError::new(
                        path,
                        src,
                        Pos {
                            line: case.origin.line,
                            column: 1,
                        },
                        format!("duplicate case id `{}` (first defined at {first})", case.id),
                    )),
                    None => {
                        seen.insert(case.id.clone(), case.origin.clone());
                        cases.push(case);
                    }
                },
                Err((e, prefix, fallback)) => {
                    errors.push(LoadError::from_node(path, src, fallback, &prefix, e))
                }
            }
        }
    }

    if errors.is_empty() {
        cases.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(Suite {
            cases,
            catalogue,
            grammars,
        })
    } else {
        errors.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        Err(errors)
    }
}

/// A case, or why a document or a table row is not one (with the prefix
/// naming the row, and the position to fall back on).
type Built = Result<Case, (NodeError, String, Pos)>;

/// The cases of one case file's documents, in document and row order.
fn build_file(
    catalogue: Option<&Catalogue>,
    ctx: &StepCtx,
    path: &str,
    docs: &[Node],
) -> Vec<Built> {
    let mut built = Vec::new();
    for doc in docs {
        if doc.get("table").is_some() {
            match expand::expand(doc) {
                Ok(rows) => built.extend(rows.into_iter().map(|row| {
                    let origin = Origin {
                        file: path.to_owned(),
                        line: row.line,
                        row: Some(row.row),
                    };
                    build_case(catalogue, ctx, &row.node, origin)
                        .map_err(|e| (e, row.prefix, row.node.pos))
                })),
                Err(e) => built.push(Err((e, String::new(), doc.pos))),
            }
        } else if doc.get("id").is_some() {
            let origin = Origin {
                file: path.to_owned(),
                line: doc.pos.line,
                row: None,
            };
            built.push(
                build_case(catalogue, ctx, doc, origin).map_err(|e| (e, String::new(), doc.pos)),
            );
        } else {
            built.push(Err((
                NodeError::at(
                    doc.pos,
                    "a document is a case (with `id`) or a table (with `table`)",
                ),
                String::new(),
                doc.pos,
            )));
        }
    }
    built
}

fn fixture_name(path: &str) -> Option<&str> {
    let rest = path.strip_prefix(FIXTURES)?;
    rest.strip_suffix(".yaml")
        .or_else(|| rest.strip_suffix(".yml"))
        .filter(|n| !n.contains('/'))
}

fn entry_pos(doc: &Node, entry: Entry) -> Pos {
    let (key, index) = match entry {
        Entry::Requirement(i) => ("requirements", i),
        Entry::Profile(i) => ("profiles", i),
    };
    match doc.get(key).map(|(_, v)| &v.kind) {
        Some(super::node::Kind::Seq(items)) => items.get(index).map_or(doc.pos, |n| n.pos),
        _ => doc.pos,
    }
}

/// Adds a user's case files to a suite's (`rbv run --add-cases`): they
/// load with the suite's catalogue and plugin fixtures, and may bring
/// fixtures of their own. A file at a path the suite has, or a catalogue
/// of its own, is an error: neither may change the suite under the
/// user's cases. The merged files stay sorted by path.
pub fn add_files(
    suite: &mut Vec<(String, String)>,
    added: Vec<(String, String)>,
) -> Vec<LoadError> {
    let mut errors = Vec::new();
    let taken: BTreeSet<String> = suite.iter().map(|(p, _)| p.clone()).collect();
    for (path, src) in added {
        if path == CATALOGUE {
            errors.push(LoadError::new(
                &path,
                &src,
                Pos::default(),
                "added cases use the suite's catalogue; an added tree cannot bring its own",
            ));
        } else if taken.contains(&path) {
            errors.push(LoadError::new(
                &path,
                &src,
                Pos::default(),
                "the suite has a file at this path already; rename the added one",
            ));
        } else {
            suite.push((path, src));
        }
    }
    suite.sort_by(|a, b| a.0.cmp(&b.0));
    errors
}

/// Loads every `*.yaml` / `*.yml` under `root`, recursively (regular
/// files only, links not followed; see `files`).
pub fn load_dir(root: &Path) -> Result<Suite, Vec<LoadError>> {
    match load_readable(root) {
        Ok((suite, unread)) if unread.is_empty() => Ok(suite),
        Ok((_, unread)) => Err(unread),
        Err(errors) => Err(errors),
    }
}

/// Loads what of the tree under `root` can be read, with an error for
/// each entry that was not (a link, a loop, a FIFO, a file too large):
/// `rbv run` runs the rest and says what it left out. The files read
/// must load without error.
pub fn load_readable(root: &Path) -> Result<(Suite, Vec<LoadError>), Vec<LoadError>> {
    let (files, mut unread) = super::files::read_tree(root);
    match load_files(&files) {
        Ok(suite) => Ok((suite, unread)),
        Err(mut more) => {
            unread.append(&mut more);
            Err(unread)
        }
    }
}
