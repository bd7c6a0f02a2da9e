//! A channel's field changes: each declared field compared with the live channel's.

use serde_json::{Value, json};

use crate::discord::models::Channel as LiveChannel;
use crate::discord::names::stored_channel_name;
use crate::manifest::{ChannelType, VideoQualityMode};
use crate::plan::field;
use crate::plan_kit::context::ChangeBuilder;

use super::{Decl, flags};

pub(super) fn vqm_name(v: u64) -> Value {
    VideoQualityMode::from_value(v)
        .map(|m| json!(m.name()))
        .unwrap_or(json!(v))
}

/// Field changes of a channel against its live state (`None` for a new one), and warnings
/// about them for the plan, each with the field it is about (`name`, `tags`).
pub(super) fn channel_fields(
    d: &Decl,
    live: Option<&LiveChannel>,
) -> (ChangeBuilder, Vec<(&'static str, String)>) {
    let mut b = ChangeBuilder::new();
    let ch = d.ch;
    let stored = d.stored_name();
    let mut notes = Vec::new();
    if live
        .map(|l| stored_channel_name(d.kind, &l.name))
        .as_deref()
        != Some(&*stored)
    {
        b.set(
            field::Channel::Name,
            json!(live.map(|l| &l.name)),
            json!(stored),
            json!(ch.name),
        );
    } else if let Some(l) = live.filter(|l| l.name != stored) {
        notes.push((
            "name",
            crate::planner::roles::whitespace_note("channel", &l.name, &stored),
        ));
    }
    if let Some(l) = live
        && l.kind != d.kind
    {
        let name = |k: u8| {
            ChannelType::from_value(k.into())
                .map(|t| json!(t.name()))
                .unwrap_or(json!(k))
        };
        b.set(
            field::Channel::Type,
            name(l.kind),
            name(d.kind),
            json!(d.kind),
        );
    }
    if let Some(topic) = &ch.topic {
        let want = topic.clone().filter(|t| !t.is_empty());
        let have = live.and_then(|l| l.topic.clone()).filter(|t| !t.is_empty());
        if want != have && !(live.is_none() && want.is_none()) {
            b.set(field::Channel::Topic, json!(have), json!(want), json!(want));
        }
    }
    let nsfw = live.map(|l| l.nsfw.unwrap_or(false));
    b.compare(field::Channel::Nsfw, nsfw, ch.nsfw.map(Some));
    use field::Channel as F;
    // One row a number: its field, the manifest's value, the live one.
    #[rustfmt::skip]
    let numbers: [(F, Option<u32>, Option<u32>); 5] = [
        (F::Slowmode,                   ch.slowmode,                       live.map(|l| l.rate_limit_per_user.unwrap_or(0))),
        (F::Bitrate,                    ch.bitrate,                        live.and_then(|l| l.bitrate)),
        (F::UserLimit,                  ch.user_limit,                     live.map(|l| l.user_limit.unwrap_or(0))),
        (F::DefaultAutoArchiveDuration, ch.default_auto_archive_duration,  live.and_then(|l| l.default_auto_archive_duration)),
        (F::DefaultThreadSlowmode,      ch.default_thread_slowmode,        live.map(|l| l.default_thread_rate_limit_per_user.unwrap_or(0))),
    ];
    for (field, want, have) in numbers {
        if let Some(w) = want
            && have != Some(w)
        {
            b.set(field, json!(have), json!(w), json!(w));
        }
    }
    if let Some(region) = &ch.rtc_region {
        let have = live.and_then(|l| l.rtc_region.clone());
        if *region != have && !(live.is_none() && region.is_none()) {
            b.set(
                field::Channel::RtcRegion,
                json!(have),
                json!(region),
                json!(region),
            );
        }
    }
    if let Some(mode) = ch.video_quality_mode {
        let have = live.map(|l| l.video_quality_mode.unwrap_or(1));
        if have != Some(mode.value()) {
            b.set(
                field::Channel::VideoQualityMode,
                have.map(vqm_name).unwrap_or(Value::Null),
                json!(mode.name()),
                json!(mode.value()),
            );
        }
    }
    flags::flag_fields(&mut b, ch, d.kind, live);
    notes.extend(
        crate::planner::forum::forum_fields(&mut b, ch, d.kind, live)
            .into_iter()
            .map(|note| ("tags", note)),
    );
    (b, notes)
}
