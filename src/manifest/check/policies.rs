//! Rules for `policies:`: each has a name used once (bases and the workspace file
//! included), exactly one rule, permissions to speak of, bounds that can hold, and roles
//! that exist (a role only the live guild has is a warning: plan checks it). Whether the
//! guild keeps them is judged on a model of the guild ([`crate::access::policy`]).

use hashbrown::HashMap;

use super::*;
use crate::manifest::pattern::ChannelPattern;
use crate::manifest::types::PermissionName;

/// A role a policy names, through the one resolver every reference takes: a previous name
/// is an error naming the new one; one the manifest does not declare may be one it leaves
/// alone (an Admin above the bot's role), which `plan` checks, so only a name close to a
/// declared one is worth a warning here (a typo would keep the policy trivially).
fn check_role(ctx: &Ctx<'_>, path: &str, name: &str, out: &mut Vec<Diagnostic>) {
    ctx.check_role_ref(&path, name, Undeclared::WarnIfClose, out);
}

pub(super) fn policies(ctx: &Ctx<'_>, out: &mut Vec<Diagnostic>) {
    let mut names: HashMap<&str, usize> = HashMap::new();
    for (i, p) in ctx.manifest.policies.iter().flatten().enumerate() {
        let at = format!("policies[{i}]");
        if p.name.trim().is_empty() {
            out.push(Diagnostic::error(
                format!("{at}.name"),
                "a policy needs a name: the plan and drift say it when it is broken",
            ));
        } else if let Some(first) = names.insert(p.name.as_str(), i) {
            out.push(
                Diagnostic::error(
                    format!("{at}.name"),
                    format!(
                        "policy `{}` is declared twice (first at policies[{first}]): a manifest, its bases and the workspace file cannot redefine one another's policies",
                        p.name
                    ),
                )
                .with_help("give this policy another name; both are kept"),
            );
        }
        let rules = [p.never.is_some(), p.only.is_some(), p.holders.is_some()];
        if rules.iter().filter(|r| **r).count() != 1 {
            out.push(
                Diagnostic::error(
                    at.clone(),
                    format!(
                        "policy `{}` needs exactly one rule: `never`, `only` or `holders`",
                        p.name
                    ),
                )
                .with_help("split it into several policies, one rule each"),
            );
            continue;
        }
        if let Some(rule) = &p.never {
            let path = format!("{at}.never");
            if rule.who != super::super::types::ANYONE && rule.who != EVERYONE {
                check_role(ctx, &format!("{path}.who"), &rule.who, out);
            }
            permissions_and_places(ctx, &path, &rule.can, rule.places.as_deref(), out);
        }
        if let Some(rule) = &p.only {
            let path = format!("{at}.only");
            for (k, who) in rule.who.iter().enumerate() {
                if who != EVERYONE {
                    check_role(ctx, &format!("{path}.who[{k}]"), who, out);
                }
            }
            permissions_and_places(ctx, &path, &rule.can, rule.places.as_deref(), out);
        }
        if let Some(rule) = &p.holders {
            let path = format!("{at}.holders");
            if rule.role == EVERYONE {
                out.push(Diagnostic::error(
                    format!("{path}.role"),
                    "every member holds @everyone: count another role",
                ));
            } else {
                check_role(ctx, &format!("{path}.role"), &rule.role, out);
            }
            match (rule.min, rule.max) {
                (None, None) => out.push(
                    Diagnostic::error(path, "`holders` needs `min`, `max` or both")
                        .with_help("write `min: 2` and/or `max: 6`"),
                ),
                (Some(a), Some(b)) if a > b => out.push(Diagnostic::error(
                    format!("{path}.min"),
                    format!("`min` ({a}) is above `max` ({b}): no count keeps the policy"),
                )),
                _ => {}
            }
        }
    }
}

fn permissions_and_places(
    ctx: &Ctx<'_>,
    path: &str,
    can: &[PermissionName],
    places: Option<&[String]>,
    out: &mut Vec<Diagnostic>,
) {
    if can.is_empty() {
        out.push(
            Diagnostic::error(format!("{path}.can"), "`can` lists no permission")
                .with_help("name the permissions the policy is about, e.g. `[view_channel]`"),
        );
    }
    match places {
        Some([]) => out.push(
            Diagnostic::error(
                format!("{path}.where"),
                "`where` lists no channel, so the policy holds nowhere",
            )
            .with_help("name channels (`Staff/*`), or leave `where` out for the whole guild"),
        ),
        Some(list) => {
            for (k, w) in list.iter().enumerate() {
                if let Err(too_long) = ChannelPattern::new(w) {
                    out.push(
                        Diagnostic::error(format!("{path}.where[{k}]"), too_long.to_string())
                            .with_help(
                                "name the channels with a shorter pattern: `*` is any text within a part, `**` any parts",
                            ),
                    );
                } else if w.trim().is_empty() || w.split('/').any(|s| s.trim().is_empty()) {
                    out.push(Diagnostic::error(
                        format!("{path}.where[{k}]"),
                        format!(
                            "`{w}` is not a channel pattern: `Category/name`, `*` for any name"
                        ),
                    ));
                } else {
                    ctx.check_place_pattern(&format_args!("{path}.where[{k}]"), w, out);
                }
            }
        }
        None => {}
    }
}
