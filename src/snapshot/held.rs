//! What the snapshot's lists of live objects by id have in common, for `listed`'s lookups:
//! each object's id and uploader, and the object as the API shapes it.

use serde::Serialize;
use serde_json::Value;

use crate::discord::models::User;

/// A live object a list holds, as its type knows itself.
pub(super) trait ById: Serialize {
    /// The id plans and the audit log name it by.
    fn id_of(&self) -> &str;
    /// Who uploaded it, for what people upload (`Some(None)` when Discord did not show
    /// them); `None` for what no person uploads.
    fn uploaded_by(&self) -> Option<Option<&User>> {
        None
    }
}

/// A live object of any list, as the lookups below see it.
pub(super) trait Held {
    fn id(&self) -> &str;
    fn uploader(&self) -> Option<Option<&User>>;
    fn value(&self) -> Option<Value>;
}

impl<T: ById> Held for T {
    fn id(&self) -> &str {
        self.id_of()
    }
    fn uploader(&self) -> Option<Option<&User>> {
        self.uploaded_by()
    }
    fn value(&self) -> Option<Value> {
        serde_json::to_value(self).ok()
    }
}

/// The objects of a list (none where it was not read).
pub(super) type Objects<'s> = Box<dyn Iterator<Item = &'s dyn Held> + 's>;

/// `list`'s objects.
pub(super) fn objects<T: ById>(list: &Option<Vec<T>>) -> Objects<'_> {
    Box::new(list.iter().flatten().map(|o| o as &dyn Held))
}

/// Each type's `ById`, by the field that is its id (and, for what people upload, the
/// field naming the uploader).
macro_rules! by_id {
    ($($t:ty => $id:ident $(, uploaded by $user:ident)?;)*) => {$(
        impl $crate::snapshot::held::ById for $t {
            fn id_of(&self) -> &str {
                &self.$id
            }
            $(fn uploaded_by(&self) -> Option<Option<&$crate::discord::models::User>> {
                Some(self.$user.as_ref())
            })?
        }
    )*};
}
pub(super) use by_id;
