//! A workspace: one comment, one issue, one reviewed plan per guild.

use super::*;

const WS_BASE: &str = "version: 1
roles:
  - { name: Shared Helper, color: \"#123456\", permissions: [send_messages] }
channels:
  - { name: shared-news, type: text, topic: From the base }
";

/// Three guilds (`a`, `b`, `c`) that extend one base, as a config repository holds them,
/// and a runner whose checkout is that repository, with `guilds: all`.
pub(super) async fn workspace_repo() -> (Harness, FakeGitHub, Releases, Runner, Vec<String>) {
    let state = discord_emulator::with_guild_copies(discord_emulator::default_state(), 3);
    let ids: Vec<String> = state.guilds.iter().map(|g| g.id.clone()).collect();
    let h = Harness::with_state(Some(state)).await;
    let gh = FakeGitHub::start().await;
    let releases = Releases::start().await;
    let repo = h.dir.path().join("repo");
    std::fs::create_dir_all(repo.join("guilds")).unwrap();
    std::fs::write(repo.join("base.yaml"), WS_BASE).unwrap();
    let mut ws = String::from("guilds:\n");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        std::fs::write(
            repo.join(format!("guilds/{name}.yaml")),
            "version: 1\nextends: ../base.yaml\n",
        )
        .unwrap();
        ws.push_str(&format!(
            "  {name}: {{ id: \"{id}\", manifest: guilds/{name}.yaml }}\n"
        ));
    }
    std::fs::write(repo.join("guildctl.yaml"), ws).unwrap();
    let mut r = Runner::new(&h.dir.path().join("runner"));
    r.cwd = Some(repo.clone());
    r.for_services(&h, &gh, &releases)
        .env("GITHUB_WORKSPACE", repo.to_str().unwrap())
        .input("guild", "")
        .input("guilds", "all");
    (h, gh, releases, r, ids)
}

/// Every guild applied with no reviewed plan (as a workflow_dispatch would), from `r`'s
/// checkout, by a runner of its own.
async fn apply_all(
    h: &Harness,
    gh: &FakeGitHub,
    releases: &Releases,
    r: &Runner,
    event: &Path,
) -> ActionRun {
    let mut apply = Runner::new(&h.dir.path().join("runner-apply"));
    apply.cwd = r.cwd.clone();
    apply
        .for_services(h, gh, releases)
        .event("push", event)
        .input("guild", "")
        .input("guilds", "all")
        .input("command", "apply");
    apply.run().await
}

pub(super) fn repo_of(r: &Runner) -> PathBuf {
    r.cwd.clone().unwrap()
}

/// The plan comment of each guild on the pull request, by guild name.
pub(super) fn guild_comments(gh: &FakeGitHub) -> HashMap<String, common::github::GhComment> {
    gh.comments(PR_NUMBER)
        .into_iter()
        .filter_map(|c| {
            let name = c
                .body
                .strip_prefix("<!-- guildctl:plan:guild/")?
                .split_once(" -->")?
                .0
                .to_owned();
            Some((name, c))
        })
        .collect()
}

#[tokio::test]
async fn a_base_change_comments_on_every_guild_and_a_guild_file_only_on_its_own() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let repo = repo_of(&r);
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan");

    // The pull request changes the base: each of the three guilds gets its comment.
    gh.set_pull_files(
        PR_NUMBER,
        &[("base.yaml", "modified"), ("README.md", "added")],
    );
    let first = r.run().await;
    assert_eq!(first.code, 0, "{}", first.log);
    assert_eq!(first.out("exit-code"), "2");
    assert_eq!(first.out("changes"), "true");
    assert_eq!(first.out("rehearsal"), "passed");
    let comments = guild_comments(&gh);
    assert_eq!(comments.len(), 3, "{:?}", gh.comments(PR_NUMBER));
    assert_eq!(gh.comments(PR_NUMBER).len(), 3, "nothing else posted");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        let body = &comments[*name].body;
        assert!(body.contains("### guildctl plan"), "{body}");
        assert!(
            body.contains(id.as_str()),
            "{name}'s comment names its guild: {body}"
        );
        assert!(body.contains("Shared Helper"), "{body}");
        assert!(body.contains(&format!("for guild `{name}`")), "{body}");
    }
    // The plan folder: one reviewed plan per guild planned, and their names.
    let plans = PathBuf::from(first.out("plan"));
    assert_eq!(
        std::fs::read_to_string(plans.join("guilds.txt")).unwrap(),
        "a\nb\nc\n"
    );
    for name in ["a", "b", "c"] {
        assert!(plans.join(format!("{name}.json")).is_file());
    }
    assert_eq!(first.out("plan-digest").split(' ').count(), 3);
    // Each guild's access page, from its own plan, kept as the artifact its comment links.
    let pages = first.out("page").to_owned();
    let folder = Path::new(&pages).parent().unwrap();
    for (name, id) in ["a", "b", "c"].into_iter().zip(&ids) {
        let page = std::fs::read_to_string(folder.join(format!("{name}.html"))).unwrap();
        assert!(
            page.contains(&format!("({id})")),
            "{name}'s page names its guild"
        );
        assert!(
            comments[name].body.contains(&format!(
                "`{name}.html` in the artifact `guildctl-access-page`"
            )),
            "{}",
            comments[name].body
        );
    }
    assert!(
        first.ran.iter().any(|s| s == "Keep the access page"),
        "{:?}",
        first.ran
    );
    assert!(h.writes().is_empty(), "plan writes nothing to Discord");

    // A push that changes b's own file only: only b is planned, only b's comment moves.
    std::fs::write(
        repo.join("guilds/b.yaml"),
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text }\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/b.yaml", "modified")]);
    let writes = gh.writes().len();
    r.event("pull_request", &event("pull_request-synchronize"));
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    let after = guild_comments(&gh);
    assert_eq!(after.len(), 3, "still one comment per guild");
    let new_writes = &gh.writes()[writes..];
    assert_eq!(new_writes.len(), 1, "{new_writes:?}");
    assert_eq!(new_writes[0].method, "PATCH");
    assert!(after["b"].body.contains("b-only"), "{}", after["b"].body);
    assert_eq!(after["a"].body, comments["a"].body);
    assert_eq!(after["c"].body, comments["c"].body);
    let plans = PathBuf::from(second.out("plan"));
    assert_eq!(
        std::fs::read_to_string(plans.join("guilds.txt")).unwrap(),
        "b\n"
    );
    assert!(
        second.log.contains("Guild b is touched: guilds/b.yaml"),
        "{}",
        second.log
    );

    // A pull request that changes no guild's files: nothing planned, nothing posted.
    gh.set_pull_files(PR_NUMBER, &[("README.md", "modified")]);
    let writes = gh.writes().len();
    let none = r.run().await;
    assert_eq!(none.code, 0, "{}", none.log);
    assert_eq!(none.out("changes"), "false");
    assert_eq!(gh.writes().len(), writes);
    assert!(
        none.summary.contains("changes no guild"),
        "{}",
        none.summary
    );

    // A broken guild file: that guild's comment says the plan failed; the job fails.
    std::fs::write(
        repo.join("guilds/c.yaml"),
        "version: 1\nextends: ../base.yaml\nroles: 7\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/c.yaml", "modified")]);
    let broken = r.run().await;
    assert_eq!(broken.code, 1, "{}", broken.log);
    let c = &guild_comments(&gh)["c"].body;
    assert!(c.contains("guildctl plan failed for `c`"), "{c}");
    // Its only guild failed: no page to keep (a failed job keeps the others' pages).
    assert!(
        !broken.ran.iter().any(|s| s == "Keep the access page"),
        "{:?}",
        broken.ran
    );

    assert_secrets_hidden(&first, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

/// A people file in the workspace: a pull request that changes it touches every guild, and
/// the roster changes by person come first, in a comment of their own, then each guild's.
/// The staff group takes its members from a GitHub team too (read with github-token):
/// heidi is in it by her login, a member the people file lacks is named in a warning, and a
/// change in the team shows in the next scheduled drift.
#[tokio::test]
async fn a_people_change_comments_by_person_before_the_guilds() {
    let (h, gh, releases, mut r, _ids) = workspace_repo().await;
    let repo = repo_of(&r);
    let state = h.emu.state();
    let (alice, heidi) = (
        common::guild::StateNames::user_id(&state, "alice"),
        common::guild::StateNames::user_id(&state, "heidi"),
    );
    let ws = std::fs::read_to_string(repo.join("guildctl.yaml")).unwrap();
    std::fs::write(
        repo.join("guildctl.yaml"),
        format!("people: people.yaml\n{ws}"),
    )
    .unwrap();
    for name in ["a", "b", "c"] {
        std::fs::write(
            repo.join(format!("guilds/{name}.yaml")),
            "version: 1\nextends: ../base.yaml\nroles:\n  - name: Moderator\n",
        )
        .unwrap();
    }
    std::fs::write(
        repo.join("people.yaml"),
        format!(
            "people:\n  alice: {{ discord: \"{alice}\", groups: [staff] }}\n  heidi: {{ discord: \"{heidi}\", github: heidi-gh }}\ngroups:\n  staff:\n    roles: {{ a: Moderator, b: Moderator, c: Moderator }}\n    github_team: ferris/staff\n"
        ),
    )
    .unwrap();
    gh.set_team("ferris/staff", &["Heidi-GH", "stranger"]);
    gh.set_pull_files(PR_NUMBER, &[("people.yaml", "modified")]);
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan");
    let run = r.run().await;
    assert_eq!(run.code, 0, "{}", run.log);
    assert_eq!(guild_comments(&gh).len(), 3, "every guild is touched");
    let comments = gh.comments(PR_NUMBER);
    assert_eq!(comments.len(), 4, "{comments:?}");
    let people = &comments[0].body;
    assert!(
        people.starts_with("<!-- guildctl:plan:people -->"),
        "{people}"
    );
    assert!(
        people.contains("heidi gains Moderator in a, b, c"),
        "{people}"
    );
    assert!(run.summary.contains("### People"), "{}", run.summary);
    assert!(
        run.log.contains("the people file people.yaml changed"),
        "{}",
        run.log
    );
    assert!(
        run.log
            .contains("stranger is in the GitHub team ferris/staff"),
        "{}",
        run.log
    );

    // Applied; then heidi leaves the team, and the scheduled drift says so.
    let schedule = h.dir.path().join("schedule.json");
    std::fs::write(&schedule, r#"{"schedule": "17 6 * * *"}"#).unwrap();
    let applied = apply_all(&h, &gh, &releases, &r, &schedule).await;
    assert_eq!(applied.code, 0, "{}", applied.log);
    gh.set_team("ferris/staff", &[]);
    r.event("schedule", &schedule).input("command", "drift");
    let drift = r.run().await;
    assert_eq!(drift.code, 2, "{}", drift.log);
    assert!(
        drift.summary.contains("Moderator ← heidi"),
        "{}",
        drift.summary
    );
    assert_secrets_hidden(&run, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}

#[tokio::test]
async fn drift_keeps_one_issue_per_guild() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let schedule = h.dir.path().join("schedule.json");
    std::fs::write(&schedule, r#"{"schedule": "17 6 * * *"}"#).unwrap();
    r.event("schedule", &schedule).input("command", "drift");
    // The base declares what the guilds hold with power (roles and hand-made webhooks),
    // so once applied no high-risk drift is left.
    let base = WS_BASE.replacen(
        "roles:\n",
        "roles:\n  - name: Admin\n  - name: Moderator\n  - name: Helper\n",
        1,
    ) + "webhooks:\n  - { name: GitHub, channel: bot-spam }\n  - { name: Mod Mail, channel: mod-log }\n";
    std::fs::write(repo_of(&r).join("base.yaml"), base).unwrap();
    let ours = || {
        gh.issues()
            .into_iter()
            .filter(|i| i.labels.contains(&"guildctl-drift".to_owned()))
            .collect::<Vec<_>>()
    };
    // Every guild lacks the base's role: three issues, one per guild, and the job fails.
    let first = r.run().await;
    assert_eq!(first.code, 2, "{}", first.log);
    let issues = ours();
    assert_eq!(issues.len(), 3, "{issues:?}");
    for (name, id) in ["a", "b", "c"].iter().zip(&ids) {
        let i = issues
            .iter()
            .find(|i| {
                i.body
                    .starts_with(&format!("<!-- guildctl:drift:guild/{name} -->"))
            })
            .unwrap_or_else(|| panic!("{name}'s issue: {issues:?}"));
        assert_eq!(
            i.title,
            format!("guildctl: guild {name} drifted from its manifest")
        );
        assert!(i.body.contains(id.as_str()), "{}", i.body);
        assert_eq!(i.state, "open");
    }
    assert_eq!(first.out("comment-url").split(' ').count(), 3);

    // Apply every guild (no reviewed plan: as a workflow_dispatch would), then drift:
    // each guild matches; its issue closes. No new issue opens.
    let applied = apply_all(&h, &gh, &_releases, &r, &schedule).await;
    assert_eq!(applied.code, 0, "{}", applied.log);
    let second = r.run().await;
    assert_eq!(second.code, 0, "{}", second.log);
    assert_eq!(second.out("changes"), "false");
    let closed = ours();
    assert_eq!(closed.len(), 3);
    assert!(closed.iter().all(|i| i.state == "closed"), "{closed:?}");

    // Drift in one guild only: its issue alone reopens... as a new one (the old is
    // closed); the others stay closed.
    h.arrange_in(&ids[1], |g| g.role("Shared Helper").color ^= 0xff);
    let third = r.run().await;
    assert_eq!(third.code, 2, "{}", third.log);
    let open: Vec<_> = ours().into_iter().filter(|i| i.state == "open").collect();
    assert_eq!(open.len(), 1, "{open:?}");
    assert!(open[0].body.starts_with("<!-- guildctl:drift:guild/b -->"));
    gh.assert_conforms();
}

#[tokio::test]
async fn the_merge_run_applies_exactly_each_guilds_reviewed_plan() {
    let (h, gh, _releases, mut r, ids) = workspace_repo().await;
    let repo = repo_of(&r);
    // Reviewed: a pull request that changes the base (all three guilds).
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan");
    gh.set_pull_files(PR_NUMBER, &[("base.yaml", "modified")]);
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);
    // The artifact, as download-artifact puts it in the merge run's checkout.
    let downloaded = repo.join("reviewed-plan");
    std::fs::create_dir_all(&downloaded).unwrap();
    for f in std::fs::read_dir(reviewed.out("plan")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), downloaded.join(f.file_name())).unwrap();
    }
    r.event("push", &event("pull_request-opened"))
        .input("command", "apply")
        .input("plan", "reviewed-plan");
    let merged = r.run().await;
    assert_eq!(merged.code, 0, "{}", merged.log);
    let writes = h.writes();
    for id in &ids {
        let guild = h.emu.state().guild(id).unwrap().clone();
        assert!(
            guild.roles.iter().any(|r| r.name == "Shared Helper"),
            "guild {id} applied"
        );
    }
    assert!(!writes.is_empty());

    // A pull request that changes b's file only: its reviewed plan holds b alone, and
    // the merge run applies b and sends nothing that writes to a or c, even though the
    // base changed in the checkout since (an unreviewed change is not applied).
    std::fs::write(
        repo.join("guilds/b.yaml"),
        "version: 1\nextends: ../base.yaml\nchannels:\n  - { name: b-only, type: text }\n",
    )
    .unwrap();
    gh.set_pull_files(PR_NUMBER, &[("guilds/b.yaml", "modified")]);
    r.event("pull_request", &event("pull_request-opened"))
        .input("command", "plan")
        .input("plan", "");
    let reviewed = r.run().await;
    assert_eq!(reviewed.code, 0, "{}", reviewed.log);
    std::fs::remove_dir_all(&downloaded).unwrap();
    std::fs::create_dir_all(&downloaded).unwrap();
    for f in std::fs::read_dir(reviewed.out("plan")).unwrap() {
        let f = f.unwrap();
        std::fs::copy(f.path(), downloaded.join(f.file_name())).unwrap();
    }
    std::fs::write(
        repo.join("base.yaml"),
        WS_BASE.replace("From the base", "Changed after review"),
    )
    .unwrap();
    h.emu.clear_requests();
    r.event("push", &event("pull_request-opened"))
        .input("command", "apply")
        .input("plan", "reviewed-plan");
    let merged = r.run().await;
    // b's plan no longer matches (the base moved under it): refused, nothing written.
    assert_eq!(merged.code, 1, "{}", merged.log);
    assert!(h.writes().is_empty(), "{:?}", h.writes());
    // With the base as reviewed, b alone is applied.
    std::fs::write(repo.join("base.yaml"), WS_BASE).unwrap();
    let merged = r.run().await;
    assert_eq!(merged.code, 0, "{}", merged.log);
    let b_channels: Vec<String> = h
        .emu
        .state()
        .guild(&ids[1])
        .unwrap()
        .channels
        .iter()
        .map(|c| c.id.clone())
        .collect();
    let writes = h.writes();
    assert!(!writes.is_empty());
    for w in &writes {
        assert!(
            w.path.contains(&ids[1]) || b_channels.iter().any(|c| w.path.contains(c.as_str())),
            "a write outside b: {} {}",
            w.method,
            w.path
        );
    }
    assert!(
        h.emu
            .state()
            .guild(&ids[1])
            .unwrap()
            .channels
            .iter()
            .any(|c| c.name == "b-only")
    );
    assert_secrets_hidden(&merged, &[&h.emu.token, &gh.token]);
    gh.assert_conforms();
}
