//! The manifest as Discord will store it: the one place where every name Discord rewrites,
//! and every reference to such a name, is put in the form Discord stores, before the
//! semantic checks and the planner see it. So a declared `"  Deploy bot "` matches the live
//! `Deploy bot` instead of creating a second webhook on every apply, a guild called
//! `"  Ferris Fans  "` is compared as `Ferris Fans`, and a limit is checked on what
//! Discord will keep (`"  a  "` is a guild name of 1 character).
//!
//! What Discord rewrites, by kind (docs/discord.md §4.2, §9.2, the reference's Guild
//! object; docs/manifest.md, "Names as Discord stores them", has the whole table):
//!
//! - the guild's name loses its leading and trailing whitespace ([`stored_guild_name`]);
//! - roles, channels and categories of every type, and webhooks lose surrounding and
//!   repeated whitespace ([`stored_display_name`]), and so do the references that name
//!   them (channel overwrites, settings' channels, the widget, the welcome screen,
//!   onboarding, webhooks' channels, AutoMod exemptions and alert channels, events'
//!   channels, invite rules' channels, emoji roles, policies' roles);
//! - text-like channel names are further lower-cased and hyphenated; that rule stays where
//!   channels are compared ([`stored_channel_name`]), so messages can still show a channel
//!   as it was written.
//!
//! Names of emoji (letters, digits and `_` only), stickers, soundboard sounds, AutoMod
//! rules, scheduled events, forum tags and onboarding prompts and options are stored as
//! sent, and so kept here.
//!
//! [`stored_channel_name`]: crate::discord::names::stored_channel_name

use std::borrow::Cow;

use super::types::{AutoModAction, Channel, Manifest};
use crate::discord::names::{stored_display_name, stored_guild_name};

/// A copy of `m` with every name and name reference in the form Discord stores.
pub fn as_stored(m: &Manifest) -> Manifest {
    let mut m = m.clone();
    if let Some(s) = &mut m.settings {
        if let Some(name) = &mut s.name {
            replace(name, stored_guild_name);
        }
        for reference in [
            &mut s.afk_channel,
            &mut s.system_channel,
            &mut s.rules_channel,
            &mut s.public_updates_channel,
            &mut s.safety_alerts_channel,
        ] {
            if let Some(Some(r)) = reference {
                store_reference(r);
            }
        }
    }
    for role in m.roles.iter_mut().flatten() {
        store(&mut role.name);
        role.previous_names.iter_mut().for_each(store);
    }
    for channel in m.channels.iter_mut().flatten() {
        store_channel(channel);
    }
    for hook in m.webhooks.iter_mut().flatten() {
        store(&mut hook.name);
        hook.previous_names.iter_mut().for_each(store);
        store_reference(&mut hook.channel);
    }
    if let Some(Some(r)) = m.widget.as_mut().and_then(|w| w.channel.as_mut()) {
        store_reference(r);
    }
    let welcome = m.welcome_screen.iter_mut();
    for wc in welcome.flat_map(|w| w.channels.iter_mut().flatten()) {
        store_reference(&mut wc.channel);
    }
    if let Some(o) = &mut m.onboarding {
        o.default_channels
            .iter_mut()
            .flatten()
            .for_each(store_reference);
        for option in o.prompts.iter_mut().flatten().flat_map(|p| &mut p.options) {
            option.channels.iter_mut().for_each(store_reference);
            option.roles.iter_mut().for_each(store);
        }
    }
    for rule in m.automod.iter_mut().flatten() {
        rule.exempt_roles.iter_mut().for_each(store);
        rule.exempt_channels.iter_mut().for_each(store_reference);
        for action in &mut rule.actions {
            if let AutoModAction::Alert(channel) = action {
                store_reference(channel);
            }
        }
    }
    for event in m.events.iter_mut().flatten() {
        event.channel.iter_mut().for_each(store_reference);
    }
    for emoji in m.emojis.iter_mut().flatten() {
        emoji.roles.iter_mut().flatten().for_each(store);
    }
    for rule in m.invites.iter_mut().flat_map(|i| &mut i.rules) {
        rule.channels.iter_mut().flatten().for_each(store_reference);
    }
    for policy in m.policies.iter_mut().flatten() {
        if let Some(never) = &mut policy.never {
            store(&mut never.who);
        }
        if let Some(only) = &mut policy.only {
            only.who.iter_mut().for_each(store);
        }
        if let Some(holders) = &mut policy.holders {
            store(&mut holders.role);
        }
    }
    m
}

fn store_channel(c: &mut Channel) {
    store(&mut c.name);
    c.previous_names.iter_mut().for_each(store);
    for o in c.overwrites.iter_mut().flatten() {
        if let Some(role) = &mut o.role {
            store(role);
        }
    }
    for child in c.channels.iter_mut().flatten() {
        store_channel(child);
    }
}

/// A role, channel, category or webhook name, or a reference to a role.
fn store(name: &mut String) {
    replace(name, stored_display_name);
}

/// Puts `name` in the form `stored` gives, when that differs.
fn replace(name: &mut String, stored: impl Fn(&str) -> Cow<'_, str>) {
    if let Cow::Owned(s) = stored(name) {
        *name = s;
    }
}

/// A channel reference, `name` or `Category/name`: each part as Discord stores it.
fn store_reference(reference: &mut String) {
    let stored = match reference.rsplit_once('/') {
        Some((parent, name)) => {
            format!(
                "{}/{}",
                stored_display_name(parent),
                stored_display_name(name)
            )
        }
        None => stored_display_name(reference).into_owned(),
    };
    if stored != *reference {
        *reference = stored;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(yaml: &str) -> Manifest {
        serde_saphyr::from_str(yaml).expect("test manifest parses")
    }

    #[test]
    fn names_and_references_take_the_stored_form() {
        let m = as_stored(&manifest(
            r#"
version: 1
roles:
  - { name: "  Deploy  bots ", previous_names: [" Old\tname"] }
channels:
  - name: " Staff   Room "
    type: category
    overwrites: [{ role: " Deploy bots", allow: [view_channel] }]
    channels: [{ name: " mod  chat " }]
webhooks:
  - { name: "  Deploy bot ", channel: " Staff Room /  mod chat" }
settings: { system_channel: "  mod chat " }
"#,
        ));
        let roles = m.roles.unwrap();
        assert_eq!(roles[0].name, "Deploy bots");
        assert_eq!(roles[0].previous_names, ["Old name"]);
        let channels = m.channels.unwrap();
        assert_eq!(channels[0].name, "Staff Room");
        let ow = &channels[0].overwrites.as_ref().unwrap()[0];
        assert_eq!(ow.role.as_deref(), Some("Deploy bots"));
        assert_eq!(channels[0].channels.as_ref().unwrap()[0].name, "mod chat");
        let hook = &m.webhooks.unwrap()[0];
        assert_eq!(hook.name, "Deploy bot");
        assert_eq!(hook.channel, "Staff Room/mod chat");
        let system = m.settings.unwrap().system_channel;
        assert_eq!(system, Some(Some("mod chat".to_owned())));
    }

    #[test]
    fn the_guild_name_and_every_reference_take_the_stored_form() {
        let m = as_stored(&manifest(
            r#"
version: 1
settings: { name: "  Ferris  Fans  " }
automod:
  - name: "  keep as sent "
    trigger: { keywords: [x] }
    actions: [alert: " Staff Room / mod  chat"]
    exempt_roles: [" Deploy  bots"]
    exempt_channels: ["  mod chat"]
events:
  - { name: " e ", channel: " Lounge ", start: "2030-01-01T00:00:00Z" }
emojis: [{ name: wave, image: w.png, roles: ["  Deploy bots"] }]
invites: { rules: [{ channels: [" lobby "] }] }
policies:
  - { name: a, never: { who: " Deploy  bots ", can: [view_channel] } }
  - { name: b, only: { who: [" Deploy bots"], can: [view_channel] } }
  - { name: c, holders: { role: "Deploy  bots", max: 2 } }
"#,
        ));
        // Trimmed only: Discord keeps the guild name's inner whitespace.
        assert_eq!(m.settings.unwrap().name.as_deref(), Some("Ferris  Fans"));
        let rule = &m.automod.unwrap()[0];
        assert_eq!(rule.name, "  keep as sent ");
        assert_eq!(rule.exempt_roles, ["Deploy bots"]);
        assert_eq!(rule.exempt_channels, ["mod chat"]);
        assert_eq!(
            rule.actions[0],
            AutoModAction::Alert("Staff Room/mod chat".into())
        );
        let event = &m.events.unwrap()[0];
        assert_eq!(
            (event.name.as_str(), event.channel.as_deref()),
            (" e ", Some("Lounge"))
        );
        assert_eq!(
            m.emojis.unwrap()[0].roles.as_deref(),
            Some(&["Deploy bots".to_owned()][..])
        );
        let invites = m.invites.unwrap();
        assert_eq!(
            invites.rules[0].channels.as_deref(),
            Some(&["lobby".to_owned()][..])
        );
        let p = m.policies.unwrap();
        assert_eq!(p[0].never.as_ref().unwrap().who, "Deploy bots");
        assert_eq!(p[1].only.as_ref().unwrap().who, ["Deploy bots"]);
        assert_eq!(p[2].holders.as_ref().unwrap().role, "Deploy bots");
    }
}
