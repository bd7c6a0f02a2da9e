//! Where each node of a manifest is: node paths (`roles[2].name`) to places in its
//! files, built from the YAML tree, used to place every diagnostic.

use std::collections::HashMap;

use serde_saphyr::Spanned;

use super::tree::{Key, Node, Scalar, ScalarNode};

/// A place in one of a manifest's files: the file (an index into [`Report::files`]), the
/// 1-based line and column, and the length in characters of the marked text on that line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    pub file: usize,
    pub line: usize,
    pub column: usize,
    pub len: usize,
}

/// Node path → place of the node in the manifest's files (file index, 1-based line and
/// column, and the length of the node's first line in characters, for underlining).
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    pub(super) nodes: HashMap<String, Span>,
    pub(super) keys: HashMap<String, Span>,
}

impl SourceMap {
    /// Line and column of the node at `path` (`roles[2].name`, `settings.afk_timeout`), or of
    /// its nearest ancestor present in the files. The root is `""`.
    pub fn locate(&self, path: &str) -> Option<(usize, usize)> {
        self.span(path).map(|s| (s.line, s.column))
    }

    /// Like [`SourceMap::locate`], with the length in characters of the node on its line.
    pub fn locate_span(&self, path: &str) -> Option<(usize, usize, usize)> {
        self.span(path).map(|s| (s.line, s.column, s.len))
    }

    /// Position of the mapping key of the entry at `path` (`settings.name` → the `name:` key),
    /// when the path names a mapping entry present in the files.
    pub fn locate_key(&self, path: &str) -> Option<(usize, usize)> {
        self.keys.get(path).map(|s| (s.line, s.column))
    }

    /// The place of the node at `path`, or of its nearest ancestor present in the files (at
    /// the ancestor's key when it is a mapping entry: `settings:`).
    pub fn span(&self, path: &str) -> Option<Span> {
        if let Some(s) = self.nodes.get(path) {
            return Some(*s);
        }
        let mut p = path;
        while !p.is_empty() {
            p = parent_path(p);
            if let Some(s) = self.keys.get(p).or_else(|| self.nodes.get(p)) {
                return Some(*s);
            }
        }
        None
    }

    /// The place of the node at exactly `path`, if it is in the files.
    pub fn exact(&self, path: &str) -> Option<Span> {
        self.nodes.get(path).copied()
    }

    /// Where to show the node at `path`: a list item that has a `name` (or a `title`) is shown
    /// by it (`- name: Moderator` marks `Moderator`, not the `-`); other nodes as
    /// [`SourceMap::span`].
    pub fn display_span(&self, path: &str) -> Option<Span> {
        if path.ends_with(']') {
            for field in ["name", "title"] {
                if let Some(s) = self.nodes.get(&format!("{path}.{field}")) {
                    return Some(*s);
                }
            }
        }
        self.span(path)
    }

    /// The place of the key of the mapping entry at `path`.
    pub fn key_span(&self, path: &str) -> Option<Span> {
        self.keys.get(path).copied()
    }

    /// Every recorded path (for tests and tools).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.nodes.keys().map(String::as_str)
    }

    pub(super) fn insert(&mut self, path: String, file: usize, node: &Spanned<Node>) {
        if let Some(s) = span_of(file, node) {
            self.nodes.insert(path, s);
        }
    }

    /// Records the value of the mapping entry at `path`: an empty value (`afk_channel:`) has
    /// no useful position, and a block mapping or list starting on a later line is best shown
    /// by its key (`welcome_screen:`), so those take the key's place.
    pub(super) fn record_value(
        &mut self,
        path: &str,
        file: usize,
        key: Option<Span>,
        value: &Spanned<Node>,
    ) {
        let own = span_of(file, value);
        let block = matches!(value.value, Node::Map(_) | Node::Seq(_))
            && matches!((key, own), (Some(k), Some(v)) if k.line != v.line);
        let null = matches!(
            value.value,
            Node::Scalar(ScalarNode {
                kind: Scalar::Null,
                ..
            })
        );
        match own {
            Some(s) if !block && !null => {
                self.nodes.insert(path.to_string(), s);
            }
            _ => {
                if let Some(k) = key {
                    self.nodes.insert(path.to_string(), k);
                }
            }
        }
    }

    pub(super) fn walk(&mut self, file: usize, node: &Spanned<Node>, path: String) {
        match &node.value {
            Node::Map(entries) => {
                for (key, value) in entries {
                    let child = if path.is_empty() {
                        key.value.0.clone()
                    } else {
                        format!("{path}.{}", key.value.0)
                    };
                    let k = key_span(file, key);
                    if let Some(k) = k {
                        self.keys.insert(child.clone(), k);
                    }
                    self.record_value(&child, file, k, value);
                    self.walk(file, value, child);
                }
            }
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let child = format!("{path}[{i}]");
                    self.insert(child.clone(), file, item);
                    self.walk(file, item, child);
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

pub(super) fn span_of(file: usize, node: &Spanned<Node>) -> Option<Span> {
    let len = match &node.value {
        Node::Scalar(s) => s.len,
        _ => 1,
    };
    span_at(file, &node.referenced, len)
}

pub(super) fn key_span(file: usize, key: &Spanned<Key>) -> Option<Span> {
    span_at(file, &key.referenced, key.value.0.chars().count())
}

pub(super) fn span_at(
    file: usize,
    loc: &serde_saphyr::Location,
    fallback_len: usize,
) -> Option<Span> {
    if loc.line() == 0 {
        return None;
    }
    let span_len = loc.span().len() as usize;
    let len = if span_len > 0 { span_len } else { fallback_len };
    Some(Span {
        file,
        line: loc.line() as usize,
        column: loc.column().max(1) as usize,
        len: len.max(1),
    })
}
