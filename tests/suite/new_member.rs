//! A new member's view (`guildctl access --new-member`, issue 46) and Discord's onboarding
//! refusals found at plan, over HTTP against the emulator with the real binary: the
//! example's welcome screen, default channels, questions and what their answers give and
//! open, `--answers` changing what the member holds and sees, the errors of `--answers`,
//! and plans refused at the manifest line that takes onboarding below Discord's
//! requirements, with nothing sent.

use crate::common;

use common::{Harness, example};
use serde_json::Value;

/// Writes `yaml` as guild.yaml beside a copy of the example's assets (its webhook avatar).
fn manifest(h: &Harness, yaml: &str) -> String {
    let assets = h.dir.path().join("assets");
    std::fs::create_dir_all(&assets).unwrap();
    std::fs::copy(example("assets/ci.png"), assets.join("ci.png")).unwrap();
    h.manifest("guild.yaml", yaml).to_str().unwrap().to_owned()
}

fn community() -> String {
    std::fs::read_to_string(example("community.yaml")).unwrap()
}

/// The example with Help/Pair Programming for learners alone (so the Learner answer opens
/// a channel @everyone cannot view), and its first question taking one answer.
fn learners_room() -> String {
    let yaml = community();
    let room = "      - name: Pair Programming
        type: voice
        user_limit: 4
        bitrate: 64000
        overwrites:
          - role: Muted
            deny: [connect]
";
    assert!(yaml.contains(room), "the example's Pair Programming");
    let question = "      required: true\n      options:\n";
    assert!(yaml.contains(question), "the example's first question");
    yaml.replace(
        room,
        "      - name: Pair Programming
        type: voice
        user_limit: 4
        bitrate: 64000
        overwrites:
          - { role: \"@everyone\", deny: [view_channel] }
          - { role: Learner, allow: [view_channel] }
          - { role: Muted, deny: [connect] }
",
    )
    .replace(
        question,
        "      required: true\n      single_select: true\n      options:\n",
    )
}

fn paths(v: &Value) -> Vec<&str> {
    v.as_array()
        .expect("a list of channels")
        .iter()
        .map(|c| c["channel"].as_str().unwrap())
        .collect()
}

const FIRST: &str = "What brings you to Ferris Fans?";

#[tokio::test]
async fn the_examples_new_member_view_in_text_and_json_and_answers_change_it() {
    let h = Harness::start().await;
    let m = manifest(&h, &learners_room());
    let text = h.run(&["access", "-f", &m, "--new-member"]).await;
    text.assert_code(0);
    let out = &text.stdout;
    for line in [
        "A new member of Ferris Fans (",
        "Onboarding is on; it meets Discord's requirements (9 default channels, 6 of them writable by @everyone).",
        "Welcome screen: Friends of Ferris the crab. Read the rules, then ask, share and chat.",
        "  📜 Information/#rules — Read these first",
        "On joining, their channel list (the default channels @everyone can view, 9):",
        "  General/#general",
        &format!("  1. {FIRST} (multiple choice, one answer, required)"),
        "         role Learner; adds Help/#help, Help/Pair Programming; its roles open Help/Pair Programming",
        &format!(
            "Once answered: nothing is picked (--answers QUESTION=ANSWER picks answers); required and unanswered: {FIRST}"
        ),
        "  Roles: —",
    ] {
        assert!(out.contains(line), "{line:?} in\n{out}");
    }
    let browsable = out
        .lines()
        .find(|l| l.starts_with("Not in their list, but they can browse them"))
        .expect("the browsable line");
    assert!(browsable.contains("Information/#welcome"), "{browsable}");
    assert!(
        !browsable.contains("Pair Programming"),
        "@everyone cannot view it: {browsable}"
    );

    let md = h
        .run(&["access", "-f", &m, "--new-member", "--format", "markdown"])
        .await;
    md.assert_code(0);
    assert!(
        md.stdout.contains("| Question | Answer | Gives |"),
        "{}",
        md.stdout
    );
    assert!(md.stdout.contains("role Learner"), "{}", md.stdout);
    assert!(
        !md.stdout.contains("@everyone"),
        "no mention: {}",
        md.stdout
    );

    let j = h
        .run(&["access", "-f", &m, "--new-member", "--format", "json"])
        .await
        .json();
    assert_eq!(j["view"], "new_member");
    assert_eq!(j["onboarding"], "enabled");
    assert_eq!(j["requirements"]["met"], true);
    let defaults = paths(&j["default_channels"]);
    assert_eq!(defaults.len(), 9, "{defaults:?}");
    for c in ["Information/#rules", "General/#memes", "Help/#projects"] {
        assert!(defaults.contains(&c), "{c} in {defaults:?}");
    }
    assert!(!defaults.contains(&"Information/#welcome"));
    let learner = &j["prompts"][0]["options"][0];
    assert_eq!(learner["title"], "I am learning Rust");
    assert_eq!(learner["roles"], serde_json::json!(["Learner"]));
    assert_eq!(
        learner["channels"],
        serde_json::json!(["Help/#help", "Help/Pair Programming"])
    );
    assert_eq!(
        learner["opens"],
        serde_json::json!(["Help/Pair Programming"])
    );
    assert_eq!(learner["picked"], false);
    assert_eq!(j["prompts"][1]["kind"], "dropdown");
    assert_eq!(j["after"]["answered"], false);
    assert_eq!(j["after"]["roles"], serde_json::json!([]));
    assert_eq!(
        j["after"]["unanswered_required"],
        serde_json::json!([FIRST])
    );
    assert!(!paths(&j["after"]["channels"]).contains(&"Help/Pair Programming"));

    // Answered, titles without case: Learner opens the room and puts it in their list.
    let j = h
        .run(&[
            "access",
            "-f",
            &m,
            "--new-member",
            "--answers",
            "what brings you to ferris fans?=I AM LEARNING RUST",
            "--answers",
            "What should we ping you about?=Releases;Events and streams",
            "--format",
            "json",
        ])
        .await
        .json();
    assert_eq!(
        j["after"]["roles"],
        serde_json::json!(["Learner", "Release Pings", "Event Pings"])
    );
    assert_eq!(j["after"]["unanswered_required"], serde_json::json!([]));
    assert_eq!(j["prompts"][0]["options"][0]["picked"], true);
    let after = paths(&j["after"]["channels"]);
    assert!(after.contains(&"Help/Pair Programming"), "{after:?}");
    assert!(
        after.contains(&"Announcements/#events"),
        "an answer's channel: {after:?}"
    );
    assert!(
        after.contains(&"General/#general"),
        "a default channel: {after:?}"
    );
    assert!(h.writes().is_empty(), "access only reads");
}

#[tokio::test]
async fn answers_naming_nothing_or_two_answers_to_one_are_errors() {
    let h = Harness::start().await;
    let m = manifest(&h, &learners_room());
    let run = |answer: &'static str| {
        let m = m.clone();
        let h = &h;
        async move {
            h.run(&["access", "-f", &m, "--new-member", "--answers", answer])
                .await
        }
    };
    let unknown = run("Why are you here?=Fun").await;
    unknown.assert_code(1);
    assert!(
        unknown.stderr.contains(&format!(
            "onboarding asks no question \"Why are you here?\" (it asks: \"{FIRST}\", \"What should we ping you about?\")"
        )),
        "{}",
        unknown.stderr
    );
    let option = run("What brings you to Ferris Fans?=Crabs").await;
    option.assert_code(1);
    assert!(
        option.stderr.contains("offers no answer \"Crabs\" (it offers: \"I am learning Rust\", \"I build things with our crates\", \"I am here to hang out\")"),
        "{}",
        option.stderr
    );
    let two = run("What brings you to Ferris Fans?=I am learning Rust;I am here to hang out").await;
    two.assert_code(1);
    assert!(
        two.stderr.contains(&format!(
            "\"{FIRST}\" takes one answer, and \"I am learning Rust\", \"I am here to hang out\" were picked"
        )),
        "{}",
        two.stderr
    );
    let conflict = h
        .run(&["access", "-f", &m, "--new-member", "--as", "Learner"])
        .await;
    conflict.assert_code(2);
    assert!(
        conflict.stderr.contains("cannot be used with"),
        "{}",
        conflict.stderr
    );
}

/// The line (1-based) of the first line of `yaml` that starts with `start` (after its
/// indentation) at or after line `from`.
fn line_of(yaml: &str, start: &str, after: &str) -> usize {
    let from = yaml.lines().position(|l| l.contains(after)).expect(after);
    from + 1
        + yaml
            .lines()
            .skip(from)
            .position(|l| l.trim_start().starts_with(start))
            .expect(start)
}

/// Plan and apply of `yaml` both refuse with `expect` at guild.yaml:`line`; nothing is sent.
async fn refused(h: &Harness, yaml: &str, expect: &str, line: usize) {
    let m = manifest(h, yaml);
    h.emu.clear_requests();
    let plan = h.run(&["plan", "-f", &m]).await;
    plan.assert_code(1);
    assert!(
        plan.stderr.contains(expect),
        "{expect:?} in\n{}",
        plan.stderr
    );
    assert!(
        plan.stderr.contains(&format!("guild.yaml:{line}:")),
        "line {line} in\n{}",
        plan.stderr
    );
    let apply = h.run(&["apply", "-f", &m, "--yes"]).await;
    apply.assert_code(1);
    assert!(apply.stderr.contains(expect), "{}", apply.stderr);
    assert!(h.writes().is_empty(), "nothing sent: {:?}", h.writes());
}

#[tokio::test]
async fn plans_that_take_onboarding_below_discords_requirements_are_refused_at_their_line() {
    let h = Harness::start().await;
    let yaml = community();
    let m = manifest(&h, &yaml);
    h.run(&["apply", "-f", &m, "--yes"]).await.assert_code(0);

    // A channel change alone hides a default channel from @everyone: refused at it.
    let memes = "      - name: memes                     # moved above off-topic
        topic: Crab memes welcome.
        sync_permissions: true
";
    assert!(yaml.contains(memes));
    let hidden = yaml.replace(
        memes,
        "      - name: memes
        topic: Crab memes welcome.
        overwrites:
          - { role: \"@everyone\", deny: [view_channel] }
",
    );
    refused(
        &h,
        &hidden,
        "the plan takes the guild's onboarding below Discord's requirements: once applied, @everyone cannot view its default channel `General/#memes`",
        line_of(&hidden, "overwrites:", "- name: memes"),
    )
    .await;

    // The same with onboarding changed too (#welcome added): at memes' own entry.
    let defaults = "  default_channels:\n    - rules\n";
    assert!(hidden.contains(defaults));
    let both = hidden.replace(
        defaults,
        "  default_channels:\n    - welcome\n    - rules\n",
    );
    refused(
        &h,
        &both,
        "onboarding's default channel `General/#memes` must be readable by @everyone, and @everyone cannot view it once the plan is applied",
        line_of(&both, "- memes", "default_channels:"),
    )
    .await;

    // Six default channels: at `default_channels`.
    let fewer = yaml.replace("    - memes\n    - help\n    - projects\n", "    - help\n");
    assert_ne!(fewer, yaml);
    refused(
        &h,
        &fewer,
        "onboarding needs at least 7 default channels, at least 5 of them where @everyone can send messages; the plan leaves 7 channels",
        line_of(&fewer, "default_channels:", "onboarding:"),
    )
    .await;
}

#[tokio::test]
async fn an_unrelated_plan_on_a_guild_already_below_the_requirements_is_not_refused() {
    let h = Harness::start().await;
    let general = h.channel_id("general");
    h.arrange(|g| {
        g.onboarding.enabled = true;
        g.onboarding.default_channel_ids = vec![general.clone()];
    });
    let m = h.manifest(
        "guild.yaml",
        "version: 1\nroles:\n  - name: Learner\n    color: \"#2ecc71\"\n",
    );
    let m = m.to_str().unwrap();
    let plan = h.run(&["plan", "-f", m]).await;
    plan.assert_code(0);
    let all = format!("{}{}", plan.stdout, plan.stderr);
    assert!(
        all.contains("onboarding is below Discord's requirements today and the plan leaves it so (1 default channels, 1 writable by @everyone)"),
        "the warning in\n{all}"
    );
    // Hiding its one default channel keeps it below: a warning too, not a refusal.
    let hide = h.manifest(
        "hide.yaml",
        "version: 1\nchannels:\n  - name: general\n    overwrites:\n      - { role: \"@everyone\", deny: [view_channel] }\n",
    );
    let plan = h.run(&["plan", "-f", hide.to_str().unwrap()]).await;
    plan.assert_code(0);
    let all = format!("{}{}", plan.stdout, plan.stderr);
    assert!(
        !all.contains("takes the guild's onboarding below"),
        "not newly refused:\n{all}"
    );
    assert!(all.contains("@everyone cannot view"), "{all}");
}

#[tokio::test]
async fn without_onboarding_a_new_member_sees_what_everyone_sees() {
    let h = Harness::start().await;
    let m = h.manifest("guild.yaml", "version: 1\n");
    let m = m.to_str().unwrap();
    let text = h.run(&["access", "-f", m, "--new-member"]).await;
    text.assert_code(0);
    assert!(
        text.stdout.contains("Onboarding is off (set up, not enabled): a new member sees every channel @everyone can view"),
        "{}",
        text.stdout
    );
    let j = h
        .run(&["access", "-f", m, "--new-member", "--format", "json"])
        .await
        .json();
    assert_eq!(j["onboarding"], "disabled");
    assert_eq!(j["prompts"], serde_json::json!([]));
    // Every channel @everyone can view is in the list, and Staff's are not.
    let matrix = h
        .run(&["access", "-f", m, "--as", "@everyone", "--format", "json"])
        .await
        .json();
    let seen: Vec<&str> = matrix["channels"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["kind"] != "category")
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    let listed = paths(&j["default_channels"]);
    assert!(!listed.is_empty());
    assert_eq!(listed, seen);
    assert!(
        !listed.iter().any(|c| c.starts_with("Staff/")),
        "{listed:?}"
    );
    assert_eq!(j["browsable"], serde_json::json!([]));
    // Answers mean nothing where nobody is asked.
    let answered = h
        .run(&["access", "-f", m, "--new-member", "--answers", "Q=A"])
        .await;
    answered.assert_code(1);
    assert!(
        answered.stderr.contains("asks no question"),
        "{}",
        answered.stderr
    );
}
