//! Rules for permissions and overwrites: permission names Discord knows (on roles and in
//! overwrites), one role or member per overwrite and one overwrite per target in a channel,
//! nothing both allowed and denied, and the roles overwrites name.

use super::*;
use crate::manifest::types::{Overwrite, PermissionName};
use crate::permissions::Permissions;

fn unknown_permission(path: String, p: &PermissionName) -> Option<Diagnostic> {
    if Permissions::parse_name(&p.0).is_some() {
        return None;
    }
    let help = crate::manifest::suggest::permission_help(&p.0);
    Some(Diagnostic::error(path, format!("unknown permission `{}`", p.0)).with_help(help))
}

pub(super) fn permission_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        for (k, p) in r.permissions.iter().flatten().enumerate() {
            out.extend(unknown_permission(format!("{path}.permissions[{k}]"), p));
        }
    }
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            for (list, perms) in [("allow", &o.allow), ("deny", &o.deny)] {
                for (k, p) in perms.iter().enumerate() {
                    out.extend(unknown_permission(
                        format!("{}.overwrites[{i}].{list}[{k}]", c.path),
                        p,
                    ));
                }
            }
        }
    }
}

fn overwrite_target(o: &Overwrite) -> Option<String> {
    match (&o.role, &o.member) {
        (Some(r), None) => Some(format!("role \"{r}\"")),
        (None, Some(m)) => Some(format!("member {m}")),
        _ => None,
    }
}

pub(super) fn overwrite_shape(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        // By the role or member named: `Mod` and Mod's pinned id are one target.
        let mut seen = FirstSeen::default();
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            let path = format!("{}.overwrites[{i}]", c.path);
            match (&o.role, &o.member) {
                (Some(_), Some(_)) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has both `role` and `member`")
                        .with_help("an overwrite is for one role or one member: split it into two"),
                ),
                (None, None) => out.push(
                    Diagnostic::error(path.clone(), "an overwrite has neither `role` nor `member`")
                        .with_help("add `role: <name>` or `member: <user id>`"),
                ),
                _ => {}
            }
            let target = match (&o.role, &o.member) {
                (Some(r), None) => Some((ctx.role_identity(r), r, format!("{path}.role"))),
                (None, Some(m)) => Some((
                    Identity::Written(format!("member {m}")),
                    &m.0,
                    format!("{path}.member"),
                )),
                _ => None,
            };
            if let (Some(shown), Some((id, written, at))) = (overwrite_target(o), target)
                && let Some(first) = seen.repeat(id, &at, written)
            {
                out.push(
                    Diagnostic::error(
                        at,
                        format!(
                            "a second overwrite for {shown} in \"{}\" ({first})",
                            c.channel.name
                        ),
                    )
                    .with_help(
                        "a channel has one overwrite per role or member, however it is written \
                         (name or id): merge the two into one",
                    ),
                );
            }
            let allowed: Vec<Permissions> = o
                .allow
                .iter()
                .filter_map(|p| Permissions::parse_name(&p.0))
                .collect();
            for (k, p) in o.deny.iter().enumerate() {
                if let Some(bit) = Permissions::parse_name(&p.0)
                    && allowed.contains(&bit)
                {
                    out.push(
                        Diagnostic::error(
                            format!("{path}.deny[{k}]"),
                            format!("`{}` is both allowed and denied in the same overwrite", p.0),
                        )
                        .with_help("keep it in `allow` or in `deny`, not both"),
                    );
                }
            }
        }
    }
}

pub(super) fn overwrite_role_references(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for c in &ctx.channels {
        for (i, o) in c.channel.overwrites.iter().flatten().enumerate() {
            if let Some(role) = &o.role {
                ctx.check_role_ref(
                    &format_args!("{}.overwrites[{i}].role", c.path),
                    role,
                    Undeclared::Warn,
                    out,
                );
            }
        }
    }
}
