//! Rules for the tags of forum and media channels (docs/discord.md §9.5). Which
//! channel types take the forum fields is `channel-field-applicability`'s.

use hashbrown::HashMap;

use super::*;

/// Tag counts, names (lengths, duplicates, previous names that are another tag's name),
/// emoji, and `require_tag` with an empty list of tags.
pub(super) fn forum_tags(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        let ch = c.channel;
        if let Some(Some(e)) = &ch.default_reaction {
            check_emoji(format!("{}.default_reaction", c.path), e, out);
        }
        let Some(tags) = &ch.tags else { continue };
        let path = format!("{}.tags", c.path);
        if tags.len() > TAGS_MAX {
            out.push(
                Diagnostic::error(
                    path.clone(),
                    format!(
                        "{} tags on \"{}\"; Discord allows {TAGS_MAX}",
                        tags.len(),
                        ch.name
                    ),
                )
                .with_help("remove tags, or merge some of them"),
            );
        }
        if tags.is_empty() && ch.require_tag == Some(true) {
            out.push(
                Diagnostic::error(
                    format!("{}.require_tag", c.path),
                    format!(
                        "\"{}\" requires a tag on every post but declares no tags",
                        ch.name
                    ),
                )
                .with_help("declare at least one tag under `tags`, or remove `require_tag`"),
            );
        }
        let mut ids: HashMap<&str, String> = HashMap::new();
        for (k, t) in tags.iter().enumerate() {
            let Some(id) = &t.id else { continue };
            let here = format!("{path}[{k}]");
            if let Some(first) = ids.get(id.0.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{here}.id"),
                        format!("tag id {id} is pinned twice (first at {first})"),
                    )
                    .with_help("a live tag is one entry: remove one of the ids"),
                );
            } else {
                ids.insert(&id.0, here);
            }
        }
        let mut names: HashMap<&str, String> = HashMap::new();
        for (k, t) in tags.iter().enumerate() {
            let here = format!("{path}[{k}]");
            Text("tag name", TAG_NAME_LEN).check(out, format_args!("{here}.name"), &t.name);
            if let Some(first) = names.get(t.name.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{here}.name"),
                        format!("duplicate tag name \"{}\" (first at {first})", t.name),
                    )
                    .with_help(
                        "tags are matched to live ones by name, so each name is used once: \
                         rename or remove one",
                    ),
                );
            } else {
                names.insert(&t.name, here.clone());
            }
            if let Some(e) = &t.emoji {
                check_emoji(format!("{here}.emoji"), e, out);
            }
        }
        let mut previous: HashMap<&str, String> = HashMap::new();
        for (k, t) in tags.iter().enumerate() {
            for (j, old) in t.previous_names.iter().enumerate() {
                let here = format!("{path}[{k}].previous_names[{j}]");
                let clash = if old == &t.name {
                    Some(format!(
                        "tag \"{}\" lists its own name in previous_names",
                        t.name
                    ))
                } else if let Some(owner) = names.get(old.as_str()) {
                    Some(format!(
                        "\"{old}\" is a previous name of tag \"{}\" but also the name of {owner}",
                        t.name
                    ))
                } else {
                    previous
                        .get(old.as_str())
                        .map(|other| format!("previous name \"{old}\" is also listed by {other}"))
                };
                match clash {
                    Some(message) => out.push(Diagnostic::error(here, message).with_help(
                        "a live tag called this would match two entries: drop the previous name",
                    )),
                    None => {
                        previous.insert(old, format!("{path}[{k}]"));
                    }
                }
            }
        }
    }
}
