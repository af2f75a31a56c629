//! Parsing of sizes (`512M`, `1GiB`) and durations (`30s`, `2m`, `1h`) that people give (on
//! the command line, in the server's queries), and sizes shown to people.

use std::time::Duration;

/// The longest duration accepted: ten years (of 365 days). More is surely a typo, and a
/// deadline that far off is "no deadline" in effect, while one near `u64::MAX` seconds
/// overflows the clock (`Instant + Duration` panics).
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// Splits `12.5G` into the number and the unit text; `what` names the expected kind of value
/// in the error.
fn number_and_unit<'a>(text: &'a str, what: &str) -> Result<(f64, &'a str), String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value = number
        .parse()
        .map_err(|_| format!("`{text}` is not {what}"))?;
    Ok((value, unit))
}

/// Parses a byte size: a number with an optional unit `K`, `M`, `G`, `T` (or `KiB`, `MiB`,
/// `GiB`, `TiB`, or with a trailing `B`); every unit is a power of 1024 (`1G` = 2³⁰ bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let (value, unit) = number_and_unit(text, "a size (examples: 64M, 1G, 2GiB, 1048576)")?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => {
            return Err(format!(
                "unknown size unit `{other}` in `{text}` (use K, M, G or T)"
            ))
        }
    };
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > 2f64.powi(50) {
        return Err(format!("size `{text}` is out of range"));
    }
    Ok(bytes as u64)
}

/// Parses a duration: a number with an optional unit `ms`, `s` (the default), `m` or `h`, at
/// most [`MAX_DURATION`].
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let (value, unit) = number_and_unit(text, "a duration (examples: 500ms, 30s, 2m, 1h)")?;
    let seconds = match unit.trim() {
        "ms" => value / 1000.0,
        "" | "s" => value,
        "m" | "min" => value * 60.0,
        "h" => value * 3600.0,
        other => {
            return Err(format!(
                "unknown time unit `{other}` in `{text}` (use ms, s, m or h)"
            ))
        }
    };
    match Duration::try_from_secs_f64(seconds) {
        Ok(duration) if duration <= MAX_DURATION => Ok(duration),
        _ => Err(format!("duration `{text}` is more than 10 years")),
    }
}

/// Bytes for people, in binary units: `512 MiB`, `1.5 GiB`, and `12 KiB` below a MiB.
pub fn show_bytes(bytes: u64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / GIB)
    } else if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{} KiB", bytes >> 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("12Q").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("0").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
        assert_eq!(parse_duration("87600h"), Ok(MAX_DURATION));
        for too_long in ["87601h", "18000000000000000000s", &"9".repeat(400)] {
            let error = parse_duration(too_long).unwrap_err();
            assert!(error.contains("more than 10 years"), "{too_long}: {error}");
            assert!(error.contains(too_long), "the value is named: {error}");
        }
    }
}
