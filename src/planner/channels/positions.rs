//! Channel order: one positions call for each of Discord's sorting groups whose declared
//! order differs from the live order after creates and moves.

use hashbrown::{HashMap, HashSet};
use serde_json::{Value, json};

use super::{Decl, Group, group_of};
use crate::access::model::display_name;
use crate::discord::Route;
use crate::discord::models::Channel as LiveChannel;
use crate::plan::field::Order;
use crate::plan::{Action, Field, FieldChange, IdRef, Kind, Phase};
use crate::plan_kit::context::{Ctx, Op, change};
use crate::plan_kit::order::target_order;

/// Where a channel sorts: its parent (by id or creation key) and its group.
type GroupKey = (Option<IdRef>, Group);

/// One positions call for every sorting group whose declared order differs from
/// what the live order will be after creates and moves.
pub(super) fn plan_order(
    cx: &mut Ctx,
    decls: &[Decl],
    matches: &[Option<&LiveChannel>],
    ids: &[IdRef],
    created_late: &HashSet<usize>,
) {
    let snap = cx.snap;
    let declared_group = |i: usize| -> GroupKey {
        (
            decls[i].parent.map(|p| ids[p].clone()),
            group_of(decls[i].kind),
        )
    };
    // Live members of each group, in Discord's order (position, then id).
    let mut live_sorted: Vec<&LiveChannel> = snap.channels.iter().collect();
    live_sorted.sort_by(|a, b| {
        a.position
            .cmp(&b.position)
            .then(crate::snapshot::snowflake_cmp(&a.id, &b.id))
    });
    let mut live_groups: HashMap<GroupKey, Vec<IdRef>> = HashMap::new();
    let declared_at: HashMap<&str, usize> = matches
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.map(|c| (c.id.as_str(), i)))
        .collect();
    let mut moved_into: HashSet<GroupKey> = HashSet::new();
    for c in &live_sorted {
        let key = (c.parent_id.clone().map(IdRef::Live), group_of(c.kind));
        match declared_at.get(c.id.as_str()) {
            Some(&i) if declared_group(i) != key => {
                moved_into.insert(declared_group(i));
            }
            _ => live_groups
                .entry(key)
                .or_default()
                .push(IdRef::Live(c.id.clone())),
        }
    }
    // Per group: the declared order, and the new channels in the order they are created.
    let mut declared_groups: Vec<(GroupKey, Vec<IdRef>, Vec<IdRef>)> = Vec::new();
    let mut group_at: HashMap<GroupKey, usize> = HashMap::new();
    for (i, id) in ids.iter().enumerate() {
        let key = declared_group(i);
        let pos = *group_at.entry(key.clone()).or_insert_with(|| {
            declared_groups.push((key, Vec::new(), Vec::new()));
            declared_groups.len() - 1
        });
        declared_groups[pos].1.push(id.clone());
        if id.live().is_none() && !created_late.contains(&i) {
            declared_groups[pos].2.push(id.clone());
        }
    }
    for (i, id) in ids.iter().enumerate() {
        if created_late.contains(&i) {
            let key = declared_group(i);
            if let Some(g) = declared_groups.iter_mut().find(|(k, _, _)| *k == key) {
                g.2.push(id.clone());
            }
        }
    }
    let mut entries: Vec<Value> = Vec::new();
    let mut fields: Vec<FieldChange> = Vec::new();
    let name_of = |k: &IdRef| -> String {
        match k {
            IdRef::Live(id) => snap
                .channel(id)
                .map(|c| display_name(c.kind, &c.name, None))
                .unwrap_or_default(),
            IdRef::New(_) => cx.channel_label(k),
        }
    };
    for (key, declared, created) in &declared_groups {
        let live = live_groups.get(key).cloned().unwrap_or_default();
        let target = target_order(&live, declared);
        let mut after_create = live.clone();
        after_create.extend(created.iter().cloned());
        if target == after_create && !moved_into.contains(key) {
            continue;
        }
        entries.extend(
            target
                .iter()
                .enumerate()
                .map(|(pos, k)| json!({ "id": k.to_value(), "position": pos })),
        );
        let order = match &key.0 {
            None if key.1 == Group::Category => Order::Categories,
            None => Order::Uncategorised,
            Some(p) => Order::In(name_of(p)),
        };
        fields.push(FieldChange::new(
            Field::Order(order),
            json!(live.iter().map(&name_of).collect::<Vec<_>>()),
            json!(target.iter().map(&name_of).collect::<Vec<_>>()),
        ));
    }
    if entries.is_empty() {
        return;
    }
    let idx = cx.push_change(change(
        Action::Reorder,
        Kind::Channel,
        "channel order".into(),
        None,
        fields,
        Some("channels".into()),
    ));
    let route = Route::UpdateChannelPositions { guild: cx.guild() };
    cx.push_op(
        Op::new(Phase::ChannelOrder, idx, route, "reorder channels".into())
            .body(Value::Array(entries)),
    );
}
