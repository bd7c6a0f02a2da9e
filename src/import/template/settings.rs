//! The template's guild settings as the manifest's `settings:`: each value Discord documents,
//! the AFK and system channels named as the checks will resolve them.

use hashbrown::HashMap;

use super::json::{Id, SourceGuild};
use super::{Convert, GUILD, Place};
use crate::discord::limits::{AFK_TIMEOUTS, GUILD_DESCRIPTION_MAX, GUILD_NAME_LEN};
use crate::discord::models::LOCALES;
use crate::discord::names::stored_display_name;
use crate::manifest::check::{ChannelLookup, Ctx};
use crate::manifest::stored::as_stored;
use crate::manifest::{
    ChannelType, ExplicitContentFilter, Manifest, MessageNotifications, Settings,
    SystemChannelFlag, VerificationLevel,
};

impl Convert {
    pub(super) fn settings(
        &mut self,
        g: &SourceGuild,
        m: &Manifest,
        ids: &HashMap<u64, Place>,
    ) -> Settings {
        let mut s = Settings::default();
        if let Some(name) = &g.name {
            // Discord counts without surrounding whitespace; the checks count all of it.
            let n = name.trim().chars().count();
            if n >= GUILD_NAME_LEN.0 && name.chars().count() <= GUILD_NAME_LEN.1 {
                s.name = Some(name.clone());
            } else {
                self.left_out(
                    format!("{GUILD}.name"),
                    format!("guild name \"{name}\" has {n} characters; Discord allows 2 to 100"),
                );
            }
        }
        match &g.description {
            Some(d) if d.chars().count() > GUILD_DESCRIPTION_MAX => self.left_out(
                format!("{GUILD}.description"),
                format!("the description is longer than {GUILD_DESCRIPTION_MAX} characters"),
            ),
            Some(d) if !d.is_empty() => s.description = Some(Some(d.clone())),
            _ => s.description = Some(None),
        }
        s.verification_level = self.named("verification_level", g.verification_level, |v| {
            VerificationLevel::from_value(v)
        });
        s.default_message_notifications = self.named(
            "default_message_notifications",
            g.default_message_notifications,
            MessageNotifications::from_value,
        );
        s.explicit_content_filter = self.named(
            "explicit_content_filter",
            g.explicit_content_filter,
            ExplicitContentFilter::from_value,
        );
        if let Some(t) = g.afk_timeout {
            match u32::try_from(t).ok().filter(|t| AFK_TIMEOUTS.contains(t)) {
                Some(t) => s.afk_timeout = Some(t),
                None => self.left_out(
                    format!("{GUILD}.afk_timeout"),
                    format!("afk_timeout {t} is not one of 60, 300, 900, 1800, 3600"),
                ),
            }
        }
        s.afk_channel = self.channel_setting(
            "afk_channel_id",
            g.afk_channel_id,
            ChannelType::Voice,
            m,
            ids,
        );
        s.system_channel = self.channel_setting(
            "system_channel_id",
            g.system_channel_id,
            ChannelType::Text,
            m,
            ids,
        );
        if let Some(flags) = g.system_channel_flags {
            let bits = u64::try_from(flags).unwrap_or(0);
            let named: Vec<SystemChannelFlag> = (0..6)
                .map(|b| 1u64 << b)
                .filter(|bit| bits & bit != 0)
                .filter_map(SystemChannelFlag::from_value)
                .collect();
            let known = named.iter().fold(0, |acc, f| acc | f.value());
            if flags < 0 || bits & !known != 0 {
                self.left_out(format!("{GUILD}.system_channel_flags"),
                    format!(
                        "system channel flags {flags}: the bits without a name ({}) are not managed",
                        if flags < 0 { flags } else { (bits & !known) as i64 }
                    ),
                );
            }
            s.system_channel_flags = Some(named);
        }
        if let Some(locale) = &g.preferred_locale {
            if LOCALES.contains(&locale.as_str()) {
                s.preferred_locale = Some(locale.clone());
            } else {
                self.left_out(
                    format!("{GUILD}.preferred_locale"),
                    format!("\"{locale}\" is not a locale Discord accepts"),
                );
            }
        }
        if let Some(region) = &g.region {
            self.left_out(
                format!("{GUILD}.region"),
                format!(
                    "voice region \"{region}\": Discord no longer has a guild region (a voice \
                     channel's `rtc_region` replaces it)"
                ),
            );
        }
        if g.icon_hash.is_some() {
            self.left_out(
                format!("{GUILD}.icon_hash"),
                "the guild icon: a template holds only its hash, not the image",
            );
        }
        s
    }

    /// A named setting from Discord's integer, or a note when the integer has no name.
    fn named<T>(
        &mut self,
        field: &str,
        value: Option<i64>,
        from: impl Fn(u64) -> Option<T>,
    ) -> Option<T> {
        let v = value?;
        let named = u64::try_from(v).ok().and_then(from);
        if named.is_none() {
            self.left_out(
                format!("{GUILD}.{field}"),
                format!("{field} {v} is not a value Discord documents"),
            );
        }
        named
    }

    /// A channel setting: the reference that names the channel with template-local id `id`
    /// in the manifest `m`, as the checks resolve it (its name, or `Category/name`).
    fn channel_setting(
        &mut self,
        field: &str,
        id: Option<Id>,
        want: ChannelType,
        m: &Manifest,
        ids: &HashMap<u64, Place>,
    ) -> Option<Option<String>> {
        let path = format!("{GUILD}.{field}");
        let Some(Id(id)) = id else {
            return Some(None);
        };
        let Some(&(top, child)) = ids.get(&id) else {
            self.left_out(path, format!("channel {id} is not in the template"));
            return None;
        };
        let channels = m.channels.as_deref().unwrap_or_default();
        let (entry, category) = match child {
            Some(k) => (
                &channels[top].channels.as_deref().unwrap_or_default()[k],
                Some(&channels[top]),
            ),
            None => (&channels[top], None),
        };
        if entry.channel_type() != want {
            self.left_out(
                path,
                format!(
                    "channel \"{}\" is {} channel, not {}",
                    entry.name,
                    entry.channel_type().name(),
                    want.name()
                ),
            );
            return None;
        }
        let target = match child {
            Some(k) => format!("channels[{top}].channels[{k}]"),
            None => format!("channels[{top}]"),
        };
        let stored = as_stored(m);
        let ctx = Ctx::new(&stored);
        // Tried as the checks will read it: each part as Discord stores it.
        let mut tries = vec![(
            entry.name.clone(),
            stored_display_name(&entry.name).into_owned(),
        )];
        if let Some(cat) = category {
            tries.push((
                format!("{}/{}", cat.name, entry.name),
                format!(
                    "{}/{}",
                    stored_display_name(&cat.name),
                    stored_display_name(&entry.name)
                ),
            ));
        }
        for (r, read) in tries {
            if let ChannelLookup::Found(i) = ctx.lookup_channel(&read, &[want])
                && ctx.channels[i].path == target
            {
                return Some(Some(r));
            }
        }
        self.left_out(
            path,
            format!(
                "channel \"{}\" cannot be named without naming another too",
                entry.name
            ),
        );
        None
    }
}
