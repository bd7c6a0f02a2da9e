//! An unambiguous byte form of a value, for hashing ([`super::Snapshot::fingerprint`]).
//!
//! Every value is written with a tag, strings and byte strings with their length, and
//! containers between an opening and a closing mark, so two different values never write the
//! same bytes. It is cheaper than JSON (nothing escaped, numbers not turned into digits),
//! which mattered: written as JSON, a guild at Discord's limits (a megabyte) took a tenth of
//! `plan`'s CPU to fingerprint (docs/performance.md).

use serde::ser::{self, Serialize};
use sha2::{Digest, Sha256};

/// The SHA-256 of `value`'s byte form, hashed as it is written (a large guild's is a
/// megabyte, never held whole).
pub(super) fn sha256<T: Serialize + ?Sized>(value: &T) -> [u8; 32] {
    let mut out = Writer {
        bytes: Vec::with_capacity(FLUSH_AT + 1024),
        hasher: Some(Sha256::new()),
    };
    // Only a `Serialize` impl that fails on purpose can fail here; the models have none.
    let _ = value.serialize(&mut out);
    let mut hasher = out.hasher.take().unwrap_or_default();
    hasher.update(&out.bytes);
    hasher.finalize().into()
}

/// The byte form of `value`, whole (for tests).
#[cfg(test)]
fn to_bytes<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    let mut out = Writer {
        bytes: Vec::new(),
        hasher: None,
    };
    let _ = value.serialize(&mut out);
    out.bytes
}

/// How many bytes are gathered before they go to the hasher.
const FLUSH_AT: usize = 32 * 1024;

struct Writer {
    bytes: Vec<u8>,
    hasher: Option<Sha256>,
}

impl Writer {
    fn put(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
        if self.bytes.len() >= FLUSH_AT
            && let Some(hasher) = &mut self.hasher
        {
            hasher.update(&self.bytes);
            self.bytes.clear();
        }
    }

    fn tag(&mut self, tag: u8) {
        self.put(&[tag]);
    }

    fn len(&mut self, n: usize) {
        self.put(&(n as u64).to_le_bytes());
    }

    fn str(&mut self, s: &str) {
        self.tag(b's');
        self.len(s.len());
        self.put(s.as_bytes());
    }
}

#[derive(Debug)]
pub(super) struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

type Done = Result<(), Error>;

/// The number methods that write a narrower type as the wider one it converts to without
/// loss, each `name(type) => wider(type)`, so `1u8` and `1u64` write the same bytes.
macro_rules! widened {
    ($($method:ident($ty:ty) => $wider:ident($wide:ty)),*) => {$(
        fn $method(self, v: $ty) -> Done {
            self.$wider(<$wide>::from(v))
        }
    )*};
}

/// The number methods that write their tag, then the value's little-endian bytes, each
/// `name(type) tag`.
macro_rules! tagged_le {
    ($($method:ident($ty:ty) $tag:literal),*) => {$(
        fn $method(self, v: $ty) -> Done {
            self.tag($tag);
            self.put(&v.to_le_bytes());
            Ok(())
        }
    )*};
}

impl ser::Serializer for &mut Writer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    fn serialize_bool(self, v: bool) -> Done {
        self.tag(b'b');
        self.tag(u8::from(v));
        Ok(())
    }
    widened!(
        serialize_i8(i8) => serialize_i64(i64),
        serialize_i16(i16) => serialize_i64(i64),
        serialize_i32(i32) => serialize_i64(i64),
        serialize_u8(u8) => serialize_u64(u64),
        serialize_u16(u16) => serialize_u64(u64),
        serialize_u32(u32) => serialize_u64(u64),
        serialize_f32(f32) => serialize_f64(f64)
    );
    tagged_le!(
        serialize_i64(i64) b'i',
        serialize_i128(i128) b'I',
        serialize_u64(u64) b'u',
        serialize_u128(u128) b'U'
    );
    fn serialize_f64(self, v: f64) -> Done {
        self.tag(b'f');
        self.put(&v.to_bits().to_le_bytes());
        Ok(())
    }
    fn serialize_char(self, v: char) -> Done {
        self.str(v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_str(self, v: &str) -> Done {
        self.str(v);
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.tag(b'y');
        self.len(v.len());
        self.put(v);
        Ok(())
    }
    fn serialize_none(self) -> Done {
        self.tag(b'n');
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        self.tag(b'S');
        value.serialize(self)
    }
    fn serialize_unit(self) -> Done {
        self.tag(b'0');
        Ok(())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Done {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Done {
        self.tag(b'v');
        self.str(variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Done {
        self.tag(b'V');
        self.str(variant);
        value.serialize(self)
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self, Error> {
        self.tag(b'[');
        Ok(self)
    }
    fn serialize_tuple(self, len: usize) -> Result<Self, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Self, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self, Error> {
        self.tag(b'V');
        self.str(variant);
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self, Error> {
        self.tag(b'{');
        Ok(self)
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Self, Error> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self, Error> {
        self.tag(b'V');
        self.str(variant);
        self.serialize_map(Some(len))
    }
}

/// The compound forms whose parts are each a whole tagged value, so only the end needs a
/// mark: `elements!` for sequences, tuples and tuple variants (closed by `]`), `fields!` for
/// structs and struct variants, each field written as its name and value (closed by `}`).
macro_rules! elements {
    ($($form:ident :: $part:ident),*) => {$(
        impl ser::$form for &mut Writer {
            type Ok = ();
            type Error = Error;
            fn $part<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                self.tag(b']');
                Ok(())
            }
        }
    )*};
}

macro_rules! fields {
    ($($form:ident),*) => {$(
        impl ser::$form for &mut Writer {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Done {
                self.str(key);
                value.serialize(&mut **self)
            }
            fn end(self) -> Done {
                self.tag(b'}');
                Ok(())
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);
fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for &mut Writer {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Done {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Done {
        value.serialize(&mut **self)
    }
    fn end(self) -> Done {
        self.tag(b'}');
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{FLUSH_AT, sha256, to_bytes};
    use serde_json::json;
    use sha2::{Digest, Sha256};

    #[test]
    fn different_values_write_different_bytes() {
        // Each pair would meet if lengths, tags or ends were left out.
        let pairs = [
            (json!(["ab", "c"]), json!(["a", "bc"])),
            (json!([["a"], "b"]), json!([["a", "b"]])),
            (json!({"a": null}), json!({"a": []})),
            (json!(1), json!("1")),
            (json!(1), json!(1.0)),
            (json!({"a": {"b": 1}}), json!({"a": {}, "b": 1})),
            (json!(true), json!(1)),
        ];
        for (a, b) in pairs {
            assert_ne!(to_bytes(&a), to_bytes(&b), "{a} and {b}");
        }
    }

    #[test]
    fn equal_values_write_equal_bytes() {
        let v = json!({"roles": [{"id": "1", "name": "Mod", "color": 3}], "x": null});
        assert_eq!(to_bytes(&v), to_bytes(&v.clone()));
        assert_eq!(to_bytes(&Some("a")), to_bytes(&Some(String::from("a"))));
    }

    #[test]
    fn the_hash_as_written_is_the_hash_of_the_whole() {
        let long = "x".repeat(FLUSH_AT / 2);
        let v = json!({"a": [long, {"b": long}, long, long], "c": "tail"});
        assert!(to_bytes(&v).len() > 2 * FLUSH_AT);
        let whole: [u8; 32] = Sha256::digest(to_bytes(&v)).into();
        assert_eq!(sha256(&v), whole);
    }
}
