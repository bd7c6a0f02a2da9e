//! Talking to Discord: the HTTP client and the API models.

pub mod cdn;
pub mod client;
pub mod models;
pub mod names;
pub mod ratelimit;
pub mod route;

pub use client::{
    ApiError, Client, ClientError, ClientOptions, GaveUp, MAX_BODY_BYTES, Secret, Token,
};
pub use route::Route;
