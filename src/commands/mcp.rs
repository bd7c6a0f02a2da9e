//! `guildctl mcp`: a Model Context Protocol server on standard input and output, for AI
//! assistants, whose tools only read (docs/mcp.md): `validate`, `plan`, `access`, `drift`,
//! `explain` and `schema`. None writes to Discord and none applies: a change to a guild
//! stays a reviewed pull request.
//!
//! Each tool runs the operation its command runs (`guildctl::ops`: `validate`, `plan`,
//! `access`, `drift`) and the command's renderers, with the server's connection (`--sandbox`, or the token
//! from `DISCORD_TOKEN` / `--token-file`, never from a tool's arguments). Paths go through
//! the manifest resolver held to the folder the server was started in. Results are the
//! commands' own renderings: plans and reports as text for a terminal, JSON as guildctl
//! writes it, outside text inert in both. Stdout carries the protocol alone; logs and the
//! diagnostics the commands print go to stderr.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use guildctl::access::view::{Query, Who};
use guildctl::manifest::{self, LoadedManifest, WORKSPACE_FILE, Within, Workspace};
use guildctl::ops::{self, DriftRun, PlanRun, Planned, Targets};
use guildctl::plan::{Action, Plan};
use guildctl::report::{self, Format, Heading};
use guildctl::{drift, inert, mcp};

use super::{
    Connection, Invalid, Target, connect_loaded, failure, load_checked, only, refusal_report,
    rehearsal_failed,
};
use guildctl::discord::time::now_ms;

#[derive(Args)]
pub struct McpArgs {
    /// The folder the tools work in, the repository (default: the working folder): every
    /// path a tool names must stay inside it. For clients that cannot set the server's
    /// working folder.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    #[command(flatten)]
    conn: Connection,
}

impl McpArgs {
    pub(crate) fn connection_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }
}

/// Serves the tools on stdin and stdout until the client closes the connection.
pub async fn run(args: McpArgs) -> Result<u8> {
    if let Some(root) = &args.root {
        // Before any tool runs: every path is then taken from the root, as from a
        // working folder.
        std::env::set_current_dir(root)
            .with_context(|| format!("cannot work in --root {}", root.display()))?;
    }
    let folder = std::env::current_dir()?;
    // Every path any tool reads stays in the folder, whatever a manifest, a base or a
    // workspace file above it names (docs/mcp.md).
    manifest::source::confine_to(&folder, SERVER_FOLDER)
        .with_context(|| format!("cannot confine the server to {}", folder.display()))?;
    eprintln!(
        "guildctl mcp: serving read-only tools on stdio for {} ({})",
        inert::terminal(&folder.display().to_string()),
        if args.conn.sandbox {
            "the sandbox's guild"
        } else {
            "the live guild"
        },
    );
    let server = Server { conn: args.conn };
    let service = match server.serve(rmcp::transport::stdio()).await {
        Ok(service) => service,
        // Our stdout is the client's input: closed, the client has gone, as at the end.
        Err(e) if stdout_closed(&e) => {
            eprintln!("guildctl mcp: the client closed the connection");
            return Ok(0);
        }
        Err(e) => return Err(anyhow!("the MCP connection did not start: {e}")),
    };
    service
        .waiting()
        .await
        .map_err(|e| anyhow!("the MCP server stopped: {e}"))?;
    eprintln!("guildctl mcp: the client closed the connection");
    Ok(0)
}

/// How refusals name the folder the server is confined to.
const SERVER_FOLDER: &str = "the folder the server works in";

/// The longest string a tool's argument may be, in bytes: a path at Linux's `PATH_MAX`;
/// every other argument (a rule id, a role name, a channel pattern, a user id) is far
/// shorter.
pub const MAX_ARGUMENT_BYTES: usize = 4096;

/// The most values a list argument may hold: `as` names roles, and a guild has at most 250.
pub const MAX_ARGUMENT_ITEMS: usize = 250;

/// Why a tool's arguments are refused before any work: a string or a list past its limit
/// (its length is all that is looked at), named by where it is in the arguments.
fn oversized(arguments: &rmcp::model::JsonObject) -> Option<String> {
    fn walk(at: &str, value: &serde_json::Value) -> Option<String> {
        match value {
            serde_json::Value::String(s) if s.len() > MAX_ARGUMENT_BYTES => Some(format!(
                "the argument `{at}` has {} bytes; an argument may have at most {MAX_ARGUMENT_BYTES}",
                s.len()
            )),
            serde_json::Value::Array(items) if items.len() > MAX_ARGUMENT_ITEMS => Some(format!(
                "the argument `{at}` has {} values; a list may have at most {MAX_ARGUMENT_ITEMS}",
                items.len()
            )),
            serde_json::Value::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(i, v)| walk(&format!("{at}[{i}]"), v)),
            serde_json::Value::Object(fields) => object(Some(at), fields),
            _ => None,
        }
    }
    fn object(at: Option<&str>, fields: &rmcp::model::JsonObject) -> Option<String> {
        if fields.len() > MAX_ARGUMENT_ITEMS {
            return Some(format!(
                "the arguments have {} fields; a tool takes at most {MAX_ARGUMENT_ITEMS}",
                fields.len()
            ));
        }
        fields.iter().find_map(|(key, value)| {
            if key.len() > MAX_ARGUMENT_BYTES {
                return Some(format!(
                    "an argument's name has {} bytes; a name may have at most {MAX_ARGUMENT_BYTES}",
                    key.len()
                ));
            }
            let name = at.map_or_else(|| key.clone(), |at| format!("{at}.{key}"));
            walk(&name, value)
        })
    }
    object(None, arguments)
}

/// Whether the handshake failed because the client closed its end of our stdout.
fn stdout_closed(e: &rmcp::service::ServerInitializeError) -> bool {
    matches!(
        e,
        rmcp::service::ServerInitializeError::TransportError { error, .. }
            if error
                .error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    )
}

/// The server: the connection every tool that reads the guild uses.
#[derive(Clone)]
struct Server {
    conn: Connection,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ValidateParams {
    /// A manifest: a YAML file or a folder of them, relative to the folder the server runs
    /// in (an absolute path must lie inside it). Left out (with `guild`): every guild of the
    /// workspace file guildctl.yaml there.
    manifest: Option<String>,
    /// Instead of `manifest`: one guild of the workspace file, by its name there.
    guild: Option<String>,
}

/// How a plan or a report is written.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum ReportFormat {
    /// As on a terminal (without colours).
    #[default]
    Text,
    /// As in a pull-request comment or an issue.
    Markdown,
    /// guildctl's JSON.
    Json,
}

impl From<ReportFormat> for Format {
    fn from(f: ReportFormat) -> Format {
        match f {
            ReportFormat::Text => Format::Text,
            ReportFormat::Markdown => Format::Markdown,
            ReportFormat::Json => Format::Json,
        }
    }
}

/// How a plan is written; its JSON summary follows it either way.
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum PlanFormat {
    /// As on a terminal (without colours).
    #[default]
    Text,
    /// As in a pull-request comment.
    Markdown,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PlanParams {
    /// A manifest: a YAML file or a folder of them, relative to the folder the server runs
    /// in (an absolute path must lie inside it).
    manifest: Option<String>,
    /// Instead of `manifest`: a guild of the workspace file guildctl.yaml in that folder, by
    /// its name there.
    guild: Option<String>,
    #[serde(default)]
    format: PlanFormat,
    /// Also apply the plan to an in-process copy of the guild (never to Discord) and say
    /// whether every call would be accepted and the guild would converge.
    #[serde(default)]
    rehearse: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AccessParams {
    /// A manifest: a YAML file or a folder of them, relative to the folder the server runs
    /// in (an absolute path must lie inside it).
    manifest: Option<String>,
    /// Instead of `manifest`: a guild of the workspace file guildctl.yaml in that folder, by
    /// its name there.
    guild: Option<String>,
    /// The guild as it is today, not as the manifest would make it.
    #[serde(default)]
    live: bool,
    /// Preview as a member holding these roles (names; `@everyone` for a member with none).
    #[serde(rename = "as")]
    as_roles: Option<Vec<String>>,
    /// Preview as this member (a user id), with the roles they hold.
    user: Option<String>,
    /// Only the channels this names: `Staff/*`, `#general`, `Staff` (a category).
    channel: Option<String>,
    #[serde(default)]
    format: ReportFormat,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DriftParams {
    /// A manifest: a YAML file or a folder of them, relative to the folder the server runs
    /// in (an absolute path must lie inside it).
    manifest: Option<String>,
    /// Instead of `manifest`: a guild of the workspace file guildctl.yaml in that folder, by
    /// its name there.
    guild: Option<String>,
    #[serde(default)]
    format: ReportFormat,
    /// Audit-log pages (100 entries each) read at most to say who changed what (10 by
    /// default).
    audit_pages: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExplainParams {
    /// A rule id as a diagnostic or finding names it (`unique-role-names`, `risk-grant`),
    /// or a Discord error code (`50013`).
    rule: String,
}

#[tool_router]
impl Server {
    #[tool(
        description = "Check manifests without the network (YAML, schema, semantic rules, policies): JSON with each diagnostic's severity, rule id, file, line, column, node path, message and help. `valid` is false when there is an error.",
        annotations(
            title = "Validate manifests",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn validate(&self, Parameters(p): Parameters<ValidateParams>) -> CallToolResult {
        self.off_thread(move |this| async move { this.validate_now(p) })
            .await
    }

    #[tool(
        description = "What applying the manifest would change on the live guild (reads only; nothing is applied: changes are made by a reviewed pull request). Returns the plan, then a JSON summary: change counts, risks, who gains or loses access where, policies kept, and whether apply would refuse it.",
        annotations(
            title = "Plan against the live guild",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn plan(&self, Parameters(p): Parameters<PlanParams>) -> CallToolResult {
        self.off_thread(move |this| async move { this.plan_now(p).await })
            .await
    }

    #[tool(
        description = "Who can do what, where: the matrix of roles by channels (who can view, send, manage), or a preview as some roles or one user; of the guild as the manifest would make it, or today's (`live`). Reads only.",
        annotations(
            title = "Access matrix and previews",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn access(&self, Parameters(p): Parameters<AccessParams>) -> CallToolResult {
        self.off_thread(move |this| async move { this.access_now(p).await })
            .await
    }

    #[tool(
        description = "Where the live guild differs from the manifest, who changed it, when and why (from the audit log), and unmanaged objects by risk. Reads only.",
        annotations(
            title = "Drift of the live guild",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    async fn drift(&self, Parameters(p): Parameters<DriftParams>) -> CallToolResult {
        self.off_thread(move |this| async move { this.drift_now(p).await })
            .await
    }

    #[tool(
        description = "Explain a diagnostic's or finding's rule id (`unique-role-names`, `risk-grant`) or a Discord error code (`50013`): what it means and how to fix it.",
        annotations(
            title = "Explain a rule",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn explain(&self, Parameters(p): Parameters<ExplainParams>) -> CallToolResult {
        match mcp::explain(&p.rule) {
            Ok(e) => CallToolResult::success(vec![ContentBlock::text(format!(
                "# {}\n\n{}\n\nMore: docs/rules.md",
                e.id, e.text
            ))]),
            Err(unknown) => failed(format!("{unknown}. Known: {}", unknown.known.join(", "))),
        }
    }

    #[tool(
        description = "The JSON schema of guildctl's manifest (version 1), as `guildctl schema` prints it.",
        annotations(
            title = "Manifest JSON schema",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn schema(&self) -> CallToolResult {
        CallToolResult::success(vec![ContentBlock::text(manifest::schema_json())])
    }
}

#[tool_handler]
impl ServerHandler for Server {
    /// Every tool's call, refused before any work when an argument is past its limit: a
    /// megabyte of `rule` would otherwise cost seconds of the protocol's thread.
    async fn call_tool(
        &self,
        request: rmcp::model::CallToolRequestParams,
        context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, rmcp::ErrorData> {
        if let Some(why) = request.arguments.as_ref().and_then(oversized) {
            return Ok(failed(format!(
                "{why}; nothing was read or run: give a shorter value"
            ))
            .into());
        }
        let call = rmcp::handler::server::tool::ToolCallContext::new(self, request, context);
        Self::tool_router().call(call).await
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("guildctl", env!("CARGO_PKG_VERSION"))
                    .with_title("guildctl (read-only)"),
            )
            .with_instructions(mcp::INSTRUCTIONS)
    }
}

impl Server {
    /// Runs a tool's work on a blocking thread with a runtime of its own: loading and
    /// planning take CPU the protocol's thread should not wait on, and the sandbox's
    /// emulator and a rehearsal's copy are served there.
    async fn off_thread<F, Fut>(&self, job: F) -> CallToolResult
    where
        F: FnOnce(Server) -> Fut + Send + 'static,
        Fut: Future<Output = Result<CallToolResult>>,
    {
        let this = self.clone();
        let ran = tokio::task::spawn_blocking(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| anyhow!("cannot start a runtime for the tool: {e}"))?
                .block_on(job(this))
        })
        .await;
        match ran {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => error_result(&e),
            Err(e) => failed(format!("the tool's thread failed: {e}")),
        }
    }

    /// A target for the tools: paths held to the folder the server runs in, the server's
    /// connection.
    fn target(&self, file: Option<PathBuf>) -> Target {
        Target {
            file,
            selection: Default::default(),
            create_unseen: Vec::new(),
            annotations: None,
            conn: self.conn.clone(),
            within: Some(here()),
            policies_base: None,
            like: false,
        }
    }

    /// The manifest a tool names (a path, or a guild of the workspace file), loaded and
    /// checked, with the target to plan it with.
    fn load(
        &self,
        manifest: Option<String>,
        guild: Option<String>,
    ) -> Result<(Target, Arc<LoadedManifest>)> {
        match (manifest, guild) {
            (Some(_), Some(_)) => bail!("give `manifest` or `guild`, not both"),
            (Some(path), None) => {
                let target = self.target(Some(PathBuf::from(path)));
                let loaded = load_checked(&target)?;
                Ok((target, Arc::new(loaded)))
            }
            (None, Some(name)) => {
                // A workspace's guild: its folder, and the workspace's id for it.
                let g = workspace_guild(&name)?;
                let mut target = self.target(Some(g.manifest.clone()));
                target.within = Some(g.within());
                target.conn.guild = Some(g.id.clone());
                let loaded = ops::load(&target, &g.into()).map_err(failure)?;
                Ok((target, Arc::new(loaded)))
            }
            (None, None) => bail!(
                "name the manifest: `manifest` (a path in the folder the server runs in) or `guild` (a guild of its {WORKSPACE_FILE})"
            ),
        }
    }

    fn validate_now(&self, p: ValidateParams) -> Result<CallToolResult> {
        let reports: Vec<manifest::Report> = match (p.manifest, p.guild) {
            (Some(_), Some(_)) => bail!("give `manifest` or `guild`, not both"),
            (Some(path), None) => {
                vec![guildctl::access::policy::validate_in(Path::new(&path), &here()).1]
            }
            (None, Some(name)) => vec![ops::validate_guild(&workspace_guild(&name)?.into())],
            (None, None) => ops::validate(&Targets::workspace(workspace()?.guilds)),
        };
        let json = manifest::render_reports(&reports, manifest::ReportFormat::Json, false);
        Ok(CallToolResult::success(vec![ContentBlock::text(
            json.stdout,
        )]))
    }

    async fn plan_now(&self, p: PlanParams) -> Result<CallToolResult> {
        let (target, loaded) = self.load(p.manifest, p.guild)?;
        let session = connect_loaded(&target, &loaded).await?;
        let targets = target.one(&session, &loaded);
        let run = PlanRun {
            rehearse: p.rehearse,
            pages: None,
        };
        let plan = match only(ops::plan(&session.client, targets, &target, run).await)? {
            Planned::Plan(plan) => plan,
            Planned::Refused(refused) => {
                let report = refusal_report(&loaded, &refused);
                return Ok(CallToolResult::error(vec![
                    ContentBlock::text(format!(
                        "The plan was refused before any change ({} problem(s)): Discord would refuse it, or it breaks a policy. Each problem is placed on the manifest line that causes it.",
                        refused.problems.len()
                    )),
                    diagnostics_json(&report),
                ]));
            }
        };
        let format = match p.format {
            PlanFormat::Text => Format::Text,
            PlanFormat::Markdown => Format::Markdown,
        };
        let content = vec![
            ContentBlock::text(report::render(&plan, format, Heading::Plan, false)),
            ContentBlock::text(plan_summary(&plan)),
        ];
        Ok(match rehearsal_failed(&plan) {
            Some(_) => CallToolResult::error(content),
            None => CallToolResult::success(content),
        })
    }

    async fn access_now(&self, p: AccessParams) -> Result<CallToolResult> {
        let who = match (p.as_roles, p.user) {
            (Some(_), Some(_)) => bail!("give `as` or `user`, not both"),
            (Some(roles), None) => Who::Roles(roles),
            (None, Some(user)) => Who::User(drift::parse_user_id(&user).map_err(|e| anyhow!(e))?),
            (None, None) => Who::Everyone,
        };
        let query = Query {
            live: p.live,
            who,
            channel: p.channel,
            people: false,
        };
        let (target, loaded) = self.load(p.manifest, p.guild)?;
        let session = connect_loaded(&target, &loaded).await?;
        let guild = target.guild(session.guild_id.clone());
        let (view, problems) = ops::access(&session.client, &guild, Some(loaded), &target, &query)
            .await
            .map_err(failure)?;
        let mut content = vec![ContentBlock::text(report::access::render(
            &view,
            p.format.into(),
        ))];
        if !problems.is_empty() {
            let listed: Vec<String> = problems
                .iter()
                .take(5)
                .map(|p| format!("- {}", inert::terminal(&p.message)))
                .collect();
            content.push(ContentBlock::text(format!(
                "Note: apply would refuse this plan ({} problem(s); the `plan` tool shows them all); this is the guild as the manifest would make it.\n{}",
                problems.len(),
                listed.join("\n")
            )));
        }
        Ok(CallToolResult::success(content))
    }

    async fn drift_now(&self, p: DriftParams) -> Result<CallToolResult> {
        let (target, loaded) = self.load(p.manifest, p.guild)?;
        let pages = p.audit_pages.unwrap_or(drift::DEFAULT_MAX_PAGES);
        let run = DriftRun {
            audit_pages: pages,
            now_ms: now_ms(),
            ..DriftRun::default()
        };
        let session = connect_loaded(&target, &loaded).await?;
        let targets = target.one(&session, &loaded);
        let found = only(ops::drift(&session.client, targets, &target, &run).await)?;
        Ok(CallToolResult::success(vec![ContentBlock::text(
            drift::render(&found.report, p.format.into()),
        )]))
    }
}

/// Where every path a tool names must stay: the folder the server runs in (the
/// repository it was started in), whether the path is relative or absolute.
fn here() -> Within {
    Within::given(Path::new("."))
}

/// The workspace file of the folder the server runs in (not one above it: that would be
/// outside).
fn workspace() -> Result<Workspace> {
    let path = Path::new(WORKSPACE_FILE);
    if !path.is_file() {
        bail!("no {WORKSPACE_FILE} in the folder the server runs in: name a `manifest` instead");
    }
    Ok(Workspace::read(path)?)
}

fn workspace_guild(name: &str) -> Result<manifest::WorkspaceGuild> {
    let mut guilds = workspace()?.select(Some(&[name.to_owned()]))?;
    guilds
        .pop()
        .ok_or_else(|| anyhow!("{WORKSPACE_FILE} has no guild `{name}`"))
}

/// A plan's facts for a program: counts, risks, access lines, policies and the deletion
/// gate, as guildctl writes JSON.
fn plan_summary(plan: &Plan) -> String {
    let doc = serde_json::json!({
        "guild_id": plan.guild_id,
        "guild_name": plan.guild_name,
        "summary": report::summary_line(plan),
        "changes": {
            "create": plan.count(Action::Create),
            "update": plan.count(Action::Update),
            "reorder": plan.count(Action::Reorder),
            "delete": plan.count(Action::Delete),
        },
        "risks": guildctl::judge::risks(plan),
        "access": plan.access,
        "policies_kept": plan.policies_kept,
        "warnings": plan.warnings,
        "unmanaged": plan.unmanaged.len(),
        "apply_will_refuse": plan.deletion_gate.refused,
        "apply_refusal": plan.deletion_gate.reasons,
        "rehearsal": plan.rehearsal,
        "changes_sha256": plan.changes_sha256,
    });
    inert::json_pretty(&doc)
}

/// A report's diagnostics as `validate --format json` writes them.
fn diagnostics_json(report: &manifest::Report) -> ContentBlock {
    let json = manifest::render_reports(
        std::slice::from_ref(report),
        manifest::ReportFormat::Json,
        false,
    );
    ContentBlock::text(json.stdout)
}

/// A tool's failure as its result (`isError`), for the assistant to read and act on: an
/// invalid manifest with its diagnostics, else the error's message, inert.
fn error_result(e: &anyhow::Error) -> CallToolResult {
    if let Some(invalid) = e.downcast_ref::<Invalid>() {
        return CallToolResult::error(vec![
            ContentBlock::text(inert::terminal(&invalid.to_string()).into_owned()),
            diagnostics_json(&invalid.report),
        ]);
    }
    failed(format!("{e:#}"))
}

fn failed(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(
        inert::terminal(&message).into_owned(),
    )])
}
