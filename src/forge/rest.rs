//! The one HTTP mechanism of both forges' REST clients (`github::GitHub`,
//! `gitlab::GitLab`): JSON in and out, the token sent only to the API base and never
//! echoed, non-success statuses as errors naming the call, pages followed through
//! `Link: rel="next"`. What differs between the forges (how the token is sent, extra
//! headers, whether redirects are followed, the hints) is given to [`Rest::new`].

use std::time::Duration;

use reqwest::Method;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::paging::{every_page, next_link};
use super::tracker::Page;
use crate::inert;

const USER_AGENT: &str = concat!("guildctl/", env!("CARGO_PKG_VERSION"));

/// A call to a forge's API that failed; `forge` names it ("GitHub", "GitLab").
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    // The forge's message is the server's words: shown inert.
    #[error("{forge} API {method} {path}: {status}: {}{hint}", inert::terminal(.message))]
    Api {
        forge: &'static str,
        method: String,
        path: String,
        status: u16,
        message: String,
        hint: &'static str,
    },
    #[error("{forge} API {method} {path}: {source}")]
    Transport {
        forge: &'static str,
        method: String,
        path: String,
        source: reqwest::Error,
    },
    #[error("{forge} API {method} {path}: unexpected response: {}", inert::terminal(.detail))]
    Decode {
        forge: &'static str,
        method: String,
        path: String,
        detail: String,
    },
}

impl CallError {
    /// An answer that is not what the call should return.
    pub fn decode(forge: &'static str, method: &str, path: &str, detail: &str) -> CallError {
        CallError::Decode {
            forge,
            method: method.to_owned(),
            path: path.to_owned(),
            detail: detail.to_owned(),
        }
    }
}

/// The API base of `api` (trimmed, without a trailing `/`), or `Err` with it when it is
/// not an http(s) URL.
pub fn api_base(api: &str) -> Result<String, String> {
    let api = api.trim().trim_end_matches('/').to_owned();
    if api.starts_with("https://") || api.starts_with("http://") {
        Ok(api)
    } else {
        Err(api)
    }
}

/// A token as given, trimmed; `None` when it is empty or holds a space or a control
/// character (what no forge's token holds: a header could not carry it).
pub fn clean_token(token: impl Into<String>) -> Option<String> {
    let t = token.into().trim().to_owned();
    let bad = t.is_empty() || t.chars().any(|c| c.is_whitespace() || c.is_control());
    (!bad).then_some(t)
}

/// A runner's variable, unset when empty.
pub fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// How a forge is called: its name, its API base and the headers every call carries.
pub struct Rest {
    forge: &'static str,
    http: reqwest::Client,
    api: String,
    headers: HeaderMap,
    /// Replaced by `***` in any message a server sends back.
    secret: String,
    /// What to check, for a non-success status.
    hint: fn(u16) -> &'static str,
}

/// How the token travels: a header and its value (`Authorization: Bearer …`,
/// `PRIVATE-TOKEN: …`), marked sensitive so it never shows in `Debug`.
pub struct Auth<'a> {
    pub header: HeaderName,
    pub value: String,
    /// The token itself, as a server might echo it.
    pub secret: &'a str,
}

impl Rest {
    /// `api` is an [`api_base`]. `follow_redirects` only where the forge strips the token
    /// from a redirect to another host (an `Authorization` header is; a header of the
    /// forge's own is not, so such a forge follows none).
    pub fn new(
        forge: &'static str,
        api: String,
        auth: Auth<'_>,
        extra: &[(&'static str, &'static str)],
        follow_redirects: bool,
        hint: fn(u16) -> &'static str,
    ) -> Result<Rest, CallError> {
        let transport = |source| CallError::Transport {
            forge,
            method: "GET".into(),
            path: api.clone(),
            source,
        };
        let mut builder = reqwest::Client::builder()
            .user_agent(USER_AGENT)
            .timeout(Duration::from_secs(30));
        if !follow_redirects {
            builder = builder.redirect(reqwest::redirect::Policy::none());
        }
        let http = builder.build().map_err(transport)?;
        let mut headers = HeaderMap::new();
        for (name, value) in extra {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        // A token with characters a header cannot hold is refused by each forge's token
        // type before this point; this is the same refusal, should one slip through.
        let mut value = HeaderValue::from_str(&auth.value).map_err(|_| CallError::Decode {
            forge,
            method: "GET".into(),
            path: api.clone(),
            detail: "the token cannot be sent in a header".into(),
        })?;
        value.set_sensitive(true);
        headers.insert(auth.header, value);
        Ok(Rest {
            forge,
            http,
            api,
            headers,
            secret: auth.secret.to_owned(),
            hint,
        })
    }

    /// One request; the body's bytes and the next page's URL. Not-success statuses are
    /// errors naming the call, with the server's message.
    pub async fn request(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(bytes::Bytes, Option<String>), CallError> {
        // A next-page URL comes back absolute; the token goes to the API base and nowhere else.
        let url = if path.starts_with('/') {
            format!("{}{path}", self.api)
        } else if path.starts_with(&format!("{}/", self.api)) {
            path.to_owned()
        } else {
            return Err(self.decode(&method, path, "a link that leaves the API base"));
        };
        let shown = url.strip_prefix(&self.api).unwrap_or(&url).to_owned();
        let mut req = self
            .http
            .request(method.clone(), &url)
            .headers(self.headers.clone());
        if let Some(b) = body {
            req = req.json(b);
        }
        let transport = |source| CallError::Transport {
            forge: self.forge,
            method: method.to_string(),
            path: shown.clone(),
            source,
        };
        let resp = req.send().await.map_err(transport)?;
        let status = resp.status();
        let next = resp
            .headers()
            .get("link")
            .and_then(|v| v.to_str().ok())
            .and_then(next_link);
        let bytes = resp.bytes().await.map_err(transport)?;
        if !status.is_success() {
            let json: Option<Value> = serde_json::from_slice(&bytes).ok();
            // GitHub says `message`; GitLab `message` (a string or an object of field
            // errors) or `error`.
            let message = json
                .as_ref()
                .and_then(|j| j.get("message").or_else(|| j.get("error")))
                .map(|m| {
                    m.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| m.to_string())
                })
                .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned())
                // Never echo the token, whatever a server answers.
                .replace(&self.secret, "***");
            return Err(CallError::Api {
                forge: self.forge,
                method: method.to_string(),
                path: shown,
                status: status.as_u16(),
                message,
                hint: (self.hint)(status.as_u16()),
            });
        }
        Ok((bytes, next))
    }

    /// One JSON request whose answer (null when empty) is read as `T` (the typed shapes of
    /// a forge's `wire`, or `Value`), and the next page's URL.
    pub async fn send_as<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(T, Option<String>), CallError> {
        let (bytes, next) = self.request(method.clone(), path, body).await?;
        let v = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|_| self.decode(&method, path, "the body is not JSON"))?
        };
        let typed =
            serde_json::from_value(v).map_err(|e| self.decode(&method, path, &e.to_string()))?;
        Ok((typed, next))
    }

    /// One write whose answer, read as the forge's wire shape `W`, is the forge's item `T`
    /// (an issue or a comment as the flows know it).
    pub async fn write<W: DeserializeOwned + Into<T>, T>(
        &self,
        method: Method,
        path: &str,
        body: &Value,
    ) -> Result<T, CallError> {
        let (written, _): (W, _) = self.send_as(method, path, Some(body)).await?;
        Ok(written.into())
    }

    /// Every item of a listing, page after page ([`every_page`]).
    pub async fn get_all<T: DeserializeOwned>(&self, path: &str) -> Result<Vec<T>, CallError> {
        every_page(path, |url| async move {
            let (items, next) = self.send_as(Method::GET, &url, None).await?;
            Ok(Page { items, next })
        })
        .await
    }

    fn decode(&self, method: &Method, path: &str, detail: &str) -> CallError {
        CallError::decode(self.forge, method.as_str(), path, detail)
    }
}
