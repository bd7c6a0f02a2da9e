//! Timestamps as Discord writes them (ISO 8601, UTC). The emulator's now is
//! `State::now_ms` (the wall clock plus what the control clock advanced).

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// `2021-06-01T12:00:00.000000+00:00`, Discord's form.
pub(crate) fn timestamp(ms: u64) -> String {
    let t = OffsetDateTime::from_unix_timestamp((ms / 1000) as i64)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}+00:00",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        (ms % 1000) * 1000
    )
}

/// Reads an RFC 3339 timestamp (a date, a time, optional fraction, a `Z` or `±HH:MM`
/// offset) as Unix milliseconds; `None` for anything else or before 1970.
pub(crate) fn parse_timestamp(s: &str) -> Option<u64> {
    let t = OffsetDateTime::parse(s, &Rfc3339).ok()?;
    u64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_round_trip_and_offsets_count() {
        let ms = 1_622_548_800_123;
        assert_eq!(timestamp(ms), "2021-06-01T12:00:00.123000+00:00");
        assert_eq!(parse_timestamp(&timestamp(ms)), Some(ms));
        assert_eq!(
            parse_timestamp("2021-06-01T14:00:00+02:00"),
            Some(1_622_548_800_000)
        );
        assert_eq!(
            parse_timestamp("2021-06-01T12:00:00Z"),
            Some(1_622_548_800_000)
        );
        for bad in [
            "",
            "tomorrow",
            "2021-13-01T00:00:00Z",
            "2021-06-01T12:00:00",
            "2021-06-01",
        ] {
            assert_eq!(parse_timestamp(bad), None, "{bad}");
        }
    }
}
