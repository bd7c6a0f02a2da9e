//! Canonical JSON, written straight to where it goes (a hasher): object keys sorted at every
//! level, no whitespace, the bytes `serde_json::to_value` followed by a key-sorting writer
//! gives ([`super::binding::changes_digest`], whose form docs/safety.md publishes).
//!
//! Building the value tree first cost a large plan a tenth of its CPU (every string and
//! value copied, a megabyte of text held to hash it). Here only an object's entries are held,
//! to be sorted; lists and scalars go straight out, and scalars and keys are written by
//! serde_json itself, so numbers and escapes are its own.

use std::borrow::Cow;
use std::io::Write;

use serde::ser::{self, Impossible, Serialize};

/// Writes `value` as canonical JSON to `out`. Fails where `serde_json::to_value` fails (a
/// map key that is not a string or a number, an integer wider than 64 bits) or `out` does.
pub(crate) fn write<W: Write, T: Serialize + ?Sized>(out: &mut W, value: &T) -> Result<(), Error> {
    value.serialize(Ser(out))
}

/// serde_json's error: every serializer error, and the writer's, fit it.
pub(crate) type Error = serde_json::Error;

fn refused(what: &str) -> Error {
    ser::Error::custom(what)
}

/// A scalar, as serde_json writes it.
/// Punctuation and bytes already written.
fn raw<W: Write>(out: &mut W, bytes: &[u8]) -> Result<(), Error> {
    out.write_all(bytes).map_err(serde_json::Error::io)
}

fn scalar<W: Write, T: Serialize + ?Sized>(out: &mut W, value: &T) -> Result<(), Error> {
    serde_json::to_writer(out, value)
}

/// The `Serializer` methods that write their value as serde_json does, each `(name(type))`.
macro_rules! scalars {
    ($($method:ident($ty:ty)),*) => {$(
        fn $method(self, v: $ty) -> Result<(), Error> {
            scalar(self.0, &v)
        }
    )*};
}

struct Ser<'a, W>(&'a mut W);

impl<'a, W: Write> ser::Serializer for Ser<'a, W> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = List<'a, W>;
    type SerializeTuple = List<'a, W>;
    type SerializeTupleStruct = List<'a, W>;
    type SerializeTupleVariant = List<'a, W>;
    type SerializeMap = Object<'a, W>;
    type SerializeStruct = Object<'a, W>;
    type SerializeStructVariant = Object<'a, W>;

    scalars!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8])
    );
    // A value holds 64 bits at most, as in `to_value`.
    fn serialize_i128(self, v: i128) -> Result<(), Error> {
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(n), _) => scalar(self.0, &n),
            (_, Ok(n)) => scalar(self.0, &n),
            _ => Err(refused("number out of range")),
        }
    }
    fn serialize_u128(self, v: u128) -> Result<(), Error> {
        match u64::try_from(v) {
            Ok(n) => scalar(self.0, &n),
            Err(_) => Err(refused("number out of range")),
        }
    }
    // A value keeps an `f32` as the `f64` it converts to.
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        scalar(self.0, &f64::from(v))
    }
    fn serialize_none(self) -> Result<(), Error> {
        scalar(self.0, &())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        scalar(self.0, &())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        scalar(self.0, &())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        scalar(self.0, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        raw(self.0, b"{")?;
        scalar(self.0, variant)?;
        raw(self.0, b":")?;
        value.serialize(Ser(&mut *self.0))?;
        raw(self.0, b"}")
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<List<'a, W>, Error> {
        List::open(self.0, None)
    }
    fn serialize_tuple(self, _len: usize) -> Result<List<'a, W>, Error> {
        List::open(self.0, None)
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<List<'a, W>, Error> {
        List::open(self.0, None)
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<List<'a, W>, Error> {
        List::open(self.0, Some(variant))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a, W>, Error> {
        Ok(Object::new(self.0, None, len.unwrap_or(0)))
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Object<'a, W>, Error> {
        Ok(Object::new(self.0, None, len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'a, W>, Error> {
        Ok(Object::new(self.0, Some(variant), len))
    }
}

/// A list, written as it comes; a variant's is wrapped in `{"Variant": …}`.
struct List<'a, W> {
    out: &'a mut W,
    first: bool,
    wrapped: bool,
}

impl<'a, W: Write> List<'a, W> {
    fn open(out: &'a mut W, variant: Option<&'static str>) -> Result<Self, Error> {
        if let Some(variant) = variant {
            raw(out, b"{")?;
            scalar(out, variant)?;
            raw(out, b":")?;
        }
        raw(out, b"[")?;
        Ok(List {
            out,
            first: true,
            wrapped: variant.is_some(),
        })
    }

    fn item<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        if !std::mem::take(&mut self.first) {
            raw(self.out, b",")?;
        }
        value.serialize(Ser(&mut *self.out))
    }

    fn close(self) -> Result<(), Error> {
        raw(self.out, if self.wrapped { b"]}" } else { b"]" })?;
        Ok(())
    }
}

macro_rules! list_forms {
    ($($form:ident :: $part:ident),*) => {$(
        impl<W: Write> ser::$form for List<'_, W> {
            type Ok = ();
            type Error = Error;
            fn $part<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.item(value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

list_forms!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// An object: its entries held until the end, then written in key order. A key given twice
/// keeps its last value, as a map does.
struct Object<'a, W> {
    out: &'a mut W,
    variant: Option<&'static str>,
    entries: Vec<(Cow<'static, str>, Vec<u8>)>,
    key: Option<String>,
}

impl<'a, W: Write> Object<'a, W> {
    fn new(out: &'a mut W, variant: Option<&'static str>, len: usize) -> Self {
        Object {
            out,
            variant,
            entries: Vec::with_capacity(len),
            key: None,
        }
    }

    fn entry<T: Serialize + ?Sized>(
        &mut self,
        key: Cow<'static, str>,
        value: &T,
    ) -> Result<(), Error> {
        let mut bytes = Vec::new();
        value.serialize(Ser(&mut bytes))?;
        self.entries.push((key, bytes));
        Ok(())
    }

    fn close(mut self) -> Result<(), Error> {
        // Stable, so of equal keys the last given stays last: that one is kept.
        self.entries.sort_by(|a, b| a.0.cmp(&b.0));
        let out = self.out;
        if let Some(variant) = self.variant {
            raw(out, b"{")?;
            scalar(out, variant)?;
            raw(out, b":")?;
        }
        raw(out, b"{")?;
        let mut first = true;
        for (i, (key, bytes)) in self.entries.iter().enumerate() {
            if self.entries.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !std::mem::take(&mut first) {
                raw(out, b",")?;
            }
            scalar(out, key.as_ref())?;
            raw(out, b":")?;
            raw(out, bytes)?;
        }
        raw(out, if self.variant.is_some() { b"}}" } else { b"}" })?;
        Ok(())
    }
}

macro_rules! struct_forms {
    ($($form:ident),*) => {$(
        impl<W: Write> ser::$form for Object<'_, W> {
            type Ok = ();
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.entry(Cow::Borrowed(key), value)
            }
            fn end(self) -> Result<(), Error> {
                self.close()
            }
        }
    )*};
}

struct_forms!(SerializeStruct, SerializeStructVariant);

impl<W: Write> ser::SerializeMap for Object<'_, W> {
    type Ok = ();
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key.serialize(Key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .key
            .take()
            .ok_or_else(|| refused("a map value without its key"))?;
        self.entry(Cow::Owned(key), value)
    }
    fn end(self) -> Result<(), Error> {
        self.close()
    }
}

/// A map key as the string `to_value` makes of it: text as it is, numbers and booleans
/// written out; anything else is refused, as there.
struct Key;

fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    // serde_json's own conversion, through a one-entry map, for the rare kinds (floats).
    struct OneEntry<'a, T: ?Sized>(&'a T);
    impl<T: Serialize + ?Sized> Serialize for OneEntry<'_, T> {
        fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut map = s.serialize_map(Some(1))?;
            map.serialize_entry(self.0, &())?;
            map.end()
        }
    }
    match serde_json::to_value(OneEntry(key))? {
        serde_json::Value::Object(map) => map
            .into_iter()
            .next()
            .map(|(k, _)| k)
            .ok_or_else(|| refused("key must be a string")),
        _ => Err(refused("key must be a string")),
    }
}

/// The `Serializer` methods of [`Key`] that write their value out as text, each
/// `(name(type))`.
macro_rules! written_out {
    ($($method:ident($ty:ty)),*) => {$(
        fn $method(self, v: $ty) -> Result<String, Error> {
            Ok(v.to_string())
        }
    )*};
}

impl ser::Serializer for Key {
    type Ok = String;
    type Error = Error;
    type SerializeSeq = Impossible<String, Error>;
    type SerializeTuple = Impossible<String, Error>;
    type SerializeTupleStruct = Impossible<String, Error>;
    type SerializeTupleVariant = Impossible<String, Error>;
    type SerializeMap = Impossible<String, Error>;
    type SerializeStruct = Impossible<String, Error>;
    type SerializeStructVariant = Impossible<String, Error>;

    fn serialize_str(self, v: &str) -> Result<String, Error> {
        Ok(v.to_owned())
    }
    written_out!(
        serialize_char(char),
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128)
    );
    fn serialize_f32(self, v: f32) -> Result<String, Error> {
        key_text(&v)
    }
    fn serialize_f64(self, v: f64) -> Result<String, Error> {
        key_text(&v)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, Error> {
        Ok(variant.to_owned())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<String, Error> {
        value.serialize(self)
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_none(self) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_unit(self) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(refused("key must be a string"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(refused("key must be a string"))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use proptest::prelude::*;
    use serde::Serialize;
    use serde_json::{Value, json};

    /// The form as it was made before: the value tree, then its keys sorted.
    fn through_value<T: Serialize>(value: &T) -> Vec<u8> {
        fn sorted(v: &Value, out: &mut Vec<u8>) {
            match v {
                Value::Object(m) => {
                    let mut entries: Vec<(&String, &Value)> = m.iter().collect();
                    entries.sort_by_key(|(k, _)| *k);
                    out.push(b'{');
                    for (i, (k, v)) in entries.into_iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        serde_json::to_writer(&mut *out, k).unwrap();
                        out.push(b':');
                        sorted(v, out);
                    }
                    out.push(b'}');
                }
                Value::Array(items) => {
                    out.push(b'[');
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        sorted(item, out);
                    }
                    out.push(b']');
                }
                other => serde_json::to_writer(&mut *out, other).unwrap(),
            }
        }
        let mut out = Vec::new();
        sorted(&serde_json::to_value(value).unwrap(), &mut out);
        out
    }

    fn direct<T: Serialize>(value: &T) -> Vec<u8> {
        let mut out = Vec::new();
        super::write(&mut out, value).unwrap();
        out
    }

    #[derive(Serialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(i32, String),
        Struct { zeta: f32, alpha: Option<bool> },
    }

    #[derive(Serialize)]
    struct Everything {
        z: Vec<Shape>,
        a: HashMap<u16, char>,
        m: BTreeMap<bool, ()>,
        f: HashMap<String, f64>,
        bytes: &'static [u8],
        #[serde(flatten)]
        rest: Value,
    }

    #[test]
    fn every_form_serde_has_writes_as_the_value_tree_would() {
        let value = Everything {
            z: vec![
                Shape::Unit,
                Shape::Newtype(7),
                Shape::Tuple(-3, "é\"\n".into()),
                Shape::Struct {
                    zeta: 0.1,
                    alpha: None,
                },
            ],
            a: HashMap::from([(10, 'x'), (2, '\u{1F600}'), (300, '\0')]),
            m: BTreeMap::from([(true, ()), (false, ())]),
            f: HashMap::from([("nan".into(), f64::NAN), ("one".into(), 1.0)]),
            bytes: b"\x00\xff",
            rest: json!({"y": [1, {"b": 2, "a": null}], "b": "k"}),
        };
        let direct = direct(&value);
        assert_eq!(
            String::from_utf8(direct.clone()).unwrap(),
            String::from_utf8(through_value(&value)).unwrap()
        );
        assert!(direct.starts_with(br#"{"a":{"10":"x","2":"#));
    }

    #[test]
    fn a_key_given_twice_keeps_its_last_value() {
        struct Twice;
        impl Serialize for Twice {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                m.serialize_entry("k", &1)?;
                m.serialize_entry("a", &0)?;
                m.serialize_entry("k", &2)?;
                m.end()
            }
        }
        assert_eq!(direct(&Twice), br#"{"a":0,"k":2}"#);
        assert_eq!(direct(&Twice), through_value(&Twice));
    }

    #[test]
    fn what_the_value_tree_refuses_is_refused() {
        let mut out = Vec::new();
        assert!(super::write(&mut out, &HashMap::from([(vec![1u8], 1)])).is_err());
        assert!(super::write(&mut out, &u128::MAX).is_err());
        assert!(serde_json::to_value(u128::MAX).is_err());
    }

    fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            ".{0,6}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((".{0,4}", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn any_json_writes_as_the_value_tree_would(value in any_json()) {
            prop_assert_eq!(direct(&value), through_value(&value));
        }
    }
}
