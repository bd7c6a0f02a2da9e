//! The plan value: what differs between the manifest and the live guild, as field-level
//! changes for people and as ordered API operations for `apply`, with the verdicts judged on
//! it. A plan is a plain serialisable value: `crate::planner` makes it, `crate::judge`
//! judges it, `apply` executes its operations, and `report` shows it. This room imports
//! neither the planners nor the judges (docs/architecture.md, "The house").
#![deny(missing_docs)]

pub mod binding;
mod canonical_json;
mod change;
pub mod deletion_gate;
pub mod field;
pub mod image;
mod kind;
mod operation;
pub mod policy_change;
mod problem;
pub mod rehearsal;
pub mod risk;
mod stage;
mod value;

pub use binding::{BindingError, Mismatch};
pub use change::{Action, Change, HeldRole, ObjectRef, Person, Warning};
pub use deletion_gate::{Allowance, DeletionGate, PolicyAllowance, PolicyGate};
pub use field::{Field, FieldChange};
pub use kind::{
    AuditActions, Counted, DeleteKind, Door, Grantee, Kind, KindFacts, Live, PeopleEntries,
    Protect, ReliedOn, WhenMissing,
};
pub use operation::{IdRef, Operation, created_key, created_path_ref, created_ref, image_ref};
pub use policy_change::{PolicyBase, PolicyBaseline, PolicyChange, PriorPolicy};
pub use problem::{Duplicate, Problem};
pub use rehearsal::{Rehearsal, RehearsalRefusal};
pub use risk::{Risk, Widening};
pub(crate) use stage::Phase;
pub use stage::{barrier_stage, stage_waits_for};
pub use value::{PLAN_FORMAT, Plan, PlanError, PlanOptions, UnsafePlan};
