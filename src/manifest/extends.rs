//! `extends:`: a manifest built on base manifests (a layout shared by several guilds).
//!
//! Each base is a manifest of its own (a file or a folder, `version: 1`, loaded by the same
//! stages), and may extend further bases. The layers are merged in order — the bases as
//! listed, then the extending manifest — by these rules (docs/manifest.md, "Bases"):
//!
//! - mappings (`settings`, `welcome_screen`, a role, a channel, ...) merge field by field,
//!   the extending file winning per field;
//! - the lists of objects `roles`, `channels` (and a category's `channels`) and `webhooks`
//!   merge by identity: an item of the extending file with the `name` (for channels, and
//!   the `type` when both give one) of a base item is merged into it, in the base's place;
//!   the others follow the base's items (new roles go above a base's `@everyone`); `emojis`,
//!   `soundboard` and `stickers` merge by `name` too; `bans`
//!   merge likewise by `id`, `integrations` by `application`; `policies` are appended, every
//!   layer's kept (a name used in two layers is an error: a guild cannot loosen a shared
//!   policy);
//! - every other list (`permissions`, `overwrites`, `prompts`, ...) is taken whole from the
//!   last layer that writes it: a list that is authoritative stays so;
//! - a base may not name a `guild:` (it is shared), and `extends` itself is not inherited.
//!
//! Every node of the merged manifest keeps the file and place it was written in, so every
//! diagnostic names the base or the guild's file. The merge walks the layers' YAML trees
//! (the places live there) and writes the merged value and its source map in one pass.

use serde_json::Value;

use super::source_map::{Layered, Part, Span, Table, Trees, key_span, span_of};
use super::tree::{At, Key, Node, Scalar, ScalarNode, to_json};

/// The most bases a manifest may be built on, all levels together.
pub const MAX_BASES: usize = 16;

/// Lists whose items merge by identity (paths without their indexes), and the field that
/// is an item's identity. A shared ban list merges by user, so a guild adds its own bans
/// to the network's (or overrides one's reason) without repeating the list.
/// The identity lists besides the top-level ones of
/// [`SECTION_KEYS`](crate::manifest::SECTION_KEYS): a category's channels.
const NESTED_IDENTITY_LISTS: [(&str, &str); 1] = [("channels.channels", "name")];

/// Identity lists whose items are never merged: every layer's items are kept, so a guild
/// cannot loosen a shared policy by redefining it (a name used twice is an error of the
/// checks, shown on both places).
const APPENDED_LISTS: [&str; 1] = ["policies"];

fn identity_key(kind: &str) -> Option<&'static str> {
    let top = crate::manifest::SECTION_KEYS
        .iter()
        .map(|s| (s.key, s.identity));
    let nested = NESTED_IDENTITY_LISTS.iter().map(|&(k, key)| (k, Some(key)));
    top.chain(nested).find(|(k, _)| *k == kind)?.1
}

/// Where a merged node is shown: a node of one file.
type Origin<'a> = Option<(usize, &'a At<Node>)>;

/// One node of the merged manifest: taken whole from one file, or merged from several.
enum L<'a> {
    /// A node of file `.0`, with its JSON when its layer keeps it made (a base shared by
    /// the run's guilds, [`Trees::json`]).
    One(usize, &'a At<Node>, Option<&'a Value>),
    /// A mapping merged across layers; `origin` is where it is shown (the extending file's).
    Map(Option<(usize, &'a At<Node>)>, Vec<Entry<'a>>),
    /// A list merged across layers or files.
    Seq(Option<(usize, &'a At<Node>)>, Vec<L<'a>>),
}

struct Entry<'a> {
    name: &'a str,
    key: (usize, &'a At<Key>),
    value: L<'a>,
}

impl<'a> L<'a> {
    fn origin(&self) -> Option<(usize, &'a At<Node>)> {
        match self {
            L::One(f, n, _) => Some((*f, *n)),
            L::Map(o, _) | L::Seq(o, _) => *o,
        }
    }

    /// The entries of a mapping, each taken whole from its file.
    fn into_map(self) -> Result<(Origin<'a>, Vec<Entry<'a>>), L<'a>> {
        match self {
            L::One(f, node, json) => match &node.value {
                Node::Map(entries) => Ok((
                    Some((f, node)),
                    entries
                        .iter()
                        .map(|(k, v)| Entry {
                            name: k.value.0.as_str(),
                            key: (f, k),
                            // By name, as `to_json` made it (a repeated key: the later value).
                            value: L::One(f, v, json.and_then(|j| j.get(&k.value.0))),
                        })
                        .collect(),
                )),
                _ => Err(L::One(f, node, json)),
            },
            L::Map(o, e) => Ok((o, e)),
            other => Err(other),
        }
    }

    fn into_seq(self) -> Result<(Origin<'a>, Vec<L<'a>>), L<'a>> {
        match self {
            L::One(f, node, json) => match &node.value {
                Node::Seq(items) => Ok((Some((f, node)), items_of(f, items, json))),
                _ => Err(L::One(f, node, json)),
            },
            L::Seq(o, i) => Ok((o, i)),
            other => Err(other),
        }
    }

    /// The text of field `name` of a mapping item, if it is a string.
    fn field(&self, name: &str) -> Option<&'a str> {
        let str_of = |n: &'a At<Node>| match &n.value {
            Node::Scalar(ScalarNode {
                kind: Scalar::Str(s),
                ..
            }) => Some(s.as_str()),
            _ => None,
        };
        match self {
            L::One(_, node, _) => match &node.value {
                Node::Map(entries) => entries
                    .iter()
                    .find(|(k, _)| k.value.0 == name)
                    .and_then(|(_, v)| str_of(v)),
                _ => None,
            },
            L::Map(_, entries) => {
                entries
                    .iter()
                    .find(|e| e.name == name)
                    .and_then(|e| match &e.value {
                        L::One(_, v, _) => str_of(v),
                        _ => None,
                    })
            }
            L::Seq(..) => None,
        }
    }
}

/// The items of a list of file `file`, each with its JSON when the list's is made.
fn items_of<'a>(file: usize, items: &'a [At<Node>], json: Option<&'a Value>) -> Vec<L<'a>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| L::One(file, item, json.and_then(|j| j.get(i))))
        .collect()
}

/// A layer's top level as the folder merge took it: list sections split across files are
/// one list of items from several files.
fn layer_root(trees: &Trees) -> L<'_> {
    let json = trees.json.as_ref().map(|j| {
        j.get_or_init(|| {
            trees
                .parts
                .iter()
                .map(|p| entry(trees, p).map_or(Value::Null, |(_, _, v)| to_json(&v.value)))
                .collect()
        })
    });
    let mut entries: Vec<Entry<'_>> = Vec::new();
    for (p, part) in trees.parts.iter().enumerate() {
        let Some((file, key, value)) = entry(trees, part) else {
            continue;
        };
        let json = json.and_then(|j| j.get(p));
        let name = key.value.0.as_str();
        match (&value.value, part.list_offset) {
            (Node::Seq(items), Some(_)) => {
                if let Some(Entry {
                    value: L::Seq(_, list),
                    ..
                }) = entries.iter_mut().find(|e| e.name == name)
                {
                    list.extend(items_of(file, items, json));
                } else {
                    entries.push(Entry {
                        name,
                        key: (file, key),
                        value: L::Seq(Some((file, value)), items_of(file, items, json)),
                    });
                }
            }
            _ => entries.push(Entry {
                name,
                key: (file, key),
                value: L::One(file, value, json),
            }),
        }
    }
    L::Map(None, entries)
}

fn entry<'a>(trees: &'a Trees, part: &Part) -> Option<(usize, &'a At<Key>, &'a At<Node>)> {
    let (file, tree) = trees.trees.get(part.tree)?;
    let Node::Map(entries) = &tree.value else {
        return None;
    };
    let (k, v) = entries.get(part.entry)?;
    Some((*file, k, v))
}

/// Merges `over` onto `base` at `kind` (the path without indexes).
fn merge<'a>(base: L<'a>, over: L<'a>, kind: &str) -> L<'a> {
    if identity_key(kind).is_some() {
        return match (base.into_seq(), over.into_seq()) {
            (Ok((_, base_items)), Ok((origin, over_items))) => {
                L::Seq(origin, merge_by_identity(base_items, over_items, kind))
            }
            (_, Ok((o, items))) => L::Seq(o, items),
            (_, Err(over)) => over,
        };
    }
    match (base.into_map(), over.into_map()) {
        (Ok((_, mut entries)), Ok((origin, over_entries))) => {
            for e in over_entries {
                match entries.iter().position(|b| b.name == e.name) {
                    Some(i) => {
                        let old =
                            std::mem::replace(&mut entries[i].value, L::Seq(None, Vec::new()));
                        let child = child_kind(kind, e.name);
                        entries[i].value = merge(old, e.value, &child);
                        entries[i].key = e.key;
                    }
                    None => entries.push(e),
                }
            }
            L::Map(origin, entries)
        }
        // Anything else (a list, a value, a mapping over a value): the later layer's.
        (_, Ok((o, e))) => L::Map(o, e),
        (_, Err(over)) => over,
    }
}

fn child_kind(kind: &str, name: &str) -> String {
    let kind = item_kind(kind);
    if kind.is_empty() {
        name.to_owned()
    } else {
        format!("{kind}.{name}")
    }
}

/// Items of an identity list: the base's in order, each merged with the extending item of
/// the same identity, then the extending layer's new items (roles: above `@everyone`).
fn merge_by_identity<'a>(base: Vec<L<'a>>, over: Vec<L<'a>>, kind: &str) -> Vec<L<'a>> {
    let channels = kind.starts_with("channels");
    let key = identity_key(kind).unwrap_or("name");
    let appended = APPENDED_LISTS.contains(&kind);
    let same = |a: &L<'_>, b: &L<'_>| {
        let (Some(na), Some(nb)) = (a.field(key), b.field(key)) else {
            return false;
        };
        if appended {
            return false;
        }
        na == nb
            && (!channels
                || match (a.field("type"), b.field("type")) {
                    (Some(ta), Some(tb)) => ta == tb,
                    _ => true,
                })
    };
    let mut over: Vec<Option<L<'a>>> = over.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(base.len() + over.len());
    for b in base {
        let found = over
            .iter()
            .position(|o| o.as_ref().is_some_and(|o| same(&b, o)));
        match found.and_then(|i| over[i].take()) {
            Some(o) => out.push(merge(b, o, &format!("{kind}[]"))),
            None => out.push(b),
        }
    }
    let fresh: Vec<L<'a>> = over.into_iter().flatten().collect();
    let at = if kind == "roles" {
        out.iter()
            .position(|r| r.field("name") == Some("@everyone"))
            .unwrap_or(out.len())
    } else {
        out.len()
    };
    out.splice(at..at, fresh);
    out
}

/// An item's kind: `channels[]` is an item of `channels`, whose fields are `channels.x`.
fn item_kind(kind: &str) -> &str {
    kind.strip_suffix("[]").unwrap_or(kind)
}

/// One layer to merge: its trees and the layers (indexes) it extends, in order.
#[derive(Debug, Clone)]
pub(super) struct Layer {
    pub(super) trees: Trees,
    pub(super) bases: Vec<usize>,
}

/// The layers (layer 0 is the manifest itself) merged. Layers form a tree without cycles
/// (the loader refuses cycles).
fn resolved(layers: &[Layer], i: usize) -> L<'_> {
    let own = layer_root(&layers[i].trees);
    let mut acc: Option<L<'_>> = None;
    for &b in &layers[i].bases {
        let base = without(resolved(layers, b), &["extends"]);
        acc = Some(match acc {
            None => base,
            Some(a) => merge(a, base, ""),
        });
    }
    match acc {
        None => own,
        Some(a) => merge(a, own, ""),
    }
}

/// A manifest's layers, the first its own: what its [`SourceMap`] asks how they merge.
///
/// [`SourceMap`]: super::source_map::SourceMap
#[derive(Debug)]
pub(super) struct Layers(pub(super) Vec<Layer>);

impl Layered for Layers {
    fn merged_value(&self) -> Value {
        value(&resolved(&self.0, 0))
    }

    /// Made only when a place is asked for (a diagnostic): a manifest built on a large base
    /// has tens of thousands of paths, and most loads place nothing.
    fn table(&self) -> Table {
        table_of(&self.0)
    }
}

fn table_of(layers: &[Layer]) -> Table {
    let merged = resolved(layers, 0);
    let mut table = Table::default();
    if let Some(root) = layers[0].trees.root {
        table.nodes.insert(String::new(), root);
    }
    emit(&merged, String::new(), &mut table);
    table
}

fn value(l: &L<'_>) -> Value {
    match l {
        // A shared base's part: cloning its JSON is cheaper than building it again.
        L::One(_, _, Some(json)) => (*json).clone(),
        L::One(_, node, None) => to_json(&node.value),
        L::Map(_, entries) => Value::Object(
            entries
                .iter()
                .map(|e| (e.name.to_owned(), value(&e.value)))
                .collect(),
        ),
        L::Seq(_, items) => Value::Array(items.iter().map(value).collect()),
    }
}

/// The mapping without the named top-level entries.
fn without<'a>(l: L<'a>, names: &[&str]) -> L<'a> {
    match l.into_map() {
        Ok((o, mut e)) => {
            e.retain(|e| !names.contains(&e.name));
            L::Map(o, e)
        }
        Err(l) => l,
    }
}

/// Writes every path at and below `l` (at `path`) into `t`.
fn emit(l: &L<'_>, path: String, t: &mut Table) {
    match l {
        L::One(file, node, _) => t.walk(*file, node, path),
        L::Map(_, entries) => {
            for e in entries {
                let child = if path.is_empty() {
                    e.name.to_owned()
                } else {
                    format!("{path}.{}", e.name)
                };
                let (kfile, key) = e.key;
                let ks = key_span(kfile, key);
                if let Some(ks) = ks {
                    t.keys.insert(child.clone(), ks);
                }
                match &e.value {
                    L::One(f, node, _) => t.record_value(&child, *f, ks, node),
                    _ => {
                        if let Some(s) = ks {
                            t.nodes.insert(child.clone(), s);
                        }
                    }
                }
                emit(&e.value, child, t);
            }
        }
        L::Seq(_, items) => {
            for (i, item) in items.iter().enumerate() {
                let child = format!("{path}[{i}]");
                if let Some((f, node)) = item.origin() {
                    t.insert(child.clone(), f, node);
                }
                emit(item, child, t);
            }
        }
    }
}

/// The `extends:` entry of a layer: the bases named, each with its place, or the place of a
/// value that is not a name or list of names.
pub(super) fn extends_of(trees: &Trees) -> Result<Vec<(String, Span)>, Option<Span>> {
    let mut out = Vec::new();
    for part in &trees.parts {
        let Some((file, key, value)) = entry(trees, part) else {
            continue;
        };
        if key.value.0 != "extends" {
            continue;
        }
        let one = |n: &At<Node>| match &n.value {
            Node::Scalar(ScalarNode {
                kind: Scalar::Str(s),
                ..
            }) if !s.trim().is_empty() => span_of(file, n).map(|sp| (s.clone(), sp)),
            _ => None,
        };
        match &value.value {
            Node::Seq(items) => {
                for item in items {
                    out.push(one(item).ok_or_else(|| span_of(file, item))?);
                }
            }
            _ => out.push(one(value).ok_or_else(|| span_of(file, value).or(key_span(file, key)))?),
        }
    }
    Ok(out)
}

/// Where a base names a `guild:` (refused: a base is shared by guilds).
pub(super) fn guild_in(trees: &Trees) -> Option<Span> {
    trees.parts.iter().find_map(|p| {
        let (file, key, _) = entry(trees, p)?;
        (key.value.0 == "guild")
            .then(|| key_span(file, key))
            .flatten()
    })
}
