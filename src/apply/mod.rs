//! Executes a plan's operations: each starts once what it waits for has finished
//! and what it needs is done, and independent ones run at the same time (up to a
//! bound), with the ids of objects created earlier in the run filled in and the
//! audit-log reason on every call that takes one. After a failure nothing that
//! needs it starts; with `keep_going` everything else still runs. Once the client is
//! stopped ([`Client::stop`], an interrupt) nothing new starts at all, and the calls
//! already sent finish.

mod people;
mod schedule;
pub mod summary;
mod webhook_urls;

pub use schedule::Schedule;
pub use webhook_urls::{UrlFileError, UrlFileProblem, UrlsKept, WebhookUrlFile};

use std::path::{Path, PathBuf};

use base64::Engine;
use hashbrown::HashMap;

use serde::Serialize;
use serde_json::Value;
use tokio::task::JoinSet;

use crate::discord::names::stored_channel_name;
use crate::discord::{Client, ClientError, Form, FormFile, Route, Secret};
use crate::plan::{IdRef, Operation, Plan, created_key};
use webhook_urls::Keeper;

/// What happened to each operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Not started yet.
    Pending,
    /// Sent, not finished.
    Running,
    /// Discord did it.
    Done,
    /// The call failed (its error is in [`Outcome::failures`]).
    Failed,
    /// Never sent: a call it needs failed or was skipped, or the run stopped first.
    Skipped,
}

/// Progress reported for each operation as it starts (`Running`), and once more as it
/// finishes or is skipped.
pub struct Progress<'a> {
    /// The operation's index in the plan's `operations`.
    pub index: usize,
    /// How many operations the plan has.
    pub total: usize,
    /// The operation itself.
    pub operation: &'a Operation,
    /// Where it is now: running, or how it ended.
    pub status: Status,
    /// Why it failed, when it did.
    pub error: Option<&'a ClientError>,
}

/// How apply runs.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// The audit-log reason sent with every call that takes one.
    pub reason: String,
    /// Where image paths in the plan (webhook avatars) are read from.
    pub manifest_dir: PathBuf,
    /// Calls in flight at once, at most.
    pub concurrency: usize,
    /// After a failure, go on with the calls that do not need it (otherwise
    /// no new call starts, and the calls in flight finish).
    pub keep_going: bool,
    /// Where the URLs of created webhooks are written as they arrive; when it cannot
    /// be written the run stops, whatever `keep_going` says.
    pub webhook_urls: Option<WebhookUrlFile>,
}

impl ApplyOptions {
    /// Options with this reason and image folder, 8 calls at once, stopping at the first
    /// failure, no webhook URL file.
    pub fn new(reason: impl Into<String>, manifest_dir: impl Into<PathBuf>) -> ApplyOptions {
        ApplyOptions {
            reason: reason.into(),
            manifest_dir: manifest_dir.into(),
            concurrency: 8,
            keep_going: false,
            webhook_urls: None,
        }
    }
}

/// What a run came to: each operation's status, the failures, the objects created.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Each operation's status, by its index in the plan.
    pub statuses: Vec<Status>,
    /// Every failed operation with its error, in the order they failed.
    pub failures: Vec<(usize, ClientError)>,
    /// Creation key → id of the object created.
    pub created: HashMap<String, String>,
    /// Name and URL (with its token: a secret) of each webhook created.
    pub webhook_urls: Vec<(String, Secret)>,
    /// With [`ApplyOptions::webhook_urls`], where those URLs were written.
    pub webhook_urls_kept: Option<UrlsKept>,
    /// What calls that succeeded left undone on purpose (a roster member who left the guild
    /// in the meantime), by operation.
    pub notes: Vec<(usize, String)>,
    /// The client was stopped ([`Client::stop`]: an interrupt) during the run. The calls
    /// not done were then never sent, or stopped before Discord confirmed them
    /// (`unconfirmed`).
    pub interrupted: bool,
    /// Calls the interrupt stopped after a try whose outcome is unknown: they may or may
    /// not have been made (the next plan, read from the guild, tells).
    pub unconfirmed: Vec<usize>,
}

impl Outcome {
    /// How many operations ended (or stayed) in `status`.
    pub fn count(&self, status: Status) -> usize {
        self.statuses.iter().filter(|s| **s == status).count()
    }

    /// No call failed, the run was not interrupted, and every webhook URL is where it was
    /// asked to go.
    pub fn succeeded(&self) -> bool {
        self.failures.is_empty()
            && !self.interrupted
            && self
                .webhook_urls_kept
                .as_ref()
                .is_none_or(UrlsKept::as_asked)
    }
}

/// Why an operation's call could not be made complete before it was sent.
#[derive(Debug, thiserror::Error)]
enum Unresolved {
    #[error("operation refers to {0}, which was not created in this run")]
    Created(String),
    #[error("{0}")]
    Image(String),
}

/// Runs the plan. The guild is left in a state that a rerun of `apply` completes:
/// calls are idempotent or, for creates, looked for before being repeated.
pub async fn apply(
    client: &Client,
    plan: &Plan,
    options: &ApplyOptions,
    mut progress: impl FnMut(Progress<'_>),
) -> Outcome {
    let ops = &plan.operations;
    let total = ops.len();
    let mut schedule = Schedule::new(plan);
    let mut out = Outcome {
        statuses: vec![Status::Pending; total],
        ..Outcome::default()
    };
    let mut keeper = options
        .webhook_urls
        .as_ref()
        .map(|file| Keeper::new(file, &plan.guild_id));
    let mut running: JoinSet<(usize, Result<Ran, ClientError>)> = JoinSet::new();
    let mut stopped = false;
    loop {
        // An interrupt: nothing new starts; what is in flight finishes.
        stopped |= client.is_stopped();
        let room = if stopped {
            0
        } else {
            options.concurrency.max(1).saturating_sub(running.len())
        };
        for (j, status) in schedule.pass(room) {
            out.statuses[j] = status;
            report(&mut progress, ops, j, status, None);
            if status != Status::Running {
                continue;
            }
            let call = prepare(&ops[j], &out.created, options);
            let client = client.clone();
            running.spawn(async move {
                let result = match call {
                    Ok(call) => call.run(&client).await,
                    Err(e) => Err(e),
                };
                (j, result)
            });
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let (j, result) = match joined {
            Ok(r) => r,
            // A task cannot panic on Discord's input; if one did, stop cleanly.
            Err(_) => {
                stopped = true;
                continue;
            }
        };
        match result {
            // Not sent (or not confirmed) because of the interrupt: not done, not failed.
            Err(ClientError::Stopped { maybe_made, .. }) => {
                out.statuses[j] = Status::Skipped;
                schedule.finish(j, Status::Skipped);
                report(&mut progress, ops, j, Status::Skipped, None);
                if maybe_made {
                    out.unconfirmed.push(j);
                }
                stopped = true;
            }
            Ok(Ran { response, note }) => {
                if let Some(note) = note {
                    out.notes.push((j, note));
                }
                let op = &ops[j];
                if let (Some(key), Some(id)) = (
                    &op.creates,
                    response
                        .as_ref()
                        .and_then(|v| v.get("id"))
                        .and_then(Value::as_str),
                ) {
                    out.created.insert(key.clone(), id.to_owned());
                }
                if let Some(hook) = webhook_url(client, op, response.as_ref()) {
                    // The URL is written before anything else starts: a secret Discord
                    // shows once must be safe before the run goes on.
                    if let Some(keeper) = keeper.as_mut()
                        && !keeper.keep(&hook.name, &hook.id, &hook.url)
                    {
                        stopped = true;
                    }
                    out.webhook_urls.push((hook.name, hook.url));
                }
                out.statuses[j] = Status::Done;
                schedule.finish(j, Status::Done);
                report(&mut progress, ops, j, Status::Done, None);
            }
            Err(e) => {
                out.statuses[j] = Status::Failed;
                schedule.finish(j, Status::Failed);
                report(&mut progress, ops, j, Status::Failed, Some(&e));
                // A rejected token or a spent budget stops everything, whatever --keep-going says.
                let fatal = matches!(
                    e,
                    ClientError::Unauthorized { .. } | ClientError::InvalidBudget { .. }
                );
                out.failures.push((j, e));
                if !options.keep_going || fatal {
                    stopped = true;
                }
            }
        }
    }
    for j in schedule.pending() {
        out.statuses[j] = Status::Skipped;
        report(&mut progress, ops, j, Status::Skipped, None);
    }
    out.webhook_urls_kept = keeper.and_then(Keeper::finish);
    out.interrupted = client.is_stopped();
    out
}

fn report(
    progress: &mut impl FnMut(Progress<'_>),
    ops: &[Operation],
    j: usize,
    status: Status,
    error: Option<&ClientError>,
) {
    progress(Progress {
        index: j,
        total: ops.len(),
        operation: &ops[j],
        status,
        error,
    });
}

/// A webhook this run created, with its URL.
struct CreatedWebhook {
    name: String,
    id: String,
    url: Secret,
}

/// The webhook this operation created, with its URL from the response's token.
fn webhook_url(
    client: &Client,
    op: &Operation,
    response: Option<&Value>,
) -> Option<CreatedWebhook> {
    if !matches!(op.route, Route::CreateWebhook { .. }) {
        return None;
    }
    let name = op.creates.as_deref()?.strip_prefix("webhook:")?;
    let response = response?;
    let id = response.get("id")?.as_str()?;
    let token = response.get("token")?.as_str()?;
    let url = format!("{}/webhooks/{id}/{token}", client.api_base());
    Some(CreatedWebhook {
        name: name.to_owned(),
        id: id.to_owned(),
        url: Secret::new(url),
    })
}

/// One call with every placeholder filled in.
struct Call {
    route: Route,
    /// The JSON body; for a route that takes a form, the form's text fields (what a create
    /// is looked for by).
    body: Option<Value>,
    /// The multipart body of a route that takes one ([`Route::takes_form`]).
    form: Option<Form>,
    /// The audit-log reason; the client sends it where the route takes one.
    reason: String,
    creates: bool,
}

fn prepare(
    op: &Operation,
    created: &HashMap<String, String>,
    options: &ApplyOptions,
) -> Result<Call, ClientError> {
    let unresolved = |e: Unresolved| ClientError::Transport {
        method: op.route.method(),
        path: op.route.path(),
        detail: e.to_string(),
    };
    let route = resolve_route(&op.route, created).map_err(unresolved)?;
    let (body, form) = match &op.body {
        Some(b) if route.takes_form() => {
            let form = form_of(b, created, &options.manifest_dir).map_err(unresolved)?;
            let text = form
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect();
            (Some(Value::Object(text)), Some(form))
        }
        Some(b) => (
            Some(resolve(b, created, &options.manifest_dir).map_err(unresolved)?),
            None,
        ),
        None => (None, None),
    };
    Ok(Call {
        route,
        body,
        form,
        reason: op.reason.clone().unwrap_or_else(|| options.reason.clone()),
        creates: op.creates.is_some(),
    })
}

/// How often a create whose outcome was unknown is looked for and sent again.
const CREATE_ATTEMPTS: usize = 3;

/// What a call that succeeded returned, and what it has to say beside.
struct Ran {
    response: Option<Value>,
    note: Option<String>,
}

impl Call {
    async fn run(self, client: &Client) -> Result<Ran, ClientError> {
        if let Route::BulkBan { guild } = &self.route {
            let note =
                people::bulk_ban(client, &self.route, guild, self.body.as_ref(), &self.reason)
                    .await?;
            return Ok(Ran {
                response: None,
                note,
            });
        }
        match self.send(client).await {
            Ok(response) => Ok(Ran {
                response,
                note: None,
            }),
            Err(e) => match people::member_gone(&self.route, &e) {
                Some(note) => Ok(Ran {
                    response: None,
                    note: Some(note),
                }),
                None => Err(e),
            },
        }
    }

    async fn send(&self, client: &Client) -> Result<Option<Value>, ClientError> {
        let mut attempts = 0;
        loop {
            let result = match &self.form {
                Some(form) => {
                    client
                        .call_form(&self.route, form, Some(&self.reason))
                        .await
                }
                None => {
                    client
                        .call(&self.route, self.body.as_ref(), Some(&self.reason))
                        .await
                }
            };
            match result {
                Err(ClientError::Ambiguous { .. })
                    if self.creates && attempts + 1 < CREATE_ATTEMPTS =>
                {
                    attempts += 1;
                    // The create may have happened: look before sending it again, so
                    // a retry never makes a duplicate.
                    if let Some(found) = self.find_created(client).await? {
                        return Ok(Some(found));
                    }
                }
                other => return other,
            }
        }
    }

    /// The object this create would have made, if the collection now holds it.
    /// Every create route lists its collection with a GET on the same path: an array, or
    /// (soundboard sounds) an object holding it as `items`.
    async fn find_created(&self, client: &Client) -> Result<Option<Value>, ClientError> {
        let Some(body) = &self.body else {
            return Ok(None);
        };
        let items = match client.get::<Value>(&self.route.path()).await? {
            Value::Array(items) => items,
            Value::Object(mut listing) => match listing.remove("items") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        };
        Ok(items.into_iter().find(|item| same_object(body, item)))
    }
}

/// Whether a listed object is the one a create body describes: the same name (as
/// Discord stores channel names), and the same type and parent where given.
fn same_object(body: &Value, item: &Value) -> bool {
    let kind = body.get("type").and_then(Value::as_u64);
    let name = body
        .get("name")
        .and_then(Value::as_str)
        .map(|n| match kind {
            Some(k) => stored_channel_name(u8::try_from(k).unwrap_or(u8::MAX), n).into_owned(),
            None => n.to_owned(),
        });
    let same = |key: &str| body.get(key).is_none_or(|v| item.get(key) == Some(v));
    name.is_some_and(|n| item.get("name").and_then(Value::as_str) == Some(n.as_str()))
        && same("type")
        && same("parent_id")
}

/// The route with each id created earlier in the run filled in.
fn resolve_route(
    route: &Route<IdRef>,
    created: &HashMap<String, String>,
) -> Result<Route, Unresolved> {
    route.try_map(|id| match id {
        IdRef::Live(id) => Ok(id.clone()),
        IdRef::New(key) => created
            .get(key)
            .cloned()
            .ok_or_else(|| Unresolved::Created(key.clone())),
    })
}

/// Replaces every `{"$created": KEY}` in `v` with the id created under KEY, and
/// every `{"$image": PATH}` with the image's data URI.
fn resolve(
    v: &Value,
    created: &HashMap<String, String>,
    manifest_dir: &Path,
) -> Result<Value, Unresolved> {
    if let Some(key) = created_key(v) {
        return created
            .get(key)
            .map(|id| Value::String(id.clone()))
            .ok_or_else(|| Unresolved::Created(key.to_owned()));
    }
    if let Some(file) = planned_file(v, manifest_dir)? {
        let data = base64::engine::general_purpose::STANDARD.encode(file.bytes);
        return Ok(Value::String(format!("data:{};base64,{data}", file.mime)));
    }
    Ok(match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| resolve(i, created, manifest_dir))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| Ok((k.clone(), resolve(v, created, manifest_dir)?)))
                .collect::<Result<_, Unresolved>>()?,
        ),
        other => other.clone(),
    })
}

/// A file a plan uploads, read as it was when the plan was made.
struct PlannedFile {
    /// As the manifest names it, relative to its folder.
    path: String,
    mime: &'static str,
    bytes: Vec<u8>,
}

/// The file a `{"$image": PATH, "sha256": ..}` placeholder names; `None` when `v` is no such
/// placeholder.
fn planned_file(v: &Value, manifest_dir: &Path) -> Result<Option<PlannedFile>, Unresolved> {
    let Some(path) = v.get("$image").and_then(Value::as_str) else {
        return Ok(None);
    };
    let (mime, bytes) =
        // The kind's own rules held when the plan was made; these bytes are those.
        crate::manifest::read_file_as(manifest_dir, path, &crate::manifest::UPLOAD_RULES)
            .map_err(Unresolved::Image)?;
    // The bytes the plan was made with, or none: a file replaced since is not sent.
    let planned = v.get("sha256").and_then(Value::as_str);
    let now = crate::discord::cdn::digest(&bytes);
    if planned != Some(now.as_str()) {
        return Err(Unresolved::Image(format!(
            "image \"{path}\" is not the file the plan was made with (sha256 {}, now {now}): plan again",
            planned.unwrap_or("not recorded")
        )));
    }
    Ok(Some(PlannedFile {
        path: path.to_owned(),
        mime,
        bytes,
    }))
}

/// A multipart/form-data body from a planned JSON body: its one file placeholder as the file
/// part (named by its key, sent under the file's own name), every other field as text.
fn form_of(
    v: &Value,
    created: &HashMap<String, String>,
    manifest_dir: &Path,
) -> Result<Form, Unresolved> {
    let no_file = || Unresolved::Image("the upload names no file".to_owned());
    let Value::Object(map) = v else {
        return Err(no_file());
    };
    let mut fields = Vec::new();
    let mut file = None;
    for (key, value) in map {
        if let Some(planned) = planned_file(value, manifest_dir)? {
            let name = Path::new(&planned.path).file_name().map_or_else(
                || planned.path.clone(),
                |n| n.to_string_lossy().into_owned(),
            );
            file = Some(FormFile {
                part: key.clone(),
                name,
                mime: planned.mime,
                bytes: planned.bytes.into(),
            });
            continue;
        }
        match resolve(value, created, manifest_dir)? {
            Value::Null => {}
            Value::String(text) => fields.push((key.clone(), text)),
            other => fields.push((key.clone(), other.to_string())),
        }
    }
    Ok(Form {
        fields,
        file: file.ok_or_else(no_file)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Kind;
    use serde_json::json;

    /// The prerequisites in `waits` whose success call `j` needs.
    fn needed(plan: &Plan, j: usize, waits: &[usize]) -> Vec<usize> {
        let needs = |&i: &usize| schedule::needs_one(plan, j, i);
        waits.iter().copied().filter(needs).collect()
    }

    #[test]
    fn an_image_is_sent_only_as_the_bytes_the_plan_was_made_with() {
        let dir = tempfile::tempdir().unwrap();
        let png = b"\x89PNG\r\n\x1a\nplanned";
        std::fs::write(dir.path().join("icon.png"), png).unwrap();
        let planned = crate::discord::cdn::digest(png);
        let none = HashMap::new();
        let sent = resolve(
            &crate::plan::image_ref("icon.png", &planned),
            &none,
            dir.path(),
        );
        assert!(
            sent.unwrap()
                .as_str()
                .is_some_and(|d| d.starts_with("data:image/png;base64,"))
        );
        // Replaced between the plan and the call: refused, naming both digests.
        std::fs::write(dir.path().join("icon.png"), b"\x89PNG\r\n\x1a\nswapped").unwrap();
        let e = resolve(
            &crate::plan::image_ref("icon.png", &planned),
            &none,
            dir.path(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("is not the file the plan was made with"), "{e}");
        assert!(e.contains(&planned), "{e}");
        // A placeholder without a digest (a plan file edited to drop it) sends nothing.
        let bare = json!({"$image": "icon.png"});
        assert!(resolve(&bare, &none, dir.path()).is_err());
    }

    /// A sticker's planned body becomes a form: text fields as they are, the placeholder as
    /// the file part under the file's own name, only with the bytes the plan was made with.
    #[test]
    fn an_upload_form_holds_the_text_fields_and_the_planned_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("stickers")).unwrap();
        let png = b"\x89PNG\r\n\x1a\nplanned";
        std::fs::write(dir.path().join("stickers/ferris.png"), png).unwrap();
        let planned = crate::discord::cdn::digest(png);
        let body = json!({
            "name": "ferris",
            "file": crate::plan::image_ref("stickers/ferris.png", &planned),
            "tags": "crab",
        });
        let form = form_of(&body, &HashMap::new(), dir.path()).unwrap();
        assert_eq!(
            form.fields,
            [
                ("name".to_owned(), "ferris".to_owned()),
                ("tags".to_owned(), "crab".to_owned())
            ]
        );
        assert_eq!(
            (
                form.file.part.as_str(),
                form.file.name.as_str(),
                form.file.mime
            ),
            ("file", "ferris.png", "image/png")
        );
        assert_eq!(&form.file.bytes[..], png);
        std::fs::write(
            dir.path().join("stickers/ferris.png"),
            b"\x89PNG\r\n\x1a\nswapped",
        )
        .unwrap();
        assert!(form_of(&body, &HashMap::new(), dir.path()).is_err());
        assert!(form_of(&json!({"name": "x"}), &HashMap::new(), dir.path()).is_err());
    }

    #[test]
    fn placeholders_are_replaced_at_any_depth() {
        let created = HashMap::from([("role:A".to_owned(), "123".to_owned())]);
        let body = json!({"permission_overwrites": [{"id": {"$created": "role:A"}, "type": 0}], "name": "x"});
        let dir = Path::new(".");
        assert_eq!(
            resolve(&body, &created, dir).unwrap(),
            json!({"permission_overwrites": [{"id": "123", "type": 0}], "name": "x"})
        );
        assert!(resolve(&json!({"$created": "role:B"}), &created, dir).is_err());
        let webhook = |key: &str| Route::CreateWebhook {
            channel: IdRef::New(key.to_owned()),
        };
        assert_eq!(
            resolve_route(&webhook("role:A"), &created).unwrap().path(),
            "/channels/123/webhooks"
        );
        assert!(resolve_route(&webhook("x"), &created).is_err());
    }

    fn op(route: Route<IdRef>, body: Value, change: usize, stage: u8) -> Operation {
        Operation {
            summary: route.path(),
            route,
            body: Some(body),
            creates: None,
            reason: None,
            change,
            after: Vec::new(),
            stage,
        }
    }

    fn live(id: &str) -> IdRef {
        IdRef::Live(id.to_owned())
    }

    fn change(kind: Kind, id: Option<&str>) -> crate::plan::Change {
        crate::plan::Change {
            action: crate::plan::Action::Update,
            object: crate::plan::ObjectRef {
                kind,
                name: String::new(),
                id: id.map(str::to_owned),
            },
            fields: Vec::new(),
            source: None,
            person: None,
        }
    }

    #[test]
    fn a_call_after_a_barrier_needs_only_what_it_relies_on() {
        let b = crate::plan::barrier_stage();
        let plan = Plan {
            format: crate::plan::PLAN_FORMAT,
            guildctl_version: String::new(),
            manifest_sha256: String::new(),
            changes_sha256: String::new(),
            deletion_gate: Default::default(),
            rehearsal: None,
            widget_image_url: None,
            access: Vec::new(),
            policies_kept: Vec::new(),
            policy_changes: Vec::new(),
            policy_base: Default::default(),
            policy_gate: Default::default(),
            duplicates: Vec::new(),
            guild_id: "9".into(),
            guild_name: "g".into(),
            base_fingerprint: String::new(),
            changes: vec![
                change(Kind::Channel, Some("111")),
                change(Kind::Widget, None),
                change(Kind::Channel, Some("222")),
                change(Kind::Category, Some("333")),
                change(Kind::Role, Some("9")),
                change(Kind::Guild, Some("9")),
            ],
            operations: vec![
                op(
                    Route::UpdateChannel {
                        channel: live("111"),
                    },
                    json!({"topic": "t"}),
                    0,
                    b - 1,
                ),
                op(
                    Route::UpdateChannel {
                        channel: live("333"),
                    },
                    json!({"name": "c"}),
                    3,
                    b - 1,
                ),
                op(
                    Route::UpdateWidget { guild: live("9") },
                    json!({"channel_id": "111"}),
                    1,
                    b + 2,
                ),
                op(
                    Route::UpdateChannelPositions { guild: live("9") },
                    json!([{"id": "222", "parent_id": "333"}]),
                    2,
                    b + 3,
                ),
            ],
            warnings: Vec::new(),
            unmanaged: Vec::new(),
        };
        let waits = plan.prerequisites(3);
        assert_eq!(
            waits,
            vec![0, 1, 2],
            "the move waits for every earlier stage"
        );
        // It names the category it moves into, not #111, and nothing names a widget.
        assert_eq!(needed(&plan, 3, &waits), vec![1]);
        // The widget names #111.
        assert_eq!(needed(&plan, 2, &plan.prerequisites(2)), vec![0]);

        // The guild's settings and @everyone's permissions are needed by every later call.
        let mut guild_wide = plan.clone();
        let role = Route::UpdateRole {
            guild: live("9"),
            role: live("9"),
        };
        guild_wide.operations[0] = op(role, json!({}), 4, b - 1);
        guild_wide.operations[1] = op(Route::UpdateGuild { guild: live("9") }, json!({}), 5, b);
        assert_eq!(
            needed(&guild_wide, 3, &guild_wide.prerequisites(3)),
            vec![0, 1]
        );
    }
}
