//! The layers under a manifest: the bases it `extends:` (read and loaded by the same
//! stages, each parsed once per run), and the `policies:` of the workspace file above it,
//! merged under it into one source map (`crate::manifest::extends`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use super::merge::{check_files, merge};
use super::parse::{normalize_breaks, parse_files};
use super::push;
use crate::manifest::diagnostic::Report;
use crate::manifest::extends;
use crate::manifest::source::{self, SourceFile, Within};
use crate::manifest::source_map::{Part, SourceMap, Span, Trees, key_span};
use crate::manifest::tree::Node;

/// The source map of a manifest: its own files' (`top`), or, when it `extends:` bases, the
/// bases read and loaded by the same stages and merged under it (`super::extends`). None
/// when a base could not be loaded (the report says why, on the `extends:` line or in the
/// base). `ceiling`, when given, is the highest folder the workspace file is looked for in.
pub(super) fn extend(report: &mut Report, top: Trees, ceiling: Option<&Path>) -> Option<SourceMap> {
    let bases = match extends::extends_of(&top) {
        Ok(b) => b,
        Err(span) => {
            push(
                report,
                "extends",
                span,
                "`extends` must be the path of a base manifest, or a list of them".into(),
                "write `extends: base.yaml` or `extends: [layout.yaml, bans.yaml]`, paths relative to this file".into(),
            );
            return None;
        }
    };
    let workspace = workspace_layer(report, ceiling);
    if report.has_errors() {
        return None;
    }
    if bases.is_empty() && workspace.is_none() {
        return Some(SourceMap::new(top));
    }
    let root = extends_root(&report.root, ceiling);
    let mut chain: Vec<PathBuf> = std::fs::canonicalize(&report.root).into_iter().collect();
    let mut layers = vec![extends::Layer {
        trees: top,
        bases: Vec::new(),
    }];
    // The workspace's policies lie under every layer: each guild of the workspace keeps them.
    if let Some(trees) = workspace {
        layers.push(extends::Layer {
            trees,
            bases: Vec::new(),
        });
        layers[0].bases.push(1);
    }
    add_bases(report, &mut layers, 0, bases, &mut chain, &root);
    if report.has_errors() {
        return None;
    }
    refuse_dropped_policies(report, &layers);
    if report.has_errors() {
        return None;
    }
    let mut all = layers.first()?.trees.clone();
    for l in &layers[1..] {
        all.trees.extend(l.trees.trees.iter().cloned());
    }
    Some(SourceMap::merged(all, Box::new(extends::Layers(layers))))
}

/// The folder bases must lie in: the nearest folder above the manifest holding a workspace
/// file (`guildctl.yaml`), else the manifest's own folder.
fn extends_root(manifest: &Path, ceiling: Option<&Path>) -> Within {
    let start = manifest_folder(manifest);
    match source::workspace_file_above(&start, ceiling)
        .as_deref()
        .and_then(Path::parent)
    {
        Some(workspace) => Within::workspace(workspace),
        None => Within::manifest_folder(&start),
    }
}

/// The manifest's folder (itself for a folder manifest), made absolute when it can be.
fn manifest_folder(manifest: &Path) -> PathBuf {
    let start = if manifest.is_dir() {
        manifest.to_path_buf()
    } else {
        match manifest.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    std::fs::canonicalize(&start).unwrap_or(start)
}

/// The `policies:` of the workspace file above the manifest, as a layer under it (its file
/// added to the report's, so its lines are shown); `None` when the manifest is in no
/// workspace or the workspace states no policy. Only `policies` is taken: the rest of the
/// file (`guilds`, `version`) is the workspace's own ([`super::Workspace`]).
fn workspace_layer(report: &mut Report, ceiling: Option<&Path>) -> Option<Trees> {
    let folder = manifest_folder(&report.root);
    let file = source::workspace_file_above(&folder, ceiling)?;
    let real = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
    if report
        .files
        .iter()
        .any(|f| std::fs::canonicalize(&f.path).is_ok_and(|p| p == real))
    {
        return None;
    }
    let within = Within::workspace(file.parent().unwrap_or(&folder));
    let read = source::read(&source::shown_path(&file), &within);
    let first = report.files.len();
    for p in read.problems {
        push(report, "read", None, p.message, p.help);
    }
    if report.has_errors() {
        return None;
    }
    report.files.extend(read.files);
    normalize_breaks(&mut report.files[first..]);
    let trees = parse_files(report, first, &read.usable);
    if report.has_errors() {
        return None;
    }
    let mut trees = merge(report, trees);
    let is_policies = |t: &Trees, part: &Part| -> bool {
        let Some((_, tree)) = t.trees.get(part.tree) else {
            return false;
        };
        let Node::Map(entries) = &tree.value else {
            return false;
        };
        entries
            .get(part.entry)
            .is_some_and(|(k, _)| k.value.0 == "policies")
    };
    let parts: Vec<Part> = trees
        .parts
        .iter()
        .filter(|p| is_policies(&trees, p))
        .cloned()
        .collect();
    if parts.is_empty() {
        report.files.truncate(first);
        return None;
    }
    trees.parts = parts;
    trees.keys.retain(|(k, _)| k == "policies");
    Some(trees)
}

/// A layer whose `policies` is not a list (`policies: null`) over layers that state policies:
/// the merge would take the value whole and drop every policy under it, so a guild's own
/// file (or a base) could remove what the workspace file or a base it extends requires. An
/// error on that line: a policy is changed only in the file that defines it.
fn refuse_dropped_policies(report: &mut Report, layers: &[extends::Layer]) {
    /// The layer's `policies:` key, and whether its value is a list with items (`None` for
    /// a value that is no list).
    fn policies_of(trees: &Trees) -> Option<(Option<Span>, Option<bool>)> {
        trees.parts.iter().find_map(|part| {
            let (file, tree) = trees.trees.get(part.tree)?;
            let Node::Map(entries) = &tree.value else {
                return None;
            };
            let (k, v) = entries.get(part.entry)?;
            (k.value.0 == "policies").then(|| {
                let listed = match &v.value {
                    Node::Seq(items) => Some(!items.is_empty()),
                    _ => None,
                };
                (key_span(*file, k), listed)
            })
        })
    }
    fn states_policies(layers: &[extends::Layer], i: usize) -> bool {
        policies_of(&layers[i].trees).is_some_and(|(_, listed)| listed == Some(true))
            || layers[i].bases.iter().any(|&b| states_policies(layers, b))
    }
    for layer in layers {
        let Some((at, None)) = policies_of(&layer.trees) else {
            continue;
        };
        if !layer.bases.iter().any(|&b| states_policies(layers, b)) {
            continue;
        }
        push(
            report,
            "extends",
            at,
            "`policies` here is not a list, so it would drop the policies of the workspace file (guildctl.yaml) and the bases under this file: they cannot be removed from here".into(),
            "remove this line (or make it a list of this file's own policies): every layer's policies are kept, and a policy is changed only in the file that defines it".into(),
        );
    }
}

/// Bases parsed in this process, by canonical path: a workspace run loads the base that
/// 100 guilds extend once, not 100 times. A base is still read for every guild (its text
/// is the guild's report's and its plan's digest's), and its parse is reused only when
/// the text read is the text parsed, so a base edited between two loads is parsed again.
/// Only bases that loaded without a problem are kept: a broken one is reported in full
/// by every guild that extends it.
struct BaseCache {
    is_dir: bool,
    /// The files as parsed (line breaks normalized), in read order.
    files: Vec<SourceFile>,
    /// The base's trees and `extends:`, with file indexes counted from its first file.
    trees: Trees,
    sub: Vec<(String, Span)>,
}

/// The most bases kept: more distinct bases than this in one run are parsed again.
const MAX_CACHED_BASES: usize = 64;

static BASES: Mutex<Vec<(PathBuf, Arc<BaseCache>)>> = Mutex::new(Vec::new());

/// Held while a base that is not kept is parsed (see [`add_bases`]).
static PARSING: Mutex<()> = Mutex::new(());

impl BaseCache {
    fn get(real: &Path, is_dir: bool, files: &[SourceFile]) -> Option<Arc<BaseCache>> {
        let bases = BASES.lock().ok()?;
        let (_, hit) = bases.iter().find(|(p, _)| p == real)?;
        (hit.is_dir == is_dir && hit.files == files).then(|| Arc::clone(hit))
    }

    fn put(
        real: PathBuf,
        is_dir: bool,
        files: &[SourceFile],
        trees: &Trees,
        sub: &[(String, Span)],
        first: usize,
    ) {
        let Ok(mut bases) = BASES.lock() else {
            return;
        };
        let entry = Arc::new(BaseCache {
            is_dir,
            files: files.to_vec(),
            // Its JSON made once too, when the first guild's merge asks for it.
            trees: Trees {
                json: Some(Arc::new(OnceLock::new())),
                ..shifted(trees, first, false)
            },
            sub: sub
                .iter()
                .map(|(rel, s)| (rel.clone(), shift(*s, first, false)))
                .collect(),
        });
        bases.retain(|(p, _)| *p != real);
        if bases.len() >= MAX_CACHED_BASES {
            bases.remove(0);
        }
        bases.push((real, entry));
    }

    /// The trees and `extends:` for a report whose files from `first` on are this base's.
    fn placed(&self, first: usize) -> (Trees, Vec<(String, Span)>) {
        (
            shifted(&self.trees, first, true),
            self.sub
                .iter()
                .map(|(rel, s)| (rel.clone(), shift(*s, first, true)))
                .collect(),
        )
    }
}

/// A span with its file index moved by `by` (up, or down to count from a base's first file).
fn shift(mut s: Span, by: usize, up: bool) -> Span {
    s.file = if up { s.file + by } else { s.file - by };
    s
}

fn shifted(trees: &Trees, by: usize, up: bool) -> Trees {
    let mut t = trees.clone();
    for (file, _) in &mut t.trees {
        *file = if up { *file + by } else { *file - by };
    }
    t.root = t.root.map(|s| shift(s, by, up));
    for (_, s) in &mut t.keys {
        *s = shift(*s, by, up);
    }
    t
}

/// Reads and loads the bases of layer `at`, and theirs, adding them as layers.
fn add_bases(
    report: &mut Report,
    layers: &mut Vec<extends::Layer>,
    at: usize,
    bases: Vec<(String, Span)>,
    chain: &mut Vec<PathBuf>,
    root: &Within,
) {
    for (rel, span) in bases {
        let refuse = |report: &mut Report, message: String, help: &str| {
            push(report, "extends", Some(span), message, help.to_string());
        };
        if layers.len() > extends::MAX_BASES {
            refuse(
                report,
                format!(
                    "a manifest may be built on at most {} bases",
                    extends::MAX_BASES
                ),
                "merge some of the bases",
            );
            return;
        }
        let from = report.files[span.file]
            .path
            .parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let path = source::shown_path(&from.join(&rel));
        let shown = format!("the base manifest {rel} ({})", path.display());
        let real = match source::resolve(&path, &shown, root) {
            Ok(r) => r.real,
            Err(refused) => {
                let help = if refused.is_outside() {
                    refused.help_outside()
                } else {
                    "the path is relative to the file that writes `extends:`".into()
                };
                refuse(report, refused.to_string(), &help);
                continue;
            }
        };
        if chain.contains(&real) {
            refuse(
                report,
                format!("the base manifest {rel} extends itself (through its bases)"),
                "remove the `extends:` that closes the circle",
            );
            continue;
        }
        let read = source::read(&path, root);
        let first = report.files.len();
        report.files.extend(read.files);
        normalize_breaks(&mut report.files[first..]);
        let read_problems = !read.problems.is_empty();
        for p in read.problems {
            let at = match (p.file, p.at) {
                (Some(file), Some((line, column))) => Some(Span {
                    file: first + file,
                    line,
                    column,
                    len: 1,
                }),
                _ => Some(span),
            };
            push(report, "read", at, p.message, p.help);
        }
        if read_problems {
            continue;
        }
        // One parse of a base per run: guilds loaded side by side wait for the first
        // to parse it rather than each parsing it too.
        let mut cached = BaseCache::get(&real, read.is_dir, &report.files[first..]);
        let one_parse = cached.is_none().then(|| PARSING.lock().ok()).flatten();
        if one_parse.is_some() {
            cached = BaseCache::get(&real, read.is_dir, &report.files[first..]);
        }
        let (trees, sub) = match cached {
            Some(hit) => hit.placed(first),
            None => {
                let trees = parse_files(report, first, &read.usable);
                let before = report.items.len();
                check_files(report, read.is_dir, &trees);
                if report.items.len() > before || report.has_errors() {
                    continue;
                }
                let trees = merge(report, trees);
                if let Some(g) = extends::guild_in(&trees) {
                    push(
                        report,
                        "extends",
                        Some(g),
                        format!("the base manifest {rel} names a guild; a base is shared by the guilds that extend it"),
                        "remove `guild:` from the base; each guild's own manifest (or guildctl.yaml) names its guild".into(),
                    );
                    continue;
                }
                let sub = match extends::extends_of(&trees) {
                    Ok(s) => s,
                    Err(s) => {
                        push(
                            report,
                            "extends",
                            s,
                            "`extends` must be the path of a base manifest, or a list of them"
                                .into(),
                            "write `extends: base.yaml`".into(),
                        );
                        continue;
                    }
                };
                BaseCache::put(
                    real.clone(),
                    read.is_dir,
                    &report.files[first..],
                    &trees,
                    &sub,
                    first,
                );
                (trees, sub)
            }
        };
        // Released before its own bases are read, which take it again.
        drop(one_parse);
        let index = layers.len();
        layers.push(extends::Layer {
            trees,
            bases: Vec::new(),
        });
        layers[at].bases.push(index);
        chain.push(real);
        add_bases(report, layers, index, sub, chain, root);
        chain.pop();
    }
}
