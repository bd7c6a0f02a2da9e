//! `guildctl export`: the live guild as a manifest that plans back to no changes.
//!
//! Every object is written with its id pinned, so renames made later in the file
//! are understood as renames. Webhooks are written without tokens.

use std::fmt::Write;

use serde::Serialize;

use crate::discord::models::{
    self, Channel as LiveChannel, OVERWRITE_MEMBER, REQUIRE_TAG, WEBHOOK_INCOMING, channel_type,
};
use crate::inert;
use crate::manifest::{
    Ban, Channel, ChannelType, Color, ColorStyle, CustomEmoji, Emoji, ExplicitContentFilter,
    Follow, ForumLayout, ForumTag, Gradient, HOLOGRAPHIC, Manifest, MessageNotifications,
    Onboarding, OnboardingMode, Overwrite, PermissionName, Prompt, PromptOption, PromptType, Role,
    RoleColors, RosterMember, SCHEMA_ID, Settings, Snowflake, SortOrder, SystemChannelFlag,
    VerificationLevel, VideoQualityMode, Webhook, WelcomeChannel, WelcomeScreen, Widget,
};
use crate::manifest::{InviteRule, Invites};
use crate::permissions::Permissions;
use crate::sections::{self, Names};
use crate::snapshot::{Snapshot, snowflake_cmp};

#[derive(Debug, thiserror::Error)]
#[error("cannot write the manifest as YAML: {0}")]
pub struct ExportError(String);

/// The live images written beside the manifest: the manifest's path for each image (by its
/// CDN path, [`crate::discord::cdn::LiveImage::path`]).
pub type ExportedImages = sections::ExportedFiles;

pub use sections::exports_event;

/// The manifest for `snap`, as YAML with explanatory comments; images are left out.
pub fn export(snap: &Snapshot) -> Result<String, ExportError> {
    export_with_images(snap, &ExportedImages::new())
}

/// The file name (in the images folder) for a live image: `icon.png`, `role-ID.png`.
pub fn image_file_name(image: &crate::discord::cdn::LiveImage<'_>) -> String {
    let ext = if image.animated() { "gif" } else { "png" };
    match image.kind {
        "role-icons" => format!("role-{}.{ext}", image.id),
        "icons" => format!("icon.{ext}"),
        "banners" => format!("banner.{ext}"),
        "splashes" => format!("splash.{ext}"),
        _ => format!("discovery-splash.{ext}"),
    }
}

/// [`export`], naming the images in `images` (written by the caller) as files.
pub fn export_with_images(snap: &Snapshot, images: &ExportedImages) -> Result<String, ExportError> {
    let names = Names::new(snap);
    let community = snap.guild.has_feature("COMMUNITY");
    let mut manifest = Manifest {
        version: 1,
        guild: Some(Snowflake(snap.guild.id.clone())),
        extends: None,
        settings: Some(settings(snap, &names, images)),
        roles: Some(roles(snap, images)),
        channels: Some(channels(snap)),
        // Both exist only in community guilds.
        welcome_screen: snap
            .welcome_screen
            .as_ref()
            .filter(|_| community)
            .map(|w| welcome(snap, w, &names)),
        onboarding: snap
            .onboarding
            .as_ref()
            .filter(|_| community)
            .map(|o| onboarding(snap, o, &names)),
        widget: Some(Widget {
            enabled: Some(snap.guild.widget_enabled),
            channel: Some(
                snap.guild
                    .widget_channel_id
                    .as_deref()
                    .map(|id| names.channel(id)),
            ),
        }),
        webhooks: snap.webhooks.as_ref().map(|w| webhooks(w, &names)),
        integrations: None,
        // The vanity code, with one empty rule (any invite may exist): adopting a guild
        // changes nothing about its invites until someone writes rules.
        invites: snap.guild.vanity_url_code.as_ref().map(|code| Invites {
            vanity: Some(code.clone()),
            rules: vec![InviteRule::default()],
            codes: Vec::new(),
        }),
        bans: bans(snap),
        // Rules people write; the live guild states none.
        policies: None,
        prune: Default::default(),
        safety: None,
        // The sections that are units ([`crate::sections`]) fill in their own.
        ..Manifest::default()
    };
    for section in sections::ALL {
        section.export(snap, images, &names, &mut manifest);
    }
    render(snap, &manifest)
}

/// The file written for a live image, if it was: managed only then.
fn image_file(
    images: &ExportedImages,
    kind: &'static str,
    id: &str,
    hash: &Option<String>,
) -> Option<Option<String>> {
    let hash = hash.as_deref()?;
    let path = crate::discord::cdn::LiveImage { kind, id, hash }.path();
    images.get(&path).map(|f| Some(f.clone()))
}

fn settings(snap: &Snapshot, names: &Names, images: &ExportedImages) -> Settings {
    let g = &snap.guild;
    let channel = |id: &Option<String>| Some(id.as_deref().map(|i| names.channel(i)));
    let flags: Vec<SystemChannelFlag> = [1u64, 2, 4, 8, 16, 32]
        .into_iter()
        .filter(|bit| g.system_channel_flags & bit != 0)
        .filter_map(SystemChannelFlag::from_value)
        .collect();
    let settings = Settings {
        name: Some(g.name.clone()),
        description: Some(g.description.clone()),
        verification_level: VerificationLevel::from_value(g.verification_level),
        default_message_notifications: MessageNotifications::from_value(
            g.default_message_notifications,
        ),
        explicit_content_filter: ExplicitContentFilter::from_value(g.explicit_content_filter),
        afk_channel: channel(&g.afk_channel_id),
        afk_timeout: u32::try_from(g.afk_timeout).ok(),
        system_channel: channel(&g.system_channel_id),
        system_channel_flags: Some(flags),
        rules_channel: channel(&g.rules_channel_id),
        public_updates_channel: channel(&g.public_updates_channel_id),
        safety_alerts_channel: channel(&g.safety_alerts_channel_id),
        preferred_locale: Some(g.preferred_locale.clone()),
        premium_progress_bar_enabled: Some(g.premium_progress_bar_enabled),
        community: Some(g.has_feature("COMMUNITY")),
        invites_disabled: Some(g.has_feature("INVITES_DISABLED")),
        raid_alerts_disabled: Some(g.has_feature("RAID_ALERTS_DISABLED")),
        icon: image_file(images, "icons", &g.id, &g.icon),
        banner: image_file(images, "banners", &g.id, &g.banner),
        splash: image_file(images, "splashes", &g.id, &g.splash),
        discovery_splash: image_file(images, "discovery-splashes", &g.id, &g.discovery_splash),
    };
    if g.unknown.is_empty() {
        return settings;
    }
    // What the guild did not say is left out (unmanaged), not written as its stand-in.
    let mut value = serde_json::to_value(&settings).unwrap_or_default();
    if let Some(fields) = value.as_object_mut() {
        for field in &g.unknown {
            fields.remove(field.setting);
        }
    }
    serde_json::from_value(value).unwrap_or(settings)
}

/// A permission set as the manifest writes it: names, then `bit_N` for bits without one.
pub(crate) fn permission_names(p: Permissions) -> Vec<PermissionName> {
    p.display_names().into_iter().map(PermissionName).collect()
}

/// A role's colours as the manifest writes them: `color` for a solid one, else `colors`.
fn role_colors(r: &models::Role) -> (Option<Color>, Option<RoleColors>) {
    match r.color_triple() {
        (p, None, None) => (Some(Color(p)), None),
        (p, Some(s), Some(t)) if [p, s, t] == HOLOGRAPHIC => {
            (None, Some(RoleColors::Style(ColorStyle::Holographic)))
        }
        // Discord makes any third colour the holographic style's: a gradient has two.
        (p, s, _) => (
            None,
            Some(RoleColors::Gradient(Gradient {
                primary: Color(p),
                secondary: Color(s.unwrap_or(p)),
            })),
        ),
    }
}

/// Roles held by at most this many members are exported with their roster
/// (`export --members`); a role held by more is a membership tier, not a staff list.
pub const ROSTER_EXPORT_MAX: usize = 25;

/// The roster of role `id` when its holders were listed and number 1 to
/// [`ROSTER_EXPORT_MAX`].
fn roster(snap: &Snapshot, id: &str) -> Option<Vec<RosterMember>> {
    let people = snap.people.as_ref()?;
    let holders = people.holders.as_ref()?.get(id)?;
    if holders.is_empty() || holders.len() > ROSTER_EXPORT_MAX {
        return None;
    }
    Some(
        holders
            .iter()
            .map(|u| RosterMember {
                id: Snowflake(u.clone()),
                name: people.usernames.get(u).cloned(),
                person: None,
            })
            .collect(),
    )
}

/// The ban list, when it was read (`export --bans`).
fn bans(snap: &Snapshot) -> Option<Vec<Ban>> {
    let people = snap.people.as_ref()?;
    let bans = people.bans.as_ref()?;
    Some(
        bans.iter()
            .map(|(u, reason)| Ban {
                id: Snowflake(u.clone()),
                name: people.usernames.get(u).cloned(),
                reason: reason.clone().filter(|r| !r.is_empty()),
            })
            .collect(),
    )
}

fn roles(snap: &Snapshot, images: &ExportedImages) -> Vec<Role> {
    snap.roles_by_rank()
        .into_iter()
        .map(|r| {
            if r.id == snap.guild.id {
                return Role {
                    name: "@everyone".into(),
                    permissions: Some(permission_names(r.permissions)),
                    ..Role::default()
                };
            }
            if r.managed {
                // Only its place in the list can be managed.
                return Role {
                    id: Some(Snowflake(r.id.clone())),
                    name: r.name.clone(),
                    ..Role::default()
                };
            }
            let (color, colors) = role_colors(r);
            Role {
                id: Some(Snowflake(r.id.clone())),
                name: r.name.clone(),
                previous_names: vec![],
                permissions: Some(permission_names(r.permissions)),
                color,
                colors,
                hoist: Some(r.hoist),
                mentionable: Some(r.mentionable),
                unicode_emoji: r.unicode_emoji.clone().map(Some),
                icon: image_file(images, "role-icons", &r.id, &r.icon),
                protect: false,
                members: roster(snap, &r.id),
            }
        })
        .collect()
}

/// Channels in Discord's display order: top-level ones, then each category with its
/// text-like channels above its voice-like ones.
fn channels(snap: &Snapshot) -> Vec<Channel> {
    let mut sorted: Vec<&LiveChannel> = snap.channels.iter().collect();
    sorted.sort_by(|a, b| {
        let voice = |c: &LiveChannel| matches!(c.kind, channel_type::VOICE | channel_type::STAGE);
        voice(a)
            .cmp(&voice(b))
            .then(a.position.cmp(&b.position))
            .then(snowflake_cmp(&a.id, &b.id))
    });
    let children = |parent: Option<&str>| -> Vec<&LiveChannel> {
        sorted
            .iter()
            .copied()
            .filter(|c| c.kind != channel_type::CATEGORY && c.parent_id.as_deref() == parent)
            .collect()
    };
    let mut out: Vec<Channel> = children(None)
        .into_iter()
        .map(|c| channel(snap, c, None))
        .collect();
    for cat in sorted.iter().filter(|c| c.kind == channel_type::CATEGORY) {
        let mut entry = channel(snap, cat, None);
        entry.channels = Some(
            children(Some(&cat.id))
                .into_iter()
                .map(|c| channel(snap, c, Some(cat)))
                .collect(),
        );
        out.push(entry);
    }
    out
}

fn channel(snap: &Snapshot, c: &LiveChannel, parent: Option<&LiveChannel>) -> Channel {
    let kind = ChannelType::from_value(c.kind.into());
    let k = c.kind;
    let text_like = matches!(
        k,
        channel_type::TEXT | channel_type::ANNOUNCEMENT | channel_type::FORUM | channel_type::MEDIA
    );
    let voice_like = matches!(k, channel_type::VOICE | channel_type::STAGE);
    let slowmode_types = text_like && k != channel_type::ANNOUNCEMENT || voice_like;
    let synced = parent.is_some_and(|p| p.overwrite_set() == c.overwrite_set());
    // Every entry, all-zero ones too: the manifest states the list as it is.
    let mut listed = c.permission_overwrites.clone();
    listed.sort();
    let overwrites: Vec<Overwrite> = listed.iter().map(|o| overwrite(snap, o)).collect();
    Channel {
        id: Some(Snowflake(c.id.clone())),
        name: c.name.clone(),
        kind: kind.filter(|t| *t != ChannelType::Text),
        previous_names: vec![],
        topic: text_like.then(|| c.topic.clone().filter(|t| !t.is_empty())),
        nsfw: (text_like || voice_like).then(|| c.nsfw.unwrap_or(false)),
        slowmode: slowmode_types.then(|| c.rate_limit_per_user.unwrap_or(0)),
        bitrate: if voice_like { c.bitrate } else { None },
        user_limit: voice_like.then(|| c.user_limit.unwrap_or(0)),
        rtc_region: voice_like.then(|| c.rtc_region.clone()),
        video_quality_mode: if voice_like {
            c.video_quality_mode.and_then(VideoQualityMode::from_value)
        } else {
            None
        },
        default_auto_archive_duration: if text_like {
            c.default_auto_archive_duration
        } else {
            None
        },
        default_thread_slowmode: if text_like {
            c.default_thread_rate_limit_per_user
        } else {
            None
        },
        // Stated even when empty (`[]`): an overwrite added by hand later is then drift,
        // with its author, instead of an unmanaged object nobody is told about.
        overwrites: (!synced).then_some(overwrites),
        sync_permissions: synced.then_some(true),
        channels: None,
        protect: false,
        ..flags_and_follows(snap, c, forum_settings(c))
    }
}

/// `base` with the channel's spoiler and media-download flags (written when set: a
/// manifest that leaves them out leaves them alone) and its follows (written when it has
/// any), as a manifest says them.
fn flags_and_follows(snap: &Snapshot, c: &LiveChannel, base: Channel) -> Channel {
    let set = |bit: u64| (c.flags & bit != 0).then_some(true);
    let follows: Vec<Follow> = snap
        .webhooks
        .iter()
        .flatten()
        .filter(|w| w.channel_id.as_deref() == Some(c.id.as_str()))
        .filter_map(|w| w.followed_channel())
        .map(|id| Follow {
            channel: Snowflake(id.to_owned()),
        })
        .collect();
    Channel {
        spoiler: set(models::IS_SPOILER_CHANNEL),
        hide_media_download_options: set(models::HIDE_MEDIA_DOWNLOAD_OPTIONS),
        follows: (!follows.is_empty()).then_some(follows),
        ..base
    }
}

/// The fields of a forum or media channel (none for other types). A sort order or layout
/// Discord reports as never set is left out (unmanaged): a manifest cannot ask for "not set".
fn forum_settings(c: &LiveChannel) -> Channel {
    if !matches!(c.kind, channel_type::FORUM | channel_type::MEDIA) {
        return Channel::default();
    }
    let tag = |t: &models::ForumTag| ForumTag {
        id: Some(Snowflake(t.id.clone())),
        name: t.name.clone(),
        previous_names: vec![],
        emoji: emoji(t.emoji_id.as_ref(), t.emoji_name.as_ref(), false),
        moderated: t.moderated,
    };
    Channel {
        tags: Some(c.available_tags.iter().flatten().map(tag).collect()),
        default_reaction: Some(
            c.default_reaction_emoji
                .as_ref()
                .and_then(|r| emoji(r.emoji_id.as_ref(), r.emoji_name.as_ref(), false)),
        ),
        sort_order: c
            .default_sort_order
            .and_then(|v| SortOrder::from_value(v.into())),
        layout: c
            .default_forum_layout
            .filter(|_| c.kind == channel_type::FORUM)
            .and_then(|v| ForumLayout::from_value(v.into())),
        require_tag: Some(c.flags & REQUIRE_TAG != 0),
        ..Channel::default()
    }
}

fn overwrite(snap: &Snapshot, o: &models::Overwrite) -> Overwrite {
    let (role, member) = if o.kind == OVERWRITE_MEMBER {
        (None, Some(Snowflake(o.id.clone())))
    } else if o.id == snap.guild.id {
        (Some("@everyone".to_owned()), None)
    } else {
        let name = snap.role(&o.id).map(|r| r.name.clone());
        (Some(name.unwrap_or_else(|| o.id.clone())), None)
    };
    Overwrite {
        role,
        member,
        allow: permission_names(o.allow),
        deny: permission_names(o.deny),
    }
}

fn emoji(id: Option<&String>, name: Option<&String>, animated: bool) -> Option<Emoji> {
    match (id, name) {
        (Some(id), name) => Some(Emoji::Custom(CustomEmoji {
            id: Snowflake(id.clone()),
            name: name.cloned(),
            animated,
        })),
        (None, Some(n)) => Some(Emoji::Unicode(n.clone())),
        (None, None) => None,
    }
}

fn welcome(snap: &Snapshot, w: &models::WelcomeScreen, names: &Names) -> WelcomeScreen {
    WelcomeScreen {
        enabled: Some(snap.guild.has_feature("WELCOME_SCREEN_ENABLED")),
        description: Some(w.description.clone()),
        channels: Some(
            w.welcome_channels
                .iter()
                .map(|c| WelcomeChannel {
                    channel: names.channel(&c.channel_id),
                    description: c.description.clone(),
                    emoji: emoji(c.emoji_id.as_ref(), c.emoji_name.as_ref(), false),
                })
                .collect(),
        ),
    }
}

fn onboarding(_snap: &Snapshot, o: &models::Onboarding, names: &Names) -> Onboarding {
    Onboarding {
        enabled: Some(o.enabled),
        mode: OnboardingMode::from_value(o.mode),
        default_channels: Some(
            o.default_channel_ids
                .iter()
                .map(|id| names.channel(id))
                .collect(),
        ),
        prompts: Some(
            o.prompts
                .iter()
                .map(|p| Prompt {
                    title: p.title.clone(),
                    kind: PromptType::from_value(p.kind)
                        .filter(|t| *t != PromptType::MultipleChoice),
                    single_select: p.single_select,
                    required: p.required,
                    in_onboarding: p.in_onboarding,
                    options: p
                        .options
                        .iter()
                        .map(|opt| PromptOption {
                            title: opt.title.clone(),
                            description: opt.description.clone().filter(|d| !d.is_empty()),
                            emoji: opt.emoji.as_ref().and_then(|e| {
                                emoji(e.id.as_ref(), e.name.as_ref(), e.animated.unwrap_or(false))
                            }),
                            roles: opt.role_ids.iter().filter_map(|r| names.role(r)).collect(),
                            channels: opt.channel_ids.iter().map(|c| names.channel(c)).collect(),
                        })
                        .collect(),
                })
                .collect(),
        ),
    }
}

fn webhooks(live: &[models::Webhook], names: &Names) -> Vec<Webhook> {
    live.iter()
        .filter(|w| w.kind == WEBHOOK_INCOMING)
        .filter_map(|w| {
            Some(Webhook {
                id: Some(Snowflake(w.id.clone())),
                name: w.name.clone().unwrap_or_default(),
                previous_names: vec![],
                channel: names.channel(w.channel_id.as_deref()?),
                // Discord gives no way to download the image back from an export.
                avatar: None,
                protect: false,
            })
        })
        .collect()
}

/// The comment above the settings, wherever a manifest is written (export, import).
pub(crate) const SETTINGS_NOTE: &str = "Guild settings; channels are referred to by name.";

/// YAML, one section at a time, with a comment above each.
fn render(snap: &Snapshot, m: &Manifest) -> Result<String, ExportError> {
    let mut out = String::new();
    let _ = writeln!(out, "{}", schema_modeline());
    let _ = writeln!(
        out,
        "# Exported by `guildctl export` from guild {} ({}).\n\
         # Ids are pinned so renames stay renames. Webhook tokens and avatars are not exported;\n\
         # the guild's and roles' images are files beside it when it is written with -o.\n\
         # `guildctl validate -f FILE` checks it; `guildctl schema` prints the schema for editors.\n",
        // A comment is one line: the name inert, or a line break in it would end the
        // comment and put the rest in the YAML (and in a CI log, a workflow command).
        inert::terminal(&snap.guild.name),
        inert::terminal(&snap.guild.id)
    );
    section(&mut out, None, "version", &m.version)?;
    section(&mut out, None, "guild", &m.guild)?;
    section(&mut out, Some(SETTINGS_NOTE), "settings", &m.settings)?;
    let managed: Vec<&str> = snap
        .guild
        .roles
        .iter()
        .filter(|r| r.managed)
        .map(|r| r.name.as_str())
        .collect();
    let roles_note = if managed.is_empty() {
        "Roles, highest first: list order is the hierarchy.".to_owned()
    } else {
        format!(
            "Roles, highest first: list order is the hierarchy.\n\
             Managed by an integration (only their place is managed): {}.",
            managed.join(", ")
        )
    };
    section(&mut out, Some(&roles_note), "roles", &m.roles)?;
    section(
        &mut out,
        Some(
            "Channels in display order; `sync_permissions: true` marks channels synced with their category.",
        ),
        "channels",
        &m.channels,
    )?;
    if m.welcome_screen.is_some() {
        section(
            &mut out,
            Some("The welcome screen of a community guild."),
            "welcome_screen",
            &m.welcome_screen,
        )?;
    }
    if m.onboarding.is_some() {
        section(
            &mut out,
            Some("Onboarding: default channels and questions."),
            "onboarding",
            &m.onboarding,
        )?;
    }
    section(&mut out, None, "widget", &m.widget)?;
    // Before the webhooks, which stay the last section most exports have (the README's
    // tour adds one at the end of the file).
    for unit in sections::ALL {
        unit.write(m, &mut out).map_err(ExportError)?;
    }
    if m.webhooks.is_some() {
        section(
            &mut out,
            Some("Incoming webhooks (channel-follower and application webhooks are not managed)."),
            "webhooks",
            &m.webhooks,
        )?;
    }
    if m.invites.is_some() {
        section(
            &mut out,
            Some(
                "Invites: the vanity URL code (set in Discord's server settings) and which invites may exist (one empty rule: any).",
            ),
            "invites",
            &m.invites,
        )?;
    }
    if m.bans.is_some() {
        section(
            &mut out,
            Some("Banned users, with the reasons they were banned for (`export --bans`)."),
            "bans",
            &m.bans,
        )?;
    }
    Ok(out)
}

/// The first line of every manifest guildctl writes, where yaml-language-server looks for
/// it: editors validate and complete the file against the schema at the schema's own `$id`
/// (docs/editor.md).
pub(crate) fn schema_modeline() -> String {
    format!("# yaml-language-server: $schema={SCHEMA_ID}")
}

/// Writes `key: value` as YAML, with a comment above it (each line of `comment` becomes a
/// `# ` line; the caller keeps outside text in it to one line each).
pub(crate) fn section<T: Serialize>(
    out: &mut String,
    comment: Option<&str>,
    key: &str,
    value: &T,
) -> Result<(), ExportError> {
    sections::write_section(out, comment, key, value).map_err(ExportError)
}
