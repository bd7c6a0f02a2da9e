//! `guildctl access --new-member` as text and markdown (JSON is the view itself): the
//! welcome screen, the channel list on joining, the questions with what their answers
//! give, and what the member holds and sees once they have answered. Names come from the
//! guild and the manifest: each is shown through [`inert`].

use std::fmt::Write;

use crate::access::onboarding::{After, NewMember, OptionView, PromptView};
use crate::access::view::{Place, View};
use crate::inert;

/// How a text or markdown line shows a name.
type Shown = fn(&str) -> String;

fn term(s: &str) -> String {
    inert::terminal(s).into_owned()
}

fn md(s: &str) -> String {
    inert::markdown(s)
}

fn names(v: &[String], shown: Shown) -> String {
    if v.is_empty() {
        "—".to_owned()
    } else {
        v.iter().map(|n| shown(n)).collect::<Vec<_>>().join(", ")
    }
}

fn places(v: &[Place], shown: Shown) -> String {
    names(
        &v.iter().map(|p| p.channel.clone()).collect::<Vec<_>>(),
        shown,
    )
}

fn state(v: &View) -> &'static str {
    if v.state == "live" {
        "today"
    } else {
        "once the plan is applied"
    }
}

/// Fixed words shown as names are: `@everyone` must not mention anyone in markdown.
fn fixed(s: &str, shown: Shown) -> String {
    s.replace("@everyone", &shown("@everyone"))
}

/// What onboarding is, and how it meets Discord's requirements.
fn onboarding_line(n: &NewMember, shown: Shown) -> String {
    fixed(&onboarding_words(n, shown), shown)
}

fn onboarding_words(n: &NewMember, shown: Shown) -> String {
    let state = match n.onboarding {
        "enabled" => "Onboarding is on",
        "disabled" => {
            "Onboarding is off (set up, not enabled): a new member sees every channel @everyone can view"
        }
        _ => "Onboarding is off (never set up): a new member sees every channel @everyone can view",
    };
    let Some(r) = &n.requirements else {
        return format!("{state}.");
    };
    let counts = format!(
        "{} default channels, {} of them writable by @everyone",
        r.channels, r.writable
    );
    let unviewable = if r.unviewable.is_empty() {
        String::new()
    } else {
        format!("; @everyone cannot view {}", names(&r.unviewable, shown))
    };
    if r.met {
        format!("{state}; it meets Discord's requirements ({counts}).")
    } else {
        format!(
            "{state}; it does NOT meet Discord's requirements ({counts}{unviewable}): Discord refuses to enable or update it."
        )
    }
}

fn prompt_flags(p: &PromptView) -> String {
    let mut flags = vec![if p.kind == "dropdown" {
        "dropdown"
    } else {
        "multiple choice"
    }];
    if p.single_select {
        flags.push("one answer");
    }
    if p.required {
        flags.push("required");
    }
    if !p.in_onboarding {
        flags.push("not asked on joining: in Channels & Roles only");
    }
    flags.join(", ")
}

/// What an answer gives: its roles, the channels it adds, what its roles open.
fn gives(o: &OptionView, shown: Shown) -> String {
    fixed(&gives_words(o, shown), shown)
}

fn gives_words(o: &OptionView, shown: Shown) -> String {
    let mut parts = Vec::new();
    if !o.roles.is_empty() {
        parts.push(format!("role {}", names(&o.roles, shown)));
    }
    if !o.channels.is_empty() {
        parts.push(format!("adds {}", names(&o.channels, shown)));
    }
    if !o.roles.is_empty() {
        parts.push(if o.opens.is_empty() {
            "its roles open no channel @everyone cannot view".to_owned()
        } else {
            format!("its roles open {}", names(&o.opens, shown))
        });
    }
    if parts.is_empty() {
        "gives nothing".to_owned()
    } else {
        parts.join("; ")
    }
}

fn after_head(a: &After, shown: Shown) -> String {
    let picked = if a.answered {
        "Once answered"
    } else {
        "Once answered: nothing is picked (--answers QUESTION=ANSWER picks answers)"
    };
    let unanswered = if a.unanswered_required.is_empty() {
        String::new()
    } else {
        format!(
            "; required and unanswered: {}",
            names(&a.unanswered_required, shown)
        )
    };
    format!("{picked}{unanswered}")
}

/// The walk as text for a terminal.
pub(super) fn text(v: &View, n: &NewMember) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "A new member of {} ({}) {}",
        term(&v.guild_name),
        term(&v.guild_id),
        state(v)
    );
    let _ = writeln!(out, "{}\n", onboarding_line(n, term));
    match &n.welcome_screen {
        None => {
            let _ = writeln!(out, "Welcome screen: none (or not enabled)\n");
        }
        Some(w) => {
            let _ = writeln!(
                out,
                "Welcome screen: {}",
                w.description.as_deref().map(term).unwrap_or_default()
            );
            for c in &w.channels {
                let emoji = c.emoji.as_deref().map(|e| format!("{} ", term(e)));
                let _ = writeln!(
                    out,
                    "  {}{} — {}",
                    emoji.unwrap_or_default(),
                    term(&c.place.channel),
                    term(&c.description)
                );
            }
            out.push('\n');
        }
    }
    let what = if n.onboarding == "enabled" {
        "the default channels @everyone can view"
    } else {
        "every channel @everyone can view"
    };
    let _ = writeln!(
        out,
        "On joining, their channel list ({what}, {}):",
        n.default_channels.len()
    );
    for p in &n.default_channels {
        let _ = writeln!(out, "  {}", term(&p.channel));
    }
    if !n.browsable.is_empty() {
        let _ = writeln!(
            out,
            "Not in their list, but they can browse them ({}): {}",
            n.browsable.len(),
            places(&n.browsable, term)
        );
    }
    if !n.prompts.is_empty() {
        let _ = writeln!(out, "\nQuestions ({}):", n.prompts.len());
    }
    for (i, p) in n.prompts.iter().enumerate() {
        let _ = writeln!(out, "  {}. {} ({})", i + 1, term(&p.title), prompt_flags(p));
        for o in &p.options {
            let emoji = o.emoji.as_deref().map(|e| format!("{} ", term(e)));
            let _ = writeln!(
                out,
                "     {} {}{}{}",
                if o.picked { "[x]" } else { "[ ]" },
                emoji.unwrap_or_default(),
                term(&o.title),
                o.description
                    .as_deref()
                    .map(|d| format!(": {}", term(d)))
                    .unwrap_or_default()
            );
            let _ = writeln!(out, "         {}", gives(o, term));
        }
    }
    let a = &n.after;
    let _ = writeln!(out, "\n{}", after_head(a, term));
    let _ = writeln!(out, "  Roles: {}", names(&a.roles, term));
    let _ = writeln!(out, "  Their channel list ({}):", a.channels.len());
    for p in &a.channels {
        let _ = writeln!(out, "    {}", term(&p.channel));
    }
    if !a.browsable.is_empty() {
        let _ = writeln!(
            out,
            "  Not in their list, but they can browse them ({}): {}",
            a.browsable.len(),
            places(&a.browsable, term)
        );
    }
    out
}

/// The walk as markdown for a pull request or a wiki.
pub(super) fn markdown(v: &View, n: &NewMember) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "### A new member of **{}** ({}) {}\n",
        md(&v.guild_name),
        inert::markdown_code(&v.guild_id),
        state(v)
    );
    let _ = writeln!(out, "{}\n", onboarding_line(n, md));
    if let Some(w) = &n.welcome_screen {
        let _ = writeln!(
            out,
            "**Welcome screen**: {}\n",
            w.description.as_deref().map(md).unwrap_or_default()
        );
        for c in &w.channels {
            let emoji = c.emoji.as_deref().map(|e| format!("{} ", md(e)));
            let _ = writeln!(
                out,
                "- {}{} — {}",
                emoji.unwrap_or_default(),
                md(&c.place.channel),
                md(&c.description)
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "**On joining** ({}): {}\n",
        n.default_channels.len(),
        places(&n.default_channels, md)
    );
    if !n.browsable.is_empty() {
        let _ = writeln!(
            out,
            "**Not in their list, browsable** ({}): {}\n",
            n.browsable.len(),
            places(&n.browsable, md)
        );
    }
    if !n.prompts.is_empty() {
        let _ = writeln!(out, "| Question | Answer | Gives |\n|---|---|---|");
    }
    for p in &n.prompts {
        for o in &p.options {
            let _ = writeln!(
                out,
                "| {} ({}) | {}{} | {} |",
                md(&p.title),
                prompt_flags(p),
                if o.picked { "✅ " } else { "" },
                md(&o.title),
                gives(o, md)
            );
        }
    }
    let a = &n.after;
    let _ = writeln!(out, "\n**{}**\n", after_head(a, md));
    let _ = writeln!(out, "- Roles: {}", names(&a.roles, md));
    let _ = writeln!(
        out,
        "- Their channel list ({}): {}",
        a.channels.len(),
        places(&a.channels, md)
    );
    if !a.browsable.is_empty() {
        let _ = writeln!(
            out,
            "- Not in their list, browsable ({}): {}",
            a.browsable.len(),
            places(&a.browsable, md)
        );
    }
    out
}
