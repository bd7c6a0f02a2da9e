//! What a webhook's token does with messages: Execute Webhook (JSON or multipart, `wait`,
//! `thread_id`, `thread_name`, `with_components`), its chat-tool-compatible (`/slack`)
//! and code-host-compatible (`/github`) variants, and Get, Edit and Delete Webhook
//! Message. No Authorization: the token in the path is the credential.

use axum::extract::{Path, RawQuery, State as AxState};
use axum::http::HeaderMap;
use serde_json::{Map, Value, json};

use crate::app::{App, R, fired, lock, no_content, ok, query_bool, query_params};
use crate::error::{ApiError, FieldErrors};
use crate::events::{self, Dispatch};
use crate::form::{self, Reader};
use crate::messages::{self, MessageBody, MessageFields, Poster};
use crate::render;
use crate::state::{State, Thread};
use crate::threads::message_count;
use crate::time::timestamp;
use crate::webhooks::find_by_token;

/// The query of the message routes: `wait`, `thread_id`, `with_components`.
struct Query {
    wait: Option<bool>,
    thread_id: Option<String>,
    with_components: bool,
}

fn read_query(q: Option<String>) -> Result<Query, ApiError> {
    let params = query_params(q);
    let wait = query_bool(&params, "wait")?;
    let with_components = query_bool(&params, "with_components")?.unwrap_or(false);
    let thread_id = match params.get("thread_id") {
        None => None,
        Some(t) => Some(
            form::as_snowflake(&Value::String(t.clone())).ok_or_else(|| {
                ApiError::field(
                    &["thread_id"],
                    "NUMBER_TYPE_COERCE",
                    &format!("Value \"{t}\" is not snowflake."),
                )
            })?,
        ),
    };
    Ok(Query {
        wait,
        thread_id,
        with_components,
    })
}

fn unknown_message() -> ApiError {
    ApiError::new(axum::http::StatusCode::NOT_FOUND, 10008, "Unknown Message")
}

/// The events and message of one post.
struct Posted {
    message: Value,
    events: Vec<Dispatch>,
}

/// Posts a message through webhook (gi, wi): into `thread_id` (a thread of the
/// webhook's channel, unarchived if archived), or into a new thread named `thread_name`
/// (forum and media channels, which need one of the two), or into the channel.
fn post(
    st: &mut State,
    gi: usize,
    wi: usize,
    q: &Query,
    f: MessageFields,
) -> Result<Posted, ApiError> {
    let now = st.now_ms();
    let g = &st.guilds[gi];
    let w = &g.webhooks[wi];
    let cid = w.channel_id.clone().ok_or_else(ApiError::unknown_channel)?;
    let channel = g.channel(&cid).ok_or_else(ApiError::unknown_channel)?;
    let forum_like = matches!(channel.kind, 15 | 16);
    let mut events = Vec::new();
    let thread = match &q.thread_id {
        Some(tid) => Some(
            g.threads
                .iter()
                .position(|t| t.id == *tid && t.parent_id == cid)
                .ok_or_else(ApiError::unknown_channel)?,
        ),
        None => None,
    };
    if thread.is_none() {
        match (&f.thread_name, forum_like) {
            (None, true) => {
                return Err(ApiError::bad_request(
                    220_001,
                    "Webhooks posted to forum channels must have a thread_name or thread_id",
                ));
            }
            (Some(_), false) => {
                return Err(ApiError::bad_request(
                    220_003,
                    "Webhooks can only create threads in forum channels",
                ));
            }
            _ => {}
        }
    }
    if let Some(tags) = &f.applied_tags
        && let Some(bad) = tags
            .iter()
            .position(|t| !channel.available_tags.iter().any(|a| a.id == *t))
    {
        return Err(ApiError::field(
            &["applied_tags", &bad.to_string()],
            "FORUM_TAG_INVALID",
            "Unknown tag for this channel.",
        ));
    }
    let app_owned = w.application_id.clone();
    let (wid, wname, wavatar) = (w.id.clone(), w.name.clone(), w.avatar.clone());
    let id = st.snowflake.next_id();
    // A forum post's thread has its starter message's id.
    let target = match thread {
        Some(ti) => st.guilds[gi].threads[ti].id.clone(),
        None if f.thread_name.is_some() => id.clone(),
        None => cid.clone(),
    };
    let new_thread = thread.is_none().then(|| f.thread_name.clone()).flatten();
    let applied_tags = f.applied_tags.clone().unwrap_or_default();
    let poster = Poster {
        channel_id: &target,
        webhook_id: &wid,
        webhook_name: &wname,
        webhook_avatar: wavatar.as_deref(),
        app_owned: app_owned.as_deref(),
        with_components: q.with_components,
    };
    let State {
        guilds,
        snowflake,
        users,
        ..
    } = &mut *st;
    let message = messages::compose(users, &guilds[gi], snowflake, &poster, f, id.clone())?;
    let g = &mut guilds[gi];
    if let Some(name) = new_thread {
        let t = Thread {
            id: id.clone(),
            kind: 11,
            parent_id: cid.clone(),
            name,
            owner_id: wid.clone(),
            archived: false,
            locked: false,
            auto_archive_duration: 1440,
            archive_timestamp: Some(timestamp(now)),
            applied_tags,
            flags: 0,
            rate_limit_per_user: 0,
            member_ids: Vec::new(),
            total_message_sent: 0,
        };
        // The channel object, as made (before its first message), with `newly_created`
        // as the Gateway sends a thread just made.
        let mut thread = render::thread(&g.id, &t, message_count(g, &t.id));
        thread["newly_created"] = json!(true);
        g.threads.push(t);
        events.push(Dispatch::new(events::THREAD_CREATE, &g.id, thread));
    }
    if let Some(ti) = g.threads.iter().position(|t| t.id == target) {
        if g.threads[ti].archived {
            // Posting into an archived thread unarchives it (reference, States).
            let t = &mut g.threads[ti];
            t.archived = false;
            t.archive_timestamp = Some(timestamp(now));
            let t = &g.threads[ti];
            let thread = render::thread(&g.id, t, message_count(g, &t.id));
            events.push(Dispatch::new(events::THREAD_UPDATE, &g.id, thread));
        }
        g.threads[ti].total_message_sent += 1;
    }
    g.messages.push(message);
    let gid = g.id.clone();
    let stored = st.guilds[gi].messages.last().ok_or_else(unknown_message)?;
    let message = messages::render(st, stored);
    let created = events::message(events::MESSAGE_CREATE, st, &gid, message.clone());
    events.push(created);
    Ok(Posted { message, events })
}

/// `POST /webhooks/{w}/{t}` (Execute Webhook): 200 with the message when `wait` is true,
/// else 204.
pub async fn execute(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
    RawQuery(q): RawQuery,
    body: MessageBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let q = read_query(q)?;
    let f = messages::read_fields(body, true, st.now_ms())?;
    let posted = post(&mut st, gi, wi, &q, f)?;
    let answer = if q.wait.unwrap_or(false) {
        ok(posted.message)
    } else {
        no_content()
    };
    fired(answer, posted.events)
}

/// (guild, message) indices of message `mid` that webhook `wid` posted in the thread
/// `thread_id` or, without one, in the webhook's channel.
fn find_message(
    st: &State,
    gi: usize,
    wi: usize,
    mid: &str,
    thread_id: Option<&str>,
) -> Result<usize, ApiError> {
    let g = &st.guilds[gi];
    let w = &g.webhooks[wi];
    let place = thread_id.or(w.channel_id.as_deref());
    g.messages
        .iter()
        .position(|m| m.id == mid && m.webhook_id == w.id && Some(m.channel_id.as_str()) == place)
        .ok_or_else(unknown_message)
}

/// `GET /webhooks/{w}/{t}/messages/{m}?thread_id`: a message this webhook posted.
pub async fn get_message(
    AxState(app): AxState<App>,
    Path((wid, token, mid)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> R {
    // `@original` (an interaction's response) and other words are not routed here.
    crate::access::digits(&mid)?;
    let st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let q = read_query(q)?;
    let mi = find_message(&st, gi, wi, &mid, q.thread_id.as_deref())?;
    ok(messages::render(&st, &st.guilds[gi].messages[mi]))
}

/// `PATCH /webhooks/{w}/{t}/messages/{m}?thread_id&with_components` (Edit Webhook
/// Message): 200 with the message.
pub async fn edit_message(
    AxState(app): AxState<App>,
    Path((wid, token, mid)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
    body: MessageBody,
) -> R {
    // `@original` (an interaction's response) and other words are not routed here.
    crate::access::digits(&mid)?;
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let q = read_query(q)?;
    let mi = find_message(&st, gi, wi, &mid, q.thread_id.as_deref())?;
    let now = st.now_ms();
    let f = messages::read_fields(body, false, now)?;
    let rights = messages::ComponentRights {
        app_owned: st.guilds[gi].webhooks[wi].application_id.is_some(),
        with_components: q.with_components,
    };
    let State {
        guilds,
        snowflake,
        users,
        ..
    } = &mut *st;
    let g = &guilds[gi];
    let edited = messages::edit(users, g, snowflake, &g.messages[mi], f, rights, now)?;
    guilds[gi].messages[mi] = edited;
    let g = &st.guilds[gi];
    let message = messages::render(&st, &g.messages[mi]);
    let updated = events::message(events::MESSAGE_UPDATE, &st, &g.id, message.clone());
    fired(ok(message), [updated])
}

/// `DELETE /webhooks/{w}/{t}/messages/{m}?thread_id` (Delete Webhook Message): 204.
pub async fn delete_message(
    AxState(app): AxState<App>,
    Path((wid, token, mid)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> R {
    // `@original` (an interaction's response) and other words are not routed here.
    crate::access::digits(&mid)?;
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let q = read_query(q)?;
    let mi = find_message(&st, gi, wi, &mid, q.thread_id.as_deref())?;
    let g = &mut st.guilds[gi];
    let gone = g.messages.remove(mi);
    let deleted = events::message_delete(&g.id, &gone.channel_id, &gone.id);
    fired(no_content(), [deleted])
}

/// A chat tool's colour (`#rgb` or `#rrggbb`) as an embed colour.
fn hex_color(s: &str) -> Option<u64> {
    let hex = s.strip_prefix('#')?;
    let full: String = match hex.len() {
        3 => hex.chars().flat_map(|c| [c, c]).collect(),
        6 => hex.to_owned(),
        _ => return None,
    };
    u64::from_str_radix(&full, 16).ok()
}

/// The chat tool's payload as an Execute Webhook body: `text` is the content (with each
/// attachment's `pretext` after it), `username` and `icon_url` the name and avatar, and
/// each attachment an embed (`title`, `title_link`, `text`, `color`, `ts`, `footer`,
/// `footer_icon`, `author_*`, `image_url`, `thumb_url`, `fields`). `channel`,
/// `icon_emoji`, `mrkdwn` and `mrkdwn_in` are not supported and are ignored (reference).
fn from_chat_tool(obj: &Map<String, Value>, r: &mut Reader) -> Map<String, Value> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut content = obj
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let mut embeds = Vec::new();
    for (i, a) in obj
        .get("attachments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        if let Some(p) = s(a, "pretext") {
            if !content.is_empty() {
                content.push('\n');
            }
            content.push_str(&p);
        }
        let mut e = Map::new();
        let mut put = |k: &str, v: Option<Value>| {
            if let Some(v) = v {
                e.insert(k.to_owned(), v);
            }
        };
        put("title", s(a, "title").map(Value::String));
        put("url", s(a, "title_link").map(Value::String));
        put("description", s(a, "text").map(Value::String));
        if let Some(c) = s(a, "color") {
            match hex_color(&c) {
                Some(n) => put("color", Some(json!(n))),
                None => r.err_at(
                    &["attachments", &i.to_string(), "color"],
                    "STRING_TYPE_REGEX",
                    "String value did not match validation regex.",
                ),
            }
        }
        put(
            "timestamp",
            a.get("ts")
                .and_then(Value::as_u64)
                .map(|ts| json!(timestamp(ts * 1000))),
        );
        put(
            "footer",
            s(a, "footer").map(|t| json!({"text": t, "icon_url": s(a, "footer_icon")})),
        );
        put(
            "author",
            s(a, "author_name").map(
                |n| json!({"name": n, "url": s(a, "author_link"), "icon_url": s(a, "author_icon")}),
            ),
        );
        put("image", s(a, "image_url").map(|u| json!({"url": u})));
        put("thumbnail", s(a, "thumb_url").map(|u| json!({"url": u})));
        let fields: Vec<Value> = a
            .get("fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|f| {
                json!({
                    "name": s(f, "title").or_else(|| s(f, "name")).unwrap_or_default(),
                    "value": s(f, "value").unwrap_or_default(),
                    "inline": f.get("short").or_else(|| f.get("inline")).and_then(Value::as_bool).unwrap_or(false),
                })
            })
            .collect();
        if !fields.is_empty() {
            put("fields", Some(Value::Array(fields)));
        }
        // Nulls from absent sub-fields are dropped.
        for v in e.values_mut() {
            if let Some(o) = v.as_object_mut() {
                o.retain(|_, x| !x.is_null());
            }
        }
        embeds.push(Value::Object(e));
    }
    let mut out = Map::new();
    if !content.is_empty() {
        out.insert("content".into(), json!(content));
    }
    if !embeds.is_empty() {
        out.insert("embeds".into(), Value::Array(embeds));
    }
    if let Some(u) = obj.get("username").filter(|v| v.is_string()) {
        out.insert("username".into(), u.clone());
    }
    if let Some(u) = obj.get("icon_url").filter(|v| v.is_string()) {
        out.insert("avatar_url".into(), u.clone());
    }
    out
}

/// `POST /webhooks/{w}/{t}/slack` (Execute chat-tool-compatible Webhook): `wait`
/// defaults to true; 200 with `"ok"`, as the OpenAPI's string answer.
pub async fn execute_chat_tool(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
    RawQuery(q): RawQuery,
    body: MessageBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let mut q = read_query(q)?;
    q.wait = Some(q.wait.unwrap_or(true));
    q.with_components = false;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&body.obj, &mut errs);
    let obj = from_chat_tool(&body.obj, &mut r);
    errs.check()?;
    let f = messages::read_fields(
        MessageBody {
            obj,
            files: Vec::new(),
        },
        true,
        st.now_ms(),
    )?;
    let posted = post(&mut st, gi, wi, &q, f)?;
    fired(ok(json!("ok")), posted.events)
}

/// The code host's events Discord turns into a message (reference).
const CODE_HOST_EVENTS: [&str; 18] = [
    "commit_comment",
    "create",
    "delete",
    "fork",
    "issue_comment",
    "issues",
    "member",
    "public",
    "pull_request",
    "pull_request_review",
    "pull_request_review_comment",
    "push",
    "release",
    "watch",
    "check_run",
    "check_suite",
    "discussion",
    "discussion_comment",
];

/// The embed the emulator makes of a code-host event: a title naming the repository and
/// what happened, the link, the sender as author. Discord's own wording is not
/// documented; this is the emulator's.
fn code_host_embed(event: &str, p: &Value) -> Value {
    let s = |ptr: &str| p.pointer(ptr).and_then(Value::as_str).unwrap_or_default();
    let repo = s("/repository/full_name");
    let action = s("/action");
    let item = |kind: &str, ptr: &str| {
        format!(
            "{kind} {action}: #{} {}",
            p.pointer(&format!("{ptr}/number"))
                .and_then(Value::as_u64)
                .unwrap_or(0),
            s(&format!("{ptr}/title"))
        )
    };
    let (title, url, description) = match event {
        "push" => {
            let commits = p
                .get("commits")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let branch = s("/ref").rsplit('/').next().unwrap_or_default().to_owned();
            let lines: Vec<String> = commits
                .iter()
                .map(|c| {
                    let id = c.get("id").and_then(Value::as_str).unwrap_or_default();
                    let msg = c.get("message").and_then(Value::as_str).unwrap_or_default();
                    format!(
                        "`{}` {}",
                        &id[..id.len().min(7)],
                        msg.lines().next().unwrap_or_default()
                    )
                })
                .collect();
            let n = commits.len();
            (
                format!(
                    "[{repo}:{branch}] {n} new commit{}",
                    if n == 1 { "" } else { "s" }
                ),
                s("/compare").to_owned(),
                lines.join("\n"),
            )
        }
        "issues" => (
            item("Issue", "/issue"),
            s("/issue/html_url").to_owned(),
            s("/issue/body").to_owned(),
        ),
        "pull_request" => (
            item("Pull request", "/pull_request"),
            s("/pull_request/html_url").to_owned(),
            s("/pull_request/body").to_owned(),
        ),
        "pull_request_review" => (
            item("Pull request review", "/pull_request"),
            s("/review/html_url").to_owned(),
            s("/review/body").to_owned(),
        ),
        "issue_comment"
        | "commit_comment"
        | "pull_request_review_comment"
        | "discussion_comment" => (
            format!("New comment ({event})"),
            s("/comment/html_url").to_owned(),
            s("/comment/body").to_owned(),
        ),
        "create" | "delete" => (
            format!(
                "{} {} {}",
                s("/ref_type"),
                s("/ref"),
                if event == "create" {
                    "created"
                } else {
                    "deleted"
                }
            ),
            s("/repository/html_url").to_owned(),
            String::new(),
        ),
        "fork" => (
            format!("Fork created: {}", s("/forkee/full_name")),
            s("/forkee/html_url").to_owned(),
            String::new(),
        ),
        "watch" => (
            "New star added".to_owned(),
            s("/repository/html_url").to_owned(),
            String::new(),
        ),
        "release" => (
            format!("Release {action}: {}", s("/release/tag_name")),
            s("/release/html_url").to_owned(),
            s("/release/body").to_owned(),
        ),
        "member" => (
            format!("Collaborator {action}: {}", s("/member/login")),
            s("/repository/html_url").to_owned(),
            String::new(),
        ),
        "public" => (
            "Now open sourced!".to_owned(),
            s("/repository/html_url").to_owned(),
            String::new(),
        ),
        "discussion" => (
            item("Discussion", "/discussion"),
            s("/discussion/html_url").to_owned(),
            s("/discussion/body").to_owned(),
        ),
        _ => {
            let ptr = if event == "check_run" {
                "/check_run"
            } else {
                "/check_suite"
            };
            (
                format!(
                    "{} {}",
                    s(&format!("{ptr}/name")),
                    s(&format!("{ptr}/conclusion"))
                ),
                s(&format!("{ptr}/html_url")).to_owned(),
                String::new(),
            )
        }
    };
    let mut e = json!({
        // Pushes name the branch beside the repository: `[owner/repo:main]`.
        "title": if event == "push" { title } else { format!("[{repo}] {title}") },
        "author": {"name": s("/sender/login"), "icon_url": s("/sender/avatar_url"), "url": s("/sender/html_url")},
    });
    if !url.is_empty() {
        e["url"] = json!(url);
    }
    if !description.is_empty() {
        e["description"] = json!(description.chars().take(4096).collect::<String>());
    }
    e
}

/// `POST /webhooks/{w}/{t}/github` (Execute code-host-compatible Webhook): the event is
/// named by the `X-GitHub-Event` header; one of the supported events posts a message with
/// an embed as user "GitHub", any other (a `ping` included) posts nothing. `sender` is
/// required. 204.
pub async fn execute_code_host(
    AxState(app): AxState<App>,
    Path((wid, token)): Path<(String, String)>,
    RawQuery(q): RawQuery,
    headers: HeaderMap,
    body: MessageBody,
) -> R {
    let mut st = lock(&app.state);
    let (gi, wi) = find_by_token(&st, &wid, &token)?;
    let q = read_query(q)?;
    if !body.obj.get("sender").is_some_and(Value::is_object) {
        return Err(ApiError::field(
            &["sender"],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    }
    let event = headers
        .get("x-github-event")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if !CODE_HOST_EVENTS.contains(&event) {
        return no_content();
    }
    let payload = Value::Object(body.obj);
    let obj = Map::from_iter([
        ("username".to_owned(), json!("GitHub")),
        (
            "embeds".to_owned(),
            json!([code_host_embed(event, &payload)]),
        ),
    ]);
    let f = messages::read_fields(
        MessageBody {
            obj,
            files: Vec::new(),
        },
        true,
        st.now_ms(),
    )?;
    let posted = post(&mut st, gi, wi, &q, f)?;
    fired(no_content(), posted.events)
}
