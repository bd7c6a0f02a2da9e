//! An id names one object: no two roles, channels or webhooks of a manifest pin the same id.

use super::*;
use crate::manifest::types::Snowflake;

pub(super) fn unique_ids(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let roles = ctx.roles.iter().map(|(p, r)| (p.as_str(), r.id.as_ref()));
    let channels = ctx
        .channels
        .iter()
        .map(|c| (c.path.as_str(), c.channel.id.as_ref()));
    let webhook_paths: Vec<String> = (0..ctx.manifest.webhooks.as_ref().map_or(0, Vec::len))
        .map(|i| format!("webhooks[{i}]"))
        .collect();
    let webhooks = webhook_paths
        .iter()
        .zip(ctx.manifest.webhooks.iter().flatten())
        .map(|(p, w)| (p.as_str(), w.id.as_ref()));
    type Pinned<'a> = Vec<(&'a str, Option<&'a Snowflake>)>;
    let lists: [(&str, Pinned<'_>); 3] = [
        ("role", roles.collect()),
        ("channel", channels.collect()),
        ("webhook", webhooks.collect()),
    ];
    for (what, list) in lists {
        let mut seen: HashMap<&str, &str> = HashMap::new();
        for (path, id) in list {
            let Some(id) = id else { continue };
            if let Some(first) = seen.get(id.0.as_str()) {
                out.push(
                    Diagnostic::error(
                        format!("{path}.id"),
                        format!("{what} id {id} is also pinned by {first}"),
                    )
                    .with_help(format!(
                        "an id names one {what}: remove or correct one of them"
                    )),
                );
            } else {
                seen.insert(&id.0, path);
            }
        }
    }
}
