//! Every container image the project builds from or runs in is pinned by digest, its tag
//! beside it (`rust:1.95.0-alpine3.23@sha256:…`): the Dockerfile's `FROM` lines, and every
//! `image:` (and GitHub's `container:`) in the CI files and in the YAML examples of the
//! docs that show them. A tag can be pushed again with other content; a digest cannot
//! (docs/container.md, "Pinned by digest"). The GitLab component's default image is
//! guildctl's own, pinned by `.ci/component-image` in the prepare-release workflow's pull
//! request and checked by the release workflow; its tests are here too.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const TEMPLATE: &str = "templates/guildctl.yml";
/// guildctl's image, as the workflows name it: `ghcr.io/` and the repository, lowercase.
const IMAGE: &str = "ghcr.io/guildctl/guildctl";
const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The images allowed without a digest: none, except the component's default while it
/// names the version Cargo.toml is at, tag only. The test cannot see the registry, so this
/// is what it can know: a version is pinned by the pull request prepare-release opens once
/// it has pushed that version's image, and the release workflow refuses its tag until
/// then (`the_release_refuses_a_tag_only_default` runs that check on the template as it
/// is). After a release the default stays pinned to it while Cargo.toml moves on, and the
/// next prepare-release pins the next one; a tag-only default of another version fails.
fn awaiting_digest() -> Vec<(String, String)> {
    let default = template_default(&read(TEMPLATE));
    if default == format!("{IMAGE}:{VERSION}") {
        vec![(TEMPLATE.to_owned(), default)]
    } else {
        Vec::new()
    }
}

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).unwrap()
}

/// The component's `spec: inputs: image: default:`, read as YAML.
fn template_default(text: &str) -> String {
    let (spec, jobs) = text.split_once("\n---\n").expect("a spec and the jobs");
    let spec: Value = serde_saphyr::from_str(spec).unwrap();
    let _: Value = serde_saphyr::from_str(jobs).unwrap();
    spec["spec"]["inputs"]["image"]["default"]
        .as_str()
        .unwrap()
        .to_owned()
}

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
    let unpinned: Vec<(String, String)> = all
        .iter()
        .filter(|(_, image)| !pinned(image))
        .cloned()
        .collect();
    assert_eq!(
        unpinned,
        awaiting_digest(),
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

// ---------------------------------------------------------------------------------------
// The component's image: .ci/component-image, prepare-release and the release's check

/// Runs `.ci/component-image` with these arguments.
fn component_image(args: &[&str]) -> Output {
    Command::new("bash")
        .arg(Path::new(ROOT).join(".ci/component-image"))
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Test digests, well formed and obviously no image's.
fn digest(pair: &str) -> String {
    format!("sha256:{}", pair.repeat(32))
}

/// A copy of the template, its default image replaced by `default`.
fn template_copy(default: &str) -> (tempfile::TempDir, PathBuf, String) {
    let text = read(TEMPLATE);
    let line = format!("      default: {}\n", template_default(&text));
    assert_eq!(text.matches(&line).count(), 1, "{line}");
    let text = text.replace(&line, &format!("      default: {default}\n"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("guildctl.yml");
    std::fs::write(&path, &text).unwrap();
    (dir, path, text)
}

#[test]
fn pin_writes_exactly_the_default_line_and_the_template_stays_valid() {
    let (_dir, path, before) = template_copy(&format!("{IMAGE}:{VERSION}"));
    let file = path.to_str().unwrap();
    for d in [digest("ab"), digest("cd")] {
        // A second prepare-release run of a version pins its own image over the first's.
        let out = component_image(&["pin", file, IMAGE, "9.8.7", &d]);
        assert!(out.status.success(), "{}", stderr(&out));
        let after = std::fs::read_to_string(&path).unwrap();
        let changed: Vec<(&str, &str)> = before
            .lines()
            .zip(after.lines())
            .filter(|(a, b)| a != b)
            .collect();
        let pinned_line = format!("      default: {IMAGE}:9.8.7@{d}");
        assert_eq!(
            changed,
            [(
                format!("      default: {IMAGE}:{VERSION}").as_str(),
                pinned_line.as_str()
            )]
        );
        assert_eq!(after.lines().count(), before.lines().count());
        assert_eq!(
            after.len(),
            before.len() - VERSION.len() + "9.8.7@".len() + d.len()
        );
        // Both YAML documents still parse, and GitLab reads the pinned default.
        assert_eq!(template_default(&after), format!("{IMAGE}:9.8.7@{d}"));
        assert!(String::from_utf8_lossy(&out.stdout).contains(&pinned_line[6..]));
    }
}

#[test]
fn check_accepts_only_the_default_pinned_to_the_version_and_the_registry_digest() {
    let (_dir, path, _) = template_copy(&format!("{IMAGE}:{VERSION}@{}", digest("ab")));
    let file = path.to_str().unwrap();
    for args in [vec![], vec![digest("ab")]] {
        let mut all = vec!["check", file, IMAGE, VERSION];
        all.extend(args.iter().map(String::as_str));
        let out = component_image(&all);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), digest("ab"));
    }
    // The registry holds another image under the tag (a later prepare-release run).
    let out = component_image(&["check", file, IMAGE, VERSION, &digest("cd")]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(&format!(
            "the registry's {IMAGE}:{VERSION} is {}",
            digest("cd")
        )),
        "{}",
        stderr(&out)
    );
    // Another version than the tag's.
    let out = component_image(&["check", file, IMAGE, "9.8.7"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains(&format!("not {IMAGE}:9.8.7@sha256:<digest>")));
    // Another repository's image.
    let out = component_image(&["check", file, "ghcr.io/someone/guildctl", VERSION]);
    assert_eq!(out.status.code(), Some(1));

    let refusals = [
        (format!("{IMAGE}:{VERSION}"), "is not pinned by digest"),
        (format!("{IMAGE}:{VERSION}@sha256:abc"), "is not a digest"),
        (
            format!("{IMAGE}:{VERSION}@sha256:{}", "AB".repeat(32)),
            "is not a digest",
        ),
        (
            format!("{IMAGE}:{VERSION}@sha512:{}", "ab".repeat(64)),
            "is not a digest",
        ),
        (
            format!("{IMAGE}:{VERSION}@{}0", digest("ab")),
            "is not a digest",
        ),
        (
            format!("{IMAGE}:latest"),
            "`, not ghcr.io/guildctl/guildctl:",
        ),
    ];
    for (default, says) in refusals {
        let (_dir, path, _) = template_copy(&default);
        let out = component_image(&["check", path.to_str().unwrap(), IMAGE, VERSION]);
        assert_eq!(out.status.code(), Some(1), "{default}");
        let err = stderr(&out);
        assert!(err.contains(says), "{default}: {err}");
        // Named by file and line, with what to do.
        assert!(err.contains(&format!("{}:", path.display())), "{err}");
        assert!(
            err.contains("prepare-release") || err.contains("sha256:"),
            "{err}"
        );
    }
}

#[test]
fn pin_refuses_bad_input_and_changes_nothing() {
    let (_dir, path, before) = template_copy(&format!("{IMAGE}:{VERSION}"));
    let file = path.to_str().unwrap();
    let good = digest("ab");
    let bad: [[&str; 3]; 7] = [
        [IMAGE, VERSION, "sha256:abc"],
        [IMAGE, VERSION, &format!("sha256:{}", "AB".repeat(32))],
        [IMAGE, VERSION, &"ab".repeat(32)],
        [IMAGE, "v1.2.3", &good],
        [IMAGE, "1.2", &good],
        [&format!("{IMAGE}:{VERSION}"), VERSION, &good],
        ["ghcr.io/GuildCtl/guildctl", VERSION, &good],
    ];
    for [image, version, d] in bad {
        let out = component_image(&["pin", file, image, version, d]);
        assert_eq!(out.status.code(), Some(1), "{image} {version} {d}");
        assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), before);
    }
    // A file without the input (the jobs alone) is refused, naming it.
    let jobs = before.split_once("\n---\n").unwrap().1;
    std::fs::write(&path, jobs).unwrap();
    let out = component_image(&["pin", file, IMAGE, VERSION, &good]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("no single `default:` under `spec: inputs: image:`"),
        "{}",
        stderr(&out)
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), jobs);
}

/// What the release's check says of the template as it is: a tag-only default (allowed
/// above while its version is Cargo.toml's) is refused, so no tag ships it.
#[test]
fn the_release_check_refuses_the_template_unless_it_is_pinned() {
    let default = template_default(&read(TEMPLATE));
    let path = Path::new(ROOT).join(TEMPLATE);
    let out = component_image(&["check", path.to_str().unwrap(), IMAGE, VERSION]);
    let pinned_here = default.starts_with(&format!("{IMAGE}:{VERSION}@")) && pinned(&default);
    assert_eq!(
        out.status.success(),
        pinned_here,
        "{default}: {}",
        stderr(&out)
    );
    if default == format!("{IMAGE}:{VERSION}") {
        assert!(stderr(&out).contains("is not pinned by digest"));
    }
    // The image is this repository's, as the workflows name it (`ghcr.io/${GITHUB_REPOSITORY,,}`).
    let cargo = read("Cargo.toml");
    let repository = cargo
        .lines()
        .find_map(|l| l.strip_prefix("repository = \"https://github.com/"))
        .unwrap()
        .trim_end_matches('"');
    assert_eq!(IMAGE, format!("ghcr.io/{}", repository.to_lowercase()));
    assert!(default.starts_with(&format!("{IMAGE}:")), "{default}");
}

fn steps_of(job: &Value) -> String {
    serde_json::to_string(&job["steps"]).unwrap()
}

/// prepare-release builds and pushes the version's image with the release's build settings,
/// then opens the pull request that pins it; the release checks that pin before building,
/// and tags the same digest `latest` without building.
#[test]
fn prepare_release_pushes_the_image_and_the_release_checks_its_pin() {
    let prepare: Value =
        serde_saphyr::from_str(&read(".github/workflows/prepare-release.yml")).unwrap();
    assert_eq!(
        prepare["on"]["workflow_dispatch"]["inputs"]["version"]["required"],
        true
    );
    assert_eq!(
        prepare["permissions"],
        serde_json::json!({ "contents": "read" })
    );
    let image = &prepare["jobs"]["image"];
    assert_eq!(
        image["permissions"],
        serde_json::json!({ "contents": "read", "packages": "write", "id-token": "write", "attestations": "write" })
    );
    let steps = steps_of(image);
    for part in [
        "docker/build-push-action@",
        "\"provenance\":\"mode=max\"",
        "\"sbom\":true",
        "\"push\":true",
        "\"platforms\":\"linux/amd64\"",
        "\"tags\":\"${{ steps.name.outputs.tag }}\"",
        "image=\\\"ghcr.io/${GITHUB_REPOSITORY,,}\\\"",
        "actions/attest-build-provenance@",
        "\"push-to-registry\":true",
        "refs/tags/v$VERSION",
    ] {
        assert!(
            steps.contains(part),
            "prepare-release image: {part}: {steps}"
        );
    }
    // Not `latest`: that is the release's, once the tag is released.
    assert!(!steps.contains(":latest"), "{steps}");
    // The version check reads Cargo.toml's [package] version as written.
    let check = image["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|s| s["run"].as_str().filter(|r| r.contains("Cargo.toml")))
        .unwrap();
    let read_version = check
        .lines()
        .find(|l| l.trim_start().starts_with("cargo_version=$("))
        .unwrap();
    let out = Command::new("bash")
        .args([
            "-c",
            &format!("{}\necho \"$cargo_version\"", read_version.trim()),
        ])
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), VERSION);

    let pr = &prepare["jobs"]["pull-request"];
    assert_eq!(pr["needs"], "image");
    assert_eq!(
        pr["permissions"],
        serde_json::json!({ "contents": "write", "pull-requests": "write" })
    );
    let steps = steps_of(pr);
    for part in [
        ".ci/component-image pin templates/guildctl.yml \\\"$IMAGE\\\" \\\"$VERSION\\\" \\\"$DIGEST\\\"",
        "needs.image.outputs.digest",
        "gh pr create",
        "\"persist-credentials\":false",
    ] {
        assert!(
            steps.contains(part),
            "prepare-release pull-request: {part}: {steps}"
        );
    }

    let release: Value = serde_saphyr::from_str(&read(".github/workflows/release.yml")).unwrap();
    let check = &release["jobs"]["pinned-image"];
    let steps = steps_of(check);
    for part in [
        "docker buildx imagetools inspect \\\"$image:$version\\\"",
        ".ci/component-image check templates/guildctl.yml \\\"$image\\\" \\\"$version\\\" \\\"$registry\\\"",
        "--signer-workflow \\\"$GITHUB_REPOSITORY/.github/workflows/prepare-release.yml\\\"",
        "git diff --name-only \\\"$built\\\" HEAD",
        "image=\\\"ghcr.io/${GITHUB_REPOSITORY,,}\\\"",
    ] {
        assert!(
            steps.contains(part),
            "release pinned-image: {part}: {steps}"
        );
    }
    // Nothing is built or published before the pin is checked.
    assert_eq!(release["jobs"]["package"]["needs"], "pinned-image");
    assert!(
        !serde_json::to_string(&release)
            .unwrap()
            .contains("docker/build-push-action@")
    );
}
