//! Rules for the ways into the guild (`invites:`): the channels an invite rule names.

use super::*;

/// The channels of `invites.rules[].channels`, through the one resolver every reference
/// takes: any channel but a category, and a previous name is an error naming the new one.
pub(super) fn invite_channels(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let rules = ctx.manifest.invites.iter().flat_map(|i| &i.rules);
    for (r, rule) in rules.enumerate() {
        for (k, channel) in rule.channels.iter().flatten().enumerate() {
            let at = format_args!("invites.rules[{r}].channels[{k}]");
            ctx.check_channel_ref(&at, "an invite rule's channel", channel, &[], out);
        }
    }
}
