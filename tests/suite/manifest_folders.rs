//! Folder manifests refuse what they cannot read: dangling and looping symbolic links, links
//! out of the folder, FIFOs, sockets, devices and names that are not UTF-8 are errors naming
//! the path (never a hang, never a silent skip), from `validate` and from `plan` before any
//! call to the API. Symbolic links to files and folders inside the folder are followed.
#![cfg(unix)]

use crate::common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{Harness, Run};

const GUILD: &str = "version: 1\nroles:\n  - name: Member\n";

/// A manifest folder `m` in the harness's folder, with a valid `guild.yaml`.
fn folder(h: &Harness) -> PathBuf {
    let dir = h.dir.path().join("m");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("guild.yaml"), GUILD).unwrap();
    dir
}

/// Runs guildctl, failing the test if it has not finished in a minute (a FIFO opened for
/// reading would block forever).
async fn run(h: &Harness, args: &[&str]) -> Run {
    match tokio::time::timeout(Duration::from_secs(60), h.run(args)).await {
        Ok(run) => run,
        Err(_) => panic!("guildctl {args:?} hung"),
    }
}

/// `validate`, `plan --sandbox` and `plan` against the emulator all refuse the folder, with
/// every `expected` text on stderr, and no request reaches the emulator.
async fn refused(h: &Harness, dir: &Path, expected: &[&str]) -> String {
    let m = dir.to_str().unwrap();
    let validate = run(h, &["validate", "-f", m]).await;
    validate.assert_code(1);
    for args in [
        vec!["validate", "-f", m, "--format", "json"],
        vec!["plan", "--sandbox", "-f", m],
        vec!["plan", "-f", m],
        vec!["apply", "-f", m, "--yes"],
    ] {
        let r = run(h, &args).await;
        r.assert_code(1);
        let all = format!("{}{}", r.stdout, r.stderr);
        for e in expected {
            assert!(all.contains(e), "{args:?}: expected {e:?} in\n{all}");
        }
        if args[0] != "validate" {
            assert!(
                r.stderr.contains("nothing was sent to Discord"),
                "{}",
                r.stderr
            );
        }
    }
    assert!(h.requests().is_empty(), "{:?}", h.requests());
    for e in expected {
        assert!(
            validate.stderr.contains(e),
            "expected {e:?} in\n{}",
            validate.stderr
        );
    }
    validate.stderr
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo runs");
    assert!(status.success(), "mkfifo {}", path.display());
}

#[tokio::test]
async fn fifos_are_refused_without_being_opened() {
    let h = Harness::start().await;
    let dir = folder(&h);
    // Named like a manifest file, and not: both are reported, in one run.
    mkfifo(&dir.join("roles.yaml"));
    std::fs::create_dir(dir.join("channels")).unwrap();
    mkfifo(&dir.join("channels/pipe"));
    let stderr = refused(
        &h,
        &dir,
        &[
            "m/roles.yaml is a FIFO (named pipe), not a file or folder",
            "m/channels/pipe is a FIFO (named pipe), not a file or folder",
            "move it out of the folder",
        ],
    )
    .await;
    assert!(stderr.contains("invalid (2 errors"), "{stderr}");
}

#[tokio::test]
async fn sockets_and_links_to_devices_are_refused() {
    let h = Harness::start().await;
    let dir = folder(&h);
    let _socket = std::os::unix::net::UnixListener::bind(dir.join("roles.yaml")).unwrap();
    symlink("/dev/null", dir.join("null.yaml")).unwrap();
    refused(
        &h,
        &dir,
        &[
            "m/roles.yaml is a socket, not a file or folder",
            "m/null.yaml is a symbolic link to /dev/null, which is a character device",
        ],
    )
    .await;
}

#[tokio::test]
async fn dangling_links_are_refused() {
    let h = Harness::start().await;
    let dir = folder(&h);
    symlink("missing.yaml", dir.join("roles.yaml")).unwrap();
    // Not a YAML name, and still not skipped: what it was meant to be is unknown.
    symlink("gone", dir.join("assets")).unwrap();
    refused(
        &h,
        &dir,
        &[
            "m/roles.yaml is a symbolic link to missing.yaml, which does not exist",
            "m/assets is a symbolic link to gone, which does not exist",
            "remove the link, or point it at a file or folder inside the manifest's folder",
        ],
    )
    .await;
}

#[tokio::test]
async fn link_loops_are_refused() {
    let h = Harness::start().await;
    let dir = folder(&h);
    symlink("self.yaml", dir.join("self.yaml")).unwrap();
    symlink("b.yaml", dir.join("a.yaml")).unwrap();
    symlink("a.yaml", dir.join("b.yaml")).unwrap();
    std::fs::create_dir(dir.join("sub")).unwrap();
    symlink("..", dir.join("sub/back")).unwrap();
    refused(
        &h,
        &dir,
        &[
            "m/self.yaml is a symbolic link that loops",
            "m/a.yaml is a symbolic link that loops",
            "m/b.yaml is a symbolic link that loops",
            "m/sub/back is a symbolic link to",
            "a folder that contains it: following it would loop",
        ],
    )
    .await;
}

/// Linux's filesystems take any bytes but `/` and NUL in a name; macOS's refuse names
/// that are not UTF-8 outright, so nothing there can hold one.
#[tokio::test]
#[cfg_attr(
    target_os = "macos",
    ignore = "macOS's filesystems refuse names that are not UTF-8: there is none to read"
)]
async fn names_that_are_not_utf8_are_refused() {
    let h = Harness::start().await;
    let dir = folder(&h);
    let file = dir.join(OsStr::from_bytes(b"caf\xe9.yaml"));
    let sub = dir.join(OsStr::from_bytes(b"r\xf4les"));
    let made = std::fs::write(&file, "roles: []\n").and_then(|()| std::fs::create_dir(&sub));
    if let Err(e) = made {
        panic!(
            "the filesystem under {} refused a name that is not UTF-8 ({e}): set TMPDIR to a folder on one that takes any bytes",
            dir.display()
        );
    }
    refused(
        &h,
        &dir,
        &[
            "the name of ",
            "m/caf\u{fffd}.yaml is not UTF-8",
            "m/r\u{fffd}les is not UTF-8",
            "rename it with a UTF-8 name",
        ],
    )
    .await;
}

#[tokio::test]
async fn links_out_of_the_folder_are_refused() {
    let h = Harness::start().await;
    let dir = folder(&h);
    let outside = h.dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("roles.yaml"), "roles:\n  - name: Outsider\n").unwrap();
    symlink(outside.join("roles.yaml"), dir.join("roles.yaml")).unwrap();
    symlink(&outside, dir.join("more")).unwrap();
    // A non-YAML file is never read by the loader: a link to one may lead anywhere (an
    // avatar's own check refuses it if a webhook names it).
    symlink(outside.join("roles.yaml"), dir.join("notes.txt")).unwrap();
    let stderr = refused(
        &h,
        &dir,
        &[
            "m/roles.yaml is a symbolic link to ",
            "m/more is a symbolic link to ",
            "outside the manifest's folder",
            "copy the file or folder into the manifest's folder",
        ],
    )
    .await;
    assert!(!stderr.contains("notes.txt"), "{stderr}");
    assert!(stderr.contains("invalid (2 errors"), "{stderr}");
}

#[tokio::test]
async fn links_inside_the_folder_are_followed_and_read_once() {
    let h = Harness::start().await;
    let dir = folder(&h);
    std::fs::create_dir_all(dir.join("shared/roles")).unwrap();
    std::fs::write(
        dir.join("shared/roles/staff.yaml"),
        "roles:\n  - name: Staff\n",
    )
    .unwrap();
    std::fs::write(dir.join(".mods.yaml"), "roles:\n  - name: Mods\n").unwrap();
    // A hidden file is skipped, but a visible link to it is read.
    symlink(".mods.yaml", dir.join("mods.yaml")).unwrap();
    // The folder is reached only through a link (the real one is hidden).
    std::fs::rename(dir.join("shared"), dir.join(".shared")).unwrap();
    symlink(".shared/roles", dir.join("roles")).unwrap();
    let m = dir.to_str().unwrap();
    let out = run(&h, &["validate", "-f", m, "--format", "json"]).await;
    out.assert_code(0);
    let plan = run(&h, &["plan", "-f", m]).await;
    plan.assert_code(0);
    for role in ["Mods", "Staff"] {
        assert!(plan.stdout.contains(role), "{role}: {}", plan.stdout);
    }

    // The same file twice (directly and through a link) would declare its roles twice.
    std::fs::write(dir.join("extra.yaml"), "roles:\n  - name: Extra\n").unwrap();
    symlink("extra.yaml", dir.join("zz-again.yaml")).unwrap();
    let twice = run(&h, &["validate", "-f", m]).await;
    twice.assert_code(1);
    assert!(
        twice.stderr.contains("is reached twice, as ")
            && twice.stderr.contains("m/extra.yaml and as ")
            && twice.stderr.contains("m/zz-again.yaml"),
        "{}",
        twice.stderr
    );
    assert!(
        twice.stderr.contains("remove the symbolic link"),
        "{}",
        twice.stderr
    );
}

// The path given with -f itself, file or folder, follows the same rules (issue 19, point 3).

#[tokio::test]
async fn a_manifest_file_linked_out_of_its_folder_is_refused_unread() {
    let h = Harness::start().await;
    let outside = h.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("x.yaml"), "version: 1\nsecret: hunter2\n").unwrap();
    let repo = h.dir.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    symlink("../outside/x.yaml", repo.join("guild.yaml")).unwrap();
    let stderr = refused(
        &h,
        &repo.join("guild.yaml"),
        &[
            "repo/guild.yaml is a symbolic link to",
            "outside the folder",
        ],
    )
    .await;
    assert!(!stderr.contains("hunter2"), "the file was read: {stderr}");

    // The runner's environment, through a committed link: never read, never shown.
    symlink("/proc/self/environ", repo.join("env.yaml")).unwrap();
    let run = run(
        &h,
        &["validate", "-f", repo.join("env.yaml").to_str().unwrap()],
    )
    .await;
    run.assert_code(1);
    assert!(
        run.stderr
            .contains("on a system file system, not a manifest"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("PATH="), "{}", run.stderr);

    // A folder given with -f that is a link out of where it is given in.
    symlink("../outside", repo.join("guild")).unwrap();
    refused(&h, &repo.join("guild"), &["outside the folder"]).await;
}

#[tokio::test]
async fn a_fifo_or_device_given_with_f_is_refused_within_a_second() {
    let h = Harness::start().await;
    let fifo = h.dir.path().join("guild.yaml");
    mkfifo(&fifo);
    let started = std::time::Instant::now();
    let stderr = refused(
        &h,
        &fifo,
        &["guild.yaml is a FIFO (named pipe), not a file or folder"],
    )
    .await;
    // Five runs (validate twice, plan twice, apply): none waited on the pipe.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr.contains("nothing is read") || stderr.contains("is not read"),
        "{stderr}"
    );

    let run = run(&h, &["validate", "-f", "/dev/zero"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("/dev/zero is a character device"),
        "{}",
        run.stderr
    );
    let run = self::run(&h, &["validate", "-f", "/proc/self/environ"]).await;
    run.assert_code(1);
    assert!(
        run.stderr.contains("on a system file system"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn a_manifest_file_linked_inside_its_folder_is_read() {
    let h = Harness::start().await;
    let repo = h.dir.path().join("repo");
    std::fs::create_dir_all(repo.join("guilds")).unwrap();
    std::fs::write(repo.join("guilds/main.yaml"), GUILD).unwrap();
    symlink("guilds/main.yaml", repo.join("guild.yaml")).unwrap();
    run(
        &h,
        &["validate", "-f", repo.join("guild.yaml").to_str().unwrap()],
    )
    .await
    .assert_code(0);
    // Given from inside the folder, by a relative path.
    let r = run(&h, &["validate", "-f", "repo/guild.yaml"]).await;
    r.assert_code(0);
}

// Every path read from a repository goes through one resolver (issue 30, point 4): a
// directory link committed anywhere along the path, not only at its end, is refused before
// the file is opened, so nothing of the file it leads to reaches stdout or stderr.

/// A folder outside the harness's (the working folder's) with a file whose line would show
/// in an excerpt if it were read: a valid YAML mapping with a key the schema refuses.
const SECRET: &str = "version: 1\nsecret_line: hunter2-through-a-directory-link\n";

fn outside_secret() -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.yaml"), SECRET).unwrap();
    std::fs::write(outside.path().join("icon.png"), b"\x89PNG\r\n\x1a\nhunter2").unwrap();
    outside
}

fn assert_unread(r: &Run, what: &str) {
    for stream in [&r.stdout, &r.stderr] {
        assert!(
            !stream.contains("hunter2"),
            "{what}: the linked file was read and shown:\n{stream}"
        );
    }
}

#[tokio::test]
async fn a_directory_link_in_f_or_a_workspace_manifest_is_refused_unread() {
    let h = Harness::start().await;
    let outside = outside_secret();
    std::fs::create_dir_all(h.dir.path().join("guilds")).unwrap();
    symlink(outside.path(), h.dir.path().join("guilds/root")).unwrap();
    // And the issue's own: a link to `/`, and /etc/passwd read through it.
    symlink("/", h.dir.path().join("guilds/slash")).unwrap();
    let passwd_line = std::fs::read_to_string("/etc/passwd")
        .ok()
        .and_then(|t| t.lines().next().map(str::to_owned));

    // -f, relative: the working folder is its root.
    for (path, link, passwd) in [
        ("guilds/root/secret.yaml", "guilds/root", false),
        ("guilds/slash/etc/passwd", "guilds/slash", true),
    ] {
        for args in [
            vec!["validate", "-f", path],
            vec!["validate", "-f", path, "--format", "json"],
            vec!["plan", "-f", path],
            vec!["apply", "-f", path, "--yes"],
        ] {
            let r = run(&h, &args).await;
            r.assert_code(1);
            assert_unread(&r, path);
            if passwd && let Some(line) = &passwd_line {
                assert!(!r.stdout.contains(line.as_str()), "{}", r.stdout);
                assert!(!r.stderr.contains(line.as_str()), "{}", r.stderr);
            }
            let all = format!("{}{}", r.stdout, r.stderr);
            assert!(
                all.contains(&format!(
                    "{path} leads through the symbolic link {link} (to "
                )) && all.contains("outside the working folder"),
                "{args:?}: the refusal names the path and the link:\n{all}"
            );
        }
    }
    assert!(h.requests().is_empty(), "{:?}", h.requests());

    // The workspace file's `manifest:`: the workspace's folder is its root.
    h.manifest(
        "guildctl.yaml",
        &format!(
            "guilds:\n  main: {{ id: \"{}\", manifest: guilds/root/secret.yaml }}\n",
            h.emu.guild_id
        ),
    );
    for args in [
        vec!["validate", "--all"],
        vec!["plan", "--all"],
        vec!["apply", "--all", "--yes"],
    ] {
        let r = run(&h, &args).await;
        r.assert_code(1);
        assert_unread(&r, "manifest:");
        let all = format!("{}{}", r.stdout, r.stderr);
        assert!(
            all.contains("secret.yaml leads through the symbolic link ")
                && all.contains("guilds/root (to ")
                && all.contains("outside the workspace's folder"),
            "{args:?}:\n{all}"
        );
    }
    assert!(
        h.writes().is_empty(),
        "nothing was written: {:?}",
        h.writes()
    );

    // A path a person types whole stays theirs: an absolute -f is read where it leads.
    let typed = h.dir.path().join("guilds/root/secret.yaml");
    let r = run(&h, &["validate", "-f", typed.to_str().unwrap()]).await;
    r.assert_code(1);
    assert!(
        r.stderr.contains("secret_line") && !r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
}

#[tokio::test]
async fn directory_links_in_extends_images_and_folder_entries_are_still_refused() {
    let h = Harness::start().await;
    let outside = outside_secret();
    symlink(outside.path(), h.dir.path().join("shared")).unwrap();
    std::fs::create_dir_all(h.dir.path().join("m")).unwrap();
    std::fs::write(h.dir.path().join("m/guild.yaml"), GUILD).unwrap();
    symlink(outside.path(), h.dir.path().join("m/more")).unwrap();
    h.manifest(
        "extends.yaml",
        "version: 1\nextends: shared/secret.yaml\nroles:\n  - name: Member\n",
    );
    h.manifest(
        "icon.yaml",
        "version: 1\nsettings:\n  icon: shared/icon.png\n",
    );
    for (file, expected) in [
        (
            "extends.yaml",
            vec![
                "the base manifest shared/secret.yaml (",
                "leads through the symbolic link ",
                "outside the manifest's folder",
            ],
        ),
        (
            "icon.yaml",
            vec![
                "image \"shared/icon.png\" leads through the symbolic link ",
                "outside the manifest's folder",
            ],
        ),
        (
            "m",
            vec![
                "m/more is a symbolic link to ",
                "outside the manifest's folder",
            ],
        ),
    ] {
        for args in [vec!["validate", "-f", file], vec!["plan", "-f", file]] {
            let r = run(&h, &args).await;
            r.assert_code(1);
            assert_unread(&r, file);
            for e in &expected {
                assert!(r.stderr.contains(e), "{args:?}: {e:?} in\n{}", r.stderr);
            }
        }
    }
    assert!(h.writes().is_empty(), "{:?}", h.writes());
}
