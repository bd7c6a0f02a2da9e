//! Channels and categories: matching, field and overwrite changes, moves
//! between categories, order within Discord's sorting groups, pruning.
//!
//! Its rooms: `run` (the planner's run), `matching`, `fields`, `changes` (update, creation,
//! pruning), `access` (what the access model records), `overwrites`, `positions` (the sorting
//! groups' order), `checks` (what Discord would refuse), `flags` (the channel flags by name)
//! and `follows` (announcement channels followed in).

use std::borrow::Cow;

use crate::access::model::display_name;
use crate::discord::models::{Channel as LiveChannel, channel_type};
use crate::discord::names::stored_channel_name;
use crate::manifest::Channel;
use crate::plan::{IdRef, Kind};
use overwrites::Ow;

mod access;
mod changes;
mod checks;
mod fields;
mod flags;
mod follows;
mod matching;
mod overwrites;
mod positions;
mod run;

pub(crate) use run::plan_channels;

/// Discord sorts channels within these groups (docs/discord.md §4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group {
    Category,
    TextLike,
    VoiceLike,
}

fn group_of(kind: u8) -> Group {
    match kind {
        channel_type::CATEGORY => Group::Category,
        channel_type::VOICE | channel_type::STAGE => Group::VoiceLike,
        _ => Group::TextLike,
    }
}

/// The kind a plan names a channel of Discord type `kind` by: a category, or a channel.
fn object_kind(kind: u8) -> Kind {
    if kind == channel_type::CATEGORY {
        Kind::Category
    } else {
        Kind::Channel
    }
}

/// One declared channel, flattened out of the category tree.
struct Decl<'m> {
    ch: &'m Channel,
    kind: u8,
    /// Index (in the flattened list) of the category this channel is declared in.
    parent: Option<usize>,
    source: String,
    key: String,
}

/// The declared channels, each with what the plan made of it: the live channel it is
/// (none: created), its id in the plan, and the overwrites it declares (none: left alone).
/// Each list is in the order of `decls`.
#[derive(Clone, Copy, Default)]
struct Declared<'a> {
    decls: &'a [Decl<'a>],
    matches: &'a [Option<&'a LiveChannel>],
    ids: &'a [IdRef],
    overwrites: &'a [Option<Vec<Ow>>],
}

impl Decl<'_> {
    /// The name as Discord will store it.
    fn stored_name(&self) -> Cow<'_, str> {
        stored_channel_name(self.kind, &self.ch.name)
    }

    fn display(&self, decls: &[Decl]) -> String {
        display_name(
            self.kind,
            &self.stored_name(),
            self.parent.map(|p| decls[p].ch.name.as_str()),
        )
    }
}
