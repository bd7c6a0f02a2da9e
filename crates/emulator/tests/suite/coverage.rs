//! The coverage table (`coverage.txt`) against Discord's OpenAPI, the emulator's router
//! and its README:
//! - every OpenAPI operation in the guild, member, audit-log, invite and webhook areas
//!   has a line, with a status (served, or out and why); an operation added to the spec
//!   without one fails;
//! - every line names an OpenAPI operation, or says it is not in the OpenAPI;
//! - every served line is a route of `src/routes.rs` and every route there a served line;
//! - over HTTP, a served line is routed (never the router's 404 or 405) and an out line
//!   is not;
//! - the README's route table is made from the served lines (`UPDATE_README=1 cargo test
//!   -p discord-emulator --test suite coverage::` writes it).

use std::collections::{BTreeSet, HashMap};

use discord_emulator::{EmulatorOptions, RunningEmulator};
use serde_json::Value;

const TABLE: &str = include_str!("../../coverage.txt");
const ROUTES: &str = include_str!("../../src/routes.rs");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
const BEGIN: &str = "<!-- routes: made from coverage.txt by tests/suite/coverage.rs -->";
const END: &str = "<!-- routes end -->";

#[derive(Debug, Clone, PartialEq)]
struct Line {
    method: String,
    path: String,
    served: bool,
    name: String,
    /// What a success answers (served), or why not (out).
    note: String,
}

fn parse_table(text: &str) -> Result<Vec<Line>, String> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [op, status, name, note] = cells[..] else {
            return Err(format!(
                "coverage.txt:{}: want 4 cells, got {line:?}",
                n + 1
            ));
        };
        let Some((method, path)) = op.split_once(' ') else {
            return Err(format!(
                "coverage.txt:{}: want METHOD PATH, got {op:?}",
                n + 1
            ));
        };
        let served = match status {
            "served" => true,
            "out" => false,
            _ => {
                return Err(format!(
                    "coverage.txt:{}: status is `served` or `out`, not {status:?}",
                    n + 1
                ));
            }
        };
        if name.is_empty() || note.is_empty() {
            return Err(format!(
                "coverage.txt:{}: a name and a note are needed",
                n + 1
            ));
        }
        out.push(Line {
            method: method.to_owned(),
            path: path.to_owned(),
            served,
            name: name.to_owned(),
            note: note.to_owned(),
        });
    }
    Ok(out)
}

/// The areas the table must cover.
fn in_areas(path: &str) -> bool {
    path.starts_with("/guilds/")
        || path.starts_with("/invites/")
        || path.starts_with("/webhooks/")
        || path == "/channels/{channel_id}/webhooks"
        || path == "/channels/{channel_id}/invites"
}

/// (METHOD, path) of every operation of the spec.
fn spec_operations(spec: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, ops) in spec["paths"].as_object().expect("paths") {
        for method in ops.as_object().expect("operations").keys() {
            if ["get", "post", "put", "patch", "delete"].contains(&method.as_str()) {
                out.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    out
}

/// What is wrong with the table against the spec.
fn check_against_spec(lines: &[Line], spec: &Value) -> Vec<String> {
    let ops = spec_operations(spec);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for l in lines {
        let key = (l.method.clone(), l.path.clone());
        if !seen.insert(key.clone()) {
            problems.push(format!("{} {} has two lines", l.method, l.path));
        }
        if !ops.contains(&key) && !l.note.contains("not in the OpenAPI") {
            problems.push(format!(
                "{} {} is not an OpenAPI operation (say \"not in the OpenAPI\" if it is the reference's own)",
                l.method, l.path
            ));
        }
    }
    for (method, path) in ops.iter().filter(|(_, p)| in_areas(p)) {
        if !seen.contains(&(method.clone(), path.clone())) {
            problems.push(format!(
                "{method} {path} is in the OpenAPI but has no status in coverage.txt"
            ));
        }
    }
    problems
}

fn load_spec() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/discord-openapi.json"
    ))
    .expect("spec present");
    serde_json::from_str(&text).expect("spec parses")
}

#[test]
fn every_openapi_operation_of_the_areas_has_a_status() {
    let lines = parse_table(TABLE).unwrap();
    let problems = check_against_spec(&lines, &load_spec());
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn an_operation_added_to_the_openapi_without_a_status_fails() {
    let lines = parse_table(TABLE).unwrap();
    let mut spec = load_spec();
    spec["paths"]["/guilds/{guild_id}/frobnicate"] =
        serde_json::json!({"post": {"operationId": "frobnicate_guild"}});
    let problems = check_against_spec(&lines, &spec);
    assert_eq!(
        problems,
        ["POST /guilds/{guild_id}/frobnicate is in the OpenAPI but has no status in coverage.txt"]
    );
    // An operation outside the areas needs none.
    let mut spec = load_spec();
    spec["paths"]["/users/@me/frobnicate"] = serde_json::json!({"post": {}});
    assert!(check_against_spec(&lines, &spec).is_empty());
    // A line must be well formed.
    assert!(parse_table("GET /guilds/{guild_id} | maybe | Get Guild | ?").is_err());
}

/// The path with every `{param}` as `{}`.
fn shape(path: &str) -> String {
    path.split('/')
        .map(|s| if s.starts_with('{') { "{}" } else { s })
        .collect::<Vec<_>>()
        .join("/")
}

/// (METHOD, path shape) of every API route of `src/routes.rs`: each `.route("PATH",
/// ...)` of the `/api/v10` router with the methods its handlers are given.
fn router_routes(src: &str) -> BTreeSet<(String, String)> {
    let start = src.find("let api = Router::new()").expect("the api router");
    let end = src[start..]
        .find("let control")
        .map_or(src.len(), |e| start + e);
    let api = &src[start..end];
    let mut out = BTreeSet::new();
    let mut rest = api;
    while let Some(i) = rest.find(".route(") {
        rest = &rest[i + ".route(".len()..];
        // The call runs to its closing parenthesis.
        let mut depth = 1;
        let mut close = 0;
        for (j, c) in rest.char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        let call = &rest[..close];
        let path = call.split('"').nth(1).expect("a path literal");
        let after_path = call.split_once(',').map_or("", |(_, a)| a);
        for method in ["get", "post", "put", "patch", "delete"] {
            let first = after_path.trim_start().starts_with(&format!("{method}("));
            if first || after_path.contains(&format!(".{method}(")) {
                out.insert((method.to_uppercase(), shape(path)));
            }
        }
        rest = &rest[close..];
    }
    out
}

#[test]
fn the_served_lines_are_the_routes_of_the_router() {
    let lines = parse_table(TABLE).unwrap();
    let table: BTreeSet<(String, String)> = lines
        .iter()
        .filter(|l| l.served)
        .map(|l| (l.method.clone(), shape(&l.path)))
        .collect();
    let routes = router_routes(ROUTES);
    assert!(routes.len() > 60, "the router was read: {routes:?}");
    let missing: Vec<_> = routes.difference(&table).collect();
    let extra: Vec<_> = table.difference(&routes).collect();
    assert!(
        missing.is_empty(),
        "routed but not `served` in coverage.txt: {missing:?}"
    );
    assert!(
        extra.is_empty(),
        "`served` in coverage.txt but not routed: {extra:?}"
    );
}

/// A concrete path for a template: ids become an unknown snowflake.
fn concrete(path: &str) -> String {
    path.split('/')
        .map(|s| match s {
            "{webhook_token}" => "not-a-token",
            "{code}" => "no-such-code",
            s if s.starts_with('{') => "123456789012345678",
            s => s,
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[tokio::test]
async fn served_lines_are_routed_and_out_lines_are_not() {
    let emu = RunningEmulator::start(EmulatorOptions::default())
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let mut wrong = Vec::new();
    for l in parse_table(TABLE).unwrap() {
        let method = reqwest::Method::from_bytes(l.method.as_bytes()).unwrap();
        let mut rb = http.request(method, format!("{}{}", emu.api_base, concrete(&l.path)));
        if matches!(l.method.as_str(), "POST" | "PUT" | "PATCH") {
            rb = rb.json(&serde_json::json!({}));
        }
        let resp = rb.send().await.unwrap();
        let status = resp.status().as_u16();
        let body: Value = resp.json().await.unwrap_or(Value::Null);
        // The router's own answers: 404 and 405 with code 0.
        let unrouted = matches!(status, 404 | 405) && body["code"] == 0;
        if l.served == unrouted {
            wrong.push(format!("{} {}: {status} {body}", l.method, l.path));
        }
    }
    emu.shutdown().await;
    assert!(
        wrong.is_empty(),
        "served lines must be routed, out lines not:\n{}",
        wrong.join("\n")
    );
}

/// The README's route table, from the served lines.
fn route_table(lines: &[Line]) -> String {
    let mut out = String::from("| route | operation | success |\n|---|---|---|\n");
    for l in lines.iter().filter(|l| l.served) {
        out.push_str(&format!(
            "| `{} {}` | {} | {} |\n",
            l.method, l.path, l.name, l.note
        ));
    }
    out
}

#[test]
fn the_readme_route_table_is_made_from_the_coverage_table() {
    let lines = parse_table(TABLE).unwrap();
    let readme = std::fs::read_to_string(README).unwrap();
    let (head, rest) = readme.split_once(BEGIN).expect("the README's table marker");
    let (_, tail) = rest.split_once(END).expect("the README's end marker");
    let want = format!("{head}{BEGIN}\n{}{END}{tail}", route_table(&lines));
    if std::env::var_os("UPDATE_README").is_some() {
        std::fs::write(README, &want).unwrap();
        return;
    }
    assert!(
        readme == want,
        "the README's route table is not coverage.txt's: run UPDATE_README=1 cargo test -p discord-emulator --test suite coverage::"
    );
    // Nothing the table calls out of scope is said to be served in the README.
    let outs: HashMap<String, String> = lines
        .iter()
        .filter(|l| !l.served)
        .map(|l| (format!("`{} {}`", l.method, l.path), l.note.clone()))
        .collect();
    for key in outs.keys() {
        assert!(!readme.contains(key.as_str()), "{key} is out of scope");
    }
}
