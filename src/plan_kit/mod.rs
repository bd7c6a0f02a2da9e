//! The planners' kit, below the sections that plan with it (docs/architecture.md, "The
//! house"): `context` (the planning context, change builders, `Op`), `matching` (a declared
//! entry's live object), `calls` (the change and call of an update, a creation and a
//! deletion), `order` (target orders), `images` (declared image files), `expressions` (what
//! the expression-like sections share: their one plan).

pub(crate) mod calls;
pub mod context;
pub(crate) mod expressions;
pub(crate) mod images;
pub(crate) mod matching;
pub(crate) mod order;
