//! Threads: List Active Guild Threads, and what webhooks do to threads (post into one,
//! unarchiving it; start one in a forum or media channel).

use serde_json::{Value, json};

use crate::access::InGuild;
use crate::app::{R, ok};
use crate::perms::viewable_channels;
use crate::render;
use crate::state::{Guild, Thread};
use crate::time::timestamp;

/// Messages the emulator keeps in thread `id`.
pub(crate) fn message_count(g: &Guild, id: &str) -> usize {
    g.messages.iter().filter(|m| m.channel_id == id).count()
}

/// `GET /guilds/{g}/threads/active`: the guild's threads that are not archived, in
/// channels the caller can view, newest (highest id) first; `members` holds the
/// caller's thread member for each returned thread it joined. Nothing is paged:
/// `has_more` is false.
pub async fn get_active_threads(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
    let g = &st.guilds[gi];
    let seen = viewable_channels(g, &call.actor);
    let visible = |parent: &str| match &seen {
        None => true,
        Some(v) => g
            .channels
            .iter()
            .position(|c| c.id == parent)
            .is_some_and(|ci| v[ci]),
    };
    let mut active: Vec<&Thread> = g
        .threads
        .iter()
        .filter(|t| !t.archived && visible(&t.parent_id))
        .collect();
    active.sort_by_key(|t| std::cmp::Reverse(t.id.parse::<u64>().unwrap_or(0)));
    let members: Vec<Value> = active
        .iter()
        .filter(|t| t.member_ids.contains(&call.actor))
        .map(|t| {
            json!({
                "id": t.id,
                "user_id": call.actor,
                "join_timestamp": thread_created(t),
                "flags": 0,
            })
        })
        .collect();
    let threads: Vec<Value> = active
        .iter()
        .map(|t| render::thread(&g.id, t, message_count(g, &t.id)))
        .collect();
    ok(json!({ "threads": threads, "members": members, "has_more": false }))
}

/// When a thread was made, from its id.
fn thread_created(t: &Thread) -> String {
    timestamp(crate::state::snowflake_ms(&t.id).unwrap_or(0))
}
