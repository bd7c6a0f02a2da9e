//! Get Guild Voice Regions.

use serde_json::{Value, json};

use crate::access::InGuild;
use crate::app::{R, ok};

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
pub async fn get_regions(call: InGuild) -> R {
    let st = call.state();
    let gi = call.index(&st)?;
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
