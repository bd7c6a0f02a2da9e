//! `channels:`: categories and channels, their types and type-specific fields, forum tags,
//! and permission overwrites.

use super::*;

named_enum!(
    /// Channel type.
    ChannelType {
        /// A text channel (type 0).
        Text = 0 => "text",
        /// A voice channel (type 2).
        Voice = 2 => "voice",
        /// A category that holds other channels (type 4).
        Category = 4 => "category",
        /// An announcement channel (type 5), available in community guilds.
        Announcement = 5 => "announcement",
        /// A stage channel (type 13).
        Stage = 13 => "stage",
        /// A forum channel (type 15).
        Forum = 15 => "forum",
        /// A media channel (type 16).
        Media = 16 => "media",
    }
);

named_enum!(
    /// Camera video quality in voice and stage channels.
    VideoQualityMode {
        /// Discord picks the quality for each member (the default).
        Auto = 1 => "auto",
        /// 720p for everyone.
        Full = 2 => "full",
    }
);

named_enum!(
    /// How a forum or media channel sorts its posts for members who have not chosen.
    SortOrder {
        /// Posts with the most recent activity first.
        LatestActivity = 0 => "latest_activity",
        /// The newest posts first.
        CreationDate = 1 => "creation_date",
    }
);

named_enum!(
    /// How a forum channel shows its posts for members who have not chosen. (Discord reports
    /// a forum that never had one set as "not set", 0, which a manifest cannot ask for.)
    ForumLayout {
        /// One post per row.
        List = 1 => "list",
        /// A collection of tiles.
        Gallery = 2 => "gallery",
    }
);

impl ChannelType {
    /// Text-like channels are sorted together above voice-like ones in each parent,
    /// and Discord normalises their names.
    pub fn is_text_like(self) -> bool {
        matches!(
            self,
            ChannelType::Text | ChannelType::Announcement | ChannelType::Forum | ChannelType::Media
        )
    }
    /// A voice or a stage channel.
    pub fn is_voice_like(self) -> bool {
        matches!(self, ChannelType::Voice | ChannelType::Stage)
    }
    /// Forum and media channels hold posts, with tags (docs/discord.md §9.5).
    pub fn is_forum_like(self) -> bool {
        matches!(self, ChannelType::Forum | ChannelType::Media)
    }
}

/// A channel or a category. Categories hold their channels in `channels`.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Channel {
    /// Pin this entry to a channel id. Matching is by id, then name within its parent and
    /// type group, then `previous_names`, then a unique name anywhere (a move).
    pub id: Option<Snowflake>,
    /// Channel name, 1-100 characters. Discord lowercases text-like channel names and turns
    /// spaces into dashes; write them that way to avoid a warning.
    #[schemars(extend("examples" = ["general", "Voice Lounge"]))]
    pub name: String,
    /// Channel type: text (when left out), voice, category, announcement (community guilds),
    /// stage, forum or media. A channel's type is not changed by apply.
    #[serde(rename = "type")]
    pub kind: Option<ChannelType>,
    /// Names this channel had before: renamed in place (messages are kept), never recreated.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// Topic (text, announcement: at most 1024 characters; forum, media: 4096).
    #[serde(default, deserialize_with = "double_option")]
    #[schemars(extend("examples" = ["Read the rules before posting"]))]
    pub topic: Option<Option<String>>,
    /// Age-restricted: Discord asks members to confirm they are adults before showing it
    /// (text, voice, announcement, stage, forum, media).
    pub nsfw: Option<bool>,
    /// Slowmode: seconds a member waits between messages, 0-21600 (text, voice, stage, forum, media).
    #[schemars(extend("examples" = [0, 5, 60]))]
    pub slowmode: Option<u32>,
    /// Voice and stage bitrate in bits per second: 8000 up to 96000 (128000 at boost tier 1,
    /// 256000 at tier 2, 384000 at tier 3); stage channels up to 64000.
    pub bitrate: Option<u32>,
    /// Voice: at most this many members (0-99, 0 = no limit); stage: up to 10000.
    pub user_limit: Option<u32>,
    /// Voice region id for voice and stage channels (for example `rotterdam`, `us-east`);
    /// `null` = automatic.
    #[serde(default, deserialize_with = "double_option")]
    pub rtc_region: Option<Option<String>>,
    /// Camera video quality in voice and stage channels.
    pub video_quality_mode: Option<VideoQualityMode>,
    /// Minutes after which new threads archive: 60, 1440, 4320 or 10080.
    #[schemars(extend("enum" = [60, 1440, 4320, 10080]))]
    pub default_auto_archive_duration: Option<u32>,
    /// Slowmode copied to new threads (and to new posts of a forum or media channel),
    /// 0-21600 seconds (text, announcement, forum, media).
    pub default_thread_slowmode: Option<u32>,
    /// Forum and media channels: the tags a post can carry, in the order Discord shows them
    /// (at most 20, names unique). Authoritative when present: a live tag not listed is
    /// deleted, and posts lose it. Tags are matched to live ones by a pinned `id`, then by
    /// name, then by `previous_names`; a matched tag keeps its id, so posts that carry it
    /// keep it.
    pub tags: Option<Vec<ForumTag>>,
    /// Forum and media channels: the emoji on the reaction button of every post (a standard
    /// emoji as the character, or a custom emoji of the guild by `id`); `null` for none.
    #[serde(default, deserialize_with = "double_option")]
    pub default_reaction: Option<Option<Emoji>>,
    /// Forum and media channels: how posts are sorted for members who have not chosen:
    /// `latest_activity` or `creation_date`.
    pub sort_order: Option<SortOrder>,
    /// Forum channels only (not media): how posts are shown for members who have not chosen:
    /// `list` or `gallery`.
    pub layout: Option<ForumLayout>,
    /// Forum and media channels: a new post must carry at least one of `tags` (Discord's
    /// REQUIRE_TAG channel flag). Needs at least one tag.
    pub require_tag: Option<bool>,
    /// Text, voice, announcement, forum and media channels: members must click to see what
    /// is posted, as a spoiler (Discord's IS_SPOILER_CHANNEL channel flag). Not with `nsfw`.
    /// Left out, the flag is left as it is.
    pub spoiler: Option<bool>,
    /// Media channels: hide the options to download the media of posts (Discord's
    /// HIDE_MEDIA_DOWNLOAD_OPTIONS channel flag). Left out, the flag is left as it is.
    pub hide_media_download_options: Option<bool>,
    /// Text and announcement channels: announcement channels of other guilds followed into
    /// this one (Discord's Follow Announcement Channel; each follow is a "Channel Follower"
    /// webhook of this channel). Authoritative when present: a follow not listed is
    /// removed (its webhook deleted); left out, the channel's follows are left as they are.
    pub follows: Option<Vec<Follow>>,
    /// Permission overwrites. When present the list is authoritative for this channel:
    /// overwrites not listed are removed. Mutually exclusive with `sync_permissions`.
    pub overwrites: Option<Vec<Overwrite>>,
    /// Keep this channel's overwrites equal to its category's (Discord's "synced" state).
    pub sync_permissions: Option<bool>,
    /// Channels inside this category (only for `type: category`). List order is channel order.
    pub channels: Option<Vec<Channel>>,
    /// Never delete this channel (its messages would be lost), whatever `prune` says: nor any
    /// other live channel this entry names (by `id`, `name` or `previous_names`), such as a
    /// second channel of the same name. A category's protection does not extend to its channels.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub protect: bool,
}

impl Channel {
    /// The channel's type: `type:`, text when not given.
    pub fn channel_type(&self) -> ChannelType {
        self.kind.unwrap_or(ChannelType::Text)
    }
}

/// A tag of a forum or media channel. Every field is sent whenever the channel's tags change,
/// so a field left out takes its default.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ForumTag {
    /// Pin this entry to a live tag of the channel by its id (`export` writes it). Matching is
    /// by id, then name, then `previous_names`; a pinned tag the channel no longer has is
    /// matched by name instead.
    pub id: Option<Snowflake>,
    /// The tag's name, 1-20 characters, unique among the channel's tags. Tags are matched to
    /// live ones by name (after a pinned `id`).
    #[schemars(extend("examples" = ["bug", "question", "solved"]))]
    pub name: String,
    /// Names this tag had before: a live tag found under one of them is renamed in place and
    /// keeps its id, so the posts that carry it keep it. Without them a renamed tag is a new
    /// tag, and the old one is deleted (from its posts too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub previous_names: Vec<String>,
    /// An emoji shown with the tag: a standard one as the character (`"🐛"`), or a custom one
    /// of the guild by `id` (Discord keeps only the id of a custom tag emoji).
    pub emoji: Option<Emoji>,
    /// Only members with `manage_threads` may put this tag on a post (default false).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moderated: bool,
}

/// An announcement channel of another guild whose posts Discord copies into this channel.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Follow {
    /// The id of the followed announcement channel (Discord's "Copy Channel ID"); the bot
    /// must be able to view it.
    #[schemars(extend("examples" = ["273541522815713281"]))]
    pub channel: Snowflake,
}

/// A permission overwrite for one role or one member.
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Overwrite {
    /// The role this overwrite is for, by name or id (`@everyone` for the default role); one
    /// overwrite per role.
    pub role: Option<String>,
    /// The member this overwrite is for, by user id.
    pub member: Option<Snowflake>,
    /// Permissions granted in this channel, by snake_case name. A permission in neither list
    /// is inherited from the member's roles.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub allow: Vec<PermissionName>,
    /// Permissions taken away in this channel, by snake_case name. A permission cannot be in
    /// both `allow` and `deny`.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "flow"
    )]
    pub deny: Vec<PermissionName>,
}
