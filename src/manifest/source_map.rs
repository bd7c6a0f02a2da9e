//! Where each node of a manifest is: node paths (`roles[2].name`) to places in its
//! files, built from the YAML tree, used to place every diagnostic.

use std::sync::{Arc, OnceLock};

use hashbrown::HashMap;

use super::tree::{At, Key, Loc, Node, Scalar, ScalarNode};

/// A place in one of a manifest's files: the file (an index into [`Report::files`](super::Report::files)), the
/// 1-based line and column, and the length in characters of the marked text on that line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Span {
    /// The file: an index into [`Report::files`](super::Report::files).
    pub file: usize,
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, in characters.
    pub column: usize,
    /// The marked text's length in characters.
    pub len: usize,
}

/// One top-level entry of one file, as the merge took it: a list section's items (the merged
/// list's items from `offset` on), or any other section's value.
#[derive(Debug, Clone, Copy)]
pub(super) struct Part {
    /// Index into [`Trees::trees`].
    pub(super) tree: usize,
    /// Index of the entry in that file's top-level mapping.
    pub(super) entry: usize,
    /// `Some(offset)` for a list section's items.
    pub(super) list_offset: Option<usize>,
}

/// The files' YAML trees and how they were merged: what a [`SourceMap`] looks paths up in.
/// The trees are shared: a base that many guilds extend is parsed once per run
/// (`load::layers::BaseCache`), and each guild's map holds the same trees.
#[derive(Debug, Default, Clone)]
pub(super) struct Trees {
    /// (file index, the file's tree), in merge order.
    pub(super) trees: Vec<(usize, Arc<At<Node>>)>,
    /// Where the manifest starts: the first file's root.
    pub(super) root: Option<Span>,
    /// Each top-level key where it was first written.
    pub(super) keys: Vec<(String, Span)>,
    /// The merged entries, in merge order.
    pub(super) parts: Vec<Part>,
    /// Each part's value as JSON, made the first time a merge asks and shared by every copy
    /// of these trees: set on a base kept for the run (`load::layers::BaseCache`), so the
    /// guilds extending it clone its JSON instead of each building it from the tree again.
    pub(super) json: Option<Arc<OnceLock<Vec<serde_json::Value>>>>,
}

impl Trees {
    fn entry(&self, part: &Part) -> Option<(usize, &At<Key>, &At<Node>)> {
        let (file, tree) = self.trees.get(part.tree)?;
        let Node::Map(entries) = &tree.value else {
            return None;
        };
        let (k, v) = entries.get(part.entry)?;
        Some((*file, k, v))
    }
}

/// Node path → place of the node in the manifest's files (file index, 1-based line and
/// column, and the length of the node's first line in characters, for underlining).
///
/// Places are found when asked, by following the path in the files' trees: a manifest has
/// tens of thousands of nodes and a report a handful of places. Where keys could make two
/// paths read alike (a key with `.`, `[` or `]`, or an empty one), every path is written out
/// once instead, the later node winning, as the merge met them.
#[derive(Debug, Clone, Default)]
pub struct SourceMap {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    trees: Trees,
    /// Every key is a plain name, so a path names one node.
    plain_keys: bool,
    all: OnceLock<Table>,
    /// A manifest that `extends:` bases: its layers (the trees cannot say how they merge),
    /// from which its value and `all` are made when asked for.
    layers: Option<Box<dyn Layered>>,
}

/// The layers of a manifest that `extends:` bases, which know how they merge (`extends`
/// implements it; the map only asks, so it need not know the merge rules).
pub(super) trait Layered: std::fmt::Debug + Send + Sync {
    /// The merged value.
    fn merged_value(&self) -> serde_json::Value;
    /// Every path of the merged value and its place, each in the file its value came from.
    fn table(&self) -> Table;
}

/// Every path written out.
#[derive(Debug, Default)]
pub(super) struct Table {
    pub(super) nodes: HashMap<String, Span>,
    pub(super) keys: HashMap<String, Span>,
}

impl SourceMap {
    pub(super) fn new(trees: Trees) -> SourceMap {
        let plain_keys = trees.keys.iter().all(|(k, _)| plain_key(k))
            && trees.trees.iter().all(|(_, t)| plain_keys_below(&t.value));
        SourceMap {
            inner: Arc::new(Inner {
                trees,
                plain_keys,
                all: OnceLock::new(),
                layers: None,
            }),
        }
    }

    /// The map of a manifest merged from several layers (`extends:`): every path is
    /// placed in the file its value came from, written out when first asked for.
    pub(super) fn merged(trees: Trees, layers: Box<dyn Layered>) -> SourceMap {
        SourceMap {
            inner: Arc::new(Inner {
                trees,
                plain_keys: false,
                all: OnceLock::new(),
                layers: Some(layers),
            }),
        }
    }

    /// The merged value of a manifest that extends bases (None: the trees' merge is it).
    pub(super) fn merged_value(&self) -> Option<serde_json::Value> {
        self.inner.layers.as_ref().map(|l| l.merged_value())
    }

    pub(super) fn trees(&self) -> &Trees {
        &self.inner.trees
    }

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
        self.key_span(path).map(|s| (s.line, s.column))
    }

    /// The place of the node at `path`, or of its nearest ancestor present in the files (at
    /// the ancestor's key when it is a mapping entry: `settings:`).
    pub fn span(&self, path: &str) -> Option<Span> {
        if let Some(s) = self.exact(path) {
            return Some(s);
        }
        let mut p = path;
        while !p.is_empty() {
            p = parent_path(p);
            if let Some(s) = self.key_span(p).or_else(|| self.exact(p)) {
                return Some(s);
            }
        }
        None
    }

    /// The place of the node at exactly `path`, if it is in the files.
    pub fn exact(&self, path: &str) -> Option<Span> {
        match self.table() {
            Some(t) => t.nodes.get(path).copied(),
            None => self.find(path, false),
        }
    }

    /// Where to show the node at `path`: a list item that has a `name` (or a `title`) is shown
    /// by it (`- name: Moderator` marks `Moderator`, not the `-`); other nodes as
    /// [`SourceMap::span`].
    pub fn display_span(&self, path: &str) -> Option<Span> {
        if path.ends_with(']') {
            for field in ["name", "title"] {
                if let Some(s) = self.exact(&format!("{path}.{field}")) {
                    return Some(s);
                }
            }
        }
        self.span(path)
    }

    /// The place of the key of the mapping entry at `path`.
    pub fn key_span(&self, path: &str) -> Option<Span> {
        match self.table() {
            Some(t) => t.keys.get(path).copied(),
            None => self.find(path, true),
        }
    }

    /// Every recorded path (for tests and tools).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.written_out().nodes.keys().map(String::as_str)
    }

    /// Panics unless looking paths up in the trees gives what writing every path out gives,
    /// for every path written out, its key, and paths around them. For the fuzz harness: a
    /// test hook (the `test-hooks` feature).
    #[cfg(feature = "test-hooks")]
    pub fn assert_lookups_agree(&self) {
        if !self.inner.plain_keys {
            return;
        }
        let all = self.written_out();
        let mut probes: Vec<String> = all.nodes.keys().chain(all.keys.keys()).cloned().collect();
        for p in probes.clone() {
            probes.push(format!("{p}[0]"));
            probes.push(format!("{p}[99]"));
            probes.push(format!("{p}.name"));
            probes.push(format!("{p}.nope"));
            probes.push(format!("{p}[00]"));
        }
        for p in &probes {
            assert_eq!(all.nodes.get(p).copied(), self.find(p, false), "node {p}");
            assert_eq!(all.keys.get(p).copied(), self.find(p, true), "key {p}");
        }
    }

    /// The paths written out, when lookups must use them.
    fn table(&self) -> Option<&Table> {
        (!self.inner.plain_keys).then(|| self.written_out())
    }

    fn written_out(&self) -> &Table {
        self.inner.all.get_or_init(|| {
            if let Some(layers) = &self.inner.layers {
                return layers.table();
            }
            let trees = &self.inner.trees;
            let mut t = Table::default();
            if let Some(s) = trees.root {
                t.nodes.insert(String::new(), s);
            }
            for (k, s) in &trees.keys {
                t.keys.insert(k.clone(), *s);
            }
            for part in &trees.parts {
                let Some((file, key, value)) = trees.entry(part) else {
                    continue;
                };
                let name = &key.value.0;
                let key_span = key_span(file, key);
                match (part.list_offset, &value.value) {
                    (Some(offset), Node::Seq(items)) => {
                        if offset == 0 {
                            t.record_value(name, file, key_span, value);
                        }
                        for (k, item) in items.iter().enumerate() {
                            let child = format!("{name}[{}]", offset + k);
                            t.insert(child.clone(), file, item);
                            t.walk(file, item, child);
                        }
                    }
                    _ => {
                        t.record_value(name, file, key_span, value);
                        t.walk(file, value, name.clone());
                    }
                }
            }
            t
        })
    }

    /// The place of the node (or with `key`, of the mapping key) at `path`, following the path
    /// in the trees. Only where keys are plain names: then no two paths read alike.
    fn find(&self, path: &str, key: bool) -> Option<Span> {
        let trees = &self.inner.trees;
        if path.is_empty() {
            return if key { None } else { trees.root };
        }
        let cut = path.find(['.', '[']).unwrap_or(path.len());
        let (name, rest) = path.split_at(cut);
        if rest.is_empty() {
            if key {
                return trees.keys.iter().find(|(k, _)| k == name).map(|(_, s)| *s);
            }
            // The last part of this name that recorded its value.
            return trees
                .parts
                .iter()
                .rev()
                .filter(|p| p.list_offset.is_none_or(|o| o == 0))
                .filter_map(|p| trees.entry(p))
                .filter(|(_, k, _)| k.value.0 == name)
                .find_map(|(file, k, v)| record_value(file, key_span(file, k), v));
        }
        for part in trees.parts.iter().rev() {
            let Some((file, k, v)) = trees.entry(part) else {
                continue;
            };
            if k.value.0 != name {
                continue;
            }
            match (part.list_offset, &v.value) {
                (Some(offset), Node::Seq(items)) => {
                    let (index, after) = index_segment(rest)?;
                    let Some(item) = index.checked_sub(offset).and_then(|i| items.get(i)) else {
                        continue;
                    };
                    if after.is_empty() {
                        return if key { None } else { span_of(file, item) };
                    }
                    return follow(file, item, after, key);
                }
                _ => return follow(file, v, rest, key),
            }
        }
        None
    }
}

/// `[12]` at the start of `rest`: the index as written in paths (no sign, no leading zero),
/// and what follows.
fn index_segment(rest: &str) -> Option<(usize, &str)> {
    let inner = rest.strip_prefix('[')?;
    let close = inner.find(']')?;
    let digits = &inner[..close];
    if digits.is_empty()
        || !digits.bytes().all(|b| b.is_ascii_digit())
        || (digits.len() > 1 && digits.starts_with('0'))
    {
        return None;
    }
    Some((digits.parse().ok()?, &inner[close + 1..]))
}

/// Follows `rest` (`.name[2].deny`) down from `node`, with the rules of [`Table::walk`].
fn follow(file: usize, mut node: &At<Node>, mut rest: &str, key: bool) -> Option<Span> {
    loop {
        if rest.starts_with('[') {
            let (index, after) = index_segment(rest)?;
            let Node::Seq(items) = &node.value else {
                return None;
            };
            let item = items.get(index)?;
            if after.is_empty() {
                return if key { None } else { span_of(file, item) };
            }
            (node, rest) = (item, after);
        } else {
            let after = rest.strip_prefix('.')?;
            let cut = after.find(['.', '[']).unwrap_or(after.len());
            let (name, after) = after.split_at(cut);
            let Node::Map(entries) = &node.value else {
                return None;
            };
            let (k, v) = entries.iter().find(|(k, _)| k.value.0 == name)?;
            if after.is_empty() {
                let ks = key_span(file, k);
                return if key { ks } else { record_value(file, ks, v) };
            }
            (node, rest) = (v, after);
        }
    }
}

fn plain_key(k: &str) -> bool {
    !k.is_empty() && !k.contains(['.', '[', ']'])
}

fn plain_keys_below(node: &Node) -> bool {
    match node {
        Node::Map(entries) => entries
            .iter()
            .all(|(k, v)| plain_key(&k.value.0) && plain_keys_below(&v.value)),
        Node::Seq(items) => items.iter().all(|i| plain_keys_below(&i.value)),
        Node::Scalar(_) => true,
    }
}

/// Where the value of a mapping entry is shown: an empty value (`afk_channel:`) has no useful
/// position, and a block mapping or list starting on a later line is best shown by its key
/// (`welcome_screen:`), so those take the key's place.
fn record_value(file: usize, key: Option<Span>, value: &At<Node>) -> Option<Span> {
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
        Some(s) if !block && !null => Some(s),
        _ => key,
    }
}

impl Table {
    pub(super) fn insert(&mut self, path: String, file: usize, node: &At<Node>) {
        if let Some(s) = span_of(file, node) {
            self.nodes.insert(path, s);
        }
    }

    pub(super) fn record_value(
        &mut self,
        path: &str,
        file: usize,
        key: Option<Span>,
        value: &At<Node>,
    ) {
        if let Some(s) = record_value(file, key, value) {
            self.nodes.insert(path.to_string(), s);
        }
    }

    pub(super) fn walk(&mut self, file: usize, node: &At<Node>, path: String) {
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

pub(super) fn span_of(file: usize, node: &At<Node>) -> Option<Span> {
    let len = match &node.value {
        Node::Scalar(s) => s.len,
        _ => 1,
    };
    span_at(file, node.loc, len)
}

pub(super) fn key_span(file: usize, key: &At<Key>) -> Option<Span> {
    span_at(file, key.loc, key.value.0.chars().count())
}

pub(super) fn span_at(file: usize, loc: Loc, fallback_len: usize) -> Option<Span> {
    if loc.line == 0 {
        return None;
    }
    let len = if loc.len > 0 {
        loc.len as usize
    } else {
        fallback_len
    };
    Some(Span {
        file,
        line: loc.line as usize,
        column: loc.column.max(1) as usize,
        len: len.max(1),
    })
}
