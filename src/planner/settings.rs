//! Guild settings: one PATCH with the fields that differ, including the
//! mutable features (COMMUNITY, INVITES_DISABLED, RAID_ALERTS_DISABLED).

use serde_json::{Value, json};

use crate::discord::Route;
use crate::discord::models::channel_type;
use crate::manifest::{
    ExplicitContentFilter, MessageNotifications, Settings, SystemChannelFlag, VerificationLevel,
};
use crate::plan::{Action, Field, IdRef, Kind, Phase, field};
use crate::plan_kit::context::{ChangeBuilder, Ctx, Op, change};

const COMMUNITY: &str = "COMMUNITY";

/// Checks the settings the live guild did not say (a Discord-compatible server may leave
/// some out): one the manifest manages refuses the plan, since guildctl will not change a
/// value it cannot read; the others are said once. False when the plan is refused.
fn unknown_fields_known(cx: &mut Ctx, settings: Option<&Settings>) -> bool {
    // Every settings field is left out of the serialised settings when unmanaged.
    let managed = settings
        .and_then(|s| serde_json::to_value(s).ok())
        .unwrap_or_default();
    let guild_path = Route::UpdateGuild { guild: cx.guild() }.path();
    let mut known = true;
    for field in cx.snap.guild.unknown.clone() {
        let (setting, api) = (field.setting, field.api);
        if managed.get(setting).is_some() {
            known = false;
            cx.problem(
                Some(format!("settings.{setting}")),
                format!(
                    "the live guild's `{setting}` is unknown: GET {guild_path} did not return `{api}`, so guildctl cannot tell what it would change"
                ),
                Some(
                    "leave this setting out of the manifest for this server (a Discord-compatible server may not have it), or set it in the server's own settings",
                ),
            );
        } else {
            cx.warn(
                None,
                format!(
                    "GET {guild_path} did not return `{api}`; the manifest does not manage `settings.{setting}`, so it is left as it is, unknown"
                ),
            );
        }
    }
    known
}

/// A channel setting: the field, desired name, live id, allowed types.
type ChannelSetting<'a> = (
    field::Guild,
    &'a Option<Option<String>>,
    &'a Option<String>,
    &'static [u8],
);

pub(super) fn plan_settings(cx: &mut Ctx) {
    let settings = cx.manifest.settings.clone();
    if !unknown_fields_known(cx, settings.as_ref()) {
        return;
    }
    let Some(s) = settings else {
        return;
    };
    let g = &cx.snap.guild;
    let mut b = ChangeBuilder::new();
    b.compare(field::Guild::Name, g.name.clone(), s.name.clone());
    compare_description(
        &mut b,
        field::Guild::Description,
        &s.description,
        &g.description,
    );
    enum_field(
        &mut b,
        field::Guild::VerificationLevel,
        g.verification_level,
        s.verification_level.map(|v| (v.value(), v.name())),
        |v| VerificationLevel::from_value(v).map(VerificationLevel::name),
    );
    enum_field(
        &mut b,
        field::Guild::DefaultMessageNotifications,
        g.default_message_notifications,
        s.default_message_notifications
            .map(|v| (v.value(), v.name())),
        |v| MessageNotifications::from_value(v).map(MessageNotifications::name),
    );
    enum_field(
        &mut b,
        field::Guild::ExplicitContentFilter,
        g.explicit_content_filter,
        s.explicit_content_filter.map(|v| (v.value(), v.name())),
        |v| ExplicitContentFilter::from_value(v).map(ExplicitContentFilter::name),
    );
    b.compare(
        field::Guild::AfkTimeout,
        g.afk_timeout,
        s.afk_timeout.map(u64::from),
    );
    use channel_type::{TEXT, VOICE};
    use field::Guild as F;
    // One row a setting: its field, the manifest's channel, the live id, the types it takes.
    #[rustfmt::skip]
    let channel_settings: [ChannelSetting; 5] = [
        (F::AfkChannel,           &s.afk_channel,            &g.afk_channel_id,            &[VOICE]),
        (F::SystemChannel,        &s.system_channel,         &g.system_channel_id,         &[TEXT]),
        (F::RulesChannel,         &s.rules_channel,          &g.rules_channel_id,          &[TEXT]),
        (F::PublicUpdatesChannel, &s.public_updates_channel, &g.public_updates_channel_id, &[TEXT]),
        (F::SafetyAlertsChannel,  &s.safety_alerts_channel,  &g.safety_alerts_channel_id,  &[TEXT]),
    ];
    let mut resolved: Vec<(field::Guild, Option<IdRef>)> = Vec::new();
    for (field, want, have, kinds) in channel_settings {
        let Some(want) = want else {
            resolved.push((field, have.clone().map(IdRef::Live)));
            continue;
        };
        let source = format!("settings.{}", field.name());
        let target = match want {
            None => None,
            Some(name) => match cx.resolve_channel(name, &source, kinds) {
                Some(id) => Some(id),
                None => continue,
            },
        };
        let have_ref = have.clone().map(IdRef::Live);
        if target != have_ref {
            let before = json!(
                have.as_deref()
                    .and_then(|id| cx.snap.channel(id))
                    .map(|c| c.name.clone())
            );
            b.set(
                field,
                before,
                json!(want),
                target.as_ref().map(IdRef::to_value).unwrap_or(Value::Null),
            );
        }
        resolved.push((field, target));
    }
    if let Some(flags) = &s.system_channel_flags {
        let want = flags.iter().fold(0, |acc, f| acc | f.value());
        if want != g.system_channel_flags {
            let names = |bits: u64| -> Value {
                let mut v: Vec<Value> = [1u64, 2, 4, 8, 16, 32]
                    .into_iter()
                    .filter(|bit| bits & bit != 0)
                    .map(|bit| {
                        SystemChannelFlag::from_value(bit)
                            .map(|f| json!(f.name()))
                            .unwrap_or(json!(bit))
                    })
                    .collect();
                let unknown = bits & !63;
                if unknown != 0 {
                    v.push(json!(unknown));
                }
                Value::Array(v)
            };
            // Bits guildctl has no name for are kept.
            let api = want | (g.system_channel_flags & !63);
            b.set(
                field::Guild::SystemChannelFlags,
                names(g.system_channel_flags),
                names(api),
                json!(api),
            );
        }
    }
    b.compare(
        field::Guild::PreferredLocale,
        g.preferred_locale.clone(),
        s.preferred_locale.clone(),
    );
    b.compare(
        field::Guild::PremiumProgressBarEnabled,
        g.premium_progress_bar_enabled,
        s.premium_progress_bar_enabled,
    );
    crate::plan_kit::images::guild_images(cx, &s, &mut b);
    let enabling = plan_features(cx, &s, &mut b);
    if enabling {
        check_community_prerequisites(cx, &s, &resolved, &mut b);
    }
    if b.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        Kind::Guild,
        cx.snap.guild.name.clone(),
        Some(cx.guild_id.clone()),
        b.fields,
        Some("settings".into()),
    ));
    let route = Route::UpdateGuild { guild: cx.guild() };
    cx.push_op(
        Op::new(Phase::Settings, idx, route, "update guild settings".into())
            .body(Value::Object(b.body)),
    );
}

/// A description, the guild's or its welcome screen's, where empty text is none: set
/// when one is declared (`null` clears it) and differs from the live one.
pub(super) fn compare_description(
    b: &mut ChangeBuilder,
    field: impl Into<Field>,
    declared: &Option<Option<String>>,
    live: &Option<String>,
) {
    let Some(desc) = declared else {
        return;
    };
    let want = desc.clone().filter(|d| !d.is_empty());
    let have = live.clone().filter(|d| !d.is_empty());
    if want != have {
        b.set(field, json!(have), json!(want), json!(want));
    }
}

fn enum_field(
    b: &mut ChangeBuilder,
    field: field::Guild,
    live: u64,
    want: Option<(u64, &'static str)>,
    name_of: impl Fn(u64) -> Option<&'static str>,
) {
    if let Some((value, name)) = want
        && value != live
    {
        let before = name_of(live).map(|n| json!(n)).unwrap_or(json!(live));
        b.set(field, before, json!(name), json!(value));
    }
}

/// Adds the mutable features to the PATCH when they change. Returns whether
/// COMMUNITY is being turned on.
fn plan_features(cx: &Ctx, s: &Settings, b: &mut ChangeBuilder) -> bool {
    let g = &cx.snap.guild;
    let mut features = g.features.clone();
    let mut enabling = false;
    let wanted = [
        (field::Guild::Community, COMMUNITY, s.community),
        (
            field::Guild::InvitesDisabled,
            "INVITES_DISABLED",
            s.invites_disabled,
        ),
        (
            field::Guild::RaidAlertsDisabled,
            "RAID_ALERTS_DISABLED",
            s.raid_alerts_disabled,
        ),
    ];
    for (field, feature, want) in wanted {
        let Some(want) = want else { continue };
        let have = g.has_feature(feature);
        if want == have {
            continue;
        }
        if want {
            features.push(feature.to_owned());
        } else {
            features.retain(|f| f != feature);
        }
        enabling |= feature == COMMUNITY && want;
        // The body carries the whole list, once, below.
        b.show(field, json!(have), json!(want));
    }
    if features != g.features {
        // Discord takes the full list and ignores the features that cannot be changed.
        b.body.insert("features".into(), json!(features));
    }
    enabling
}

/// COMMUNITY needs rules and updates channels in the same PATCH, verification at
/// least low and the explicit content filter on all members (docs/discord.md §5.2).
fn check_community_prerequisites(
    cx: &mut Ctx,
    s: &Settings,
    resolved: &[(field::Guild, Option<IdRef>)],
    b: &mut ChangeBuilder,
) {
    let g = &cx.snap.guild;
    for (field, what) in [
        (field::Guild::RulesChannel, "rules"),
        (field::Guild::PublicUpdatesChannel, "public updates"),
    ] {
        let key = field.api().unwrap_or_default();
        match resolved.iter().find(|(f, _)| *f == field).and_then(|(_, v)| v.clone()) {
            Some(id) => {
                b.body.entry(key).or_insert_with(|| id.to_value());
            }
            None => cx.problem(
                Some("settings.community".into()),
                format!("COMMUNITY needs a {what} channel; none is set"),
                Some("set `settings.rules_channel` and `settings.public_updates_channel` to text channels"),
            ),
        }
    }
    let verification = s
        .verification_level
        .map(VerificationLevel::value)
        .unwrap_or(g.verification_level);
    if verification < VerificationLevel::Low.value() {
        cx.problem(
            Some("settings.verification_level".into()),
            "COMMUNITY needs verification level `low` or higher".into(),
            Some("set `settings.verification_level: low` (or higher)"),
        );
    }
    let filter = s
        .explicit_content_filter
        .map(ExplicitContentFilter::value)
        .unwrap_or(g.explicit_content_filter);
    if filter != ExplicitContentFilter::AllMembers.value() {
        cx.problem(
            Some("settings.explicit_content_filter".into()),
            "COMMUNITY needs the explicit content filter on `all_members`".into(),
            Some("set `settings.explicit_content_filter: all_members`"),
        );
    }
    b.body
        .entry("verification_level")
        .or_insert(json!(verification));
    b.body
        .entry("explicit_content_filter")
        .or_insert(json!(filter));
}
