//! Messages webhooks post: reading a message body (JSON, or multipart/form-data with
//! `payload_json` and `files[n]`), the reference's rules for Execute Webhook and Edit
//! Webhook Message (content up to 2,000 characters, up to 10 embeds, which embed fields
//! may be set, components, polls, the allowed flags and IS_COMPONENTS_V2, attachments),
//! mentions as `allowed_mentions` lets them, and the message as Discord returns it.

use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header::CONTENT_TYPE;
use serde_json::{Map, Value, json};

use crate::app::{App, MAX_BODY};
use crate::error::{ApiError, FieldErrors};
use crate::form::{self, Field, Reader};
use crate::state::{Attachment, Guild, Message, SnowflakeGen, State, User};
use crate::time::timestamp;

pub(crate) const SUPPRESS_EMBEDS: u64 = 1 << 2;
pub(crate) const SUPPRESS_NOTIFICATIONS: u64 = 1 << 12;
pub(crate) const IS_COMPONENTS_V2: u64 = 1 << 15;
/// The flags a webhook message may carry (reference, Execute Webhook: flags).
const ALLOWED_FLAGS: u64 = SUPPRESS_EMBEDS | SUPPRESS_NOTIFICATIONS | IS_COMPONENTS_V2;
const MAX_CONTENT: usize = 2000;
const MAX_EMBEDS: usize = 10;
const MAX_FILES: usize = 10;

/// A file part of a multipart body: its index (`files[n]`), name, type and size; the
/// bytes are not kept.
#[derive(Debug, Clone)]
pub(crate) struct Upload {
    pub index: usize,
    pub filename: String,
    pub content_type: Option<String>,
    pub size: u64,
}

/// A message request body: the JSON object (a JSON body, or a multipart body's
/// `payload_json` with its other text fields) and the uploaded files.
pub(crate) struct MessageBody {
    pub obj: Map<String, Value>,
    pub files: Vec<Upload>,
}

impl FromRequest<App> for MessageBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, app: &App) -> Result<Self, Self::Rejection> {
        let multipart = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| {
                t.trim_start()
                    .to_ascii_lowercase()
                    .starts_with("multipart/form-data")
            });
        if !multipart {
            let crate::app::JsonBody(v) = crate::app::JsonBody::from_request(req, app).await?;
            return Ok(MessageBody {
                obj: form::object(&v)?,
                files: Vec::new(),
            });
        }
        let mut parts = Multipart::from_request(req, app)
            .await
            .map_err(|_| bad_multipart())?;
        let mut obj = Map::new();
        let mut files = Vec::new();
        let mut total = 0usize;
        while let Some(field) = parts.next_field().await.map_err(|_| bad_multipart())? {
            let name = field.name().unwrap_or_default().to_owned();
            let filename = field.file_name().map(str::to_owned);
            let content_type = field.content_type().map(str::to_owned);
            let bytes = field.bytes().await.map_err(|_| bad_multipart())?;
            total += bytes.len();
            if total > MAX_BODY {
                return Err(ApiError::new(
                    axum::http::StatusCode::PAYLOAD_TOO_LARGE,
                    40005,
                    "Request entity too large",
                ));
            }
            if name == "payload_json" {
                let v: Value =
                    serde_json::from_slice(&bytes).map_err(|_| ApiError::invalid_json())?;
                for (k, v) in form::object(&v)? {
                    obj.insert(k, v);
                }
            } else if let Some(filename) = filename {
                // `files[n]` (discord.js, discord.py); any other part with a file name
                // takes the next index.
                let index = name
                    .strip_prefix("files[")
                    .and_then(|r| r.strip_suffix(']'))
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(files.len());
                files.push(Upload {
                    index,
                    filename,
                    content_type,
                    size: bytes.len() as u64,
                });
            } else {
                // A plain form field (`content=...`) is a string value.
                obj.insert(
                    name,
                    Value::String(String::from_utf8_lossy(&bytes).into_owned()),
                );
            }
        }
        Ok(MessageBody { obj, files })
    }
}

fn bad_multipart() -> ApiError {
    ApiError::field(
        &[],
        "MULTIPART_INVALID",
        "The multipart/form-data body could not be read.",
    )
}

/// 400 50006: nothing to show (reference: at least one of content, files, embeds,
/// components, poll).
fn empty_message() -> ApiError {
    ApiError::bad_request(50006, "Cannot send an empty message")
}

/// Whether a component is interactive (buttons other than link and premium buttons,
/// select menus, text inputs), searched through rows and containers.
fn interactive(c: &Value) -> bool {
    let kind = c.get("type").and_then(Value::as_i64).unwrap_or(0);
    let style = c.get("style").and_then(Value::as_i64).unwrap_or(0);
    match kind {
        2 => !matches!(style, 5 | 6),
        3..=8 => true,
        _ => {
            c.get("components")
                .and_then(Value::as_array)
                .is_some_and(|cs| cs.iter().any(interactive))
                || c.get("accessory").is_some_and(interactive)
        }
    }
}

/// Components as Discord returns them: every component numbered (`id`, depth first,
/// kept when sent), containers with their defaults.
fn number_components(list: &mut [Value], next: &mut i64) {
    for c in list {
        let Some(o) = c.as_object_mut() else { continue };
        if !o.get("id").is_some_and(Value::is_i64) {
            o.insert("id".into(), json!(*next));
        }
        *next += 1;
        if o.get("type").and_then(Value::as_i64) == Some(17) {
            o.entry("accent_color").or_insert(Value::Null);
            o.entry("spoiler").or_insert(Value::Bool(false));
        }
        if let Some(Value::Array(children)) = o.get_mut("components") {
            number_components(children, next);
        }
        if let Some(acc) = o.get_mut("accessory") {
            number_components(std::slice::from_mut(acc), next);
        }
    }
}

/// The text of text display components (type 10), where IS_COMPONENTS_V2 messages keep
/// what mentions are read from.
fn component_text(list: &[Value], out: &mut String) {
    for c in list {
        if c.get("type").and_then(Value::as_i64) == Some(10)
            && let Some(t) = c.get("content").and_then(Value::as_str)
        {
            out.push_str(t);
            out.push('\n');
        }
        if let Some(children) = c.get("components").and_then(Value::as_array) {
            component_text(children, out);
        }
    }
}

/// An embed as Discord keeps a webhook's: type always `rich`; `provider`, `video` and
/// the sizes and proxy URLs of images cannot be set and are dropped (reference).
fn clean_embed(e: &Value, i: usize, r: &mut Reader) -> Option<Value> {
    let Some(o) = e.as_object() else {
        r.err_at(
            &["embeds", &i.to_string()],
            "DICT_TYPE_CONVERT",
            "Only dictionaries may be used in a DictType",
        );
        return None;
    };
    let mut o = o.clone();
    o.insert("type".into(), json!("rich"));
    o.remove("provider");
    o.remove("video");
    for key in ["image", "thumbnail"] {
        if let Some(Value::Object(img)) = o.get_mut(key) {
            for k in ["height", "width", "proxy_url"] {
                img.remove(k);
            }
        }
    }
    if let Some(Value::Object(f)) = o.get_mut("footer") {
        f.remove("proxy_icon_url");
    }
    if let Some(Value::Object(a)) = o.get_mut("author") {
        a.remove("proxy_icon_url");
    }
    if let Some(Value::Array(fields)) = o.get_mut("fields") {
        for (j, f) in fields.iter_mut().enumerate() {
            let Some(f) = f.as_object_mut() else { continue };
            for k in ["name", "value"] {
                if !f.get(k).is_some_and(Value::is_string) {
                    let (i, j) = (i.to_string(), j.to_string());
                    r.err_at(
                        &["embeds", &i, "fields", &j, k],
                        "BASE_TYPE_REQUIRED",
                        "This field is required",
                    );
                }
            }
            f.entry("inline").or_insert(Value::Bool(false));
        }
    }
    Some(Value::Object(o))
}

/// A poll request as a message keeps it: answers numbered from 1, open `duration` hours
/// (default 24, at most 768), no votes yet.
fn read_poll(v: &Value, now: u64, r: &mut Reader) -> Option<Value> {
    let text = v.pointer("/question/text").and_then(Value::as_str);
    let answers = v.get("answers").and_then(Value::as_array);
    let Some(text) = text else {
        r.err_at(
            &["poll", "question", "text"],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        );
        return None;
    };
    let Some(answers) = answers.filter(|a| (1..=10).contains(&a.len())) else {
        r.err_at(
            &["poll", "answers"],
            "BASE_TYPE_BAD_LENGTH",
            "Must be between 1 and 10 in length.",
        );
        return None;
    };
    let hours = v.get("duration").and_then(Value::as_u64).unwrap_or(24);
    if !(1..=768).contains(&hours) {
        r.err_at(
            &["poll", "duration"],
            "NUMBER_TYPE_MAX",
            "int value should be <= 768 and >= 1.",
        );
        return None;
    }
    let answers: Vec<Value> = answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let mut media = Map::new();
            if let Some(t) = a.pointer("/poll_media/text") {
                media.insert("text".into(), t.clone());
            }
            if let Some(e) = a.pointer("/poll_media/emoji") {
                media.insert("emoji".into(), e.clone());
            }
            json!({"answer_id": i + 1, "poll_media": media})
        })
        .collect();
    Some(json!({
        "question": {"text": text},
        "answers": answers,
        "expiry": timestamp(now + hours * 3_600_000),
        "allow_multiselect": v.get("allow_multiselect").and_then(Value::as_bool).unwrap_or(false),
        "layout_type": v.get("layout_type").and_then(Value::as_u64).unwrap_or(1),
        "results": {"answer_counts": [], "is_finalized": false},
    }))
}

/// What a request says about the message's files: `attachments` entries name kept
/// attachments by id, and new files by their upload index.
struct AttachmentRef {
    id: String,
    filename: Option<String>,
    description: Option<String>,
}

fn read_attachments(r: &mut Reader) -> Field<Vec<AttachmentRef>> {
    let list = match r.array("attachments") {
        Field::Set(l) => l,
        Field::Null => return Field::Null,
        Field::Absent => return Field::Absent,
    };
    if list.len() > MAX_FILES {
        r.err(
            "attachments",
            "BASE_TYPE_MAX_LENGTH",
            "Must be 10 or fewer in length.",
        );
        return Field::Absent;
    }
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        match a.get("id").and_then(form::as_snowflake) {
            Some(id) => out.push(AttachmentRef {
                id,
                filename: a.get("filename").and_then(Value::as_str).map(str::to_owned),
                description: a
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            }),
            None => r.err_at(
                &["attachments", &i.to_string(), "id"],
                "BASE_TYPE_REQUIRED",
                "This field is required",
            ),
        }
    }
    Field::Set(out)
}

/// The message body fields the two operations share, as sent.
pub(crate) struct MessageFields {
    content: Field<String>,
    embeds: Field<Vec<Value>>,
    components: Field<Vec<Value>>,
    poll: Field<Value>,
    flags: Option<u64>,
    allowed_mentions: Option<Value>,
    attachments: Field<Vec<AttachmentRef>>,
    files: Vec<Upload>,
    pub tts: bool,
    pub username: Option<String>,
    pub avatar_url: Option<String>,
    pub thread_name: Option<String>,
    pub applied_tags: Option<Vec<String>>,
}

/// Reads and checks a message body's fields (execute: `executing`, with `thread_name`,
/// `username`, `avatar_url`, `tts`, `applied_tags`).
pub(crate) fn read_fields(
    body: MessageBody,
    executing: bool,
    now: u64,
) -> Result<MessageFields, ApiError> {
    let obj = body.obj;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let content = r.string_len("content", 0, MAX_CONTENT);
    let embeds = match r.array("embeds") {
        Field::Set(list) if list.len() > MAX_EMBEDS => {
            r.err(
                "embeds",
                "BASE_TYPE_MAX_LENGTH",
                "Must be 10 or fewer in length.",
            );
            Field::Absent
        }
        Field::Set(list) => Field::Set(
            list.iter()
                .enumerate()
                .filter_map(|(i, e)| clean_embed(e, i, &mut r))
                .collect(),
        ),
        other => other,
    };
    let components = r.array("components");
    let poll = match obj.get("poll") {
        None => Field::Absent,
        Some(Value::Null) => Field::Null,
        Some(v) => read_poll(v, now, &mut r).map_or(Field::Absent, Field::Set),
    };
    let flags = match r.int("flags") {
        Field::Set(n) if n < 0 || (n as u64) & !ALLOWED_FLAGS != 0 => {
            r.err(
                "flags",
                "MESSAGE_FLAGS_INVALID",
                "Only SUPPRESS_EMBEDS, SUPPRESS_NOTIFICATIONS and IS_COMPONENTS_V2 may be set.",
            );
            None
        }
        Field::Set(n) => Some(n as u64),
        _ => None,
    };
    let allowed_mentions = match obj.get("allowed_mentions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(check_allowed_mentions(v, &mut r)),
    };
    let attachments = read_attachments(&mut r);
    let mut fields = MessageFields {
        content,
        embeds,
        components,
        poll,
        flags,
        allowed_mentions,
        attachments,
        files: body.files,
        tts: false,
        username: None,
        avatar_url: None,
        thread_name: None,
        applied_tags: None,
    };
    if fields.files.len() > MAX_FILES {
        r.err(
            "files",
            "BASE_TYPE_MAX_LENGTH",
            "Must be 10 or fewer in length.",
        );
    }
    if executing {
        fields.tts = r.boolean("tts").set().unwrap_or(false);
        fields.username = r
            .stored_name("username", 1, 80, crate::names::stored_display_name)
            .set();
        fields.avatar_url = r.string_len("avatar_url", 1, 2048).set();
        fields.thread_name = r.string_len("thread_name", 1, 100).set();
        fields.applied_tags = r.snowflakes("applied_tags", 5).set();
    }
    errs.check()?;
    Ok(fields)
}

/// `allowed_mentions` as sent, after its one rule: `parse` naming `users` (or `roles`)
/// and a `users` (or `roles`) list exclude each other.
fn check_allowed_mentions(v: &Value, r: &mut Reader) -> Value {
    let parse: Vec<&str> = v
        .get("parse")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (kind, list) in [("users", "users"), ("roles", "roles")] {
        let listed = v
            .get(list)
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty());
        if parse.contains(&kind) && listed {
            r.err_at(
                &["allowed_mentions"],
                "MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE",
                &format!("parse:[\"{kind}\"] and {list}: [ids...] are mutually exclusive."),
            );
        }
    }
    v.clone()
}

/// The ids a text mentions: users (`<@id>`, `<@!id>`), roles (`<@&id>`), and whether
/// it says `@everyone` or `@here`.
fn scan_mentions(text: &str) -> (Vec<String>, Vec<String>, bool) {
    let (mut users, mut roles) = (Vec::new(), Vec::new());
    let mut rest = text;
    while let Some(at) = rest.find("<@") {
        rest = &rest[at + 2..];
        let (is_role, body) = match rest.strip_prefix('&') {
            Some(b) => (true, b),
            None => (false, rest.strip_prefix('!').unwrap_or(rest)),
        };
        let digits: String = body.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() && body[digits.len()..].starts_with('>') {
            let list = if is_role { &mut roles } else { &mut users };
            if !list.contains(&digits) {
                list.push(digits);
            }
        }
    }
    (
        users,
        roles,
        text.contains("@everyone") || text.contains("@here"),
    )
}

/// Mentions of `text` as `allowed` lets them (absent: everything may be mentioned): the
/// users the state knows, the guild's roles, @everyone.
fn mentions(
    g: &Guild,
    users_known: &[User],
    text: &str,
    allowed: Option<&Value>,
) -> (Vec<String>, Vec<String>, bool) {
    let (users, roles, everyone) = scan_mentions(text);
    let parse: Option<Vec<&str>> = allowed.map(|a| {
        a.get("parse")
            .and_then(Value::as_array)
            .map(|l| l.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    });
    let listed = |key: &str, id: &str| {
        allowed
            .and_then(|a| a.get(key))
            .and_then(Value::as_array)
            .is_some_and(|l| {
                l.iter()
                    .any(|v| form::as_snowflake(v).as_deref() == Some(id))
            })
    };
    let may = |kind: &str, key: &str, id: &str| match &parse {
        None => true,
        Some(p) => p.contains(&kind) || listed(key, id),
    };
    let users = users
        .into_iter()
        .filter(|u| users_known.iter().any(|k| k.id == *u) && may("users", "users", u))
        .collect();
    let roles = roles
        .into_iter()
        .filter(|r| g.role(r).is_some() && *r != g.id && may("roles", "roles", r))
        .collect();
    let everyone = everyone && parse.as_ref().is_none_or(|p| p.contains(&"everyone"));
    (users, roles, everyone)
}

/// New attachments: the uploads, named and described by the `attachments` entries whose
/// id is their index; with `attachments` sent, uploads it does not list are dropped.
fn new_attachments(
    files: &[Upload],
    refs: Option<&[AttachmentRef]>,
    snow: &mut SnowflakeGen,
) -> Vec<Attachment> {
    files
        .iter()
        .filter_map(|f| {
            let entry = refs.map(|rs| rs.iter().find(|a| a.id == f.index.to_string()));
            if matches!(entry, Some(None)) {
                return None;
            }
            let entry = entry.flatten();
            Some(Attachment {
                id: snow.next_id(),
                filename: entry
                    .and_then(|a| a.filename.clone())
                    .unwrap_or_else(|| f.filename.clone()),
                description: entry.and_then(|a| a.description.clone()),
                size: f.size,
                content_type: f.content_type.clone(),
            })
        })
        .collect()
}

/// Where and how a message is posted.
pub(crate) struct Poster<'a> {
    /// The channel or thread.
    pub channel_id: &'a str,
    pub webhook_id: &'a str,
    pub webhook_name: &'a str,
    pub webhook_avatar: Option<&'a str>,
    /// Whether an application owns the webhook: it may send any component.
    pub app_owned: Option<&'a str>,
    pub with_components: bool,
}

/// Which components a webhook's message may carry: the webhook's owner and the request's
/// `with_components`, read together.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ComponentRights {
    /// An application owns the webhook.
    pub app_owned: bool,
    /// The request asked for components (`?with_components=true`).
    pub with_components: bool,
}

/// Components as a message gets them: an application-owned webhook's always; other
/// webhooks' only with `with_components`, and then none interactive (reference).
fn allowed_components(sent: Vec<Value>, rights: ComponentRights) -> Result<Vec<Value>, ApiError> {
    let ComponentRights {
        app_owned,
        with_components,
    } = rights;
    if !app_owned && !with_components {
        return Ok(Vec::new());
    }
    if !app_owned && let Some(i) = sent.iter().position(interactive) {
        return Err(ApiError::field(
            &["components", &i.to_string()],
            "COMPONENT_INTERACTIVE_NOT_ALLOWED",
            "Webhooks not owned by an application cannot send interactive components.",
        ));
    }
    Ok(sent)
}

fn v2_refusal(field: &str) -> ApiError {
    ApiError::field(
        &[field],
        "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
        &format!("The '{field}' field cannot be used when using MessageFlags.IS_COMPONENTS_V2"),
    )
}

/// A new message from an Execute Webhook body (checked by [`read_fields`]).
pub(crate) fn compose(
    users: &[User],
    g: &Guild,
    snow: &mut SnowflakeGen,
    p: &Poster,
    f: MessageFields,
    id: String,
) -> Result<Message, ApiError> {
    let flags = f.flags.unwrap_or(0);
    let content = f.content.set().unwrap_or_default();
    let embeds = f.embeds.set().unwrap_or_default();
    let poll = f.poll.set();
    let components = allowed_components(
        f.components.set().unwrap_or_default(),
        ComponentRights {
            app_owned: p.app_owned.is_some(),
            with_components: p.with_components,
        },
    )?;
    if flags & IS_COMPONENTS_V2 != 0 {
        // Only components (and files they show) under IS_COMPONENTS_V2.
        if !content.is_empty() {
            return Err(v2_refusal("content"));
        }
        if !embeds.is_empty() {
            return Err(v2_refusal("embeds"));
        }
        if poll.is_some() {
            return Err(v2_refusal("poll"));
        }
    }
    if content.is_empty()
        && embeds.is_empty()
        && components.is_empty()
        && poll.is_none()
        && f.files.is_empty()
    {
        return Err(empty_message());
    }
    let refs = match &f.attachments {
        Field::Set(r) => Some(r.as_slice()),
        _ => None,
    };
    let attachments = new_attachments(&f.files, refs, snow);
    let mut components = components;
    number_components(&mut components, &mut 1);
    let text = mention_text(&content, &components, flags);
    let (mentions, mention_roles, mention_everyone) =
        mentions(g, users, &text, f.allowed_mentions.as_ref());
    Ok(Message {
        id: id.clone(),
        channel_id: p.channel_id.to_owned(),
        webhook_id: p.webhook_id.to_owned(),
        username: f.username.unwrap_or_else(|| p.webhook_name.to_owned()),
        // An `avatar_url` override shows that image; the emulator keeps no hash of it.
        avatar: if f.avatar_url.is_some() {
            None
        } else {
            p.webhook_avatar.map(str::to_owned)
        },
        content,
        embeds,
        components,
        attachments,
        poll,
        flags,
        tts: f.tts,
        mentions,
        mention_roles,
        mention_everyone,
        timestamp: timestamp(crate::state::snowflake_ms(&id).unwrap_or(0)),
        edited_timestamp: None,
        application_id: p.app_owned.map(str::to_owned),
    })
}

/// The text mentions are read from: the content, or the text displays under
/// IS_COMPONENTS_V2.
fn mention_text(content: &str, components: &[Value], flags: u64) -> String {
    if flags & IS_COMPONENTS_V2 != 0 {
        let mut out = String::new();
        component_text(components, &mut out);
        out
    } else {
        content.to_owned()
    }
}

/// Applies an Edit Webhook Message body to `m` (reference: every field optional and
/// nullable; SUPPRESS_EMBEDS may be set or unset, IS_COMPONENTS_V2 only set and only
/// once content, embeds, files and poll are nulled; a poll only on a deferred
/// interaction response, which the emulator has none of; mentions rebuilt when the
/// content changes; `attachments` lists every attachment that stays, kept and new).
pub(crate) fn edit(
    users: &[User],
    g: &Guild,
    snow: &mut SnowflakeGen,
    m: &Message,
    f: MessageFields,
    rights: ComponentRights,
    now: u64,
) -> Result<Message, ApiError> {
    let mut out = m.clone();
    if !matches!(f.poll, Field::Absent | Field::Null) {
        return Err(ApiError::field(
            &["poll"],
            "POLL_EDIT_NOT_ALLOWED",
            "Polls can only be edited on a deferred interaction response.",
        ));
    }
    if let Some(flags) = f.flags {
        if m.flags & IS_COMPONENTS_V2 != 0 && flags & IS_COMPONENTS_V2 == 0 {
            return Err(ApiError::field(
                &["flags"],
                "MESSAGE_CANNOT_REMOVE_COMPONENTS_V2_FLAG",
                "The IS_COMPONENTS_V2 flag cannot be removed from a message.",
            ));
        }
        if m.flags & IS_COMPONENTS_V2 == 0 && flags & IS_COMPONENTS_V2 != 0 {
            // Turning V2 on: what the message had of content, embeds, files and poll must
            // be nulled by this request.
            let cleared = |field: &Field<String>| {
                matches!(field, Field::Null) || matches!(field, Field::Set(s) if s.is_empty())
            };
            if !m.content.is_empty() && !cleared(&f.content) {
                return Err(v2_refusal("content"));
            }
            let embeds_cleared = matches!(f.embeds, Field::Null)
                || matches!(&f.embeds, Field::Set(e) if e.is_empty());
            if !m.embeds.is_empty() && !embeds_cleared {
                return Err(v2_refusal("embeds"));
            }
            if m.poll.is_some() {
                return Err(v2_refusal("poll"));
            }
            let files_cleared = matches!(&f.attachments, Field::Null)
                || matches!(&f.attachments, Field::Set(a) if a.is_empty());
            if (!m.attachments.is_empty() && !files_cleared) || !f.files.is_empty() {
                return Err(v2_refusal("attachments"));
            }
        }
        out.flags = flags;
    }
    let v2 = out.flags & IS_COMPONENTS_V2 != 0;
    let content_sent = !matches!(f.content, Field::Absent);
    match f.content {
        Field::Set(c) => out.content = c,
        Field::Null => out.content.clear(),
        Field::Absent => {}
    }
    match f.embeds {
        Field::Set(e) => out.embeds = e,
        Field::Null => out.embeds.clear(),
        Field::Absent => {}
    }
    let components_sent = !matches!(f.components, Field::Absent);
    match f.components {
        Field::Set(c) => {
            let mut c = allowed_components(c, rights)?;
            number_components(&mut c, &mut 1);
            out.components = c;
        }
        Field::Null => out.components.clear(),
        Field::Absent => {}
    }
    if v2 && (!out.content.is_empty() || !out.embeds.is_empty()) {
        return Err(v2_refusal(if out.content.is_empty() {
            "embeds"
        } else {
            "content"
        }));
    }
    // v10: with `attachments`, exactly the listed ones stay (kept by id, new by index);
    // without it, the old ones stay and new files are added.
    let refs = match &f.attachments {
        Field::Set(r) => Some(r.as_slice()),
        Field::Null => Some(&[][..]),
        Field::Absent => None,
    };
    if let Some(refs) = refs {
        out.attachments
            .retain(|a| refs.iter().any(|r| r.id == a.id));
        for a in out.attachments.iter_mut() {
            if let Some(r) = refs.iter().find(|r| r.id == a.id)
                && r.description.is_some()
            {
                a.description = r.description.clone();
            }
        }
    }
    out.attachments
        .extend(new_attachments(&f.files, refs, snow));
    if out.content.is_empty()
        && out.embeds.is_empty()
        && out.components.is_empty()
        && out.attachments.is_empty()
        && out.poll.is_none()
    {
        return Err(empty_message());
    }
    // Mentions are rebuilt from new content (or components under V2) with this
    // request's allowed_mentions, or the default allowances.
    if content_sent || (v2 && components_sent) {
        let text = mention_text(&out.content, &out.components, out.flags);
        let (u, r, e) = mentions(g, users, &text, f.allowed_mentions.as_ref());
        out.mentions = u;
        out.mention_roles = r;
        out.mention_everyone = e;
    }
    out.edited_timestamp = Some(timestamp(now));
    Ok(out)
}

/// The message as Discord returns it: a webhook's author is the webhook (id, the name
/// and avatar it posted with, `bot`).
pub(crate) fn render(st: &State, m: &Message) -> Value {
    let author = crate::render::user(&User {
        id: m.webhook_id.clone(),
        username: m.username.clone(),
        discriminator: "0000".into(),
        global_name: None,
        avatar: m.avatar.clone(),
        bot: true,
        public_flags: 0,
    });
    let mentions: Vec<Value> = m
        .mentions
        .iter()
        .filter_map(|u| st.user(u))
        .map(crate::render::user)
        .collect();
    let attachments: Vec<Value> = m
        .attachments
        .iter()
        .map(|a| {
            let name = percent_encoding::utf8_percent_encode(
                &a.filename,
                percent_encoding::NON_ALPHANUMERIC,
            );
            let url = format!(
                "https://cdn.discordapp.com/attachments/{}/{}/{name}",
                m.channel_id, a.id
            );
            let mut o = json!({
                "id": a.id, "filename": a.filename, "size": a.size,
                "url": url, "proxy_url": url.replace("cdn.discordapp.com", "media.discordapp.net"),
            });
            if let Some(d) = &a.description {
                o["description"] = json!(d);
            }
            if let Some(t) = &a.content_type {
                o["content_type"] = json!(t);
            }
            o
        })
        .collect();
    let mut o = json!({
        "id": m.id,
        "type": 0,
        "channel_id": m.channel_id,
        "author": author,
        "content": m.content,
        "timestamp": m.timestamp,
        "edited_timestamp": m.edited_timestamp,
        "tts": m.tts,
        "mention_everyone": m.mention_everyone,
        "mentions": mentions,
        "mention_roles": m.mention_roles,
        "attachments": attachments,
        "embeds": m.embeds,
        "components": m.components,
        "pinned": false,
        "flags": m.flags,
        "webhook_id": m.webhook_id,
    });
    if let Some(a) = &m.application_id {
        o["application_id"] = json!(a);
    }
    if let Some(p) = &m.poll {
        o["poll"] = p.clone();
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_are_read_from_their_markup() {
        let (u, r, e) = scan_mentions("hi <@12> and <@!34>, <@&56> <@x> <@78 @here");
        assert_eq!(u, ["12", "34"]);
        assert_eq!(r, ["56"]);
        assert!(e);
        assert!(!scan_mentions("no one").2);
    }

    #[test]
    fn interactive_components_are_found_inside_rows() {
        let link = json!({"type": 1, "components": [{"type": 2, "style": 5, "url": "https://x"}]});
        let button = json!({"type": 1, "components": [{"type": 2, "style": 1, "custom_id": "a"}]});
        let select = json!({"type": 1, "components": [{"type": 3, "custom_id": "s"}]});
        assert!(!interactive(&link));
        assert!(interactive(&button));
        assert!(interactive(&select));
        assert!(!interactive(&json!({"type": 10, "content": "text"})));
    }

    #[test]
    fn components_are_numbered_depth_first() {
        let mut c = vec![
            json!({"type": 17, "components": [{"type": 10, "content": "a"}]}),
            json!({"type": 10, "content": "b", "id": 9}),
        ];
        number_components(&mut c, &mut 1);
        assert_eq!(c[0]["id"], 1);
        assert_eq!(c[0]["components"][0]["id"], 2);
        assert_eq!(c[1]["id"], 9);
        assert_eq!(c[0]["spoiler"], false);
    }
}
