//! The YAML tree with positions: what a manifest file parses to before it is merged,
//! located and checked against the schema.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;

/// Where a node starts: 1-based line and column, and its length in characters as the parser
/// saw it (0 when unknown). Line 0 means the place is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Loc {
    pub(super) line: u32,
    pub(super) column: u32,
    pub(super) len: u32,
}

/// A value with the place it was written (where an alias was used, for an alias).
#[derive(Debug, PartialEq)]
pub(super) struct At<T> {
    pub(super) value: T,
    pub(super) loc: Loc,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for At<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Spanned::<T>::deserialize(d)?;
        let r = s.referenced;
        Ok(At {
            value: s.value,
            loc: Loc {
                line: r.line() as u32,
                column: r.column() as u32,
                len: r.span().len() as u32,
            },
        })
    }
}

/// A YAML node with positions, deserialised from a file's text.
#[derive(Debug, PartialEq)]
pub(super) enum Node {
    Map(Vec<(At<Key>, At<Node>)>),
    Seq(Vec<At<Node>>),
    Scalar(ScalarNode),
}

#[derive(Debug, PartialEq)]
pub(super) struct ScalarNode {
    pub(super) kind: Scalar,
    pub(super) len: usize,
}

#[derive(Debug, PartialEq)]
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
#[derive(Debug, PartialEq)]
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
        while let Some(item) = seq.next_element::<At<Node>>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<At<Key>>()? {
            let value = map.next_value::<At<Node>>()?;
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

/// The limits [`parse_fast`] keeps to: the loader's budget, which the full parser enforces.
pub(super) struct Limits {
    pub(super) max_depth: usize,
    pub(super) max_nodes: usize,
    pub(super) max_events: usize,
    pub(super) max_bytes: usize,
    pub(super) max_buffered_comments: usize,
}

/// Builds the tree straight from the YAML parser's events, for the common manifest: one
/// document, no anchors, aliases, tags or merge keys, keys that are distinct strings, plain
/// scalars that are text, `true`/`false`, null or small decimal integers, and well inside
/// the limits. Anything else (and every error) returns `None`, and the caller parses with
/// serde-saphyr, whose tree this equals wherever it answers: serde-saphyr's layer over the
/// same parser costs about as much again as the parser, for checks a manifest rarely needs.
pub(super) fn parse_fast(text: &str, limits: &Limits) -> Option<At<Node>> {
    use granit_parser::{Event, Parser, ScalarStyle};

    // Half of each limit: no input this accepts is near one, whatever the two count alike.
    if text.len() > limits.max_bytes / 2 {
        return None;
    }
    // The options serde-saphyr derives from the loader's budget, so the parser accepts and
    // refuses the same texts.
    let options = granit_parser::options! {
        simple_key_max_lookahead: 1024,
        flow_nesting_limit: limits.max_depth,
        block_nesting_limit: 255usize.max(limits.max_depth + 1),
        emit_comments: true,
        max_buffered_comment_events: limits.max_buffered_comments,
    };
    enum Open {
        Seq(Loc, Vec<At<Node>>),
        Map(Loc, Vec<(At<Key>, At<Node>)>, Option<At<Key>>),
    }
    let mut stack: Vec<Open> = Vec::new();
    let mut root: Option<At<Node>> = None;
    let (mut events, mut nodes, mut documents) = (0usize, 0usize, 0usize);
    for item in Parser::new_from_str_with_options(text, options) {
        let (event, span) = item.ok()?;
        events += 1;
        if events > limits.max_events / 2 {
            return None;
        }
        let loc = Loc {
            line: u32::try_from(span.start.line()).ok()?,
            column: u32::try_from(span.start.col() + 1).ok()?,
            len: u32::try_from(span.len()).ok()?,
        };
        let node = match event {
            Event::StreamStart | Event::StreamEnd | Event::Comment(..) => continue,
            Event::DocumentStart(_, version) => {
                documents += 1;
                if documents > 1 || version.is_some() {
                    return None;
                }
                continue;
            }
            // An explicit `...` may be followed by more; leave that to serde-saphyr.
            Event::DocumentEnd if span.is_empty() => continue,
            Event::SequenceStart(_, 0, None) | Event::MappingStart(_, 0, None) => {
                nodes += 1;
                if stack.len() >= limits.max_depth / 2 || nodes > limits.max_nodes / 2 {
                    return None;
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Seq(loc, Vec::new())
                } else {
                    Open::Map(loc, Vec::new(), None)
                });
                continue;
            }
            Event::SequenceEnd => match stack.pop()? {
                Open::Seq(loc, items) => At {
                    value: Node::Seq(items),
                    loc,
                },
                Open::Map(..) => return None,
            },
            Event::MappingEnd => match stack.pop()? {
                Open::Map(loc, entries, None) => At {
                    value: Node::Map(entries),
                    loc,
                },
                _ => return None,
            },
            Event::Scalar(value, style, 0, None) => {
                nodes += 1;
                if nodes > limits.max_nodes / 2 {
                    return None;
                }
                let kind = match style {
                    ScalarStyle::Plain => plain_scalar(&value)?,
                    _ => Scalar::Str(value.into_owned()),
                };
                At {
                    value: Node::Scalar(ScalarNode::new(kind)),
                    loc,
                }
            }
            _ => return None,
        };
        match stack.last_mut() {
            None if root.is_none() => root = Some(node),
            None => return None,
            Some(Open::Seq(_, items)) => items.push(node),
            Some(Open::Map(_, entries, pending @ None)) => {
                let Node::Scalar(ScalarNode {
                    kind: Scalar::Str(key),
                    ..
                }) = node.value
                else {
                    return None;
                };
                // `<<` merges; a repeated key is an error. A manifest's mappings are small, and
                // a larger one is left to serde-saphyr rather than searched here.
                if key == "<<"
                    || entries.len() >= 64
                    || entries.iter().any(|(k, _)| k.value.0 == key)
                {
                    return None;
                }
                *pending = Some(At {
                    value: Key(key),
                    loc: node.loc,
                });
            }
            Some(Open::Map(_, entries, pending)) => {
                let key = pending.take()?;
                entries.push((key, node));
            }
        }
    }
    if !stack.is_empty() || documents != 1 {
        return None;
    }
    root
}

/// What serde-saphyr makes of a plain scalar in an untyped place (YAML 1.2 core schema, strict
/// booleans), for the forms a manifest uses; `None` for the rest (floats, other radixes,
/// numbers out of 64 bits, text that starts like a number), which it resolves itself.
fn plain_scalar(text: &str) -> Option<Scalar> {
    if text.is_empty() || text == "~" || text.eq_ignore_ascii_case("null") {
        return Some(Scalar::Null);
    }
    if text.eq_ignore_ascii_case("true") {
        return Some(Scalar::Bool(true));
    }
    if text.eq_ignore_ascii_case("false") {
        return Some(Scalar::Bool(false));
    }
    let first = text.as_bytes()[0];
    let last = text.as_bytes()[text.len() - 1];
    if matches!(first, b' ' | b'\t' | b'\r' | b'\n') || matches!(last, b' ' | b'\t' | b'\r' | b'\n')
    {
        return None;
    }
    if !(first.is_ascii_digit() || matches!(first, b'-' | b'+' | b'.')) {
        return Some(Scalar::Str(text.to_owned()));
    }
    // Decimal integers without a sign or leading zero, of at most 18 digits (they fit).
    let digits = text.as_bytes();
    if digits.len() <= 18
        && digits.iter().all(u8::is_ascii_digit)
        && (first != b'0' || digits.len() == 1)
    {
        return text.parse::<i64>().ok().map(|n| Scalar::Int(n.into()));
    }
    // Plain decimals (`0.8`, as an export writes a volume): digits, a point, digits, no sign,
    // exponent or leading zero, at most 15 digits (exact in an f64); anything else is left to
    // serde-saphyr.
    if let Some((whole, fraction)) = text.split_once('.')
        && !whole.is_empty()
        && !fraction.is_empty()
        && whole.len() + fraction.len() <= 15
        && (whole == "0" || !whole.starts_with('0'))
        && whole
            .bytes()
            .chain(fraction.bytes())
            .all(|b| b.is_ascii_digit())
    {
        return text.parse::<f64>().ok().map(Scalar::Float);
    }
    None
}
