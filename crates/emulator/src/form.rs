//! Reading request bodies field by field, recording Discord-style field errors
//! (docs/discord.md §2.1) instead of failing on the first bad value.

use serde_json::{Map, Value};

use super::error::{ApiError, FieldErrors};
use discord_permissions::Permissions;

/// A field's presence: absent, explicitly null, or a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<T> {
    Absent,
    Null,
    Set(T),
}

impl<T> Field<T> {
    /// Absent → None; null → Some(None); value → Some(Some(v)).
    pub fn into_option(self) -> Option<Option<T>> {
        match self {
            Field::Absent => None,
            Field::Null => Some(None),
            Field::Set(v) => Some(Some(v)),
        }
    }
    pub fn set(self) -> Option<T> {
        match self {
            Field::Set(v) => Some(v),
            _ => None,
        }
    }
}

/// How a value is quoted in Discord's coerce messages.
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The body as an object; anything else is the DICT_TYPE_CONVERT root error.
pub fn object(body: &Value) -> Result<Map<String, Value>, ApiError> {
    match body {
        Value::Object(m) => Ok(m.clone()),
        // An empty body on an optional-body route reads as `{}`.
        Value::Null => Ok(Map::new()),
        _ => Err(ApiError::field(
            &[],
            "DICT_TYPE_CONVERT",
            "Only dictionaries may be used in a DictType",
        )),
    }
}

/// The body as an array; anything else is LIST_TYPE_CONVERT.
pub fn list(body: &Value) -> Result<Vec<Value>, ApiError> {
    match body {
        Value::Array(a) => Ok(a.clone()),
        _ => Err(ApiError::field(
            &[],
            "LIST_TYPE_CONVERT",
            "Only iterables may be used in a ListType",
        )),
    }
}

/// Reads fields of one JSON object, with `path` as the error prefix.
pub struct Reader<'a> {
    pub obj: &'a Map<String, Value>,
    pub path: Vec<String>,
    pub errs: &'a mut FieldErrors,
}

impl<'a> Reader<'a> {
    pub fn new(obj: &'a Map<String, Value>, errs: &'a mut FieldErrors) -> Self {
        Reader {
            obj,
            path: Vec::new(),
            errs,
        }
    }

    pub fn err(&mut self, key: &str, code: &str, message: &str) {
        let keys: &[&str] = if key.is_empty() { &[] } else { &[key] };
        self.err_at(keys, code, message);
    }

    /// An error at `keys` below this reader's path (e.g. a list item).
    pub fn err_at(&mut self, keys: &[&str], code: &str, message: &str) {
        let mut p: Vec<&str> = self.path.iter().map(String::as_str).collect();
        p.extend_from_slice(keys);
        self.errs.add(&p, code, message);
    }

    /// The value of a field that must be present: null or missing is
    /// BASE_TYPE_REQUIRED (a value of the wrong type already has its error).
    pub fn require<T>(&mut self, key: &str, f: Field<T>) -> Option<T> {
        match f {
            Field::Set(v) => Some(v),
            Field::Null => {
                self.required(key);
                None
            }
            Field::Absent => {
                if !self.has(key) {
                    self.required(key);
                }
                None
            }
        }
    }

    /// A field that is never null: its value, `required` or not (a create's required
    /// field, a modify's optional one). Null, or a missing required field, is
    /// BASE_TYPE_REQUIRED; a value of the wrong type already has its error.
    pub fn present<T>(&mut self, key: &str, f: Field<T>, required: bool) -> Option<T> {
        match f {
            Field::Set(v) => Some(v),
            Field::Null => {
                self.required(key);
                None
            }
            Field::Absent => {
                if required && !self.has(key) {
                    self.required(key);
                }
                None
            }
        }
    }

    fn raw(&self, key: &str) -> Field<&'a Value> {
        match self.obj.get(key) {
            None => Field::Absent,
            Some(Value::Null) => Field::Null,
            Some(v) => Field::Set(v),
        }
    }

    pub fn has(&self, key: &str) -> bool {
        self.obj.contains_key(key)
    }

    pub fn string(&mut self, key: &str) -> Field<String> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(Value::String(s)) => Field::Set(s.clone()),
            Field::Set(v) => {
                let msg = format!("Could not interpret \"{}\" as string.", show(v));
                self.err(key, "BASE_TYPE_STRING", &msg);
                Field::Absent
            }
        }
    }

    pub fn int(&mut self, key: &str) -> Field<i64> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(v) => match as_i64(v) {
                Some(n) => Field::Set(n),
                None => {
                    let msg = format!("Value \"{}\" is not int.", show(v));
                    self.err(key, "NUMBER_TYPE_COERCE", &msg);
                    Field::Absent
                }
            },
        }
    }

    pub fn boolean(&mut self, key: &str) -> Field<bool> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(Value::Bool(b)) => Field::Set(*b),
            Field::Set(_) => {
                self.err(key, "BASE_TYPE_BOOLEAN", "Must be either true or false.");
                Field::Absent
            }
        }
    }

    pub fn snowflake(&mut self, key: &str) -> Field<String> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(v) => match as_snowflake(v) {
                Some(s) => Field::Set(s),
                None => {
                    let msg = format!("Value \"{}\" is not snowflake.", show(v));
                    self.err(key, "NUMBER_TYPE_COERCE", &msg);
                    Field::Absent
                }
            },
        }
    }

    pub fn permissions(&mut self, key: &str) -> Field<Permissions> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(v) => match as_u64(v) {
                Some(n) => Field::Set(Permissions(n)),
                None => {
                    let msg = format!("Value \"{}\" is not int.", show(v));
                    self.err(key, "NUMBER_TYPE_COERCE", &msg);
                    Field::Absent
                }
            },
        }
    }

    /// An integer within `min..=max` (NUMBER_TYPE_MAX / NUMBER_TYPE_MIN otherwise).
    pub fn int_range(&mut self, key: &str, min: i64, max: i64) -> Field<i64> {
        match self.int(key) {
            Field::Set(n) if n > max => {
                let msg = format!("int value should be <= {max} and >= {min}.");
                self.err(key, "NUMBER_TYPE_MAX", &msg);
                Field::Absent
            }
            Field::Set(n) if n < min => {
                let msg = format!("int value should be <= {max} and >= {min}.");
                self.err(key, "NUMBER_TYPE_MIN", &msg);
                Field::Absent
            }
            other => other,
        }
    }

    /// An integer from a fixed set; `shown` is how Discord lists the choices.
    pub fn int_choice(&mut self, key: &str, choices: &[i64], shown: &str) -> Field<i64> {
        match self.int(key) {
            Field::Set(n) if !choices.contains(&n) => {
                let msg = format!("Value must be one of {shown}.");
                self.err(key, "BASE_TYPE_CHOICES", &msg);
                Field::Absent
            }
            other => other,
        }
    }

    /// A string from a fixed set (exact, case included); `shown` is how
    /// Discord lists the choices.
    pub fn string_choice(&mut self, key: &str, choices: &[&str], shown: &str) -> Field<String> {
        match self.string(key) {
            Field::Set(s) if !choices.contains(&s.as_str()) => {
                let msg = format!("Value must be one of {shown}.");
                self.err(key, "BASE_TYPE_CHOICES", &msg);
                Field::Absent
            }
            other => other,
        }
    }

    /// A string of `min..=max` characters (BASE_TYPE_BAD_LENGTH / MAX_LENGTH).
    pub fn string_len(&mut self, key: &str, min: usize, max: usize) -> Field<String> {
        self.stored_name(key, min, max, str::to_owned)
    }

    /// A name as Discord stores it (`store`: trimmed, collapsed, normalised;
    /// §9.2), whose stored form must have `min..=max` characters: the length
    /// checked is that of what a later read returns, so a name that is only
    /// whitespace is refused like an empty one.
    pub fn stored_name(
        &mut self,
        key: &str,
        min: usize,
        max: usize,
        store: impl FnOnce(&str) -> String,
    ) -> Field<String> {
        match self.string(key) {
            Field::Set(sent) => {
                let s = store(&sent);
                let n = s.chars().count();
                if n < min || n > max {
                    if min == 0 {
                        let msg = format!("Must be {max} or fewer in length.");
                        self.err(key, "BASE_TYPE_MAX_LENGTH", &msg);
                    } else {
                        let msg = format!("Must be between {min} and {max} in length.");
                        self.err(key, "BASE_TYPE_BAD_LENGTH", &msg);
                    }
                    Field::Absent
                } else {
                    Field::Set(s)
                }
            }
            other => other,
        }
    }

    /// Image data as a data URI (`data:image/png;base64,...`); anything else
    /// is IMAGE_INVALID.
    pub fn image(&mut self, key: &str) -> Field<String> {
        match self.string(key) {
            Field::Set(s) if !is_image_data(&s) => {
                self.err(key, "IMAGE_INVALID", "Invalid image data");
                Field::Absent
            }
            other => other,
        }
    }

    pub fn array(&mut self, key: &str) -> Field<Vec<Value>> {
        match self.raw(key) {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Set(Value::Array(a)) => Field::Set(a.clone()),
            Field::Set(_) => {
                self.err(
                    key,
                    "LIST_TYPE_CONVERT",
                    "Only iterables may be used in a ListType",
                );
                Field::Absent
            }
        }
    }

    /// A list of at most `max` snowflakes, as a set: repeats are dropped
    /// (the spec marks these lists `uniqueItems`; Discord's reaction to
    /// repeats is undocumented).
    pub fn snowflakes(&mut self, key: &str, max: usize) -> Field<Vec<String>> {
        let list = match self.array(key) {
            Field::Set(l) => l,
            Field::Null => return Field::Null,
            Field::Absent => return Field::Absent,
        };
        if list.len() > max {
            self.err(
                key,
                "BASE_TYPE_MAX_LENGTH",
                &format!("Must be {max} or fewer in length."),
            );
            return Field::Absent;
        }
        let mut out: Vec<String> = Vec::new();
        let mut bad = false;
        for (i, v) in list.iter().enumerate() {
            match as_snowflake(v) {
                Some(id) if !out.contains(&id) => out.push(id),
                Some(_) => {}
                None => {
                    let msg = format!("Value \"{}\" is not snowflake.", show(v));
                    self.err_at(&[key, &i.to_string()], "NUMBER_TYPE_COERCE", &msg);
                    bad = true;
                }
            }
        }
        if bad { Field::Absent } else { Field::Set(out) }
    }

    pub fn required(&mut self, key: &str) {
        self.err(key, "BASE_TYPE_REQUIRED", "This field is required");
    }
}

/// Ids in a body must name objects of the guild: each that does not is a field error
/// `{WHAT}_NOT_FOUND` "Unknown {what}" at its index.
pub fn check_refs(
    r: &mut Reader,
    key: &str,
    ids: &[String],
    exists: impl Fn(&str) -> bool,
    what: &str,
) {
    for (i, id) in ids.iter().enumerate() {
        if !exists(id) {
            let code = format!("{}_NOT_FOUND", what.to_uppercase());
            r.err_at(&[key, &i.to_string()], &code, &format!("Unknown {what}"));
        }
    }
}

fn is_image_data(s: &str) -> bool {
    let Some((head, data)) = s.split_once(',') else {
        return false;
    };
    let known = ["png", "jpeg", "jpg", "gif", "webp"]
        .iter()
        .any(|t| head == format!("data:image/{t};base64"));
    known
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
}

/// A reader for a list item at `path`, or `None` after recording the
/// DICT_TYPE_CONVERT error an item that is not an object gets.
pub fn item<'a>(errs: &'a mut FieldErrors, path: Vec<String>, v: &'a Value) -> Option<Reader<'a>> {
    match v {
        Value::Object(obj) => Some(Reader { obj, path, errs }),
        _ => {
            let p: Vec<&str> = path.iter().map(String::as_str).collect();
            errs.add(
                &p,
                "DICT_TYPE_CONVERT",
                "Only dictionaries may be used in a DictType",
            );
            None
        }
    }
}

pub fn as_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn as_u64(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A snowflake given as string or number, normalised to its decimal string.
pub fn as_snowflake(v: &Value) -> Option<String> {
    as_u64(v).map(|n| n.to_string())
}

/// What Discord keeps of an image sent as a data URI: a hash (responses and the
/// audit log show `*_hash` values, never the image).
pub(crate) fn image_hash(data: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(data.as_bytes());
    d.iter().take(16).map(|b| format!("{b:02x}")).collect()
}
