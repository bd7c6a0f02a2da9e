//! The live guild, read in a constant number of calls whatever its size; rosters and bans
//! ([`people`]) only when the manifest declares them.

pub mod automod;
mod canonical;
pub mod events;
pub mod people;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use hashbrown::HashMap;
use serde::{Deserialize, Serialize};

use crate::discord::cdn::{LiveImage, digest};
use crate::discord::models::{
    Channel, Guild, Member, Onboarding, Role, User, Webhook, WelcomeScreen,
};
use crate::discord::{Client, ClientError};
use crate::permissions::Permissions;

pub mod doors;
pub use doors::{Doors, Wants};

pub mod expressions;
pub use expressions::{Expressions, List as ExpressionList};

pub mod follows;

mod held;
mod listed;
pub use listed::Listed;

pub mod matching;

pub mod ids;
mod read;
pub use read::{Holders, ReadError, Reading, people_query, read};

/// Everything guildctl knows about a guild at one moment.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Snapshot {
    /// The guild object; it carries the roles.
    pub guild: Guild,
    /// Every channel, each with its permission overwrites.
    pub channels: Vec<Channel>,
    /// The bot user guildctl acts as.
    pub bot: User,
    /// The bot's membership, for its roles.
    pub bot_member: Member,
    /// `None` where Discord would not show it to the bot (403) or it does not exist (404).
    pub welcome_screen: Option<WelcomeScreen>,
    pub onboarding: Option<Onboarding>,
    /// Every webhook of the guild, without tokens.
    pub webhooks: Option<Vec<Webhook>>,
    /// The SHA-256 of each live image (guild icon, banner, splashes, role icons) by its CDN
    /// path ([`LiveImage::path`]); an image the CDN would not give is missing.
    #[serde(default)]
    pub images: BTreeMap<String, String>,
    /// Integrations, invites and voice regions, when the manifest asks about them
    /// ([`Snapshot::read_doors`]); not part of the fingerprint, since an invite's uses
    /// change whenever someone joins.
    #[serde(default)]
    pub doors: Doors,
    /// Roster holders and bans, read only for a manifest that declares them, and the users
    /// member overwrites name ([`Snapshot::read_people`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub people: Option<people::People>,
    /// Custom emoji, read only for a manifest that declares them
    /// ([`Snapshot::read_sections`]).
    #[serde(default, skip_serializing_if = "Expressions::is_empty")]
    pub expressions: Expressions,
    /// AutoMod rules, read only for a manifest that declares them ([`Snapshot::read_sections`]);
    /// `None` too where the bot may not read them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub automod: Option<Vec<automod::AutoModRule>>,
    /// Scheduled events, read only for a manifest that declares them
    /// ([`Snapshot::read_sections`]); `None` too where Discord refused the listing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub events: Option<Vec<events::ScheduledEvent>>,
    /// The announcement channels the manifest's `follows` name that the guild does not
    /// follow yet, by id ([`follows`]); read only for those.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub follow_sources: BTreeMap<String, follows::FollowSource>,
    /// Roles and channels by id, built on the first lookup: planning looks objects up by id
    /// thousands of times in a large guild. A snapshot is not changed once read.
    #[serde(skip)]
    index: OnceLock<Index>,
}

/// Positions in [`Snapshot::guild`]'s roles and in [`Snapshot::channels`] by id (the first,
/// should an id repeat).
#[derive(Debug, Clone, Default)]
struct Index {
    roles: HashMap<String, usize>,
    channels: HashMap<String, usize>,
}

/// The SHA-256 of each image, read from the CDN one after another (a guild has a few); one
/// that cannot be read is left out (the plan then replaces it, since it cannot tell it is the
/// declared file).
async fn read_images(client: &Client, images: &[LiveImage<'_>]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for i in images {
        if let Ok(bytes) = client.cdn_image(i).await {
            out.insert(i.path(), digest(&bytes));
        }
    }
    out
}

/// The guild, with the settings fields a Discord-compatible server left out marked unknown
/// ([`Guild::decode`]).
async fn read_guild(client: &Client, path: &str) -> Result<Guild, ClientError> {
    client.get_or(path, Guild::decode).await
}

impl Snapshot {
    /// Reads the guild in seven GET calls whatever its size: the bot user, then at
    /// once its membership, the guild (with roles), the channels (with overwrites),
    /// the welcome screen, onboarding and the webhooks. The widget settings come
    /// with the guild.
    pub async fn fetch(client: &Client, guild_id: &str) -> Result<Snapshot, ClientError> {
        let bot: User = client.get("/users/@me").await?;
        let guild_path = format!("/guilds/{guild_id}");
        let channels_path = format!("{guild_path}/channels");
        let member_path = format!("{guild_path}/members/{}", bot.id);
        let welcome_path = format!("{guild_path}/welcome-screen");
        let onboarding_path = format!("{guild_path}/onboarding");
        let webhooks_path = format!("{guild_path}/webhooks");
        let (guild, channels, bot_member, welcome_screen, onboarding, webhooks) = tokio::try_join!(
            read_guild(client, &guild_path),
            client.get::<Vec<Channel>>(&channels_path),
            client.get::<Member>(&member_path),
            optional(client.get::<WelcomeScreen>(&welcome_path)),
            optional(client.get::<Onboarding>(&onboarding_path)),
            optional(client.get::<Vec<Webhook>>(&webhooks_path)),
        )?;
        let snap = Snapshot {
            guild,
            channels,
            bot,
            bot_member,
            welcome_screen,
            onboarding,
            webhooks,
            images: BTreeMap::new(),
            doors: Doors::default(),
            people: None,
            expressions: Expressions::default(),
            automod: None,
            events: None,
            follow_sources: BTreeMap::new(),
            index: OnceLock::new(),
        };
        snap.check_whole(guild_id)?;
        let mut snap = snap;
        snap.images = read_images(client, &snap.live_images()).await;
        Ok(snap)
    }

    /// The guild's images and its roles' icons that are set.
    pub fn live_images(&self) -> Vec<LiveImage<'_>> {
        let g = &self.guild;
        let mut out: Vec<LiveImage<'_>> = [
            ("icons", &g.icon),
            ("banners", &g.banner),
            ("splashes", &g.splash),
            ("discovery-splashes", &g.discovery_splash),
        ]
        .into_iter()
        .filter_map(|(kind, hash)| {
            hash.as_deref().map(|hash| LiveImage {
                kind,
                id: &g.id,
                hash,
            })
        })
        .collect();
        out.extend(g.roles.iter().filter_map(|r| {
            r.icon.as_deref().map(|hash| LiveImage {
                kind: "role-icons",
                id: &r.id,
                hash,
            })
        }));
        // A hash is hex, `a_` first when animated: anything else would be a path on the CDN.
        out.retain(|i| {
            !i.hash.is_empty()
                && i.hash
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
        out
    }

    /// The SHA-256 of a live image, when the CDN gave it.
    pub fn image_digest(&self, image: &LiveImage<'_>) -> Option<&str> {
        self.images.get(&image.path()).map(String::as_str)
    }

    /// Reads the integrations, invites and voice regions `wants` asks for: one GET each.
    pub async fn read_doors(&mut self, client: &Client, wants: Wants) -> Result<(), ClientError> {
        if wants.any() {
            self.doors = Doors::fetch(client, &self.guild.id, wants).await?;
        }
        Ok(())
    }

    /// Adds the roster, ban and overwrite-user reads `q` asks for; nothing is read for an
    /// empty query, so a manifest without rosters or bans, on a guild without member
    /// overwrites, costs the seven reads alone.
    pub async fn read_people(
        &mut self,
        client: &Client,
        q: &people::PeopleQuery,
    ) -> Result<(), ClientError> {
        if !q.is_empty() {
            let bot = (&self.bot, &self.bot_member);
            self.people = Some(people::read(client, &self.guild.id, q, bot).await?);
        }
        Ok(())
    }

    /// Reads the optional sections `m` declares, one listing GET each: the expressions
    /// (with their files from the CDN), AutoMod rules,
    /// scheduled events (with their cover images), and the announcement channels `follows`
    /// names that the guild does not follow yet ([`follows`]). The one place a command or the rehearsal
    /// reads them.
    pub async fn read_sections(
        &mut self,
        client: &Client,
        m: &crate::manifest::Manifest,
    ) -> Result<(), ClientError> {
        self.read_expressions(client, m).await?;
        if automod::wanted(m) {
            self.automod = automod::read(client, &self.guild.id.clone()).await?;
        }
        if events::wanted(m) {
            self.events = events::read(client, &self.guild.id.clone()).await?;
            // Cover images, compared by content as the guild's are: one CDN read each.
            let covers: Vec<LiveImage<'_>> = self
                .events
                .iter()
                .flatten()
                .filter_map(events::ScheduledEvent::live_image)
                .collect();
            let read = read_images(client, &covers).await;
            self.images.extend(read);
        }
        let sources = follows::wanted(m, self.webhooks.as_deref());
        if !sources.is_empty() {
            self.follow_sources = follows::read(client, &sources).await?;
        }
        Ok(())
    }

    /// Refuses a read whose parts parsed but cannot describe a real guild: planning from it
    /// could delete or recreate what only seems missing (docs/safety.md, "Broken reads").
    fn check_whole(&self, guild_id: &str) -> Result<(), ClientError> {
        let broken = |path: String, detail: String| ClientError::Decode {
            method: reqwest::Method::GET,
            path,
            detail,
        };
        let guild_path = format!("/guilds/{guild_id}");
        if self.guild.id != guild_id {
            return Err(broken(
                guild_path,
                format!("it describes guild \"{}\", not this one", self.guild.id),
            ));
        }
        if self.everyone_role().is_none() {
            // Every guild has @everyone, whose id is the guild's.
            return Err(broken(
                guild_path,
                format!(
                    "`roles` lacks @everyone (the role whose id is the guild's) among its {} role(s)",
                    self.guild.roles.len()
                ),
            ));
        }
        let lists = [
            (
                guild_path.clone(),
                "roles",
                self.guild
                    .roles
                    .iter()
                    .map(|r| r.id.as_str())
                    .collect::<Vec<_>>(),
            ),
            (
                format!("{guild_path}/channels"),
                "",
                self.channels.iter().map(|c| c.id.as_str()).collect(),
            ),
            (
                format!("{guild_path}/webhooks"),
                "",
                self.webhooks
                    .iter()
                    .flatten()
                    .map(|w| w.id.as_str())
                    .collect(),
            ),
        ];
        for (path, field, ids) in lists {
            let mut seen = hashbrown::HashSet::new();
            for (i, id) in ids.into_iter().enumerate() {
                let at = format!("{field}[{i}].id");
                if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(broken(
                        path,
                        format!("at {at}: \"{id}\" is not a Discord id"),
                    ));
                }
                if !seen.insert(id) {
                    return Err(broken(path, format!("at {at}: id {id} is listed twice")));
                }
            }
        }
        Ok(())
    }

    /// A hash of the live configuration, so a saved plan can tell whether the guild
    /// changed since it was made.
    pub fn fingerprint(&self) -> String {
        #[derive(Serialize)]
        struct Canonical<'a> {
            guild: &'a Guild,
            channels: Vec<&'a Channel>,
            welcome_screen: &'a Option<WelcomeScreen>,
            onboarding: &'a Option<Onboarding>,
            webhooks: &'a Option<Vec<Webhook>>,
            // Left out when not read, so plans without rosters or bans keep their fingerprint.
            #[serde(skip_serializing_if = "Option::is_none")]
            people: &'a Option<people::People>,
            // Likewise for the expressions.
            #[serde(skip_serializing_if = "Expressions::is_empty")]
            expressions: &'a Expressions,
            // Likewise for the sections read only when declared.
            #[serde(skip_serializing_if = "Option::is_none")]
            automod: &'a Option<Vec<automod::AutoModRule>>,
            #[serde(skip_serializing_if = "Option::is_none")]
            events: &'a Option<Vec<events::ScheduledEvent>>,
        }
        let mut channels: Vec<&Channel> = self.channels.iter().collect();
        channels.sort_by(|a, b| a.id.cmp(&b.id));
        let mut guild = self.guild.clone();
        guild.roles.sort_by(|a, b| a.id.cmp(&b.id));
        // Hashed in a byte form cheaper than JSON, as it is written.
        let digest = canonical::sha256(&Canonical {
            guild: &guild,
            channels,
            welcome_screen: &self.welcome_screen,
            onboarding: &self.onboarding,
            webhooks: &self.webhooks,
            people: &self.people,
            expressions: &self.expressions,
            automod: &self.automod,
            events: &self.events,
        });
        digest.iter().take(16).map(|b| format!("{b:02x}")).collect()
    }

    pub fn everyone_role(&self) -> Option<&Role> {
        self.role(&self.guild.id)
    }

    /// Roles from highest to lowest, `@everyone` last. Equal positions: the older
    /// (lower) id ranks higher, as Discord's clients sort (docs/discord.md §3.3).
    pub fn roles_by_rank(&self) -> Vec<&Role> {
        let mut roles: Vec<&Role> = self.guild.roles.iter().collect();
        roles.sort_by(|a, b| role_rank_cmp(&self.guild.id, a, b));
        roles
    }

    pub fn role(&self, id: &str) -> Option<&Role> {
        let at = *self.index().roles.get(id)?;
        self.guild.roles.get(at).filter(|r| r.id == id)
    }

    pub fn channel(&self, id: &str) -> Option<&Channel> {
        let at = *self.index().channels.get(id)?;
        self.channels.get(at).filter(|c| c.id == id)
    }

    /// Puts `c` in place of the channel of its id, as a Gateway `CHANNEL_UPDATE` carries it
    /// (`watch`: a change that needs no read); false when there is none (a channel this
    /// read did not have: read the guild again). In place, so the index holds.
    pub fn update_channel(&mut self, c: Channel) -> bool {
        match self.channels.iter_mut().find(|x| x.id == c.id) {
            Some(x) => {
                *x = c;
                true
            }
            None => false,
        }
    }

    /// Puts `r` in place of the role of its id, as a Gateway `GUILD_ROLE_UPDATE` carries it;
    /// false when there is none.
    pub fn update_role(&mut self, r: Role) -> bool {
        match self.guild.roles.iter_mut().find(|x| x.id == r.id) {
            Some(x) => {
                *x = r;
                true
            }
            None => false,
        }
    }

    /// Reads the guild's webhooks again (one GET), in place of those read.
    pub async fn read_webhooks(&mut self, client: &Client) -> Result<(), ClientError> {
        let path = format!("/guilds/{}/webhooks", self.guild.id);
        self.webhooks = optional(client.get::<Vec<Webhook>>(&path)).await?;
        Ok(())
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let mut index = Index::default();
            for (i, r) in self.guild.roles.iter().enumerate() {
                index.roles.entry(r.id.clone()).or_insert(i);
            }
            for (i, c) in self.channels.iter().enumerate() {
                index.channels.entry(c.id.clone()).or_insert(i);
            }
            index
        })
    }

    pub fn is_bot_owner(&self) -> bool {
        self.guild.owner_id == self.bot.id
    }

    /// The bot's guild-wide permissions (owner and administrator have all).
    pub fn bot_permissions(&self) -> Permissions {
        if self.is_bot_owner() {
            return Permissions::ALL;
        }
        let mut p = self
            .everyone_role()
            .map(|r| r.permissions)
            .unwrap_or_default();
        for id in &self.bot_member.roles {
            if let Some(r) = self.role(id) {
                p |= r.permissions;
            }
        }
        if p.contains(Permissions::ADMINISTRATOR) {
            Permissions::ALL
        } else {
            p
        }
    }

    /// Whether every channel of the guild is in this snapshot. Discord omits the
    /// channels a bot cannot view (docs/discord.md §9.1); an administrator or
    /// the owner views them all.
    pub fn sees_every_channel(&self) -> bool {
        self.bot_permissions() == Permissions::ALL
    }

    /// Rank index (0 = highest) of the bot's highest role; roles with a smaller or
    /// equal index cannot be edited or moved by the bot. `None` for the owner.
    pub fn bot_top_rank(&self) -> Option<usize> {
        if self.is_bot_owner() {
            return None;
        }
        let ranked = self.roles_by_rank();
        let top = ranked
            .iter()
            .position(|r| self.bot_member.roles.contains(&r.id))
            // A bot with no role sits with @everyone: it can edit nothing.
            .unwrap_or(ranked.len().saturating_sub(1));
        Some(top)
    }
}

/// Orders roles highest first; `@everyone` (id = guild id) always last.
pub fn role_rank_cmp(guild_id: &str, a: &Role, b: &Role) -> std::cmp::Ordering {
    let everyone = |r: &Role| r.id == guild_id;
    everyone(a)
        .cmp(&everyone(b))
        .then(b.position.cmp(&a.position))
        .then(snowflake_cmp(&a.id, &b.id))
}

/// Compares snowflakes numerically (they are strings of digits).
pub fn snowflake_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then(a.cmp(b))
}

/// A part of the guild the bot may not be shown: 403 and 404 mean "not readable".
async fn optional<T>(
    call: impl std::future::Future<Output = Result<T, ClientError>>,
) -> Result<Option<T>, ClientError> {
    match call.await {
        Ok(v) => Ok(Some(v)),
        Err(ClientError::Api(e)) if matches!(e.status.as_u16(), 403 | 404) => Ok(None),
        Err(e) => Err(e),
    }
}
