//! The walls of the house, held by a test: every import of a room by another runs down the
//! floors table of docs/architecture.md, and no module imports one that imports it (in
//! guildctl, the emulator and the permissions crate). The source is read as text, as a
//! reader of the imports would read it: `use` trees and `crate::`, `super::`, `self::` and
//! `guildctl::` paths in code (comments and string literals are not code), with `super::`
//! resolved and names re-exported by a module followed to the module defining them.
//!
//! A folder's face (`mod.rs`, or a crate's `lib.rs`/`main.rs`) names its modules and may use
//! them, and they may use what it holds: the arrows from a face down into its own folder
//! are not counted in circles (docs/architecture.md, "The house").

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod lex;
mod sizes;

use lex::{Tok, Token, ident, lex};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Circles known and being taken apart elsewhere, each by its files exactly: any other
/// circle fails, and so does one of these once it is gone, so the list only shrinks.
const KNOWN_CIRCLES: &[&[&str]] = &[];

#[test]
fn every_import_runs_down_the_floors_and_no_module_imports_one_that_imports_it() {
    let root = Path::new(ROOT);
    let doc =
        std::fs::read_to_string(root.join("docs/architecture.md")).expect("docs/architecture.md");
    let floors = Floors::parse(&doc).unwrap_or_else(|e| panic!("docs/architecture.md: {e}"));
    // guildctl's two leaf rooms are crates of their own, mounted in its lib.rs
    // (`pub use guildctl_discord as discord;`): their files are read as those rooms, so the
    // floors hold across the crate line too.
    let crates = [
        CrateRoot::new("guildctl", "src/lib.rs", GUILDCTL_EXTERNS),
        CrateRoot::new("guildctl-bin", "src/main.rs", GUILDCTL_BIN_EXTERNS),
        CrateRoot::new(
            "guildctl-discord",
            "crates/discord/src/lib.rs",
            &[("guildctl_inert", "guildctl-inert")],
        )
        .mounted_as("discord"),
        CrateRoot::new("guildctl-inert", "crates/inert/src/lib.rs", &[]).mounted_as("inert"),
        CrateRoot::new("discord-emulator", "crates/emulator/src/lib.rs", &[]),
        CrateRoot::new(
            "discord-emulator-bin",
            "crates/emulator/src/main.rs",
            &[("discord_emulator", "discord-emulator")],
        ),
        CrateRoot::new(
            "discord-permissions",
            "crates/discord-permissions/src/lib.rs",
            &[],
        ),
    ];
    let house = House::read(&crates, |path| {
        std::fs::read_to_string(root.join(path)).ok()
    });
    let mut problems = house.problems;
    problems.extend(house.graph.up_the_floors(&floors, &GUILDCTL_CRATES));
    let mut known: Vec<&[&str]> = KNOWN_CIRCLES.to_vec();
    for circle in house.graph.circles() {
        match known.iter().position(|k| {
            k.iter()
                .map(|f| f.to_string())
                .eq(circle.files.iter().cloned())
        }) {
            Some(k) => drop(known.remove(k)),
            None => problems.push(circle.to_string()),
        }
    }
    problems.extend(known.iter().map(|k| {
        format!(
            "the known circle of {} is gone: remove it from KNOWN_CIRCLES",
            k.join(", ")
        )
    }));
    assert!(
        problems.is_empty(),
        "the walls of docs/architecture.md do not hold:\n{}",
        problems.join("\n")
    );
    // The reading found the house: every source file on disk is a module read, and the
    // imports are many (a reading that found none would pass vacuously).
    let mut on_disk = Vec::new();
    for dir in [
        "src",
        "crates/discord/src",
        "crates/inert/src",
        "crates/emulator/src",
        "crates/discord-permissions/src",
    ] {
        rust_files(root, Path::new(dir), &mut on_disk);
    }
    on_disk.sort();
    let mut read: Vec<PathBuf> = house.graph.files.iter().map(|f| f.path.clone()).collect();
    read.sort();
    assert_eq!(
        read, on_disk,
        "the files read are not the source files on disk"
    );
    assert!(
        house.graph.edges.len() > 1000,
        "only {} imports read",
        house.graph.edges.len()
    );
}

/// The checker itself, on a small house: an import running up, one sideways on a floor, a
/// circle of two files, a room missing from the table, and what it must not count.
#[test]
fn the_checker_names_the_line_of_each_import_up_and_of_each_circle() {
    let table = "\
| floor | room | imports of guildctl |
|---|---|---|
| 1 | `low` | nothing |
| 2 | `mid`, `side` | `low` |
| 3 | `top` | any room below |
";
    let floors = Floors::parse(table).unwrap();
    let files: BTreeMap<&str, &str> = BTreeMap::from([
        (
            "src/lib.rs",
            "pub mod low;\npub mod mid;\npub mod side;\npub mod top;\npub mod extra;\n",
        ),
        (
            "src/low.rs",
            "//! Names `crate::top` in a comment only.\nconst S: &str = \"crate::mid::X\";\nuse crate::mid::Thing;\n",
        ),
        (
            "src/mid/mod.rs",
            "mod a;\nmod b;\nmod c;\npub use a::Thing;\nuse crate::low;\nfn f() { c::g(); crate::side::h(); }\n",
        ),
        ("src/mid/a.rs", "pub struct Thing;\nuse super::b::B;\n"),
        (
            "src/mid/b.rs",
            "pub struct B;\nuse super::{\n    Thing,\n};\n",
        ),
        // Uses its face's names: not a circle with it.
        (
            "src/mid/c.rs",
            "use super::*;\npub fn g() {}\n#[cfg(test)]\nmod tests {\n    use super::super::c;\n}\n",
        ),
        ("src/side.rs", "pub fn h() {}\n"),
        ("src/top.rs", "use crate::{low, mid::Thing};\n"),
        ("src/extra.rs", "use crate::low;\n"),
    ]);
    let house = House::read(&[CrateRoot::new("c", "src/lib.rs", &[])], |p| {
        files.get(p.to_str()?).map(|s| s.to_string())
    });
    assert_eq!(house.problems, Vec::<String>::new());
    let mut problems = house.graph.up_the_floors(&floors, &["c"]);
    problems.extend(house.graph.circles().iter().map(Circle::to_string));
    assert_eq!(
        problems,
        [
            "src/extra.rs: the room `extra` is not in the floors table: add it as a row on the floor above the rooms it imports",
            "src/low.rs:3: `low` (floor 1) imports `mid` (floor 2): a room imports only rooms on the floors below it",
            "src/mid/mod.rs:6: `mid` (floor 2) imports `side` (floor 2): a room imports only rooms on the floors below it",
            "circle of 2 modules: src/mid/a.rs, src/mid/b.rs\n  src/mid/a.rs:2 imports src/mid/b.rs\n  src/mid/b.rs:3 imports src/mid/a.rs",
        ]
    );
}

/// A room that is a crate of its own, mounted by the library (`pub use c_low as low;`): its
/// files are that room, the library's paths through the mount reach them, and an import of
/// a room above from inside the crate is found as one from any other room.
#[test]
fn a_room_that_is_a_crate_is_held_by_the_floors_across_the_crate_line() {
    let table = "\
| floor | room | imports of guildctl |
|---|---|---|
| 1 | `low` | nothing |
| 2 | `mid` | `low` |
| 3 | `top` | any room below |
";
    let floors = Floors::parse(table).unwrap();
    let files: BTreeMap<&str, &str> = BTreeMap::from([
        (
            "src/lib.rs",
            "pub use c_low as low;\npub use c_mid as mid;\npub mod top;\n",
        ),
        ("src/top.rs", "use crate::low::Thing;\nuse crate::mid::M;\n"),
        ("low/lib.rs", "mod thing;\npub use thing::Thing;\n"),
        ("low/thing.rs", "pub struct Thing;\nuse c_mid::M;\n"),
        ("mid/lib.rs", "pub struct M;\nuse c_low::Thing;\n"),
    ]);
    let crates = [
        CrateRoot::new("c", "src/lib.rs", &[("c_low", "c-low"), ("c_mid", "c-mid")]),
        CrateRoot::new("c-low", "low/lib.rs", &[("c_mid", "c-mid")]).mounted_as("low"),
        CrateRoot::new("c-mid", "mid/lib.rs", &[("c_low", "c-low")]).mounted_as("mid"),
    ];
    let house = House::read(&crates, |p| files.get(p.to_str()?).map(|s| s.to_string()));
    assert_eq!(house.problems, Vec::<String>::new());
    let edges: Vec<(String, String)> = house
        .graph
        .edges
        .iter()
        .map(|e| {
            let name = |i: usize| house.graph.files[i].path.display().to_string();
            (name(e.from), name(e.to))
        })
        .collect();
    for through_the_mount in [("src/top.rs", "low/thing.rs"), ("src/top.rs", "mid/lib.rs")] {
        assert!(
            edges.contains(&(through_the_mount.0.into(), through_the_mount.1.into())),
            "{through_the_mount:?} not in {edges:?}"
        );
    }
    assert_eq!(
        house.graph.up_the_floors(&floors, &["c", "c-low", "c-mid"]),
        [
            "low/thing.rs:2: `low` (floor 1) imports `mid` (floor 2): a room imports only rooms on the floors below it"
        ]
    );
}

/// The crates split from guildctl are released with it, at its version: the Discord
/// client's User-Agent names guildctl-discord's (docs/discord.md §1.4).
#[test]
fn the_crates_of_guildctls_rooms_have_its_version() {
    for manifest in ["crates/discord/Cargo.toml", "crates/inert/Cargo.toml"] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(manifest)).expect(manifest);
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix("version = \""))
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{manifest}: no `version = \"…\"`"));
        assert_eq!(
            version,
            env!("CARGO_PKG_VERSION"),
            "{manifest}: released with guildctl, so at its version"
        );
    }
}

/// The crates whose imports the floors table holds: guildctl's library and binary, and
/// the crates its leaf rooms are.
const GUILDCTL_CRATES: [&str; 4] = [
    "guildctl",
    "guildctl-bin",
    "guildctl-discord",
    "guildctl-inert",
];

/// How guildctl's library names the crates of its rooms.
const GUILDCTL_EXTERNS: &[(&str, &str)] = &[
    ("guildctl_discord", "guildctl-discord"),
    ("guildctl_inert", "guildctl-inert"),
];

/// How guildctl's binary names its library and the crates of its rooms.
const GUILDCTL_BIN_EXTERNS: &[(&str, &str)] = &[
    ("guildctl", "guildctl"),
    ("guildctl_discord", "guildctl-discord"),
    ("guildctl_inert", "guildctl-inert"),
];

/// A crate to read: its root file, and the names under which it reaches other crates
/// read with it (`guildctl::` in the binary is the library's `crate::`).
struct CrateRoot {
    name: &'static str,
    root: &'static str,
    externs: &'static [(&'static str, &'static str)],
    /// The room of the floors table the whole crate is (`None`: each top module of the
    /// crate is a room).
    room: Option<&'static str>,
}

impl CrateRoot {
    const fn new(
        name: &'static str,
        root: &'static str,
        externs: &'static [(&'static str, &'static str)],
    ) -> Self {
        CrateRoot {
            name,
            root,
            externs,
            room: None,
        }
    }

    /// The crate as one room of the floors table.
    const fn mounted_as(self, room: &'static str) -> Self {
        CrateRoot {
            room: Some(room),
            ..self
        }
    }
}

/// The floors table: each room's floor.
struct Floors {
    floor: BTreeMap<String, u32>,
}

impl Floors {
    /// Reads the markdown table whose header is `| floor | room | …`: a row per floor
    /// (or per room), the rooms in backticks.
    fn parse(doc: &str) -> Result<Floors, String> {
        let mut lines = doc
            .lines()
            .skip_while(|l| !l.starts_with("| floor | room |"));
        lines
            .next()
            .ok_or("no table with the header `| floor | room | …`")?;
        let mut floor = BTreeMap::new();
        for line in lines.skip(1).take_while(|l| l.starts_with('|')) {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let [_, number, rooms, imports, ..] = cells[..] else {
                return Err(format!(
                    "a row of the floors table has too few cells: {line}"
                ));
            };
            let number: u32 = number
                .parse()
                .map_err(|_| format!("not a floor number: {line}"))?;
            for room in ticked(rooms) {
                if floor.insert(room.to_string(), number).is_some() {
                    return Err(format!("`{room}` is in the floors table twice"));
                }
            }
            // The third column says what the room imports; it may not name a room that is
            // not below it.
            // (A crate, like `discord-permissions`, is not a room.)
            for named in ticked(imports).filter(|n| !n.contains('-')) {
                if let Some(&f) = floor.get(named) {
                    if f >= number {
                        return Err(format!(
                            "the row `{line}` names `{named}`, which is not below it"
                        ));
                    }
                } else {
                    return Err(format!(
                        "the row `{line}` names `{named}`, which is not a room below it"
                    ));
                }
            }
        }
        if floor.is_empty() {
            return Err("the floors table has no rows".into());
        }
        Ok(Floors { floor })
    }
}

fn rust_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
    let entries =
        std::fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let name = entry.expect("a folder entry").file_name();
        let path = dir.join(&name);
        if root.join(&path).is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn ticked(cell: &str) -> impl Iterator<Item = &str> {
    cell.split('`').skip(1).step_by(2)
}

// ---------------------------------------------------------------------------------------
// One file, read: the modules it declares, what it defines and re-exports, its imports.

/// A path as written, with the line of its last segment and the inline modules it is in.
#[derive(Debug, Clone)]
struct Written {
    segments: Vec<String>,
    line: usize,
    inline: Vec<String>,
}

#[derive(Debug, Default)]
struct Read {
    /// `mod name;` at the top of the file.
    declares: Vec<String>,
    /// Items defined at the top of the file.
    defines: BTreeSet<String>,
    /// `pub use` at the top of the file: the name it is known by here, and its path.
    reexports: Vec<(String, Written)>,
    /// Every path the file imports or names.
    imports: Vec<Written>,
}

fn read(src: &str) -> Read {
    let toks = lex(src);
    let mut r = Read::default();
    let mut depth = 0usize;
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].tok {
            Tok::Open => depth += 1,
            Tok::Close => {
                depth = depth.saturating_sub(1);
                while inline.last().is_some_and(|&(_, d)| d > depth) {
                    inline.pop();
                }
            }
            Tok::Ident(w)
                if w == "pub" && toks.get(i + 1).map(|t| &t.tok) == Some(&Tok::Other('(')) =>
            {
                // A visibility, `pub(in crate::x)` included: no import.
                while i < toks.len() && toks[i].tok != Tok::Other(')') {
                    i += 1;
                }
            }
            Tok::Ident(w) if w == "mod" => {
                if let Some(name) = ident(toks.get(i + 1)) {
                    match toks.get(i + 2).map(|t| &t.tok) {
                        Some(Tok::Semi) if depth == 0 => r.declares.push(name.to_string()),
                        Some(Tok::Open) => {
                            if depth == 0 {
                                r.defines.insert(name.to_string());
                            }
                            inline.push((name.to_string(), depth + 1));
                        }
                        _ => {}
                    }
                }
            }
            Tok::Ident(w)
                if depth == 0
                    && matches!(
                        w.as_str(),
                        "fn" | "struct" | "enum" | "const" | "static" | "type" | "trait" | "union"
                    ) =>
            {
                if let Some(name) = ident(toks.get(i + 1)) {
                    r.defines.insert(name.to_string());
                }
            }
            Tok::Ident(w) if w == "use" => {
                let public = i > 0
                    && (ident(toks.get(i - 1)) == Some("pub")
                        || toks[i - 1].tok == Tok::Other(')'));
                let mut trees = Vec::new();
                i += 1;
                use_tree(&toks, &mut i, Vec::new(), &mut trees);
                let at = names(&inline);
                for (segments, line, alias) in trees {
                    let mut segments = segments;
                    if segments.last().is_some_and(|s| s == "self") {
                        segments.pop();
                    }
                    if segments.is_empty() {
                        continue;
                    }
                    let written = Written {
                        segments,
                        line,
                        inline: at.clone(),
                    };
                    if public && inline.is_empty() {
                        let name = alias.unwrap_or_else(|| {
                            written.segments.last().cloned().unwrap_or_default()
                        });
                        r.reexports.push((name, written.clone()));
                    }
                    r.imports.push(written);
                }
                continue;
            }
            Tok::Ident(w)
                if matches!(
                    w.as_str(),
                    "crate"
                        | "super"
                        | "self"
                        | "guildctl"
                        | "guildctl_discord"
                        | "guildctl_inert"
                        | "discord_emulator"
                ) && toks.get(i + 1).map(|t| &t.tok) == Some(&Tok::PathSep)
                    && (i == 0 || toks[i - 1].tok != Tok::PathSep) =>
            {
                let mut segments = vec![w.clone()];
                let mut line = toks[i].line;
                let mut j = i + 1;
                while toks.get(j).map(|t| &t.tok) == Some(&Tok::PathSep) {
                    match ident(toks.get(j + 1)) {
                        Some(s) => {
                            segments.push(s.to_string());
                            line = toks[j + 1].line;
                            j += 2;
                        }
                        None => break,
                    }
                }
                r.imports.push(Written {
                    segments,
                    line,
                    inline: names(&inline),
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    r
}

fn names(inline: &[(String, usize)]) -> Vec<String> {
    inline.iter().map(|(n, _)| n.clone()).collect()
}

/// A `use` tree from `toks[*i]` to its `;`: each leaf's path, line and alias.
fn use_tree(
    toks: &[Token],
    i: &mut usize,
    mut prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, usize, Option<String>)>,
) {
    let mut line = toks.get(*i).map_or(0, |t| t.line);
    while let Some(t) = toks.get(*i) {
        match &t.tok {
            Tok::PathSep => *i += 1,
            Tok::Ident(s) if s != "as" => {
                prefix.push(s.clone());
                line = t.line;
                *i += 1;
                if toks.get(*i).map(|t| &t.tok) != Some(&Tok::PathSep) {
                    break;
                }
            }
            Tok::Star => {
                prefix.push("*".into());
                line = t.line;
                *i += 1;
                break;
            }
            Tok::Open => {
                *i += 1;
                while let Some(t) = toks.get(*i) {
                    match t.tok {
                        Tok::Close => {
                            *i += 1;
                            break;
                        }
                        Tok::Comma => *i += 1,
                        _ => use_tree(toks, i, prefix.clone(), out),
                    }
                }
                if toks.get(*i).map(|t| &t.tok) == Some(&Tok::Semi) {
                    *i += 1;
                }
                return;
            }
            _ => break,
        }
    }
    let mut alias = None;
    if ident(toks.get(*i)) == Some("as") {
        alias = ident(toks.get(*i + 1)).map(str::to_string);
        *i += 2;
    }
    if toks.get(*i).map(|t| &t.tok) == Some(&Tok::Semi) {
        *i += 1;
    }
    out.push((prefix, line, alias));
}

// ---------------------------------------------------------------------------------------
// The house: every file of the crates, as a module, and the imports between them.

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Module {
    krate: &'static str,
    path: Vec<String>,
}

struct File {
    module: Module,
    path: PathBuf,
    /// `mod.rs`, `lib.rs` or `main.rs`: the face of its folder.
    face: bool,
    read: Read,
}

struct Edge {
    from: usize,
    to: usize,
    line: usize,
}

struct Graph {
    files: Vec<File>,
    edges: Vec<Edge>,
    /// The crates that are one room each, and their room.
    crate_rooms: Vec<(&'static str, &'static str)>,
}

struct House {
    graph: Graph,
    /// What could not be read (a declared module without a file).
    problems: Vec<String>,
}

impl House {
    fn read(crates: &[CrateRoot], source: impl Fn(&Path) -> Option<String>) -> House {
        let mut files = Vec::new();
        let mut problems = Vec::new();
        for c in crates {
            let mut todo = vec![(PathBuf::from(c.root), Vec::<String>::new(), true)];
            while let Some((path, module, face)) = todo.pop() {
                let Some(src) = source(&path) else {
                    problems.push(format!("{}: declared but not found", path.display()));
                    continue;
                };
                let read = read(&src);
                let dir = if face {
                    path.parent().map(Path::to_path_buf).unwrap_or_default()
                } else {
                    path.with_extension("")
                };
                for name in &read.declares {
                    let mut child = module.clone();
                    child.push(name.clone());
                    let flat = dir.join(format!("{name}.rs"));
                    if source(&flat).is_some() {
                        todo.push((flat, child, false));
                    } else {
                        todo.push((dir.join(name).join("mod.rs"), child, true));
                    }
                }
                files.push(File {
                    module: Module {
                        krate: c.name,
                        path: module,
                    },
                    path,
                    face,
                    read,
                });
            }
        }
        let by_module: BTreeMap<Module, usize> = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let resolver = Resolver {
            crates,
            files: &files,
            by_module: &by_module,
        };
        let mut edges = Vec::new();
        for (from, f) in files.iter().enumerate() {
            for w in &f.read.imports {
                let Some(target) = resolver.absolute(f, w) else {
                    continue;
                };
                if let Some(to) = resolver.file_of(&target, 0)
                    && to != from
                {
                    edges.push(Edge {
                        from,
                        to,
                        line: w.line,
                    });
                }
            }
        }
        House {
            graph: Graph {
                files,
                edges,
                crate_rooms: crates
                    .iter()
                    .filter_map(|c| Some((c.name, c.room?)))
                    .collect(),
            },
            problems,
        }
    }
}

struct Resolver<'a> {
    crates: &'a [CrateRoot],
    files: &'a [File],
    by_module: &'a BTreeMap<Module, usize>,
}

impl Resolver<'_> {
    /// The module path a written path names, in its crate; `None` for another crate's.
    fn absolute(&self, f: &File, w: &Written) -> Option<Module> {
        let krate = f.module.krate;
        let mut here = f.module.path.clone();
        here.extend(w.inline.iter().cloned());
        let (first, rest) = w.segments.split_first()?;
        let c = self.crates.iter().find(|c| c.name == krate)?;
        let path = match first.as_str() {
            "crate" => rest.to_vec(),
            "self" => [here, rest.to_vec()].concat(),
            "super" => {
                let mut segs = w.segments.as_slice();
                while segs.first().is_some_and(|s| s == "super") {
                    here.pop();
                    segs = &segs[1..];
                }
                [here, segs.to_vec()].concat()
            }
            name => {
                if let Some(&(_, other)) = c.externs.iter().find(|(alias, _)| *alias == name) {
                    return Some(Module {
                        krate: self.crate_named(other)?,
                        path: rest.to_vec(),
                    });
                }
                // Relative to this module: only a module declared in it; any other first
                // segment is another crate, or a name imported here by a `use` read already.
                let candidate = [here.clone(), vec![name.to_string()]].concat();
                let module = Module {
                    krate,
                    path: candidate,
                };
                if !self.by_module.contains_key(&module) {
                    return None;
                }
                [here, w.segments.clone()].concat()
            }
        };
        Some(Module { krate, path })
    }

    fn crate_named(&self, name: &str) -> Option<&'static str> {
        self.crates.iter().find(|c| c.name == name).map(|c| c.name)
    }

    /// The file holding what a module path names: its longest prefix that is a file,
    /// following that file's re-exports to where a name is defined.
    fn file_of(&self, target: &Module, hops: usize) -> Option<usize> {
        if hops > 16 {
            return None;
        }
        let (file, len) = (0..=target.path.len()).rev().find_map(|n| {
            let prefix = Module {
                krate: target.krate,
                path: target.path[..n].to_vec(),
            };
            self.by_module.get(&prefix).map(|&i| (i, n))
        })?;
        let rest = &target.path[len..];
        let Some(name) = rest.first().filter(|n| *n != "*") else {
            return Some(file);
        };
        let f = &self.files[file];
        if f.read.defines.contains(name) {
            return Some(file);
        }
        for (known_as, w) in &f.read.reexports {
            let glob = w.segments.last().is_some_and(|s| s == "*");
            if known_as == name && !glob {
                let mut next = self.absolute(f, w)?;
                next.path.extend(rest[1..].iter().cloned());
                return self.file_of(&next, hops + 1);
            }
        }
        for (_, w) in f
            .read
            .reexports
            .iter()
            .filter(|(_, w)| w.segments.last().is_some_and(|s| s == "*"))
        {
            let Some(mut source) = self.absolute(f, w) else {
                continue;
            };
            source.path.pop();
            let Some(s) = self.file_of(&source, hops + 1) else {
                continue;
            };
            let holds = self.files[s].read.defines.contains(name)
                || self.files[s].read.reexports.iter().any(|(n, _)| n == name);
            if holds {
                source.path.extend(rest.iter().cloned());
                return self.file_of(&source, hops + 1);
            }
        }
        Some(file)
    }
}

impl Graph {
    /// A file's room: its crate's, for a crate that is one room; else the first module of
    /// its path (`main` for the binary's root); `None` for a library's root, the crate's face.
    fn room(&self, i: usize) -> Option<String> {
        let f = &self.files[i];
        if let Some(&(_, room)) = self.crate_rooms.iter().find(|(c, _)| *c == f.module.krate) {
            return Some(room.to_string());
        }
        match f.module.path.first() {
            Some(room) => Some(room.clone()),
            None if f.module.krate.ends_with("-bin") => Some("main".into()),
            None => None,
        }
    }

    /// Each import of a room by a room on its floor or above, and each room missing from
    /// the table, in the crates named.
    fn up_the_floors(&self, floors: &Floors, crates: &[&str]) -> Vec<String> {
        let mut problems = BTreeSet::new();
        let in_scope = |i: usize| crates.contains(&self.files[i].module.krate);
        for i in (0..self.files.len()).filter(|&i| in_scope(i)) {
            if let Some(room) = self.room(i)
                && !floors.floor.contains_key(&room)
            {
                problems.insert(format!(
                    "{}: the room `{room}` is not in the floors table: add it as a row on the floor above the rooms it imports",
                    self.files[i].path.display()
                ));
            }
        }
        for e in self
            .edges
            .iter()
            .filter(|e| in_scope(e.from) && in_scope(e.to))
        {
            let (Some(from), Some(to)) = (self.room(e.from), self.room(e.to)) else {
                continue;
            };
            if from == to {
                continue;
            }
            let (Some(&high), Some(&low)) = (floors.floor.get(&from), floors.floor.get(&to)) else {
                continue;
            };
            if low >= high {
                problems.insert(format!(
                    "{}:{}: `{from}` (floor {high}) imports `{to}` (floor {low}): a room imports only rooms on the floors below it",
                    self.files[e.from].path.display(),
                    e.line
                ));
            }
        }
        problems.into_iter().collect()
    }

    /// Each circle of modules (a strongly connected set of files), with the lines of the
    /// imports that close it. A face's imports of its own folder are not counted.
    fn circles(&self) -> Vec<Circle> {
        let counted: Vec<&Edge> = self
            .edges
            .iter()
            .filter(|e| {
                let (from, to) = (&self.files[e.from], &self.files[e.to]);
                let into_own_folder = from.face
                    && from.module.krate == to.module.krate
                    && to.module.path.starts_with(&from.module.path);
                !into_own_folder
            })
            .collect();
        let mut next = vec![Vec::new(); self.files.len()];
        for e in &counted {
            next[e.from].push(e.to);
        }
        let mut out = Vec::new();
        for component in strongly_connected(&next) {
            if component.len() < 2 {
                continue;
            }
            let mut names: Vec<String> = component
                .iter()
                .map(|&i| self.files[i].path.display().to_string())
                .collect();
            names.sort();
            let mut closing: Vec<(&Path, usize, &Path)> = counted
                .iter()
                .filter(|e| component.contains(&e.from) && component.contains(&e.to))
                .map(|e| {
                    (
                        self.files[e.from].path.as_path(),
                        e.line,
                        self.files[e.to].path.as_path(),
                    )
                })
                .collect();
            closing.sort();
            closing.dedup();
            let lines = closing
                .into_iter()
                .map(|(from, line, to)| {
                    format!("{}:{line} imports {}", from.display(), to.display())
                })
                .collect();
            out.push(Circle {
                files: names,
                imports: lines,
            });
        }
        out.sort_by(|a, b| a.files.cmp(&b.files));
        out
    }
}

/// The files of one circle, sorted, and the imports that close it (`file:line imports file`).
struct Circle {
    files: Vec<String>,
    imports: Vec<String>,
}

impl std::fmt::Display for Circle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "circle of {} modules: {}",
            self.files.len(),
            self.files.join(", ")
        )?;
        for line in &self.imports {
            write!(f, "\n  {line}")?;
        }
        Ok(())
    }
}

/// Tarjan's strongly connected components of a graph given as each node's successors.
fn strongly_connected(next: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'a> {
        next: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        counter: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.counter);
        s.low[v] = s.counter;
        s.counter += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.next[v].len() {
            let w = s.next[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            s.out.push(component);
        }
    }
    let n = next.len();
    let mut s = State {
        next,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        counter: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
