//! `rtc_region` checked against Get Guild Voice Regions: a channel that names a region
//! Discord does not offer this guild is refused at plan, before any call.

use crate::manifest::Channel;
use crate::plan_kit::context::Ctx;

pub(super) fn check_regions(cx: &mut Ctx) {
    let mut named: Vec<(String, String)> = Vec::new();
    fn walk(list: &[Channel], prefix: &str, out: &mut Vec<(String, String)>) {
        for (i, c) in list.iter().enumerate() {
            let source = format!("{prefix}[{i}]");
            if let Some(Some(region)) = &c.rtc_region {
                out.push((format!("{source}.rtc_region"), region.clone()));
            }
            if let Some(children) = &c.channels {
                walk(children, &format!("{source}.channels"), out);
            }
        }
    }
    walk(
        cx.manifest.channels.as_deref().unwrap_or_default(),
        "channels",
        &mut named,
    );
    if named.is_empty() {
        return;
    }
    let Some(regions) = cx.snap.doors.regions.clone() else {
        cx.warn(
            None,
            "the guild's voice regions could not be read: `rtc_region` values are not checked"
                .into(),
        );
        return;
    };
    let ids: Vec<&str> = regions
        .iter()
        .filter(|r| !r.deprecated)
        .map(|r| r.id.as_str())
        .collect();
    for (source, region) in named {
        if !ids.contains(&region.as_str()) {
            cx.problem(
                Some(source),
                format!("voice region `{region}` is not one Discord offers this guild"),
                Some(&format!(
                    "use one of {}, or null for automatic",
                    ids.join(", ")
                )),
            );
        }
    }
}
