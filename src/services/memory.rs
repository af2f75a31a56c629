//! Whether the tables a user asks for fit in the memory the system has: every front end refuses
//! a table too large for the machine at once, with the same words.

use super::units::show_bytes;
use crate::table::Table;

/// The memory the system can give without swapping (`MemAvailable` of `/proc/meminfo`), where
/// the system says.
pub fn available_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The memory available when `bytes` of tables do not fit in it, else `None`. A table maps
/// address space at once but takes memory as it grows, so a table too large for the machine
/// would be killed by the kernel only later, mid-solve: callers refuse it at once.
pub fn shortfall(bytes: u64) -> Option<u64> {
    available_memory().filter(|&available| bytes > available)
}

/// An anonymous table of `bytes` (`--table-mem`), refused when it does not fit in the memory
/// available.
pub fn anonymous_table(bytes: u64) -> anyhow::Result<Table> {
    fits_in_memory(bytes)?;
    Ok(Table::new(bytes)?)
}

/// Refuses a table of `bytes` (`--table-mem`) that does not fit in the memory available.
pub fn fits_in_memory(bytes: u64) -> anyhow::Result<()> {
    if let Some(available) = shortfall(bytes) {
        anyhow::bail!(
            "a table of {} (--table-mem) does not fit in the {} of memory available",
            show_bytes(bytes),
            show_bytes(available)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_os = "linux")]
    fn tables_larger_than_the_available_memory_are_refused() {
        let available = available_memory().expect("Linux reports MemAvailable");
        assert!(available > 0);
        // What is available now may change a little between two reads.
        assert!(shortfall(available * 2).is_some_and(|now| now < available * 2));
        assert_eq!(shortfall(available / 2), None);
    }
}
