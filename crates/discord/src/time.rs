//! Time as Discord and people write it: snowflake timestamps, RFC 3339, waits and ages in
//! words. Plain functions of a number, so every room above (the client's errors, drift,
//! lockdown, the rehearsal) says a time the same way.

use std::time::Duration;

/// Discord's epoch, the first millisecond of 2015, in Unix milliseconds.
const DISCORD_EPOCH_MS: u64 = 1_420_070_400_000;
/// A day in milliseconds.
pub const DAY_MS: u64 = 86_400_000;

/// Unix milliseconds of a snowflake: `(id >> 22) + 1420070400000`.
pub fn snowflake_ms(id: &str) -> Option<u64> {
    id.parse::<u64>().ok().map(|n| (n >> 22) + DISCORD_EPOCH_MS)
}

/// Now, in Unix milliseconds (0 before 1970: a clock that wrong makes every age large).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The smallest snowflake of Unix millisecond `ms`: a bound for "after this moment"
/// (`GET /guilds/{g}/audit-logs?after=`).
pub fn snowflake_at(ms: u64) -> u64 {
    ms.saturating_sub(DISCORD_EPOCH_MS) << 22
}

/// `2025-06-01T12:00:03Z`.
pub fn rfc3339(ms: u64) -> String {
    ::time::OffsetDateTime::from_unix_timestamp((ms / 1000) as i64)
        .ok()
        .and_then(|t| {
            t.format(&::time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_default()
}

/// How long ago `ms` milliseconds is, in the largest whole unit: `3 days ago`.
pub fn ago(ms: u64) -> String {
    let s = ms / 1000;
    let (n, unit) = match s {
        0..60 => return "just now".to_owned(),
        60..3600 => (s / 60, "minute"),
        3600..86_400 => (s / 3600, "hour"),
        _ => (s / 86_400, "day"),
    };
    format!("{n} {unit}{} ago", if n == 1 { "" } else { "s" })
}

/// A wait as people read it, never shorter than it is: `0.3 s`, `4.2 s`, `12 s`,
/// `3 min 20 s`, `1 h 5 min`.
pub fn human_duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 10_000 {
        // Tenths, rounded up: a wait is never announced as 0.0 s.
        let tenths = ms.div_ceil(100).max(1);
        return format!("{}.{} s", tenths / 10, tenths % 10);
    }
    let s = ms.div_ceil(1000);
    // Two units at most, the smaller one left out when it is zero.
    let (big, small, units) = match s {
        ..60 => return format!("{s} s"),
        60..3600 => (s / 60, s % 60, ("min", "s")),
        _ => {
            let min = s.div_ceil(60);
            (min / 60, min % 60, ("h", "min"))
        }
    };
    match small {
        0 => format!("{big} {}", units.0),
        _ => format!("{big} {} {small} {}", units.0, units.1),
    }
}

/// A duration as people type it, a whole number and a unit (`90s`, `5m`, `6h`, `1d`), in
/// seconds; `None` for anything else.
pub fn duration_secs(s: &str) -> Option<u64> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit())?;
    let (num, unit) = t.split_at(split);
    let n: u64 = num.parse().ok()?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// Unix milliseconds of an RFC 3339 time (`2027-01-06T18:00:00Z`, `…+02:00`, Discord's
/// `2027-01-06T18:00:00.000000+00:00`); `None` for anything else or before 1970.
pub fn parse_rfc3339(s: &str) -> Option<u64> {
    let t =
        ::time::OffsetDateTime::parse(s, &::time::format_description::well_known::Rfc3339).ok()?;
    u64::try_from(t.unix_timestamp_nanos() / 1_000_000).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_from_snowflakes() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_420_070_400_000), "2015-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_709_210_096_000), "2024-02-29T12:34:56Z");
        // Discord's documented example id 175928847299117063 → 2016-04-30 11:18:25.796 UTC.
        assert_eq!(snowflake_ms("175928847299117063"), Some(1_462_015_105_796));
        assert_eq!(ago(90_000), "1 minute ago");
        assert_eq!(ago(3 * DAY_MS), "3 days ago");
    }

    #[test]
    fn durations_read_as_people_say_them_and_never_round_down() {
        let cases = [
            (1_000, "1.0 s"),
            (4_200, "4.2 s"),
            (4_201, "4.3 s"),
            (30, "0.1 s"),
            (9_990, "10.0 s"),
            (12_000, "12 s"),
            (59_500, "1 min"),
            (60_000, "1 min"),
            (200_000, "3 min 20 s"),
            (3_600_000, "1 h"),
            (3_900_000, "1 h 5 min"),
            (172_800_000, "48 h"),
        ];
        for (ms, want) in cases {
            assert_eq!(human_duration(Duration::from_millis(ms)), want, "{ms} ms");
        }
    }
}
