//! The expression-like sections (emoji, soundboard sounds, stickers) as one shape: each says
//! which section it is, how `export` writes its live objects and how the rehearsal's copy
//! holds one; the rest of [`Section`] follows from its planner's facts ([`ExpressionPlan`]):
//! its entries, its live list, which live ones are an integration's, their files and ids.

use serde::Serialize;
use serde_json::Value;

use super::{ExportedFiles, LiveFile, Names, Section, SectionId};
use crate::discord::models::User;
use crate::manifest::Manifest;
use crate::plan_kit::context::Ctx;
use crate::plan_kit::expressions::{ExpressionPlan, LiveExpression, plan_expressions};
use crate::snapshot::Snapshot;
use crate::snapshot::expressions::Filed;

/// A section of expressions, planned by [`plan_expressions`].
pub(super) trait ExpressionSection:
    ExpressionPlan<Declared: Serialize, Live: 'static> + Sync
{
    /// Which section it is.
    const ID: SectionId;

    /// Its live objects as manifest entries ([`Section::export`]).
    fn export_into(snap: &Snapshot, files: &ExportedFiles, names: &Names, out: &mut Manifest);

    /// A live object as the rehearsal's copy holds it, and who uploaded it.
    fn copy_of(live: &Self::Live) -> (Option<&User>, Value);
}

impl<T: ExpressionSection> Section for T {
    fn id(&self) -> SectionId {
        T::ID
    }

    fn export(&self, snap: &Snapshot, files: &ExportedFiles, names: &Names, out: &mut Manifest) {
        T::export_into(snap, files, names, out);
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        self.about().write(out, &T::declared(m))
    }

    fn copy(&self, snap: &Snapshot, creator: &mut dyn FnMut(&User)) -> Vec<Value> {
        live::<T>(snap)
            .map(|l| {
                let (uploader, object) = T::copy_of(l);
                if let Some(u) = uploader {
                    creator(u);
                }
                object
            })
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        live::<T>(snap).map(|l| l.live().id).collect()
    }

    fn files(&self, snap: &Snapshot) -> Vec<String> {
        live::<T>(snap).map(Filed::cdn_path).collect()
    }

    /// Those of the objects `export` writes: not an integration's.
    fn export_files<'s>(&self, snap: &'s Snapshot) -> Vec<LiveFile<'s>> {
        live::<T>(snap)
            .filter(|l| !T::managed(l))
            .map(|l| LiveFile {
                at: l.cdn_path(),
                name: l.live().name,
                id: l.live().id,
            })
            .collect()
    }

    fn plan(&self, cx: &mut Ctx) {
        plan_expressions::<T>(cx);
    }
}

/// The live list, empty when it was not read.
fn live<'s, T: ExpressionPlan>(snap: &'s Snapshot) -> impl Iterator<Item = &'s T::Live>
where
    T::Live: 's,
{
    T::live(snap).into_iter().flatten()
}
