//! `automod:`, the guild's AutoMod rules: below the planner (`planner::automod`).

use serde_json::Value;

use super::{ExportedFiles, Names, PlanTurn, Section, SectionId, write_declared};
use crate::discord::models::User;
use crate::manifest::{AutoModAction, AutoModBlock, AutoModRule, Manifest, Snowflake};
use crate::snapshot::Snapshot;
use crate::snapshot::automod::trigger_as_written;

pub(super) struct AutoMod;

impl Section for AutoMod {
    fn id(&self) -> SectionId {
        SectionId::AutoMod
    }

    fn key(&self) -> &'static str {
        "automod"
    }

    fn plan_turn(&self) -> PlanTurn {
        PlanTurn::AfterDoors
    }

    fn export(&self, snap: &Snapshot, _: &ExportedFiles, names: &Names, out: &mut Manifest) {
        out.automod = snap.automod.as_ref().map(|live| {
            live.iter()
                .map(|r| AutoModRule {
                    id: Some(Snowflake(r.id.clone())),
                    name: r.name.clone(),
                    previous_names: Vec::new(),
                    trigger: trigger_as_written(r.trigger_type, &r.trigger_metadata),
                    event: None,
                    actions: r
                        .actions
                        .iter()
                        .filter_map(|a| {
                            let m = &a.metadata;
                            Some(match a.kind {
                                1 => AutoModAction::Block(AutoModBlock {
                                    message: m.custom_message.clone().filter(|s| !s.is_empty()),
                                }),
                                2 => AutoModAction::Alert(names.channel(m.channel_id.as_deref()?)),
                                3 => AutoModAction::Timeout(m.duration_seconds?),
                                4 => AutoModAction::BlockMemberInteraction,
                                _ => return None,
                            })
                        })
                        .collect(),
                    exempt_roles: r
                        .exempt_roles
                        .iter()
                        .filter_map(|id| names.role(id))
                        .collect(),
                    exempt_channels: r
                        .exempt_channels
                        .iter()
                        .map(|id| names.channel(id))
                        .collect(),
                    enabled: r.enabled,
                })
                .collect()
        });
    }

    fn write(&self, m: &Manifest, out: &mut String) -> Result<(), String> {
        write_declared(
            out,
            "AutoMod rules, pinned by id (Discord's own mention-spam rule among them in a community guild).",
            self.key(),
            &m.automod,
        )
    }

    fn copy_key(&self) -> &'static str {
        "auto_moderation_rules"
    }

    /// As Discord lists them.
    fn copy(&self, snap: &Snapshot, _: &mut dyn FnMut(&User)) -> Vec<Value> {
        snap.automod
            .iter()
            .flatten()
            .filter_map(|r| serde_json::to_value(r).ok())
            .collect()
    }

    fn ids<'s>(&self, snap: &'s Snapshot) -> Vec<&'s str> {
        snap.automod
            .iter()
            .flatten()
            .map(|r| r.id.as_str())
            .collect()
    }

    fn files(&self, _: &Snapshot) -> Vec<String> {
        Vec::new()
    }
}
