//! The YAML tree with positions: what a manifest file parses to before it is merged,
//! located and checked against the schema.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

/// A YAML node with positions, deserialised from a file's text.
#[derive(Debug)]
pub(super) enum Node {
    Map(Vec<(Spanned<Key>, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Scalar(ScalarNode),
}

#[derive(Debug)]
pub(super) struct ScalarNode {
    pub(super) kind: Scalar,
    pub(super) len: usize,
}

#[derive(Debug)]
pub(super) enum Scalar {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
}

impl ScalarNode {
    fn new(kind: Scalar) -> Self {
        let len = match &kind {
            Scalar::Null => 1,
            Scalar::Bool(b) => b.to_string().len(),
            Scalar::Int(n) => n.to_string().len(),
            Scalar::Float(f) => f.to_string().len(),
            Scalar::Str(s) => s.lines().next().unwrap_or("").chars().count(),
        };
        ScalarNode { kind, len }
    }
}

impl Scalar {
    pub(super) fn display(&self) -> String {
        match self {
            Scalar::Null => "null".into(),
            Scalar::Bool(b) => b.to_string(),
            Scalar::Int(n) => n.to_string(),
            Scalar::Float(f) => f.to_string(),
            Scalar::Str(s) => format!("\"{s}\""),
        }
    }
}

/// A mapping key, as text whatever its YAML type.
#[derive(Debug)]
pub(super) struct Key(pub(super) String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let node = d.deserialize_any(NodeVisitor)?;
        Ok(Key(match node {
            Node::Scalar(ScalarNode {
                kind: Scalar::Str(s),
                ..
            }) => s,
            Node::Scalar(s) => s.kind.display(),
            _ => "<complex key>".into(),
        }))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML node")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Bool(v))))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Int(v.into()))))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Int(v.into()))))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Int(v))))
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(match i128::try_from(v) {
            Ok(n) => Scalar::Int(n),
            Err(_) => Scalar::Str(v.to_string()),
        })))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Float(v))))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Str(v.to_owned()))))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Str(v))))
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Str(
            String::from_utf8_lossy(v).into_owned(),
        ))))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Null)))
    }
    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Scalar(ScalarNode::new(Scalar::Null)))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Node, D::Error> {
        d.deserialize_any(NodeVisitor)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<Key>>()? {
            let value = map.next_value::<Spanned<Node>>()?;
            entries.push((key, value));
        }
        Ok(Node::Map(entries))
    }
}

/// A YAML node as JSON: integers that fit 64 bits stay integers, larger ones become floats.
pub(super) fn to_json(node: &Node) -> Value {
    match node {
        Node::Map(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| (k.value.0.clone(), to_json(&v.value)))
                .collect(),
        ),
        Node::Seq(items) => Value::Array(items.iter().map(|i| to_json(&i.value)).collect()),
        Node::Scalar(s) => match &s.kind {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(*b),
            Scalar::Int(n) => {
                if let Ok(u) = u64::try_from(*n) {
                    Value::from(u)
                } else if let Ok(i) = i64::try_from(*n) {
                    Value::from(i)
                } else {
                    serde_json::Number::from_f64(*n as f64).map_or(Value::Null, Value::Number)
                }
            }
            Scalar::Float(f) => serde_json::Number::from_f64(*f)
                .map_or_else(|| Value::String(f.to_string()), Value::Number),
            Scalar::Str(s) => Value::String(s.clone()),
        },
    }
}
