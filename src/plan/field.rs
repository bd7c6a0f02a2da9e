//! What a change touches, as a type: each kind of object has its own field enum, and each
//! field knows its name in the manifest (and the plan) and the API field it is sent as.
//! Drift, risk, report and access match on these values, never on a field's name, so a
//! field exists in one place: the tables below.
//!
//! In a saved plan a field is its manifest name with its API field beside it (`"field":
//! "slowmode", "api": "rate_limit_per_user"`); reading one back needs the object's kind,
//! so a [`Change`](super::Change) is read whole (`change::WireChange`), and a field its kind does not have, or an
//! API field that is not the field's, makes the file no plan.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::kind::Kind;

/// Declares one kind's field enum with its table: `Variant = "manifest name" => api`, where
/// `api` is the field's name in request bodies, or `None` for what a change only shows (the
/// facts of an object deleted, what a roster entry grants).
macro_rules! fields {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $field:literal => $api:expr),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $(#[doc = concat!("The manifest's `", $field, "`.")] $(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every field of the kind.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// Its name in the manifest and the plan.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $field),+
                }
            }

            /// The API field it is sent as, if a call sends it.
            pub fn api(self) -> Option<&'static str> {
                match self {
                    $($name::$variant => $api),+
                }
            }

            fn parse(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|f| f.name() == name)
            }
        }

        impl From<$name> for Field {
            fn from(f: $name) -> Field {
                Field::$name(f)
            }
        }
    };
}

fields! {
    /// The guild's settings (Modify Guild).
    Guild {
        Name = "name" => Some("name"),
        Description = "description" => Some("description"),
        VerificationLevel = "verification_level" => Some("verification_level"),
        DefaultMessageNotifications = "default_message_notifications" => Some("default_message_notifications"),
        ExplicitContentFilter = "explicit_content_filter" => Some("explicit_content_filter"),
        AfkTimeout = "afk_timeout" => Some("afk_timeout"),
        AfkChannel = "afk_channel" => Some("afk_channel_id"),
        SystemChannel = "system_channel" => Some("system_channel_id"),
        RulesChannel = "rules_channel" => Some("rules_channel_id"),
        PublicUpdatesChannel = "public_updates_channel" => Some("public_updates_channel_id"),
        SafetyAlertsChannel = "safety_alerts_channel" => Some("safety_alerts_channel_id"),
        SystemChannelFlags = "system_channel_flags" => Some("system_channel_flags"),
        PreferredLocale = "preferred_locale" => Some("preferred_locale"),
        PremiumProgressBarEnabled = "premium_progress_bar_enabled" => Some("premium_progress_bar_enabled"),
        Icon = "icon" => Some("icon"),
        Banner = "banner" => Some("banner"),
        Splash = "splash" => Some("splash"),
        DiscoverySplash = "discovery_splash" => Some("discovery_splash"),
        /// The COMMUNITY feature: the guild's whole feature list is sent.
        Community = "community" => Some("features"),
        InvitesDisabled = "invites_disabled" => Some("features"),
        RaidAlertsDisabled = "raid_alerts_disabled" => Some("features"),
    }
}

fields! {
    /// A role's fields.
    Role {
        Name = "name" => Some("name"),
        Permissions = "permissions" => Some("permissions"),
        /// A solid colour before and after: shown as `color`, sent as `colors` (Discord
        /// deprecated `color`).
        Color = "color" => Some("colors"),
        Colors = "colors" => Some("colors"),
        Hoist = "hoist" => Some("hoist"),
        Mentionable = "mentionable" => Some("mentionable"),
        UnicodeEmoji = "unicode_emoji" => Some("unicode_emoji"),
        Icon = "icon" => Some("icon"),
    }
}

fields! {
    /// The fields of a channel or a category.
    Channel {
        Name = "name" => Some("name"),
        Type = "type" => Some("type"),
        Topic = "topic" => Some("topic"),
        Nsfw = "nsfw" => Some("nsfw"),
        Slowmode = "slowmode" => Some("rate_limit_per_user"),
        Bitrate = "bitrate" => Some("bitrate"),
        UserLimit = "user_limit" => Some("user_limit"),
        DefaultAutoArchiveDuration = "default_auto_archive_duration" => Some("default_auto_archive_duration"),
        DefaultThreadSlowmode = "default_thread_slowmode" => Some("default_thread_rate_limit_per_user"),
        RtcRegion = "rtc_region" => Some("rtc_region"),
        VideoQualityMode = "video_quality_mode" => Some("video_quality_mode"),
        Tags = "tags" => Some("available_tags"),
        DefaultReaction = "default_reaction" => Some("default_reaction_emoji"),
        SortOrder = "sort_order" => Some("default_sort_order"),
        Layout = "layout" => Some("default_forum_layout"),
        /// The REQUIRE_TAG channel flag.
        RequireTag = "require_tag" => Some("flags"),
        /// The IS_SPOILER_CHANNEL channel flag.
        Spoiler = "spoiler" => Some("flags"),
        /// The HIDE_MEDIA_DOWNLOAD_OPTIONS channel flag.
        HideMediaDownloadOptions = "hide_media_download_options" => Some("flags"),
        Overwrites = "overwrites" => Some("permission_overwrites"),
        /// Overwrites Discord copies from the category (no call of the change's own).
        SyncedOverwrites = "overwrites (synced from its category)" => Some("permission_overwrites"),
        /// Overwrites sent again as they are: the category's new ones, which Discord copies
        /// to the channels synced with it, would replace them otherwise.
        KeptOverwrites = "overwrites (kept, not synced with its category's change)" => Some("permission_overwrites"),
        /// The category it is in (sent by the channel positions call).
        Category = "category" => Some("parent_id"),
    }
}

fields! {
    /// A webhook's fields.
    Webhook {
        Name = "name" => Some("name"),
        Channel = "channel" => Some("channel_id"),
        Avatar = "avatar" => Some("avatar"),
        /// A channel follower's channel: the one the followed announcement channel posts
        /// into (sent to Follow Announcement Channel).
        Follows = "follows" => Some("webhook_channel_id"),
    }
}

fields! {
    /// The welcome screen's fields.
    WelcomeScreen {
        Enabled = "enabled" => Some("enabled"),
        Description = "description" => Some("description"),
        Channels = "channels" => Some("welcome_channels"),
    }
}

fields! {
    /// Onboarding's fields.
    Onboarding {
        Enabled = "enabled" => Some("enabled"),
        Mode = "mode" => Some("mode"),
        DefaultChannels = "default_channels" => Some("default_channel_ids"),
        Prompts = "prompts" => Some("prompts"),
    }
}

fields! {
    /// The widget's fields.
    Widget {
        Enabled = "enabled" => Some("enabled"),
        Channel = "channel" => Some("channel_id"),
    }
}

fields! {
    /// What Discord removes with an integration (shown on its deletion).
    Integration {
        Application = "application" => None,
        Bot = "bot" => None,
        BotRole = "bot role" => None,
        Webhooks = "webhooks" => None,
    }
}

fields! {
    /// A deleted invite's facts.
    Invite {
        Rejected = "rejected" => None,
        Channel = "channel" => None,
        Inviter = "inviter" => None,
        Uses = "uses" => None,
        Expires = "expires" => None,
    }
}

fields! {
    /// What a member given a roster role gains.
    RosterEntry {
        Grants = "grants" => None,
    }
}

fields! {
    /// A ban's reason: the ban call's audit-log reason, which Discord keeps as the ban's.
    Ban {
        Reason = "reason" => None,
    }
}

fields! {
    /// A custom emoji's fields. Its image is sent only when it is created (Modify Guild Emoji
    /// takes `name` and `roles`).
    Emoji {
        Name = "name" => Some("name"),
        Image = "image" => Some("image"),
        Roles = "roles" => Some("roles"),
    }
}

fields! {
    /// A soundboard sound's fields. Its file is sent only when it is created (Modify Guild
    /// Soundboard Sound takes `name`, `volume` and the emoji); the emoji is sent as
    /// `emoji_name` (a standard one) or `emoji_id` (a custom one), both in the body.
    Sound {
        Name = "name" => Some("name"),
        Sound = "sound" => Some("sound"),
        Volume = "volume" => Some("volume"),
        Emoji = "emoji" => Some("emoji_name"),
    }
}

/// Which list a reorder changes: the roles, or the channels of one group (the categories,
/// the channels outside categories, the channels in one category).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Order {
    /// The roles.
    Roles,
    /// The categories.
    Categories,
    /// The channels outside categories.
    Uncategorised,
    /// The channels in the category of this name.
    In(String),
}

impl Order {
    const IN: &'static str = "channels in ";

    fn name(&self) -> Cow<'_, str> {
        match self {
            Order::Roles => "order".into(),
            Order::Categories => "categories".into(),
            Order::Uncategorised => "channels outside categories".into(),
            Order::In(category) => format!("{}{category}", Order::IN).into(),
        }
    }
}

fields! {
    /// An AutoMod rule's fields.
    AutoModRule {
        Name = "name" => Some("name"),
        Trigger = "trigger" => Some("trigger_metadata"),
        Actions = "actions" => Some("actions"),
        ExemptRoles = "exempt_roles" => Some("exempt_roles"),
        ExemptChannels = "exempt_channels" => Some("exempt_channels"),
        Enabled = "enabled" => Some("enabled"),
    }
}

fields! {
    /// A scheduled event's fields.
    ScheduledEvent {
        Name = "name" => Some("name"),
        /// Its channel or location (the entity type and metadata go with it).
        Place = "place" => Some("channel_id"),
        Start = "start" => Some("scheduled_start_time"),
        End = "end" => Some("scheduled_end_time"),
        Description = "description" => Some("description"),
        Image = "image" => Some("image"),
        Recurrence = "recurrence" => Some("recurrence_rule"),
    }
}

fields! {
    /// A guild sticker's fields. Its file is sent only when it is created (Create Guild
    /// Sticker's `file` part; Modify Guild Sticker takes `name`, `description` and `tags`).
    Sticker {
        Name = "name" => Some("name"),
        Image = "image" => Some("file"),
        Tags = "tags" => Some("tags"),
        Description = "description" => Some("description"),
    }
}

/// What one field change touches: a field of the object's kind, or the order of a list.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Field {
    /// A field of a guild.
    Guild(Guild),
    /// A field of a role.
    Role(Role),
    /// A field of a channel.
    Channel(Channel),
    /// A field of a webhook.
    Webhook(Webhook),
    /// A field of a welcome screen.
    WelcomeScreen(WelcomeScreen),
    /// A field of a onboarding.
    Onboarding(Onboarding),
    /// A field of a widget.
    Widget(Widget),
    /// A field of a integration.
    Integration(Integration),
    /// A field of a invite.
    Invite(Invite),
    /// A field of a roster entry.
    RosterEntry(RosterEntry),
    /// A field of a ban.
    Ban(Ban),
    /// A field of a emoji.
    Emoji(Emoji),
    /// A field of a sound.
    Sound(Sound),
    /// A field of a AutoMod rule.
    AutoModRule(AutoModRule),
    /// A field of a scheduled event.
    ScheduledEvent(ScheduledEvent),
    /// A field of a sticker.
    Sticker(Sticker),
    /// The order of a list.
    Order(Order),
}

impl Field {
    /// Its name in the manifest and the plan.
    pub fn name(&self) -> Cow<'_, str> {
        match self {
            Field::Guild(f) => f.name().into(),
            Field::Role(f) => f.name().into(),
            Field::Channel(f) => f.name().into(),
            Field::Webhook(f) => f.name().into(),
            Field::WelcomeScreen(f) => f.name().into(),
            Field::Onboarding(f) => f.name().into(),
            Field::Widget(f) => f.name().into(),
            Field::Integration(f) => f.name().into(),
            Field::Invite(f) => f.name().into(),
            Field::RosterEntry(f) => f.name().into(),
            Field::Ban(f) => f.name().into(),
            Field::Emoji(f) => f.name().into(),
            Field::Sound(f) => f.name().into(),
            Field::AutoModRule(f) => f.name().into(),
            Field::ScheduledEvent(f) => f.name().into(),
            Field::Sticker(f) => f.name().into(),
            Field::Order(o) => o.name(),
        }
    }

    /// The API field it is sent as; `None` for what a change only shows.
    pub fn api(&self) -> Option<&'static str> {
        match self {
            Field::Guild(f) => f.api(),
            Field::Role(f) => f.api(),
            Field::Channel(f) => f.api(),
            Field::Webhook(f) => f.api(),
            Field::WelcomeScreen(f) => f.api(),
            Field::Onboarding(f) => f.api(),
            Field::Widget(f) => f.api(),
            Field::Integration(f) => f.api(),
            Field::Invite(f) => f.api(),
            Field::RosterEntry(f) => f.api(),
            Field::Ban(f) => f.api(),
            Field::Emoji(f) => f.api(),
            Field::Sound(f) => f.api(),
            Field::AutoModRule(f) => f.api(),
            Field::ScheduledEvent(f) => f.api(),
            Field::Sticker(f) => f.api(),
            Field::Order(_) => Some("position"),
        }
    }

    /// The field named `name` on an object of `kind`, as a saved plan writes it.
    pub fn parse(kind: Kind, name: &str) -> Option<Field> {
        let order = || match name {
            "categories" => Some(Order::Categories),
            "channels outside categories" => Some(Order::Uncategorised),
            _ => name
                .strip_prefix(Order::IN)
                .map(|category| Order::In(category.to_owned())),
        };
        match kind {
            Kind::Guild => Guild::parse(name).map(Field::Guild),
            Kind::Role if name == "order" => Some(Field::Order(Order::Roles)),
            Kind::Role => Role::parse(name).map(Field::Role),
            Kind::Category | Kind::Channel | Kind::Overwrites => Channel::parse(name)
                .map(Field::Channel)
                .or_else(|| order().map(Field::Order)),
            Kind::Webhook => Webhook::parse(name).map(Field::Webhook),
            Kind::WelcomeScreen => WelcomeScreen::parse(name).map(Field::WelcomeScreen),
            Kind::Onboarding => Onboarding::parse(name).map(Field::Onboarding),
            Kind::Widget => Widget::parse(name).map(Field::Widget),
            Kind::Integration => Integration::parse(name).map(Field::Integration),
            Kind::Invite => Invite::parse(name).map(Field::Invite),
            Kind::RosterEntry => RosterEntry::parse(name).map(Field::RosterEntry),
            Kind::Ban => Ban::parse(name).map(Field::Ban),
            Kind::Emoji => Emoji::parse(name).map(Field::Emoji),
            Kind::Sound => Sound::parse(name).map(Field::Sound),
            Kind::AutoModRule => AutoModRule::parse(name).map(Field::AutoModRule),
            Kind::ScheduledEvent => ScheduledEvent::parse(name).map(Field::ScheduledEvent),
            Kind::Sticker => Sticker::parse(name).map(Field::Sticker),
            // A policy is the repository's: no change of a plan has its fields.
            Kind::Policy => None,
        }
    }

    /// Whether it is the object's name (a create's heading already says it).
    pub fn is_name(&self) -> bool {
        matches!(
            self,
            Field::Guild(Guild::Name)
                | Field::Role(Role::Name)
                | Field::Channel(Channel::Name)
                | Field::Webhook(Webhook::Name)
                | Field::Emoji(Emoji::Name)
                | Field::Sound(Sound::Name)
                | Field::AutoModRule(AutoModRule::Name)
                | Field::ScheduledEvent(ScheduledEvent::Name)
                | Field::Sticker(Sticker::Name)
        )
    }

    /// Whether its value is a list whose order means nothing (shown as what is added and
    /// removed).
    pub fn is_set(&self) -> bool {
        matches!(
            self,
            Field::Role(Role::Permissions)
                | Field::Guild(Guild::SystemChannelFlags)
                | Field::Onboarding(Onboarding::DefaultChannels)
                | Field::Emoji(Emoji::Roles)
        )
    }

    /// Whether it is a channel's overwrites (sent by its own call or copied by Discord from
    /// the category).
    pub fn is_overwrites(&self) -> bool {
        matches!(
            self,
            Field::Channel(
                Channel::Overwrites | Channel::SyncedOverwrites | Channel::KeptOverwrites
            )
        )
    }
}

/// One field's value before and after the change, in manifest terms (names, not ids or bits).
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    /// The field changed.
    pub field: Field,
    /// Its value before the plan (`null`: none).
    pub before: Value,
    /// Its value once the plan is applied (`null`: none).
    pub after: Value,
}

impl FieldChange {
    /// The change of `field` from `before` to `after`.
    pub fn new(field: impl Into<Field>, before: Value, after: Value) -> FieldChange {
        FieldChange {
            field: field.into(),
            before,
            after,
        }
    }
}

impl Serialize for FieldChange {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        WireField {
            field: self.field.name().into_owned(),
            api: self.field.api().map(str::to_owned),
            before: self.before.clone(),
            after: self.after.clone(),
        }
        .serialize(s)
    }
}

/// A field change as a saved plan writes it.
/// A field change as a saved plan writes it: the field by its manifest name, its API field beside it.
#[derive(Serialize, Deserialize)]
pub(super) struct WireField {
    pub(super) field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) api: Option<String>,
    pub(super) before: Value,
    pub(super) after: Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field reads back as itself from its name, for every kind that has it: a saved
    /// plan means what the plan that wrote it meant.
    #[test]
    fn every_field_reads_back_from_its_name() {
        // Every kind's field table, by a match that names every kind: a new kind does not
        // compile here until its fields are read back too.
        fn fields_of(kind: Kind) -> Vec<Field> {
            fn all<F: Copy + Into<Field>>(fields: &[F]) -> Vec<Field> {
                fields.iter().map(|&f| f.into()).collect()
            }
            match kind {
                Kind::Guild => all(Guild::ALL),
                Kind::Role => all(Role::ALL),
                Kind::Category | Kind::Channel | Kind::Overwrites => all(Channel::ALL),
                Kind::Webhook => all(Webhook::ALL),
                Kind::WelcomeScreen => all(WelcomeScreen::ALL),
                Kind::Onboarding => all(Onboarding::ALL),
                Kind::Widget => all(Widget::ALL),
                Kind::Integration => all(Integration::ALL),
                Kind::Invite => all(Invite::ALL),
                Kind::RosterEntry => all(RosterEntry::ALL),
                Kind::Ban => all(Ban::ALL),
                Kind::Emoji => all(Emoji::ALL),
                Kind::Sound => all(Sound::ALL),
                Kind::AutoModRule => all(AutoModRule::ALL),
                Kind::ScheduledEvent => all(ScheduledEvent::ALL),
                Kind::Sticker => all(Sticker::ALL),
                // A policy is the repository's: no change of a plan has its fields.
                Kind::Policy => Vec::new(),
            }
        }
        let kinds = Kind::ALL.map(|kind| (kind, fields_of(kind)));
        for (kind, fields) in kinds {
            for f in fields {
                assert_eq!(Field::parse(kind, &f.name()), Some(f.clone()), "{kind:?}");
            }
        }
        let orders = [
            (Kind::Role, Order::Roles),
            (Kind::Channel, Order::Categories),
            (Kind::Channel, Order::Uncategorised),
            (Kind::Channel, Order::In("Staff / team".into())),
        ];
        for (kind, o) in orders {
            let f = Field::Order(o);
            assert_eq!(Field::parse(kind, &f.name()), Some(f.clone()));
            assert_eq!(f.api(), Some("position"));
        }
        assert_eq!(Field::parse(Kind::Role, "slowmode"), None);
    }
}
