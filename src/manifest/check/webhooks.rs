//! Rules for webhooks (docs/discord.md §6): names Discord accepts, each used once in a
//! channel, and the channels they post in.

use super::*;
use crate::manifest::types::Webhook;

/// Webhooks post in text-like channels.
const WEBHOOK_CHANNELS: &[ChannelType] = &[
    ChannelType::Text,
    ChannelType::Announcement,
    ChannelType::Forum,
    ChannelType::Media,
];

/// A webhook's place, `webhooks[i]`: written out only in a diagnostic (a guild has up to a
/// thousand webhooks, and most have nothing to say).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct WebhookAt(usize);

impl std::fmt::Display for WebhookAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "webhooks[{}]", self.0)
    }
}

pub(super) fn webhook_list(m: &Manifest) -> impl Iterator<Item = (WebhookAt, &Webhook)> {
    m.webhooks
        .iter()
        .flatten()
        .enumerate()
        .map(|(i, w)| (WebhookAt(i), w))
}

pub(super) fn webhook_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let hooks: Vec<_> = webhook_list(ctx.manifest).collect();
    for (path, w) in &hooks {
        Text("webhook name", WEBHOOK_NAME_LEN).check(out, format_args!("{path}.name"), &w.name);
        let lower = w.name.to_lowercase();
        if let Some(word) = WEBHOOK_NAME_FORBIDDEN.iter().find(|f| lower.contains(*f)) {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!(
                        "webhook name \"{}\" contains \"{word}\": Discord refuses webhook names \
                         containing \"clyde\" or \"discord\", in any case",
                        w.name
                    ),
                )
                .with_help("choose a name without \"clyde\" or \"discord\""),
            );
        }
    }
    let mut by_name: HashMap<&str, WebhookAt> = HashMap::new();
    let names = hooks.iter().map(|(_, w)| (w.name.as_str(), w.id.is_some()));
    let rule = (
        "webhook",
        "webhooks are matched by name: rename one \
         (webhooks of the same name are allowed only when each pins its `id`)",
    );
    for (name, first) in duplicate_names(names, |i| hooks[i].0.to_string(), rule, out) {
        by_name.insert(name, hooks[first].0);
    }
    let mut previous: HashMap<&str, WebhookAt> = HashMap::new();
    for (path, w) in &hooks {
        for (k, old) in w.previous_names.iter().enumerate() {
            let here = format!("{path}.previous_names[{k}]");
            if let Some(owner) = by_name.get(old.as_str()) {
                let msg = if owner == path {
                    format!(
                        "webhook \"{}\" lists its own name in previous_names",
                        w.name
                    )
                } else {
                    format!(
                        "\"{old}\" is a previous name of webhook \"{}\" but also the name of {owner}",
                        w.name
                    )
                };
                out.push(Diagnostic::error(here, msg).with_help(
                    "a live webhook called this would match two entries: drop the previous name",
                ));
            } else if let Some(other) = previous.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one webhook only"),
                );
            } else {
                previous.insert(old, *path);
            }
        }
    }
}

pub(super) fn webhook_channels(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut per_channel: HashMap<Identity, usize> = HashMap::new();
    for (path, w) in webhook_list(ctx.manifest) {
        let found = ctx.check_channel_ref(
            &format_args!("{path}.channel"),
            "a webhook's channel",
            &w.channel,
            WEBHOOK_CHANNELS,
            out,
        );
        // The reference's identity ([`Ctx::channel_identity`]) from the lookup just made.
        let identity = match found {
            Some(i) => Identity::Channel(i),
            None => Identity::Written(w.channel.clone()),
        };
        let n = per_channel.entry(identity).or_default();
        *n += 1;
        if *n == WEBHOOKS_PER_CHANNEL_MAX + 1 {
            out.push(
                Diagnostic::error(
                    format!("{path}.channel"),
                    format!(
                        "{} webhooks declared in channel \"{}\"; Discord allows {WEBHOOKS_PER_CHANNEL_MAX} per channel",
                        *n, w.channel
                    ),
                )
                .with_help("spread the webhooks over several channels"),
            );
        }
    }
}
