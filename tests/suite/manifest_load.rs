//! Loading: syntax and type errors with file:line:col, unknown fields, the version gate,
//! YAML 1.2 scalars, and the source map.

use std::path::Path;

use guildctl::manifest::{Diagnostic, LoadError, LoadedManifest, load, load_str, render};

fn load_text(text: &str) -> Result<LoadedManifest, LoadError> {
    load_str(Path::new("guild.yaml"), text.to_string())
}

fn err(text: &str) -> LoadError {
    match load_text(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

#[test]
fn syntax_error_has_line_and_column() {
    let e = err("version: 1\nroles:\n  - name: [Moderator\n");
    assert_eq!(e.rule(), "syntax", "{e:?}");
    assert_eq!(e.location(), Some((3, 11)));
    let shown = e.to_string();
    assert!(
        shown.starts_with("guild.yaml:3:11: error: invalid YAML: "),
        "{shown}"
    );
    assert!(e.hint().is_some());
}

#[test]
fn tabs_are_a_syntax_error_with_a_hint() {
    let e = err("version: 1\nroles:\n\t- name: x\n");
    assert_eq!(e.rule(), "syntax", "{e:?}");
    assert_eq!(e.location().map(|l| l.0), Some(3));
    assert!(e.hint().unwrap().contains("spaces"));
}

#[test]
fn duplicate_keys_are_rejected() {
    let e = err("version: 1\nsettings:\n  name: A\n  name: B\n");
    assert_eq!(e.location().map(|l| l.0), Some(4), "{e}");
    assert!(e.to_string().contains("duplicate"), "{e}");
}

#[test]
fn unknown_field_is_rejected_with_location_and_suggestion() {
    let e = err("version: 1\nroles:\n  - name: Moderator\n    colr: \"#ffffff\"\n");
    assert_eq!(e.rule(), "schema", "{e:?}");
    assert_eq!(e.location(), Some((4, 5)));
    assert!(
        e.to_string()
            .starts_with("guild.yaml:4:5: error: unknown field `colr`"),
        "{e}"
    );
    assert_eq!(e.hint(), Some("did you mean `color`?"));
}

#[test]
fn unknown_top_level_field_is_rejected() {
    let e = err("version: 1\nchanels: []\n");
    assert_eq!(e.location(), Some((2, 1)));
    assert_eq!(e.hint(), Some("did you mean `channels`?"));
}

#[test]
fn wrong_type_is_a_type_error() {
    let e = err("version: 1\nsettings:\n  afk_timeout: five minutes\n");
    assert_eq!(e.rule(), "schema", "{e:?}");
    assert_eq!(e.location(), Some((3, 16)));
    let e = err("version: 1\nsettings:\n  verification_level: extreme\n");
    assert!(
        e.to_string()
            .contains("`extreme` is not a valid verification_level"),
        "{e}"
    );
}

#[test]
fn bad_colour_and_snowflake_are_type_errors() {
    let e = err("version: 1\nroles:\n  - name: A\n    color: \"#12\"\n");
    assert_eq!(e.location(), Some((4, 12)));
    assert!(e.to_string().contains("is not a colour"), "{e}");
    let e = err("version: 1\nguild: abc\n");
    assert!(e.to_string().contains("not a Discord id"), "{e}");
}

#[test]
fn version_other_than_1_is_rejected_first() {
    // Version 2 may have another shape: the version is reported, not the unknown field.
    let e = err("version: 2\nsomething_new: true\n");
    assert_eq!(e.rule(), "version", "{e:?}");
    assert_eq!(e.location(), Some((1, 10)));
    assert!(
        e.to_string().contains("unsupported manifest version 2"),
        "{e}"
    );
    let e = err("version: \"one\"\n");
    assert_eq!(e.rule(), "version", "{e:?}");
}

#[test]
fn missing_version_is_rejected() {
    let e = err("roles: []\n");
    assert_eq!(e.rule(), "version", "{e:?}");
    assert!(e.to_string().contains("no `version`"), "{e}");
}

#[test]
fn non_mapping_and_empty_documents_are_rejected() {
    assert_eq!(err("").rule(), "version");
    assert_eq!(err("- a\n- b\n").rule(), "version");
    assert_eq!(err("just text\n").rule(), "version");
}

#[test]
fn yaml_1_2_no_on_off_are_strings() {
    // The Norway problem: `no`, `on`, `off`, `yes` are strings in YAML 1.2.
    let l = load_text(
        "version: 1\nsettings:\n  name: no\n  description: off\n  preferred_locale: no\nroles:\n  - name: on\n  - name: yes\n",
    )
    .unwrap();
    let s = l.manifest.settings.as_ref().unwrap();
    assert_eq!(s.name.as_deref(), Some("no"));
    assert_eq!(s.description, Some(Some("off".to_owned())));
    // Norwegian: the Norway problem itself.
    assert_eq!(s.preferred_locale.as_deref(), Some("no"));
    let roles = l.manifest.roles.as_ref().unwrap();
    assert_eq!(roles[0].name, "on");
    assert_eq!(roles[1].name, "yes");
}

#[test]
fn yaml_1_1_booleans_are_rejected_in_boolean_fields() {
    for word in ["yes", "no", "on", "off", "y"] {
        let e = err(&format!(
            "version: 1\nroles:\n  - name: A\n    hoist: {word}\n"
        ));
        assert_eq!(e.location(), Some((4, 12)), "{word}: {e}");
        assert!(e.hint().unwrap().contains("YAML 1.2"), "{word}: {e:?}");
    }
    let l = load_text("version: 1\nroles:\n  - name: A\n    hoist: true\n").unwrap();
    assert_eq!(l.manifest.roles.as_ref().unwrap()[0].hoist, Some(true));
}

#[test]
fn null_clears_and_absent_leaves_unmanaged() {
    let l = load_text("version: 1\nsettings:\n  afk_channel: null\n  system_channel:\n").unwrap();
    let s = l.manifest.settings.as_ref().unwrap();
    assert_eq!(s.afk_channel, Some(None));
    assert_eq!(s.system_channel, Some(None));
    assert_eq!(s.rules_channel, None);
}

#[test]
fn io_error_names_the_file() {
    let e = load(Path::new("/nonexistent/guild.yaml")).unwrap_err();
    assert_eq!(e.rule(), "read");
    assert!(
        e.to_string()
            .starts_with("/nonexistent/guild.yaml: error: cannot read"),
        "{e}"
    );
}

const SAMPLE: &str = "\
version: 1
settings:
  name: Ferris Fans
  afk_timeout: 300
roles:
  - name: Moderator
    permissions: [kick_members, ban_members]
  - { name: Member, color: \"#ffffff\" }
channels:
  - name: Info
    type: category
    channels:
      - name: rules
        overwrites:
          - role: \"@everyone\"
            deny:
              - send_messages
              - add_reactions
";

#[test]
fn source_map_locates_every_node() {
    let l = load_text(SAMPLE).unwrap();
    let m = &l.locations;
    assert_eq!(m.locate("version"), Some((1, 10)));
    assert_eq!(m.locate("settings.afk_timeout"), Some((4, 16)));
    assert_eq!(m.locate("roles[0]"), Some((6, 5)));
    assert_eq!(m.locate("roles[0].name"), Some((6, 11)));
    assert_eq!(m.locate("roles[0].permissions[1]"), Some((7, 33)));
    assert_eq!(m.locate("roles[1].color"), Some((8, 28)));
    assert_eq!(m.locate("channels[0].channels[0].name"), Some((13, 15)));
    assert_eq!(
        m.locate("channels[0].channels[0].overwrites[0].deny[1]"),
        Some((18, 17))
    );
    assert_eq!(m.locate_key("settings.afk_timeout"), Some((4, 3)));
}

#[test]
fn source_map_falls_back_to_the_nearest_ancestor() {
    let l = load_text(SAMPLE).unwrap();
    let m = &l.locations;
    // Absent field of a present mapping entry: the entry's key.
    assert_eq!(m.locate("settings.rules_channel"), Some((2, 1)));
    // Absent field of a list item: the item.
    assert_eq!(m.locate("roles[0].color"), Some((6, 5)));
    assert_eq!(m.locate("roles[1].hoist"), Some((8, 5)));
    assert_eq!(m.locate("prune.roles"), Some((1, 1)));
}

#[test]
fn block_mappings_and_lists_are_located_at_their_key() {
    let l = load_text(SAMPLE).unwrap();
    let m = &l.locations;
    // `settings:` and `channels[0].channels:` rather than their first child.
    assert_eq!(m.locate("settings"), Some((2, 1)));
    assert_eq!(m.locate("channels[0].channels"), Some((12, 5)));
    // A flow list on the key's line keeps its own position.
    assert_eq!(m.locate("roles[0].permissions"), Some((7, 18)));
}

#[test]
fn render_is_compiler_style_and_sorted_by_position() {
    let l = load_text(SAMPLE).unwrap();
    let diags = vec![
        Diagnostic::warning("channels[0].channels[0].overwrites[0].deny[1]", "second")
            .with_help("a help text"),
        Diagnostic::error("roles[0].name", "first"),
    ];
    let out = render(&l, &diags, false);
    insta::assert_snapshot!("render_compiler_style", out);
    let colored = render(&l, &diags, true);
    assert!(colored.contains("\x1b["), "{colored}");
}

#[test]
fn load_error_renders_with_excerpt() {
    let src = "version: 1\nroles:\n  - name: A\n    colr: 1\n";
    let e = err(src);
    let out = e.report.render_text(false);
    assert!(out.starts_with("error: unknown field `colr`"), "{out}");
    assert!(out.contains(" --> guild.yaml:4:5\n"), "{out}");
    assert!(out.contains("4 |     colr: 1\n"), "{out}");
    assert!(out.contains("= help: did you mean `color`?"), "{out}");
}

#[test]
fn garbage_input_never_panics() {
    for text in [
        "\u{0}",
        "version: 1\n&a [*a]\n",
        "version: 1\nroles: *nope\n",
        "version: 1\nroles:\n  - name: !!binary aGVsbG8=\n",
        "{{{{",
        "version: 1\n...\n---\nversion: 1\n",
        "version: 99999999999999999999999999999\n",
        "version: 1\nroles: [{name: a, permissions: {x: 1}}]\n",
    ] {
        let _ = load_text(text);
    }
}

#[test]
fn special_floats_in_string_fields_load() {
    let l = load_text("version: 1\nroles:\n  - name: .nan\n  - name: .inf\n").unwrap();
    let roles = l.manifest.roles.as_ref().unwrap();
    assert_eq!(roles[0].name, ".nan");
    assert_eq!(l.locations.locate("roles[1].name"), Some((4, 11)));
}

// ---------------------------------------------------------------------------------------------
// Folders, limits

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn a_folder_merges_by_section_in_merge_order() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(
        d,
        "guild.yaml",
        "version: 1\nsettings:\n  name: Ferris Fans\n",
    );
    write(d, "roles/2-members.yaml", "roles:\n  - name: Member\n");
    write(
        d,
        "roles/1-staff.yaml",
        "version: 1\nroles:\n  - name: Admin\n  - name: Mod\n",
    );
    write(d, "channels.yaml", "# only a comment\n");
    write(d, "z.yml", "channels:\n  - name: general\n");
    write(d, ".hidden.yaml", "this: is ignored\n");
    write(d, "notes.txt", "not yaml\n");
    let l = load(d).unwrap_or_else(|e| panic!("{e}"));
    assert!(l.is_dir);
    assert_eq!(l.dir(), d);
    let names: Vec<_> = l
        .manifest
        .roles
        .as_ref()
        .unwrap()
        .iter()
        .map(|r| r.name.as_str())
        .collect();
    // The folder's own files first (channels, guild, z), then roles/ by name.
    assert_eq!(names, ["Admin", "Mod", "Member"]);
    let files: Vec<String> = l
        .files
        .iter()
        .map(|f| f.path.strip_prefix(d).unwrap().display().to_string())
        .collect();
    assert_eq!(
        files,
        [
            "channels.yaml",
            "guild.yaml",
            "z.yml",
            "roles/1-staff.yaml",
            "roles/2-members.yaml"
        ]
    );
    // Locations name the right file.
    let s = l.locations.exact("roles[2].name").unwrap();
    assert_eq!(l.files[s.file].path, d.join("roles/2-members.yaml"));
    assert_eq!((s.line, s.column), (2, 11));
    let s = l.locations.exact("channels[0].name").unwrap();
    assert_eq!(l.files[s.file].path, d.join("z.yml"));
}

#[test]
fn a_folder_section_written_twice_names_both_places() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "a.yaml", "version: 1\nsettings:\n  name: One\n");
    write(d, "b.yaml", "\nsettings:\n  name: Two\n");
    let e = load(d).unwrap_err();
    assert_eq!(e.rule(), "merge");
    let item = &e.items()[0];
    let here = item.span.unwrap();
    assert_eq!(e.report.files[here.file].path, d.join("b.yaml"));
    assert_eq!(here.line, 2);
    let (_, first) = &item.related[0];
    assert_eq!(e.report.files[first.file].path, d.join("a.yaml"));
    assert!(item.message.contains("a.yaml:2:1"), "{}", item.message);
}

#[test]
fn a_folder_needs_a_version_somewhere_and_agreeing_copies() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "roles.yaml", "roles: []\n");
    let e = load(d).unwrap_err();
    assert_eq!(e.rule(), "version");
    assert!(e.items()[0].span.is_none());
    write(d, "guild.yaml", "version: 1\n");
    load(d).unwrap();
    write(d, "roles.yaml", "version: 2\nroles: []\n");
    assert_eq!(load(d).unwrap_err().rule(), "version");
}

#[test]
fn every_syntax_error_of_a_folder_is_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    write(d, "a.yaml", "version: 1\nroles: [\n");
    write(d, "b.yaml", "channels:\n  - name: x\n   topic: y\n");
    let e = load(d).unwrap_err();
    assert_eq!(e.items().len(), 2, "{e}");
    assert!(e.items().iter().all(|d| d.rule == "syntax"));
}

#[test]
fn in_memory_folders_load_like_folders() {
    use guildctl::manifest::{SourceFile, load_folder_sources};
    let files = vec![
        SourceFile {
            path: "g/a.yaml".into(),
            text: "version: 1\nroles: [{name: A}]\n".into(),
        },
        SourceFile {
            path: "g/b.yaml".into(),
            text: "roles: [{name: B}]\n".into(),
        },
    ];
    let l = load_folder_sources(Path::new("g"), files).unwrap();
    assert_eq!(l.dir(), Path::new("g"));
    assert_eq!(l.manifest.roles.as_ref().unwrap().len(), 2);
}

#[test]
fn a_file_over_the_size_limit_is_refused_before_reading() {
    let tmp = tempfile::tempdir().unwrap();
    let p = tmp.path().join("huge.yaml");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(guildctl::manifest::source::MAX_FILE_BYTES + 1)
        .unwrap();
    let e = load(&p).unwrap_err();
    assert_eq!(e.rule(), "read");
    assert!(e.message().contains("at most 4194304 bytes"), "{e}");
}

#[test]
fn deep_nesting_and_alias_bombs_are_refused_with_a_limit_error() {
    let mut block = String::from("version: 1\nroles:\n");
    for i in 0..60 {
        block.push_str(&" ".repeat(2 * i + 2));
        block.push_str("-\n");
    }
    let e = err(&block);
    assert_eq!(e.rule(), "limits", "{e}");
    assert!(e.message().contains("deeper than 32"), "{e}");

    let mut bomb = String::from("version: 1\na: &a [x, x, x, x, x, x, x, x, x, x]\n");
    let mut prev = 'a';
    for name in 'b'..='k' {
        bomb.push_str(&format!(
            "{name}: &{name} [{}]\n",
            vec![format!("*{prev}"); 10].join(", ")
        ));
        prev = name;
    }
    let e = err(&bomb);
    assert_eq!(e.rule(), "limits", "{e}");
}

#[test]
fn a_second_document_is_refused() {
    let e = err("version: 1\n---\nversion: 1\n");
    assert_eq!(e.rule(), "limits");
    assert_eq!(e.location(), Some((2, 1)));
}

#[test]
fn unclosed_quotes_and_brackets_are_reported_where_they_open() {
    let e = err("version: 1\nsettings:\n  name: \"Ferris\n  description: x\nroles: []\n");
    assert_eq!(e.location(), Some((3, 9)), "{e}");
    assert!(e.message().contains("quote is never closed"), "{e}");
    let e = err("version: 1\nroles:\n  - permissions: [a, b\n  - name: x\n");
    assert_eq!(e.location(), Some((3, 18)), "{e}");
    // A bracket that spans lines legitimately is not blamed.
    let e = err(
        "version: 1\nroles:\n  - name: x\n    permissions: [\n      view_channel,\n      b: c\n    ]\n",
    );
    assert_eq!(e.location().map(|l| l.0), Some(6), "{e}");
}

#[test]
fn schema_errors_are_all_reported_at_once() {
    let e = err(
        "version: 1\nsettings:\n  verification_level: extreme\nroles:\n  - name: A\n    colr: 1\n    hoist: yes\n",
    );
    let lines: Vec<usize> = e.items().iter().map(|d| d.span.unwrap().line).collect();
    assert_eq!(lines, [3, 6, 7], "{e}");
    assert!(e.items().iter().all(|d| d.rule == "schema"));
}

#[test]
fn numbers_for_text_say_to_quote_them() {
    let e = err("version: 1\nroles:\n  - name: 2024\n");
    assert_eq!(e.message(), "expected a string, found the number `2024`");
    assert!(e.hint().unwrap().contains("name: \"2024\""), "{e:?}");
}

#[test]
fn carriage_returns_break_lines_as_yaml_says() {
    // CR LF and a lone CR are line breaks: positions and excerpts agree.
    let e = err("version: 1\r\nroles:\r  - name: A\r\n    colr: 1\r\n");
    assert_eq!(e.location(), Some((4, 5)), "{e}");
    let out = e.report.render_text(false);
    assert!(out.contains("4 |     colr: 1\n"), "{out}");
    guildctl::manifest::fuzz_one(b"\x00version: 1\rroles:\r\r\r  - name: A\r    colr: 1\r");
}

#[test]
fn fuzz_findings_stay_fixed() {
    // From cargo-fuzz: lone CRs in a folder file put a span past the "last line".
    let data = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fuzz-regressions/crash-cr-line-breaks.bin"
    ))
    .unwrap();
    guildctl::manifest::fuzz_one(&data);
    // From proptest: a node path followed by a multibyte character in a message.
    guildctl::manifest::fuzz_one(
        "\u{0}version: 1\nsettings:\n  system_channel: g\u{e9}neral\nchannels:\n  - name: general\n"
            .as_bytes(),
    );
}

#[test]
fn the_examples_load_by_the_fast_parse_to_the_same_tree() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "yaml") {
            let text = std::fs::read_to_string(&p).unwrap();
            assert!(
                guildctl::manifest::load::parses_fast(&text),
                "{} takes the slow parse",
                p.display()
            );
            guildctl::manifest::load::assert_parses_agree(&text);
            n += 1;
        }
    }
    assert!(n >= 3);
}

#[test]
fn the_fast_parse_leaves_what_it_does_not_know_to_serde_saphyr() {
    for text in [
        "version: 1\nroles: &r []\nchannels: *r\n",
        "version: 1\nsettings: !!map {}\n",
        "version: 1\nsettings:\n  afk_timeout: 1.5e2\n",
        "version: 1\nsettings:\n  afk_timeout: 0x10\n",
        "version: 1\nsettings:\n  afk_timeout: 0300\n",
        "version: 1\nsettings:\n  afk_timeout: 99999999999999999999\n",
        "version: 1\nsettings:\n  afk_timeout: -5\n",
        "version: 1\nsettings:\n  <<: {name: x}\n",
        "version: 1\nversion: 1\n",
        "version: 1\n---\nversion: 1\n",
        "%YAML 1.2\n---\nversion: 1\n",
        "",
    ] {
        assert!(!guildctl::manifest::load::parses_fast(text), "{text:?}");
    }
    for text in [
        "version: 1\nsettings:\n  name: \"x\"\n  afk_timeout: 300\n  description: ~\n",
        "---\nversion: 1\nroles: [{name: A, hoist: True}, {name: 'B', color: NULL}]\n",
        "version: 1\nsettings:\n  description: |\n    two\n    lines\n  name: >-\n    folded\n    text\n",
        "version: 1 # c\nsettings: {name: \"1.5\", description: 'yes'}\n",
    ] {
        assert!(guildctl::manifest::load::parses_fast(text), "{text:?}");
        guildctl::manifest::load::assert_parses_agree(text);
    }
}
