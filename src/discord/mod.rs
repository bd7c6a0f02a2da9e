//! Talking to Discord: the HTTP client and the API models, and Discord's facts the rooms
//! above share ([`limits`], [`time`]). It imports nothing of guildctl but the leaf
//! [`crate::inert`]: it is the ground every other room stands on.

pub mod cdn;
pub mod client;
pub mod limits;
pub mod models;
pub mod names;
pub mod ratelimit;
pub mod route;
pub mod time;

pub use client::{
    ApiError, Client, ClientError, ClientOptions, Form, FormFile, GaveUp, MAX_BODY_BYTES, Secret,
    Token,
};
pub use route::Route;
