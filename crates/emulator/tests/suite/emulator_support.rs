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

/// The first error Discord's error tree holds at `path` (`errors.a.b._errors[0]`).
pub fn field_error<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    let mut node = &v["errors"];
    for p in path {
        node = &node[*p];
    }
    &node["_errors"][0]
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

/// Files to upload, as the emulator reads them: by their header bytes.
pub mod files {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;

    fn png_chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut c = (data.len() as u32).to_be_bytes().to_vec();
        c.extend(kind);
        c.extend(data);
        c.extend([0u8; 4]);
        c
    }

    /// A PNG of `w` × `h` (an APNG when `animated`), padded with image data to `size`
    /// bytes at least.
    pub fn png_sized(w: u32, h: u32, animated: bool, size: usize) -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let mut ihdr = w.to_be_bytes().to_vec();
        ihdr.extend(h.to_be_bytes());
        ihdr.extend([8, 6, 0, 0, 0]);
        out.extend(png_chunk(b"IHDR", &ihdr));
        if animated {
            out.extend(png_chunk(b"acTL", &[0, 0, 0, 2, 0, 0, 0, 0]));
        }
        let pad = size.saturating_sub(out.len() + 24).max(16);
        out.extend(png_chunk(b"IDAT", &vec![7u8; pad]));
        out.extend(png_chunk(b"IEND", &[]));
        out
    }

    pub fn png(w: u32, h: u32) -> Vec<u8> {
        png_sized(w, h, false, 0)
    }

    pub fn gif(w: u16, h: u16) -> Vec<u8> {
        let mut g = b"GIF89a".to_vec();
        g.extend(w.to_le_bytes());
        g.extend(h.to_le_bytes());
        g.extend([0u8, 0, 0, 0x2C, 0, 0, 0, 0, 0x3B]);
        g
    }

    pub fn jpeg() -> Vec<u8> {
        b"\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xFF\xD9".to_vec()
    }

    /// `n` MPEG-1 layer III frames (128 kbit/s, 44.1 kHz): 1152 samples, 26.12 ms each.
    pub fn mp3(n: usize) -> Vec<u8> {
        let mut frame = vec![0u8; 417];
        frame[..4].copy_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        frame.repeat(n)
    }

    fn ogg_page(granule: i64, first: bool, body: &[u8]) -> Vec<u8> {
        let mut p = b"OggS\0".to_vec();
        p.push(if first { 0x02 } else { 0 });
        p.extend(granule.to_le_bytes());
        p.extend(7u32.to_le_bytes());
        p.extend([0u8; 8]);
        let mut table = vec![255u8; body.len() / 255];
        table.push((body.len() % 255) as u8);
        p.push(table.len() as u8);
        p.extend(table);
        p.extend(body);
        p
    }

    /// An Ogg Vorbis stream at 48 kHz that plays `seconds`.
    pub fn ogg(seconds: f64) -> Vec<u8> {
        let mut id = b"\x01vorbis".to_vec();
        id.extend(0u32.to_le_bytes());
        id.push(2);
        id.extend(48_000u32.to_le_bytes());
        id.extend([0u8; 14]);
        let mut out = ogg_page(0, true, &id);
        out.extend(ogg_page(-1, false, &[0; 200]));
        out.extend(ogg_page((seconds * 48_000.0) as i64, false, &[1; 400]));
        out
    }

    pub fn data_uri(mime: &str, bytes: &[u8]) -> String {
        format!("data:{mime};base64,{}", STANDARD.encode(bytes))
    }

    /// A multipart/form-data body: (Content-Type, body). Parts are (name, file name,
    /// bytes); a part with a file name is a file.
    pub fn multipart(parts: &[(&str, Option<&str>, &[u8])]) -> (String, Vec<u8>) {
        let b = "emulatortestboundary7";
        let mut body = Vec::new();
        for (name, file, data) in parts {
            body.extend(
                format!("--{b}\r\nContent-Disposition: form-data; name=\"{name}\"").bytes(),
            );
            if let Some(f) = file {
                body.extend(format!("; filename=\"{f}\"").bytes());
            }
            body.extend(b"\r\n\r\n");
            body.extend(*data);
            body.extend(b"\r\n");
        }
        body.extend(format!("--{b}--\r\n").bytes());
        (format!("multipart/form-data; boundary={b}"), body)
    }
}

impl T {
    /// A multipart/form-data call as the bot (Create Guild Sticker).
    pub async fn multipart(
        &self,
        path: &str,
        parts: &[(&str, Option<&str>, &[u8])],
        reason: Option<&str>,
    ) -> (u16, Value) {
        let (ct, body) = files::multipart(parts);
        let mut rb = self
            .http
            .post(format!("{}{}", self.emu.api_base, path))
            .header("Authorization", format!("Bot {}", self.emu.token))
            .header("content-type", ct)
            .body(body);
        if let Some(r) = reason {
            rb = rb.header("X-Audit-Log-Reason", r);
        }
        send(rb).await
    }

    /// A CDN read (no token): status, Content-Type and bytes.
    pub async fn cdn(&self, path: &str) -> (u16, String, Vec<u8>) {
        let resp = self
            .http
            .get(format!("{}/cdn/{path}", self.emu.base_url))
            .send()
            .await
            .expect("cdn request");
        let status = resp.status().as_u16();
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        (status, ct, resp.bytes().await.unwrap_or_default().to_vec())
    }
}

/// The code of the first field error at `path` of a 50035 body ("" when there is none).
pub fn error_at(v: &Value, path: &[&str]) -> String {
    let mut node = &v["errors"];
    for p in path {
        node = &node[*p];
    }
    node["_errors"][0]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}
