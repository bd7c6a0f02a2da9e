//! A new member's walk through onboarding, as Discord shows it (docs/access.md, "A new
//! member's view"): the welcome screen, the channels in their list on joining, each
//! question with the roles and channels its answers give, and what they see once they have
//! answered. Pure: it reads the access [`Guild`] and the onboarding and welcome screen as
//! the plan leaves them ([`Joining`], ids resolved), and computes with [`super::rules`].
//!
//! Discord's onboarding requirements ([`requirements`]) are here too, so the planner and
//! the view count them alike.

use serde::Serialize;
use serde_with::skip_serializing_none;

use super::model::Guild;
use super::place::Place;
use super::rules::Holder;
use crate::discord::models::{self, channel_type};
use crate::permissions::Permissions;
use crate::snapshot::Snapshot;

/// Discord enables onboarding only with at least this many default channels
/// (docs/discord.md §5.4)...
pub const MIN_DEFAULT_CHANNELS: usize = 7;
/// ...at least this many of them where @everyone can send messages.
pub const MIN_WRITABLE: usize = 5;

/// The welcome screen and onboarding of a guild, ids resolved (live ids, or the creation
/// keys of channels and roles the plan makes, as the access [`Guild`] names them).
#[derive(Debug, Clone, Default)]
pub struct Joining {
    /// Onboarding; none when the guild has none (never set up, or unreadable).
    pub onboarding: Option<Onboarding>,
    /// The welcome screen; none when the guild has none.
    pub welcome_screen: Option<WelcomeScreen>,
}

/// Onboarding, as the walk needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Onboarding {
    /// Whether new members go through it.
    pub enabled: bool,
    /// Advanced mode: the questions' channels count toward the requirements too.
    pub advanced: bool,
    /// The default channels (ids), in order.
    pub default_channels: Vec<String>,
    /// The questions, in order.
    pub prompts: Vec<Prompt>,
}

/// One onboarding question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prompt {
    /// The question.
    pub title: String,
    /// Shown as a dropdown rather than as multiple choice.
    pub dropdown: bool,
    /// One answer at most.
    pub single_select: bool,
    /// An answer is required to finish onboarding.
    pub required: bool,
    /// Asked on joining; otherwise only in Channels & Roles.
    pub in_onboarding: bool,
    /// The answers offered.
    pub options: Vec<PromptOption>,
}

/// One answer to a question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PromptOption {
    /// The answer's title.
    pub title: String,
    /// What it says under the title.
    pub description: Option<String>,
    /// Its emoji as shown: the character, or `:name:` for a custom one.
    pub emoji: Option<String>,
    /// The roles it gives (ids).
    pub roles: Vec<String>,
    /// The channels it adds to the member's list (ids).
    pub channels: Vec<String>,
}

/// The welcome screen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WelcomeScreen {
    /// Shown to new members.
    pub enabled: bool,
    /// The server description on it.
    pub description: Option<String>,
    /// The channels it recommends, in order.
    pub channels: Vec<WelcomeChannel>,
}

/// A channel the welcome screen recommends.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WelcomeChannel {
    /// The channel (id).
    pub channel: String,
    /// What the screen says of it.
    pub description: String,
    /// Its emoji as shown.
    pub emoji: Option<String>,
}

/// An emoji as shown: the character, else `:name:` for a custom one.
pub fn emoji_shown(id: Option<&str>, name: Option<&str>) -> Option<String> {
    match (id, name) {
        (None, Some(n)) if !n.is_empty() => Some(n.to_owned()),
        (Some(_), Some(n)) => Some(format!(":{n}:")),
        (Some(id), None) => Some(format!(":{id}:")),
        _ => None,
    }
}

impl Joining {
    /// The live guild's welcome screen and onboarding, as the snapshot read them.
    pub fn live(snap: &Snapshot) -> Joining {
        Joining {
            onboarding: snap.onboarding.as_ref().map(Onboarding::live),
            welcome_screen: snap.welcome_screen.as_ref().map(|w| WelcomeScreen {
                enabled: snap.guild.has_feature("WELCOME_SCREEN_ENABLED"),
                description: w.description.clone().filter(|d| !d.is_empty()),
                channels: w
                    .welcome_channels
                    .iter()
                    .map(|c| WelcomeChannel {
                        channel: c.channel_id.clone(),
                        description: c.description.clone(),
                        emoji: emoji_shown(c.emoji_id.as_deref(), c.emoji_name.as_deref()),
                    })
                    .collect(),
            }),
        }
    }
}

impl Onboarding {
    /// Onboarding as Discord returned it.
    pub fn live(o: &models::Onboarding) -> Onboarding {
        Onboarding {
            enabled: o.enabled,
            advanced: o.mode == 1,
            default_channels: o.default_channel_ids.clone(),
            prompts: o
                .prompts
                .iter()
                .map(|p| Prompt {
                    title: p.title.clone(),
                    dropdown: p.kind == 1,
                    single_select: p.single_select,
                    required: p.required,
                    in_onboarding: p.in_onboarding,
                    options: p
                        .options
                        .iter()
                        .map(|o| PromptOption {
                            title: o.title.clone(),
                            description: o.description.clone().filter(|d| !d.is_empty()),
                            emoji: o
                                .emoji
                                .as_ref()
                                .and_then(|e| emoji_shown(e.id.as_deref(), e.name.as_deref())),
                            roles: o.role_ids.clone(),
                            channels: o.channel_ids.clone(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The channels Discord counts toward the requirements: the default channels, and in
    /// advanced mode the questions' channels too; each once, those the guild has.
    fn counted(&self, g: &Guild) -> Vec<usize> {
        let questions = self
            .prompts
            .iter()
            .flat_map(|p| &p.options)
            .flat_map(|o| &o.channels)
            .filter(|_| self.advanced);
        let mut out: Vec<usize> = Vec::new();
        for i in self
            .default_channels
            .iter()
            .chain(questions)
            .filter_map(|id| g.channel_index(id))
        {
            if !out.contains(&i) {
                out.push(i);
            }
        }
        out
    }
}

/// What Discord checks of onboarding against the guild (docs/discord.md §5.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirements {
    /// Channels counted (default channels; in advanced mode the questions' too).
    pub counted: usize,
    /// Of those, where @everyone can view and send messages.
    pub writable: usize,
    /// Default channels @everyone cannot view (ids), in the onboarding's order.
    pub unviewable: Vec<String>,
}

impl Requirements {
    /// Enough channels, enough writable, every default channel readable by @everyone.
    pub fn met(&self) -> bool {
        self.counted_ok() && self.unviewable.is_empty()
    }

    /// Enough channels, and enough of them writable by @everyone.
    pub fn counted_ok(&self) -> bool {
        self.counted >= MIN_DEFAULT_CHANNELS && self.writable >= MIN_WRITABLE
    }
}

/// What @everyone may do in channel `i` by its overwrites, before the implicit rules: as
/// Discord (and the emulator) judge onboarding's channels.
fn everyone_in(g: &Guild, i: usize) -> Permissions {
    let everyone = Holder::everyone();
    g.overwritten(&g.channels[i], &everyone, g.base(&everyone))
}

/// Discord's onboarding requirements, counted on `g`.
pub fn requirements(g: &Guild, o: &Onboarding) -> Requirements {
    let counted = o.counted(g);
    let writable = counted
        .iter()
        .filter(|&&i| {
            g.channels[i].kind != channel_type::CATEGORY
                && everyone_in(g, i)
                    .contains(Permissions::VIEW_CHANNEL | Permissions::SEND_MESSAGES)
        })
        .count();
    let mut unviewable: Vec<String> = Vec::new();
    for id in &o.default_channels {
        if let Some(i) = g.channel_index(id)
            && !everyone_in(g, i).contains(Permissions::VIEW_CHANNEL)
            && !unviewable.contains(id)
        {
            unviewable.push(id.clone());
        }
    }
    Requirements {
        counted: counted.len(),
        writable,
        unviewable,
    }
}

/// Why a walk cannot be shown: an answer that names nothing, or too many.
#[derive(Debug, Clone, thiserror::Error, PartialEq)]
pub enum WalkError {
    /// `--answers` without `=`.
    #[error("--answers {0:?}: write PROMPT=OPTION, several options separated by `;`")]
    Malformed(String),
    /// Answers given where onboarding asks nothing.
    #[error("--answers: the guild's onboarding asks no question")]
    NoPrompts,
    /// No question has this title.
    #[error("--answers: onboarding asks no question {asked:?} (it asks: {known})")]
    UnknownPrompt {
        /// What was written.
        asked: String,
        /// The questions' titles.
        known: String,
    },
    /// The question offers no answer of this title.
    #[error("--answers: {prompt:?} offers no answer {asked:?} (it offers: {known})")]
    UnknownOption {
        /// The question.
        prompt: String,
        /// What was written.
        asked: String,
        /// The answers' titles.
        known: String,
    },
    /// Two answers to a question that takes one.
    #[error("--answers: {prompt:?} takes one answer, and {picked} were picked")]
    SingleSelect {
        /// The question.
        prompt: String,
        /// The answers picked, quoted.
        picked: String,
    },
}

/// What a new member meets on joining, and sees once they have answered.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct NewMember {
    /// `enabled`, `disabled`, or `none` (never set up).
    pub onboarding: &'static str,
    /// Discord's requirements as the guild meets them (when onboarding is set up).
    pub requirements: Option<RequirementsView>,
    /// The welcome screen, when enabled.
    pub welcome_screen: Option<WelcomeView>,
    /// The channels in their list on joining: with onboarding, the default channels
    /// @everyone can view; without, every channel @everyone can view.
    pub default_channels: Vec<Place>,
    /// Channels @everyone can view that are not in the list (they can browse them).
    pub browsable: Vec<Place>,
    /// The questions, in order.
    pub prompts: Vec<PromptView>,
    /// Once answered.
    pub after: After,
}

/// Discord's requirements, counted on the guild shown.
#[derive(Debug, Clone, Serialize)]
pub struct RequirementsView {
    /// All of them hold.
    pub met: bool,
    /// Channels counted (default channels; in advanced mode the questions' too).
    pub channels: usize,
    /// Of those, where @everyone can view and send messages.
    pub writable: usize,
    /// Default channels @everyone cannot view (paths).
    pub unviewable: Vec<String>,
}

/// The welcome screen as a new member sees it.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct WelcomeView {
    /// The server description.
    pub description: Option<String>,
    /// The channels it recommends.
    pub channels: Vec<WelcomeChannelView>,
}

/// One channel the welcome screen recommends.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct WelcomeChannelView {
    /// The channel.
    #[serde(flatten)]
    pub place: Place,
    /// What the screen says of it.
    pub description: String,
    /// Its emoji.
    pub emoji: Option<String>,
}

/// One question.
#[derive(Debug, Clone, Serialize)]
pub struct PromptView {
    /// The question.
    pub title: String,
    /// `multiple_choice` or `dropdown`.
    pub kind: &'static str,
    /// An answer is required.
    pub required: bool,
    /// One answer at most.
    pub single_select: bool,
    /// Asked on joining (else only in Channels & Roles).
    pub in_onboarding: bool,
    /// The answers.
    pub options: Vec<OptionView>,
}

/// One answer, with what it gives.
#[skip_serializing_none]
#[derive(Debug, Clone, Serialize)]
pub struct OptionView {
    /// The answer's title.
    pub title: String,
    /// What it says.
    pub description: Option<String>,
    /// Its emoji.
    pub emoji: Option<String>,
    /// The roles it gives (names).
    pub roles: Vec<String>,
    /// The channels it adds to the list (paths).
    pub channels: Vec<String>,
    /// The channels its roles let a member view that @everyone cannot (paths).
    pub opens: Vec<String>,
    /// Picked by `--answers`.
    pub picked: bool,
}

/// What the member holds and sees once they have answered.
#[derive(Debug, Clone, Serialize)]
pub struct After {
    /// Answers were given (`--answers`); otherwise nothing is picked.
    pub answered: bool,
    /// Required questions left unanswered.
    pub unanswered_required: Vec<String>,
    /// The roles held (names), `@everyone` implied.
    pub roles: Vec<String>,
    /// Their channel list: the default channels, the picked answers' channels and the
    /// channels their roles let them view that @everyone cannot, as far as they can view
    /// them.
    pub channels: Vec<Place>,
    /// Channels they can view that are not in the list.
    pub browsable: Vec<Place>,
}

/// Parses the answers: `PROMPT=OPTION[;OPTION]`, titles without case. The question is the
/// longest text before an `=` that is a question's title, so `=` may stand in a title; the
/// whole text after it is one answer when it is one, else `;` separates answers.
fn parse_answers(o: &Onboarding, answers: &[String]) -> Result<Vec<Vec<bool>>, WalkError> {
    let mut picked: Vec<Vec<bool>> = o
        .prompts
        .iter()
        .map(|p| vec![false; p.options.len()])
        .collect();
    let same = |a: &str, b: &str| a.trim().to_lowercase() == b.trim().to_lowercase();
    for answer in answers {
        if !answer.contains('=') {
            return Err(WalkError::Malformed(answer.clone()));
        }
        if o.prompts.is_empty() {
            return Err(WalkError::NoPrompts);
        }
        let found = answer.match_indices('=').rev().find_map(|(at, _)| {
            o.prompts
                .iter()
                .position(|p| same(&p.title, &answer[..at]))
                .map(|p| (p, &answer[at + 1..]))
        });
        let Some((p, rest)) = found else {
            let asked = answer
                .split('=')
                .next()
                .unwrap_or_default()
                .trim()
                .to_owned();
            return Err(WalkError::UnknownPrompt {
                asked,
                known: quoted(o.prompts.iter().map(|p| p.title.as_str())),
            });
        };
        let prompt = &o.prompts[p];
        let find = |t: &str| prompt.options.iter().position(|x| same(&x.title, t));
        let chosen: Vec<usize> = match find(rest) {
            Some(j) => vec![j],
            None => rest
                .split(';')
                .filter(|t| !t.trim().is_empty())
                .map(|t| {
                    find(t).ok_or_else(|| WalkError::UnknownOption {
                        prompt: prompt.title.clone(),
                        asked: t.trim().to_owned(),
                        known: quoted(prompt.options.iter().map(|x| x.title.as_str())),
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        for j in chosen {
            picked[p][j] = true;
        }
        let count = picked[p].iter().filter(|x| **x).count();
        if prompt.single_select && count > 1 {
            return Err(WalkError::SingleSelect {
                prompt: prompt.title.clone(),
                picked: quoted(
                    prompt
                        .options
                        .iter()
                        .zip(&picked[p])
                        .filter(|(_, x)| **x)
                        .map(|(x, _)| x.title.as_str()),
                ),
            });
        }
    }
    Ok(picked)
}

fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The channels (not categories) of `g` in Discord's order that `keep` keeps.
fn channels_where(g: &Guild, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    (0..g.channels.len())
        .filter(|&i| g.channels[i].kind != channel_type::CATEGORY && keep(i))
        .collect()
}

/// Walks onboarding as a new member of `g` meets it, `answers` picking answers.
pub fn walk(g: &Guild, joining: &Joining, answers: &[String]) -> Result<NewMember, WalkError> {
    let everyone = g.access(&Holder::everyone());
    let places = |v: &[usize]| v.iter().map(|&i| Place::of(g, i)).collect::<Vec<_>>();
    let path_of = |id: &str| g.channel_index(id).map(|i| g.path(i));
    let role_names = |ids: &[String]| -> Vec<String> {
        ids.iter()
            .filter_map(|r| g.role(r))
            .map(|r| r.name.clone())
            .collect()
    };
    let welcome_screen = joining
        .welcome_screen
        .as_ref()
        .filter(|w| w.enabled)
        .map(|w| WelcomeView {
            description: w.description.clone(),
            channels: w
                .channels
                .iter()
                .filter_map(|c| {
                    Some(WelcomeChannelView {
                        place: Place::of(g, g.channel_index(&c.channel)?),
                        description: c.description.clone(),
                        emoji: c.emoji.clone(),
                    })
                })
                .collect(),
        });
    let none = Onboarding::default();
    let (state, o) = match &joining.onboarding {
        Some(o) if o.enabled => ("enabled", o),
        Some(o) => ("disabled", o),
        None => ("none", &none),
    };
    let enabled = state == "enabled";
    let requirements = joining.onboarding.as_ref().map(|o| {
        let r = requirements(g, o);
        RequirementsView {
            met: r.met(),
            channels: r.counted,
            writable: r.writable,
            unviewable: r.unviewable.iter().filter_map(|id| path_of(id)).collect(),
        }
    });
    // Answers only mean something where members are asked.
    let asked = if enabled { o } else { &none };
    let picked = parse_answers(asked, answers)?;

    // On joining: with onboarding, the default channels (Discord hides the others from the
    // list; they stay browsable); without it, every channel @everyone can view.
    let defaults: Vec<usize> = if enabled {
        channels_where(g, |i| {
            everyone.sees(i) && o.default_channels.iter().any(|d| *d == g.channels[i].id)
        })
    } else {
        channels_where(g, |i| everyone.sees(i))
    };
    let browsable = channels_where(g, |i| everyone.sees(i) && !defaults.contains(&i));

    let prompts: Vec<PromptView> = asked
        .prompts
        .iter()
        .zip(&picked)
        .map(|(p, picked)| PromptView {
            title: p.title.clone(),
            kind: if p.dropdown {
                "dropdown"
            } else {
                "multiple_choice"
            },
            required: p.required,
            single_select: p.single_select,
            in_onboarding: p.in_onboarding,
            options: p
                .options
                .iter()
                .zip(picked)
                .map(|(x, &picked)| {
                    let holding = g.access(&Holder::roles(x.roles.iter().cloned()));
                    OptionView {
                        title: x.title.clone(),
                        description: x.description.clone(),
                        emoji: x.emoji.clone(),
                        roles: role_names(&x.roles),
                        channels: x.channels.iter().filter_map(|c| path_of(c)).collect(),
                        opens: channels_where(g, |i| holding.sees(i) && !everyone.sees(i))
                            .into_iter()
                            .map(|i| g.path(i))
                            .collect(),
                        picked,
                    }
                })
                .collect(),
        })
        .collect();

    let chosen: Vec<&PromptOption> = asked
        .prompts
        .iter()
        .zip(&picked)
        .flat_map(|(p, picked)| p.options.iter().zip(picked).filter(|(_, x)| **x))
        .map(|(x, _)| x)
        .collect();
    let mut held: Vec<String> = Vec::new();
    for r in chosen.iter().flat_map(|x| &x.roles) {
        if !held.contains(r) && g.role(r).is_some_and(|role| role.id != g.id) {
            held.push(r.clone());
        }
    }
    let holding = g.access(&Holder::roles(held.iter().cloned()));
    let listed = channels_where(g, |i| {
        let id = &g.channels[i].id;
        holding.sees(i)
            && (defaults.contains(&i)
                || chosen.iter().any(|x| x.channels.contains(id))
                || !everyone.sees(i))
    });
    let after_browsable = channels_where(g, |i| holding.sees(i) && !listed.contains(&i));
    let after = After {
        answered: !answers.is_empty(),
        unanswered_required: asked
            .prompts
            .iter()
            .zip(&picked)
            .filter(|(p, picked)| p.required && !picked.contains(&true))
            .map(|(p, _)| p.title.clone())
            .collect(),
        roles: role_names(&held),
        channels: places(&listed),
        browsable: places(&after_browsable),
    };
    Ok(NewMember {
        onboarding: state,
        requirements,
        welcome_screen,
        default_channels: places(&defaults),
        browsable: places(&browsable),
        prompts,
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn onboarding() -> Onboarding {
        let option = |title: &str| PromptOption {
            title: title.to_owned(),
            ..PromptOption::default()
        };
        Onboarding {
            enabled: true,
            prompts: vec![
                Prompt {
                    title: "Why, here = there?".to_owned(),
                    single_select: true,
                    options: vec![option("Rust, mostly"), option("Fun")],
                    ..Prompt::default()
                },
                Prompt {
                    title: "Pings".to_owned(),
                    options: vec![option("Releases"), option("A;B")],
                    ..Prompt::default()
                },
            ],
            ..Onboarding::default()
        }
    }

    fn answers(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn answers_match_titles_with_commas_equals_and_semicolons_without_case() {
        let o = onboarding();
        let picked = parse_answers(
            &o,
            &answers(&["why, HERE = there?=rust, mostly", "pings=releases"]),
        );
        assert_eq!(picked, Ok(vec![vec![true, false], vec![true, false]]));
        let picked = parse_answers(&o, &answers(&["Pings=A;B"]));
        assert_eq!(picked, Ok(vec![vec![false, false], vec![false, true]]));
    }

    #[test]
    fn unknown_titles_and_two_answers_to_a_single_select_are_errors() {
        let o = onboarding();
        let err = parse_answers(&o, &answers(&["Nope=Fun"])).unwrap_err();
        assert!(err.to_string().contains("\"Pings\""), "{err}");
        let err = parse_answers(&o, &answers(&["Pings=Nope"])).unwrap_err();
        assert!(err.to_string().contains("\"Releases\""), "{err}");
        let err = parse_answers(&o, &answers(&["Why, here = there?=Fun;Rust, mostly"]));
        assert!(matches!(err, Err(WalkError::SingleSelect { .. })));
        assert!(matches!(
            parse_answers(&o, &answers(&["Pings"])),
            Err(WalkError::Malformed(_))
        ));
    }
}
