//! The channel flags a manifest names (docs/discord.md §4.2): `require_tag`,
//! `spoiler`, `hide_media_download_options`, each one bit of the channel's `flags`. Only
//! the bits the manifest names are changed; Discord's other flags are sent back as they are.

use serde_json::{Value, json};

use crate::discord::models::{
    Channel as LiveChannel, HIDE_MEDIA_DOWNLOAD_OPTIONS, IS_SPOILER_CHANNEL, REQUIRE_TAG,
    channel_type,
};
use crate::manifest::Channel;
use crate::plan::field;
use crate::plan_kit::context::ChangeBuilder;

/// The flags a channel of type `kind` takes, each with the bit and what the manifest says.
fn declared(ch: &Channel, kind: u8) -> Vec<(field::Channel, u64, bool)> {
    let forum_like = matches!(kind, channel_type::FORUM | channel_type::MEDIA);
    let spoiler_types = [
        channel_type::TEXT,
        channel_type::VOICE,
        channel_type::ANNOUNCEMENT,
        channel_type::FORUM,
        channel_type::MEDIA,
    ];
    [
        (
            field::Channel::RequireTag,
            REQUIRE_TAG,
            ch.require_tag,
            forum_like,
        ),
        (
            field::Channel::Spoiler,
            IS_SPOILER_CHANNEL,
            ch.spoiler,
            spoiler_types.contains(&kind),
        ),
        (
            field::Channel::HideMediaDownloadOptions,
            HIDE_MEDIA_DOWNLOAD_OPTIONS,
            ch.hide_media_download_options,
            kind == channel_type::MEDIA,
        ),
    ]
    .into_iter()
    // A flag of another type is ignored, as Discord ignores it (the checks refuse it first).
    .filter_map(|(f, bit, want, applies)| want.filter(|_| applies).map(|w| (f, bit, w)))
    .collect()
}

/// Adds a field change for each declared flag that differs from `live` (`None`: the
/// channel is created). Every change sends the same `flags`: the live value with all the
/// declared bits set as declared, so two flags changed at once are one value.
pub(super) fn flag_fields(
    b: &mut ChangeBuilder,
    ch: &Channel,
    kind: u8,
    live: Option<&LiveChannel>,
) {
    let wanted = declared(ch, kind);
    let have = live.map_or(0, |l| l.flags);
    let after = wanted.iter().fold(
        have,
        |flags, &(_, bit, on)| {
            if on { flags | bit } else { flags & !bit }
        },
    );
    for (field, bit, on) in wanted {
        if (have & bit != 0) != on {
            // A new channel is shown with its value alone.
            let before = if live.is_some() {
                json!(!on)
            } else {
                Value::Null
            };
            b.set(field, before, json!(on), json!(after));
        }
    }
}

/// Whether the channel is a spoiler channel once the plan is applied.
pub(super) fn spoiler_after(ch: &Channel, live: Option<&LiveChannel>) -> bool {
    ch.spoiler
        .unwrap_or_else(|| live.is_some_and(|l| l.flags & IS_SPOILER_CHANNEL != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(kind: u8, flags: u64) -> LiveChannel {
        serde_json::from_value(json!({
            "id": "1", "type": kind, "name": "c", "position": 0, "flags": flags,
            "permission_overwrites": [],
        }))
        .expect("a channel")
    }

    fn declared(v: Value) -> Channel {
        serde_json::from_value(v).expect("a channel entry")
    }

    #[test]
    fn every_change_sends_one_value_with_all_the_named_bits_and_the_others_kept() {
        let other = 1 << 6;
        let ch = declared(json!({
            "name": "art", "type": "media", "spoiler": true,
            "hide_media_download_options": true, "require_tag": false,
        }));
        let live = live(channel_type::MEDIA, other | REQUIRE_TAG);
        let mut b = ChangeBuilder::new();
        flag_fields(&mut b, &ch, channel_type::MEDIA, Some(&live));
        let names: Vec<String> = b
            .fields
            .iter()
            .map(|f| f.field.name().into_owned())
            .collect();
        assert_eq!(
            names,
            ["require_tag", "spoiler", "hide_media_download_options"]
        );
        assert_eq!(
            b.body["flags"],
            json!(other | IS_SPOILER_CHANNEL | HIDE_MEDIA_DOWNLOAD_OPTIONS)
        );
    }

    #[test]
    fn flags_left_out_or_of_another_type_change_nothing() {
        let ch = declared(json!({ "name": "general", "hide_media_download_options": true }));
        let mut b = ChangeBuilder::new();
        flag_fields(
            &mut b,
            &ch,
            channel_type::TEXT,
            Some(&live(channel_type::TEXT, 0)),
        );
        assert!(b.is_empty(), "Discord ignores it on a text channel");
        let ch = declared(json!({ "name": "general" }));
        flag_fields(
            &mut b,
            &ch,
            channel_type::TEXT,
            Some(&live(channel_type::TEXT, IS_SPOILER_CHANNEL)),
        );
        assert!(b.is_empty(), "left out: left as it is");
    }
}
