//! The guild object: `GET` and `PATCH /guilds/{g}` (docs/discord.md §5).

use axum::extract::RawQuery;
use axum::http::StatusCode;
use discord_permissions::Permissions;
use serde_json::{Value, json};

use crate::access::{InGuild, guild_for_write};
use crate::app::{JsonBody, R, fired, ok, query_params};
use crate::audit_log::action::GUILD_UPDATE;
use crate::audit_log::{Entry, diff};
use crate::error::{ApiError, FieldErrors};
use crate::events;
use crate::form::{self, Field, Reader};
use crate::images;
use crate::perms::is_admin;
use crate::render;

pub async fn get_guild(call: InGuild, RawQuery(q): RawQuery) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let with_counts = query_params(q)
        .get("with_counts")
        .is_some_and(|v| v == "true" || v == "1" || v == "True");
    ok(render::guild(
        &st.guilds[gi],
        with_counts,
        render::Dialect::of(&st.config),
    ))
}

/// Discord's locales (§9.4, discord-api-types `Locale`), the only values
/// `preferred_locale` takes. The OpenAPI spec also lists `ar` and `he`; the
/// documented list wins.
const LOCALES: [&str; 32] = [
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl",
    "no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th",
    "zh-CN", "ja", "zh-TW", "ko",
];

/// Features a PATCH may change (§5.1); the rest of the array is ignored.
const MUTABLE_FEATURES: [&str; 3] = ["COMMUNITY", "INVITES_DISABLED", "RAID_ALERTS_DISABLED"];

pub async fn patch_guild(call: InGuild, JsonBody(body): JsonBody) -> R {
    let mut st = call.state();
    let actor = call.actor.as_str();
    let dialect = render::Dialect::of(&st.config);
    let (g, snowflake) = guild_for_write(&mut st, &call.gid, actor, Permissions::MANAGE_GUILD)?;
    let obj = form::object(&body)?;
    let mut errs = FieldErrors::default();
    let mut r = Reader::new(&obj, &mut errs);

    // 2–100 characters once leading and trailing whitespace is gone (the reference's
    // Guild object), and stored so.
    let name = r.stored_name("name", 2, 100, |s| s.trim().to_owned());
    if matches!(name, Field::Null) {
        r.required("name");
    }
    let description = r.string_len("description", 0, 300);
    let afk_timeout = r.int_choice(
        "afk_timeout",
        &[60, 300, 900, 1800, 3600],
        "(60, 300, 900, 1800, 3600)",
    );
    let verification = r.int_choice("verification_level", &[0, 1, 2, 3, 4], "(0, 1, 2, 3, 4)");
    let filter = r.int_choice("explicit_content_filter", &[0, 1, 2], "(0, 1, 2)");
    let notifications = r.int_choice("default_message_notifications", &[0, 1], "(0, 1)");
    let flags = r.int_range("system_channel_flags", 0, i64::from(i32::MAX));
    let shown = format!("{{{}}}", LOCALES.map(|l| format!("'{l}'")).join(", "));
    let locale = r.string_choice("preferred_locale", &LOCALES, &shown);
    let progress = r.boolean("premium_progress_bar_enabled");
    let icon = r.image("icon");
    let banner = r.image("banner");
    let splash = r.image("splash");
    let discovery_splash = r.image("discovery_splash");
    let features = r.array("features");
    let chan_field = |r: &mut Reader, key: &str, kinds: &[u8], code: &str, msg: &str| {
        let f = r.snowflake(key);
        if let Field::Set(id) = &f {
            match g.channel(id) {
                Some(c) if kinds.contains(&c.kind) => {}
                Some(_) => r.err(key, code, msg),
                None => r.err(key, "CHANNEL_NOT_FOUND", "Unknown channel"),
            }
        }
        f
    };
    // Codes below are the documented guild-create variants (§2.1).
    let afk_channel = chan_field(
        &mut r,
        "afk_channel_id",
        &[2],
        "GUILD_CREATE_AFK_CHANNEL_NOT_GUILD_VOICE",
        "AFK channel must be a voice channel",
    );
    let system_channel = chan_field(
        &mut r,
        "system_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "System channel must be a text channel",
    );
    let rules_channel = chan_field(
        &mut r,
        "rules_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Rules channel must be a text channel",
    );
    let updates_channel = chan_field(
        &mut r,
        "public_updates_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Public updates channel must be a text channel",
    );
    let safety_channel = chan_field(
        &mut r,
        "safety_alerts_channel_id",
        &[0],
        "GUILD_CREATE_SYSTEM_CHANNEL_NOT_GUILD_TEXT",
        "Safety alerts channel must be a text channel",
    );
    let mut requested: Option<Vec<String>> = None;
    if let Field::Set(list) = &features {
        let mut out = Vec::new();
        for (i, v) in list.iter().enumerate() {
            match v.as_str() {
                Some(s) => out.push(s.to_owned()),
                None => r.errs.add(
                    &["features", &i.to_string()],
                    "BASE_TYPE_STRING",
                    &format!("Could not interpret \"{}\" as string.", form::show(v)),
                ),
            }
        }
        requested = Some(out);
    }
    for key in [
        "afk_timeout",
        "verification_level",
        "explicit_content_filter",
    ] {
        if obj.get(key).is_some_and(Value::is_null) {
            r.required(key);
        }
    }
    errs.check()?;
    // Images need the guild's features (Modify Guild's table); clearing one needs none.
    let wants = |f: &Field<String>| matches!(f, Field::Set(_));
    let animated = |f: &Field<String>| matches!(f, Field::Set(d) if images::is_animated(d));
    if animated(&icon) {
        images::require_feature(g, "ANIMATED_ICON")?;
    }
    if wants(&banner) {
        images::require_feature(g, "BANNER")?;
    }
    if animated(&banner) {
        images::require_feature(g, "ANIMATED_BANNER")?;
    }
    if wants(&splash) {
        images::require_feature(g, "INVITE_SPLASH")?;
    }
    if wants(&discovery_splash) {
        images::require_feature(g, "DISCOVERABLE")?;
    }

    // Features: keep the immutable ones, take the mutable ones from the body.
    let mut new_features = g.features.clone();
    if let Some(req) = &requested {
        new_features.retain(|f| !MUTABLE_FEATURES.contains(&f.as_str()));
        for f in MUTABLE_FEATURES {
            if req.iter().any(|x| x == f) {
                new_features.push(f.to_owned());
            }
        }
        let had = g.has_feature("COMMUNITY");
        let wants = new_features.iter().any(|f| f == "COMMUNITY");
        if had != wants {
            // Adding or removing COMMUNITY needs ADMINISTRATOR (§5.1).
            if !is_admin(g, actor) {
                return Err(ApiError::missing_permissions());
            }
        }
        if wants && !had {
            // §5.2: rules and public-updates channels in the same PATCH (or set).
            let rules_ok = match &rules_channel {
                Field::Set(_) => true,
                Field::Null => false,
                Field::Absent => g.rules_channel_id.is_some(),
            };
            let updates_ok = match &updates_channel {
                Field::Set(_) => true,
                Field::Null => false,
                Field::Absent => g.public_updates_channel_id.is_some(),
            };
            if !(rules_ok && updates_ok) {
                return Err(ApiError::new(
                    StatusCode::FORBIDDEN,
                    40006,
                    "This feature has been temporarily disabled",
                ));
            }
            // A community guild can have announcement channels.
            if !new_features.iter().any(|f| f == "NEWS") {
                new_features.push("NEWS".into());
            }
        }
        if had && !wants {
            // Undocumented: what COMMUNITY gave goes with it (announcement
            // channels, the welcome screen; onboarding is disabled below).
            new_features.retain(|f| f != "NEWS" && f != "WELCOME_SCREEN_ENABLED");
        }
    }

    let mut ch = Vec::new();
    macro_rules! apply {
        ($field:expr, $key:literal, $target:expr, $conv:expr) => {
            if let Some(v) = $field.into_option() {
                let newv = $conv(v);
                diff(&mut ch, $key, json!($target), json!(newv));
                $target = newv;
            }
        };
    }
    // A field present with a value (not null) replaces the guild's.
    macro_rules! set {
        ($field:expr, $key:literal, $target:expr, $conv:expr) => {
            if let Field::Set(v) = $field {
                let newv = $conv(v);
                diff(&mut ch, $key, json!($target), json!(newv));
                $target = newv;
            }
        };
    }
    set!(name, "name", g.name, |v| v);
    apply!(description, "description", g.description, |v| v);
    set!(afk_timeout, "afk_timeout", g.afk_timeout, |v| v as u32);
    set!(
        verification,
        "verification_level",
        g.verification_level,
        |v| v as u8
    );
    set!(
        filter,
        "explicit_content_filter",
        g.explicit_content_filter,
        |v| v as u8
    );
    set!(
        notifications,
        "default_message_notifications",
        g.default_message_notifications,
        |v| v as u8
    );
    set!(flags, "system_channel_flags", g.system_channel_flags, |v| v
        as u32);
    set!(locale, "preferred_locale", g.preferred_locale, |v| v);
    set!(
        progress,
        "premium_progress_bar_enabled",
        g.premium_progress_bar_enabled,
        |v| v
    );
    // Discord stores a hash of the uploaded image; the audit keys are `*_hash`.
    for (field, key) in [
        (icon, "icon_hash"),
        (banner, "banner_hash"),
        (splash, "splash_hash"),
        (discovery_splash, "discovery_splash_hash"),
    ] {
        if let Some(v) = field.into_option() {
            let hash = v.map(|data| images::store(g, &data));
            let slot = match key {
                "icon_hash" => &mut g.icon,
                "banner_hash" => &mut g.banner,
                "splash_hash" => &mut g.splash,
                _ => &mut g.discovery_splash,
            };
            let before = json!(slot);
            *slot = hash.clone();
            diff(&mut ch, key, before, json!(hash));
        }
    }
    apply!(afk_channel, "afk_channel_id", g.afk_channel_id, |v| v);
    apply!(
        system_channel,
        "system_channel_id",
        g.system_channel_id,
        |v| v
    );
    apply!(rules_channel, "rules_channel_id", g.rules_channel_id, |v| v);
    apply!(
        updates_channel,
        "public_updates_channel_id",
        g.public_updates_channel_id,
        |v| v
    );
    apply!(
        safety_channel,
        "safety_alerts_channel_id",
        g.safety_alerts_channel_id,
        |v| v
    );
    if requested.is_some() {
        diff(&mut ch, "features", json!(g.features), json!(new_features));
        g.features = new_features;
        if !g.has_feature("COMMUNITY") {
            g.onboarding.enabled = false;
        }
    }
    if !ch.is_empty() {
        let gid = g.id.clone();
        Entry::on(GUILD_UPDATE, &gid)
            .changes(ch)
            .by(actor, call.reason())
            .record(g, snowflake);
    }
    fired(
        ok(render::guild(g, false, dialect)),
        [events::guild_update(g, dialect)],
    )
}

/// `GET /guilds/{g}/preview`: a member of the guild, or anyone authenticated when the
/// guild is DISCOVERABLE (else 404 10004, as for a guild one cannot see). No presences
/// are emulated: `approximate_presence_count` is 0.
pub async fn get_guild_preview(call: InGuild) -> R {
    let st = call.state();
    crate::access::digits(&call.gid)?;
    let g = st.guild(&call.gid).ok_or_else(ApiError::unknown_guild)?;
    let member = crate::perms::is_owner(g, &call.actor) || g.member(&call.actor).is_some();
    if !member && !g.has_feature("DISCOVERABLE") {
        return Err(ApiError::unknown_guild());
    }
    ok(json!({
        "id": g.id,
        "name": g.name,
        "icon": g.icon,
        "splash": g.splash,
        "discovery_splash": g.discovery_splash,
        "home_header": g.home_header,
        "emojis": render::emojis(g),
        "features": g.features,
        "approximate_member_count": g.members.len(),
        "approximate_presence_count": 0,
        "description": g.description,
        "stickers": render::stickers(g),
    }))
}
