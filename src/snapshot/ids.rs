//! A guild's ids by name (`--ids-out FILE`, docs/workspace.md "Ids for a bot"): what a
//! bot's configuration needs from a guild guildctl made, written as JSON or as an env file,
//! so a test guild shaped like production gives its bot the ids without a script.

use std::collections::BTreeMap;

use serde::Serialize;

use super::Snapshot;
use crate::discord::models::channel_type;

/// The ids of a guild's roles, channels (`Category/name`, a category by its name) and
/// webhooks, by name; `@everyone` is the guild's id.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Ids {
    pub guild: String,
    pub roles: BTreeMap<String, String>,
    pub channels: BTreeMap<String, String>,
    pub webhooks: BTreeMap<String, String>,
}

impl Ids {
    /// The ids the snapshot read. Of two objects of one name, the older (lower id) is
    /// kept, as guildctl matches names.
    pub fn of(snap: &Snapshot) -> Ids {
        let mut ids = Ids {
            guild: snap.guild.id.clone(),
            ..Ids::default()
        };
        let keep = |map: &mut BTreeMap<String, String>, name: String, id: &str| {
            let older = map.get(&name).is_some_and(|was| older_id(was, id));
            if !older {
                map.insert(name, id.to_owned());
            }
        };
        for r in snap.guild.roles.iter().filter(|r| r.id != snap.guild.id) {
            keep(&mut ids.roles, r.name.clone(), &r.id);
        }
        let category = |id: &str| {
            snap.channels
                .iter()
                .find(|c| c.id == id && c.kind == channel_type::CATEGORY)
                .map(|c| c.name.clone())
        };
        for c in &snap.channels {
            let path = match c.parent_id.as_deref().and_then(category) {
                Some(parent) => format!("{parent}/{}", c.name),
                None => c.name.clone(),
            };
            keep(&mut ids.channels, path, &c.id);
        }
        for w in snap.webhooks.iter().flatten() {
            if let Some(name) = &w.name {
                keep(&mut ids.webhooks, name.clone(), &w.id);
            }
        }
        ids
    }

    /// As an env file: `GUILD_ID=…`, then `ROLE_MODERATOR=…`, `CHANNEL_STAFF_MOD_LOG=…`,
    /// `WEBHOOK_GITHUB=…` (names upper-cased, every other character `_`; a name that comes
    /// out as one already written gets `_2`, `_3`, …).
    pub fn to_env(&self) -> String {
        let mut out = format!("GUILD_ID={}\n", self.guild);
        let mut taken: Vec<String> = vec!["GUILD_ID".to_owned()];
        for (prefix, map) in [
            ("ROLE", &self.roles),
            ("CHANNEL", &self.channels),
            ("WEBHOOK", &self.webhooks),
        ] {
            for (name, id) in map {
                let base = format!("{prefix}_{}", env_name(name));
                let mut key = base.clone();
                let mut n = 2;
                while taken.contains(&key) {
                    key = format!("{base}_{n}");
                    n += 1;
                }
                out.push_str(&format!("{key}={id}\n"));
                taken.push(key);
            }
        }
        out
    }
}

/// `a` is the older snowflake of the two (numbers, compared as such).
fn older_id(a: &str, b: &str) -> bool {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(a), Ok(b)) => a < b,
        _ => a < b,
    }
}

/// A name as an environment variable's part: ASCII letters and digits upper-cased, every
/// run of anything else one `_`, none at either end (`UNNAMED` when nothing is left).
fn env_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_uppercase());
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_matches('_').to_owned();
    if out.is_empty() {
        "UNNAMED".to_owned()
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_variables_and_repeats_are_numbered() {
        let names = [
            ("mod-log", "MOD_LOG"),
            ("Staff/📢 news!", "STAFF_NEWS"),
            ("🎉", "UNNAMED"),
        ];
        for (name, var) in names {
            assert_eq!(env_name(name), var);
        }
        let ids = Ids {
            guild: "1".into(),
            roles: [("Mod".into(), "2".into()), ("mod".into(), "3".into())].into(),
            channels: [("Staff/mod-log".into(), "4".into())].into(),
            webhooks: BTreeMap::new(),
        };
        assert_eq!(
            ids.to_env(),
            "GUILD_ID=1\nROLE_MOD=2\nROLE_MOD_2=3\nCHANNEL_STAFF_MOD_LOG=4\n"
        );
    }
}
