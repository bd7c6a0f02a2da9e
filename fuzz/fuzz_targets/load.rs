//! Fuzzes manifest validation: the loader (read limits aside), every stage after it, the
//! checks and every output format, on one file or on a folder of files
//! (`guildctl::manifest::fuzz_one` says how the bytes are read). See docs/validation.md.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    guildctl::manifest::fuzz_one(data);
});
