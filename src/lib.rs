pub mod permissions;
