//! The scale bench's edit of an exported manifest, shared with the rehearsal bench.

use std::fmt::Write as _;

/// The exported manifest with changes of every kind: a topic in most channels, the
/// colour of every generated role, up to ten new roles and ten new channels (as many
/// as Discord's limits leave room for), so each planner has work. The default guild's
/// roles stay as they are (some are above the bot's role, which it cannot edit).
pub fn changed(export: &str, new_roles: usize, new_channels: usize) -> String {
    let mut out = String::with_capacity(export.len() + 2048);
    let mut team_role = false;
    for line in export.lines() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        if line == "  - name: \"@everyone\"" {
            for i in 0..new_roles {
                let _ = writeln!(out, "  - {{ name: Bench {i:02}, hoist: true }}");
            }
        }
        if let Some(name) = trimmed.strip_prefix("name: ") {
            team_role = name.starts_with("Team ");
        }
        if let Some(rest) = trimmed.strip_prefix("topic: Channel ") {
            let _ = writeln!(out, "{indent}topic: Changed {rest}");
        } else if team_role && trimmed.starts_with("color: ") {
            let _ = writeln!(out, "{indent}color: \"#123456\"");
        } else {
            out.push_str(line);
            out.push('\n');
        }
        if line == "channels:" {
            for i in 0..new_channels {
                let _ = writeln!(out, "  - {{ name: bench-{i:02}, topic: Bench {i} }}");
            }
        }
    }
    out
}
