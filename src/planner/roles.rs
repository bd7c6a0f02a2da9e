//! Roles: matching, field changes, hierarchy order, pruning.

use hashbrown::HashSet;

use serde_json::{Value, json};

use crate::discord::Route;
use crate::discord::models::Role as LiveRole;
use crate::discord::names::stored_display_name;
use crate::manifest::{PermissionName, Role};
use crate::permissions::Permissions;
use crate::plan::field::{self, Order};
use crate::plan::{Action, Field, FieldChange, IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::context::{ChangeBuilder, Ctx, Op, change};
use crate::plan_kit::matching::match_live;
use crate::plan_kit::order::target_order;

use crate::discord::names::EVERYONE;

/// Turns permission names into bits, reporting unknown names; `keep` supplies the
/// live bits guildctl has no name for, which are always preserved.
pub(crate) fn permission_bits(
    cx: &mut Ctx,
    names: &[PermissionName],
    keep: Permissions,
    source: &str,
) -> Permissions {
    let mut bits = keep.unnamed();
    for n in names {
        match Permissions::parse_name(&n.0) {
            Some(p) => bits |= p,
            None => cx.problem(
                Some(source.to_owned()),
                format!("unknown permission `{}`", n.0),
                Some("use Discord's permission names in snake_case, e.g. `send_messages`"),
            ),
        }
    }
    bits
}

pub(crate) fn perm_names(p: Permissions) -> Value {
    json!(p.display_names())
}

pub(super) fn plan_roles(cx: &mut Ctx) {
    let snap = cx.snap;
    let guild_id = cx.guild_id.clone();
    // Live roles may be referenced by id; names, inserted after, win a (far-fetched) clash.
    for r in &snap.guild.roles {
        cx.role_ids.insert(r.id.clone(), IdRef::Live(r.id.clone()));
    }
    // Live names are resolvable in overwrites even when the manifest does not declare them,
    // by the key both sides are reduced to (whitespace collapsed, as the manifest's names are).
    for r in snap.guild.roles.iter().rev() {
        let name = if r.id == guild_id { EVERYONE } else { &r.name };
        cx.role_ids.insert(
            stored_display_name(name).into_owned(),
            IdRef::Live(r.id.clone()),
        );
        cx.role_names.insert(r.id.clone(), name.to_owned());
    }
    let ranked: Vec<&LiveRole> = snap
        .roles_by_rank()
        .into_iter()
        .filter(|r| r.id != guild_id)
        .collect();
    let manifest = cx.manifest;
    let Some(declared) = manifest.roles.as_deref() else {
        for r in &ranked {
            cx.unmanaged.push(role_ref(r));
        }
        return;
    };

    let matches = match_roles(cx, declared, &ranked);
    for (i, d) in declared.iter().enumerate() {
        let id = match matches[i] {
            Some(live) => IdRef::Live(live.id.clone()),
            None => IdRef::New(format!("role:{}", d.name)),
        };
        if let IdRef::Live(live_id) = &id {
            cx.role_names.insert(live_id.clone(), d.name.clone());
        }
        cx.role_ids.insert(d.name.clone(), id);
    }

    for (i, d) in declared.iter().enumerate() {
        let source = format!("roles[{i}]");
        match matches[i] {
            Some(live) => plan_role_update(cx, d, live, source),
            None => plan_role_create(cx, d, source),
        }
    }

    let matched: HashSet<&str> = matches.iter().flatten().map(|r| r.id.as_str()).collect();
    for r in &ranked {
        if matched.contains(r.id.as_str()) {
            continue;
        }
        let protector =
            crate::judge::deletion_gate::protector(cx.manifest, Kind::Role, &r.id, &r.name, 0);
        if let (true, Some(by)) = (cx.manifest.prune.roles, &protector) {
            cx.warn(
                None,
                format!(
                    "role `{}` (id {}) is kept although `prune.roles` is on: {by} protects it",
                    r.name, r.id
                ),
            );
        }
        if cx.manifest.prune.roles && !r.managed && protector.is_none() {
            let idx = cx.push_change(change(
                Action::Delete,
                Kind::Role,
                r.name.clone(),
                Some(r.id.clone()),
                vec![],
                // Pointed at the `prune:` line that asks for it.
                Some("prune.roles".into()),
            ));
            let route = Route::DeleteRole {
                guild: cx.guild(),
                role: IdRef::Live(r.id.clone()),
            };
            cx.push_op(Op::new(
                Phase::RoleDelete,
                idx,
                route,
                format!("delete role {}", r.name),
            ));
            cx.access_after.remove_role(&r.id);
        } else {
            cx.unmanaged.push(role_ref(r));
        }
    }

    let kept: Vec<&LiveRole> = ranked
        .iter()
        .copied()
        .filter(|r| !matched.contains(r.id.as_str()) && !r.managed)
        .collect();
    for (i, d) in declared.iter().enumerate() {
        if matches[i].is_some() {
            continue;
        }
        let alike: Vec<&&LiveRole> = kept.iter().filter(|r| looks_like(d, r)).collect();
        if let [live] = alike.as_slice() {
            cx.warn(
                Some(format!("roles[{i}].name")),
                format!(
                    "role `{}` is created beside live role `{}` (id {}), which the manifest does not declare and which has the same permissions and look: if it is that role renamed, add `previous_names: [{}]` to keep its id and members",
                    d.name, live.name, live.id, live.name
                ),
            );
        }
    }

    plan_role_order(cx, declared, &matches, &ranked);
    let order: Vec<String> = declared
        .iter()
        .filter_map(|d| cx.role_ids.get(&d.name).map(|id| id.key().to_owned()))
        .collect();
    cx.access_after.order_roles(&order);
}

fn role_ref(r: &LiveRole) -> ObjectRef {
    ObjectRef {
        kind: Kind::Role,
        name: r.name.clone(),
        id: Some(r.id.clone()),
    }
}

/// Matches declared roles to live ones: pinned id, then name, then previous names.
fn match_roles<'s>(
    cx: &mut Ctx<'s>,
    declared: &[Role],
    ranked: &[&'s LiveRole],
) -> Vec<Option<&'s LiveRole>> {
    // The manifest's names are already in this form (`as_stored`); live names are reduced to
    // it, so a live `Mod  Team` is the declared `Mod Team`, never a second role.
    let mut out = match_live(
        cx,
        "roles",
        Kind::Role,
        declared,
        ranked,
        |r| (r.id.as_str(), stored_display_name(&r.name)),
        |_, _| false,
    );
    for (i, d) in declared.iter().enumerate() {
        if d.name == EVERYONE {
            out[i] = cx.snap.everyone_role();
        }
    }
    out
}

/// Whether the declared role `d` would change nothing but its name on `live`: a role
/// renamed without `previous_names`. A role that declares neither permissions nor a colour
/// is like too many to say.
fn looks_like(d: &Role, live: &LiveRole) -> bool {
    if d.permissions.is_none() && d.color.is_none() && d.colors.is_none() {
        return false;
    }
    let permissions = d.permissions.as_ref().is_none_or(|names| {
        let parsed: Option<Vec<Permissions>> = names
            .iter()
            .map(|n| Permissions::parse_name(&n.0))
            .collect();
        parsed.is_some_and(|bits| {
            bits.into_iter()
                .fold(live.permissions.unnamed(), |a, b| a | b)
                == live.permissions
        })
    });
    let colors = live.colors.primary_color;
    permissions
        && d.color.is_none_or(|c| c.0 == colors)
        && d.colors.is_none_or(|c| {
            c.triple()
                == (
                    live.colors.primary_color,
                    live.colors.secondary_color,
                    live.colors.tertiary_color,
                )
        })
        && d.hoist.is_none_or(|h| h == live.hoist)
        && d.mentionable.is_none_or(|m| m == live.mentionable)
}

/// The plan's note for a live name that differs from the declared one only in whitespace,
/// which is the same name to guildctl (docs/decisions.md): kept, never renamed back and forth.
pub(super) fn whitespace_note(kind: &str, live: &str, declared: &str) -> String {
    format!(
        "{kind} {live:?} differs from the manifest's {declared:?} only in whitespace; it is the same {kind} and is kept as it is"
    )
}

/// Since 2026-02-23 `manage_messages` no longer lets members pin (that is `pin_messages`)
/// and `manage_channels`/`manage_threads` no longer bypass slowmode (`bypass_slowmode`);
/// Discord gave the new bits to the roles that had the old ones. The notes say what a
/// role the manifest grants no longer allows, and when a manifest written before the split
/// would take back what Discord's migration gave.
fn split_notes(role: &str, live: Option<Permissions>, desired: Permissions) -> Vec<String> {
    let bit = |name| Permissions::from_name(name).unwrap_or_default();
    let splits = [
        ("pin_messages", &["manage_messages"][..], "pin messages"),
        (
            "bypass_slowmode",
            &["manage_channels", "manage_threads"][..],
            "send without waiting for slowmode",
        ),
    ];
    let mut notes = Vec::new();
    for (new, old, what) in splits {
        let granted: Vec<&str> = old
            .iter()
            .copied()
            .filter(|o| desired.contains(bit(o)))
            .collect();
        if granted.is_empty() || desired.contains(bit(new)) {
            continue;
        }
        let granted = granted.join(" and ");
        if live.is_some_and(|l| l.contains(bit(new))) {
            notes.push(format!(
                "role `{role}`: the plan takes away `{new}`, which Discord gave it on 2026-02-23 when `{granted}` stopped allowing members to {what}; list `{new}` to keep what the role can do today, or leave it out to take it away"
            ));
        } else {
            notes.push(format!(
                "role `{role}` grants `{granted}`, which since 2026-02-23 no longer lets members {what}: that is `{new}` now"
            ));
        }
    }
    notes
}

fn role_fields(cx: &mut Ctx, d: &Role, live: Option<&LiveRole>, source: &str) -> ChangeBuilder {
    let mut b = ChangeBuilder::new();
    // `@everyone` manages only its permissions; its name is Discord's.
    let everyone = d.name == EVERYONE;
    let live_name = live.map(|l| l.name.clone());
    let live_key = live_name.as_deref().map(stored_display_name);
    if !everyone && live_key.as_deref() != Some(d.name.as_str()) {
        b.set(
            field::Role::Name,
            json!(live_name),
            json!(d.name),
            json!(d.name),
        );
    } else if let Some(live_name) = live_name.filter(|n| !everyone && *n != d.name) {
        cx.warn(
            Some(format!("{source}.name")),
            whitespace_note("role", &live_name, &d.name),
        );
    }
    if let Some(names) = &d.permissions {
        let keep = live.map(|l| l.permissions).unwrap_or_default();
        let desired = permission_bits(cx, names, keep, &format!("{source}.permissions"));
        // Said only of what the plan sets: a role left as it is live needs no note on
        // a split Discord has already applied (an untouched export plans back quiet).
        if live.map(|l| l.permissions) != Some(desired) {
            for note in split_notes(&d.name, live.map(|l| l.permissions), desired) {
                cx.warn(Some(format!("{source}.permissions")), note);
            }
        }
        if live.map(|l| l.permissions) != Some(desired) {
            b.set(
                field::Role::Permissions,
                live.map(|l| perm_names(l.permissions))
                    .unwrap_or(Value::Null),
                perm_names(desired),
                json!(desired),
            );
        }
    }
    crate::planner::role_style::role_style(cx, &mut b, d, live, source);
    let flags: [(field::Role, Option<bool>, Option<bool>); 2] = [
        (field::Role::Hoist, d.hoist, live.map(|l| l.hoist)),
        (
            field::Role::Mentionable,
            d.mentionable,
            live.map(|l| l.mentionable),
        ),
    ];
    for (field, want, have) in flags {
        // `have` is none for a role to create: any wanted value is set.
        b.compare(field, have, want.map(Some));
    }
    if let Some(emoji) = &d.unicode_emoji {
        let have = live.and_then(|l| l.unicode_emoji.clone());
        let unboosted = !cx.snap.guild.features.iter().any(|f| f == "ROLE_ICONS");
        if live.is_none() && emoji.is_none() {
            // A new role has no emoji anyway.
        } else if have != *emoji && emoji.is_some() && unboosted {
            // Taking an emoji off (null) needs no feature; setting one does.
            cx.problem(
                Some(format!("{source}.unicode_emoji")),
                format!(
                    "role `{}`: `unicode_emoji` needs the guild feature ROLE_ICONS, which this guild does not have (Discord refuses it: 50101)",
                    d.name
                ),
                Some("remove `unicode_emoji` from this role, or boost the guild to the level that gives role icons"),
            );
        } else if have != *emoji {
            b.set(
                field::Role::UnicodeEmoji,
                json!(have),
                json!(emoji),
                json!(emoji),
            );
        }
    }
    b
}

/// The permissions a role's change body sets, if it sets them.
fn body_permissions(b: &ChangeBuilder) -> Option<Permissions> {
    b.body
        .get("permissions")
        .and_then(|p| serde_json::from_value(p.clone()).ok())
}

fn plan_role_update(cx: &mut Ctx, d: &Role, live: &LiveRole, source: String) {
    let b = role_fields(cx, d, Some(live), &source);
    let permissions = body_permissions(&b);
    if live.id == cx.guild_id
        && let Some(p) = permissions
    {
        // Onboarding's requirements depend on what @everyone may do after the plan.
        cx.everyone_after = p;
    }
    if b.is_empty() || live.managed {
        cx.access_after
            .set_role(&live.id, &d.name, None, Some(&source), None);
    }
    if b.is_empty() {
        return;
    }
    if live.managed {
        cx.problem(
            Some(source),
            format!(
                "role `{}` is managed by an integration (a bot, boosts or a subscription): only its place in the list can be managed",
                live.name
            ),
            Some("keep only `name` on this entry"),
        );
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        Kind::Role,
        d.name.clone(),
        Some(live.id.clone()),
        b.fields,
        Some(source.clone()),
    ));
    cx.access_after.set_role(
        &live.id,
        &d.name,
        permissions,
        Some(&source),
        permissions.map(|_| idx),
    );
    let route = Route::UpdateRole {
        guild: cx.guild(),
        role: IdRef::Live(live.id.clone()),
    };
    cx.push_op(
        Op::new(
            Phase::RoleUpdate,
            idx,
            route,
            format!("update role {}", d.name),
        )
        .body(Value::Object(b.body)),
    );
}

fn plan_role_create(cx: &mut Ctx, d: &Role, source: String) {
    let b = role_fields(cx, d, None, &source);
    // Created without `permissions`, a role gets @everyone's (docs/discord.md §3.2).
    let permissions = body_permissions(&b).unwrap_or(cx.everyone_after);
    let idx = cx.push_change(change(
        Action::Create,
        Kind::Role,
        d.name.clone(),
        None,
        b.fields,
        Some(source.clone()),
    ));
    cx.access_after.set_role(
        &format!("role:{}", d.name),
        &d.name,
        Some(permissions),
        Some(&source),
        Some(idx),
    );
    let route = Route::CreateRole { guild: cx.guild() };
    cx.push_op(
        Op::new(
            Phase::RoleCreate,
            idx,
            route,
            format!("create role {}", d.name),
        )
        .body(Value::Object(b.body))
        .creates(format!("role:{}", d.name)),
    );
}

/// One bulk reorder when the declared hierarchy differs from the live one.
fn plan_role_order(
    cx: &mut Ctx,
    declared: &[Role],
    matches: &[Option<&LiveRole>],
    ranked: &[&LiveRole],
) {
    let key = |d: &Role, m: Option<&LiveRole>| match m {
        Some(r) => IdRef::Live(r.id.clone()),
        None => IdRef::New(format!("role:{}", d.name)),
    };
    let declared_keys: Vec<IdRef> = declared
        .iter()
        .zip(matches)
        .filter(|(d, _)| d.name != EVERYONE)
        .map(|(d, m)| key(d, *m))
        .collect();
    let live_keys: Vec<IdRef> = ranked.iter().map(|r| IdRef::Live(r.id.clone())).collect();
    let target = target_order(&live_keys, &declared_keys);
    // New roles land at the bottom in creation (= manifest) order.
    let mut after_create = live_keys.clone();
    after_create.extend(declared_keys.iter().filter(|k| k.live().is_none()).cloned());
    if target == after_create {
        return;
    }
    // The roles below the bot get positions n..1, each strictly under the bot's own
    // position number (docs/discord.md §3.4), which creates raise by one each. A role
    // sharing the bot's number (an old tie, §3.3) leaves too few numbers below it.
    let fixed = cx.snap.bot_top_rank().map(|t| t + 1).unwrap_or(0);
    let n = target.len().saturating_sub(fixed);
    if let Some(top) = fixed.checked_sub(1).and_then(|i| ranked.get(i)) {
        let created = declared_keys.iter().filter(|k| k.live().is_none()).count();
        let room = top.position + i64::try_from(created).unwrap_or(i64::MAX) - 1;
        if i64::try_from(n).unwrap_or(i64::MAX) > room {
            cx.problem(
                Some("roles".into()),
                format!(
                    "the role order needs {n} places below the bot's highest role `{}`, but its position number leaves {room}: a role shares its number (Discord refuses the reorder)",
                    top.name
                ),
                Some("move any role once in Discord's role settings (a drag renumbers every role), then plan again"),
            );
            // The call stays in the (refused) plan: it is the one Discord would refuse.
        }
    }
    let name_of = |k: &IdRef| cx.role_label(k);
    // Roles at or above the bot's highest role cannot move, nor can others pass them.
    let mut past_bot = None;
    if target[..fixed.min(target.len())] != after_create[..fixed.min(after_create.len())] {
        let bot_role = fixed
            .checked_sub(1)
            .and_then(|i| ranked.get(i))
            .map(|r| r.name.clone())
            .unwrap_or_default();
        let moved: Vec<String> = target[..fixed.min(target.len())]
            .iter()
            .zip(&after_create)
            .filter(|(a, b)| a != b)
            .map(|(a, _)| name_of(a))
            .collect();
        let source = declared
            .iter()
            .position(|d| moved.first() == Some(&d.name))
            .map(|i| format!("roles[{i}]"));
        past_bot = Some((
            source,
            format!(
                "the role order would move {} at or above the bot's highest role `{bot_role}`, which Discord refuses",
                moved
                    .iter()
                    .map(|m| format!("`{m}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    // A refused plan keeps the call that order needs, moving the roles above the bot too:
    // it is the one Discord would refuse (a rehearsal of the refused plan shows it).
    let movable = if past_bot.is_some() {
        &target[..]
    } else {
        &target[fixed.min(target.len())..]
    };
    let n = movable.len();
    let body: Vec<Value> = movable
        .iter()
        .enumerate()
        .map(|(i, k)| json!({ "id": k.to_value(), "position": n - i }))
        .collect();
    let fields = vec![FieldChange::new(
        Field::Order(Order::Roles),
        json!(live_keys.iter().map(&name_of).collect::<Vec<_>>()),
        json!(target.iter().map(&name_of).collect::<Vec<_>>()),
    )];
    if let Some((source, message)) = past_bot {
        cx.problem(
            source,
            message,
            Some("list roles above the bot's role in their live order, or move the bot's role higher in Discord"),
        );
    }
    let idx = cx.push_change(change(
        Action::Reorder,
        Kind::Role,
        "role hierarchy".into(),
        None,
        fields,
        Some("roles".into()),
    ));
    let route = Route::UpdateRolePositions { guild: cx.guild() };
    cx.push_op(
        Op::new(Phase::RoleOrder, idx, route, "reorder roles".into()).body(Value::Array(body)),
    );
}
