//! The ways into the guild as read live: integrations (bots and apps), invites and
//! voice regions. Read only when the manifest asks about them (`integrations:`,
//! `invites:`, a channel's `rtc_region`), so a manifest that does not keeps the
//! snapshot's seven reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_with::skip_serializing_none;

use super::optional;
use crate::discord::models::User;
use crate::discord::{Client, ClientError};
use crate::manifest::{Channel, Manifest};

/// Discord lists at most this many integrations; any beyond cannot be read.
pub const MAX_INTEGRATIONS: usize = 50;

/// What was read of the ways in; `None` where it was not asked for or not readable
/// (then `unreadable` says why).
#[skip_serializing_none]
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Doors {
    pub integrations: Option<Vec<Integration>>,
    pub invites: Option<Vec<Invite>>,
    pub regions: Option<Vec<VoiceRegion>>,
    /// (part, why) for each part asked for and not read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Integration {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub application: Option<IntegrationApplication>,
    /// Who added it.
    #[serde(default)]
    pub user: Option<User>,
    #[serde(default)]
    pub scopes: Vec<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct IntegrationApplication {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub bot: Option<User>,
}

impl Integration {
    /// The application id, for `discord` integrations.
    pub fn application_id(&self) -> Option<&str> {
        self.application.as_ref().map(|a| a.id.as_str())
    }

    pub fn display_name(&self) -> String {
        self.application
            .as_ref()
            .map(|a| a.name.clone())
            .or_else(|| self.name.clone())
            .unwrap_or_else(|| self.id.clone())
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Invite {
    pub code: String,
    #[serde(default)]
    pub channel: Option<InviteChannel>,
    #[serde(default)]
    pub inviter: Option<User>,
    #[serde(default)]
    pub expires_at: Option<String>,
    /// The metadata, present only when the bot holds `manage_guild`.
    #[serde(default)]
    pub uses: Option<u64>,
    #[serde(default)]
    pub max_uses: Option<u64>,
    #[serde(default)]
    pub max_age: Option<u64>,
    #[serde(default)]
    pub temporary: Option<bool>,
    #[serde(default)]
    pub created_at: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct InviteChannel {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
}

impl Invite {
    /// Whether the metadata (uses, limits) came with it.
    pub fn has_metadata(&self) -> bool {
        self.uses.is_some()
    }

    pub fn channel_id(&self) -> Option<&str> {
        self.channel.as_ref().map(|c| c.id.as_str())
    }

    /// Never expires: no expiry time (Discord's `expires_at: null`).
    pub fn permanent(&self) -> bool {
        self.expires_at.is_none()
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct VoiceRegion {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub deprecated: bool,
}

/// Which parts to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wants {
    pub integrations: bool,
    pub invites: bool,
    pub regions: bool,
}

impl Wants {
    /// What `m` asks about: its `integrations:` and `invites:` sections, and the voice
    /// regions when a channel sets `rtc_region` to a region.
    pub fn of(m: &Manifest) -> Wants {
        fn sets_region(list: &[Channel]) -> bool {
            list.iter().any(|c| {
                matches!(c.rtc_region, Some(Some(_)))
                    || c.channels.as_deref().is_some_and(sets_region)
            })
        }
        Wants {
            integrations: m.integrations.is_some() || m.prune.integrations,
            invites: m.invites.is_some() || m.prune.invites,
            regions: m.channels.as_deref().is_some_and(sets_region),
        }
    }

    pub fn any(self) -> bool {
        self.integrations || self.invites || self.regions
    }
}

impl Doors {
    /// The integration `id`, when integrations were read and it is among them.
    pub fn integration(&self, id: &str) -> Option<&Integration> {
        self.integrations.iter().flatten().find(|i| i.id == id)
    }

    /// The invite `code`, when invites were read and it is among them.
    pub fn invite(&self, code: &str) -> Option<&Invite> {
        self.invites.iter().flatten().find(|i| i.code == code)
    }

    /// Reads what `wants` asks for, at once: one GET per part. A part the bot may not
    /// read (403) is recorded in `unreadable`; other failures fail the read.
    pub async fn fetch(
        client: &Client,
        guild_id: &str,
        wants: Wants,
    ) -> Result<Doors, ClientError> {
        let base = format!("/guilds/{guild_id}");
        let when = |yes: bool, path: String| async move {
            if yes {
                optional(client.get::<Value>(&path)).await.map(Some)
            } else {
                Ok(None)
            }
        };
        let (integrations, invites, regions) = tokio::try_join!(
            when(wants.integrations, format!("{base}/integrations")),
            when(wants.invites, format!("{base}/invites")),
            when(wants.regions, format!("{base}/regions")),
        )?;
        let mut doors = Doors::default();
        match integrations {
            Some(Some(v)) => doors.integrations = Some(decode(format!("{base}/integrations"), v)?),
            Some(None) => doors.unreadable.push((
                "integrations".into(),
                "needs manage_guild (Discord answered 403)".into(),
            )),
            None => {}
        }
        match invites {
            Some(Some(v)) => doors.invites = Some(decode(format!("{base}/invites"), v)?),
            Some(None) => doors.unreadable.push((
                "invites".into(),
                "needs manage_guild or view_audit_log (Discord answered 403)".into(),
            )),
            None => {}
        }
        match regions {
            Some(Some(v)) => doors.regions = Some(decode(format!("{base}/regions"), v)?),
            Some(None) => doors
                .unreadable
                .push(("voice regions".into(), "Discord answered 403".into())),
            None => {}
        }
        if doors
            .invites
            .as_ref()
            .is_some_and(|l| l.iter().any(|i| !i.has_metadata()))
        {
            doors.unreadable.push((
                "invite metadata".into(),
                "uses and limits need manage_guild; with view_audit_log alone Discord leaves them out, so rules on uses are not judged".into(),
            ));
        }
        Ok(doors)
    }

    /// Whether Discord's cap on listed integrations was reached: more may exist unseen.
    pub fn integrations_capped(&self) -> bool {
        self.integrations
            .as_ref()
            .is_some_and(|l| l.len() >= MAX_INTEGRATIONS)
    }
}

/// A list read as `T`, or the read's failure naming the call and where in the body.
fn decode<T: serde::de::DeserializeOwned>(path: String, v: Value) -> Result<T, ClientError> {
    crate::discord::models::decode_at(v).map_err(|detail| ClientError::Decode {
        method: reqwest::Method::GET,
        path,
        detail,
    })
}

/// Reads an RFC 3339 timestamp as Discord writes them (`2021-06-01T12:00:00.000000+00:00`,
/// or with `Z`) as Unix milliseconds; `None` for anything else or before 1970.
pub fn parse_timestamp(s: &str) -> Option<u64> {
    let t = time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()?;
    u64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::parse_timestamp;

    #[test]
    fn discord_timestamps_are_read_with_their_offset() {
        assert_eq!(
            parse_timestamp("2021-06-01T12:00:00.000000+00:00"),
            Some(1_622_548_800_000)
        );
        assert_eq!(
            parse_timestamp("2021-06-01T14:00:00.5+02:00"),
            Some(1_622_548_800_500)
        );
        assert_eq!(
            parse_timestamp("2021-06-01T12:00:00Z"),
            Some(1_622_548_800_000)
        );
        for bad in [
            "",
            "soon",
            "2021-06-01",
            "2021-06-01T12:00:00",
            "2021-06-01T12:00:00+0200",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}
