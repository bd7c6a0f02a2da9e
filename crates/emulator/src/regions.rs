//! Reads that help decisions: Get Guild Voice Regions and Get Guild Prune Count.

use axum::extract::{Path, RawQuery, State as AxState};
use serde_json::{Value, json};

use super::error::ApiError;
use crate::access::{guild_idx, need};
use crate::app::{App, Ctx, R, lock, ok, query_params};
use crate::perms::{guild_permissions, is_owner};
use crate::time::parse_timestamp;
use discord_permissions::Permissions;

/// Discord's voice regions (ids as `rtc_region` takes them); the first is optimal here.
pub const REGIONS: [(&str, &str); 13] = [
    ("us-east", "US East"),
    ("us-central", "US Central"),
    ("us-south", "US South"),
    ("us-west", "US West"),
    ("brazil", "Brazil"),
    ("hongkong", "Hong Kong"),
    ("india", "India"),
    ("japan", "Japan"),
    ("rotterdam", "Rotterdam"),
    ("russia", "Russia"),
    ("singapore", "Singapore"),
    ("southafrica", "South Africa"),
    ("sydney", "Sydney"),
];

/// `GET /guilds/{g}/regions`: any member; VIP regions when the guild has `VIP_REGIONS`.
pub async fn get_regions(AxState(app): AxState<App>, ctx: Ctx, Path(gid): Path<String>) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let vip = st.guilds[gi].has_feature("VIP_REGIONS");
    let region = |(id, name): (&str, &str), optimal: bool, custom: bool| json!({"id": id, "name": name, "optimal": optimal, "deprecated": false, "custom": custom});
    let mut out: Vec<Value> = REGIONS
        .iter()
        .enumerate()
        .map(|(i, r)| region(*r, i == 0, false))
        .collect();
    if vip {
        out.push(region(("vip-us-east", "VIP US East"), false, true));
    }
    ok(Value::Array(out))
}

/// `GET /guilds/{g}/prune?days=N&include_roles=a,b`: MANAGE_GUILD and KICK_MEMBERS →
/// `{pruned}`. The emulator knows no activity: a member counts as inactive since it
/// joined. Members with a role outside `include_roles`, the owner and bots are not
/// counted.
pub async fn get_prune_count(
    AxState(app): AxState<App>,
    ctx: Ctx,
    Path(gid): Path<String>,
    RawQuery(q): RawQuery,
) -> R {
    let st = lock(&app.state);
    let gi = guild_idx(&st, &gid, &ctx.user_id)?;
    let g = &st.guilds[gi];
    let p = guild_permissions(g, &ctx.user_id);
    need(p, Permissions::MANAGE_GUILD)?;
    need(p, Permissions::KICK_MEMBERS)?;
    let params = query_params(q);
    let days: u64 = match params.get("days") {
        None => 7,
        Some(d) => match d.parse::<u64>() {
            Ok(n) if (1..=30).contains(&n) => n,
            _ => {
                return Err(ApiError::field(
                    &["days"],
                    "NUMBER_TYPE_MAX",
                    "int value should be <= 30 and >= 1.",
                ));
            }
        },
    };
    let include: Vec<&str> = params
        .get("include_roles")
        .map(|s| s.split(',').filter(|r| !r.is_empty()).collect())
        .unwrap_or_default();
    let cutoff = st.now_ms().saturating_sub(days * 86_400_000);
    let pruned = g
        .members
        .iter()
        .filter(|m| !is_owner(g, &m.user_id))
        .filter(|m| !st.user(&m.user_id).is_some_and(|u| u.bot))
        .filter(|m| m.roles.iter().all(|r| include.contains(&r.as_str())))
        .filter(|m| parse_timestamp(&m.joined_at).is_some_and(|j| j < cutoff))
        .count();
    ok(json!({ "pruned": pruned }))
}
