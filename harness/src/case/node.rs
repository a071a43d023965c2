//! A YAML document as a tree of positioned nodes, and a serde `Deserializer`
//! over it that stamps every error with the position of the innermost node
//! it arose in.
//!
//! Why a tree instead of deserializing the model straight from YAML: tables
//! substitute row values into a template before it is typed, and a row value
//! keeps its own position through the substitution, so an error in an
//! expanded case still points at the line that caused it.

use serde::de::{
    self, value::StrDeserializer, DeserializeSeed, Deserializer, EnumAccess, Error as _,
    IntoDeserializer, MapAccess, SeqAccess, VariantAccess, Visitor,
};
use serde::Deserialize;
use std::fmt;

/// A 1-based line and column in a YAML file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub kind: Kind,
    /// Byte offset and length of a float scalar in its source, so that
    /// `exact_numbers` can recover digits an `f64` cannot hold.
    pub span: Option<(usize, usize)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    /// A number as written, kept for digits an `f64` would lose
    /// (`18446744073709551617`, `0.10000000000000001`).
    Number(String),
    Str(String),
    Seq(Vec<Node>),
    /// Keys are always `Kind::Str` (see `Key`); order is the document's.
    Map(Vec<(Node, Node)>),
}

impl Node {
    pub fn new(pos: Pos, kind: Kind) -> Self {
        Node {
            pos,
            kind,
            span: None,
        }
    }

    /// Replaces every float scalar by its source text when that text is a
    /// JSON number, so that argument data keeps every digit.
    pub fn exact_numbers(&mut self, src: &str) {
        match &mut self.kind {
            Kind::Float(_) => {
                let text = self.span.and_then(|(at, len)| src.get(at..at + len));
                if let Some(text) = text.filter(|t| t.parse::<serde_json::Number>().is_ok()) {
                    self.kind = Kind::Number(text.to_owned());
                }
            }
            Kind::Seq(items) => items.iter_mut().for_each(|n| n.exact_numbers(src)),
            Kind::Map(entries) => entries.iter_mut().for_each(|(_, v)| v.exact_numbers(src)),
            _ => {}
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            Kind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.kind {
            Kind::Map(m) => Some(m),
            _ => None,
        }
    }

    /// The entry of a map node with this key.
    pub fn get(&self, key: &str) -> Option<(&Node, &Node)> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(k, v)| (k, v))
    }

    /// A word for messages: "a map", "a string", ...
    pub fn describe(&self) -> &'static str {
        match self.kind {
            Kind::Null => "null",
            Kind::Bool(_) => "a boolean",
            Kind::Int(_) | Kind::UInt(_) | Kind::Float(_) | Kind::Number(_) => "a number",
            Kind::Str(_) => "a string",
            Kind::Seq(_) => "a list",
            Kind::Map(_) => "a map",
        }
    }

    /// The scalar as text (for interpolation), `None` for null and collections.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.kind {
            Kind::Bool(b) => Some(b.to_string()),
            Kind::Int(i) => Some(i.to_string()),
            Kind::UInt(u) => Some(u.to_string()),
            Kind::Float(f) => Some(f.to_string()),
            Kind::Number(n) => Some(n.clone()),
            Kind::Str(s) => Some(s.clone()),
            Kind::Null | Kind::Seq(_) | Kind::Map(_) => None,
        }
    }

    /// Deserializes a typed value from this node.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, NodeError> {
        T::deserialize(NodeDe(self))
    }

    /// This node as JSON (positions dropped).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            Kind::Null => Value::Null,
            Kind::Bool(b) => Value::Bool(*b),
            Kind::Int(i) => Value::from(*i),
            Kind::UInt(u) => Value::from(*u),
            Kind::Float(f) => serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Kind::Number(n) => n.parse().map_or(Value::Null, Value::Number),
            Kind::Str(s) => Value::String(s.clone()),
            Kind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            Kind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.as_str().unwrap_or_default().to_owned(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

fn pos_of(location: serde_saphyr::Location) -> Pos {
    Pos {
        line: location.line() as usize,
        column: location.column() as usize,
    }
}

// ---------------------------------------------------------------- from YAML

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<Kind>::deserialize(d)?;
        let span = spanned.referenced.span();
        let span = match (span.byte_offset(), span.byte_len()) {
            (Some(at), Some(len)) => Some((at as usize, len as usize)),
            _ => None,
        };
        Ok(Node {
            pos: pos_of(spanned.referenced),
            kind: spanned.value,
            span,
        })
    }
}

/// A map key: YAML allows any scalar as a key; the case format reads them
/// all as text.
struct Key(Node);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<String>::deserialize(d)?;
        Ok(Key(Node::new(
            pos_of(spanned.referenced),
            Kind::Str(spanned.value),
        )))
    }
}

impl<'de> Deserialize<'de> for Kind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(KindVisitor)
    }
}

struct KindVisitor;

impl<'de> Visitor<'de> for KindVisitor {
    type Value = Kind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Kind, E> {
        Ok(Kind::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Kind, E> {
        Ok(Kind::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Kind, E> {
        Ok(Kind::UInt(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Kind, E> {
        Ok(Kind::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Kind, E> {
        Ok(Kind::Str(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Kind, E> {
        Ok(Kind::Str(v))
    }
    fn visit_unit<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_none<E>(self) -> Result<Kind, E> {
        Ok(Kind::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Kind, D::Error> {
        Kind::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Kind, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Kind::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Kind, A::Error> {
        let mut entries = Vec::new();
        while let Some(Key(key)) = map.next_key::<Key>()? {
            let value = map.next_value::<Node>()?;
            entries.push((key, value));
        }
        Ok(Kind::Map(entries))
    }
}

// ---------------------------------------------------------------- to types

/// A deserialization error with the position of the node it arose in.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeError {
    pub pos: Option<Pos>,
    pub message: String,
}

impl NodeError {
    pub fn at(pos: Pos, message: impl Into<String>) -> Self {
        NodeError {
            pos: Some(pos),
            message: message.into(),
        }
    }
}

impl fmt::Display for NodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for NodeError {}

impl de::Error for NodeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        NodeError {
            pos: None,
            message: msg.to_string(),
        }
    }
}

/// Errors bubble from the innermost node outwards; the first node to see a
/// position-less error is the one it arose in.
fn stamp<T>(pos: Pos, result: Result<T, NodeError>) -> Result<T, NodeError> {
    result.map_err(|mut e| {
        e.pos.get_or_insert(pos);
        e
    })
}

/// Numeric targets read an exact `Number` as the nearest f64, so that a
/// primitive field gets a primitive (and its usual range error).
macro_rules! number {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
            match &self.0.kind {
                Kind::Number(n) => match n.parse::<f64>() {
                    Ok(f) => stamp(self.0.pos, v.visit_f64(f)),
                    Err(e) => Err(NodeError::at(self.0.pos, e.to_string())),
                },
                _ => self.deserialize_any(v),
            }
        }
    )*};
}

#[derive(Clone, Copy)]
pub struct NodeDe<'a>(pub &'a Node);

impl<'de, 'a> Deserializer<'de> for NodeDe<'a> {
    type Error = NodeError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        let node = self.0;
        let result = match &node.kind {
            Kind::Null => v.visit_unit(),
            Kind::Bool(b) => v.visit_bool(*b),
            Kind::Int(i) => v.visit_i64(*i),
            Kind::UInt(u) => v.visit_u64(*u),
            Kind::Float(f) => v.visit_f64(*f),
            // serde_json's arbitrary-precision `Number` hands its digits on
            // to a `Value`; other targets get the nearest f64 (see `number!`).
            Kind::Number(n) => match n.parse::<serde_json::Number>() {
                Ok(number) => number.deserialize_any(v).map_err(NodeError::custom),
                Err(e) => Err(NodeError::custom(e)),
            },
            Kind::Str(s) => v.visit_str(s),
            Kind::Seq(items) => v.visit_seq(Seq {
                items: items.iter(),
            }),
            Kind::Map(entries) => v.visit_map(Map {
                entries: entries.iter(),
                value: None,
            }),
        };
        stamp(node.pos, result)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, NodeError> {
        match self.0.kind {
            Kind::Null => stamp(self.0.pos, v.visit_none()),
            _ => stamp(self.0.pos, v.visit_some(self)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, NodeError> {
        stamp(self.0.pos, v.visit_newtype_struct(self))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, NodeError> {
        let node = self.0;
        let result = match &node.kind {
            Kind::Str(s) => v.visit_enum(Unit(s.as_str().into_deserializer())),
            Kind::Map(entries) if entries.len() == 1 => v.visit_enum(Variant {
                key: &entries[0].0,
                value: &entries[0].1,
            }),
            _ => Err(NodeError::custom(format!(
                "expected a name or a map with one key, found {}",
                node.describe()
            ))),
        };
        stamp(node.pos, result)
    }

    number! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    serde::forward_to_deserialize_any! {
        bool char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct identifier ignored_any
    }
}

struct Seq<'a> {
    items: std::slice::Iter<'a, Node>,
}

impl<'de, 'a> SeqAccess<'de> for Seq<'a> {
    type Error = NodeError;
    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, NodeError> {
        self.items
            .next()
            .map(|n| seed.deserialize(NodeDe(n)))
            .transpose()
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Map<'a> {
    entries: std::slice::Iter<'a, (Node, Node)>,
    value: Option<&'a Node>,
}

impl<'de, 'a> MapAccess<'de> for Map<'a> {
    type Error = NodeError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, NodeError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(NodeDe(key)).map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, NodeError> {
        let value = self.value.take().expect("next_value after next_key");
        seed.deserialize(NodeDe(value))
    }
    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

struct Unit<'a>(StrDeserializer<'a, NodeError>);

impl<'de, 'a> EnumAccess<'de> for Unit<'a> {
    type Error = NodeError;
    type Variant = UnitOnly;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, UnitOnly), NodeError> {
        seed.deserialize(self.0).map(|v| (v, UnitOnly))
    }
}

struct UnitOnly;

impl<'de> VariantAccess<'de> for UnitOnly {
    type Error = NodeError;
    fn unit_variant(self) -> Result<(), NodeError> {
        Ok(())
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, _: T) -> Result<T::Value, NodeError> {
        Err(NodeError::custom("expected a map with the variant's value"))
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, _: V) -> Result<V::Value, NodeError> {
        Err(NodeError::custom("expected a map with the variant's value"))
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, NodeError> {
        Err(NodeError::custom("expected a map with the variant's value"))
    }
}

struct Variant<'a> {
    key: &'a Node,
    value: &'a Node,
}

impl<'de, 'a> EnumAccess<'de> for Variant<'a> {
    type Error = NodeError;
    type Variant = NodeDe<'a>;
    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, NodeDe<'a>), NodeError> {
        let v = stamp(self.key.pos, seed.deserialize(NodeDe(self.key)))?;
        Ok((v, NodeDe(self.value)))
    }
}

impl<'de, 'a> VariantAccess<'de> for NodeDe<'a> {
    type Error = NodeError;
    fn unit_variant(self) -> Result<(), NodeError> {
        match self.0.kind {
            Kind::Null => Ok(()),
            _ => Err(NodeError::at(self.0.pos, "this variant takes no value")),
        }
    }
    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, NodeError> {
        seed.deserialize(self)
    }
    fn tuple_variant<V: Visitor<'de>>(self, _: usize, v: V) -> Result<V::Value, NodeError> {
        self.deserialize_any(v)
    }
    fn struct_variant<V: Visitor<'de>>(
        self,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, NodeError> {
        self.deserialize_any(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rbv_protocol::{Band, Operation};

    fn doc(src: &str) -> Node {
        serde_saphyr::from_str(src).unwrap()
    }

    #[test]
    fn nodes_keep_positions_and_scalar_types() {
        let n = doc("a: 1\nb:\n  - x\n  - \"2\"\n  - true\n");
        let (k, v) = n.get("b").unwrap();
        assert_eq!(k.pos, Pos { line: 2, column: 1 });
        let Kind::Seq(items) = &v.kind else {
            panic!("{v:?}")
        };
        assert_eq!(items[1].pos, Pos { line: 4, column: 5 });
        assert_eq!(items[1].kind, Kind::Str("2".into()));
        assert_eq!(items[2].kind, Kind::Bool(true));
        assert_eq!(n.get("a").unwrap().1.kind, Kind::UInt(1));
    }

    #[test]
    fn numbers_keep_every_digit() {
        let src = "a: 18446744073709551617\nb: 0.10000000000000001\nc: 2.5\n";
        let mut n = doc(src);
        n.exact_numbers(src);
        let v: serde_json::Value = n.parse().unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"a":18446744073709551617,"b":0.10000000000000001,"c":2.5}"#
        );
        assert_eq!(n.get("c").unwrap().1.parse::<f64>(), Ok(2.5));
    }

    #[test]
    fn typed_errors_point_at_the_innermost_node() {
        let n = doc("id: mcp:a/b\nkind: sql\nextra: 1\n");
        let e = n.parse::<Operation>().unwrap_err();
        assert_eq!(e.pos, Some(Pos { line: 3, column: 1 }), "{e:?}");
        assert!(e.message.contains("extra"), "{e:?}");
        let n = doc("x: [auto, Escalate]\n");
        let e = n.get("x").unwrap().1.parse::<Vec<Band>>().unwrap_err();
        assert_eq!(
            e.pos,
            Some(Pos {
                line: 1,
                column: 11
            }),
            "{e:?}"
        );
    }
}
