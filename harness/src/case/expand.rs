//! Tables: one case per row, by substituting `${name}` placeholders in the
//! table's case fields and template. A whole-scalar placeholder takes the
//! row value with its type (and its position, so that a bad value is
//! reported where it is written); a placeholder inside a longer string is
//! interpolated.

use super::node::{Kind, Node, NodeError, Pos};
use std::collections::{BTreeMap, BTreeSet};

/// One expanded row: a case document ready to be built.
pub(crate) struct Row {
    pub node: Node,
    /// 1-based row number.
    pub row: usize,
    /// The row's line.
    pub line: usize,
    /// `table `ID` row N: `, put before every error about this row.
    pub prefix: String,
}

const TABLE_KEYS: &[&str] = &["id", "requirements", "source", "tags", "template", "rows"];
/// A bound on template nodes × rows, far above any real table.
const MAX_EXPANDED_NODES: usize = 500_000;
/// A bound on the bytes of strings a table expands to: a long value
/// interpolated into many fields of many rows is small in nodes but not
/// in memory.
const MAX_EXPANDED_BYTES: usize = 32 << 20;

/// What a table's expansion may still spend.
pub(crate) struct Budget {
    nodes: usize,
    bytes: usize,
}

impl Budget {
    fn new() -> Self {
        Budget {
            nodes: MAX_EXPANDED_NODES,
            bytes: MAX_EXPANDED_BYTES,
        }
    }

    fn spend(&mut self, pos: Pos, nodes: usize, bytes: usize) -> Result<(), NodeError> {
        self.nodes = self.nodes.checked_sub(nodes).ok_or_else(|| {
            NodeError::at(
                pos,
                format!("the table expands to more than {MAX_EXPANDED_NODES} YAML nodes"),
            )
        })?;
        self.bytes = self.bytes.checked_sub(bytes).ok_or_else(|| {
            NodeError::at(
                pos,
                format!("the table expands to more than {MAX_EXPANDED_BYTES} bytes of text"),
            )
        })?;
        Ok(())
    }
}

/// The bytes of text (strings and keys) in `node`.
fn text_bytes(node: &Node) -> usize {
    match &node.kind {
        Kind::Str(s) => s.len(),
        Kind::Seq(items) => items.iter().map(text_bytes).sum(),
        Kind::Map(entries) => entries
            .iter()
            .map(|(k, v)| k.as_str().map_or(0, str::len) + text_bytes(v))
            .sum(),
        _ => 8,
    }
}

fn size(node: &Node) -> usize {
    1 + match &node.kind {
        Kind::Seq(items) => items.iter().map(size).sum(),
        Kind::Map(entries) => entries.iter().map(|(_, v)| 1 + size(v)).sum(),
        _ => 0,
    }
}

const ROW_EXTRAS: &[&str] = &["_tags", "_requirements", "_title", "_reason"];

pub(crate) fn expand(doc: &Node) -> Result<Vec<Row>, NodeError> {
    let top = doc.as_map().expect("a table document is a map");
    if let Some((k, _)) = top.iter().find(|(k, _)| k.as_str() != Some("table")) {
        return Err(NodeError::at(k.pos, "a table document holds only `table`"));
    }
    let table = doc.get("table").expect("checked by the caller").1;
    let Some(fields) = table.as_map() else {
        return Err(NodeError::at(table.pos, "`table` is a map"));
    };
    for (k, _) in fields {
        let key = k.as_str().unwrap_or_default();
        if !TABLE_KEYS.contains(&key) {
            return Err(NodeError::at(
                k.pos,
                format!(
                    "unknown key `{key}` in a table (expected one of: {})",
                    TABLE_KEYS.join(", ")
                ),
            ));
        }
    }
    for required in ["id", "requirements", "source", "template", "rows"] {
        if table.get(required).is_none() {
            return Err(NodeError::at(
                table.pos,
                format!("a table lacks `{required}`"),
            ));
        }
    }
    let id_text = table.get("id").and_then(|(_, v)| v.as_str()).unwrap_or("?");
    let template = table.get("template").expect("checked").1;
    let Some(template_fields) = template.as_map() else {
        return Err(NodeError::at(
            template.pos,
            "`template` is a map (a case without id/requirements/source/tags)",
        ));
    };
    if let Some((k, _)) = template_fields
        .iter()
        .find(|(k, _)| matches!(k.as_str(), Some("id" | "requirements" | "source" | "tags")))
    {
        return Err(NodeError::at(
            k.pos,
            format!(
                "`{}` belongs to the table, not its template",
                k.as_str().unwrap_or_default()
            ),
        ));
    }
    // The case each row instantiates: the table's case fields, then the template's.
    let mut case: Vec<(Node, Node)> = fields
        .iter()
        .filter(|(k, _)| !matches!(k.as_str(), Some("template" | "rows")))
        .cloned()
        .collect();
    case.extend(template_fields.iter().cloned());
    let case = Node::new(table.pos, Kind::Map(case));

    let rows_node = table.get("rows").expect("checked").1;
    let Kind::Seq(rows) = &rows_node.kind else {
        return Err(NodeError::at(rows_node.pos, "`rows` is a list of maps"));
    };
    if rows.is_empty() {
        return Err(NodeError::at(rows_node.pos, "a table has at least one row"));
    }
    // Rows times template (times row values) is the one product a small
    // file can make huge.
    let mut budget = Budget::new();
    let mut out = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let prefix = format!("table `{id_text}` row {}: ", i + 1);
        let with_prefix = |mut e: NodeError| {
            e.message = format!("{prefix}{}", e.message);
            e
        };
        let node = instantiate(&case, row, &mut budget).map_err(with_prefix)?;
        out.push(Row {
            node,
            row: i + 1,
            line: row.pos.line,
            prefix,
        });
    }
    Ok(out)
}

fn instantiate(case: &Node, row: &Node, budget: &mut Budget) -> Result<Node, NodeError> {
    let Some(entries) = row.as_map() else {
        return Err(NodeError::at(
            row.pos,
            format!("a row is a map, not {}", row.describe()),
        ));
    };
    let mut vars = BTreeMap::new();
    let mut extras = BTreeMap::new();
    for (k, v) in entries {
        let key = k.as_str().unwrap_or_default();
        if key.starts_with('_') {
            if !ROW_EXTRAS.contains(&key) {
                return Err(NodeError::at(
                    k.pos,
                    format!(
                        "unknown row key `{key}` (expected one of: {})",
                        ROW_EXTRAS.join(", ")
                    ),
                ));
            }
            extras.insert(key, v);
        } else {
            vars.insert(key, v);
        }
    }
    let mut used = BTreeSet::new();
    let mut node = substitute(case, &vars, &mut used, budget)?;
    for (k, _) in entries {
        let key = k.as_str().unwrap_or_default();
        if vars.contains_key(key) && !used.contains(key) {
            return Err(NodeError::at(
                k.pos,
                format!("row variable `{key}` is used by no placeholder"),
            ));
        }
    }
    let Kind::Map(fields) = &mut node.kind else {
        unreachable!("the case is a map")
    };
    for (extra, key) in [("_tags", "tags"), ("_requirements", "requirements")] {
        if let Some(value) = extras.get(extra) {
            let Kind::Seq(more) = &value.kind else {
                return Err(NodeError::at(value.pos, format!("`{extra}` is a list")));
            };
            match fields.iter_mut().find(|(k, _)| k.as_str() == Some(key)) {
                Some((
                    _,
                    Node {
                        kind: Kind::Seq(items),
                        ..
                    },
                )) => {
                    // A row may repeat what the template lists; once is enough.
                    for item in more {
                        if !items.iter().any(|i| i.kind == item.kind) {
                            items.push(item.clone());
                        }
                    }
                }
                Some((_, other)) => {
                    return Err(NodeError::at(other.pos, format!("`{key}` is a list")));
                }
                None => fields.push((
                    Node::new(value.pos, Kind::Str(key.into())),
                    (*value).clone(),
                )),
            }
        }
    }
    for (extra, key) in [("_title", "title"), ("_reason", "reason")] {
        if let Some(value) = extras.get(extra) {
            fields.retain(|(k, _)| k.as_str() != Some(key));
            fields.push((
                Node::new(value.pos, Kind::Str(key.into())),
                (*value).clone(),
            ));
        }
    }
    Ok(node)
}

fn substitute(
    node: &Node,
    vars: &BTreeMap<&str, &Node>,
    used: &mut BTreeSet<String>,
    budget: &mut Budget,
) -> Result<Node, NodeError> {
    match node
        .as_str()
        .and_then(whole)
        .and_then(|name| vars.get(name))
    {
        Some(value) => budget.spend(node.pos, size(value), text_bytes(value))?,
        None => budget.spend(node.pos, 1, 0)?,
    }
    Ok(match &node.kind {
        Kind::Str(s) => {
            if let Some(name) = whole(s) {
                let value = vars.get(name).ok_or_else(|| undefined(node.pos, name))?;
                used.insert(name.to_owned());
                (*value).clone()
            } else {
                let text = interpolate(node.pos, s, vars, used)?;
                budget.spend(node.pos, 0, text.len())?;
                Node::new(node.pos, Kind::Str(text))
            }
        }
        Kind::Seq(items) => Node::new(
            node.pos,
            Kind::Seq(
                items
                    .iter()
                    .map(|n| substitute(n, vars, used, budget))
                    .collect::<Result<_, _>>()?,
            ),
        ),
        Kind::Map(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                let key = interpolate(k.pos, k.as_str().unwrap_or_default(), vars, used)?;
                budget.spend(k.pos, 0, key.len())?;
                out.push((
                    Node::new(k.pos, Kind::Str(key)),
                    substitute(v, vars, used, budget)?,
                ));
            }
            Node::new(node.pos, Kind::Map(out))
        }
        _ => node.clone(),
    })
}

fn undefined(pos: Pos, name: &str) -> NodeError {
    NodeError::at(
        pos,
        format!("undefined variable `{name}` (the row does not set it)"),
    )
}

/// `Some(name)` when the whole scalar is one placeholder.
fn whole(s: &str) -> Option<&str> {
    let name = s.strip_prefix("${")?.strip_suffix('}')?;
    (!name.contains(['{', '}', '$'])).then_some(name)
}

fn interpolate(
    pos: Pos,
    s: &str,
    vars: &BTreeMap<&str, &Node>,
    used: &mut BTreeSet<String>,
) -> Result<String, NodeError> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(NodeError::at(
                pos,
                format!("unterminated placeholder in `{s}`"),
            ));
        };
        let name = &after[..end];
        let value = vars.get(name).ok_or_else(|| undefined(pos, name))?;
        let text = value.scalar_text().ok_or_else(|| {
            NodeError::at(
                value.pos,
                format!(
                    "`{name}` is {} and cannot be interpolated into `{s}`",
                    value.describe()
                ),
            )
        })?;
        used.insert(name.to_owned());
        out.push_str(&text);
        if out.len() > MAX_EXPANDED_BYTES {
            return Err(NodeError::at(
                pos,
                format!("a string interpolates to more than {MAX_EXPANDED_BYTES} bytes"),
            ));
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(src: &str) -> Node {
        serde_saphyr::from_str(src).unwrap()
    }

    #[test]
    fn whole_placeholders_keep_types_and_strings_interpolate() {
        let d = doc(concat!(
            "table:\n  id: \"t/${n}-${b}\"\n  requirements: [R]\n  source: {note: x}\n",
            "  template:\n    steps: [{x: \"${n}\", y: \"${b}\"}]\n",
            "  rows:\n    - {n: 3, b: true, _tags: [z]}\n"
        ));
        let rows = expand(&d).unwrap();
        let n = &rows[0].node;
        assert_eq!(n.get("id").unwrap().1.as_str(), Some("t/3-true"));
        let Kind::Seq(steps) = &n.get("steps").unwrap().1.kind else {
            panic!()
        };
        assert_eq!(steps[0].get("x").unwrap().1.kind, Kind::UInt(3));
        assert_eq!(steps[0].get("y").unwrap().1.kind, Kind::Bool(true));
        assert_eq!(n.get("tags").unwrap().1.to_json(), serde_json::json!(["z"]));
    }

    #[test]
    fn undefined_and_unused_variables_are_errors() {
        let base = "table:\n  id: t\n  requirements: [R]\n  source: {note: x}\n  template: {steps: [{x: \"${a}\"}]}\n";
        let e = expand(&doc(&format!("{base}  rows:\n    - {{b: 1}}\n")))
            .err()
            .unwrap();
        assert!(
            e.message.contains("row 1") && e.message.contains("undefined variable `a`"),
            "{e:?}"
        );
        assert_eq!(
            e.pos,
            Some(Pos {
                line: 5,
                column: 26
            })
        );
        let e = expand(&doc(&format!("{base}  rows:\n    - {{a: 1, c: 2}}\n")))
            .err()
            .unwrap();
        assert!(e.message.contains("`c` is used by no placeholder"), "{e:?}");
        assert_eq!(
            e.pos,
            Some(Pos {
                line: 7,
                column: 14
            })
        );
    }

    #[test]
    fn expansion_is_bounded() {
        let placeholders = vec!["\"${x}\""; 1_000].join(", ");
        let items = vec!["1"; 1_000].join(", ");
        let src = format!(
            "table:\n  id: t\n  requirements: [R]\n  source: {{note: x}}\n  template: {{steps: [{placeholders}]}}\n  rows:\n    - {{x: [{items}]}}\n"
        );
        let e = expand(&doc(&src)).err().unwrap();
        assert!(e.message.contains("expands to more than"), "{e:?}");
    }
}
