//! What emoji, stickers and soundboard sounds share (docs/discord.md §10.2): who may
//! create, change and see the creator of one since the permission split of 2026-02-23,
//! how many a guild may hold by boost tier, and the upload size error.

use discord_permissions::Permissions;
use serde_json::Value;

use crate::access::need;
use crate::error::ApiError;
use crate::render;
use crate::state::{EmulatorConfig, Guild, State};

/// The three kinds of expressions, for their slot counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Emoji,
    Sticker,
    Sound,
}

/// Creating needs CREATE_GUILD_EXPRESSIONS: since 2026-02-23 MANAGE_GUILD_EXPRESSIONS
/// alone no longer suffices for a bot (403 50013).
pub(crate) fn may_create(p: Permissions) -> Result<(), ApiError> {
    need(p, Permissions::CREATE_GUILD_EXPRESSIONS)
}

/// Changing or deleting one: anyone's with MANAGE_GUILD_EXPRESSIONS, one's own with
/// CREATE_GUILD_EXPRESSIONS too.
pub(crate) fn may_change(
    p: Permissions,
    creator: Option<&str>,
    actor: &str,
) -> Result<(), ApiError> {
    let own = creator == Some(actor);
    if p.contains(Permissions::MANAGE_GUILD_EXPRESSIONS)
        || (own && p.contains(Permissions::CREATE_GUILD_EXPRESSIONS))
    {
        Ok(())
    } else {
        Err(ApiError::missing_permissions())
    }
}

/// Whether reads show who made the expressions: with either expression permission (the
/// docs of the lists, stickers and sounds).
pub(crate) fn shows_creators(p: Permissions) -> bool {
    p.contains(Permissions::CREATE_GUILD_EXPRESSIONS)
        || p.contains(Permissions::MANAGE_GUILD_EXPRESSIONS)
}

/// The creator as a user object, when `show` and the emulator knows the user.
pub(crate) fn creator(st: &State, user_id: Option<&str>, show: bool) -> Option<Value> {
    if !show {
        return None;
    }
    user_id.and_then(|u| st.user(u)).map(render::user)
}

/// How many of `kind` the guild may hold (of each of static and animated, for emoji): by
/// boost tier 0–3, raised to the configured number by the MORE_* feature.
pub(crate) fn slots(kind: Kind, g: &Guild, cfg: &EmulatorConfig) -> usize {
    let tier = usize::from(g.premium_tier.min(3));
    let (by_tier, feature, more) = match kind {
        Kind::Emoji => ([50, 100, 150, 250], "MORE_EMOJI", cfg.more_emoji_slots),
        Kind::Sticker => ([5, 15, 30, 60], "MORE_STICKERS", cfg.more_sticker_slots),
        Kind::Sound => (
            [8, 24, 36, 48],
            "MORE_SOUNDBOARD",
            cfg.more_soundboard_slots,
        ),
    };
    if g.has_feature(feature) {
        by_tier[tier].max(more)
    } else {
        by_tier[tier]
    }
}

/// 400 50035 for an upload over `max_kib` KiB, as Discord words it
/// (`image[BINARY_TYPE_MAX_SIZE]: File cannot be larger than 256.0 kb.`).
pub(crate) fn too_large(field: &str, max_kib: usize) -> ApiError {
    ApiError::field(
        &[field],
        "BINARY_TYPE_MAX_SIZE",
        &format!("File cannot be larger than {max_kib}.0 kb."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guild(tier: u8, features: &[&str]) -> Guild {
        let mut g: Guild = serde_json::from_value(serde_json::json!({
            "id": "1", "name": "g", "owner_id": "2"
        }))
        .unwrap();
        g.premium_tier = tier;
        g.features = features.iter().map(|f| (*f).to_owned()).collect();
        g
    }

    #[test]
    fn slots_follow_the_boost_tier_and_the_features_raise_them() {
        let cfg = EmulatorConfig::default();
        let per_tier = |kind| {
            (0..4)
                .map(|t| slots(kind, &guild(t, &[]), &cfg))
                .collect::<Vec<_>>()
        };
        assert_eq!(per_tier(Kind::Emoji), [50, 100, 150, 250]);
        assert_eq!(per_tier(Kind::Sticker), [5, 15, 30, 60]);
        assert_eq!(per_tier(Kind::Sound), [8, 24, 36, 48]);
        assert_eq!(slots(Kind::Emoji, &guild(0, &["MORE_EMOJI"]), &cfg), 200);
        assert_eq!(slots(Kind::Emoji, &guild(3, &["MORE_EMOJI"]), &cfg), 250);
        assert_eq!(
            slots(Kind::Sticker, &guild(1, &["MORE_STICKERS"]), &cfg),
            60
        );
        assert_eq!(
            slots(Kind::Sound, &guild(0, &["MORE_SOUNDBOARD"]), &cfg),
            48
        );
        // Another kind's feature does nothing.
        assert_eq!(slots(Kind::Sound, &guild(0, &["MORE_EMOJI"]), &cfg), 8);
    }

    #[test]
    fn own_expressions_need_create_and_others_manage() {
        let create = Permissions::CREATE_GUILD_EXPRESSIONS;
        let manage = Permissions::MANAGE_GUILD_EXPRESSIONS;
        assert!(may_create(create).is_ok());
        assert_eq!(may_create(manage).unwrap_err().code, 50013);
        assert!(may_change(create, Some("me"), "me").is_ok());
        assert!(may_change(create, Some("them"), "me").is_err());
        assert!(may_change(create, None, "me").is_err());
        assert!(may_change(manage, Some("them"), "me").is_ok());
        assert!(may_change(Permissions::NONE, Some("me"), "me").is_err());
    }
}
