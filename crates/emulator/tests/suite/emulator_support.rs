//! Shared by the emulator test files: a running emulator and a client that
//! calls it as the bot.

use discord_emulator::state::State;
use discord_emulator::{EmulatorOptions, RunningEmulator, default_state};
use discord_permissions::Permissions;
use reqwest::Method;
use serde_json::Value;

/// Emulated seconds per real second in tests that do not study rate limits:
/// a 5-per-5-s bucket lasts 5 µs, the 2-per-10-min name/topic sublimit 0.6 ms,
/// so the calls of one test never hit a limit, while headers are still sent.
pub const TEST_TIME_SCALE: f64 = 1e6;

/// An emulator and an HTTP client that speaks to it as the bot.
pub struct T {
    pub emu: RunningEmulator,
    pub http: reqwest::Client,
}

impl T {
    pub async fn new() -> T {
        Self::with(default_state()).await
    }

    /// Starts on `state`. Rate limits stay on, but a state at the default
    /// `time_scale` gets [`TEST_TIME_SCALE`] so bursts of test calls fit in
    /// every window.
    pub async fn with(mut state: State) -> T {
        if state.config.time_scale == 1.0 {
            state.config.time_scale = TEST_TIME_SCALE;
        }
        let emu = RunningEmulator::start(EmulatorOptions { state: Some(state) })
            .await
            .expect("emulator starts");
        T {
            emu,
            http: reqwest::Client::new(),
        }
    }

    /// A bot whose role has only the given permissions (no ADMINISTRATOR).
    pub async fn non_admin(p: Permissions) -> T {
        let mut st = default_state();
        let g = &mut st.guilds[0];
        let bot_role = g.roles.iter_mut().find(|r| r.name == "guildctl").unwrap();
        bot_role.permissions = p;
        T::with(st).await
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
        reason: Option<&str>,
    ) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{}", self.emu.api_base, path))
            .header("Authorization", format!("Bot {}", self.emu.token));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        if let Some(r) = reason {
            rb = rb.header("X-Audit-Log-Reason", r);
        }
        send(rb).await
    }

    /// A call without Authorization (widget.json, the webhook token routes).
    pub async fn anonymous(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut rb = self
            .http
            .request(method, format!("{}{path}", self.emu.api_base));
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        send(rb).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.call(Method::GET, path, None, None).await
    }
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::POST, path, Some(body), None).await
    }
    pub async fn patch(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::PATCH, path, Some(body), None).await
    }
    pub async fn put(&self, path: &str, body: Value) -> (u16, Value) {
        self.call(Method::PUT, path, Some(body), None).await
    }
    pub async fn delete(&self, path: &str) -> (u16, Value) {
        self.call(Method::DELETE, path, None, None).await
    }

    pub fn g(&self) -> String {
        self.emu.guild_id.clone()
    }
    pub fn role(&self, name: &str) -> String {
        let st = self.emu.state();
        st.guilds[0]
            .roles
            .iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("role {name}"))
            .id
            .clone()
    }
    pub fn chan(&self, name: &str) -> String {
        let st = self.emu.state();
        st.guilds[0]
            .channels
            .iter()
            .find(|c| c.name == name)
            .unwrap_or_else(|| panic!("channel {name}"))
            .id
            .clone()
    }
    pub async fn channel(&self, id: &str) -> Value {
        let (s, v) = self.get(&format!("/channels/{id}")).await;
        assert_eq!(s, 200);
        v
    }
    pub async fn audit(&self, query: &str) -> Vec<Value> {
        let (s, v) = self
            .get(&format!("/guilds/{}/audit-logs{query}", self.g()))
            .await;
        assert_eq!(s, 200, "{v}");
        v["audit_log_entries"].as_array().unwrap().clone()
    }
}

pub fn err_code(v: &Value) -> i64 {
    v["code"].as_i64().unwrap_or(-1)
}

/// Sends and returns (status, JSON body or null when empty).
async fn send(rb: reqwest::RequestBuilder) -> (u16, Value) {
    let resp = rb.send().await.expect("request");
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap_or_default();
    let v = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).expect("json body")
    };
    (status, v)
}

/// An RFC 3339 time `h` hours from now.
pub fn rfc3339_in(h: f64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let secs = now + (h * 3600.0) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil from days (Howard Hinnant).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}
