pub mod emulator;
pub mod permissions;
