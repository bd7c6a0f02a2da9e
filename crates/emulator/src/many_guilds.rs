//! Several guilds for one bot: a state whose first guild is copied, every object given
//! a fresh id, so one emulator serves a network of guilds alike (a workspace of
//! guilds, the bench of `plan --all`). Users are shared: the bot and the members are
//! the same people in every copy, as on Discord.
//!
//! Rate limits need nothing more: the global limit is the bot's, counted once whatever
//! guild a request names, and route buckets are keyed by the guild (or channel) in the
//! path (docs/discord.md §1), so each copy has its own.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::state::{Guild, State};

/// `state` with its first guild copied until there are `count` guilds (a state with
/// no guild is returned as it is). Copy `k` (from 1) is named "NAME k+1" and every id
/// in it (guild, roles, channels, tags, webhooks, onboarding prompts and options,
/// audit-log entries, threads, messages, emoji, stickers, sounds, AutoMod rules and
/// scheduled events) is new and unused elsewhere in the state; references between
/// them follow, user ids stay. Deterministic: the same state gives the same ids.
pub fn with_guild_copies(mut state: State, count: usize) -> State {
    let Some(first) = state.guilds.first().cloned() else {
        return state;
    };
    let mut taken: HashSet<u64> = HashSet::new();
    for g in &state.guilds {
        collect_ids(g, &mut taken);
    }
    for u in &state.users {
        if let Ok(n) = u.id.parse() {
            taken.insert(n);
        }
    }
    let own = {
        let mut set = HashSet::new();
        collect_ids(&first, &mut set);
        set
    };
    for k in state.guilds.len()..count {
        let mut map: HashMap<String, String> = HashMap::new();
        for id in &own {
            // Shift the timestamp part by 2^23 ms (~2.3 hours) per copy: the generated
            // guilds' ids span less than that, so copies do not interleave.
            let mut new = id.wrapping_add((k as u64) << 45);
            while !taken.insert(new) {
                new = new.wrapping_add(1);
            }
            map.insert(id.to_string(), new.to_string());
        }
        // A guild is derived `Serialize` with string keys only, so it always becomes a
        // value; `remap` only swaps one id string for another, so the value reads back.
        #[allow(clippy::expect_used)]
        let mut value = serde_json::to_value(&first).expect("a guild serialises");
        remap(&mut value, &map);
        #[allow(clippy::expect_used)]
        let mut guild: Guild = serde_json::from_value(value).expect("a remapped guild reads back");
        guild.name = format!("{} {}", first.name, k + 1);
        state.guilds.push(guild);
    }
    state
}

/// The ids a guild owns (not the users it refers to).
fn collect_ids(g: &Guild, out: &mut HashSet<u64>) {
    let mut add = |id: &str| {
        if let Ok(n) = id.parse::<u64>() {
            out.insert(n);
        }
    };
    add(&g.id);
    g.roles.iter().for_each(|r| add(&r.id));
    for c in &g.channels {
        add(&c.id);
        c.available_tags.iter().for_each(|t| add(&t.id));
    }
    g.webhooks.iter().for_each(|w| add(&w.id));
    for p in &g.onboarding.prompts {
        add(&p.id);
        p.options.iter().for_each(|o| add(&o.id));
    }
    g.audit_log.iter().for_each(|e| add(&e.id));
    g.threads.iter().for_each(|t| add(&t.id));
    for m in &g.messages {
        add(&m.id);
        m.attachments.iter().for_each(|a| add(&a.id));
    }
    g.emojis.iter().for_each(|e| add(&e.id));
    g.stickers.iter().for_each(|s| add(&s.id));
    g.soundboard_sounds.iter().for_each(|s| add(&s.sound_id));
    g.auto_moderation_rules.iter().for_each(|r| add(&r.id));
    g.scheduled_events.iter().for_each(|e| add(&e.id));
}

/// Replaces every string that is one of the copied ids, wherever it is (references
/// included: parents, overwrites, settings channels, member roles, audit targets).
fn remap(v: &mut Value, map: &HashMap<String, String>) {
    match v {
        Value::String(s) => {
            if let Some(new) = map.get(s.as_str()) {
                *s = new.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| remap(i, map)),
        Value::Object(fields) => fields.values_mut().for_each(|f| remap(f, map)),
        _ => {}
    }
}

/// Hands the guilds `guild_ids` over to a new bot named `username`: it takes the state's
/// bot's place in them (its member, with the same roles), so only the new bot can read or
/// change them, as when a network's event guilds are run by a bot of their own. Answers the
/// new bot's token. Discord counts each bot's requests apart (§1.1), and so does the
/// emulator: the two bots' global limits and route buckets are their own.
pub fn with_second_bot(state: &mut State, username: &str, guild_ids: &[String]) -> String {
    let taken: HashSet<&str> = state.users.iter().map(|u| u.id.as_str()).collect();
    let mut id: u64 = state.bot_user_id.parse().unwrap_or(1 << 60);
    while taken.contains(id.to_string().as_str()) {
        id += 1;
    }
    let id = id.to_string();
    let old = state.bot_user_id.clone();
    for g in state
        .guilds
        .iter_mut()
        .filter(|g| guild_ids.contains(&g.id))
    {
        for m in g.members.iter_mut().filter(|m| m.user_id == old) {
            m.user_id = id.clone();
        }
    }
    let mut user = state
        .users
        .iter()
        .find(|u| u.id == old)
        .cloned()
        .unwrap_or_default();
    user.id = id.clone();
    user.username = username.to_owned();
    user.global_name = None;
    user.bot = true;
    state.users.push(user);
    let token = crate::random_token(&id);
    state.tokens.push(crate::state::BotToken {
        token: token.clone(),
        user_id: id,
    });
    token
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::default_state;

    #[test]
    fn copies_have_their_own_ids_and_share_users() {
        let st = with_guild_copies(default_state(), 3);
        assert_eq!(st.guilds.len(), 3);
        let (a, b) = (&st.guilds[0], &st.guilds[2]);
        assert_ne!(a.id, b.id);
        assert_eq!(b.name, format!("{} 3", a.name));
        // @everyone is the guild's id in every copy.
        assert!(b.role(&b.id).is_some());
        let ids_a: HashSet<&str> = a.channels.iter().map(|c| c.id.as_str()).collect();
        assert!(b.channels.iter().all(|c| !ids_a.contains(c.id.as_str())));
        // Parents point inside the copy.
        for c in &b.channels {
            if let Some(p) = &c.parent_id {
                assert!(
                    b.channel(p).is_some(),
                    "parent {p} of {} in the copy",
                    c.name
                );
            }
        }
        // The members are the same users, with the copy's roles.
        assert_eq!(
            a.members.iter().map(|m| &m.user_id).collect::<Vec<_>>(),
            b.members.iter().map(|m| &m.user_id).collect::<Vec<_>>()
        );
        for m in &b.members {
            assert!(m.roles.iter().all(|r| b.role(r).is_some()));
        }
    }
}
