//! `watch --webhook-env NAME`: each change told, and each guard action, as a message to a
//! Discord webhook (a mod-log channel). The URL is a secret: it is read from the
//! environment variable named, never from the command line, and no error shows it. Lines
//! are gathered for a moment and sent together (one message holds 2,000 characters), with
//! mentions off and markdown escaped, so a name in a change pings or links nobody.

use std::time::Duration;

use anyhow::{Result, bail};
use tokio::sync::mpsc;

use guildctl::discord::secret::Secret;

/// How long lines gather before they are sent: a burst of changes is one message.
const GATHER: Duration = Duration::from_secs(2);

/// Discord's limit on a message's content.
const MAX_CONTENT: usize = 2000;

/// Where the lines go: a task that sends them.
pub struct Webhook {
    lines: mpsc::UnboundedSender<String>,
}

impl Webhook {
    /// The webhook whose URL environment variable `name` holds; a task sends what
    /// [`Webhook::say`] is given.
    pub fn from_env(name: &str) -> Result<Webhook> {
        let url = match std::env::var(name) {
            Ok(u) if !u.trim().is_empty() => Secret::new(u.trim().to_owned()),
            _ => {
                bail!("--webhook-env {name}: the environment variable {name} holds no webhook URL")
            }
        };
        match reqwest::Url::parse(url.expose()) {
            // http only to this machine (the emulator's webhooks).
            Ok(u)
                if u.path().contains("/webhooks/")
                    && (u.scheme() == "https"
                        || (u.scheme() == "http"
                            && matches!(
                                u.host_str(),
                                Some("127.0.0.1" | "localhost" | "[::1]")
                            ))) => {}
            // Not the URL, which may be half a secret: only what is wrong with it.
            _ => bail!(
                "--webhook-env {name}: {name} is not a webhook URL (https://discord.com/api/webhooks/ID/TOKEN)"
            ),
        }
        let (lines, rx) = mpsc::unbounded_channel();
        tokio::spawn(send_all(url, rx));
        Ok(Webhook { lines })
    }

    /// Queues one line (text, as watch tells it), made inert for Discord's markdown: a
    /// name in it neither formats nor links.
    pub fn say(&self, line: &str) {
        let _ = self.lines.send(guildctl::inert::markdown(line));
    }
}

/// Sends the lines as they come, gathered for [`GATHER`], each message within Discord's
/// length; a failure is said on stderr (without the URL) and the next lines go on.
async fn send_all(url: Secret, mut rx: mpsc::UnboundedReceiver<String>) {
    let http = match reqwest::Client::builder()
        .timeout(Duration::from_secs(10))
        .redirect(reqwest::redirect::Policy::none())
        .build()
    {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: no client for the webhook: {}", e.without_url());
            return;
        }
    };
    while let Some(first) = rx.recv().await {
        let mut lines = vec![first];
        let until = tokio::time::Instant::now() + GATHER;
        while let Ok(Some(line)) = tokio::time::timeout_at(until, rx.recv()).await {
            lines.push(line);
        }
        for content in messages(&lines) {
            let body = serde_json::json!({
                "content": content,
                "allowed_mentions": { "parse": [] },
            });
            match http.post(url.expose()).json(&body).send().await {
                Ok(r) if r.status().is_success() => {}
                Ok(r) => eprintln!(
                    "error: the webhook refused a message ({}); the next ones are still sent",
                    r.status()
                ),
                Err(e) => eprintln!(
                    "error: a webhook message could not be sent: {}",
                    e.without_url()
                ),
            }
        }
    }
}

/// The lines as messages of at most [`MAX_CONTENT`] characters; a longer line is cut.
fn messages(lines: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in lines {
        let line: String = line.chars().take(MAX_CONTENT).collect();
        if !current.is_empty() && current.chars().count() + 1 + line.chars().count() > MAX_CONTENT {
            out.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push('\n');
        }
        current.push_str(&line);
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_fill_messages_within_discords_limit() {
        let lines: Vec<String> = (0..50)
            .map(|i| format!("{i:03} {}", "x".repeat(96)))
            .collect();
        let sent = messages(&lines);
        assert_eq!(sent.len(), 3);
        assert!(sent.iter().all(|m| m.chars().count() <= MAX_CONTENT));
        assert_eq!(sent.join("\n"), lines.join("\n"));
        let long = messages(&["y".repeat(5000)]);
        assert_eq!(long, vec!["y".repeat(MAX_CONTENT)]);
    }
}
