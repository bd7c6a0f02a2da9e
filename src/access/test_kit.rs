//! What the access tests share: permissions by name, the role overwrites that hide or show a
//! channel, and the small guild they start from, whose #mod-log they set again as a plan
//! would; and policies of each kind, as `policies:` declares them.

use super::model::{ChannelSpec, Guild, Overwrite, ROLE};
use crate::discord::models::channel_type;
use crate::manifest::{HoldersRule, NeverRule, OnlyRule, PermissionName, Policy};
use crate::permissions::Permissions;

/// The permissions named (as a manifest names them).
pub(crate) fn p(names: &[&str]) -> Permissions {
    names
        .iter()
        .map(|n| Permissions::from_name(n).unwrap_or_else(|| panic!("{n}")))
        .fold(Permissions::NONE, |a, b| a | b)
}

pub(crate) fn deny_view(role: &str) -> Overwrite {
    Overwrite {
        target: role.into(),
        kind: ROLE,
        allow: Permissions::NONE,
        deny: Permissions::VIEW_CHANNEL,
    }
}

pub(crate) fn allow_view(role: &str) -> Overwrite {
    Overwrite {
        target: role.into(),
        kind: ROLE,
        allow: Permissions::VIEW_CHANNEL,
        deny: Permissions::NONE,
    }
}

/// Guild 1, no roles yet: @everyone reads and writes; #general (20) is open, and the
/// category Staff (21) and its #mod-log (22) are hidden from @everyone and seen by role 11.
pub(crate) fn staff_guild() -> Guild {
    let mut g = Guild::new("1", p(&["view_channel", "send_messages"]));
    set_general(&mut g, Vec::new(), None);
    let staff = vec![deny_view("1"), allow_view("11")];
    let category = Some(staff.clone());
    g.set_channel(
        ChannelSpec {
            id: "21",
            name: "Staff",
            kind: channel_type::CATEGORY,
            parent: None,
        },
        category,
        None,
        None,
    );
    set_mod_log(&mut g, staff, None, None);
    g
}

/// #general (20, outside categories) with `overwrites` now, set by the plan's change
/// `change`.
pub(crate) fn set_general(g: &mut Guild, overwrites: Vec<Overwrite>, change: Option<usize>) {
    g.set_channel(
        ChannelSpec {
            id: "20",
            name: "general",
            kind: channel_type::TEXT,
            parent: None,
        },
        Some(overwrites),
        None,
        change,
    );
}

/// #mod-log (22, in Staff) with `overwrites` now, declared at `source` and set by the
/// plan's change `change`.
pub(crate) fn set_mod_log(
    g: &mut Guild,
    overwrites: Vec<Overwrite>,
    source: Option<&str>,
    change: Option<usize>,
) {
    let (text, staff) = (channel_type::TEXT, Some("21"));
    g.set_channel(
        ChannelSpec {
            id: "22",
            name: "mod-log",
            kind: text,
            parent: staff,
        },
        Some(overwrites),
        source,
        change,
    );
}

fn texts(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Permissions by name, as a policy's `can` lists them.
pub(crate) fn perm_names(names: &[&str]) -> Vec<PermissionName> {
    names.iter().map(|n| PermissionName((*n).into())).collect()
}

/// A `never:` policy named `name`: `who` may not have `can` in `places` (everywhere: `None`).
pub(crate) fn never(name: &str, who: &str, can: &[&str], places: Option<&[&str]>) -> Policy {
    Policy {
        name: name.into(),
        never: Some(NeverRule {
            who: who.into(),
            can: perm_names(can),
            places: places.map(texts),
        }),
        ..Policy::default()
    }
}

/// An `only:` policy named `name`: only `who` may have `can` in `places`.
pub(crate) fn only(name: &str, who: &[&str], can: &[&str], places: Option<&[&str]>) -> Policy {
    Policy {
        name: name.into(),
        only: Some(OnlyRule {
            who: texts(who),
            can: perm_names(can),
            places: places.map(texts),
        }),
        ..Policy::default()
    }
}

/// A `holders:` policy named `name`: `role` held by `min` to `max` members.
pub(crate) fn holders(name: &str, role: &str, min: Option<u32>, max: Option<u32>) -> Policy {
    Policy {
        name: name.into(),
        holders: Some(HoldersRule {
            role: role.into(),
            min,
            max,
        }),
        ..Policy::default()
    }
}
