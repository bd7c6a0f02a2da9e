//! guildctl's side of Discord's HTTP API v10: the writes it makes as typed routes
//! ([`route`]), the shapes it reads ([`models`]), the audit log's action types
//! ([`audit`]), Discord's limits ([`limits`]), the names Discord rewrites ([`names`]),
//! times and snowflakes ([`time`]), the one HTTP client with its rate limiter ([`client`],
//! [`ratelimit`]), what a call can fail with ([`error`]), the secrets the client holds
//! ([`secret`]), and the CDN reader ([`cdn`]).
//!
//! Every Discord fact here points to the section of guildctl's docs/discord.md that states
//! it with its public source. This crate is the ground guildctl stands on: it depends on
//! nothing of guildctl but the leaf `guildctl-inert` (how a server's words are shown) and
//! the `discord-permissions` table. The emulator (`discord-emulator`) does not depend on
//! it: the emulator is written from Discord's documentation, so where the two disagree
//! about Discord, a test fails.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod audit;
pub mod cdn;
pub mod client;
pub mod error;
pub mod gateway;
pub mod limits;
pub mod models;
pub mod names;
pub mod ratelimit;
pub mod route;
pub mod secret;
pub mod time;

pub use client::{Client, ClientOptions, Form, FormFile, MAX_BODY_BYTES};
pub use error::{ApiError, ClientError, GaveUp};
pub use route::Route;
pub use secret::{Secret, Token};
