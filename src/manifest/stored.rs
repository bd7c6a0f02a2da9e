//! The manifest as Discord will store it. Discord trims names of surrounding and
//! repeated whitespace (discord-behaviour.md §9.2), so every name and every
//! reference to a name is put in that form once, here, before the semantic checks
//! and the planner see it: a declared `"  Deploy bot "` then matches the live
//! `Deploy bot` instead of creating a second webhook on every apply.
//!
//! Text-channel names are further lower-cased and hyphenated by Discord; that
//! rule stays where channels are compared ([`stored_channel_name`]), so messages
//! can still show a channel as it was written.
//!
//! [`stored_channel_name`]: crate::discord::names::stored_channel_name

use std::borrow::Cow;

use super::types::{Channel, Manifest};
use crate::discord::names::stored_display_name;

/// A copy of `m` with every name and name reference in the form Discord stores.
pub fn as_stored(m: &Manifest) -> Manifest {
    let mut m = m.clone();
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
    if let Some(s) = &mut m.settings {
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

fn store(name: &mut String) {
    if let Cow::Owned(stored) = stored_display_name(name) {
        *name = stored;
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
}
