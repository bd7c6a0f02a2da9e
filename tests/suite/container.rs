//! Every container image the project builds from or runs in is pinned by digest, its tag
//! beside it (`rust:1.95.0-alpine3.23@sha256:…`): the Dockerfile's `FROM` lines, and every
//! `image:` (and GitHub's `container:`) in the CI files and in the YAML examples of the
//! docs that show them. A tag can be pushed again with other content; a digest cannot
//! (docs/container.md, "Pinned by digest").

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Images whose digest is not known yet, each with where it is: the GitLab component's
/// default is the release's own image, whose digest exists only once the release workflow
/// has pushed it. When one is pinned, its entry goes (the test fails until then, so the
/// list stays true).
const AWAITING_DIGEST: &[(&str, &str)] =
    &[("templates/guildctl.yml", "ghcr.io/guildctl/guildctl:0.1.0")];

/// `name:tag@sha256:<64 lowercase hex>`.
fn pinned(reference: &str) -> bool {
    let Some((named, digest)) = reference.split_once("@sha256:") else {
        return false;
    };
    let tagged = named
        .rsplit('/')
        .next()
        .is_some_and(|last| last.split_once(':').is_some_and(|(_, tag)| !tag.is_empty()));
    tagged
        && digest.len() == 64
        && digest
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

/// The images a Dockerfile's `FROM` lines name (not its own stages, not `scratch`).
fn from_images(text: &str) -> Vec<String> {
    let mut stages: Vec<String> = Vec::new();
    let mut images = Vec::new();
    for line in text.lines() {
        let mut words = line.split_whitespace();
        if !words.next().is_some_and(|w| w.eq_ignore_ascii_case("FROM")) {
            continue;
        }
        let rest: Vec<&str> = words.filter(|w| !w.starts_with("--")).collect();
        let Some(image) = rest.first() else { continue };
        if *image != "scratch" && !stages.contains(&image.to_lowercase()) {
            images.push((*image).to_owned());
        }
        if let [_, as_, name] = rest.as_slice()
            && as_.eq_ignore_ascii_case("AS")
        {
            stages.push(name.to_lowercase());
        }
    }
    images
}

/// The image references of YAML text, by line: `image: REF`, `container: REF`, and an
/// `image:` mapping's `name:` (GitLab) or `default:` (a component's input). Values that
/// interpolate (`$[[ inputs.image ]]`) are checked where they come from.
fn yaml_images(lines: &[&str]) -> Vec<String> {
    let value = |s: &str| {
        s.split(" #")
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(|c| c == '"' || c == '\'')
            .to_owned()
    };
    let indent = |s: &str| s.len() - s.trim_start().len();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start().trim_start_matches("- ");
        let Some(rest) = code
            .strip_prefix("image:")
            .or_else(|| code.strip_prefix("container:"))
        else {
            continue;
        };
        let v = value(rest);
        let found = if v.is_empty() {
            lines[i + 1..]
                .iter()
                .take_while(|l| l.trim().is_empty() || indent(l) > indent(line))
                .find_map(|l| {
                    let t = l.trim_start();
                    t.strip_prefix("name:")
                        .or_else(|| t.strip_prefix("default:"))
                        .or_else(|| t.strip_prefix("image:"))
                        .map(value)
                })
        } else {
            Some(v)
        };
        // A reference has no space (a job called `image` has a `name:` with words).
        if let Some(r) = found
            .filter(|r| !r.is_empty() && !r.contains(char::is_whitespace) && !r.contains("$[["))
        {
            out.push(r);
        }
    }
    out
}

/// The lines of a markdown file's fenced code blocks.
fn fenced(text: &str) -> Vec<&str> {
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if inside {
            out.push(line);
        }
    }
    out
}

fn files_in(dir: &str, exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![Path::new(ROOT).join(dir)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every image reference, with the file it is in (relative to the repository).
fn every_image() -> Vec<(String, String)> {
    let rel = |p: &Path| p.strip_prefix(ROOT).unwrap().display().to_string();
    let mut out = Vec::new();
    let dockerfile = Path::new(ROOT).join("Dockerfile");
    for image in from_images(&std::fs::read_to_string(&dockerfile).unwrap()) {
        out.push((rel(&dockerfile), image));
    }
    let mut yaml = vec![Path::new(ROOT).join("action.yml")];
    for dir in ["templates", ".github/workflows", "examples/github"] {
        yaml.extend(files_in(dir, &["yml", "yaml"]));
    }
    for file in yaml {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for image in yaml_images(&lines) {
            out.push((rel(&file), image));
        }
    }
    for doc in ["README.md", "docs/container.md", "docs/gitlab.md"] {
        let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
        for image in yaml_images(&fenced(&text)) {
            out.push((doc.to_owned(), image));
        }
    }
    out
}

#[test]
fn every_base_image_is_pinned_by_digest_beside_its_tag() {
    let all = every_image();
    let unpinned: Vec<(&str, &str)> = all
        .iter()
        .filter(|(_, image)| !pinned(image))
        .map(|(f, i)| (f.as_str(), i.as_str()))
        .collect();
    assert_eq!(
        unpinned, AWAITING_DIGEST,
        "pin each image as NAME:TAG@sha256:DIGEST (docs/container.md, \"Pinned by digest\")"
    );
    let froms: Vec<&str> = all
        .iter()
        .filter(|(f, _)| f == "Dockerfile")
        .map(|(_, i)| i.as_str())
        .collect();
    assert_eq!(froms.len(), 2, "the build stage and the runtime: {froms:?}");
    assert!(froms[0].starts_with("rust:1.95.0-alpine"), "{froms:?}");
    // The build stage's Rust is the toolchain rust-toolchain.toml pins.
    let toolchain = std::fs::read_to_string(Path::new(ROOT).join("rust-toolchain.toml")).unwrap();
    let channel = toolchain
        .lines()
        .find_map(|l| l.trim().strip_prefix("channel = "))
        .unwrap()
        .trim_matches('"');
    assert!(
        froms[0].starts_with(&format!("rust:{channel}-")),
        "{froms:?} against {channel}"
    );
}

#[test]
fn the_pin_check_reads_what_it_should() {
    assert!(pinned(
        "rust:1.95.0-alpine3.23@sha256:606fd313a0f49743ee2a7bd49a0914bab7deedb12791f3a846a34a4711db7ed2"
    ));
    assert!(!pinned("rust:1.95.0-alpine3.23"));
    assert!(!pinned(
        "rust@sha256:606fd313a0f49743ee2a7bd49a0914bab7deedb12791f3a846a34a4711db7ed2"
    ));
    assert!(!pinned("busybox:1.37.0-musl@sha256:<digest>"));
    assert_eq!(
        from_images(
            "FROM --platform=$BUILDPLATFORM rust:1 AS build\nFROM build AS test\nFROM scratch\nfrom busybox:1\n"
        ),
        ["rust:1", "busybox:1"]
    );
    let yaml = "job:\n  image:\n    name: $[[ inputs.image ]]\n    entrypoint: [\"\"]\nspec:\n  inputs:\n    image:\n      # a comment\n      default: ghcr.io/a/b:1\nother:\n  image: alpine:3 # pinned later\n  container: node:20\n";
    let lines: Vec<&str> = yaml.lines().collect();
    assert_eq!(
        yaml_images(&lines),
        ["ghcr.io/a/b:1", "alpine:3", "node:20"]
    );
}
