//! Talking to Discord: the HTTP client and the API models.

pub mod client;
pub mod models;
pub mod names;

pub use client::{ApiError, Client, ClientError, Secret, Token};
