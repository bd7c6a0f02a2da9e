//! Custom emoji: create, rename, change roles, replace the image, prune. Discord cannot
//! replace an emoji's image (Modify Guild Emoji takes `name` and `roles`), so a changed file
//! is a deletion and a creation: the plan says so, and the deletion gate counts it.

use hashbrown::{HashMap, HashSet};

use serde_json::{Value, json};

use super::context::{ChangeBuilder, Ctx, IdRef, Op, Phase, change};
use super::field;
use super::images::{ImageFile, declared_file};
use super::{Action, Kind, ObjectRef};
use crate::discord::Route;
use crate::discord::limits::EMOJI_SLOTS;
use crate::discord::models::GuildEmoji as LiveEmoji;
use crate::manifest::GuildEmoji;

fn emoji_ref(e: &LiveEmoji) -> ObjectRef {
    ObjectRef {
        kind: Kind::Emoji,
        name: e.name.clone().unwrap_or_default(),
        id: Some(e.id.clone()),
    }
}

pub(super) fn plan_emojis(cx: &mut Ctx) {
    let (manifest, snap) = (cx.manifest, cx.snap);
    // Left out: not managed, and not read.
    let Some(declared) = manifest.emojis.as_deref() else {
        return;
    };
    let Some(live) = snap.expressions.emojis.as_deref() else {
        cx.problem(
            Some("emojis".into()),
            "the bot cannot list this guild's emojis".into(),
            Some(
                "grant the bot's role `create_guild_expressions` (and `manage_guild_expressions` for emojis others uploaded), or leave `emojis` out",
            ),
        );
        return;
    };
    // An integration's emoji (managed) are not guildctl's to change or delete.
    let own: Vec<&LiveEmoji> = live.iter().filter(|e| !e.managed).collect();
    let wanted: Vec<Wanted<'_>> = declared
        .iter()
        .map(|d| Wanted {
            id: d.id.as_ref().map(|i| i.0.as_str()),
            name: &d.name,
            previous_names: &d.previous_names,
        })
        .collect();
    let keys: Vec<(&str, &str)> = own
        .iter()
        .map(|e| (e.id.as_str(), e.name.as_deref().unwrap_or_default()))
        .collect();
    let matches: Vec<Option<&LiveEmoji>> = match_live(cx, "emojis", "emoji", &wanted, &keys)
        .into_iter()
        .map(|k| k.map(|k| own[k]))
        .collect();
    // Each created emoji, with whether it is animated and where it is declared: the slots.
    let mut created: Vec<(bool, String)> = Vec::new();
    let mut deleted: HashSet<&str> = HashSet::new();
    for (i, d) in declared.iter().enumerate() {
        let source = format!("emojis[{i}]");
        let Some(roles) = emoji_roles(cx, d, &source) else {
            continue;
        };
        let Some(file) = declared_file(cx, &format!("{source}.image"), &d.image) else {
            continue;
        };
        match matches[i] {
            Some(l) if cx.snap.emoji_digest(l) == Some(file.digest.as_str()) => {
                plan_update(cx, d, l, roles, source);
            }
            Some(l) => {
                replace(cx, d, l, &file, &source);
                deleted.insert(&l.id);
                created.push((file.animated, source.clone()));
                plan_create(cx, d, &file, roles, source);
            }
            None => {
                created.push((file.animated, source.clone()));
                plan_create(cx, d, &file, roles, source);
            }
        }
    }
    let matched: HashSet<&str> = matches.iter().flatten().map(|e| e.id.as_str()).collect();
    for e in live {
        if matched.contains(e.id.as_str()) {
            continue;
        }
        if cx.manifest.prune.emojis && !e.managed {
            let name = e.name.clone().unwrap_or_default();
            let idx = cx.push_change(change(
                Action::Delete,
                Kind::Emoji,
                name.clone(),
                Some(e.id.clone()),
                vec![],
                Some("prune.emojis".into()),
            ));
            cx.push_op(Op::new(
                Phase::EmojiDelete,
                idx,
                delete_route(cx, e),
                format!("delete emoji {name}"),
            ));
            deleted.insert(&e.id);
        } else {
            cx.unmanaged.push(emoji_ref(e));
        }
    }
    check_slots(cx, live, &deleted, &created);
}

fn delete_route(cx: &Ctx, e: &LiveEmoji) -> Route<IdRef> {
    Route::DeleteEmoji {
        guild: cx.guild(),
        emoji: IdRef::Live(e.id.clone()),
    }
}

/// One declared entry as matching sees it.
pub(super) struct Wanted<'m> {
    pub id: Option<&'m str>,
    pub name: &'m str,
    pub previous_names: &'m [String],
}

/// Matches declared entries of `section` to live objects `(id, name)`: the pinned id, then
/// the name, then the previous names, each time the first live object not matched yet. A
/// pinned id that is not live is a problem at the entry's `id`. Returns each entry's match,
/// as an index into `live`.
pub(super) fn match_live(
    cx: &mut Ctx,
    section: &str,
    what: &str,
    wanted: &[Wanted<'_>],
    live: &[(&str, &str)],
) -> Vec<Option<usize>> {
    let mut out: Vec<Option<usize>> = vec![None; wanted.len()];
    let mut used: HashSet<usize> = HashSet::new();
    let by_id: HashMap<&str, usize> = live
        .iter()
        .enumerate()
        .map(|(k, (id, _))| (*id, k))
        .collect();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, (_, name)) in live.iter().enumerate() {
        by_name.entry(name).or_default().push(k);
    }
    for (i, d) in wanted.iter().enumerate() {
        let Some(id) = d.id else { continue };
        match by_id.get(id) {
            Some(&k) if used.insert(k) => out[i] = Some(k),
            _ => cx.problem(
                Some(format!("{section}[{i}].id")),
                format!(
                    "{what} `{}` is pinned to id {id}, which is not a {what} of this guild guildctl may change",
                    d.name
                ),
                Some("remove the `id` to match it by name, or correct it"),
            ),
        }
    }
    for previous in [false, true] {
        for (i, d) in wanted.iter().enumerate() {
            if out[i].is_some() || d.id.is_some() {
                continue;
            }
            let names: Vec<&str> = if previous {
                d.previous_names.iter().map(String::as_str).collect()
            } else {
                vec![d.name]
            };
            let found = names
                .iter()
                .filter_map(|n| by_name.get(n))
                .flat_map(|v| v.iter().copied())
                .find(|k| !used.contains(k));
            if let Some(k) = found {
                used.insert(k);
                out[i] = Some(k);
            }
        }
    }
    out
}

/// The roles the emoji is for, as ids (`None` when `roles` is left out: not managed), or
/// `None` and a problem when one is neither declared nor live.
fn emoji_roles(cx: &mut Ctx, d: &GuildEmoji, source: &str) -> Option<Option<Vec<IdRef>>> {
    let Some(written) = &d.roles else {
        return Some(None);
    };
    let mut out = Vec::new();
    let mut seen = Vec::new();
    let mut ok = true;
    for (k, r) in written.iter().enumerate() {
        let at = format!("{source}.roles[{k}]");
        match cx.role_ids.get(r).cloned() {
            Some(id) => {
                if cx.first_in_list(&mut seen, &id, &at, r, "role") {
                    out.push(id);
                }
            }
            None => {
                ok = false;
                cx.problem(
                    Some(at),
                    format!("role `{r}` is neither declared nor in the guild"),
                    Some("declare the role under `roles`, or correct the name"),
                );
            }
        }
    }
    ok.then_some(Some(out))
}

fn roles_value(cx: &Ctx, roles: &[IdRef]) -> Value {
    let mut names: Vec<String> = roles.iter().map(|r| cx.role_label(r)).collect();
    names.sort();
    json!(names)
}

fn roles_api(roles: &[IdRef]) -> Value {
    Value::Array(roles.iter().map(IdRef::to_value).collect())
}

fn plan_update(
    cx: &mut Ctx,
    d: &GuildEmoji,
    live: &LiveEmoji,
    roles: Option<Vec<IdRef>>,
    source: String,
) {
    let mut b = ChangeBuilder::new();
    let live_name = live.name.clone().unwrap_or_default();
    if live_name != d.name {
        b.set(
            field::Emoji::Name,
            json!(live_name),
            json!(d.name),
            json!(d.name),
        );
    }
    if let Some(roles) = roles {
        let want: HashSet<&str> = roles.iter().map(IdRef::key).collect();
        let have: HashSet<&str> = live.roles.iter().map(String::as_str).collect();
        if want != have || roles.iter().any(|r| r.created().is_some()) {
            let before: Vec<IdRef> = live.roles.iter().cloned().map(IdRef::Live).collect();
            b.set(
                field::Emoji::Roles,
                roles_value(cx, &before),
                roles_value(cx, &roles),
                roles_api(&roles),
            );
        }
    }
    if b.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Update,
        Kind::Emoji,
        d.name.clone(),
        Some(live.id.clone()),
        b.fields,
        Some(source),
    ));
    let route = Route::UpdateEmoji {
        guild: cx.guild(),
        emoji: IdRef::Live(live.id.clone()),
    };
    let summary = format!("update emoji {}", d.name);
    cx.push_op(Op::new(Phase::EmojiWrite, idx, route, summary).body(Value::Object(b.body)));
}

/// The deletion half of a new image: the live emoji goes, with what it was shown.
fn replace(cx: &mut Ctx, d: &GuildEmoji, live: &LiveEmoji, file: &ImageFile, source: &str) {
    let name = live.name.clone().unwrap_or_default();
    let before = match cx.snap.emoji_digest(live) {
        Some(digest) => json!(format!(
            "(image sha256 {}…)",
            &digest[..12.min(digest.len())]
        )),
        None => json!("(image the CDN did not give)"),
    };
    let mut b = ChangeBuilder::new();
    b.show(field::Emoji::Image, before, file.value(&d.image));
    let idx = cx.push_change(change(
        Action::Delete,
        Kind::Emoji,
        name.clone(),
        Some(live.id.clone()),
        b.fields,
        Some(format!("{source}.image")),
    ));
    cx.warn(
        Some(format!("{source}.image")),
        format!(
            "emoji `{name}` (id {}) is deleted and created again with the new image: Discord cannot replace an emoji's image, so it gets a new id, and messages that used the old one show `:{name}:` as text",
            live.id
        ),
    );
    let route = delete_route(cx, live);
    cx.push_op(Op::new(
        Phase::EmojiDelete,
        idx,
        route,
        format!("delete emoji {name} (its image changes)"),
    ));
}

fn plan_create(
    cx: &mut Ctx,
    d: &GuildEmoji,
    file: &ImageFile,
    roles: Option<Vec<IdRef>>,
    source: String,
) {
    let mut b = ChangeBuilder::new();
    b.set(
        field::Emoji::Name,
        Value::Null,
        json!(d.name),
        json!(d.name),
    );
    b.set(
        field::Emoji::Image,
        Value::Null,
        file.value(&d.image),
        file.upload(&d.image),
    );
    if let Some(roles) = roles.filter(|r| !r.is_empty()) {
        b.set(
            field::Emoji::Roles,
            Value::Null,
            roles_value(cx, &roles),
            roles_api(&roles),
        );
    }
    let idx = cx.push_change(change(
        Action::Create,
        Kind::Emoji,
        d.name.clone(),
        None,
        b.fields,
        Some(source),
    ));
    let route = Route::CreateEmoji { guild: cx.guild() };
    let summary = format!("create emoji {}", d.name);
    cx.push_op(
        Op::new(Phase::EmojiWrite, idx, route, summary)
            .body(Value::Object(b.body))
            .creates(format!("emoji:{}", d.name)),
    );
}

/// Discord's emoji slots by boost tier (50/100/150/250, static and animated counted apart):
/// the emoji left once the plan is applied must fit, or the first creation past the limit is
/// refused at its line (30008, 30018). A guild with MORE_EMOJI has more, by a number Discord
/// does not document: not checked there.
fn check_slots(
    cx: &mut Ctx,
    live: &[LiveEmoji],
    deleted: &HashSet<&str>,
    created: &[(bool, String)],
) {
    let g = &cx.snap.guild;
    if g.has_feature("MORE_EMOJI") {
        return;
    }
    let tier = usize::try_from(g.premium_tier.min(3)).unwrap_or(0);
    let limit = EMOJI_SLOTS[tier];
    for animated in [false, true] {
        let kept = live
            .iter()
            .filter(|e| e.animated == animated && !deleted.contains(e.id.as_str()))
            .count();
        let mut count = kept;
        for (a, source) in created.iter().filter(|(a, _)| *a == animated) {
            count += 1;
            if count > limit {
                let what = if *a { "animated" } else { "static" };
                let message = format!(
                    "this emoji would be {what} emoji number {count} of a guild at boost tier {tier}, which has {limit} {what} slots (Discord refuses it: {})",
                    if *a { 30018 } else { 30008 }
                );
                cx.problem(
                    Some(source.clone()),
                    message,
                    Some("remove emojis (or let `prune.emojis` delete unlisted ones), or boost the guild to a higher tier"),
                );
                break;
            }
        }
    }
}
