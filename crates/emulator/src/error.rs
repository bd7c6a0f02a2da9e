//! Discord's error bodies (docs/discord.md §2.1) and a builder for the
//! nested `errors` tree of 400 50035 "Invalid Form Body".

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// An error response exactly as Discord shapes it.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: u32,
    pub message: String,
    pub errors: Option<Value>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: u32, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            errors: None,
        }
    }
    pub fn unauthorized() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, 0, "401: Unauthorized")
    }
    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, 0, "404: Not Found")
    }
    pub fn method_not_allowed() -> Self {
        Self::new(StatusCode::METHOD_NOT_ALLOWED, 0, "405: Method Not Allowed")
    }
    pub fn invalid_json() -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            50109,
            "The request body contains invalid JSON.",
        )
    }
    pub fn missing_permissions() -> Self {
        Self::new(StatusCode::FORBIDDEN, 50013, "Missing Permissions")
    }
    pub fn missing_access() -> Self {
        Self::new(StatusCode::FORBIDDEN, 50001, "Missing Access")
    }
    pub fn unknown_channel() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10003, "Unknown Channel")
    }
    pub fn unknown_guild() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10004, "Unknown Guild")
    }
    pub fn unknown_member() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10007, "Unknown Member")
    }
    pub fn unknown_overwrite() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10009, "Unknown Overwrite")
    }
    pub fn unknown_role() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10011, "Unknown Role")
    }
    pub fn unknown_user() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10013, "Unknown User")
    }
    pub fn unknown_emoji() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10014, "Unknown Emoji")
    }
    pub fn unknown_sticker() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10060, "Unknown Sticker")
    }
    pub fn unknown_scheduled_event() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            10070,
            "Unknown Guild Scheduled Event",
        )
    }
    pub fn unknown_sound() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10097, "Unknown Sound")
    }
    /// Discord documents no code for an unknown AutoMod rule: the general 0.
    pub fn unknown_automod_rule() -> Self {
        Self::new(StatusCode::NOT_FOUND, 0, "Unknown Auto Moderation Rule")
    }
    pub fn unknown_webhook() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10015, "Unknown Webhook")
    }
    pub fn unknown_welcome_screen() -> Self {
        Self::new(StatusCode::NOT_FOUND, 10069, "Unknown Guild Welcome Screen")
    }
    pub fn invalid_webhook_token() -> Self {
        Self::new(StatusCode::UNAUTHORIZED, 50027, "Invalid Webhook Token")
    }
    pub fn widget_disabled() -> Self {
        Self::new(StatusCode::FORBIDDEN, 50004, "Widget Disabled")
    }
    pub fn invalid_role() -> Self {
        Self::new(StatusCode::BAD_REQUEST, 50028, "Invalid Role")
    }
    pub fn bad_request(code: u32, message: &str) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }
    /// 400 50035 with one field error at `path`.
    pub fn field(path: &[&str], code: &str, message: &str) -> Self {
        let mut f = FieldErrors::default();
        f.add(path, code, message);
        f.into_error()
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({ "message": self.message, "code": self.code });
        if let (Some(errors), Some(obj)) = (self.errors, body.as_object_mut()) {
            obj.insert("errors".into(), errors);
        }
        (self.status, axum::Json(body)).into_response()
    }
}

/// Collects field errors into Discord's tree: object keys and array indices
/// (as strings) down to `{"_errors": [{code, message}]}` leaves.
#[derive(Debug, Default)]
pub struct FieldErrors {
    tree: Map<String, Value>,
}

impl FieldErrors {
    pub fn add(&mut self, path: &[&str], code: &str, message: &str) {
        let mut node = &mut self.tree;
        for key in path {
            let entry = node
                .entry((*key).to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            // Just made sure it is an object.
            node = match entry {
                Value::Object(m) => m,
                _ => return,
            };
        }
        let list = node
            .entry("_errors")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(items) = list {
            items.push(json!({ "code": code, "message": message }));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.tree.is_empty()
    }

    pub fn into_error(self) -> ApiError {
        ApiError {
            errors: Some(Value::Object(self.tree)),
            ..ApiError::new(StatusCode::BAD_REQUEST, 50035, "Invalid Form Body")
        }
    }

    /// `Err(50035)` if any error was collected.
    pub fn check(self) -> Result<(), ApiError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.into_error())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_uses_string_indices_and_error_leaves() {
        let mut f = FieldErrors::default();
        f.add(&["permission_overwrites", "0", "allow"], "X", "bad");
        f.add(&["name"], "BASE_TYPE_REQUIRED", "This field is required");
        let e = f.into_error();
        assert_eq!(e.code, 50035);
        let t = e.errors.unwrap();
        assert_eq!(
            t["permission_overwrites"]["0"]["allow"]["_errors"][0]["code"],
            "X"
        );
        assert_eq!(t["name"]["_errors"][0]["message"], "This field is required");
    }
}
