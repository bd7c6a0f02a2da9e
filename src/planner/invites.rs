//! Invites: which may exist (`invites:` codes and rules), every other reported, and
//! deleted with `prune.invites` (Delete Invite, with the apply's reason).
//!
//! An invite may exist when its code is listed or it matches one rule (every condition
//! the rule sets). Without the metadata (a bot with `view_audit_log` but not
//! `manage_guild`), a rule on uses or age cannot be judged: such an invite is reported,
//! never deleted.

use hashbrown::HashSet;

use serde_json::json;

use crate::discord::Route;
use crate::manifest::InviteRule;
use crate::plan::field::Invite as Fact;
use crate::plan::{Action, FieldChange, IdRef, Kind, ObjectRef, Phase};
use crate::plan_kit::context::{ANY_CHANNEL, Ctx, Op, change};
use crate::snapshot::doors::Invite;

use super::integrations::unreadable;

/// Channels an invite may lead to.
const INVITE_CHANNELS: &[u8] = ANY_CHANNEL;

/// A rule with its channels resolved to live ids (`None`: any channel).
struct Rule<'m> {
    rule: &'m InviteRule,
    channels: Option<HashSet<String>>,
}

/// Whether an invite may exist, and if not, why.
enum Verdict {
    Allowed,
    /// Rejected by every rule: the first rule's first unmet condition.
    Rejected(String),
    /// A rule needs metadata Discord did not send.
    Unknown(String),
}

pub(super) fn plan_invites(cx: &mut Ctx) {
    let Some(declared) = cx.manifest.invites.clone() else {
        if cx.manifest.prune.invites {
            cx.problem(
                Some("prune.invites".into()),
                "`prune.invites` deletes the invites `invites` does not allow, but there is no `invites` section".into(),
                Some("say which invites may exist under `invites` (codes and rules)"),
            );
        }
        return;
    };
    if let Some(want) = &declared.vanity
        && cx.snap.guild.vanity_url_code.as_ref() != Some(want)
    {
        cx.warn(
            Some("invites.vanity".into()),
            format!(
                "the vanity URL is {}, not `{want}`; Discord sets it in the server's settings, not through the API",
                cx.snap
                    .guild
                    .vanity_url_code
                    .as_deref()
                    .map_or("not set".to_owned(), |c| format!("`{c}`"))
            ),
        );
    }
    let Some(live) = cx.snap.doors.invites.clone() else {
        unreadable(
            cx,
            "invites",
            "`manage_guild` (or `view_audit_log` to read without the uses)",
        );
        return;
    };
    let mut rules = Vec::new();
    for (r, rule) in declared.rules.iter().enumerate() {
        let channels = rule.channels.as_ref().map(|list| {
            list.iter()
                .enumerate()
                .filter_map(|(k, c)| {
                    let source = format!("invites.rules[{r}].channels[{k}]");
                    match cx.resolve_channel(c, &source, INVITE_CHANNELS)? {
                        IdRef::Live(id) => Some(id),
                        // A channel this plan creates has no invite yet.
                        IdRef::New(_) => None,
                    }
                })
                .collect()
        });
        rules.push(Rule { rule, channels });
    }
    let codes: HashSet<&str> = declared.codes.iter().map(String::as_str).collect();
    let deletable = cx.manifest.prune.invites;
    if deletable
        && !cx
            .snap
            .bot_permissions()
            .contains(crate::permissions::Permissions::MANAGE_GUILD)
    {
        cx.problem(
            Some("prune.invites".into()),
            "deleting invites anywhere in the guild needs `manage_guild`, which the bot lacks"
                .into(),
            Some("grant the bot's role `manage_guild`, or turn `prune.invites` off"),
        );
        return;
    }
    for inv in &live {
        let verdict = if codes.contains(inv.code.as_str()) {
            Verdict::Allowed
        } else {
            judge(inv, &rules)
        };
        let object = ObjectRef {
            kind: Kind::Invite,
            name: inv.code.clone(),
            id: Some(inv.code.clone()),
        };
        match verdict {
            Verdict::Allowed => {}
            Verdict::Unknown(why) => {
                cx.warn(
                    Some("invites".into()),
                    format!("invite `{}` cannot be judged: {why}", inv.code),
                );
                cx.unmanaged.push(object);
            }
            Verdict::Rejected(_) if !deletable => cx.unmanaged.push(object),
            Verdict::Rejected(why) => {
                let idx = cx.push_change(change(
                    Action::Delete,
                    Kind::Invite,
                    inv.code.clone(),
                    Some(inv.code.clone()),
                    describe(cx, inv, &why),
                    Some(Kind::Invite.pruned_by().into()),
                ));
                let route = Route::DeleteInvite {
                    code: inv.code.clone(),
                };
                let summary = format!("delete invite {}", inv.code);
                cx.push_op(Op::new(Phase::InviteDelete, idx, route, summary));
            }
        }
    }
}

/// The first rule the invite matches, else why not (from the first rule).
fn judge(inv: &Invite, rules: &[Rule]) -> Verdict {
    let mut first_no: Option<String> = None;
    let mut unknown: Option<String> = None;
    for r in rules {
        match meets(inv, r) {
            Ok(()) => return Verdict::Allowed,
            Err(Some(why)) => {
                first_no.get_or_insert(why);
            }
            Err(None) => {
                unknown.get_or_insert_with(|| {
                    "its uses and age are not readable (the bot lacks manage_guild)".to_owned()
                });
            }
        }
    }
    match (unknown, first_no) {
        (Some(u), _) => Verdict::Unknown(u),
        (None, Some(no)) => Verdict::Rejected(no),
        (None, None) => Verdict::Rejected("no code or rule allows it".to_owned()),
    }
}

/// `Ok` when the invite meets every condition of the rule; `Err(Some(why))` when it
/// fails one; `Err(None)` when a condition needs metadata that is missing.
fn meets(inv: &Invite, r: &Rule) -> Result<(), Option<String>> {
    let rule = r.rule;
    if let Some(ids) = &r.channels
        && !inv.channel_id().is_some_and(|c| ids.contains(c))
    {
        return Err(Some("not into a channel a rule names".into()));
    }
    if rule.expires == Some(true) && inv.permanent() {
        return Err(Some("never expires".into()));
    }
    if let Some(limit) = rule.max_age {
        match inv.max_age {
            None if !inv.has_metadata() => return Err(None),
            Some(age) if age > 0 && age <= u64::from(limit) => {}
            _ if inv.permanent() => return Err(Some("never expires".into())),
            Some(age) => return Err(Some(format!("lasts {age} s, more than {limit} s"))),
            None => return Err(None),
        }
    }
    if let Some(limit) = rule.max_uses {
        match inv.max_uses {
            None => return Err(None),
            Some(0) => return Err(Some("has no use limit".into())),
            Some(n) if n > u64::from(limit) => {
                return Err(Some(format!("allows {n} uses, more than {limit}")));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The deleted invite's facts, as the change's fields (before → gone).
fn describe(cx: &Ctx, inv: &Invite, why: &str) -> Vec<FieldChange> {
    let gone = |field: Fact, before: serde_json::Value| {
        FieldChange::new(field, before, serde_json::Value::Null)
    };
    let mut out = vec![gone(Fact::Rejected, json!(why))];
    if let Some(c) = inv.channel_id() {
        out.push(gone(
            Fact::Channel,
            json!(cx.channel_label(&IdRef::Live(c.to_owned()))),
        ));
    }
    if let Some(u) = &inv.inviter {
        out.push(gone(Fact::Inviter, json!(u.username)));
    }
    if let Some(n) = inv.uses {
        out.push(gone(Fact::Uses, json!(n)));
    }
    out.push(gone(
        Fact::Expires,
        inv.expires_at.as_ref().map_or(json!("never"), |e| json!(e)),
    ));
    out
}
