//! A run's roster changes by person, across its guilds: the block a `plan --all` shows
//! before the guilds' plans ("alice leaves: Moderator in en, de; Admin in events-2026"), so
//! that one change to the people file reads as the one change it is.

use std::collections::BTreeMap;

use crate::inert;
use crate::manifest::people::People;
use crate::plan::{Action, Kind, Plan};

/// One person's roster changes across the guilds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moves {
    /// Their name in the people file, else their username, else their id.
    pub who: String,
    /// Their Discord id.
    pub id: String,
    /// Whether the people file has them.
    pub listed: bool,
    /// Roles given: (role, guilds), in the order first met.
    pub gains: Vec<(String, Vec<String>)>,
    /// Roles taken away.
    pub losses: Vec<(String, Vec<String>)>,
}

impl Moves {
    /// `alice leaves: Moderator in en, de; Admin in events-2026`: the verb says whether
    /// the person left the people file (or was never in it) and lost everything, or gains
    /// and loses roles.
    pub fn line(&self) -> String {
        let list = |moves: &[(String, Vec<String>)]| {
            moves
                .iter()
                .map(|(role, guilds)| format!("{role} in {}", guilds.join(", ")))
                .collect::<Vec<_>>()
                .join("; ")
        };
        let mut parts = Vec::new();
        if !self.gains.is_empty() {
            parts.push(format!("gains {}", list(&self.gains)));
        }
        if !self.losses.is_empty() {
            let verb = if self.listed || !self.gains.is_empty() {
                "loses"
            } else {
                "leaves:"
            };
            parts.push(format!("{verb} {}", list(&self.losses)));
        }
        format!("{} {}", self.who, parts.join("; "))
    }
}

/// Every roster change of `plans` (each with its guild's name) by person, in the order the
/// people file lists them, then the others by name.
pub fn moves<'a>(
    people: Option<&People>,
    plans: impl IntoIterator<Item = (&'a str, &'a Plan)>,
) -> Vec<Moves> {
    let mut by_id: BTreeMap<String, Moves> = BTreeMap::new();
    for (guild, plan) in plans {
        for c in plan
            .changes
            .iter()
            .filter(|c| c.object.kind == Kind::RosterEntry)
        {
            let Some(id) = c.object.id.clone() else {
                continue;
            };
            let role = c
                .object
                .name
                .rsplit_once(" ← ")
                .map_or(c.object.name.as_str(), |(role, _)| role)
                .to_owned();
            let listed = people.and_then(|p| p.by_id(&id));
            let m = by_id.entry(id.clone()).or_insert_with(|| Moves {
                who: listed
                    .map(|p| p.name.clone())
                    .or_else(|| c.person.as_ref().and_then(|p| p.username.clone()))
                    .unwrap_or_else(|| id.clone()),
                id,
                listed: listed.is_some(),
                gains: Vec::new(),
                losses: Vec::new(),
            });
            let side = match c.action {
                Action::Create => &mut m.gains,
                _ => &mut m.losses,
            };
            match side.iter_mut().find(|(r, _)| *r == role) {
                Some((_, guilds)) => guilds.push(guild.to_owned()),
                None => side.push((role, vec![guild.to_owned()])),
            }
        }
    }
    let rank = |m: &Moves| {
        people
            .and_then(|p| p.people.iter().position(|q| q.discord == m.id))
            .unwrap_or(usize::MAX)
    };
    let mut out: Vec<Moves> = by_id.into_values().collect();
    out.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.who.cmp(&b.who)));
    out
}

/// The block as text: a heading and a line per person; empty when nobody's roles change.
pub fn text(moves: &[Moves]) -> String {
    if moves.is_empty() {
        return String::new();
    }
    let mut out = String::from("People:\n");
    for m in moves {
        out.push_str(&format!("  {}\n", inert::terminal(&m.line())));
    }
    out.push('\n');
    out
}

/// The block as markdown, for a pull request's comment: every name escaped (a people file
/// comes from a pull request too).
pub fn markdown(moves: &[Moves]) -> String {
    if moves.is_empty() {
        return String::new();
    }
    let mut out = String::from("### People\n\n");
    for m in moves {
        out.push_str(&format!("- {}\n", inert::markdown(&m.line())));
    }
    out.push('\n');
    out
}
