//! `GET/PUT /guilds/{g}/onboarding` (docs/discord.md §5.4).
//!
//! PUT replaces what it names: the prompt list is authoritative (prompts left
//! out are deleted), prompt ids in the body are placeholders unless they name
//! an existing prompt, and enabling checks Discord's requirements.

use axum::http::StatusCode;
use serde_json::{Value, json};

use super::error::{ApiError, FieldErrors};
use super::form::{self, Field, Reader, check_refs};
use super::perms::{everyone_permissions, guild_permissions};
use super::state::{EmulatorConfig, Guild, Onboarding, Prompt, PromptOption, State};
use crate::access::{InGuild, need};
use crate::app::JsonBody;
use crate::app::{R, ok};
use crate::audit_log::action::{
    ONBOARDING_CREATE, ONBOARDING_PROMPT_CREATE, ONBOARDING_PROMPT_DELETE,
    ONBOARDING_PROMPT_UPDATE, ONBOARDING_UPDATE,
};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use discord_permissions::Permissions;

const MAX_PROMPTS: usize = 15;
const MAX_OPTIONS: usize = 50;
const MAX_DEFAULT_CHANNELS: usize = 500;
const MAX_OPTION_IDS: usize = 50;

fn render_option(o: &PromptOption) -> Value {
    json!({
        "id": o.id,
        "title": o.title,
        "description": o.description,
        // Responses carry an emoji object; requests use the flat fields (§5.4).
        "emoji": {"id": o.emoji_id, "name": o.emoji_name, "animated": o.emoji_animated},
        "role_ids": o.role_ids,
        "channel_ids": o.channel_ids,
    })
}

fn render_prompt(p: &Prompt) -> Value {
    json!({
        "id": p.id,
        "title": p.title,
        "options": p.options.iter().map(render_option).collect::<Vec<_>>(),
        "single_select": p.single_select,
        "required": p.required,
        "in_onboarding": p.in_onboarding,
        "type": p.kind,
    })
}

pub fn render(guild_id: &str, o: &Onboarding) -> Value {
    json!({
        "guild_id": guild_id,
        "prompts": o.prompts.iter().map(render_prompt).collect::<Vec<_>>(),
        "default_channel_ids": o.default_channel_ids,
        "enabled": o.enabled,
        "mode": o.mode,
    })
}

pub async fn get_onboarding(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    ok(render(&g.id, &g.onboarding))
}

/// Whether onboarding may be (or stay) enabled: enough default channels, and
/// enough of them writable by @everyone (§5.4; thresholds in `config`). In
/// advanced mode the prompts' channels count too.
pub fn meets_requirements(g: &Guild, o: &Onboarding, cfg: &EmulatorConfig) -> bool {
    let mut ids: Vec<&str> = o.default_channel_ids.iter().map(String::as_str).collect();
    if o.mode == 1 {
        ids.extend(
            o.prompts
                .iter()
                .flat_map(|p| &p.options)
                .flat_map(|opt| &opt.channel_ids)
                .map(String::as_str),
        );
    }
    ids.sort_unstable();
    ids.dedup();
    let writable = ids
        .iter()
        .filter_map(|id| g.channel(id))
        .filter(|c| c.kind != 4)
        .filter(|c| {
            everyone_permissions(g, c)
                .contains(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES)
        })
        .count();
    ids.len() >= cfg.onboarding_min_default_channels
        && writable >= cfg.onboarding_min_writable_channels
}

/// An option as sent; `id` is kept only if it names an option of the prompt.
struct OptionIn {
    id: Option<String>,
    option: PromptOption,
}

struct PromptIn {
    id: String,
    prompt: Prompt,
    options: Vec<OptionIn>,
}

fn read_option(r: &mut Reader, g: &Guild) -> Option<OptionIn> {
    let id = r.snowflake("id").set();
    let title = r.string_len("title", 1, 50);
    let title = r.require("title", title);
    let description = r.string_len("description", 0, 100).set();
    let emoji_id = r.snowflake("emoji_id").set();
    let emoji_name = r.string_len("emoji_name", 0, 100).set();
    let emoji_animated = r.boolean("emoji_animated").set().unwrap_or(false);
    let role_ids = r
        .snowflakes("role_ids", MAX_OPTION_IDS)
        .set()
        .unwrap_or_default();
    let channel_ids = r
        .snowflakes("channel_ids", MAX_OPTION_IDS)
        .set()
        .unwrap_or_default();
    check_refs(r, "role_ids", &role_ids, |id| g.role(id).is_some(), "role");
    check_refs(
        r,
        "channel_ids",
        &channel_ids,
        |id| g.channel(id).is_some(),
        "channel",
    );
    Some(OptionIn {
        id,
        option: PromptOption {
            id: String::new(),
            title: title?,
            description,
            channel_ids,
            role_ids,
            emoji_id,
            emoji_name,
            emoji_animated,
        },
    })
}

fn read_prompt(r: &mut Reader, g: &Guild) -> Option<PromptIn> {
    // Required even for new prompts; the value is then a placeholder (§5.4).
    let id = r.snowflake("id");
    let id = r.require("id", id);
    let title = r.string_len("title", 1, 100);
    let title = r.require("title", title);
    let kind = r.int_choice("type", &[0, 1], "(0, 1)").set().unwrap_or(0) as u8;
    let single_select = r.boolean("single_select").set().unwrap_or(false);
    let required = r.boolean("required").set().unwrap_or(false);
    let in_onboarding = r.boolean("in_onboarding").set().unwrap_or(true);
    let mut options = Vec::new();
    match r.array("options") {
        Field::Set(list) if (1..=MAX_OPTIONS).contains(&list.len()) => {
            for (i, v) in list.iter().enumerate() {
                let mut path = r.path.clone();
                path.extend(["options".to_owned(), i.to_string()]);
                if let Some(mut sub) = form::item(&mut *r.errs, path, v)
                    && let Some(o) = read_option(&mut sub, g)
                {
                    options.push(o);
                }
            }
        }
        Field::Set(_) => r.err(
            "options",
            "BASE_TYPE_BAD_LENGTH",
            &format!("Must be between 1 and {MAX_OPTIONS} in length."),
        ),
        Field::Null => r.required("options"),
        Field::Absent => {
            if !r.has("options") {
                r.required("options");
            }
        }
    }
    Some(PromptIn {
        id: id?,
        prompt: Prompt {
            id: String::new(),
            kind,
            title: title?,
            options: Vec::new(),
            single_select,
            required,
            in_onboarding,
        },
        options,
    })
}

/// The body of PUT; `None` = left as it is.
struct OnboardingIn {
    prompts: Option<Vec<PromptIn>>,
    default_channel_ids: Option<Vec<String>>,
    enabled: Option<bool>,
    mode: Option<u8>,
}

fn read_body(body: &Value, g: &Guild) -> Result<OnboardingIn, ApiError> {
    let obj = form::object(body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let mut prompts = None;
    match r.array("prompts") {
        Field::Set(list) if list.len() > MAX_PROMPTS => r.err(
            "prompts",
            "BASE_TYPE_MAX_LENGTH",
            &format!("Must be {MAX_PROMPTS} or fewer in length."),
        ),
        Field::Set(list) => {
            let mut out = Vec::new();
            for (i, v) in list.iter().enumerate() {
                let path = vec!["prompts".to_owned(), i.to_string()];
                if let Some(mut sub) = form::item(&mut *r.errs, path, v)
                    && let Some(p) = read_prompt(&mut sub, g)
                {
                    out.push(p);
                }
            }
            prompts = Some(out);
        }
        // The spec lets every field be null: null leaves it as it is.
        Field::Null | Field::Absent => {}
    }
    let default_channel_ids = r
        .snowflakes("default_channel_ids", MAX_DEFAULT_CHANNELS)
        .set();
    if let Some(ids) = &default_channel_ids {
        check_refs(
            &mut r,
            "default_channel_ids",
            ids,
            |id| g.channel(id).is_some(),
            "channel",
        );
    }
    let enabled = r.boolean("enabled").set();
    let mode = r
        .int_choice("mode", &[0, 1], "(0, 1)")
        .set()
        .map(|m| m as u8);
    errs.check()?;
    Ok(OnboardingIn {
        prompts,
        default_channel_ids,
        enabled,
        mode,
    })
}

fn prompt_snapshot(p: &Prompt) -> Vec<(&'static str, Value)> {
    vec![
        ("title", json!(p.title)),
        ("type", json!(p.kind)),
        (
            "options",
            Value::Array(p.options.iter().map(render_option).collect()),
        ),
        ("single_select", json!(p.single_select)),
        ("required", json!(p.required)),
        ("in_onboarding", json!(p.in_onboarding)),
    ]
}

fn onboarding_snapshot(o: &Onboarding) -> Vec<(&'static str, Value)> {
    vec![
        ("enabled", json!(o.enabled)),
        ("mode", json!(o.mode)),
        ("default_channel_ids", json!(o.default_channel_ids)),
    ]
}

/// An onboarding nobody has set up yet: its first PUT is ONBOARDING_CREATE.
fn is_blank(o: &Onboarding) -> bool {
    *o == Onboarding::default()
}

/// The new prompt list: ids of existing prompts (and of their options) are
/// kept, every other id is replaced by a fresh one.
fn merge_prompts(
    old: &[Prompt],
    incoming: Vec<PromptIn>,
    next_id: &mut dyn FnMut() -> String,
) -> Vec<Prompt> {
    let mut out: Vec<Prompt> = Vec::new();
    for p in incoming {
        let existing = old
            .iter()
            .find(|o| o.id == p.id && !out.iter().any(|n| n.id == p.id));
        let mut prompt = p.prompt;
        prompt.id = existing.map(|e| e.id.clone()).unwrap_or_else(&mut *next_id);
        for o in p.options {
            let mut option = o.option;
            let keep = o.id.filter(|id| {
                existing.is_some_and(|e| e.options.iter().any(|x| &x.id == id))
                    && !prompt.options.iter().any(|x| &x.id == id)
            });
            option.id = keep.unwrap_or_else(&mut *next_id);
            prompt.options.push(option);
        }
        out.push(prompt);
    }
    out
}

pub async fn put_onboarding(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let gi = call.index(&st)?;
    let actor = call.actor.as_str();
    let State {
        guilds,
        snowflake,
        config,
        ..
    } = &mut *st;
    let g = &mut guilds[gi];
    // MANAGE_GUILD and MANAGE_ROLES (§5.4, the official docs).
    need(
        guild_permissions(g, actor),
        Permissions::MANAGE_GUILD | Permissions::MANAGE_ROLES,
    )?;
    let body = read_body(&body, g)?;

    let old = g.onboarding.clone();
    let mut new = old.clone();
    if let Some(ps) = body.prompts {
        new.prompts = merge_prompts(&old.prompts, ps, &mut || snowflake.next_id());
    }
    if let Some(ids) = body.default_channel_ids {
        new.default_channel_ids = ids;
    }
    if let Some(m) = body.mode {
        new.mode = m;
    }
    if let Some(e) = body.enabled {
        new.enabled = e;
    }
    if new.enabled {
        // Onboarding is a community feature (§5.2); a guild without it can
        // keep a disabled draft but never meets the requirements.
        let meets = g.has_feature("COMMUNITY") && meets_requirements(g, &new, config);
        if !meets && !old.enabled {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                350000,
                "Cannot enable onboarding, requirements are not met",
            ));
        }
        if !meets {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                350001,
                "Cannot update onboarding while below requirements",
            ));
        }
    }

    let reason = call.reason();
    let mut entries: Vec<(u32, String, Vec<super::state::AuditChange>)> = Vec::new();
    for p in &new.prompts {
        match old.prompts.iter().find(|o| o.id == p.id) {
            None => entries.push((
                ONBOARDING_PROMPT_CREATE,
                p.id.clone(),
                snapshot_changes(prompt_snapshot(p), true),
            )),
            Some(o) => {
                let ch = diff_snapshots(prompt_snapshot(o), prompt_snapshot(p));
                if !ch.is_empty() {
                    entries.push((ONBOARDING_PROMPT_UPDATE, p.id.clone(), ch));
                }
            }
        }
    }
    for o in &old.prompts {
        if !new.prompts.iter().any(|p| p.id == o.id) {
            entries.push((
                ONBOARDING_PROMPT_DELETE,
                o.id.clone(),
                snapshot_changes(prompt_snapshot(o), false),
            ));
        }
    }
    let level = diff_snapshots(onboarding_snapshot(&old), onboarding_snapshot(&new));
    let created = is_blank(&old) && !is_blank(&new);
    if created || !level.is_empty() {
        let action = if created {
            ONBOARDING_CREATE
        } else {
            ONBOARDING_UPDATE
        };
        entries.push((action, g.id.clone(), level));
    }
    g.onboarding = new;
    for (action, target, changes) in entries {
        Entry::on(action, &target)
            .changes(changes)
            .by(actor, reason)
            .record(g, snowflake);
    }
    ok(render(&g.id, &g.onboarding))
}
