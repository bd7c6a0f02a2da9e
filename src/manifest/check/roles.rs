//! Rules for roles: names used once (previous names included), what @everyone may set and
//! where it stands, name lengths and colours.

use super::*;

pub(super) fn unique_role_names(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut by_name: HashMap<&str, &str> = HashMap::new();
    let names = ctx
        .roles
        .iter()
        .map(|(_, r)| (r.name.as_str(), r.id.is_some()));
    let at = |i: usize| ctx.roles[i].0.clone();
    let rule = (
        "role",
        "role names must be unique in a manifest: rename or merge one of them \
         (roles of the same name are allowed only when each pins its `id`)",
    );
    for (name, first) in duplicate_names(names, at, rule, out) {
        by_name.insert(name, ctx.roles[first].0.as_str());
    }
    let mut previous: HashMap<&str, &str> = HashMap::new();
    for (path, r) in &ctx.roles {
        for (k, old) in r.previous_names.iter().enumerate() {
            let here = format!("{path}.previous_names[{k}]");
            if let Some(owner) = by_name.get(old.as_str()) {
                if *owner != path.as_str() {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!(
                                "\"{old}\" is a previous name of role \"{}\" but also the name of {owner}",
                                r.name
                            ),
                        )
                        .with_help(
                            "a live role called this would match both entries: drop the previous name, \
                             or rename the other role",
                        ),
                    );
                } else {
                    out.push(
                        Diagnostic::error(
                            here,
                            format!("role \"{}\" lists its own name in previous_names", r.name),
                        )
                        .with_help("remove it from previous_names"),
                    );
                }
            } else if let Some(other) = previous.get(old.as_str()) {
                out.push(
                    Diagnostic::error(
                        here,
                        format!("previous name \"{old}\" is also listed by {other}"),
                    )
                    .with_help("a previous name may belong to one role only"),
                );
            } else {
                previous.insert(old, path);
            }
        }
    }
}

pub(super) fn everyone_role(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let last = ctx.roles.len().saturating_sub(1);
    for (i, (path, r)) in ctx.roles.iter().enumerate() {
        if r.name != EVERYONE {
            if r.name.eq_ignore_ascii_case(EVERYONE) || r.name == "everyone" {
                out.push(
                    Diagnostic::warning(
                        format!("{path}.name"),
                        format!("role \"{}\" looks like the default role but is not spelled `@everyone`", r.name),
                    )
                    .with_help("write `@everyone` to manage the default role"),
                );
            }
            continue;
        }
        let help = "of @everyone only `permissions` can be managed; remove the field";
        let fields: [(&str, bool); 7] = [
            ("previous_names", !r.previous_names.is_empty()),
            ("color", r.color.is_some()),
            ("colors", r.colors.is_some()),
            ("icon", r.icon.is_some()),
            ("hoist", r.hoist.is_some()),
            ("mentionable", r.mentionable.is_some()),
            ("unicode_emoji", r.unicode_emoji.is_some()),
        ];
        for (field, set) in fields {
            if set {
                out.push(
                    Diagnostic::error(
                        format!("{path}.{field}"),
                        format!("`{field}` cannot be set on @everyone"),
                    )
                    .with_help(help),
                );
            }
        }
        if i != last {
            out.push(
                Diagnostic::warning(
                    path.clone(),
                    "@everyone is always the lowest role, but it is not listed last",
                )
                .with_help("move @everyone to the end of `roles` (its position cannot change)"),
            );
        }
    }
}

pub(super) fn role_limits(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    for (path, r) in &ctx.roles {
        let n = len(&r.name);
        if n == 0 || n > ROLE_NAME_MAX {
            out.push(
                Diagnostic::error(
                    format!("{path}.name"),
                    format!(
                        "role name is {n} characters; Discord allows 1 to {ROLE_NAME_MAX}{}",
                        trimmed_note(n)
                    ),
                )
                .with_help("give the role a name of 1 to 100 characters"),
            );
        }
        if let Some(c) = r.color
            && c.0 > COLOR_MAX
        {
            out.push(
                Diagnostic::error(format!("{path}.color"), "colour is larger than #ffffff")
                    .with_help("write colours as \"#rrggbb\""),
            );
        }
        if r.color.is_some() && r.colors.is_some() {
            out.push(
                Diagnostic::error(
                    format!("{path}.colors"),
                    "a role has `color` (a solid colour) or `colors` (a gradient or `holographic`), not both",
                )
                .with_help("keep `color` for a solid colour, or only `colors`"),
            );
        }
    }
}
