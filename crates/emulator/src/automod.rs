//! AutoMod rules (docs/discord.md §10.1, resources/auto-moderation): list, get,
//! create, modify, delete. Every route needs MANAGE_GUILD; a rule with a timeout action
//! also MODERATE_MEMBERS. A guild holds at most 6 keyword rules and one rule of each other
//! trigger type; a rule's trigger type never changes.

use axum::extract::Path;
use serde_json::{Value, json};

use crate::access::{InGuild, digits, guild_at, need};
use crate::app::{JsonBody, R, fired, no_content, ok};
use crate::audit_log::action::{
    AUTO_MODERATION_RULE_CREATE, AUTO_MODERATION_RULE_DELETE, AUTO_MODERATION_RULE_UPDATE,
};
use crate::audit_log::{Entry, diff_snapshots, snapshot_changes};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader, check_refs};
use crate::perms::{bits, guild_permissions};
use crate::render;
use crate::state::{ActionMetadata, AutoModAction, AutoModRule, Guild, TriggerMetadata};
use discord_permissions::Permissions;

const KEYWORD: u8 = 1;
const SPAM: u8 = 3;
const KEYWORD_PRESET: u8 = 4;
const MENTION_SPAM: u8 = 5;
const MEMBER_PROFILE: u8 = 6;

const BLOCK_MESSAGE: u8 = 1;
const SEND_ALERT: u8 = 2;
const TIMEOUT: u8 = 3;
const BLOCK_MEMBER_INTERACTION: u8 = 4;

/// 4 weeks.
const MAX_TIMEOUT_SECONDS: i64 = 2_419_200;
/// When a mention-spam rule names no limit (Discord documents none; its client offers 20).
const DEFAULT_MENTION_LIMIT: u32 = 20;

/// Discord's system user: the creator of the rules Discord makes itself.
pub const DISCORD_SYSTEM_USER_ID: &str = "643945264868098049";

/// How many rules of a trigger type a guild may hold (resources/auto-moderation, "Max per
/// Guild").
fn max_rules(trigger: u8) -> usize {
    if trigger == KEYWORD { 6 } else { 1 }
}

/// The event a trigger type's rules run on: member profiles on member updates (2), the
/// rest on messages (1).
fn event_of(trigger: u8) -> u8 {
    if trigger == MEMBER_PROFILE { 2 } else { 1 }
}

/// Which actions a trigger type takes: a timeout only for keyword and mention-spam rules
/// (documented), blocking member interaction only for member-profile rules and blocking a
/// message only for message rules (what each acts on); an alert for every rule.
fn action_fits(trigger: u8, action: u8) -> bool {
    match action {
        BLOCK_MESSAGE => trigger != MEMBER_PROFILE,
        SEND_ALERT => true,
        TIMEOUT => matches!(trigger, KEYWORD | MENTION_SPAM),
        BLOCK_MEMBER_INTERACTION => trigger == MEMBER_PROFILE,
        _ => false,
    }
}

/// The mention-spam rule Discord makes for a community guild: "Block Mention Spam", made
/// by Discord's system user (never by a member or a bot), enabled, blocking messages with
/// more than 20 mentions and detecting mention raids.
pub fn discord_mention_spam_rule(id: String) -> AutoModRule {
    AutoModRule {
        id,
        name: "Block Mention Spam".into(),
        creator_id: DISCORD_SYSTEM_USER_ID.into(),
        event_type: 1,
        trigger_type: MENTION_SPAM,
        trigger_metadata: TriggerMetadata {
            mention_total_limit: Some(DEFAULT_MENTION_LIMIT),
            mention_raid_protection_enabled: Some(true),
            ..TriggerMetadata::default()
        },
        actions: vec![AutoModAction {
            kind: BLOCK_MESSAGE,
            metadata: ActionMetadata::default(),
        }],
        enabled: true,
        exempt_roles: Vec::new(),
        exempt_channels: Vec::new(),
    }
}

/// A list of strings at `key` of `r`: at most `max` items of 1 to `max_len` characters.
fn strings(r: &mut Reader, key: &str, max: usize, max_len: usize) -> Vec<String> {
    let list = match r.array(key) {
        Field::Set(l) => l,
        _ => return Vec::new(),
    };
    if list.len() > max {
        r.err(
            key,
            "BASE_TYPE_MAX_LENGTH",
            &format!("Must be {max} or fewer in length."),
        );
        return Vec::new();
    }
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let idx = i.to_string();
        match v.as_str() {
            Some(s) if (1..=max_len).contains(&s.chars().count()) => out.push(s.to_owned()),
            Some(_) => r.err_at(
                &[key, &idx],
                "BASE_TYPE_BAD_LENGTH",
                &format!("Must be between 1 and {max_len} in length."),
            ),
            None => r.err_at(
                &[key, &idx],
                "BASE_TYPE_STRING",
                &format!("Could not interpret \"{}\" as string.", form::show(v)),
            ),
        }
    }
    out
}

/// `trigger_metadata` for `trigger`: the fields of that type, within Discord's limits;
/// the others are ignored. Keyword-preset and member-profile rules need it (the OpenAPI's
/// required lists); for the rest it may be left out or null.
fn read_metadata(r: &mut Reader, trigger: u8, required: bool) -> Option<TriggerMetadata> {
    let needed = required && matches!(trigger, KEYWORD_PRESET | MEMBER_PROFILE);
    let value = match r.obj.get("trigger_metadata") {
        Some(Value::Null) | None => {
            if needed {
                r.required("trigger_metadata");
                return None;
            }
            // Absent on modify: unchanged; null or absent on create: the type's defaults.
            if !required && !r.has("trigger_metadata") {
                return None;
            }
            Value::Object(Default::default())
        }
        Some(v) => v.clone(),
    };
    let path = vec!["trigger_metadata".to_owned()];
    let mut m = form::item(&mut *r.errs, path, &value)?;
    let mut out = TriggerMetadata::default();
    match trigger {
        KEYWORD | MEMBER_PROFILE => {
            out.keyword_filter = strings(&mut m, "keyword_filter", 1000, 60);
            out.regex_patterns = strings(&mut m, "regex_patterns", 10, 260);
            for (i, p) in out.regex_patterns.iter().enumerate() {
                // Rust's regex flavour, as Discord's (resources/auto-moderation): parsed,
                // Unicode classes resolved, not compiled (see README).
                if regex_syntax::parse(p).is_err() {
                    m.err_at(
                        &["regex_patterns", &i.to_string()],
                        "AUTO_MODERATION_INVALID_REGEX",
                        "Invalid regex pattern",
                    );
                }
            }
            out.allow_list = strings(&mut m, "allow_list", 100, 60);
        }
        KEYWORD_PRESET => {
            if let Field::Set(list) = m.array("presets") {
                for (i, v) in list.iter().enumerate() {
                    match form::as_i64(v) {
                        Some(p @ 1..=3) => {
                            let p = p as u8;
                            if !out.presets.contains(&p) {
                                out.presets.push(p);
                            }
                        }
                        _ => m.err_at(
                            &["presets", &i.to_string()],
                            "BASE_TYPE_CHOICES",
                            "Value must be one of (1, 2, 3).",
                        ),
                    }
                }
            }
            out.allow_list = strings(&mut m, "allow_list", 1000, 60);
        }
        MENTION_SPAM => {
            let limit = m.int_range("mention_total_limit", 0, 50).set();
            out.mention_total_limit = Some(limit.map_or(DEFAULT_MENTION_LIMIT, |n| n as u32));
            let raid = m.boolean("mention_raid_protection_enabled").set();
            out.mention_raid_protection_enabled = Some(raid.unwrap_or(false));
        }
        _ => {}
    }
    Some(out)
}

/// `actions`: 1 to 5, each fitting the trigger type (`action_fits`) with its metadata.
fn read_actions(
    r: &mut Reader,
    g: &Guild,
    trigger: u8,
    required: bool,
) -> Option<Vec<AutoModAction>> {
    let f = r.array("actions");
    let list = r.present("actions", f, required)?;
    if list.is_empty() {
        r.err(
            "actions",
            "BASE_TYPE_MIN_LENGTH",
            "Must be 1 or more in length.",
        );
        return None;
    }
    if list.len() > 5 {
        r.err(
            "actions",
            "BASE_TYPE_MAX_LENGTH",
            "Must be 5 or fewer in length.",
        );
        return None;
    }
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        let path = vec!["actions".to_owned(), i.to_string()];
        let Some(mut a) = form::item(&mut *r.errs, path, v) else {
            continue;
        };
        let kind = a.int_choice("type", &[1, 2, 3, 4], "(1, 2, 3, 4)");
        let Some(kind) = a.present("type", kind, true).map(|k| k as u8) else {
            continue;
        };
        if !action_fits(trigger, kind) {
            a.err(
                "type",
                "AUTO_MODERATION_ACTION_NOT_ALLOWED",
                &format!("Action type {kind} cannot be used with trigger type {trigger}."),
            );
            continue;
        }
        let meta = match a.obj.get("metadata") {
            Some(Value::Null) | None => Value::Object(Default::default()),
            Some(m) => m.clone(),
        };
        let mut path = a.path.clone();
        path.push("metadata".to_owned());
        let Some(mut m) = form::item(&mut *a.errs, path, &meta) else {
            continue;
        };
        let mut metadata = ActionMetadata::default();
        match kind {
            BLOCK_MESSAGE => {
                metadata.custom_message = m.string_len("custom_message", 0, 150).set();
            }
            SEND_ALERT => {
                let id = m.snowflake("channel_id");
                if let Some(id) = m.present("channel_id", id, true) {
                    match g.channel(&id) {
                        Some(c) if matches!(c.kind, 0 | 5) => metadata.channel_id = Some(id),
                        Some(_) => m.err(
                            "channel_id",
                            "CHANNEL_TYPE_INVALID",
                            "Alerts go to a text or announcement channel.",
                        ),
                        None => m.err("channel_id", "CHANNEL_NOT_FOUND", "Unknown channel"),
                    }
                }
            }
            TIMEOUT => {
                let secs = m.int_range("duration_seconds", 0, MAX_TIMEOUT_SECONDS);
                metadata.duration_seconds =
                    m.present("duration_seconds", secs, true).map(|s| s as u32);
            }
            _ => {}
        }
        out.push(AutoModAction { kind, metadata });
    }
    Some(out)
}

/// `exempt_roles` (≤ 20) and `exempt_channels` (≤ 50): ids of the guild's own.
fn read_exempt(r: &mut Reader, g: &Guild) -> (Option<Vec<String>>, Option<Vec<String>>) {
    let roles = r
        .snowflakes("exempt_roles", 20)
        .into_option()
        .map(Option::unwrap_or_default);
    if let Some(ids) = &roles {
        check_refs(r, "exempt_roles", ids, |id| g.role(id).is_some(), "role");
    }
    let channels = r
        .snowflakes("exempt_channels", 50)
        .into_option()
        .map(Option::unwrap_or_default);
    if let Some(ids) = &channels {
        check_refs(
            r,
            "exempt_channels",
            ids,
            |id| g.channel(id).is_some(),
            "channel",
        );
    }
    (roles, channels)
}

/// `event_type` must be the trigger type's own (`event_of`).
fn check_event(r: &mut Reader, trigger: u8, event: Option<i64>) {
    if let Some(e) = event
        && e != i64::from(event_of(trigger))
    {
        r.err(
            "event_type",
            "BASE_TYPE_CHOICES",
            &format!("Value must be one of ({}).", event_of(trigger)),
        );
    }
}

fn snapshot(guild_id: &str, rule: &AutoModRule) -> Vec<(&'static str, Value)> {
    let shown = render::automod_rule(guild_id, rule);
    vec![
        ("name", json!(rule.name)),
        ("event_type", json!(rule.event_type)),
        ("trigger_type", json!(rule.trigger_type)),
        ("trigger_metadata", shown["trigger_metadata"].clone()),
        ("actions", json!(rule.actions)),
        ("enabled", json!(rule.enabled)),
        ("exempt_roles", json!(rule.exempt_roles)),
        ("exempt_channels", json!(rule.exempt_channels)),
    ]
}

fn find(g: &Guild, rid: &str) -> Result<usize, ApiError> {
    digits(rid)?;
    g.auto_moderation_rules
        .iter()
        .position(|r| r.id == rid)
        .ok_or_else(ApiError::unknown_automod_rule)
}

/// A rule with a timeout action needs MODERATE_MEMBERS besides (resources/auto-moderation).
fn may_time_out(
    g: &Guild,
    actor: &str,
    actions: Option<&Vec<AutoModAction>>,
) -> Result<(), ApiError> {
    if actions.is_some_and(|a| a.iter().any(|a| a.kind == TIMEOUT)) {
        need(guild_permissions(g, actor), bits::MODERATE_MEMBERS)?;
    }
    Ok(())
}

/// `GET /guilds/{g}/auto-moderation/rules` (MANAGE_GUILD).
pub async fn list_rules(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    ok(Value::Array(
        g.auto_moderation_rules
            .iter()
            .map(|r| render::automod_rule(&g.id, r))
            .collect(),
    ))
}

/// `GET /guilds/{g}/auto-moderation/rules/{r}` (MANAGE_GUILD).
pub async fn get_rule(call: InGuild, Path((_, rid)): Path<(String, String)>) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    need(guild_permissions(g, &call.actor), Permissions::MANAGE_GUILD)?;
    ok(render::automod_rule(
        &g.id,
        &g.auto_moderation_rules[find(g, &rid)?],
    ))
}

/// `POST /guilds/{g}/auto-moderation/rules` → 200 (the OpenAPI's status).
pub async fn create_rule(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    need(guild_permissions(g, &actor), Permissions::MANAGE_GUILD)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    let name = r.string_len("name", 1, 100);
    let name = r.present("name", name, true);
    let types = [KEYWORD, SPAM, KEYWORD_PRESET, MENTION_SPAM, MEMBER_PROFILE].map(i64::from);
    let trigger = r.int_choice("trigger_type", &types, "(1, 3, 4, 5, 6)");
    let trigger = r.present("trigger_type", trigger, true).map(|t| t as u8);
    let event = r.int_choice("event_type", &[1, 2], "(1, 2)");
    let event = r.present("event_type", event, true);
    let enabled = r.boolean("enabled").set().unwrap_or(false);
    let (exempt_roles, exempt_channels) = read_exempt(&mut r, g);
    let (metadata, actions) = match trigger {
        Some(t) => {
            check_event(&mut r, t, event);
            (
                read_metadata(&mut r, t, true),
                read_actions(&mut r, g, t, true),
            )
        }
        None => (None, None),
    };
    errs.check()?;
    let (Some(name), Some(trigger), Some(event), Some(metadata), Some(actions)) =
        (name, trigger, event, metadata, actions)
    else {
        return Err(ApiError::field(
            &[],
            "BASE_TYPE_REQUIRED",
            "This field is required",
        ));
    };
    may_time_out(g, &actor, Some(&actions))?;
    let held = g
        .auto_moderation_rules
        .iter()
        .filter(|r| r.trigger_type == trigger)
        .count();
    if held >= max_rules(trigger) {
        return Err(ApiError::field(
            &["trigger_type"],
            "AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED",
            &format!(
                "Maximum number of rules of this type reached ({})",
                max_rules(trigger)
            ),
        ));
    }
    let rule = AutoModRule {
        id: snowflake.next_id(),
        name,
        creator_id: actor.clone(),
        event_type: event as u8,
        trigger_type: trigger,
        trigger_metadata: metadata,
        actions,
        enabled,
        exempt_roles: exempt_roles.unwrap_or_default(),
        exempt_channels: exempt_channels.unwrap_or_default(),
    };
    let changes = snapshot_changes(snapshot(&g.id, &rule), true);
    let rid = rule.id.clone();
    let out = render::automod_rule(&g.id, &rule);
    g.auto_moderation_rules.push(rule);
    Entry::on(AUTO_MODERATION_RULE_CREATE, &rid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    let made = events::Dispatch::new(events::AUTO_MODERATION_RULE_CREATE, &g.id, out.clone());
    fired(ok(out), [made])
}

/// `PATCH /guilds/{g}/auto-moderation/rules/{r}`: every field but the trigger type, which
/// cannot change (a rule of another type is a new rule); `trigger_metadata` and `actions`
/// replace what the rule had.
pub async fn modify_rule(
    call: InGuild,
    Path((_, rid)): Path<(String, String)>,
    JsonBody(body): JsonBody,
) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    need(guild_permissions(g, &actor), Permissions::MANAGE_GUILD)?;
    let ri = find(g, &rid)?;
    let trigger = g.auto_moderation_rules[ri].trigger_type;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);
    if let Some(t) = r.int("trigger_type").set()
        && t != i64::from(trigger)
    {
        r.err(
            "trigger_type",
            "AUTO_MODERATION_TRIGGER_TYPE_IMMUTABLE",
            &format!("A rule's trigger type cannot change (this rule's is {trigger})."),
        );
    }
    let name = r.string_len("name", 1, 100);
    let name = r.present("name", name, false);
    let event = r.int_choice("event_type", &[1, 2], "(1, 2)");
    let event = r.present("event_type", event, false);
    check_event(&mut r, trigger, event);
    let enabled = r.boolean("enabled").set();
    let (exempt_roles, exempt_channels) = read_exempt(&mut r, g);
    let metadata = read_metadata(&mut r, trigger, false);
    let actions = read_actions(&mut r, g, trigger, false);
    errs.check()?;
    may_time_out(g, &actor, actions.as_ref())?;
    let before = snapshot(&g.id, &g.auto_moderation_rules[ri]);
    let rule = &mut g.auto_moderation_rules[ri];
    if let Some(n) = name {
        rule.name = n;
    }
    if let Some(e) = event {
        rule.event_type = e as u8;
    }
    if let Some(e) = enabled {
        rule.enabled = e;
    }
    if let Some(m) = metadata {
        rule.trigger_metadata = m;
    }
    if let Some(a) = actions {
        rule.actions = a;
    }
    if let Some(ids) = exempt_roles {
        rule.exempt_roles = ids;
    }
    if let Some(ids) = exempt_channels {
        rule.exempt_channels = ids;
    }
    let changes = diff_snapshots(before, snapshot(&g.id, &g.auto_moderation_rules[ri]));
    if !changes.is_empty() {
        Entry::on(AUTO_MODERATION_RULE_UPDATE, &rid)
            .changes(changes)
            .by(&actor, call.reason())
            .record(g, snowflake);
    }
    let out = render::automod_rule(&g.id, &g.auto_moderation_rules[ri]);
    let updated = events::Dispatch::new(events::AUTO_MODERATION_RULE_UPDATE, &g.id, out.clone());
    fired(ok(out), [updated])
}

/// `DELETE /guilds/{g}/auto-moderation/rules/{r}` → 204 (MANAGE_GUILD).
pub async fn delete_rule(call: InGuild, Path((_, rid)): Path<(String, String)>) -> R {
    let mut st = call.state();
    let actor = call.actor.clone();
    let gi = call.index(&st)?;
    let (g, snowflake) = guild_at(&mut st, gi);
    need(guild_permissions(g, &actor), Permissions::MANAGE_GUILD)?;
    let ri = find(g, &rid)?;
    let rule = g.auto_moderation_rules.remove(ri);
    let changes = snapshot_changes(snapshot(&g.id, &rule), false);
    Entry::on(AUTO_MODERATION_RULE_DELETE, &rid)
        .changes(changes)
        .by(&actor, call.reason())
        .record(g, snowflake);
    // The rule as it was.
    let gone = render::automod_rule(&g.id, &rule);
    let deleted = events::Dispatch::new(events::AUTO_MODERATION_RULE_DELETE, &g.id, gone);
    fired(no_content(), [deleted])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_fit_their_trigger_types() {
        for t in [KEYWORD, SPAM, KEYWORD_PRESET, MENTION_SPAM, MEMBER_PROFILE] {
            assert!(action_fits(t, SEND_ALERT), "alerts for every rule");
        }
        assert!(action_fits(KEYWORD, TIMEOUT) && action_fits(MENTION_SPAM, TIMEOUT));
        assert!(!action_fits(SPAM, TIMEOUT) && !action_fits(KEYWORD_PRESET, TIMEOUT));
        assert!(!action_fits(MEMBER_PROFILE, TIMEOUT));
        assert!(action_fits(MEMBER_PROFILE, BLOCK_MEMBER_INTERACTION));
        assert!(!action_fits(KEYWORD, BLOCK_MEMBER_INTERACTION));
        assert!(!action_fits(MEMBER_PROFILE, BLOCK_MESSAGE));
        assert_eq!((event_of(MEMBER_PROFILE), event_of(KEYWORD)), (2, 1));
        assert_eq!((max_rules(KEYWORD), max_rules(SPAM)), (6, 1));
    }
}
