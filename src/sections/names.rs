//! How an exported manifest names live roles and channels.

use hashbrown::HashMap;

use crate::snapshot::Snapshot;

/// How channels are referred to: by name, or `Category/name` where a name is not unique;
/// roles by name, `@everyone` by its own.
pub struct Names<'a> {
    snap: &'a Snapshot,
    counts: HashMap<&'a str, usize>,
}

impl<'a> Names<'a> {
    pub fn new(snap: &'a Snapshot) -> Names<'a> {
        let mut counts = HashMap::new();
        for c in &snap.channels {
            *counts.entry(c.name.as_str()).or_insert(0) += 1;
        }
        Names { snap, counts }
    }

    pub fn channel(&self, id: &str) -> String {
        let Some(c) = self.snap.channel(id) else {
            return id.to_owned();
        };
        let parent = c.parent_id.as_deref().and_then(|p| self.snap.channel(p));
        match (self.counts.get(c.name.as_str()), parent) {
            (Some(n), Some(p)) if *n > 1 => format!("{}/{}", p.name, c.name),
            _ => c.name.clone(),
        }
    }

    pub fn role(&self, id: &str) -> Option<String> {
        if id == self.snap.guild.id {
            return Some("@everyone".into());
        }
        self.snap.role(id).map(|r| r.name.clone())
    }
}
