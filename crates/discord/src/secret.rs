//! The secrets a client holds: the bot token and webhook URLs, which no output shows.

use std::fmt;

use crate::ClientError;

/// A bot token. It has no `Display`, and its `Debug` hides the value, so it
/// cannot end up in output or an error message by accident.
#[derive(Clone)]
pub struct Token(String);

impl Token {
    /// The token, trimmed and without a pasted `Bot ` prefix; an empty one, or one with
    /// blanks or control characters, is [`ClientError::BadToken`].
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
    /// The secret.
    pub fn new(s: String) -> Secret {
        Secret(s)
    }

    /// The raw value, for the places that must send it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_never_print() {
        let t = Token::new("Bot secret-value").unwrap();
        assert_eq!(t.expose(), "secret-value");
        assert!(!format!("{t:?}").contains("secret"));
        assert!(Token::new("  ").is_err());
    }
}
