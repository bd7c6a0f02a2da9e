//! The template's roles as the manifest's `roles:`, highest first, each name distinct, and the
//! template ids overwrites will name them by.

use hashbrown::{HashMap, HashSet};

use super::json::{Id, TemplateRole};
use super::names::{Style, distinct, truncate};
use super::{Convert, GUILD, NoteKind, UNNAMED, is_emoji_text};
use crate::discord::limits::ROLE_NAME_MAX;
use crate::discord::names::EVERYONE;
use crate::discord::names::stored_display_name;
use crate::export::permission_names;
use crate::manifest::{Color, Role};

impl Convert {
    pub(super) fn roles(&mut self, roles: &[TemplateRole]) -> Vec<Role> {
        // The first role with id 0 is @everyone; a role of the template met again under an
        // id already seen is an ordinary role whose overwrites went to the first.
        let everyone_at = roles.iter().position(|r| r.id == Some(Id(0)));
        let mut taken: HashSet<String> = HashSet::from([EVERYONE.to_owned()]);
        let mut names: HashMap<usize, String> = HashMap::new();
        let mut out = Vec::new();
        // Highest first: the first in the manifest's order keeps a shared name.
        for (i, r) in roles.iter().enumerate().rev() {
            if Some(i) == everyone_at {
                continue;
            }
            let path = format!("{GUILD}.roles[{i}]");
            let name = self.role_name(r.name.as_deref(), &path, &mut taken);
            names.insert(i, name.clone());
            let color = self.role_color(r, &name, &path);
            if r.icon.as_deref().is_some_and(|i| !i.is_empty()) {
                self.left_out(
                    format!("{path}.icon"),
                    format!("the icon image of role \"{name}\""),
                );
            }
            let unicode_emoji = match r.unicode_emoji.as_deref() {
                Some(e) if is_emoji_text(e) => {
                    // Kept: the manifest says what the template says, and the guild it is
                    // applied to may have the feature; plan refuses it there if not.
                    self.note(
                        NoteKind::NeedsFeature,
                        format!("{path}.unicode_emoji"),
                        format!(
                            "role \"{name}\" keeps its emoji {e}, which needs the guild feature ROLE_ICONS: a guild without it refuses it at plan; remove `unicode_emoji` there"
                        ),
                    );
                    Some(Some(e.to_owned()))
                }
                Some(e) if !e.is_empty() => {
                    self.left_out(
                        format!("{path}.unicode_emoji"),
                        format!("\"{e}\" beside role \"{name}\" is not a standard emoji"),
                    );
                    None
                }
                _ => None,
            };
            out.push(Role {
                name,
                permissions: r.permissions.map(|b| permission_names(b.0)),
                color,
                hoist: r.hoist,
                mentionable: r.mentionable,
                unicode_emoji,
                ..Role::default()
            });
        }
        // Overwrites name roles by template id: the first role with each id.
        self.role_names.insert(0, EVERYONE.to_owned());
        for (i, r) in roles.iter().enumerate() {
            let (Some(Id(id)), Some(name)) = (r.id, names.get(&i)) else {
                continue;
            };
            if let Some(first) = self.role_names.get(&id) {
                let message = format!(
                    "role \"{name}\" has id {id}, as \"{first}\" before it: overwrites for {id} are for \"{first}\""
                );
                self.note(NoteKind::Changed, format!("{GUILD}.roles[{i}].id"), message);
            } else {
                self.role_names.insert(id, name.clone());
            }
        }
        if let Some(i) = everyone_at {
            out.push(Role {
                name: EVERYONE.to_owned(),
                permissions: roles[i].permissions.map(|b| permission_names(b.0)),
                ..Role::default()
            });
        }
        out
    }

    fn role_name(&mut self, name: Option<&str>, path: &str, taken: &mut HashSet<String>) -> String {
        let written = name.unwrap_or_default();
        let mut base = written.to_owned();
        if stored_display_name(&base).is_empty() {
            base = format!("{UNNAMED} role");
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("a role without a name is called \"{base}\""),
            );
        } else if base.chars().count() > ROLE_NAME_MAX {
            base = truncate(&base, ROLE_NAME_MAX, Style::Display);
            self.note(
                NoteKind::Changed,
                format!("{path}.name"),
                format!("role name \"{written}\" is cut to {ROLE_NAME_MAX} characters"),
            );
        }
        let name = distinct(&base, ROLE_NAME_MAX, Style::Display, taken);
        if name != base {
            self.note(
                NoteKind::Renamed,
                format!("{path}.name"),
                format!("role \"{base}\" is \"{name}\": another role has that name"),
            );
        }
        name
    }

    fn role_color(&mut self, r: &TemplateRole, name: &str, path: &str) -> Option<Color> {
        let colors = r.colors.as_ref();
        if let Some(c) = colors
            && (c.secondary_color.is_some() || c.tertiary_color.is_some())
        {
            self.left_out(format!("{path}.colors"),
                format!(
                    "the gradient of role \"{name}\": the manifest has one colour (the primary is kept)"
                ),
            );
        }
        let (field, value) = match colors.and_then(|c| c.primary_color) {
            Some(p) => ("colors.primary_color", p),
            None => ("color", r.color?),
        };
        match u32::try_from(value).ok().filter(|c| *c <= 0xFF_FFFF) {
            Some(c) => Some(Color(c)),
            None => {
                self.left_out(
                    format!("{path}.{field}"),
                    format!("colour {value} of role \"{name}\" is not an RGB colour"),
                );
                None
            }
        }
    }
}
