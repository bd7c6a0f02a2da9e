//! Get Guild Voice Regions.

use axum::extract::{Path, State as AxState};
use serde_json::{Value, json};

use crate::access::guild_idx;
use crate::app::{App, Ctx, R, lock, ok};

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
