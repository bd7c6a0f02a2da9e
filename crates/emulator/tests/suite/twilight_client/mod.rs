//! A real Discord client nobody here wrote, twilight-http 0.18, against a
//! running emulator over loopback. Every call is checked on twilight's own
//! deserialised models: a response twilight cannot parse is an emulator bug.
//!
//! Roles, channels, overwrites, webhooks, the guild, the audit log and the buckets are
//! here; members and the expression-like objects have a module each.

mod expressions;
mod members;

use crate::emulator_support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use discord_emulator::{EmulatorConfig, RouteBucket, default_state};
use emulator_support::T;
use serde_json::Value;
use twilight_http::Client;
use twilight_http::request::AuditLogReason;
use twilight_model::channel::ChannelType;
use twilight_model::channel::permission_overwrite::PermissionOverwriteType as OwType;
use twilight_model::guild::audit_log::{AuditLogChange, AuditLogEventType};
use twilight_model::guild::{Permissions, RolePosition};
use twilight_model::http::channel_position::Position;
use twilight_model::http::permission_overwrite::{
    PermissionOverwrite, PermissionOverwriteType as HttpOwType,
};
use twilight_model::id::Id;
use twilight_model::id::marker::{ChannelMarker, RoleMarker};

/// twilight pointed at the emulator: its proxy option swaps `discord.com`
/// for the emulator's `127.0.0.1:PORT`, over plain HTTP.
fn twilight(t: &T) -> Client {
    let host = t
        .emu
        .base_url
        .strip_prefix("http://")
        .expect("an http base url")
        .to_owned();
    Client::builder()
        .token(t.emu.token.clone())
        .proxy(host, true)
        .timeout(Duration::from_secs(10))
        .build()
}

fn id<M>(s: &str) -> Id<M> {
    Id::new(s.parse().expect("a snowflake"))
}

/// The API requests the emulator served, from its control endpoint.
async fn served(t: &T) -> Vec<Value> {
    let v: Value = t
        .http
        .get(format!("{}/_emulator/requests", t.emu.base_url))
        .send()
        .await
        .expect("request log")
        .json()
        .await
        .expect("json");
    v.as_array().expect("array").clone()
}

#[tokio::test]
async fn roles_create_update_reorder_delete() {
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());

    let role = c
        .create_role(gid)
        .name("  Twilight   Team ")
        .color(0x00_AA_FF)
        .hoist(true)
        .permissions(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES)
        .reason("twilight: create role")
        .await
        .expect("create role")
        .model()
        .await
        .expect("twilight parses the role");
    assert_eq!(
        role.name, "Twilight   Team",
        "stored trimmed, inner whitespace kept"
    );
    assert_eq!(role.colors.primary_color, 0x00_AA_FF);
    assert!(role.hoist && !role.managed && !role.mentionable);
    assert_eq!(
        role.permissions,
        Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES
    );
    assert_eq!(role.position, 1, "new roles go to position 1");

    let role = c
        .update_role(gid, role.id)
        .name(Some("Twilight Crew"))
        .mentionable(true)
        .await
        .expect("update role")
        .model()
        .await
        .expect("twilight parses the role");
    assert_eq!(role.name, "Twilight Crew");
    assert!(role.mentionable);

    // Move it just under Helper: the reorder answers the whole list.
    let helper: Id<RoleMarker> = id(&t.role("Helper"));
    let helper_pos = t.emu.state().guilds[0]
        .role(&t.role("Helper"))
        .unwrap()
        .position;
    let roles = c
        .update_role_positions(
            gid,
            &[RolePosition {
                id: role.id,
                position: u64::try_from(helper_pos).unwrap(),
            }],
        )
        .await
        .expect("reorder roles")
        .models()
        .await
        .expect("twilight parses the role list");
    assert_eq!(roles.len(), t.emu.state().guilds[0].roles.len());
    let pos = |rid: Id<RoleMarker>| roles.iter().find(|r| r.id == rid).unwrap().position;
    // Same number as Helper: the older role ranks higher (§3.3), so the new
    // one lands right below it after the renumbering.
    assert_eq!(pos(role.id), pos(helper) - 1);
    assert!(pos(role.id) > 1, "moved up");
    assert_eq!(pos(gid.cast()), 0, "@everyone stays at 0");

    let resp = c.delete_role(gid, role.id).await.expect("delete role");
    assert_eq!(resp.status().get(), 204);
    let roles = c
        .roles(gid)
        .await
        .expect("roles")
        .models()
        .await
        .expect("twilight parses the role list");
    assert!(roles.iter().all(|r| r.id != role.id));
    assert!(roles.iter().any(|r| r.name == "@everyone"));
}

#[tokio::test]
async fn channels_create_update_reposition_delete() {
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());

    let cat = c
        .create_guild_channel(gid, "Twilight Area")
        .kind(ChannelType::GuildCategory)
        .reason("twilight: category")
        .await
        .expect("create category")
        .model()
        .await
        .expect("twilight parses the category");
    assert_eq!(cat.kind, ChannelType::GuildCategory);
    assert_eq!(cat.name.as_deref(), Some("Twilight Area"));
    assert_eq!(cat.guild_id, Some(gid));

    let text = c
        .create_guild_channel(gid, "Release Notes")
        .parent_id(cat.id)
        .topic("what shipped")
        .rate_limit_per_user(5)
        .await
        .expect("create text")
        .model()
        .await
        .expect("twilight parses the text channel");
    assert_eq!(text.kind, ChannelType::GuildText);
    assert_eq!(text.name.as_deref(), Some("release-notes"), "normalised");
    assert_eq!(text.parent_id, Some(cat.id));
    assert_eq!(text.topic.as_deref(), Some("what shipped"));
    assert_eq!(text.rate_limit_per_user, Some(5));
    assert_eq!(text.permission_overwrites.as_deref(), Some(&[][..]));

    let voice = c
        .create_guild_channel(gid, "Stand Up")
        .kind(ChannelType::GuildVoice)
        .parent_id(cat.id)
        .bitrate(64_000)
        .user_limit(8)
        .await
        .expect("create voice")
        .model()
        .await
        .expect("twilight parses the voice channel");
    assert_eq!(voice.kind, ChannelType::GuildVoice);
    assert_eq!(voice.name.as_deref(), Some("Stand Up"), "voice keeps case");
    assert_eq!(voice.bitrate, Some(64_000));
    assert_eq!(voice.user_limit, Some(8));
    assert_eq!(voice.parent_id, Some(cat.id));

    let text = c
        .update_channel(text.id)
        .name("Shipped Things")
        .topic("renamed")
        .nsfw(true)
        .reason("twilight: edit")
        .await
        .expect("update channel")
        .model()
        .await
        .expect("twilight parses the channel");
    assert_eq!(text.name.as_deref(), Some("shipped-things"));
    assert_eq!(text.topic.as_deref(), Some("renamed"));
    assert_eq!(text.nsfw, Some(true));

    // Bulk positions: put the text channel at 7 and move the voice channel
    // to the top level (one parent change per call).
    let moves = [
        Position {
            id: text.id,
            lock_permissions: None,
            parent_id: None,
            position: Some(Some(7)),
        },
        Position {
            id: voice.id,
            lock_permissions: None,
            parent_id: Some(None),
            position: Some(Some(3)),
        },
    ];
    let resp = c
        .update_guild_channel_positions(gid, &moves)
        .await
        .expect("channel positions");
    assert_eq!(resp.status().get(), 204);
    let all = c
        .guild_channels(gid)
        .await
        .expect("channels")
        .models()
        .await
        .expect("twilight parses every channel of the guild");
    assert_eq!(all.len(), t.emu.state().guilds[0].channels.len());
    let find = |cid: Id<ChannelMarker>| all.iter().find(|ch| ch.id == cid).unwrap();
    assert_eq!(find(text.id).position, Some(7));
    assert_eq!(find(voice.id).position, Some(3));
    assert_eq!(find(voice.id).parent_id, None);

    let gone = c
        .delete_channel(voice.id)
        .await
        .expect("delete channel")
        .model()
        .await
        .expect("twilight parses the deleted channel");
    assert_eq!(gone.id, voice.id);
    let (s, _) = t.get(&format!("/channels/{}", voice.id)).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn permission_overwrites_put_and_delete() {
    let t = T::new().await;
    let c = twilight(&t);
    let general: Id<ChannelMarker> = id(&t.chan("general"));
    let helper: Id<RoleMarker> = id(&t.role("Helper"));

    let ow = PermissionOverwrite {
        allow: Some(Permissions::ATTACH_FILES),
        deny: Some(Permissions::SEND_MESSAGES),
        id: helper.cast(),
        kind: HttpOwType::Role,
    };
    let resp = c
        .update_channel_permission(general, &ow)
        .reason("twilight: overwrite")
        .await
        .expect("put overwrite");
    assert_eq!(resp.status().get(), 204);
    let ch = c
        .channel(general)
        .await
        .expect("get channel")
        .model()
        .await
        .expect("twilight parses the channel");
    let got = ch
        .permission_overwrites
        .unwrap_or_default()
        .into_iter()
        .find(|o| o.id == helper.cast())
        .expect("overwrite stored");
    assert_eq!(got.kind, OwType::Role);
    assert_eq!(got.allow, Permissions::ATTACH_FILES);
    assert_eq!(got.deny, Permissions::SEND_MESSAGES);

    let resp = c
        .delete_channel_permission(general)
        .role(helper)
        .await
        .expect("delete overwrite");
    assert_eq!(resp.status().get(), 204);
    let ch = c
        .channel(general)
        .await
        .expect("get channel")
        .model()
        .await
        .expect("twilight parses the channel");
    assert!(
        ch.permission_overwrites
            .unwrap_or_default()
            .iter()
            .all(|o| o.id != helper.cast())
    );
}

#[tokio::test]
async fn webhooks_with_and_without_token() {
    let t = T::new().await;
    let c = twilight(&t);
    let general: Id<ChannelMarker> = id(&t.chan("general"));
    let bot_spam: Id<ChannelMarker> = id(&t.chan("bot-spam"));

    let hook = c
        .create_webhook(general, "Twilight  Hook")
        .reason("twilight: webhook")
        .await
        .expect("create webhook")
        .model()
        .await
        .expect("twilight parses the webhook");
    assert_eq!(hook.name.as_deref(), Some("Twilight Hook"));
    assert_eq!(hook.channel_id, Some(general));
    let token = hook.token.clone().expect("the creator sees the token");
    assert!(hook.user.is_some(), "bot routes include the creator");

    let got = c
        .webhook(hook.id)
        .await
        .expect("get webhook")
        .model()
        .await
        .expect("twilight parses the webhook");
    assert_eq!(got.id, hook.id);
    assert_eq!(got.token.as_deref(), Some(token.as_str()));

    let moved = c
        .update_webhook(hook.id)
        .name("Moved Hook")
        .channel_id(bot_spam)
        .await
        .expect("update webhook")
        .model()
        .await
        .expect("twilight parses the webhook");
    assert_eq!(moved.name.as_deref(), Some("Moved Hook"));
    assert_eq!(moved.channel_id, Some(bot_spam));

    let renamed = c
        .update_webhook_with_token(hook.id, &token)
        .name("Token Hook")
        .await
        .expect("update webhook by token")
        .model()
        .await
        .expect("twilight parses the webhook");
    assert_eq!(renamed.name.as_deref(), Some("Token Hook"));
    assert!(renamed.user.is_none(), "token routes omit the creator");

    let by_token = c
        .webhook(hook.id)
        .token(&token)
        .await
        .expect("get webhook by token")
        .model()
        .await
        .expect("twilight parses the webhook");
    assert_eq!(by_token.name.as_deref(), Some("Token Hook"));

    let resp = c
        .delete_webhook(hook.id)
        .token(&token)
        .await
        .expect("delete by token");
    assert_eq!(resp.status().get(), 204);

    // And one deleted with bot auth.
    let second = c
        .create_webhook(general, "Second Hook")
        .await
        .expect("create webhook")
        .model()
        .await
        .expect("twilight parses the webhook");
    let resp = c
        .delete_webhook(second.id)
        .reason("twilight: delete")
        .await
        .expect("delete webhook");
    assert_eq!(resp.status().get(), 204);
    let hooks = c
        .channel_webhooks(general)
        .await
        .expect("channel webhooks")
        .models()
        .await
        .expect("twilight parses the webhook list");
    assert!(hooks.iter().all(|w| w.id != hook.id && w.id != second.id));
    // The default state's channel follower (type 2) parses too.
    assert!(hooks.iter().any(|w| w.source_guild.is_some()), "{hooks:?}");
}

#[tokio::test]
async fn guild_fetch() {
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let g = c
        .guild(gid)
        .with_counts(true)
        .await
        .expect("get guild")
        .model()
        .await
        .expect("twilight parses the guild");
    let st = t.emu.state();
    let want = &st.guilds[0];
    assert_eq!(g.id, gid);
    assert_eq!(g.name, want.name);
    assert_eq!(g.owner_id.get().to_string(), want.owner_id);
    assert_eq!(g.roles.len(), want.roles.len());
    assert_eq!(
        g.afk_channel_id.map(|c| c.get().to_string()),
        want.afk_channel_id
    );
    assert_eq!(g.approximate_member_count, Some(want.members.len() as u64));
}

#[tokio::test]
async fn audit_log_with_filters() {
    let t = T::new().await;
    let c = twilight(&t);
    let gid = id(&t.g());
    let bot = id(&t.emu.state().bot_user_id);
    for name in ["Audit One", "Audit Two", "Audit Three"] {
        c.create_role(gid)
            .name(name)
            .reason("twilight: audit & co")
            .await
            .expect("create role");
    }
    c.create_guild_channel(gid, "audit-chan")
        .await
        .expect("create channel");

    let log = c
        .audit_log(gid)
        .action_type(AuditLogEventType::RoleCreate)
        .user_id(bot)
        .limit(2)
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses the audit log");
    assert_eq!(log.entries.len(), 2, "limit");
    for e in &log.entries {
        assert_eq!(e.action_type, AuditLogEventType::RoleCreate);
        assert_eq!(e.user_id, Some(bot));
        assert_eq!(e.reason.as_deref(), Some("twilight: audit & co"));
    }
    let names: Vec<&str> = log
        .entries
        .iter()
        .map(|e| {
            e.changes
                .iter()
                .find_map(|ch| match ch {
                    AuditLogChange::Name { new, .. } => new.as_deref(),
                    _ => None,
                })
                .expect("a name change")
        })
        .collect();
    assert_eq!(names, ["Audit Three", "Audit Two"], "newest first");
    assert!(log.users.iter().any(|u| u.id == bot), "users array");

    // `before` pages further back.
    let older = c
        .audit_log(gid)
        .action_type(AuditLogEventType::RoleCreate)
        .before(log.entries[1].id.get())
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses the audit log");
    assert_eq!(older.entries.len(), 1);

    // A mix of other entry kinds, all in one page twilight must parse:
    // overwrite options (string `type`), channel and webhook changes, and
    // the page's `webhooks` array.
    let general: Id<ChannelMarker> = id(&t.chan("general"));
    let helper: Id<RoleMarker> = id(&t.role("Helper"));
    let ow = PermissionOverwrite {
        allow: Some(Permissions::EMBED_LINKS),
        deny: None,
        id: helper.cast(),
        kind: HttpOwType::Role,
    };
    c.update_channel_permission(general, &ow)
        .await
        .expect("put overwrite");
    c.update_channel(general)
        .topic("audited")
        .await
        .expect("update channel");
    let hook = c
        .create_webhook(general, "Audit Hook")
        .await
        .expect("create webhook")
        .model()
        .await
        .expect("webhook");
    c.update_webhook(hook.id)
        .name("Audit Hook 2")
        .await
        .expect("update webhook");

    let all = c
        .audit_log(gid)
        .limit(100)
        .await
        .expect("audit log")
        .model()
        .await
        .expect("twilight parses every entry kind");
    let kinds: Vec<AuditLogEventType> = all.entries.iter().map(|e| e.action_type).collect();
    for k in [
        AuditLogEventType::ChannelCreate,
        AuditLogEventType::ChannelUpdate,
        AuditLogEventType::ChannelOverwriteCreate,
        AuditLogEventType::WebhookCreate,
        AuditLogEventType::WebhookUpdate,
        AuditLogEventType::RoleCreate,
    ] {
        assert!(kinds.contains(&k), "{k:?} in {kinds:?}");
    }
    let ow_entry = all
        .entries
        .iter()
        .find(|e| e.action_type == AuditLogEventType::ChannelOverwriteCreate)
        .unwrap();
    assert_eq!(ow_entry.target_id, Some(general.cast()));
    let opts = ow_entry.options.as_ref().expect("overwrite options");
    assert_eq!(opts.id, Some(helper.cast()));
    assert_eq!(opts.kind.as_deref(), Some("0"), "a string, per the docs");
    assert_eq!(opts.role_name.as_deref(), Some("Helper"));
    let topic = all
        .entries
        .iter()
        .filter(|e| e.action_type == AuditLogEventType::ChannelUpdate)
        .flat_map(|e| e.changes.iter())
        .find_map(|ch| match ch {
            AuditLogChange::Topic { new, .. } => new.clone(),
            _ => None,
        });
    assert_eq!(topic.as_deref(), Some("audited"));
    let listed = all
        .webhooks
        .iter()
        .find(|w| w.id == hook.id)
        .expect("the page's webhooks array");
    assert_eq!(listed.name.as_deref(), Some("Audit Hook 2"));
    assert_eq!(listed.token, None, "never a token in the audit log");
}

/// twilight's rate limiter honours the emulator's headers: more requests
/// than the bucket allows, all answered, no 429 ever sent. twilight ≥ 0.17
/// reads bucket headers only with `X-RateLimit-Scope` (§1.2), hence
/// `scope_header_on_success`. The clock runs 20× fast: header values are in
/// real seconds, which is all twilight needs.
///
/// twilight files a request under its path's bucket only once a response on
/// that very path has named the bucket; before that it queues by guild, apart
/// from the bucket's queue. Edits of different roles share one bucket per
/// guild (§1.1), so the first edit of each role is made on its own, one after
/// the other, before the burst: concurrent first requests on paths twilight
/// has not seen yet race each other (seen here as one 429, which twilight
/// then retried). That is twilight's design, not the emulator's headers.
#[tokio::test]
async fn twilight_waits_out_a_tight_bucket_without_a_single_429() {
    const LIMIT: u32 = 3;
    const WINDOW: f64 = 10.0;
    const SCALE: f64 = 20.0;
    const BURST: u32 = 12;
    let mut st = default_state();
    st.config = EmulatorConfig {
        time_scale: SCALE,
        scope_header_on_success: true,
        route_buckets: vec![RouteBucket {
            method: "PATCH".into(),
            route: "/guilds/{guild_id}/roles/{role_id}".into(),
            limit: LIMIT,
            window_seconds: WINDOW,
            bucket: "0123456789abcdef0123456789abcdef".into(),
        }],
        ..EmulatorConfig::default()
    };
    let t = T::with(st).await;
    let c = Arc::new(twilight(&t));
    let gid = id(&t.g());
    let roles: Vec<Id<RoleMarker>> = ["Member", "Muted", "Contributor"]
        .iter()
        .map(|n| id(&t.role(n)))
        .collect();
    assert_eq!(roles.len() as u32, LIMIT, "priming fits one window");
    t.emu.clear_requests();

    let started = Instant::now();
    for rid in &roles {
        c.update_role(gid, *rid)
            .mentionable(true)
            .await
            .expect("answered");
    }
    let mut calls = tokio::task::JoinSet::new();
    for i in 0..BURST {
        let c = Arc::clone(&c);
        let rid = roles[i as usize % roles.len()];
        calls.spawn(async move {
            c.update_role(gid, rid)
                .hoist(i % 2 == 0)
                .await
                .expect("answered")
                .model()
                .await
                .expect("twilight parses the role")
        });
    }
    while let Some(done) = calls.join_next().await {
        done.expect("task");
    }
    let elapsed = started.elapsed().as_secs_f64();

    let log = served(&t).await;
    let statuses: Vec<u64> = log.iter().filter_map(|r| r["status"].as_u64()).collect();
    let total = LIMIT + BURST;
    assert_eq!(
        statuses.len(),
        total as usize,
        "one request per call: {statuses:?}"
    );
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    // total / LIMIT windows, so at least that many minus one waits.
    let waits = f64::from(total / LIMIT - 1);
    assert!(
        elapsed >= waits * (WINDOW / SCALE) * 0.9,
        "twilight waited for the resets: {elapsed:.3}s"
    );
}

/// Executing a webhook through twilight: a message with a file (multipart), read back,
/// edited keeping the file, deleted; a forum post; the guild's active threads and its
/// preview.
#[tokio::test]
async fn execute_webhook_and_its_messages() {
    use twilight_model::http::attachment::Attachment;
    let t = T::new().await;
    let c = twilight(&t);
    let st = t.emu.state();
    let ci = st.guilds[0]
        .webhooks
        .iter()
        .find(|w| w.name == "CI")
        .unwrap();
    let (wid, token) = (id(&ci.id), ci.token.clone().unwrap());
    let file = [Attachment::from_bytes(
        "build.log".into(),
        b"all green".to_vec(),
        0,
    )];
    let m = c
        .execute_webhook(wid, &token)
        .content("Build passed")
        .username("CI Runner")
        .attachments(&file)
        .wait()
        .await
        .expect("execute")
        .model()
        .await
        .expect("twilight parses the message");
    assert_eq!(m.content, "Build passed");
    assert_eq!(m.author.name, "CI Runner");
    assert_eq!(m.webhook_id, Some(wid));
    assert_eq!(m.attachments.len(), 1);
    assert_eq!(m.attachments[0].filename, "build.log");
    assert_eq!(m.attachments[0].size, 9);

    let got = c
        .webhook_message(wid, &token, m.id)
        .await
        .expect("get message")
        .model()
        .await
        .expect("twilight parses the message");
    assert_eq!(got.id, m.id);
    let edited = c
        .update_webhook_message(wid, &token, m.id)
        .content(Some("Build passed (edited)"))
        .keep_attachment_ids(&[m.attachments[0].id])
        .await
        .expect("edit message")
        .model()
        .await
        .expect("twilight parses the message");
    assert_eq!(edited.content, "Build passed (edited)");
    assert_eq!(edited.attachments.len(), 1, "kept");
    assert!(edited.edited_timestamp.is_some());
    let resp = c
        .delete_webhook_message(wid, &token, m.id)
        .await
        .expect("delete message");
    assert_eq!(resp.status().get(), 204);

    // A forum post, then the active threads.
    let gid = id(&t.g());
    let forum = c
        .create_guild_channel(gid, "ideas")
        .kind(ChannelType::GuildForum)
        .await
        .expect("create forum")
        .model()
        .await
        .expect("forum");
    let hook = c
        .create_webhook(forum.id, "Forum Hook")
        .await
        .expect("webhook")
        .model()
        .await
        .expect("webhook");
    let post = c
        .execute_webhook(hook.id, hook.token.as_deref().unwrap())
        .content("Dark mode, please")
        .thread_name("Dark mode")
        .wait()
        .await
        .expect("forum post")
        .model()
        .await
        .expect("twilight parses the post");
    assert_eq!(post.channel_id.get(), post.id.get());
    let threads = c
        .active_threads(gid)
        .await
        .expect("active threads")
        .model()
        .await
        .expect("twilight parses the threads");
    assert!(threads.threads.iter().any(|th| th.id == post.channel_id));
    assert!(
        threads
            .threads
            .iter()
            .all(|th| th.thread_metadata.as_ref().is_some_and(|m| !m.archived))
    );
    let preview = c
        .guild_preview(gid)
        .await
        .expect("preview")
        .model()
        .await
        .expect("twilight parses the preview");
    assert_eq!(preview.name, "Ferris Fans");
}
