//! Reading a manifest file: YAML 1.2 parsing into [`Manifest`], the version gate, and a
//! [`SourceMap`] from node paths (`roles[2].name`) to line and column for diagnostics.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::diagnostic::{Diagnostic, Severity};
use super::types::Manifest;

/// The only manifest format version.
pub const MANIFEST_VERSION: u32 = 1;

/// A parsed manifest with its source text and node locations.
#[derive(Debug, Clone)]
pub struct LoadedManifest {
    pub path: PathBuf,
    pub source: String,
    pub manifest: Manifest,
    pub locations: SourceMap,
}

impl LoadedManifest {
    /// The folder the manifest is in: files it names (webhook avatars) are relative to it.
    /// `.` for a manifest path without a folder.
    pub fn dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The manifest's YAML as JSON (same YAML 1.2 rules as the typed parse), for
    /// [`super::validate_against_schema`]. `None` if it does not convert (it parsed once, so
    /// that is unexpected).
    pub fn json_value(&self) -> Option<serde_json::Value> {
        serde_saphyr::from_str_with_options(&self.source, yaml_options()).ok()
    }
}

/// Why a manifest could not be loaded. `Display` starts with `file:line:col` where known.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The file could not be read.
    #[error("{}: cannot read the manifest: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The text is not well-formed YAML.
    #[error("{}:{line}:{column}: invalid YAML: {message}", path.display())]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: Option<String>,
    },
    /// Well-formed YAML that does not fit the manifest's shape (unknown field, wrong type, ...).
    #[error("{}:{line}:{column}: {message}", path.display())]
    Type {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: Option<String>,
    },
    /// `version` is missing or not a version this guildctl understands.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Version {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
        hint: Option<String>,
    },
}

impl ManifestError {
    /// The manifest file this error is about.
    pub fn path(&self) -> &Path {
        match self {
            ManifestError::Io { path, .. }
            | ManifestError::Syntax { path, .. }
            | ManifestError::Type { path, .. }
            | ManifestError::Version { path, .. } => path,
        }
    }

    /// `(line, column)`, 1-based, when the error has a position.
    pub fn location(&self) -> Option<(usize, usize)> {
        match self {
            ManifestError::Io { .. } => None,
            ManifestError::Syntax { line, column, .. }
            | ManifestError::Type { line, column, .. }
            | ManifestError::Version { line, column, .. } => Some((*line, *column)),
        }
    }

    /// The message without the location prefix.
    pub fn message(&self) -> String {
        match self {
            ManifestError::Io { source, .. } => format!("cannot read the manifest: {source}"),
            ManifestError::Syntax { message, .. } => format!("invalid YAML: {message}"),
            ManifestError::Type { message, .. } | ManifestError::Version { message, .. } => {
                message.clone()
            }
        }
    }

    /// A suggestion for fixing the error, if there is one.
    pub fn hint(&self) -> Option<&str> {
        match self {
            ManifestError::Io { .. } => None,
            ManifestError::Syntax { hint, .. }
            | ManifestError::Type { hint, .. }
            | ManifestError::Version { hint, .. } => hint.as_deref(),
        }
    }

    /// Compiler-style rendering with an excerpt of `source` (the file's text, if it was read).
    pub fn render(&self, source: Option<&str>, color: bool) -> String {
        let diag = Diagnostic {
            severity: Severity::Error,
            path: String::new(),
            message: self.message(),
            help: self.hint().map(str::to_owned),
        };
        super::diagnostic::render_at(
            self.path(),
            source.unwrap_or(""),
            &diag,
            self.location().map(|(l, c)| (l, c, 1)),
            color,
        )
    }
}

/// Reads and parses a manifest file.
pub fn load(path: &Path) -> Result<LoadedManifest, ManifestError> {
    let source = std::fs::read_to_string(path).map_err(|source| ManifestError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_str(path, source)
}

/// Parses manifest text; `path` is only used in messages and [`LoadedManifest::path`].
pub fn load_str(path: &Path, source: String) -> Result<LoadedManifest, ManifestError> {
    // 1. The spanned tree: syntax errors surface here, and it gives the version and locations.
    let tree: Spanned<Node> = serde_saphyr::from_str_with_options(&source, tree_options())
        .map_err(|e| {
            let (line, column) = error_location(&e);
            ManifestError::Syntax {
                path: path.to_path_buf(),
                line,
                column,
                message: error_message(&e),
                hint: Some(syntax_hint(&error_message(&e))),
            }
        })?;
    let mut locations = SourceMap::default();
    locations.insert(String::new(), &tree);
    locations.walk(&tree, String::new());

    // 2. The version gate, before the shape is looked at: a future format may not fit it.
    check_version(path, &tree)?;

    // 3. The typed parse.
    let manifest: Manifest =
        serde_saphyr::from_str_with_options(&source, yaml_options()).map_err(|e| {
            let (line, column) = error_location(&e);
            let message = error_message(&e);
            ManifestError::Type {
                path: path.to_path_buf(),
                line,
                column,
                hint: type_hint(&message),
                message,
            }
        })?;
    Ok(LoadedManifest {
        path: path.to_path_buf(),
        source,
        manifest,
        locations,
    })
}

/// YAML 1.2 core schema: only `true`/`false` are booleans, so `no`, `on`, `off`, `yes` are
/// strings in string fields and errors in boolean ones. Octal needs `0o`.
fn yaml_options() -> serde_saphyr::Options {
    serde_saphyr::options! {
        strict_booleans: true,
        legacy_octal_numbers: false,
        with_snippet: false,
    }
}

/// The untyped tree reads every scalar through `deserialize_any`: let `.nan`/`.inf` through
/// as text (a string field may legitimately hold them) instead of failing the whole parse.
fn tree_options() -> serde_saphyr::Options {
    let mut o = yaml_options();
    o.non_finite_float_policy = serde_saphyr::NonFiniteFloatPolicy::AsString;
    o
}

fn error_location(e: &serde_saphyr::Error) -> (usize, usize) {
    match e.location() {
        Some(loc) if loc.line() > 0 => (loc.line() as usize, loc.column().max(1) as usize),
        _ => (1, 1),
    }
}

/// serde-saphyr's message without its own " at line X, column Y" suffix (we print the
/// location in front, compiler-style).
fn error_message(e: &serde_saphyr::Error) -> String {
    let text = e.without_snippet().to_string();
    let text = match text.rfind(" at line ") {
        Some(i) if text[i..].contains("column") => text[..i].to_string(),
        _ => text,
    };
    let text = match text.find(", set DuplicateKeyPolicy") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    text.trim().trim_end_matches(':').to_string()
}

fn syntax_hint(message: &str) -> String {
    if message.contains("duplicate") {
        "each key may appear once per mapping; remove or merge the repeated key".into()
    } else if message.contains("tabs") || message.contains(" tab ") {
        "YAML indents with spaces only; replace the tab characters".into()
    } else {
        "check the indentation and quoting on this line and the one before it; \
         quote values that contain `: ` or start with `@`, `*`, `&`, `!`, `{` or `[`"
            .into()
    }
}

fn type_hint(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let field = rest.split('`').next().unwrap_or("");
        let expected: Vec<&str> = message
            .split("expected one of ")
            .nth(1)
            .or_else(|| message.split("expected ").nth(1))
            .map(|s| {
                s.split(',')
                    .map(|n| n.trim().trim_matches('`'))
                    .filter(|n| !n.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        return Some(match super::check::closest(field, expected.iter().copied()) {
            Some(best) => format!("did you mean `{best}`?"),
            None => {
                "remove the field, or see schema/guildctl.schema.json for the fields allowed here"
                    .to_string()
            }
        });
    }
    if message.starts_with("missing field") {
        return Some("add the field; see docs/manifest.md for what it means".into());
    }
    if message.contains("invalid boolean")
        || (message.contains("string") && message.contains("bool"))
    {
        return Some(
            "manifests are YAML 1.2: only `true` and `false` are booleans (not yes/no/on/off)"
                .into(),
        );
    }
    if message.contains("unknown variant") {
        return Some("use one of the names listed".into());
    }
    if message.starts_with("invalid u") || message.starts_with("invalid i") {
        return Some("expected a whole number (not negative, no quotes or units)".into());
    }
    None
}

fn check_version(path: &Path, tree: &Spanned<Node>) -> Result<(), ManifestError> {
    let err = |loc: &Spanned<Node>, message: String| {
        let (line, column) = location_of(loc).map(|(l, c, _)| (l, c)).unwrap_or((1, 1));
        Err(ManifestError::Version {
            path: path.to_path_buf(),
            line,
            column,
            message,
            hint: Some(format!(
                "start the manifest with `version: {MANIFEST_VERSION}`; this guildctl reads \
                 only version {MANIFEST_VERSION}"
            )),
        })
    };
    let Node::Map(entries) = &tree.value else {
        return err(
            tree,
            "a manifest must be a YAML mapping (`version: 1`, `roles:`, `channels:`, ...)".into(),
        );
    };
    match entries.iter().find(|(k, _)| k.value.0 == "version") {
        None => err(tree, "the manifest has no `version` field".into()),
        Some((_, v)) => match &v.value {
            Node::Scalar(ScalarNode {
                kind: Scalar::Int(n),
                ..
            }) if *n == i128::from(MANIFEST_VERSION) => Ok(()),
            Node::Scalar(s) => err(
                v,
                format!(
                    "unsupported manifest version {}: this guildctl understands version {MANIFEST_VERSION}",
                    s.kind.display()
                ),
            ),
            _ => err(v, "`version` must be a number".into()),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Source map

/// Node path → position of the node in the YAML source (1-based line and column, and the
/// length of the node's first line in characters, for underlining).
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    nodes: HashMap<String, (usize, usize, usize)>,
    keys: HashMap<String, (usize, usize, usize)>,
}

impl SourceMap {
    /// Line and column of the node at `path` (`roles[2].name`, `settings.afk_timeout`), or of
    /// its nearest ancestor present in the file. The root is `""`.
    pub fn locate(&self, path: &str) -> Option<(usize, usize)> {
        self.locate_span(path).map(|(l, c, _)| (l, c))
    }

    /// Like [`SourceMap::locate`], with the length in characters of the node on its line.
    pub fn locate_span(&self, path: &str) -> Option<(usize, usize, usize)> {
        if let Some(loc) = self.nodes.get(path) {
            return Some(*loc);
        }
        // Absent node: point at the nearest ancestor, at its key when it is a mapping entry
        // (`settings:`), since its value's position is that of its first child.
        let mut p = path;
        while !p.is_empty() {
            p = parent_path(p);
            if let Some(loc) = self.keys.get(p).or_else(|| self.nodes.get(p)) {
                return Some(*loc);
            }
        }
        None
    }

    /// Position of the mapping key of the entry at `path` (`settings.name` → the `name:` key),
    /// when the path names a mapping entry present in the file.
    pub fn locate_key(&self, path: &str) -> Option<(usize, usize)> {
        self.keys.get(path).map(|(l, c, _)| (*l, *c))
    }

    /// Every recorded path (for tests and tools).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    fn insert(&mut self, path: String, node: &Spanned<Node>) {
        if let Some(loc) = location_of(node) {
            self.nodes.insert(path, loc);
        }
    }

    fn walk(&mut self, node: &Spanned<Node>, path: String) {
        match &node.value {
            Node::Map(entries) => {
                for (key, value) in entries {
                    let child = if path.is_empty() {
                        key.value.0.clone()
                    } else {
                        format!("{path}.{}", key.value.0)
                    };
                    let key_loc = loc_tuple(&key.referenced, key.value.0.chars().count());
                    if let Some(k) = key_loc {
                        self.keys.insert(child.clone(), k);
                    }
                    // An empty value (`afk_channel:`) has no useful position, and a block
                    // mapping or list starting on a later line is best shown by its key
                    // (`welcome_screen:`): use the key's.
                    let block = matches!(value.value, Node::Map(_) | Node::Seq(_))
                        && key_loc.is_some_and(|(kl, _, _)| {
                            location_of(value).is_some_and(|(vl, _, _)| vl != kl)
                        });
                    match location_of(value) {
                        Some(loc)
                            if !block
                                && !matches!(
                                    value.value,
                                    Node::Scalar(ScalarNode {
                                        kind: Scalar::Null,
                                        ..
                                    })
                                ) =>
                        {
                            self.nodes.insert(child.clone(), loc);
                        }
                        _ => {
                            if let Some(k) = key_loc {
                                self.nodes.insert(child.clone(), k);
                            }
                        }
                    }
                    self.walk(value, child);
                }
            }
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let child = format!("{path}[{i}]");
                    self.insert(child.clone(), item);
                    self.walk(item, child);
                }
            }
            Node::Scalar(_) => {}
        }
    }
}

/// `a.b[2].c` → `a.b[2]` → `a.b` → `a` → ``.
fn parent_path(p: &str) -> &str {
    match p.rfind(['.', '[']) {
        Some(i) => &p[..i],
        None => "",
    }
}

fn location_of(node: &Spanned<Node>) -> Option<(usize, usize, usize)> {
    let len = match &node.value {
        Node::Scalar(s) => s.len,
        _ => 1,
    };
    loc_tuple(&node.referenced, len)
}

fn loc_tuple(loc: &serde_saphyr::Location, fallback_len: usize) -> Option<(usize, usize, usize)> {
    if loc.line() == 0 {
        return None;
    }
    let span_len = loc.span().len() as usize;
    let len = if span_len > 0 { span_len } else { fallback_len };
    Some((
        loc.line() as usize,
        loc.column().max(1) as usize,
        len.max(1),
    ))
}

/// A YAML node with positions, deserialised from the same text as the manifest.
#[derive(Debug)]
enum Node {
    Map(Vec<(Spanned<Key>, Spanned<Node>)>),
    Seq(Vec<Spanned<Node>>),
    Scalar(ScalarNode),
}

#[derive(Debug)]
struct ScalarNode {
    kind: Scalar,
    len: usize,
}

#[derive(Debug)]
enum Scalar {
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
    fn display(&self) -> String {
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
struct Key(String);

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
