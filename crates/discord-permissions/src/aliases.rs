//! The names other tools and Discord's own pages give permissions, so a manifest written
//! from them gets the right name back instead of the nearest spelling.

/// An alias: the name as other tools write it (in snake_case, see [`our_spelling`]), the
/// permission it means, and whose name it is, worded to read "`alias` is {source} for
/// `name`" ("discord.py's and Discord's earlier name").
pub struct Alias {
    pub alias: &'static str,
    pub name: &'static str,
    pub source: &'static str,
}

const fn a(alias: &'static str, name: &'static str, source: &'static str) -> Alias {
    Alias {
        alias,
        name,
        source,
    }
}

/// Names used elsewhere that differ from ours (after [`our_spelling`]): Discord's earlier
/// names, the labels of Discord's app and developer portal, discord.py, discord.js,
/// hikari, twilight and the Terraform providers. A name another tool spells exactly as
/// we do (most of them) needs no entry.
pub const ALIASES: &[Alias] = &[
    a(
        "read_messages",
        "view_channel",
        "discord.py's and Discord's earlier name",
    ),
    a(
        "view_channels",
        "view_channel",
        "Discord's app's name (\"View Channels\")",
    ),
    a(
        "read_messages_view_channels",
        "view_channel",
        "the developer portal's name (\"Read Messages/View Channels\")",
    ),
    a(
        "manage_server",
        "manage_guild",
        "Discord's app's name (\"Manage Server\")",
    ),
    a(
        "view_server_insights",
        "view_guild_insights",
        "Discord's app's name (\"View Server Insights\")",
    ),
    a(
        "create_invite",
        "create_instant_invite",
        "Discord's app's name (\"Create Invite\")",
    ),
    a("video", "stream", "Discord's app's name (\"Video\")"),
    a(
        "view_audit_logs",
        "view_audit_log",
        "a common misspelling of Discord's name",
    ),
    a(
        "manage_permissions",
        "manage_roles",
        "discord.py's name (in channel overwrites)",
    ),
    a(
        "external_emojis",
        "use_external_emojis",
        "discord.py's name",
    ),
    a(
        "external_stickers",
        "use_external_stickers",
        "discord.py's name",
    ),
    a("use_voice_activation", "use_vad", "discord.py's name"),
    a(
        "use_voice_activity",
        "use_vad",
        "Discord's app's name (\"Use Voice Activity\")",
    ),
    a(
        "manage_emojis",
        "manage_guild_expressions",
        "Discord's earlier name, and discord.py's and the Terraform providers'",
    ),
    a(
        "manage_emojis_and_stickers",
        "manage_guild_expressions",
        "Discord's earlier name, and discord.js's, hikari's and twilight's",
    ),
    a(
        "manage_expressions",
        "manage_guild_expressions",
        "discord.py's and Discord's app's name (\"Manage Expressions\")",
    ),
    a(
        "create_expressions",
        "create_guild_expressions",
        "discord.py's and Discord's app's name (\"Create Expressions\")",
    ),
    a(
        "use_slash_commands",
        "use_application_commands",
        "Discord's earlier name, and twilight's and the developer portal's",
    ),
    a(
        "use_public_threads",
        "create_public_threads",
        "Discord's earlier name",
    ),
    a(
        "use_private_threads",
        "create_private_threads",
        "Discord's earlier name",
    ),
    a(
        "send_thread_messages",
        "send_messages_in_threads",
        "other tools' spelling",
    ),
    a(
        "start_embedded_activities",
        "use_embedded_activities",
        "Discord's earlier name, and hikari's, twilight's and the Terraform providers'",
    ),
    a(
        "use_activities",
        "use_embedded_activities",
        "Discord's app's name (\"Use Activities\")",
    ),
    a(
        "timeout_members",
        "moderate_members",
        "Discord's app's name (\"Timeout Members\")",
    ),
    a(
        "create_polls",
        "send_polls",
        "Discord's app's name (\"Create Polls\")",
    ),
];

/// `word` in our spelling: snake_case from `VIEW_CHANNEL` (Discord's docs, hikari,
/// twilight), `ViewChannel` (discord.js), `Manage Server` or `manage-server` (labels),
/// with `/` and other separators as `_`.
pub fn our_spelling(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 4);
    let chars: Vec<char> = word.trim().chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            // A capital after a lower-case letter or a digit starts a word (ViewChannel),
            // and so does a capital before a lower-case letter in a run of capitals (UseVADx).
            let starts_word = c.is_ascii_uppercase()
                && i > 0
                && (chars[i - 1].is_ascii_lowercase()
                    || chars[i - 1].is_ascii_digit()
                    || (chars[i - 1].is_ascii_uppercase()
                        && chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase())));
            if starts_word && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// The alias `word` is (in any spelling [`our_spelling`] reads), if it is one.
pub fn alias(word: &str) -> Option<&'static Alias> {
    let ours = our_spelling(word);
    ALIASES.iter().find(|a| a.alias == ours)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Permissions;

    #[test]
    fn every_alias_names_a_permission_and_is_not_one_of_ours() {
        for a in ALIASES {
            assert!(
                Permissions::from_name(a.name).is_some(),
                "{} -> {}",
                a.alias,
                a.name
            );
            assert_eq!(
                our_spelling(a.alias),
                a.alias,
                "aliases are written our way"
            );
            assert!(Permissions::from_name(a.alias).is_none(), "{}", a.alias);
        }
    }

    #[test]
    fn spellings_of_other_tools_become_ours() {
        for (theirs, ours) in [
            ("VIEW_CHANNEL", "view_channel"),
            ("ViewChannel", "view_channel"),
            ("UseVAD", "use_vad"),
            ("Manage Server", "manage_server"),
            ("manage-emojis-and-stickers", "manage_emojis_and_stickers"),
            ("Read Messages/View Channels", "read_messages_view_channels"),
            ("SendMessagesInThreads", "send_messages_in_threads"),
            ("  kick_members ", "kick_members"),
        ] {
            assert_eq!(our_spelling(theirs), ours, "{theirs}");
        }
    }

    #[test]
    fn aliases_point_at_the_right_permission() {
        assert_eq!(alias("read_messages").unwrap().name, "view_channel");
        assert_eq!(
            alias("ManageEmojisAndStickers").unwrap().name,
            "manage_guild_expressions"
        );
        assert_eq!(
            alias("USE_SLASH_COMMANDS").unwrap().name,
            "use_application_commands"
        );
        assert_eq!(alias("Timeout Members").unwrap().name, "moderate_members");
        assert_eq!(alias("use_voice_activation").unwrap().name, "use_vad");
        assert_eq!(alias("create_polls").unwrap().name, "send_polls");
        assert_eq!(
            alias("send_thread_messages").unwrap().name,
            "send_messages_in_threads"
        );
        assert_eq!(
            alias("manage_emojis").unwrap().name,
            "manage_guild_expressions"
        );
        assert!(
            alias("view_channel").is_none(),
            "our own names are not aliases"
        );
    }
}
