//! What binds a saved plan to what it was made from: the manifest's content digest, the
//! guild, guildctl's version, and a digest of its own changes that reviewers can match.
//! `apply --plan` refuses a plan when any of them differs.

use sha2::{Digest, Sha256};

use super::canonical_json;
use super::change::Change;
use super::operation::Operation;
use super::value::{PLAN_FORMAT, Plan};
use crate::manifest::LoadedManifest;

/// The version of guildctl that makes and applies plans.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The manifest's content digest (hex SHA-256). For a file, of its bytes (what `sha256sum`
/// prints); for a folder, of each file in merge order as its path relative to the folder
/// (with `/`), a NUL, its length in bytes in decimal, a NUL and its bytes, so that renaming,
/// moving or reordering files changes it too.
pub fn manifest_digest(loaded: &LoadedManifest) -> String {
    loaded.digest(digest_of).to_owned()
}

fn digest_of(loaded: &LoadedManifest) -> String {
    let mut h = Sha256::new();
    if !loaded.is_dir {
        for f in &loaded.files {
            h.update(f.text.as_bytes());
        }
        return hex(&h.finalize());
    }
    for f in &loaded.files {
        let rel = f.path.strip_prefix(&loaded.path).unwrap_or(&f.path);
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        h.update(rel.join("/").as_bytes());
        h.update([0]);
        h.update(f.text.len().to_string().as_bytes());
        h.update([0]);
        h.update(f.text.as_bytes());
    }
    hex(&h.finalize())
}

/// The digest of a plan's changes and operations (hex SHA-256 of their canonical JSON:
/// `{"changes":[...],"operations":[...]}` with object keys sorted, no whitespace).
pub fn changes_digest(changes: &[Change], operations: &[Operation]) -> String {
    // Written into the hasher as it is made: the two keys are in order already, and each
    // list goes out item by item (a large plan's text is a megabyte).
    let mut h = Sha256::new();
    let written = (|| -> Result<(), canonical_json::Error> {
        h.update(b"{\"changes\":");
        canonical_json::write(&mut h, changes)?;
        h.update(b",\"operations\":");
        canonical_json::write(&mut h, operations)?;
        h.update(b"}");
        Ok(())
    })();
    match written {
        Ok(()) => hex(&h.finalize()),
        // What `to_value` would have refused was hashed as `null` (no plan has such a value).
        Err(_) => hex(&Sha256::digest(b"null")),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One way a saved plan does not fit the run applying it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mismatch {
    /// The plan's format is not the one this guildctl writes ([`PLAN_FORMAT`]).
    Format {
        /// The format the plan says it is.
        plan: u32,
    },
    /// Another guildctl version made the plan.
    Version {
        /// The version that made it.
        plan: String,
    },
    /// The changes and operations are not those the plan's digest was made of.
    Changes {
        /// The digest the plan records.
        recorded: String,
        /// The digest of what it holds.
        computed: String,
    },
    /// The manifest changed since the plan was made.
    Manifest {
        /// The manifest digest the plan was made with.
        plan: String,
        /// The manifest's digest now.
        now: String,
    },
    /// The plan was made for another guild.
    Guild {
        /// The guild the plan names.
        plan: String,
        /// The guild of this run.
        now: String,
    },
    /// An operation names a change or a prerequisite that does not exist.
    Malformed {
        /// The operation's index.
        operation: usize,
    },
    /// The live guild is not the one the reviewed plan was made from.
    GuildMoved,
    /// The plan this run derives is not the reviewed one.
    Differs {
        /// The reviewed plan's changes digest.
        reviewed: String,
        /// The changes digest of the plan this run derives.
        derived: String,
        /// Changes the reviewed plan shows that this run would not make.
        only_reviewed: Vec<String>,
        /// Changes this run would make that the reviewed plan does not show.
        only_derived: Vec<String>,
    },
}

/// At most this many differing changes are named in a refusal, each way.
const NAMED_DIFFERENCES: usize = 10;

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Format { plan } => write!(
                f,
                "it has plan format {plan}; this guildctl reads format {PLAN_FORMAT}"
            ),
            Mismatch::Version { plan } if plan.is_empty() => write!(
                f,
                "it does not say which guildctl made it; this is guildctl {VERSION}"
            ),
            Mismatch::Version { plan } => write!(
                f,
                "it was made by guildctl {plan}; this is guildctl {VERSION}"
            ),
            Mismatch::Changes { recorded, computed } => write!(
                f,
                "its changes were edited after it was made (changes_sha256 {recorded}, but they hash to {computed})"
            ),
            Mismatch::Manifest { plan, now } => write!(
                f,
                "it was made from a manifest with sha256 {plan}; the manifest given now has sha256 {now}"
            ),
            Mismatch::Guild { plan, now } => write!(
                f,
                "it was made for guild {plan}; this run targets guild {now}"
            ),
            Mismatch::Malformed { operation } => write!(
                f,
                "its operation {operation} refers to a change or an operation it does not have"
            ),
            Mismatch::GuildMoved => write!(f, "the guild changed since the reviewed plan was made"),
            Mismatch::Differs {
                reviewed,
                derived,
                only_reviewed,
                only_derived,
            } => {
                write!(
                    f,
                    "the plan this run derives from the manifest and the live guild (changes sha256 {derived}) is not the reviewed plan (changes sha256 {reviewed})"
                )?;
                let mut said = false;
                for (changes, what) in [
                    (
                        only_reviewed,
                        "the reviewed plan shows, and this run would not make",
                    ),
                    (
                        only_derived,
                        "this run would make, and the reviewed plan does not show",
                    ),
                ] {
                    if changes.is_empty() {
                        continue;
                    }
                    let named: Vec<&str> = changes
                        .iter()
                        .take(NAMED_DIFFERENCES)
                        .map(String::as_str)
                        .collect();
                    let more = changes.len().saturating_sub(NAMED_DIFFERENCES);
                    let more = if more > 0 {
                        format!(" and {more} more")
                    } else {
                        String::new()
                    };
                    write!(f, "; {what}: {}{more}", named.join("; "))?;
                    said = true;
                }
                if !said {
                    write!(f, "; its changes are the same, its calls are not")?;
                }
                Ok(())
            }
        }
    }
}

/// A saved plan that does not fit the run applying it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", self.describe())]
pub struct BindingError {
    /// Every way it does not fit, at least one.
    pub mismatches: Vec<Mismatch>,
}

impl BindingError {
    fn describe(&self) -> String {
        let parts: Vec<String> = self.mismatches.iter().map(ToString::to_string).collect();
        parts.join("; ")
    }
}

impl Plan {
    /// Checks that this saved plan was made by this guildctl, from the manifest whose
    /// digest is `manifest_sha256`, for guild `guild_id`, and that its changes are the
    /// ones it was made with. Every difference is reported.
    pub fn verify_binding(
        &self,
        manifest_sha256: &str,
        guild_id: &str,
    ) -> Result<(), BindingError> {
        let mut mismatches = Vec::new();
        if self.guildctl_version != VERSION {
            mismatches.push(Mismatch::Version {
                plan: self.guildctl_version.clone(),
            });
        }
        if self.format != PLAN_FORMAT {
            // Another format records other things: comparing them would only confuse.
            mismatches.insert(0, Mismatch::Format { plan: self.format });
            return Err(BindingError { mismatches });
        }
        // Indexes from a file are checked before anything follows them.
        if let Some(operation) =
            self.operations.iter().enumerate().position(|(j, op)| {
                op.change >= self.changes.len() || op.after.iter().any(|&i| i >= j)
            })
        {
            mismatches.push(Mismatch::Malformed { operation });
        }
        let computed = changes_digest(&self.changes, &self.operations);
        if self.changes_sha256 != computed {
            mismatches.push(Mismatch::Changes {
                recorded: self.changes_sha256.clone(),
                computed,
            });
        }
        if self.manifest_sha256 != manifest_sha256 {
            mismatches.push(Mismatch::Manifest {
                plan: self.manifest_sha256.clone(),
                now: manifest_sha256.to_owned(),
            });
        }
        if self.guild_id != guild_id {
            mismatches.push(Mismatch::Guild {
                plan: self.guild_id.clone(),
                now: guild_id.to_owned(),
            });
        }
        if mismatches.is_empty() {
            Ok(())
        } else {
            Err(BindingError { mismatches })
        }
    }
}

impl Plan {
    /// Checks that this plan, derived by the run applying it, is the reviewed plan: made
    /// from the same guild state, with the same changes digest. The reviewed plan's
    /// digest is the one shown where it was reviewed; its changes serve only to say what
    /// differs, and its operations are never used.
    pub fn matches_reviewed(&self, reviewed: &Plan) -> Result<(), BindingError> {
        if reviewed.base_fingerprint != self.base_fingerprint {
            return Err(BindingError {
                mismatches: vec![Mismatch::GuildMoved],
            });
        }
        if reviewed.changes_sha256 == self.changes_sha256 {
            return Ok(());
        }
        let only_in = |these: &[Change], those: &[Change]| -> Vec<String> {
            these
                .iter()
                .filter(|c| !those.contains(c))
                .map(Change::describe)
                .collect()
        };
        Err(BindingError {
            mismatches: vec![Mismatch::Differs {
                reviewed: reviewed.changes_sha256.clone(),
                derived: self.changes_sha256.clone(),
                only_reviewed: only_in(&reviewed.changes, &self.changes),
                only_derived: only_in(&self.changes, &reviewed.changes),
            }],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let v: serde_json::Value =
            serde_json::from_str(r#"{"b":1,"a":{"d":[{"z":1,"y":"é"}],"c":null}}"#).unwrap();
        let mut out = Vec::new();
        canonical_json::write(&mut out, &v).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":{"c":null,"d":[{"y":"é","z":1}]},"b":1}"#
        );
    }

    #[test]
    fn the_empty_plan_has_the_published_digest() {
        // SHA-256 of `{"changes":[],"operations":[]}` (docs/safety.md says the form).
        use sha2::Digest as _;
        let expected = hex(&Sha256::digest(br#"{"changes":[],"operations":[]}"#));
        assert_eq!(changes_digest(&[], &[]), expected);
    }

    #[test]
    fn changes_digest_depends_on_the_changes() {
        let empty = changes_digest(&[], &[]);
        assert_eq!(empty.len(), 64);
        let change = Change {
            action: crate::plan::Action::Delete,
            object: crate::plan::ObjectRef {
                kind: crate::plan::Kind::Role,
                name: "Muted".into(),
                id: Some("1".into()),
            },
            fields: vec![],
            source: None,
            person: None,
        };
        assert_ne!(changes_digest(&[change], &[]), empty);
    }
}
