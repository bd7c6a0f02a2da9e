//! The one HTTP client every Discord call goes through: authentication, the
//! audit-log reason header, error decoding and retries after a 429.

use std::fmt;
use std::time::Duration;

use percent_encoding::{NON_ALPHANUMERIC, utf8_percent_encode};
use reqwest::{Method, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::models::ErrorBody;

/// Discord requires a descriptive User-Agent (discord-behaviour.md §1.4).
const USER_AGENT: &str = concat!(
    "DiscordBot (https://github.com/guildctl/guildctl, ",
    env!("CARGO_PKG_VERSION"),
    ")"
);

/// Discord stores at most 512 characters of a reason (§7.1).
pub const MAX_REASON_CHARS: usize = 512;

/// How often one call is retried after a 429 before giving up.
const MAX_RATE_LIMIT_RETRIES: u32 = 5;

/// A bot token. It has no `Display`, and its `Debug` hides the value, so it
/// cannot end up in output or an error message by accident.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    pub fn new(token: impl Into<String>) -> Result<Token, ClientError> {
        let t = token.into().trim().to_owned();
        // A token pasted with its "Bot " prefix is accepted; an empty one is not.
        let t = t.strip_prefix("Bot ").map(str::to_owned).unwrap_or(t);
        if t.is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ClientError::BadToken);
        }
        Ok(Token(t))
    }

    /// The raw value, for the places that must compare or send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(***)")
    }
}

/// A secret string (a webhook URL with its token): hidden from `Debug`, no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: String) -> Secret {
        Secret(s)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(
        "the bot token is empty or malformed: set DISCORD_TOKEN or pass --token-file with the bot's token"
    )]
    BadToken,
    #[error("{method} {path}: {detail}")]
    Transport {
        method: Method,
        path: String,
        detail: String,
    },
    #[error("{0}")]
    Api(Box<ApiError>),
    #[error("{method} {path}: the response was not what Discord sends ({detail})")]
    Decode {
        method: Method,
        path: String,
        detail: String,
    },
}

/// A call that Discord answered with an error status.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{method} {path} failed: {status}{}", describe(.body))]
pub struct ApiError {
    pub method: Method,
    pub path: String,
    pub status: StatusCode,
    pub body: Option<ErrorBody>,
}

impl ApiError {
    pub fn code(&self) -> Option<i64> {
        self.body.as_ref().map(|b| b.code)
    }
}

fn describe(body: &Option<ErrorBody>) -> String {
    let Some(b) = body else {
        return String::new();
    };
    let mut s = format!(", Discord error {}: {}", b.code, b.message);
    if let Some(errors) = &b.errors {
        let mut leaves = Vec::new();
        collect_field_errors(errors, String::new(), &mut leaves);
        if !leaves.is_empty() {
            s.push_str(&format!(" ({})", leaves.join("; ")));
        }
    }
    s
}

/// Flattens Discord's nested `errors` tree into `field.path: message` lines.
fn collect_field_errors(v: &Value, path: String, out: &mut Vec<String>) {
    let Value::Object(map) = v else { return };
    for (k, child) in map {
        if k == "_errors" {
            for e in child.as_array().into_iter().flatten() {
                let msg = e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("invalid");
                let at = if path.is_empty() { "body" } else { &path };
                out.push(format!("{at}: {msg}"));
            }
        } else {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            collect_field_errors(child, p, out);
        }
    }
}

/// The HTTP client. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    http: reqwest::Client,
    api_base: String,
    token: Token,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("api_base", &self.api_base)
            .finish_non_exhaustive()
    }
}

impl Client {
    pub fn new(api_base: &str, token: Token) -> Result<Client, ClientError> {
        let http = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| ClientError::Transport {
                method: Method::GET,
                path: String::new(),
                detail: e.to_string(),
            })?;
        Ok(Client {
            http,
            api_base: api_base.trim_end_matches('/').to_owned(),
            token,
        })
    }

    pub fn api_base(&self) -> &str {
        &self.api_base
    }

    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        let value = self.send(Method::GET, path, None, None).await?;
        serde_json::from_value(value.unwrap_or(Value::Null)).map_err(|e| ClientError::Decode {
            method: Method::GET,
            path: path.to_owned(),
            detail: e.to_string(),
        })
    }

    /// Sends one request. Returns the JSON body, or `None` for 204.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        reason: Option<&str>,
    ) -> Result<Option<Value>, ClientError> {
        let url = format!("{}{}", self.api_base, path);
        let mut attempt = 0;
        loop {
            let mut req = self
                .http
                .request(method.clone(), &url)
                .header("Authorization", format!("Bot {}", self.token.expose()));
            if let Some(r) = reason.filter(|r| !r.is_empty()) {
                req = req.header("X-Audit-Log-Reason", encode_reason(r));
            }
            if let Some(b) = body {
                req = req.json(b);
            }
            let resp = req.send().await.map_err(|e| ClientError::Transport {
                method: method.clone(),
                path: path.to_owned(),
                // reqwest's message names the URL, never headers, so no token leaks here.
                detail: e.without_url().to_string(),
            })?;
            let status = resp.status();
            let bytes = resp.bytes().await.map_err(|e| ClientError::Transport {
                method: method.clone(),
                path: path.to_owned(),
                detail: e.without_url().to_string(),
            })?;
            if status.is_success() {
                if bytes.is_empty() || status == StatusCode::NO_CONTENT {
                    return Ok(None);
                }
                return serde_json::from_slice(&bytes)
                    .map(Some)
                    .map_err(|e| ClientError::Decode {
                        method: method.clone(),
                        path: path.to_owned(),
                        detail: e.to_string(),
                    });
            }
            let body: Option<ErrorBody> = serde_json::from_slice(&bytes).ok();
            if status == StatusCode::TOO_MANY_REQUESTS && attempt < MAX_RATE_LIMIT_RETRIES {
                attempt += 1;
                let wait = body.as_ref().and_then(|b| b.retry_after).unwrap_or(1.0);
                tokio::time::sleep(Duration::from_secs_f64(wait.clamp(0.0, 60.0))).await;
                continue;
            }
            return Err(ClientError::Api(Box::new(ApiError {
                method,
                path: path.to_owned(),
                status,
                body,
            })));
        }
    }
}

/// Percent-encodes a reason as UTF-8 after cutting it to Discord's 512 characters.
pub fn encode_reason(reason: &str) -> String {
    let cut: String = reason.chars().take(MAX_REASON_CHARS).collect();
    utf8_percent_encode(&cut, NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_are_cut_to_512_characters_then_encoded() {
        let long = "é".repeat(600);
        let enc = encode_reason(&long);
        let decoded = percent_encoding::percent_decode_str(&enc)
            .decode_utf8()
            .unwrap();
        assert_eq!(decoded.chars().count(), 512);
        assert_eq!(encode_reason("a b+c"), "a%20b%2Bc");
    }

    #[test]
    fn tokens_never_print() {
        let t = Token::new("Bot secret-value").unwrap();
        assert_eq!(t.expose(), "secret-value");
        assert!(!format!("{t:?}").contains("secret"));
        assert!(Token::new("  ").is_err());
    }

    #[test]
    fn api_errors_flatten_field_errors() {
        let body: ErrorBody = serde_json::from_value(serde_json::json!({
            "code": 50035, "message": "Invalid Form Body",
            "errors": {"name": {"_errors": [{"code": "BASE_TYPE_MAX_LENGTH", "message": "Must be 100 or fewer in length."}]}}
        }))
        .unwrap();
        let e = ApiError {
            method: Method::PATCH,
            path: "/channels/1".into(),
            status: StatusCode::BAD_REQUEST,
            body: Some(body),
        };
        assert_eq!(
            e.to_string(),
            "PATCH /channels/1 failed: 400 Bad Request, Discord error 50035: Invalid Form Body (name: Must be 100 or fewer in length.)"
        );
    }
}
