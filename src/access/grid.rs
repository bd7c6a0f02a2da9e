//! The access grid of the HTML page (`access --format html`, `plan --format html`): every
//! channel × every who — `@everyone`, each role as a member holding it alone, and each
//! person the plan knows with the roles they hold — and, per cell, whether they may view,
//! send (join, for voice), manage (any `manage_*`) there, or are administrators.
//!
//! Pure over the access model: each who is computed once ([`Guild::access`]) for every
//! channel. A person is computed with [`Holder::member`], never by putting role results
//! together: overwrites do not compose that way (an allow of one role beats a deny of
//! another, and the member's own overwrite comes last).

use hashbrown::HashMap;

use super::model::Guild;
use super::place::kind_name;
use super::rules::{Access, Holder};
use super::view::{manage_mask, send_bit};
use crate::discord::names::EVERYONE;
use crate::permissions::Permissions;

/// A cell's bit: the who sees the channel.
pub const VIEW: u8 = 1;
/// A cell's bit: the who writes there (joins, for voice and stage).
pub const SEND: u8 = 2;
/// A cell's bit: the who holds a `manage_*` permission there.
pub const MANAGE: u8 = 4;
/// A cell's bit: the who is an administrator (or the owner): everything, everywhere.
pub const ADMIN: u8 = 8;

/// Whether a row or a column is in both guilds compared, or only in one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// In the guild shown (in both, for a comparison).
    Kept,
    /// Created by the plan: only in the guild after it.
    New,
    /// Deleted by the plan: only in the live guild.
    Gone,
}

/// What a column is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// `@everyone`: a member holding no role.
    Everyone,
    /// A member holding this role alone.
    Role,
    /// One member, with the roles they hold and their own overwrites.
    Person,
}

/// One who of the grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// `@everyone`, the role's name, or the person as access names them (`alice (123)`).
    pub name: String,
    /// What the column is.
    pub kind: ColumnKind,
    /// The role's id (a creation key for a role the plan creates), or the user's id.
    pub id: String,
    /// For a person: the names of the roles they hold (in the guild shown, after the plan).
    pub roles: Vec<String>,
    /// In both guilds, or only in one.
    pub presence: Presence,
}

/// One channel of the grid (a category too), in Discord's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// As plans name it: `Staff/#mod-log`.
    pub path: String,
    /// Its own name as shown under its category: `#mod-log`.
    pub name: String,
    /// Discord's channel type, by name (`text`, `voice`, `category`, ...).
    pub kind: &'static str,
    /// The row of its category, if it has one.
    pub category: Option<usize>,
    /// In both guilds, or only in one.
    pub presence: Presence,
}

/// Channels × whos. `cells[row][column]` is a set of the bits above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    /// The whos: `@everyone`, the roles highest first, then the people.
    pub columns: Vec<Column>,
    /// The channels, in Discord's order (those the plan deletes last).
    pub rows: Vec<Row>,
    /// The guild shown (after the plan, for a comparison).
    pub cells: Vec<Vec<u8>>,
    /// For a comparison, the live guild's cells, in the same places (0 where the row or the
    /// column is new).
    pub before: Option<Vec<Vec<u8>>>,
}

/// The grid of one guild.
pub fn grid(g: &Guild) -> Grid {
    let side = Side::of(g);
    let columns: Vec<Column> = side.columns.iter().map(|(c, _)| c.clone()).collect();
    let rows = rows_of(g, &[]);
    let cells = (0..g.channels.len())
        .map(|i| side.columns.iter().map(|(_, a)| side.code(a, i)).collect())
        .collect();
    Grid {
        columns,
        rows,
        cells,
        before: None,
    }
}

/// The grid of the guild a plan leaves, with the live guild's cells beside it: rows and
/// columns are matched by id; what the plan deletes is added, marked [`Presence::Gone`].
pub fn compare(live: &Guild, after: &Guild) -> Grid {
    let (now, then) = (Side::of(after), Side::of(live));
    let mut columns: Vec<Column> = now.columns.iter().map(|(c, _)| c.clone()).collect();
    let kept: hashbrown::HashSet<(ColumnKind, &str)> = then
        .columns
        .iter()
        .map(|(c, _)| (c.kind, c.id.as_str()))
        .collect();
    for c in &mut columns {
        if !kept.contains(&(c.kind, c.id.as_str())) {
            c.presence = Presence::New;
        }
    }
    let shown: hashbrown::HashSet<(ColumnKind, String)> =
        columns.iter().map(|c| (c.kind, c.id.clone())).collect();
    for (c, _) in &then.columns {
        if !shown.contains(&(c.kind, c.id.clone())) {
            columns.push(Column {
                presence: Presence::Gone,
                ..c.clone()
            });
        }
    }
    // Each row: its channel's index in the guild after, and in the live guild.
    let gone: Vec<usize> = (0..live.channels.len())
        .filter(|&i| after.channel_index(&live.channels[i].id).is_none())
        .collect();
    let mut places: Vec<Place> = (0..after.channels.len())
        .map(|i| (Some(i), live.channel_index(&after.channels[i].id)))
        .collect();
    places.extend(gone.iter().map(|&i| (None, Some(i))));
    let mut rows = rows_of(after, &gone.iter().map(|&i| (live, i)).collect::<Vec<_>>());
    for (row, place) in rows.iter_mut().zip(&places) {
        if place.0.is_some() && place.1.is_none() {
            row.presence = Presence::New;
        }
    }
    let cells_of = |side: &Side<'_>, pick: fn(&Place) -> Option<usize>| {
        let at: HashMap<(ColumnKind, &str), &Access> = side
            .columns
            .iter()
            .map(|(c, a)| ((c.kind, c.id.as_str()), a))
            .collect();
        places
            .iter()
            .map(|place| {
                columns
                    .iter()
                    .map(|c| match (pick(place), at.get(&(c.kind, c.id.as_str()))) {
                        (Some(i), Some(a)) => side.code(a, i),
                        _ => 0,
                    })
                    .collect()
            })
            .collect::<Vec<Vec<u8>>>()
    };
    let cells = cells_of(&now, |p| p.0);
    let before = cells_of(&then, |p| p.1);
    Grid {
        columns,
        rows,
        cells,
        before: Some(before),
    }
}

/// A row's channel: its index in the guild after the plan, and in the live guild.
type Place = (Option<usize>, Option<usize>);

/// One guild's whos, each computed once for every channel.
struct Side<'a> {
    g: &'a Guild,
    columns: Vec<(Column, Access)>,
    manage: Permissions,
}

impl<'a> Side<'a> {
    fn of(g: &'a Guild) -> Side<'a> {
        let column = |name: String, kind, id: &str, roles: Vec<String>| Column {
            name,
            kind,
            id: id.to_owned(),
            roles,
            presence: Presence::Kept,
        };
        let mut columns = vec![(
            column(EVERYONE.to_owned(), ColumnKind::Everyone, &g.id, Vec::new()),
            g.access(&Holder::everyone()),
        )];
        for r in g.roles.iter().filter(|r| r.id != g.id) {
            columns.push((
                column(r.name.clone(), ColumnKind::Role, &r.id, Vec::new()),
                g.access(&Holder::roles([r.id.clone()])),
            ));
        }
        for (user, m) in &g.members {
            let holder = Holder::member(g, user);
            let roles = g
                .roles
                .iter()
                .filter(|r| m.roles.contains(&r.id))
                .map(|r| r.name.clone())
                .collect();
            columns.push((
                column(g.person(user), ColumnKind::Person, user, roles),
                g.access(&holder),
            ));
        }
        Side {
            g,
            columns,
            manage: manage_mask(),
        }
    }

    /// The cell of a who of access `a` in channel `i`.
    fn code(&self, a: &Access, i: usize) -> u8 {
        let Some(&p) = a.channels.get(i) else {
            return 0;
        };
        let kind = self.g.channels[i].kind;
        let has = |bits: Permissions| !(p & bits).is_empty();
        let mut code = 0;
        if a.base.contains(Permissions::ADMINISTRATOR) {
            code |= ADMIN;
        }
        if has(Permissions::VIEW_CHANNEL) {
            code |= VIEW;
        }
        if has(send_bit(kind)) {
            code |= SEND;
        }
        if has(self.manage) {
            code |= MANAGE;
        }
        code
    }
}

/// The rows of `g`'s channels, then of `extra` (channels of another guild, each with its
/// category matched by id among the rows when there).
fn rows_of(g: &Guild, extra: &[(&Guild, usize)]) -> Vec<Row> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut rows = Vec::with_capacity(g.channels.len() + extra.len());
    let every = (0..g.channels.len())
        .map(|i| (g, i, Presence::Kept))
        .chain(extra.iter().map(|&(o, i)| (o, i, Presence::Gone)));
    for (owner, i, presence) in every {
        let c = &owner.channels[i];
        at.insert(c.id.as_str(), rows.len());
        let path = owner.path(i);
        let name = path
            .rsplit_once('/')
            .map_or(path.as_str(), |(_, n)| n)
            .to_owned();
        rows.push(Row {
            category: c.parent.as_deref().and_then(|p| at.get(p).copied()),
            path,
            name,
            kind: kind_name(c.kind),
            presence,
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::model::{MEMBER, Member, Overwrite};
    use crate::access::test_kit::{p, set_mod_log, staff_guild};

    #[test]
    fn a_role_sees_staff_and_everyone_does_not() {
        let mut g = staff_guild();
        g.set_role("11", "Moderator", Some(p(&["manage_messages"])), None, None);
        let grid = grid(&g);
        let names: Vec<&str> = grid.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["@everyone", "Moderator"]);
        let row = |path: &str| grid.rows.iter().position(|r| r.path == path).unwrap();
        let log = row("Staff/#mod-log");
        assert_eq!(grid.rows[log].category, Some(row("Staff")));
        assert_eq!(grid.cells[log], [0, VIEW | SEND | MANAGE]);
        assert_eq!(
            grid.cells[row("#general")],
            [VIEW | SEND, VIEW | SEND | MANAGE]
        );
    }

    #[test]
    fn a_person_is_computed_with_their_roles_together_not_role_by_role() {
        // Role 11 is allowed to view #mod-log, role 12 is denied: a member holding both
        // sees it (an allow of one role beats a deny of another), and their own overwrite
        // then takes sending away.
        let mut g = staff_guild();
        g.set_role("11", "Moderator", None, None, None);
        g.set_role("12", "Muted", None, None, None);
        let mut overwrites = g.channel("22").unwrap().overwrites.clone();
        overwrites.push(crate::access::test_kit::deny_view("12"));
        overwrites.push(Overwrite {
            target: "7".into(),
            kind: MEMBER,
            allow: Permissions::NONE,
            deny: Permissions::SEND_MESSAGES,
        });
        set_mod_log(&mut g, overwrites, None, None);
        g.members.insert(
            "7".into(),
            Member {
                username: Some("dave".into()),
                roles: ["11".to_owned(), "12".to_owned()].into(),
                changed_by: Vec::new(),
            },
        );
        let grid = grid(&g);
        let log = grid
            .rows
            .iter()
            .position(|r| r.path == "Staff/#mod-log")
            .unwrap();
        let dave = grid
            .columns
            .iter()
            .position(|c| c.kind == ColumnKind::Person)
            .unwrap();
        assert_eq!(grid.columns[dave].name, "dave (7)");
        assert_eq!(grid.columns[dave].roles, ["Moderator", "Muted"]);
        assert_eq!(grid.cells[log][dave], VIEW);
    }

    #[test]
    fn a_comparison_marks_what_the_plan_creates_and_deletes() {
        let live = staff_guild();
        let mut after = live.clone();
        after.set_role(
            "role:New",
            "New",
            Some(p(&["administrator"])),
            None,
            Some(0),
        );
        after.remove_channel("20");
        let grid = compare(&live, &after);
        let new = grid.columns.iter().position(|c| c.name == "New").unwrap();
        assert_eq!(grid.columns[new].presence, Presence::New);
        let general = grid.rows.iter().position(|r| r.path == "#general").unwrap();
        assert_eq!(grid.rows[general].presence, Presence::Gone);
        let before = grid.before.as_ref().unwrap();
        assert_eq!(before[general][0], VIEW | SEND);
        assert_eq!(grid.cells[general][0], 0);
        let log = grid
            .rows
            .iter()
            .position(|r| r.path == "Staff/#mod-log")
            .unwrap();
        assert_eq!(grid.cells[log][new], ADMIN | VIEW | SEND | MANAGE);
        assert_eq!(before[log][new], 0);
    }
}
