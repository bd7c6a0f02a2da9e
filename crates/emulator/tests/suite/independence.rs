//! The emulator is held to Discord, not to guildctl: it must never be able to
//! borrow the reconciler's rules. The compiler keeps that wall as long as no
//! dependency table of this crate names the guildctl package.

#[test]
fn the_emulator_does_not_depend_on_guildctl() {
    let manifest = include_str!("../../Cargo.toml");
    let mut table = "";
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line;
            continue;
        }
        if table.contains("dependencies") {
            let name = line.split(['=', ' ', '.']).next().unwrap_or("");
            assert_ne!(name, "guildctl", "{table} names guildctl: {line}");
            assert!(
                !line.contains("path = \"../..\"") && !line.contains("path = \"../../\""),
                "{table} depends on the workspace root (guildctl): {line}"
            );
        }
    }
}
