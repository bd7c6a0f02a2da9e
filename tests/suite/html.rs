//! The access page (`access --format html`, `plan --format html`; docs/access.md, "The
//! picture: access as a page") in a real browser: headless Chromium loads each page from a
//! file and dumps the DOM its script built. Every cell of every row is checked against
//! what `guildctl access --as ROLE` / `--user ID` computes (a preview, another path through
//! the access model), before and after a plan; a filter is set through the URL fragment; a
//! role named to break out of the page stays text; nothing is fetched from anywhere (a
//! proxy the test owns sees no connection); and the page at Discord's limits stays under
//! 2 MB, its render time printed.
//!
//! Chromium is found from `GUILDCTL_CHROMIUM`, else `chromium` on PATH. Built without it
//! (build.rs), the browser tests are ignored with the reason; with `CI` set they are built
//! to run, and fail saying what is missing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common::{Harness, example};

const VIEW: u8 = 1;
const SEND: u8 = 2;
const MANAGE: u8 = 4;
const ADMIN: u8 = 8;
const MANAGING: [&str; 6] = [
    "manage_channels",
    "manage_roles",
    "manage_messages",
    "manage_threads",
    "manage_webhooks",
    "manage_events",
];

/// Chromium's path: `GUILDCTL_CHROMIUM`, else `chromium` on PATH; a failure saying how to
/// get it otherwise (these tests run only where the build found it, or where CI is set).
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("GUILDCTL_CHROMIUM") {
        return PathBuf::from(p);
    }
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    });
    found.unwrap_or_else(|| {
        panic!(
            "Chromium is needed for the access page's browser tests{}: install it (Debian: `apt-get install chromium`) or set GUILDCTL_CHROMIUM to its path",
            if std::env::var_os("CI").is_some() {
                " (CI is set: they may not be skipped)"
            } else {
                ""
            }
        )
    })
}

/// Headless Chromium's flags: no network of its own, no first-run work, a profile of its own.
fn chromium_command(profile: &Path) -> Command {
    let mut cmd = Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-sync",
        "--no-first-run",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// The DOM of `page` (opened at `#fragment` when not empty) once its script ran.
fn dump_dom(page: &Path, fragment: &str, more: &[String]) -> String {
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}{fragment}", page.display());
    let out = chromium_command(profile.path())
        .args(more)
        .arg("--dump-dom")
        .arg(&url)
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        dom.contains("data-render-ms=\""),
        "the page's script did not run in Chromium ({url}): {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    dom
}

/// `guildctl ARGS --sandbox`, which must succeed: its stdout.
fn sandbox(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_guildctl"))
        .args(args)
        .arg("--sandbox")
        .env("NO_COLOR", "1")
        .output()
        .expect("guildctl runs");
    assert!(
        out.status.success(),
        "guildctl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The JSON the page embeds.
fn page_data(page: &str) -> Value {
    let open = "<script type=\"application/json\" id=\"guild-data\">";
    let at = page.find(open).expect("the page's data") + open.len();
    let end = at + page[at..].find("</script>").expect("its end");
    serde_json::from_str(&page[at..end]).expect("JSON")
}

/// A cell's code in the page's data (`cells` or `before`).
fn code(data: &Value, key: &str, row: usize, col: usize) -> u8 {
    let line = data[key][row].as_str().unwrap();
    u8::from_str_radix(&line[col..=col], 16).unwrap()
}

fn letters(c: u8) -> String {
    if c & ADMIN != 0 {
        return "A".to_owned();
    }
    let s: String = [(VIEW, 'V'), (SEND, 'S'), (MANAGE, 'M')]
        .iter()
        .filter(|(b, _)| c & b != 0)
        .map(|(_, l)| *l)
        .collect();
    if s.is_empty() { "·".to_owned() } else { s }
}

/// The grid as the browser built it: the columns shown (by index into the data's), and
/// each row shown (by index) with its cells' classes and text.
struct Dom {
    columns: Vec<usize>,
    rows: Vec<(usize, Vec<(String, String)>)>,
}

fn between<'a>(s: &'a str, open: &str, close: &str) -> &'a str {
    let at = s.find(open).map_or(s.len(), |i| i + open.len());
    let end = s[at..].find(close).map_or(s.len(), |i| at + i);
    &s[at..end]
}

/// The grid's part of the DOM: the page's script, which holds the same markup in its
/// strings, is left out.
fn wrap(dom: &str) -> &str {
    between(dom, "<section id=\"wrap\"", "</section>")
}

fn grid_dom(dom: &str) -> Dom {
    let dom = wrap(dom);
    let heads = between(dom, "<div id=\"heads\"", "</thead>");
    let columns = heads
        .split("data-col=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].parse().unwrap())
        .collect();
    let rows = dom
        .split("<tr data-row=\"")
        .skip(1)
        .map(|tr| {
            let tr = &tr[..tr.find("</tr>").unwrap()];
            let index = tr[..tr.find('"').unwrap()].parse().unwrap();
            let cells = tr
                .split("<td class=\"")
                .skip(1)
                .map(|td| {
                    let class = td[..td.find('"').unwrap()].to_owned();
                    let text = between(td, ">", "</td>").to_owned();
                    (class, text)
                })
                .collect();
            (index, cells)
        })
        .collect();
    Dom { columns, rows }
}

/// Every cell the browser shows is the data's, by letter and by colour class (and, for a
/// plan, marked as a gain, a loss or both exactly where the data says it changes).
fn assert_dom_is_data(dom: &Dom, data: &Value) {
    let rows = data["rows"].as_array().unwrap().len();
    let compared = data.get("before").is_some();
    assert_eq!(dom.rows.len(), rows, "every row is shown");
    for (r, cells) in &dom.rows {
        assert_eq!(cells.len(), dom.columns.len(), "row {r}: a cell per column");
        for (&c, (class, text)) in dom.columns.iter().zip(cells) {
            let now = code(data, "cells", *r, c);
            let mut want = letters(now);
            if compared {
                let was = code(data, "before", *r, c);
                let (gained, lost) = (now & !was, was & !now);
                let (mark, sign) = match (gained != 0, lost != 0) {
                    (true, true) => (" x", "±"),
                    (true, false) => (" g", "+"),
                    (false, true) => (" l", "−"),
                    (false, false) => ("", ""),
                };
                assert!(class.ends_with(mark), "row {r} column {c}: {class}");
                want = format!("{sign}{want}");
            }
            assert_eq!(text, &want, "row {r} column {c} ({class})");
        }
    }
}

/// What `guildctl access --as/--user … --format json` (a preview) says of each row: the
/// cell code the page must show.
fn preview_codes(preview: &Value, data: &Value) -> Vec<u8> {
    let admin = preview["administrator"].as_bool().unwrap();
    let seen: HashMap<&str, Vec<&str>> = preview["channels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let perms = c["permissions"].as_array().unwrap();
            (
                c["channel"].as_str().unwrap(),
                perms.iter().map(|p| p.as_str().unwrap()).collect(),
            )
        })
        .collect();
    data["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            let Some(perms) = seen.get(row["path"].as_str().unwrap()) else {
                return 0;
            };
            let send = match row["kind"].as_str().unwrap() {
                "voice" | "stage" => "connect",
                _ => "send_messages",
            };
            let mut c = VIEW;
            if perms.contains(&send) {
                c |= SEND;
            }
            if perms.iter().any(|p| MANAGING.contains(p)) {
                c |= MANAGE;
            }
            if admin {
                c |= ADMIN;
            }
            c
        })
        .collect()
}

/// Every column of the page's data (`key`: `cells` or `before`) is what a preview as that
/// role or person computes; `access` runs `guildctl access ARGS --format json`.
fn assert_data_is_previews(data: &Value, key: &str, mut access: impl FnMut(&[&str]) -> Value) {
    for (c, col) in data["columns"].as_array().unwrap().iter().enumerate() {
        if col.get("presence").and_then(Value::as_str)
            == Some(if key == "cells" { "gone" } else { "new" })
        {
            continue;
        }
        let who = col["name"].as_str().unwrap();
        let id = col["id"].as_str().unwrap();
        let preview = match col["kind"].as_str().unwrap() {
            "person" => access(&["--user", id]),
            _ => access(&["--as", who]),
        };
        let want = preview_codes(&preview, data);
        for (r, &w) in want.iter().enumerate() {
            let row = &data["rows"][r];
            if row.get("presence").and_then(Value::as_str)
                == Some(if key == "cells" { "gone" } else { "new" })
            {
                continue;
            }
            assert_eq!(
                code(data, key, r, c),
                w,
                "{key}: {who} in {} ({})",
                row["path"],
                row["kind"]
            );
        }
    }
}

fn write_page(dir: &Path, name: &str, page: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, page).unwrap();
    path
}

/// No URL in a `src` or `href` attribute: the page points nowhere.
fn assert_points_nowhere(html: &str) {
    let lower = html.to_ascii_lowercase();
    for attr in ["src=", "href=", "action=", "srcset="] {
        for (at, _) in lower.match_indices(attr) {
            let value = lower[at + attr.len()..].trim_start_matches(['"', '\'']);
            for scheme in ["http:", "https:", "//", "ftp:", "ws:", "wss:", "data:"] {
                assert!(
                    !value.starts_with(scheme),
                    "the page points elsewhere: {}",
                    &html[at..(at + 80).min(html.len())]
                );
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(guildctl_chromium),
    ignore = "needs Chromium: `apt-get install chromium`, or set GUILDCTL_CHROMIUM to its path (.ci/run does)"
)]
fn the_example_page_shows_in_every_cell_what_a_preview_as_each_role_computes() {
    let manifest = example("community.yaml");
    let m = manifest.to_str().unwrap();
    let page = sandbox(&["access", "-f", m, "--format", "html"]);
    assert!(page.len() < 64 * 1024, "{} bytes", page.len());
    assert_points_nowhere(&page);
    let data = page_data(&page);
    assert_eq!(data["version"], 1);
    assert_eq!(data["state"], "after_plan");
    let dir = tempfile::tempdir().unwrap();
    let path = write_page(dir.path(), "access.html", &page);
    let dom = dump_dom(&path, "", &[]);
    let grid = grid_dom(&dom);
    assert_eq!(
        grid.columns.len(),
        data["columns"].as_array().unwrap().len()
    );
    assert_dom_is_data(&grid, &data);
    assert_data_is_previews(&data, "cells", |who| {
        let mut args = vec!["access", "-f", m, "--format", "json"];
        args.extend(who);
        serde_json::from_str(&sandbox(&args)).unwrap()
    });
    // The tree: Staff's channels are under it, in Discord's order.
    let rows = data["rows"].as_array().unwrap();
    let staff = rows.iter().position(|r| r["path"] == "Staff").unwrap();
    assert_eq!(rows[staff + 1]["category"], staff);
    assert!(dom.contains("<th scope=\"row\""), "row headers");
    assert!(dom.contains("<th scope=\"col\""), "column headers");
    assert!(dom.contains("<caption>"), "a caption");
    assert!(dom.contains("<label for=\"f-role\">"), "labelled filters");
    // The new member's path, as `access --new-member` walks it: each answer's roles and
    // channels in a row of its question's table.
    let walk: Value = serde_json::from_str(&sandbox(&[
        "access",
        "-f",
        m,
        "--new-member",
        "--format",
        "json",
    ]))
    .unwrap();
    let section = between(&dom, "id=\"new-member\"", "</section>");
    let joined = walk["default_channels"].as_array().unwrap();
    assert!(
        section.contains(&format!(
            "On joining ({} channels in their list",
            joined.len()
        )),
        "{section}"
    );
    let option = &walk["prompts"][0]["options"][0];
    let row = between(section, option["title"].as_str().unwrap(), "</tr>");
    for role in option["roles"].as_array().unwrap() {
        assert!(row.contains(role.as_str().unwrap()), "{row}");
    }
    assert!(row.contains("Help/#help"), "{row}");
}

#[test]
#[cfg_attr(
    not(guildctl_chromium),
    ignore = "needs Chromium: `apt-get install chromium`, or set GUILDCTL_CHROMIUM to its path (.ci/run does)"
)]
fn a_filter_in_the_fragment_keeps_that_role_and_the_channels_it_names() {
    let manifest = example("community.yaml");
    let page = sandbox(&[
        "access",
        "-f",
        manifest.to_str().unwrap(),
        "--format",
        "html",
    ]);
    let data = page_data(&page);
    let dir = tempfile::tempdir().unwrap();
    let path = write_page(dir.path(), "access.html", &page);
    let dom = dump_dom(&path, "#role=Moderator&channel=staff", &[]);
    let grid = grid_dom(&dom);
    let names: Vec<&str> = grid
        .columns
        .iter()
        .map(|&c| data["columns"][c]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Moderator"]);
    let paths: Vec<&str> = grid
        .rows
        .iter()
        .map(|(r, _)| data["rows"][*r]["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths[0], "Staff");
    assert!(paths.len() > 1);
    assert!(
        paths.iter().all(|p| p.to_lowercase().contains("staff")),
        "{paths:?}"
    );
    assert!(dom.contains(&format!("Showing {} of", paths.len())));
}

/// Staff/#mod-log opened to @everyone, sending taken from Muted in #general and given back
/// to dave (who holds Muted) by his own overwrite.
fn changing_overwrites(h: &Harness) -> PathBuf {
    let dave = h.user_id("dave");
    h.manifest(
        "guild.yaml",
        &format!(
            "version: 1
channels:
  - name: General
    type: category
    channels:
      - name: general
        overwrites:
          - {{ role: Muted, deny: [send_messages, speak] }}
          - {{ member: \"{dave}\", allow: [send_messages] }}
  - name: Staff
    type: category
    channels:
      - name: mod-log
        type: text
        overwrites:
          - {{ role: \"@everyone\", allow: [view_channel] }}
          - {{ role: Moderator, allow: [view_channel], deny: [send_messages] }}
"
        ),
    )
}

#[tokio::test]
#[cfg_attr(
    not(guildctl_chromium),
    ignore = "needs Chromium: `apt-get install chromium`, or set GUILDCTL_CHROMIUM to its path (.ci/run does)"
)]
async fn the_plan_page_marks_what_the_plan_changes_in_every_cell_before_and_after() {
    let h = Harness::start().await;
    let m = changing_overwrites(&h);
    let m = m.to_str().unwrap();
    let run = h.run(&["plan", "-f", m, "--format", "html"]).await;
    run.assert_code(0);
    let page = run.stdout;
    assert_points_nowhere(&page);
    let data = page_data(&page);
    assert_eq!(data["state"], "plan");
    let plan = h.plan_json(m).await;

    // Before and after, each cell as a preview computes it today (--live) and after.
    let mut previews = Vec::new();
    for live in [true, false] {
        for (c, col) in data["columns"].as_array().unwrap().iter().enumerate() {
            let mut args = vec!["access", "-f", m, "--format", "json"];
            if live {
                args.push("--live");
            }
            let id = col["id"].as_str().unwrap().to_owned();
            let name = col["name"].as_str().unwrap().to_owned();
            if col["kind"] == "person" {
                args.extend(["--user", &id]);
            } else {
                args.extend(["--as", &name]);
            }
            let out = h.run(&args).await;
            out.assert_code(0);
            previews.push(((live, c), out.json()));
        }
    }
    let preview = |live: bool, who: &[&str]| -> Value {
        let c = data["columns"]
            .as_array()
            .unwrap()
            .iter()
            .position(|col| col["id"] == who[1] || col["name"] == who[1])
            .unwrap();
        previews
            .iter()
            .find(|((l, k), _)| *l == live && *k == c)
            .unwrap()
            .1
            .clone()
    };
    assert_data_is_previews(&data, "before", |who| preview(true, who));
    assert_data_is_previews(&data, "cells", |who| preview(false, who));

    // A person the plan knows (a member overwrite names dave) is a column of their own.
    let dave = h.user_id("dave");
    let col = data["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == dave.as_str())
        .expect("dave's column");
    assert_eq!(col["kind"], "person");

    // In the browser: every cell, gains and losses marked where the data changes.
    let dir = tempfile::tempdir().unwrap();
    let path = write_page(dir.path(), "plan.html", &page);
    let dom = dump_dom(&path, "", &[]);
    assert_dom_is_data(&grid_dom(&dom), &data);
    let rows = data["rows"].as_array().unwrap();
    let log = rows
        .iter()
        .position(|r| r["path"] == "Staff/#mod-log")
        .unwrap();
    assert_eq!(code(&data, "before", log, 0) & VIEW, 0);
    assert_ne!(
        code(&data, "cells", log, 0) & VIEW,
        0,
        "@everyone sees #mod-log"
    );

    // The plan's access lines are listed, each one a cell that changes.
    let lines = plan["access"].as_array().unwrap();
    assert!(!lines.is_empty());
    assert!(page.contains(&format!("Access once applied ({})", lines.len())));
    for line in lines {
        let who = line["who"].as_str().unwrap();
        assert!(page.contains(&format!("<b>{who}</b>")), "{who}");
        if let Some(channel) = line["channel"].as_str()
            && line["gains"]
                .as_array()
                .unwrap()
                .iter()
                .any(|g| g == "view_channel")
        {
            let r = rows.iter().position(|r| r["path"] == channel).unwrap();
            let c = data["columns"]
                .as_array()
                .unwrap()
                .iter()
                .position(|c| c["name"] == who)
                .unwrap();
            assert_eq!(code(&data, "before", r, c) & VIEW, 0, "{who} in {channel}");
            assert_ne!(code(&data, "cells", r, c) & VIEW, 0, "{who} in {channel}");
        }
    }
    // A person by their username keeps their column alone.
    let by_person = grid_dom(&dump_dom(&path, "#person=dave", &[]));
    let dave_at = data["columns"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["id"] == dave.as_str())
        .unwrap();
    assert_eq!(by_person.columns, [dave_at]);
    assert_eq!(by_person.rows.len(), rows.len());
    // And filtered to what the plan changes, only changed cells' rows remain.
    let changed = grid_dom(&dump_dom(&path, "#changed=1", &[]));
    assert!(!changed.rows.is_empty() && changed.rows.len() < rows.len());
    for (_, cells) in &changed.rows {
        assert!(cells.iter().any(|(class, _)| class.ends_with(" g")
            || class.ends_with(" l")
            || class.ends_with(" x")));
    }
}

#[tokio::test]
#[cfg_attr(
    not(guildctl_chromium),
    ignore = "needs Chromium: `apt-get install chromium`, or set GUILDCTL_CHROMIUM to its path (.ci/run does)"
)]
async fn a_role_named_to_close_the_script_stays_text_and_nothing_is_fetched() {
    let h = Harness::start().await;
    let hostile = "</script><img src=x onerror=alert(1)>";
    let m = h.manifest(
        "guild.yaml",
        &format!(
            "version: 1\nroles:\n  - name: '{hostile}'\n    permissions: [view_channel]\n  - name: \"{{{{SCRIPT}}}}<!--\"\n"
        ),
    );
    let m = m.to_str().unwrap();
    let run = h.run(&["access", "-f", m, "--format", "html"]).await;
    run.assert_code(0);
    let page = run.stdout;
    assert!(!page.contains("<img"), "the name is escaped everywhere");
    assert!(!page.contains("<!--"), "no comment opened");
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own scripts close"
    );
    let data = page_data(&page);
    assert!(
        data["columns"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == hostile),
        "the name is the role's, read back whole"
    );
    assert_points_nowhere(&page);
    let csp = between(
        &page,
        "http-equiv=\"Content-Security-Policy\" content=\"",
        "\"",
    )
    .replace("&#39;", "'");
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(csp.contains("script-src 'sha256-"), "{csp}");

    // Loaded behind a proxy the test owns, with every name resolving nowhere: the proxy
    // sees every request Chromium makes. A control page that loads an image from elsewhere
    // shows the fence catches it; the pages make none. Chromium asks Google's hosts for
    // itself whatever it loads (about:blank too), and those are set apart.
    let proxy = Proxy::start();
    let dir = tempfile::tempdir().unwrap();
    let path = write_page(dir.path(), "hostile.html", &page);
    let plan_page = h.run(&["plan", "-f", m, "--format", "html"]).await;
    plan_page.assert_code(0);
    let plan_path = write_page(dir.path(), "plan.html", &plan_page.stdout);
    let fenced = [
        format!("--proxy-server=http://127.0.0.1:{}", proxy.port),
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1".to_owned(),
        "--disable-features=NetworkTimeServiceQuerying".to_owned(),
        "--virtual-time-budget=2000".to_owned(),
    ];
    let control = write_page(
        dir.path(),
        "control.html",
        "<!DOCTYPE html><p data-render-ms=\"0\">control</p><img src=\"http://canary.invalid/x.png\">",
    );
    dump_dom(&control, "", &fenced);
    assert!(
        proxy.asked().iter().any(|t| t.contains("canary.invalid")),
        "the fence sees a fetch: {:?}",
        proxy.asked()
    );
    let before = proxy.asked().len();
    for p in [&path, &plan_path] {
        let dom = dump_dom(p, "", &fenced);
        assert!(
            dom.contains("&lt;/script&gt;&lt;img"),
            "the name shown as text"
        );
        assert!(!wrap(&dom).contains("<img"), "no element made from a name");
    }
    let asked: Vec<String> = proxy.asked()[before..]
        .iter()
        .filter(|t| !chromiums_own(t))
        .cloned()
        .collect();
    assert!(asked.is_empty(), "the pages fetched: {asked:?}");
}

/// Google's hosts, which Chromium asks for itself (sign-in and search preconnects).
fn chromiums_own(target: &str) -> bool {
    let host = target
        .trim_start_matches("http://")
        .split(['/', ':'])
        .next()
        .unwrap_or("");
    ["google.com", "gstatic.com", "googleapis.com"]
        .iter()
        .any(|d| host == *d || host.ends_with(&format!(".{d}")))
}

/// An HTTP proxy on a port of its own that answers every request 502 and records its
/// target (`CONNECT host:port`'s, or a GET's URL).
struct Proxy {
    port: u16,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Proxy {
    fn start() -> Proxy {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&asked);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(2)));
                let mut head = [0u8; 1024];
                let n = stream.read(&mut head).unwrap_or(0);
                let line = String::from_utf8_lossy(&head[..n]);
                let target = line.split_whitespace().nth(1).unwrap_or("?").to_owned();
                log.lock().unwrap().push(target);
                let _ = stream.write_all(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
            }
        });
        Proxy { port, asked }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

#[test]
#[cfg_attr(
    not(guildctl_chromium),
    ignore = "needs Chromium: `apt-get install chromium`, or set GUILDCTL_CHROMIUM to its path (.ci/run does)"
)]
fn the_page_at_discords_limits_stays_under_2_mb_and_renders() {
    use discord_emulator::{EmulatorOptions, LargeStateOptions, RunningEmulator, large_state};
    use guildctl::access::Guild;
    use guildctl::access::grid;
    use guildctl::report::html::{self, Page, Shown};

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let snap = runtime.block_on(async {
        let mut state = large_state(LargeStateOptions {
            webhooks: 0,
            members: 10,
            ..LargeStateOptions::default()
        });
        state.config.time_scale = 1e6;
        let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
            .await
            .unwrap();
        let client = guildctl::discord::Client::with_options(
            &emu.api_base,
            guildctl::discord::Token::new(emu.token.clone()).unwrap(),
            guildctl::discord::ClientOptions::default(),
        )
        .unwrap();
        guildctl::snapshot::Snapshot::fetch(&client, &emu.guild_id)
            .await
            .unwrap()
    });
    let live = Guild::live(&snap);
    // Every tenth channel opened to @everyone: gains to mark.
    let mut after = live.clone();
    for c in live.channels.iter().step_by(10) {
        after.set_channel(
            c.spec(),
            Some(vec![guildctl::access::model::Overwrite {
                target: live.id.clone(),
                kind: guildctl::access::model::ROLE,
                allow: guildctl::permissions::Permissions::VIEW_CHANNEL,
                deny: guildctl::permissions::Permissions::NONE,
            }]),
            None,
            Some(0),
        );
    }
    let both = grid::compare(&live, &after);
    assert_eq!((both.rows.len(), both.columns.len()), (500, 250));
    let page = html::render(&Page {
        guild_id: &live.id,
        guild_name: &snap.guild.name,
        shown: Shown::Plan,
        grid: &both,
        access: &[],
        new_member: None,
    });
    println!(
        "the plan page at 500 channels x 250 roles: {} KB",
        page.len() / 1024
    );
    assert!(page.len() < 2 * 1024 * 1024, "{} bytes", page.len());
    let dir = tempfile::tempdir().unwrap();
    let path = write_page(dir.path(), "large.html", &page);
    let dom = dump_dom(&path, "", &[]);
    let ms: f64 = between(&dom, "data-render-ms=\"", "\"").parse().unwrap();
    println!(
        "rendered by headless Chromium in {ms:.0} ms (from navigation start to the table laid out)"
    );
    // Loose: the bench measures (docs/performance.md); a loaded two-core machine must not fail this.
    assert!(ms < 15_000.0, "{ms} ms");
    assert_eq!(wrap(&dom).matches("<tr data-row=").count(), 500);
    assert_eq!(wrap(&dom).matches("<td class=").count(), 125_000);
}

#[tokio::test]
async fn html_is_refused_where_there_is_no_page() {
    let h = Harness::start().await;
    let m = example("community.yaml");
    let m = m.to_str().unwrap();
    let run = h.run(&["drift", "-f", m, "--format", "html"]).await;
    run.assert_code(2);
    assert!(
        run.stderr.contains("invalid value 'html'"),
        "{}",
        run.stderr
    );
    let run = h
        .run(&["access", "-f", m, "--format", "html", "--as", "Moderator"])
        .await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("#role=NAME"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    // The page shows a new member's path with nothing answered; answers are refused.
    let run = h
        .run(&[
            "access",
            "-f",
            m,
            "--format",
            "html",
            "--new-member",
            "--answers",
            "What brings you to Ferris Fans?=I am learning Rust",
        ])
        .await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("leave out --answers"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
}
